"""What a Triad sheet does between fights, beyond an edit: rest to recover points, gain or lose a trait."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import triad
from rules.dice import RulesError
from sheets.contract import rules_error_to_validation
from sheets.services import character_change

from .base import ABILITY_LABELS, TRAIT_CHOICES
from .models import TriadSheet, TriadTrait


def _point_field(label: str) -> WholeNumberField:
    return WholeNumberField(
        min_value=0,
        max_value=triad.ABILITY_MAX,
        required=False,
        label=label,
        error_messages={
            "invalid": f"{label}: write a whole number of points (digits 0-9).",
            "max_value": f"{label}: at most {triad.ABILITY_MAX} points.",
        },
    )


class RestForm(forms.Form):
    """Hours of rest, and where the points go; blank splits fill Body, then Mind, then Spirit."""

    hours = WholeNumberField(
        min_value=1,
        max_value=99,
        label="Hours of rest",
        error_messages={
            "required": "Hours of rest: say how many hours (1 to 99).",
            "invalid": "Hours of rest: a whole number from 1 to 99 (digits 0-9).",
            "min_value": "Hours of rest: at least 1 hour.",
            "max_value": "Hours of rest: at most 99 hours at a time.",
        },
    )
    body = _point_field("Points to Body")
    mind = _point_field("Points to Mind")
    spirit = _point_field("Points to Spirit")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        split = {a: data.get(a) or 0 for a in triad.ABILITIES}
        if sum(split.values()) > data["hours"]:
            raise ValidationError(
                {
                    "hours": f"{data['hours']} hours of rest recover only {data['hours']} points; "
                    f"the split asks for {sum(split.values())}."
                }
            )
        data["split"] = split
        return data


class TraitAddForm(forms.Form):
    listed = forms.ChoiceField(
        choices=[("", "Choose from the list")] + TRAIT_CHOICES, required=False, label="Trait from the list"
    )
    custom = forms.CharField(
        max_length=60,
        required=False,
        label="Or a trait of your table's own",
        help_text='End it with "(Adv.)" for an advantage trait.',
    )

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        listed, custom = data.get("listed"), " ".join((data.get("custom") or "").split())
        if bool(listed) == bool(custom):
            raise ValidationError("Pick one trait from the list, or type one of your own, not both.")
        if listed:
            trait = triad.find_trait(listed)
            data["trait"] = {
                "name": trait.name,
                "adv": trait.adv,
                "ability": trait.ability or "",
                "description": trait.summary,
                "custom": False,
            }
        else:
            name = " ".join(custom.replace("(Adv.)", "").split())
            if not name:
                raise ValidationError({"custom": "A trait of your own needs a name."})
            data["trait"] = {
                "name": name,
                "adv": "(Adv.)" in custom,
                "ability": "",
                "description": "",
                "custom": True,
            }
        return data


def rest(
    *, character, hours: int, split: dict[str, int], author, seen_version: int | None = None
) -> list[str]:
    """Rest ``hours``: 1 point an hour, first where ``split`` says, the rest Body, then Mind, then Spirit.

    Returns the changes made; ValidationError naming the ability when a point has nowhere to go there.
    """
    reason = f"Rested {hours} h"
    changing = character_change(character=character, author=author, reason=reason, seen_version=seen_version)
    with changing as record:
        sheet = TriadSheet.objects.get(pk=character.triad.pk)  # read again under the version lock
        names = [t.name for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT]
        before = sheet.vitals(names)
        try:
            placed = triad.recover(before, split)
            after = triad.rest(placed, hours - sum(split.values()))
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        fields = sheet.store(after)
        # An hour's rest outlasts any stun, which is gone after one turn.
        sheet.stunned = False
        sheet.save(update_fields=[*fields, "stunned"])
        changes = [
            f"{ABILITY_LABELS[a]} {before.current(a)} -> {after.current(a)}"
            for a in triad.ABILITIES
            if after.current(a) != before.current(a)
        ]
        changes += [
            f"{triad.HARD_TO[a]} ready again" for a in triad.ABILITIES if a in before.spent - after.spent
        ]
        record["reason"] = f"Rested {hours} h: " + (", ".join(changes) or "nothing to recover")
    character.triad = sheet
    return changes


def trait_add(*, character, trait: dict[str, Any], author, seen_version: int | None = None) -> TriadTrait:
    """Give the character a trait (advancement, or a fix); refused when it already has one by that name."""
    reason = f"Added trait {trait['name']}"
    with character_change(character=character, author=author, reason=reason, seen_version=seen_version):
        taken = character.triad_traits.filter(kind=TriadTrait.Kind.TRAIT, name__iexact=trait["name"])
        if taken.exists():
            raise ValidationError(f"{character.name} already has {trait['name']}.")
        return TriadTrait.objects.create(character=character, kind=TriadTrait.Kind.TRAIT, **trait)


def trait_remove(*, character, trait_id: int, author, seen_version: int | None = None) -> str:
    """Take a trait or power off the sheet; its name."""
    row = character.triad_traits.filter(pk=trait_id).first()
    if row is None:
        raise ValidationError("That trait is not on this sheet.")
    reason = f"Removed {row.name}"
    with character_change(character=character, author=author, reason=reason, seen_version=seen_version):
        row.delete()
    return row.name
