"""The Triad builder: its form (a tier's points over Body, Mind and Spirit, its traits and powers, with
the running count the page shows) and the rows a built character starts with."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField, whole_number
from rules import triad
from sheets.contract import SheetSystem

from .base import TRAIT_CHOICES, lines
from .models import TriadSheet, TriadTrait


def _count(have: int, want: int | None, done: str, short: str) -> str:
    """One line of the builder's running count (the page asks for it again as the player types)."""
    if want is None:
        return f"{have} {done} (no tier)"
    gap = want - have
    rest = f"{gap} {short}" if gap > 0 else (f"{-gap} too many" if gap < 0 else "exactly right")
    return f"{have} of {want} {done}: {rest}"


class TriadBuilderForm(forms.Form):
    name = forms.CharField(max_length=80)
    tier = forms.ChoiceField(
        choices=[
            (
                k,
                f"{t.name}: {t.points} points, {t.traits} traits"
                + (f", {t.powers} powers" if t.powers else ""),
            )
            for k, t in triad.TIERS.items()
        ],
        help_text="Split exactly the tier's points over Body, Mind and Spirit, and take exactly its traits.",
    )
    body = WholeNumberField(min_value=triad.ABILITY_MIN, max_value=triad.ABILITY_MAX, initial=10)
    mind = WholeNumberField(min_value=triad.ABILITY_MIN, max_value=triad.ABILITY_MAX, initial=10)
    spirit = WholeNumberField(min_value=triad.ABILITY_MIN, max_value=triad.ABILITY_MAX, initial=10)
    traits = forms.MultipleChoiceField(
        choices=TRAIT_CHOICES, required=False, widget=forms.CheckboxSelectMultiple
    )
    custom_traits = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text='Traits of your table\'s own, one per line; end one with "(Adv.)" for an advantage trait.',
    )
    powers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Superhero tiers only: one per line.",
    )
    armor = forms.ChoiceField(
        choices=[("", "None")] + [(k, t.name) for k, t in triad.ARMOR.items() if t.points], required=False
    )
    weapon = forms.ChoiceField(
        choices=[(k, f"{t.name} ({t.points})") for k, t in triad.WEAPONS.items()], initial="light"
    )
    notes = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}), label="Background"
    )

    def __init__(self, *args, allow_out_of_tier: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.allow_out_of_tier = allow_out_of_tier
        if allow_out_of_tier:
            self.fields["tier"].required = False
            self.fields["tier"].choices = [("", "No tier (the GM allows it)")] + self.fields["tier"].choices
            self.fields["tier"].help_text += " Your GM allows characters outside the tiers."

    # ----- what the builder's template draws beside the fields -----------------------------------------

    def trait_options(self) -> list[dict[str, Any]]:
        """Each listed trait with its summary (our own words) and whether the player has ticked it."""
        data = self.data if self.is_bound else {}
        ticked = set(data.getlist("traits") if hasattr(data, "getlist") else data.get("traits") or ())
        return [
            {"value": t.name, "label": label, "summary": t.summary, "checked": t.name in ticked}
            for t, (_, label) in zip(triad.TRAITS, TRAIT_CHOICES, strict=True)
        ]

    def tally(self) -> dict[str, Any]:
        """The running count as the page was sent: points spent and traits taken against the tier's."""
        if self.is_bound:
            tier_key = self.data.get("tier") or ""
        else:
            tier_key = "" if self.allow_out_of_tier else next(iter(triad.TIERS))
        points = 0
        for name in triad.ABILITIES:
            raw = self.data.get(name) if self.is_bound else self.fields[name].initial
            points += whole_number(str(raw if raw is not None else ""), min_value=0) or 0
        custom = len(lines(self.data.get("custom_traits") or ""))
        traits = sum(o["checked"] for o in self.trait_options()) + custom
        powers = len(lines(self.data.get("powers") or "")) if self.is_bound else 0
        tier = triad.TIERS.get(tier_key)
        return {
            "points": _count(points, tier.points if tier else None, "spent", "left"),
            "traits": _count(traits, tier.traits if tier else None, "chosen", "to go"),
            "powers": _count(powers, tier.powers if tier else None, "named", "to go")
            if powers or (tier and tier.powers)
            else "",
        }

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["build"] = triad.validate_character(
                tier=data.get("tier") or None,
                body=data["body"],
                mind=data["mind"],
                spirit=data["spirit"],
                traits=data.get("traits", []),
                custom_traits=[
                    line.replace("(Adv.)", "").strip() for line in lines(data.get("custom_traits"))
                ],
                powers=lines(data.get("powers")),
                allow_out_of_tier=self.allow_out_of_tier,
            )
        except triad.BuildError as error:
            # "points" is the sum of the three scores: show it on Body, Mind and Spirit's row.
            raise ValidationError({"body" if error.field == "points" else error.field: str(error)}) from None
        return data


class TriadBuilder(SheetSystem):
    """The builder: the form for the campaign and the rows of a new character."""

    def builder_form(self, *, campaign, data=None, trusted=False):
        allowed = trusted or bool(campaign.options.get("triad_out_of_tier"))
        return TriadBuilderForm(data, allow_out_of_tier=allowed)

    def create(self, *, character, cleaned_data):
        build = cleaned_data["build"]
        TriadSheet.objects.create(
            character=character,
            tier=build.tier or "",
            body_max=build.body,
            mind_max=build.mind,
            spirit_max=build.spirit,
            body=build.body,
            mind=build.mind,
            spirit=build.spirit,
            armor=cleaned_data.get("armor") or "",
            weapon=cleaned_data.get("weapon") or "light",
        )
        custom = {
            line.replace("(Adv.)", "").strip(): "(Adv.)" in line
            for line in lines(cleaned_data.get("custom_traits"))
        }
        rows = []
        for name in build.traits:
            if name in custom:
                rows.append(TriadTrait(character=character, name=name, adv=custom[name], custom=True))
            else:
                trait = triad.find_trait(name)
                rows.append(
                    TriadTrait(
                        character=character,
                        name=trait.name,
                        adv=trait.adv,
                        ability=trait.ability or "",
                        description=trait.summary,
                    )
                )
        rows += [TriadTrait(character=character, kind=TriadTrait.Kind.POWER, name=p) for p in build.powers]
        TriadTrait.objects.bulk_create(rows)
