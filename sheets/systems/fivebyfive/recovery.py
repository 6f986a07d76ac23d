"""Five by Five between fights without a healer: a dying character's clock and days of natural rest."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import fivebyfive
from rules.dice import RulesError
from sheets.services import character_change

from .models import FiveByFiveSheet


class TimePassesForm(forms.Form):
    """The GM tells the sheet how long a dying character has gone untended."""

    minutes = WholeNumberField(
        min_value=1,
        max_value=600,
        label="Minutes pass",
        error_messages={
            "required": "Minutes pass: say how many minutes (1 to 600).",
            "invalid": "Minutes pass: a whole number from 1 to 600 (digits 0-9).",
            "min_value": "Minutes pass: at least 1 minute.",
            "max_value": "Minutes pass: at most 600 minutes at a time.",
        },
    )


class RestForm(forms.Form):
    """Days of natural recovery."""

    days = WholeNumberField(
        min_value=1,
        max_value=365,
        label="Days of rest",
        error_messages={
            "required": "Days of rest: say how many days (1 to 365).",
            "invalid": "Days of rest: a whole number from 1 to 365 (digits 0-9).",
            "min_value": "Days of rest: at least 1 day.",
            "max_value": "Days of rest: at most 365 days at a time.",
        },
    )


def dying_clock(sheet) -> dict[str, int] | None:
    """For a dying character: minutes to the next lost HP and to death, counting the minutes already run."""
    next_loss = fivebyfive.minutes_to_next_loss(sheet.hp)
    if next_loss is None:
        return None
    run = sheet.bled_minutes
    return {"next_loss": next_loss - run, "death": fivebyfive.minutes_to_death(sheet.hp) - run}


def time_passes(*, character, minutes: int, author, seen_version: int | None = None) -> str:
    """``minutes`` go by untended: a dying character bleeds by the book's clock. What happened, in words."""
    with character_change(
        character=character, author=author, reason=f"{minutes} minutes pass", seen_version=seen_version
    ) as record:
        sheet = FiveByFiveSheet.objects.get(pk=character.fivebyfive.pk)  # read again under the version lock
        if fivebyfive.condition(sheet.hp) != "dying":
            raise ValidationError(f"{character.name} is not dying (HP {sheet.hp}): time passing costs no HP.")
        before = sheet.hp
        sheet.hp, run = fivebyfive.bleed(before, sheet.bled_minutes + minutes)
        sheet.bleed_minutes, sheet.bleed_hp = run, (sheet.hp if run else None)
        sheet.save(update_fields=["hp", "bleed_minutes", "bleed_hp"])
        if sheet.hp == before:
            said = f"HP {before}, the next HP goes in {fivebyfive.minutes_to_next_loss(before) - run} minutes"
        else:
            said = f"HP {before} -> {sheet.hp}" + (
                " (dead)" if fivebyfive.condition(sheet.hp) == "dead" else ""
            )
        record["reason"] = f"{minutes} minutes pass: {said}"
    character.fivebyfive = sheet
    return said


def rest(*, character, days: int, author, seen_version: int | None = None) -> str:
    """``days`` of natural recovery, 1 HP a day up to the maximum. What happened, in words."""
    with character_change(
        character=character, author=author, reason=f"Rested {days} days", seen_version=seen_version
    ) as record:
        sheet = FiveByFiveSheet.objects.get(pk=character.fivebyfive.pk)
        before = sheet.hp
        try:
            sheet.hp = fivebyfive.natural_recovery(before, days, max_hp=fivebyfive.hp_points(sheet.hp_rank))
        except RulesError as error:
            raise ValidationError(str(error)) from None
        sheet.save(update_fields=["hp"])
        said = f"HP {before} -> {sheet.hp}" if sheet.hp != before else f"HP {before}, nothing to recover"
        record["reason"] = f"Rested {days} days: {said}"
    character.fivebyfive = sheet
    return said
