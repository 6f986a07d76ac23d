"""The character file a player uploads, read and checked before any of it reaches a builder form."""

from __future__ import annotations

import json
import math
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WHOLE_NUMBER_LIMIT, VisibilityField, WholeNumberField
from campaigns.models import Visibility

from .contract import EXPORT_FORMAT, IMPORT_VERSIONS

MAX_IMPORT_BYTES = 64 * 1024
# A sheet's version as the page sent it; never blank (the view treats an unreadable one as stale).
VERSION_FIELD = WholeNumberField(min_value=0)
NOT_JSON = "That file is not a character export (it is not valid JSON)."


def _no_constant(name: str):
    # NaN and Infinity are not JSON; Python's reader accepts them unless told otherwise.
    raise ValueError(name)


class CharacterImportForm(forms.Form):
    """A character export for ``campaign``: JSON of this app's format and version, for the campaign's system.

    ``cleaned_data["export"]`` is the parsed file; ``sheets/transfer.py`` turns it into a character.
    """

    file = forms.FileField(
        label="Character file (.json)",
        error_messages={
            "required": "Choose a character file (.json) to import.",
            "empty": "That file is empty; a character file holds a character export.",
            "invalid": "Choose a character file (.json) to import.",
        },
    )

    def __init__(self, *args, campaign, **kwargs):
        super().__init__(*args, **kwargs)
        self.campaign = campaign

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise ValidationError(
                f"That file is too large ({upload.size // 1024} KB); a character file is under 64 KB."
            )
        try:
            data = json.loads(upload.read().decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError, RecursionError):
            # ValueError covers bad JSON, NaN/Infinity and integers too long to read.
            raise ValidationError(NOT_JSON) from None
        if (
            not isinstance(data, dict)
            or data.get("format") != EXPORT_FORMAT
            or not isinstance(data.get("sheet"), dict)
        ):
            raise ValidationError("That file is not a character export from this app.")
        version = data.get("version")
        if isinstance(version, bool) or version not in IMPORT_VERSIONS:
            raise ValidationError(
                f"That file is export version {shown_value(version)}; this app reads versions "
                + " and ".join(str(v) for v in IMPORT_VERSIONS)
                + "."
            )
        if data.get("system") != self.campaign.system:
            raise ValidationError(
                f"That character is for {shown_value(data.get('system'))}; this campaign plays "
                f"{self.campaign.get_system_display()}."
            )
        self.cleaned_data["export"] = {**data, "version": int(version)}
        return upload


def shown_value(value: Any) -> str:
    """A value from the file as the message shows it: cut short, and never a nested object's Python text."""
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if value is None or isinstance(value, bool | int | float):
        text = json.dumps(value)
        return text if len(text) <= 40 else "a number too long to show"
    return "a list or object"


def _scalar_problem(value: Any) -> str:
    """Why ``value`` cannot stand in a form field ("" when it can: text, a whole number, a flag, nothing)."""
    if value is None or isinstance(value, str | bool):
        return ""
    if isinstance(value, int):
        return "" if abs(value) <= WHOLE_NUMBER_LIMIT else "the number is far too large"
    if isinstance(value, float):
        return "" if math.isfinite(value) else "the number is not finite"
    return "a list or object where a single value belongs"


def builder_data_problems(form: forms.Form) -> list[str]:
    """The builder data's values that are not plain values of the kind the builder reads.

    A builder bound to a dict would turn a nested object into its Python text ("{'a': 1}") and store
    it; only fields that take several values (multiple choice) may hold a list, of plain values.
    """
    problems = []
    for key, value in form.data.items():
        field = form.fields.get(key)
        label = form[key].label if field is not None else key.replace("_", " ")
        many = isinstance(field, forms.MultipleChoiceField | forms.ModelMultipleChoiceField)
        if many and isinstance(value, list | tuple):
            reasons = [r for r in (_scalar_problem(v) for v in value) if r]
            if any(isinstance(v, bool) for v in value):
                reasons.append("a flag among the choices")
        else:
            reasons = [r for r in [_scalar_problem(value)] if r]
        if reasons:
            problems.append(f"{label}: {reasons[0]}")
    return problems


class XpAwardForm(forms.Form):
    """The GM's award: a whole number from 1 to the system's largest award."""

    def __init__(self, *args, most: int, **kwargs):
        super().__init__(*args, **kwargs)
        message = f"Award from 1 to {most} XP at a time (digits 0-9)."
        self.fields["amount"] = WholeNumberField(
            min_value=1,
            max_value=most,
            label="Award XP",
            error_messages={key: message for key in ("invalid", "required", "min_value", "max_value")},
        )


class XpSpendForm(forms.Form):
    """A spend: ``offer`` is "<offer key>@<the value the player saw>"; ``name`` when the offer needs one."""

    offer = forms.CharField(max_length=80, label="Spend XP", error_messages={"required": "Pick what to buy."})
    name = forms.CharField(max_length=80, required=False, label="Name")

    def clean_offer(self):
        key, _, seen = self.cleaned_data["offer"].partition("@")
        return key, seen

    def clean_name(self):
        return " ".join(self.cleaned_data["name"].split())


class SeenVersionForm(forms.Form):
    """The sheet version a page showed when it sent an action (rest, add a trait, ...)."""

    version = WholeNumberField(min_value=0, required=False, widget=forms.HiddenInput)


def seen_version(data) -> int | None:
    """The version an action's page saw: None when the form sent none, -1 (always stale) when unreadable."""
    form = SeenVersionForm(data)
    if not form.is_valid():
        return -1
    return form.cleaned_data["version"]


def as_posted(values: dict[str, Any]) -> dict[str, str]:
    """Form values as a browser posts them: a ticked box "on", a number its digits (0 too), an unticked
    box or an empty field nothing. Values that post alike are the same choices, whatever their types."""
    return {
        name: "on" if value is True else str(value)
        for name, value in values.items()
        if value is not None and value is not False and value != ""
    }


STALE_MESSAGE = "Someone changed this sheet since you loaded it; look at it again and retry."


class RollVisibilityForm(forms.Form):
    """Who sees a roll made from the sheet's buttons, drawn with the roll options; a post that leaves it
    out (a roll made by another path of the sheet) is seen by everyone, as the list starts."""

    visibility = VisibilityField(required=False)

    def clean_visibility(self) -> str:
        return self.cleaned_data["visibility"] or Visibility.PUBLIC
