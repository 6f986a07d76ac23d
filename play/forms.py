"""The forms behind every encounter button: each one says what it reads and refuses the rest by name."""

from __future__ import annotations

import copy
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import IdField, VisibilityField, WholeNumberField
from campaigns.hooks import RollSubject
from rules import notation
from sheets.combat import EncounterError

from .models import SavedRoll


def refusal(what: str, *bound: forms.Form) -> str:
    """One line naming each field at fault by its label, e.g. "Check the NPC: HP: Enter a whole number."""
    parts = []
    for form in bound:
        for name, errors in form.errors.items():
            text = " ".join(str(e) for e in errors)
            if name == forms.forms.NON_FIELD_ERRORS:
                parts.append(text)
            else:
                label = form[name].label if name in form.fields else name.replace("_", " ")
                parts.append(f"{label}: {text}")
    return f"Check {what}: " + " ".join(parts)


def cleaned(form_class: type[forms.Form], data: Any, *, prefix: str | None, what: str) -> dict[str, Any]:
    """``form_class`` bound to ``data`` and cleaned, or an EncounterError naming the fields at fault."""
    form = form_class(data, prefix=prefix)
    if not form.is_valid():
        raise EncounterError(refusal(what, form))
    return form.cleaned_data


def initial_data(form_class: type[forms.Form], *, prefix: str | None, names=None) -> dict[str, Any]:
    """What the form posts as first drawn (each field's initial value), for the fields ``names`` (None:
    all): an unticked checkbox posts nothing, a list of choices each one picked (a list)."""
    return initial_of(form_class(prefix=prefix), names)


def initial_of(form: forms.Form, names=None) -> dict[str, Any]:
    """:func:`initial_data` of an unbound form already made (a page's, about to be drawn): making
    another deep-copies every field again."""
    data: dict[str, Any] = {}
    for name, field in form.fields.items():
        if names is not None and name not in names:
            continue
        value = form.get_initial_for_field(field, name)
        if isinstance(field.widget, forms.CheckboxInput):
            if value:
                data[form.add_prefix(name)] = "on"
        elif isinstance(field, forms.MultipleChoiceField):
            data[form.add_prefix(name)] = [str(v) for v in value or ()]
        else:
            if value is None and isinstance(field.widget, forms.Select):
                value = _first_option(field)  # a drop-down with none selected shows, and posts, its first
            data[form.add_prefix(name)] = "" if value is None else str(value)
    return data


def _first_option(field: forms.Field):
    for value, label in getattr(field, "choices", ()):
        if isinstance(label, list | tuple):  # a group of options
            return label[0][0] if label else None
        return value
    return None


def with_initial(data: Any, form: forms.Form, *, names) -> Any:
    """``data`` with the fields ``names`` put back to their initial values in ``form`` (unbound, made
    with the prefix ``data`` is read under), whatever was posted for them."""
    # A shallow copy keeps every value of a multiple choice (each key's list is replaced below, never
    # changed in place); a QueryDict's own copy() is a deep one, and its strings need none.
    kept = copy.copy(data)
    for name in names:
        kept.pop(form.add_prefix(name), None)
    for key, value in initial_of(form, names).items():
        if isinstance(value, list) and hasattr(kept, "setlist"):  # a QueryDict holds each value of a list
            kept.setlist(key, value)
        else:
            kept[key] = value
    return kept


class EncounterForm(forms.Form):
    name = forms.CharField(max_length=80, initial="Fight")


class VersionForm(forms.Form):
    """The encounter's version the page was drawn at, so a second tab or a double click cannot act twice."""

    version = WholeNumberField(
        min_value=0,
        label="Encounter version",
        widget=forms.HiddenInput,
        error_messages={"required": "The page sent no version; reload it and retry."},
    )


class NpcNameForm(VersionForm):
    name = forms.CharField(max_length=80, label="NPC name")


class AddCharacterForm(VersionForm):
    character = IdField(label="Character")

    def __init__(self, *args, characters, **kwargs):
        super().__init__(*args, **kwargs)
        self.characters = characters  # a queryset of those who may join

    def clean_character(self):
        character = self.characters.filter(pk=self.cleaned_data["character"]).first()
        if character is None:
            raise ValidationError("Pick a character at this table who is not in the encounter yet.")
        return character


class ActForm(VersionForm):
    """Who acts, what they do and at whom; the action's own inputs come under ``<action key>-``."""

    actor = IdField(label="Acting combatant")
    action = forms.CharField(max_length=40, label="Action")
    target = IdField(required=False, label="Target")
    # The GM's: settle the target's defence with the action's own inputs instead of asking its player.
    resolve_now = forms.BooleanField(required=False, label="Resolve at once (don't ask the target's player)")


class DefendForm(VersionForm):
    """Whose defence answers the waiting attack; the defence's own inputs come under ``defence-``."""

    defender = IdField(label="Defending combatant")


class OddsForm(forms.Form):
    """Which action's odds to work out: who acts, what, at whom (the action's inputs under its key)."""

    actor = IdField(label="Acting combatant")
    action = forms.CharField(max_length=40, label="Action")
    target = IdField(required=False, label="Target")


class RemoveForm(VersionForm):
    combatant = IdField(label="Combatant")


class MoveForm(RemoveForm):
    direction = forms.ChoiceField(choices=[("up", "Up"), ("down", "Down")], label="Direction")


class IdsChoiceField(forms.ModelMultipleChoiceField):
    """Rows picked by id, each id read as a plain bounded whole number before the database sees it."""

    def _check_values(self, value):
        for pk in value:
            try:
                IdField().clean(pk)
            except ValidationError:
                raise ValidationError("Pick from the list shown.", code="invalid_pk_value") from None
        return super()._check_values(value)


class AnswerForm(forms.Form):
    """A player's answer to a roll request: the key of one of the sheet's roll buttons."""

    key = forms.CharField(max_length=80)


class SavedRollForm(forms.Form):
    """A named dice-box line to keep; on the table page also whom it is for (myself or a character).

    The line itself is read by the model (play.models.SavedRoll.clean), as the dice box reads it.
    """

    name = forms.CharField(
        max_length=SavedRoll.MAX_NAME,
        label="Name",
        widget=forms.TextInput(attrs={"placeholder": "Sword attack", "autocomplete": "off"}),
    )
    line = forms.CharField(
        max_length=notation.MAX_LENGTH,
        label="Dice",
        widget=forms.TextInput(
            attrs={"placeholder": "1d20+5 vs 15", "autocomplete": "off", "spellcheck": "false"}
        ),
    )
    visibility = VisibilityField(label="Shown to")
    character = forms.TypedChoiceField(label="For", coerce=int, required=False, empty_value=None)

    def __init__(self, *args, subjects: list[RollSubject] | None = None, **kwargs):
        """``subjects``: whom the user may save a roll for (the table page); None: the sheet's character."""
        super().__init__(*args, **kwargs)
        if subjects is None:
            del self.fields["character"]
        else:
            self.fields["character"].choices = [("", "Myself")] + [(s.pk, s.name) for s in subjects]

    def notation_caret(self) -> dict | None:
        """The refused line with a caret under the character at fault, as the dice box draws it."""
        if "line" not in self.errors:
            return None
        try:
            notation.parse(str(self.data.get(self.add_prefix("line"), "")).strip())
        except notation.NotationError as error:
            return caret_under(error)
        return None


def caret_under(error: notation.NotationError) -> dict:
    """A refused line and, below it, a caret under the character at fault (as the dice box draws it)."""
    return {"text": error.text, "caret": " " * error.index + "^"}


class IdempotencyForm(forms.Form):
    """The one-time key every roll button carries, so a double click rolls once."""

    idempotency_key = forms.RegexField(regex=r"^[A-Za-z0-9_-]{8,64}$")
