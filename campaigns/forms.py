import functools
import re

from crispy_forms.helper import FormHelper
from crispy_forms.layout import Submit
from django import forms
from django.core.exceptions import ValidationError

from . import systems
from .models import Campaign, Visibility


class CampaignForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["name", "system", "description"]
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}
        help_texts = {"system": "The rule system every character at this table uses. It cannot change later."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.helper = FormHelper()
        self.helper.add_input(Submit("submit", "Save campaign" if self.instance.pk else "Create campaign"))
        self._defaults: dict[str, int] = {}
        if self.instance.pk:
            del self.fields["system"]
            # The optional rules the campaign's system offers, kept in Campaign.options: a checkbox
            # for a switch, a whole number within its bounds for a number.
            for option in systems.campaign_options(self.instance.system):
                key, label, help_text, number = systems.option_parts(option)
                if number is not None:
                    # Left blank, the number goes back to the system's usual value.
                    self.fields[f"option_{key}"] = WholeNumberField(
                        min_value=number.min_value,
                        max_value=number.max_value,
                        required=False,
                        label=label,
                        help_text=f"{help_text} Blank: {number.default}.",
                        initial=number.value(self.instance.options),
                    )
                    self._defaults[f"option_{key}"] = number.default
                    continue
                self.fields[f"option_{key}"] = forms.BooleanField(
                    required=False,
                    label=label,
                    help_text=help_text,
                    initial=bool(self.instance.options.get(key)),
                )

    def options(self) -> dict[str, bool | int]:
        """The optional rules as chosen, keyed as Campaign.options stores them."""
        return {
            name.removeprefix("option_"): self._defaults.get(name) if value is None else value
            for name, value in self.cleaned_data.items()
            if name.startswith("option_")
        }


def crispy_helper(label: str) -> FormHelper:
    helper = FormHelper()
    helper.add_input(Submit("submit", label))
    return helper


# A database integer column holds 64 bits; every number the app reads is far smaller than this bound, so
# nothing a client sends can overflow a query.
WHOLE_NUMBER_LIMIT = 2**31 - 1
_ASCII_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]+")


class WholeNumberField(forms.IntegerField):
    """A whole number typed in ASCII digits, within the given (or the database's safe) bounds.

    ``int()`` reads other scripts' digits ("٣" is 3) and ``str.isdigit`` passes superscripts ("²") that
    ``int()`` refuses; a player means neither, so both get the field's own message.
    """

    default_error_messages = {"invalid": "Enter a whole number (digits 0-9)."}

    def __init__(self, *, min_value=None, max_value=None, **kwargs):
        super().__init__(
            min_value=-WHOLE_NUMBER_LIMIT if min_value is None else min_value,
            max_value=WHOLE_NUMBER_LIMIT if max_value is None else max_value,
            **kwargs,
        )

    def to_python(self, value):
        if isinstance(value, str):
            value = value.strip()
            if value in self.empty_values:
                return None
            if len(value) > 20 or not _ASCII_WHOLE_NUMBER.fullmatch(value):
                raise ValidationError(self.error_messages["invalid"], code="invalid")
        elif isinstance(value, bool) or (value is not None and not isinstance(value, int)):
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class IdField(WholeNumberField):
    """The id of a row the client picked: a positive whole number; the view still looks it up."""

    default_error_messages = {"invalid": "That choice is not valid."}

    def __init__(self, **kwargs):
        super().__init__(min_value=1, **kwargs)


# Reading a number outside a form, a field is made once per bounds (cleaning changes nothing on it):
# every id in a URL is read through row_id (IdConverter), and a sheet's rows each time it is drawn.
@functools.cache
def _whole_number_field(min_value, max_value) -> WholeNumberField:
    return WholeNumberField(min_value=min_value, max_value=max_value, required=False)


_ROW_ID_FIELD = IdField(required=False)


def whole_number(text, *, min_value=None, max_value=None) -> int | None:
    """A number a client sent outside any form (a key, a path), read as WholeNumberField reads it.

    None for blank or for anything that field refuses ("²", "٣", "1e9", a number past its bounds).
    """
    try:
        return _whole_number_field(min_value, max_value).clean(text)
    except ValidationError:
        return None


# An id as nearly every URL and post carries it: plain digits, no leading zero, within the field's bounds.
_PLAIN_ROW_ID = re.compile(r"[1-9][0-9]{0,9}")


def row_id(text) -> int | None:
    """The id of a row a client named outside any form, read as IdField reads it; None if it is none."""
    # Every id in a URL comes through here: the plain ones are read at once, to the number the field
    # would give; the field reads the rest (blank, signs, spaces, leading zeros) and refuses the junk.
    if isinstance(text, str) and _PLAIN_ROW_ID.fullmatch(text) and int(text) <= WHOLE_NUMBER_LIMIT:
        return int(text)
    try:
        return _ROW_ID_FIELD.clean(text)
    except ValidationError:
        return None


class IdConverter:
    """``<id:name>`` in a URL: a row id read as IdField reads it (campaigns/apps.py registers it).

    Past its bounds the path matches nothing (404), where Django's ``<int:...>`` handed the view a
    number the database's integer cannot hold, and the query failed (500).
    """

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        number = row_id(value)
        if number is None:
            raise ValueError(value)  # Django reads it as "no match"
        return number

    def to_url(self, value) -> str:
        return str(value)


class VisibilityField(forms.ChoiceField):
    """Who sees a roll, the one way every roll form asks it (the dice box, a sheet's roll, a saved roll, a
    roll request): Visibility's choices, ``leave_out`` some (a request is never "Only me", which would hide
    the answer from the GM who asked), ``relabel`` one for whoever picks it, ``extra`` a further choice (the
    dice box's whisper, which needs names). One message for a value that is none of them."""

    def __init__(self, *, label="Who sees the roll", leave_out=(), relabel=None, extra=(), **kwargs):
        relabel = relabel or {}
        offered = [(value, text) for value, text in Visibility.choices if value not in leave_out]
        choices = [(value, relabel.get(value, text)) for value, text in offered]
        kwargs.setdefault("initial", Visibility.PUBLIC)
        refused = "Choose who may see this roll from the list."
        kwargs.setdefault("error_messages", {"required": refused, "invalid_choice": refused})
        super().__init__(choices=[*choices, *extra], label=label, **kwargs)


def compact(form: forms.Form) -> forms.Form:
    """Bootstrap's small controls on a form drawn field by field in a tight space (templates/_field.html):
    a system's roll options, an encounter's action and defence inputs, a quick NPC. A widget that names
    its own class keeps it."""
    for field in form.fields.values():
        widget = field.widget
        # A list of boxes or radios (CheckboxSelectMultiple is a RadioSelect) puts the class on each input.
        if isinstance(widget, forms.CheckboxInput | forms.RadioSelect):
            css = "form-check-input"
        elif isinstance(widget, forms.Select):
            css = "form-select form-select-sm"
        else:
            css = "form-control form-control-sm"
        widget.attrs.setdefault("class", css)
    return form
