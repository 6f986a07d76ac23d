"""Form widgets drawn in Python, byte for byte as Django's own widget templates draw them.

Every form on a page draws each of its inputs and selects through a template of Django's (input.html,
then attrs.html for its attributes, a template more per option of a select). On the sheet those renders
were a sixth of the page's time: the eight roll options alone took 2.4 ms of L5R's 15, and a turn's
action forms most of the turn panel's. The widgets a page here draws are built below with the same
escaping and the same number formatting a template applies to ``{{ value }}``; any other template (a
custom widget, a whole form's layout) still goes to the templates. tests/campaigns/test_form_renderer.py
holds every widget kind, value and attribute to the templates' own output. Part of the speed layer:
stock mode (settings.TABLETOP_STOCK) keeps Django's renderer.
"""

from django.forms.renderers import DjangoTemplates
from django.template import Context
from django.template.base import render_value_in_context
from django.utils.html import conditional_escape
from django.utils.safestring import SafeData, SafeString

WIDGETS = "django/forms/widgets/"
# The templates that are only {% include "django/forms/widgets/input.html" %}.
INPUT_TEMPLATES = frozenset(
    f"{WIDGETS}{name}.html"
    for name in (
        "input", "text", "number", "email", "url", "password", "hidden", "checkbox", "search", "tel",
        "date", "datetime", "time", "color", "file",
    )
)  # fmt: skip
_AUTOESCAPED = Context(autoescape=True)


def _shown(value) -> str:
    """``{{ value }}``: localised as a template shows it, escaped unless already safe."""
    return render_value_in_context(value, _AUTOESCAPED)


# Each drawing below is what its template gives once BaseRenderer.render has stripped the template's
# last line break.


def _formatted(value) -> str:
    """``{{ value|stringformat:'s' }}``: the filter keeps safe text safe (it is ``is_safe``)."""
    text = str(value)  # "%s" % value, which for a tuple would format its items: the filter str()s it first
    return text if isinstance(value, SafeData) else conditional_escape(text)


def _attrs(attrs: dict) -> str:
    """attrs.html: ``True`` as a bare name, ``False`` left out."""
    return "".join(
        f" {_shown(name)}" if value is True else f' {_shown(name)}="{_formatted(value)}"'
        for name, value in attrs.items()
        if value is not False
    )


def _input(widget: dict) -> str:
    value = widget["value"]
    shown = "" if value is None else f' value="{_formatted(value)}"'
    kind, name = _shown(widget["type"]), _shown(widget["name"])
    return f'<input type="{kind}" name="{name}"{shown}{_attrs(widget["attrs"])}>'


def _option(option: dict) -> str:
    value, label = _formatted(option["value"]), _shown(option["label"])
    return f'<option value="{value}"{_attrs(option["attrs"])}>{label}</option>\n'


def _select(widget: dict) -> str | None:
    parts = [f'<select name="{_shown(widget["name"])}"{_attrs(widget["attrs"])}>']
    for group_name, group_choices, _ in widget["optgroups"]:
        if group_name:
            parts.append(f'\n  <optgroup label="{_shown(group_name)}">')
        for option in group_choices:
            if option["template_name"] != f"{WIDGETS}select_option.html":
                return None  # an option drawn by a template of its own
            parts.append(f"\n  {_option(option)}")
        if group_name:
            parts.append("\n  </optgroup>")
    parts.append("\n</select>")
    return "".join(parts)


def _textarea(widget: dict) -> str:
    value = _shown(widget["value"]) if widget["value"] else ""
    return f'<textarea name="{_shown(widget["name"])}"{_attrs(widget["attrs"])}>\n{value}</textarea>'


_DRAWN = {
    **dict.fromkeys(INPUT_TEMPLATES, _input),
    f"{WIDGETS}select.html": _select,
    f"{WIDGETS}textarea.html": _textarea,
}


class FormRenderer(DjangoTemplates):
    """Django's renderer, with the common widgets drawn without a template."""

    def render(self, template_name, context, request=None):
        draw = _DRAWN.get(template_name)
        if draw is not None and request is None:
            drawn = draw(context["widget"])
            if drawn is not None:
                return SafeString(drawn)
        return super().render(template_name, context, request)
