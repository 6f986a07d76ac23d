"""``{% feed_entry entry variant %}``: a feed entry drawn by campaigns/entry_html.py, in any template."""

from django import template

from campaigns.entry_html import render_entry

register = template.Library()


@register.simple_tag(takes_context=True)
def feed_entry(context, entry, variant):
    # The apply form (a hidden roll's pending changes) posts with the page's CSRF token and shows the
    # error of an apply that was refused; neither depends on who views the entry otherwise.
    # The token is lazy: asked for only where the form is drawn, as asking sets the CSRF cookie.
    token = context.get("csrf_token")
    return render_entry(entry, variant, apply_error=context.get("apply_error") or "", csrf_token=token)
