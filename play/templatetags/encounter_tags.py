from django import template
from django.utils.safestring import SafeString

from ..encounter_html import order_html

register = template.Library()


@register.simple_tag(takes_context=True)
def encounter_order(context) -> SafeString:
    """The turn order of the page's encounter (its context from play.encounter_panel.order_context), with
    the page's CSRF token in the GM's controls."""
    return order_html(context.flatten(), context.get("csrf_token"))
