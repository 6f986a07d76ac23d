"""The L5R builder: its form (traits, Void, skills and emphases against the campaign's budget, weapons)
and the rows a built character starts with."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import l5r
from sheets.contract import SheetSystem

from .base import (
    EMPHASIS_MAX_LENGTH,
    RING_LABELS,
    SCHOOL_MAX_LENGTH,
    SKILL_FIELDS,
    TRAIT_LABELS,
    WEAPON_CHOICES,
    emphasis_count,
    odd_die_bonus,
    pool_text,
    slug,
    trait_label,
)
from .models import L5RSheet, L5RSkill, L5RWeapon
from .xp import starting_xp


def _weapon_choice_label(weapon: l5r.Weapon) -> str:
    if weapon.bow_strength is None:
        return f"{weapon.name} (DR {weapon.dr})"
    return f"{weapon.name} (bow, strength {weapon.bow_strength})"


def _int_or_none(raw: Any) -> int | None:
    try:
        return int(str(raw).strip())
    except (TypeError, ValueError):
        return None


def _number(low: int, high: int, initial: int, label: str | None = None, required: bool = True):
    # No min_value/max_value: the range check in clean() gives every bad field its own message at once.
    return WholeNumberField(
        initial=initial,
        label=label,
        required=required,
        widget=forms.NumberInput(attrs={"min": low, "max": high, "inputmode": "numeric"}),
    )


class L5RBuilderForm(forms.Form):
    name = forms.CharField(max_length=80)
    school = forms.CharField(
        max_length=SCHOOL_MAX_LENGTH, help_text="The school that trained you, e.g. Hida Bushi School."
    )
    school_rank = _number(1, 10, l5r.STARTING_SCHOOL_RANK, "School rank")
    armor = WholeNumberField(
        required=False,
        initial=0,
        label="Armor TN bonus",
        help_text="What your armor adds to your Armor TN: light armor +5, heavy +10, none 0.",
        widget=forms.NumberInput(attrs={"min": 0, "max": l5r.ARMOR_MAX, "inputmode": "numeric"}),
    )
    reduction = WholeNumberField(
        required=False,
        initial=0,
        label="Armor Reduction",
        help_text="Taken off every damage roll that hits you: light armor 3, heavy 5, none 0.",
        widget=forms.NumberInput(attrs={"min": 0, "max": l5r.REDUCTION_MAX, "inputmode": "numeric"}),
    )
    weapons = forms.MultipleChoiceField(
        choices=[(key, _weapon_choice_label(w)) for key, w in WEAPON_CHOICES.items()],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Unarmed (0k1) is always on the sheet.",
    )
    notes = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}), label="Background"
    )

    def __init__(
        self, *args, odd_die_bonus: bool = False, budget: int | None = None, new: bool = False, **kwargs
    ):
        super().__init__(*args, **kwargs)
        self.odd_die_bonus = odd_die_bonus
        # A character made here starts at the school's first rank; an import or a sample may be further on.
        self.new = new
        # None: the rulebook's samples and the demo, built without a campaign's budget.
        self.budget = budget
        for trait in l5r.TRAITS:
            self.fields[trait] = _number(l5r.TRAIT_MIN, l5r.TRAIT_MAX, 2, TRAIT_LABELS[trait])
        self.fields["void"] = _number(l5r.TRAIT_MIN, l5r.TRAIT_MAX, 2, "Void")
        for name, skill in SKILL_FIELDS.items():
            self.fields[name] = _number(l5r.SKILL_MIN, l5r.SKILL_MAX, 0, skill.name, required=False)
            self.fields[f"{name}_emphasis"] = forms.CharField(
                max_length=EMPHASIS_MAX_LENGTH, required=False, label=f"{skill.name} emphasis"
            )
        for name, bound in self.fields.items():
            if name.startswith("skill_") or name in (*l5r.TRAITS, "void"):
                bound.widget.attrs["class"] = "form-control form-control-sm"
        self.fields["school_rank"].widget.attrs["class"] = "form-control"

    def full_clean(self):
        super().full_clean()
        for name in self.errors:
            if name in self.fields and "class" in self.fields[name].widget.attrs:
                self.fields[name].widget.attrs["class"] += " is-invalid"

    # -- what the template lays out (values from the typed data, so pools follow what is entered)

    def _value(self, name: str) -> int | None:
        raw = self.data.get(self.add_prefix(name)) if self.is_bound else self.fields[name].initial
        return _int_or_none(raw)

    def _traits(self) -> dict[str, int | None]:
        values = {trait: self._value(trait) for trait in l5r.TRAITS}
        values["void"] = self._value("void")
        return {
            k: v if v is not None and l5r.TRAIT_MIN <= v <= l5r.TRAIT_MAX else None
            for k, v in values.items()
        }

    def ring_rows(self) -> list[dict[str, Any]]:
        """The four elemental rings with their two trait fields, then Void; the rank from typed traits."""
        traits = self._traits()
        rows = []
        for ring, pair in l5r.RING_TRAITS.items():
            values = [traits[t] for t in pair]
            rows.append(
                {
                    "ring": ring.value,
                    "label": RING_LABELS[ring],
                    "fields": [self[t] for t in pair],
                    "rank": min(values) if None not in values else None,
                }
            )
        rows.append({"ring": "void", "label": "Void", "fields": [self["void"]], "rank": traits["void"]})
        return rows

    def skill_rows(self) -> list[dict[str, Any]]:
        traits = self._traits()
        rows = []
        for name, skill in SKILL_FIELDS.items():
            raw = self.data.get(self.add_prefix(name)) if self.is_bound else None
            rank = _int_or_none(raw) if str(raw or "").strip() else 0
            rows.append(
                {
                    "key": name,
                    "skill": skill,
                    "trait_label": trait_label(skill.trait),
                    "rank_field": self[name],
                    "emphasis_field": self[f"{name}_emphasis"],
                    "pool": self._pool_display(traits.get(skill.trait), rank),
                }
            )
        return rows

    def cost(self) -> int | None:
        """What the typed ranks cost in XP so far; None while a rank is missing or out of range."""
        traits = self._traits()
        if None in traits.values():
            return None
        skills = {}
        emphases = 0
        for name, skill in SKILL_FIELDS.items():
            raw = self.data.get(self.add_prefix(name)) if self.is_bound else None
            rank = _int_or_none(raw) if str(raw or "").strip() else 0
            if rank is None or not l5r.SKILL_MIN <= rank <= l5r.SKILL_MAX:
                return None
            skills[skill.name] = rank
            if rank:
                raw_emphasis = self.data.get(self.add_prefix(f"{name}_emphasis")) if self.is_bound else ""
                emphases += emphasis_count(str(raw_emphasis or ""))
        void = traits.pop("void")
        return l5r.build_cost(traits, void=void, skills=skills, emphases=emphases)

    def _pool_display(self, trait: int | None, rank: int | None) -> str:
        if trait is None or rank is None or not l5r.SKILL_MIN <= rank <= l5r.SKILL_MAX:
            return "-"
        pool = l5r.skill_pool(trait, rank)
        text = pool_text(pool, odd=self.odd_die_bonus)
        return text if rank else f"{text} unskilled"

    # -- the creation rules

    def clean(self):
        data = super().clean()
        for trait in (*l5r.TRAITS, "void"):
            self._check_range(data, trait, l5r.TRAIT_MIN, l5r.TRAIT_MAX)
        self._check_range(data, "school_rank", 1, 10)
        if self.new and data.get("school_rank") not in (None, l5r.STARTING_SCHOOL_RANK):
            self.add_error(
                "school_rank",
                f"A new character is a rank {l5r.STARTING_SCHOOL_RANK} student of its school; "
                "later ranks come in play.",
            )
        for name in ("armor", "reduction"):
            if data.get(name) is None and name not in self.errors:
                data[name] = 0  # an export from before armor (or its Reduction) was recorded
        self._check_range(data, "armor", 0, l5r.ARMOR_MAX)
        self._check_range(data, "reduction", 0, l5r.REDUCTION_MAX)
        skills = {}
        for name, skill in SKILL_FIELDS.items():
            if data.get(name) is None and name not in self.errors:
                data[name] = 0
            if self._check_range(data, name, l5r.SKILL_MIN, l5r.SKILL_MAX):
                skills[skill.name] = data[name]
                emphasis = " ".join((data.get(f"{name}_emphasis") or "").split())
                data[f"{name}_emphasis"] = emphasis
                if emphasis and not data[name]:
                    self.add_error(
                        f"{name}_emphasis", f"An emphasis needs at least one rank in {skill.name}."
                    )
        if self.errors:
            return data
        try:
            l5r.validate_character(
                {trait: data[trait] for trait in l5r.TRAITS}, void=data["void"], skills=skills
            )
        except l5r.L5RFieldError as error:
            field = error.field if error.field in self.fields else f"skill_{slug(error.field)}"
            raise ValidationError({field if field in self.fields else None: str(error)}) from None
        emphases = sum(emphasis_count(data[f"{name}_emphasis"]) for name in SKILL_FIELDS)
        cost = l5r.build_cost(
            {trait: data[trait] for trait in l5r.TRAITS},
            void=data["void"],
            skills=skills,
            emphases=emphases,
        )
        if self.budget is not None and cost > self.budget:
            raise ValidationError(
                f"This character costs {cost} XP; the campaign's starting budget is {self.budget} XP "
                f"({cost - self.budget} over). Traits cost 4 x each new rank above 2, Void 6 x, a skill "
                "its new rank, an emphasis 2."
            )
        return data

    def _check_range(self, data, name: str, low: int, high: int) -> bool:
        value = data.get(name)
        if value is None:
            return False
        if not low <= value <= high:
            self.add_error(name, f"{self.fields[name].label} must be from {low} to {high}, not {value}.")
            return False
        return True


class L5RBuilder(SheetSystem):
    """The builder: the form for the campaign and the rows of a new character."""

    def builder_form(self, *, campaign, data=None, trusted=False):
        budget = None if trusted else starting_xp(campaign)
        return L5RBuilderForm(data, odd_die_bonus=odd_die_bonus(campaign), budget=budget, new=not trusted)

    def create(self, *, character, cleaned_data):
        L5RSheet.objects.create(
            character=character,
            **{trait: cleaned_data[trait] for trait in l5r.TRAITS},
            void=cleaned_data["void"],
            school=cleaned_data["school"],
            school_rank=cleaned_data["school_rank"],
            armor=cleaned_data.get("armor") or 0,
            reduction=cleaned_data.get("reduction") or 0,
        )
        L5RSkill.objects.bulk_create(
            L5RSkill(
                character=character,
                name=skill.name,
                rank=cleaned_data[name],
                trait=skill.trait,
                emphasis=cleaned_data.get(f"{name}_emphasis", ""),
            )
            for name, skill in SKILL_FIELDS.items()
            if cleaned_data.get(name)
        )
        rows = []
        for key in cleaned_data.get("weapons", []):
            weapon = WEAPON_CHOICES[key]
            if weapon.bow_strength is not None:
                # A bow row keeps the DR of the arrow it usually shoots; the sheet offers every arrow.
                arrow = l5r.ARROWS[0]
                rows.append(
                    L5RWeapon(
                        character=character,
                        name=weapon.name,
                        rolled=arrow.rolled,
                        kept=arrow.kept,
                        bow_strength=weapon.bow_strength,
                    )
                )
            else:
                rows.append(
                    L5RWeapon(character=character, name=weapon.name, rolled=weapon.rolled, kept=weapon.kept)
                )
        L5RWeapon.objects.bulk_create(rows)
