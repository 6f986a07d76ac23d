"""The forms behind every encounter button: each one says what it reads and refuses the rest by name."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import IdField, WholeNumberField
from sheets.combat import EncounterError


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
