"""L5R Roll & Keep on the sheet: eight traits and Void, derived rings, skills, weapons, XkY pools.

Every pool is shown as written (Trait + Skill rolled, Trait kept) and, where the Ten Dice Rule
folds it, as rolled (``12k4 -> 10k5``). Chances are exact: ``rules.l5r`` works them out as
Fractions, exploding tens included.

Campaign option ``l5r_odd_die_bonus`` (bool, set by the GM in ``Campaign.options``): the "Ten
Dice" house rule. Normally, when a pool has more than ten rolled dice and fewer than ten kept, every
two extra rolled dice buy one kept die and an odd die left over is lost; with this option on, that
odd die becomes +2 to the total. It changes the pools shown in the builder, every chance and curve
on the sheet, and the rolls themselves: each call into the engine passes it as ``odd_die_bonus``.

Wounds are a number on the sheet; the rank they fall in (``rules.l5r.wound_rank`` with Earth, the lower
of Stamina and Willpower) is shown beside them, and its TN penalty is added to the TN of every TN roll
made from the sheet (and in encounters), before raises. Damage rolls have no TN and take no penalty.
At Out (or Dead) the sheet refuses every roll: the character is unconscious.

Campaign option ``l5r_starting_xp`` (a number, 40 unless the GM sets another): the builder's budget.
Ranks cost the common 4th-edition table (``rules.l5r.build_cost``); what a character has left is the
budget now + the GM's awards - what its ranks cost, so the GM's later change reaches existing sheets.
Players buy ranks with XP (``xp_spend``); typing a rank in is the GM's correction (a build value,
``value_kinds``; sheets/policy.py decides who types what).

Armor (4th edition): ``L5RSheet.armor`` is the armor's bonus to the Armor TN, shown with the Armor TN it
makes, and ``L5RSheet.reduction`` what it takes off every damage roll that hits.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import F

from campaigns.forms import WholeNumberField, row_id
from campaigns.systems import NumberOption
from rules import l5r as rules
from rules.dice import Outcome, Roller, RulesError
from sheets.contract import (
    Curve,
    Die,
    EditableField,
    RollButton,
    RollResult,
    SheetSystem,
    XpOffer,
    rules_error_to_validation,
)
from sheets.policy import Kind
from sheets.services import character_change

from . import after_roll
from .models import L5RSheet, L5RSkill, L5RWeapon

ODD_DIE_OPTION = "l5r_odd_die_bonus"
BUDGET_OPTION = NumberOption(
    "l5r_starting_xp",
    "Starting XP budget",
    "The XP a new character spends on traits, Void, skills and emphases above the base of 2 in every "
    "trait and Void. Changing it changes what every character here has left to spend.",
    default=rules.STARTING_XP,
    min_value=0,
    max_value=1000,
)
TRAIT_LABELS = {trait: trait.capitalize() for trait in rules.TRAITS}
RING_LABELS = {ring: ring.value.capitalize() for ring in rules.Ring}
ELEMENTAL_RINGS = tuple(ring for ring in rules.Ring if ring is not rules.Ring.VOID)
WOUNDS_MAX = 999
XP_TOTAL_MAX = 9999
SCHOOL_MAX_LENGTH = L5RSheet._meta.get_field("school").max_length
EMPHASIS_MAX_LENGTH = L5RSkill._meta.get_field("emphasis").max_length


def _slug(name: str) -> str:
    return "_".join(name.lower().replace("-", " ").split())


# Weapons a character can carry from the engine's list; unarmed needs no row (everyone has fists).
WEAPON_CHOICES = {_slug(w.name): w for w in rules.WEAPONS if w is not rules.UNARMED}
WEAPON_CHOICES.update({_slug(b.name): b for b in rules.BOWS})
ARROWS = {_slug(a.name): a for a in rules.ARROWS}
SKILL_FIELDS = {f"skill_{_slug(skill.name)}": skill for skill in rules.SKILLS}


def _weapon_choice_label(weapon: rules.Weapon) -> str:
    if weapon.bow_strength is None:
        return f"{weapon.name} (DR {weapon.dr})"
    return f"{weapon.name} (bow, strength {weapon.bow_strength})"


def odd_die_bonus(campaign) -> bool:
    return bool((campaign.options or {}).get(ODD_DIE_OPTION))


def starting_xp(campaign) -> int:
    """The campaign's starting budget, read at every use so the GM's change reaches existing sheets."""
    return BUDGET_OPTION.value(campaign.options)


def emphasis_count(text: str) -> int:
    """Emphases are written in one field, separated by commas ("Deceit, Poison" is two)."""
    return len(emphasis_names(text))


def emphasis_names(text: str) -> list[str]:
    """The emphases written in one field, in order ("Deceit, Poison" -> ["Deceit", "Poison"])."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def emphasis_choices(character) -> list[tuple[str, str]]:
    """The roll option "an emphasis applies": (skill id:emphasis, "Skill: emphasis") for each one held."""
    return [
        (f"{skill.pk}:{name}", f"{skill.name}: {name}")
        for skill in character.l5r_skills.all()
        if skill.rank
        for name in emphasis_names(skill.emphasis)
    ]


def chosen_emphasis(options, skill) -> str:
    """The emphasis of ``skill`` the roll options say applies, or "" (another skill's, or none)."""
    ident, _, name = (options.get("emphasis") or "").partition(":")
    return name if ident == str(skill.pk) and name in emphasis_names(skill.emphasis) else ""


def sheet_cost(sheet: L5RSheet, skills) -> int:
    """The XP the sheet's ranks cost from the base: what its build and every later purchase spent."""
    return rules.build_cost(
        sheet.trait_values(),
        void=sheet.void,
        skills={skill.name: skill.rank for skill in skills},
        emphases=sum(emphasis_count(skill.emphasis) for skill in skills if skill.rank),
    )


def xp_left(character, skills=None) -> int:
    """Budget + awards - what the sheet's ranks cost; below 0 when the GM let it go over."""
    skills = list(character.l5r_skills.all()) if skills is None else skills
    sheet = character.l5r
    return starting_xp(character.campaign) + sheet.xp_awarded - sheet_cost(sheet, skills)


def _earth(sheet: L5RSheet) -> int:
    return min(sheet.stamina, sheet.willpower)


def wound_state(sheet: L5RSheet) -> rules.WoundLevel:
    """The wound rank the sheet's wounds fall in, by its Earth ring."""
    return rules.wound_rank(sheet.wounds, _earth(sheet))


def wound_text(level: rules.WoundLevel) -> str:
    """ "Nicked +3", "Healthy", "Out": the rank and the TN penalty it adds."""
    return f"{level.name} +{level.tn_penalty}" if level.tn_penalty else level.name


def wound_note(level: rules.WoundLevel) -> str:
    """What the rank still allows, where it takes something away (the Down and Out readings)."""
    if not rules.can_roll(level):
        return "unconscious: no actions, no rolls"
    if not rules.can_attack(level):
        return "no attacks or other Complex Actions"
    return ""


def trait_label(trait: str) -> str:
    return "Void" if trait == "void" else TRAIT_LABELS.get(trait, trait.capitalize())


def pool_text(pool: rules.Pool, *, odd: bool) -> str:
    """The pool as written and, when the Ten Dice Rule folds it, as rolled: "12k4 -> 10k5"."""
    written = f"{pool.rolled}k{pool.kept}" + (f"{pool.bonus:+d}" if pool.bonus else "")
    try:
        rolled, kept, bonus = pool.effective(odd_die_bonus=odd)
    except RulesError:
        return written
    folded = f"{rolled}k{kept}" + (f"{bonus:+d}" if bonus else "")
    return written if folded == written else f"{written} → {folded}"


def total_curve(pool: rules.Pool, *, odd: bool, target: int | None) -> dict[int, Any]:
    """P(total >= t) where the picture has something to say: the sure totals and the far tail cut off."""
    _, kept, bonus = pool.effective(odd_die_bonus=odd)
    low, high = kept + bonus, 10 * kept + bonus + 10  # past the top of the dice by one explosion
    if target is not None:
        low, high = max(0, min(low, target)), max(high, target + 10)
    high = min(high, rules.MAX_ODDS_TARGET + bonus, low + 400)
    curve = rules.total_curve(
        pool.rolled,
        pool.kept,
        explode=pool.explode,
        bonus=pool.bonus,
        odd_die_bonus=odd,
        low=low,
        high=high,
        reroll_ones=pool.reroll_ones,
    )
    totals = sorted(curve)
    first = max([t for t in totals if curve[t] >= Fraction(995, 1000)], default=totals[0])
    last = min([t for t in totals if curve[t] < Fraction(2, 100)], default=totals[-1])
    if target is not None:
        # Keep the TN and two raises past it in view, so the picture shows what a raise costs.
        first, last = min(first, target), max(last, min(target + 10, totals[-1]))
    return {t: p for t, p in curve.items() if first <= t <= last}


def rerolled_text(emphasis: str, result: rules.RollResult) -> str:
    """What the emphasis did, for the feed: which dice showed 1 and what each became."""
    if not result.rerolled:
        return f"emphasis {emphasis}: no 1s to re-roll"
    became = ", ".join(f"die {i + 1}: 1 → {result.die_totals[i]}" for i in result.rerolled)
    return f"emphasis {emphasis}: 1s re-rolled ({became})"


def median_total(curve: dict[int, Any]) -> int:
    """The highest total reached at least half the time."""
    reached = [t for t, p in curve.items() if p * 2 >= 1]
    return max(reached) if reached else min(curve)


def _int_or_none(raw: Any) -> int | None:
    try:
        return int(str(raw).strip())
    except (TypeError, ValueError):
        return None


# ----- builder ---------------------------------------------------------------------------------------


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
    school_rank = _number(1, 10, rules.STARTING_SCHOOL_RANK, "School rank")
    armor = WholeNumberField(
        required=False,
        initial=0,
        label="Armor TN bonus",
        help_text="What your armor adds to your Armor TN: light armor +5, heavy +10, none 0.",
        widget=forms.NumberInput(attrs={"min": 0, "max": rules.ARMOR_MAX, "inputmode": "numeric"}),
    )
    reduction = WholeNumberField(
        required=False,
        initial=0,
        label="Armor Reduction",
        help_text="Taken off every damage roll that hits you: light armor 3, heavy 5, none 0.",
        widget=forms.NumberInput(attrs={"min": 0, "max": rules.REDUCTION_MAX, "inputmode": "numeric"}),
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
        for trait in rules.TRAITS:
            self.fields[trait] = _number(rules.TRAIT_MIN, rules.TRAIT_MAX, 2, TRAIT_LABELS[trait])
        self.fields["void"] = _number(rules.TRAIT_MIN, rules.TRAIT_MAX, 2, "Void")
        for name, skill in SKILL_FIELDS.items():
            self.fields[name] = _number(rules.SKILL_MIN, rules.SKILL_MAX, 0, skill.name, required=False)
            self.fields[f"{name}_emphasis"] = forms.CharField(
                max_length=EMPHASIS_MAX_LENGTH, required=False, label=f"{skill.name} emphasis"
            )
        for name, bound in self.fields.items():
            if name.startswith("skill_") or name in (*rules.TRAITS, "void"):
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
        values = {trait: self._value(trait) for trait in rules.TRAITS}
        values["void"] = self._value("void")
        return {
            k: v if v is not None and rules.TRAIT_MIN <= v <= rules.TRAIT_MAX else None
            for k, v in values.items()
        }

    def ring_rows(self) -> list[dict[str, Any]]:
        """The four elemental rings with their two trait fields, then Void; the rank from typed traits."""
        traits = self._traits()
        rows = []
        for ring, pair in rules.RING_TRAITS.items():
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
            if rank is None or not rules.SKILL_MIN <= rank <= rules.SKILL_MAX:
                return None
            skills[skill.name] = rank
            if rank:
                raw_emphasis = self.data.get(self.add_prefix(f"{name}_emphasis")) if self.is_bound else ""
                emphases += emphasis_count(str(raw_emphasis or ""))
        void = traits.pop("void")
        return rules.build_cost(traits, void=void, skills=skills, emphases=emphases)

    def _pool_display(self, trait: int | None, rank: int | None) -> str:
        if trait is None or rank is None or not rules.SKILL_MIN <= rank <= rules.SKILL_MAX:
            return "-"
        pool = rules.skill_pool(trait, rank)
        text = pool_text(pool, odd=self.odd_die_bonus)
        return text if rank else f"{text} unskilled"

    # -- the creation rules

    def clean(self):
        data = super().clean()
        for trait in (*rules.TRAITS, "void"):
            self._check_range(data, trait, rules.TRAIT_MIN, rules.TRAIT_MAX)
        self._check_range(data, "school_rank", 1, 10)
        if self.new and data.get("school_rank") not in (None, rules.STARTING_SCHOOL_RANK):
            self.add_error(
                "school_rank",
                f"A new character is a rank {rules.STARTING_SCHOOL_RANK} student of its school; "
                "later ranks come in play.",
            )
        for name in ("armor", "reduction"):
            if data.get(name) is None and name not in self.errors:
                data[name] = 0  # an export from before armor (or its Reduction) was recorded
        self._check_range(data, "armor", 0, rules.ARMOR_MAX)
        self._check_range(data, "reduction", 0, rules.REDUCTION_MAX)
        skills = {}
        for name, skill in SKILL_FIELDS.items():
            if data.get(name) is None and name not in self.errors:
                data[name] = 0
            if self._check_range(data, name, rules.SKILL_MIN, rules.SKILL_MAX):
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
            rules.validate_character(
                {trait: data[trait] for trait in rules.TRAITS}, void=data["void"], skills=skills
            )
        except rules.L5RFieldError as error:
            field = error.field if error.field in self.fields else f"skill_{_slug(error.field)}"
            raise ValidationError({field if field in self.fields else None: str(error)}) from None
        emphases = sum(emphasis_count(data[f"{name}_emphasis"]) for name in SKILL_FIELDS)
        cost = rules.build_cost(
            {trait: data[trait] for trait in rules.TRAITS},
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


# ----- roll options ----------------------------------------------------------------------------------


def _small_number(low: int, high: int, initial: int, label: str):
    return WholeNumberField(
        min_value=low,
        max_value=high,
        initial=initial,
        label=label,
        widget=forms.NumberInput(attrs={"class": "form-control form-control-sm", "inputmode": "numeric"}),
    )


class L5ROptionsForm(forms.Form):
    tn = _small_number(0, 100, 15, "TN")
    raises = _small_number(0, rules.TRAIT_MAX, 0, "Raises called")
    free_raises = _small_number(0, rules.TRAIT_MAX, 0, "Free raises")
    free_on_tn = _small_number(0, rules.TRAIT_MAX, 0, "Free raises off the TN")
    use_void = forms.BooleanField(
        required=False,
        label="Spend a Void point (+1k1)",
        widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
    )
    unskilled = forms.BooleanField(
        required=False,
        label="Show untrained skills",
        widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
    )
    emphasis = forms.ChoiceField(
        required=False,
        label="Emphasis applies (re-roll 1s once)",
        error_messages={"invalid_choice": "Choose one of this sheet's emphases, or none."},
        widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
    )

    def __init__(self, *args, character, **kwargs):
        super().__init__(*args, **kwargs)
        # No character: the GM's roll-request form, checked again on each sheet that answers.
        self.sheet = character.l5r if character is not None else None
        offered = emphasis_choices(character) if character is not None else []
        if offered:
            self.fields["emphasis"].choices = [("", "None"), *offered]
        else:
            del self.fields["emphasis"]  # nothing to choose: no emphasis on the sheet

    def clean(self):
        data = super().clean()
        if self.sheet is None:
            return data
        void = self.sheet.void
        if data.get("raises") is not None and data["raises"] > void:
            self.add_error("raises", f"With Void {void} you can call at most {void} raises.")
        if (
            data.get("free_on_tn") is not None
            and data.get("free_raises") is not None
            and data["free_on_tn"] > data["free_raises"]
        ):
            self.add_error("free_on_tn", f"You have only {data['free_raises']} free raises to spend.")
        if data.get("use_void") and self.sheet.void_spent >= void:
            self.add_error("use_void", f"No Void points left: all {void} are spent.")
        return data


# ----- the system ------------------------------------------------------------------------------------


class L5RSystem(SheetSystem):
    key = "l5r"
    label = "L5R Roll & Keep"
    # Ranks are bought with XP; the school, the armor and the weapons' dice are the builder's; a GM corrects.
    value_kinds = {
        L5RSheet: {
            **dict.fromkeys(
                (*rules.TRAITS, "void", "school", "school_rank", "armor", "reduction"), Kind.BUILD
            ),
            "void_spent": Kind.PLAY,
            "wounds": Kind.PLAY,
            "xp_awarded": Kind.GM,
        },
        L5RSkill: dict.fromkeys(("name", "rank", "trait", "emphasis"), Kind.BUILD),
        L5RWeapon: dict.fromkeys(("name", "rolled", "kept", "bow_strength"), Kind.BUILD),
    }
    demo_campaign = ("Winter Court", "Honour and steel at a frozen palace. L5R Roll & Keep demo table.")
    # The rulebook's archer costs 69 XP of ranks; the demo table starts its characters with 70.
    demo_options = {"l5r_starting_xp": 70}
    campaign_options = (
        (
            "l5r_odd_die_bonus",
            "Ten Dice house rule: odd die +2",
            "Over ten rolled dice, an odd die left over adds +2 instead of being lost.",
        ),
        BUDGET_OPTION,
    )
    template = "l5r/sheet.html"
    builder_template = "l5r/builder.html"
    after_roll_template = "l5r/_after_roll.html"
    stylesheet = "l5r/l5r.css"

    # ----- builder ---------------------------------------------------------------------------------

    def builder_form(self, *, campaign, data=None, trusted=False):
        budget = None if trusted else starting_xp(campaign)
        return L5RBuilderForm(data, odd_die_bonus=odd_die_bonus(campaign), budget=budget, new=not trusted)

    def create(self, *, character, cleaned_data):
        L5RSheet.objects.create(
            character=character,
            **{trait: cleaned_data[trait] for trait in rules.TRAITS},
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
                arrow = rules.ARROWS[0]
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

    def demo_form_data(self):
        # The seed's two named characters: Bayushi Shinai (Reflexes 3, Kyujutsu 4, a yumi) and
        # Isawa Tishi (Fire 3, rank 1 of the Isawa Shugenja School).
        shinai = {
            "name": "Bayushi Shinai",
            "school": "Bayushi Bushi School",
            "school_rank": 1,
            "stamina": 2,
            "willpower": 2,
            "strength": 2,
            "perception": 3,
            "agility": 3,
            "intelligence": 2,
            "reflexes": 3,
            "awareness": 3,
            "void": 2,
            "skill_kyujutsu": 4,
            "skill_kenjutsu": 2,
            "skill_defense": 1,
            "skill_iaijutsu": 1,
            "skill_sincerity": 2,
            "skill_sincerity_emphasis": "Deceit",
            "skill_stealth": 1,
            "weapons": ["katana", "wakizashi", "yumi"],
            "notes": "A Scorpion archer who never shows the same face twice.",
        }
        # Tishi is built within the usual 40 XP (36); Shinai, the seed's archer, costs 69, past it.
        tishi = {
            "name": "Isawa Tishi",
            "school": "Isawa Shugenja School",
            "school_rank": 1,
            "stamina": 2,
            "willpower": 2,
            "strength": 2,
            "perception": 2,
            "agility": 3,
            "intelligence": 3,
            "reflexes": 2,
            "awareness": 2,
            "void": 2,
            "skill_spellcraft": 2,
            "skill_lore": 2,
            "skill_lore_emphasis": "Theology",
            "skill_calligraphy": 1,
            "skill_meditation": 1,
            "skill_medicine": 1,
            "skill_etiquette": 1,
            "weapons": ["tanto"],
            "notes": "A Phoenix shugenja with a temper as hot as her Fire.",
        }
        return [shinai, tishi]

    # ----- sheet -----------------------------------------------------------------------------------

    def context(self, character):
        sheet = character.l5r
        ring_ranks = rules.rings(sheet.trait_values(), void=sheet.void)
        skills = list(character.l5r_skills.all())
        weapons = list(character.l5r_weapons.all())
        odd = odd_die_bonus(character.campaign)
        return {
            "sheet": sheet,
            "rings": [
                {
                    "ring": ring.value,
                    "label": RING_LABELS[ring],
                    "rank": ring_ranks[ring],
                    "traits": [self.field(character, trait) for trait in rules.RING_TRAITS[ring]],
                }
                for ring in ELEMENTAL_RINGS
            ],
            "void_field": self.field(character, "void"),
            "void_spent_field": self.field(character, "void_spent"),
            "void_left": max(0, sheet.void - sheet.void_spent),
            "school_fields": [self.field(character, "school"), self.field(character, "school_rank")],
            "wounds_field": self.field(character, "wounds"),
            "wound_rank": wound_state(sheet),
            "wound_note": wound_note(wound_state(sheet)),
            "armor_field": self.field(character, "armor"),
            "reduction_field": self.field(character, "reduction"),
            "armor_tn": rules.armor_tn(sheet.reflexes, armor=sheet.armor),
            "xp_help": (
                "A trait costs 4 x its new rank, Void 6 x, a skill its new rank, an emphasis 2. "
                "Left to spend: the table's starting budget + XP awarded - what the ranks cost."
            ),
            "l5r_xp": {
                "budget": starting_xp(character.campaign),
                "awarded": sheet.xp_awarded,
                "spent": sheet_cost(sheet, skills),
                "left": xp_left(character, skills),
            },
            "skills": [
                {
                    "row": skill,
                    "rank": self.field(character, f"skill:{skill.pk}:rank"),
                    "emphasis": self.field(character, f"skill:{skill.pk}:emphasis"),
                    "trait_label": trait_label(skill.trait),
                    "pool": self._skill_pool_text(sheet, skill, odd),
                }
                for skill in skills
            ],
            "weapons": [
                {
                    "row": weapon,
                    "fields": [
                        self.field(character, f"weapon:{weapon.pk}:{part}")
                        for part in (
                            ("bow_strength",) if weapon.bow_strength is not None else ("rolled", "kept")
                        )
                    ],
                    "damage": self._weapon_damage_text(sheet, weapon, odd),
                }
                for weapon in weapons
            ],
            "unarmed": pool_text(rules.damage_pool(rules.UNARMED, sheet.strength), odd=odd),
            "odd_die_bonus": odd,
            # Rings and Void points left are derived: refresh them whenever an edit or a roll lands.
            "sheet_oob_template": "l5r/sheet.html#derived",
        }

    def _skill_pool_text(self, sheet, skill, odd: bool) -> str:
        trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait, None)
        if trait is None:
            return "-"
        text = pool_text(rules.skill_pool(trait, skill.rank), odd=odd)
        return text if skill.rank else f"{text} unskilled"

    def _weapon_damage_text(self, sheet, weapon, odd: bool) -> str:
        if weapon.bow_strength is not None:
            return ", ".join(
                f"{arrow.name}: {pool_text(rules.bow_damage_pool(self._bow(weapon), arrow), odd=odd)}"
                for arrow in rules.ARROWS
            )
        return pool_text(rules.damage_pool(self._melee(weapon), sheet.strength), odd=odd)

    @staticmethod
    def _melee(weapon: L5RWeapon) -> rules.Weapon:
        return rules.Weapon(weapon.name, weapon.rolled, weapon.kept)

    @staticmethod
    def _bow(weapon: L5RWeapon) -> rules.Weapon:
        return rules.Weapon(weapon.name, 0, 0, bow_strength=weapon.bow_strength)

    def field(self, character, path):
        sheet = character.l5r
        if path in rules.TRAITS or path == "void":
            # Players buy ranks with XP; typing one in is the GM's correction.
            return EditableField(
                path,
                trait_label(path),
                getattr(sheet, path),
                min=rules.TRAIT_MIN,
                max=rules.TRAIT_MAX,
                kind=self.kind_of(L5RSheet, path),
            )
        if path in ("armor", "reduction", "xp_awarded", "void_spent", "school_rank", "wounds"):
            label, top = {
                "armor": ("Armor TN bonus", rules.ARMOR_MAX),
                "reduction": ("Armor Reduction", rules.REDUCTION_MAX),
                "xp_awarded": ("XP awarded", XP_TOTAL_MAX),
                "void_spent": ("Void points spent", sheet.void),
                "school_rank": ("School rank", 10),
                "wounds": ("Wounds", WOUNDS_MAX),
            }[path]
            low = 1 if path == "school_rank" else 0
            return EditableField(
                path, label, getattr(sheet, path), min=low, max=top, kind=self.kind_of(L5RSheet, path)
            )
        if path == "school":
            return EditableField(
                path,
                "School",
                sheet.school,
                input_type="text",
                max_length=SCHOOL_MAX_LENGTH,
                kind=self.kind_of(L5RSheet, "school"),
            )
        kind, _, rest = path.partition(":")
        ident, _, part = rest.partition(":")
        if kind == "skill" and row_id(ident):
            skill = next((s for s in character.l5r_skills.all() if s.pk == row_id(ident)), None)
            if skill is not None and part == "rank":
                return EditableField(
                    path,
                    f"{skill.name} rank",
                    skill.rank,
                    min=rules.SKILL_MIN,
                    max=rules.SKILL_MAX,
                    kind=self.kind_of(L5RSkill, "rank"),
                )
            if skill is not None and part == "emphasis":
                return EditableField(
                    path,
                    f"{skill.name} emphasis",
                    skill.emphasis,
                    input_type="text",
                    max_length=EMPHASIS_MAX_LENGTH,
                    required=False,  # a skill may have no emphasis
                    kind=self.kind_of(L5RSkill, "emphasis"),  # each emphasis costs XP: bought with XP
                )
        if kind == "weapon" and row_id(ident):
            weapon = next((w for w in character.l5r_weapons.all() if w.pk == row_id(ident)), None)
            if weapon is not None and weapon.bow_strength is not None and part == "bow_strength":
                return EditableField(
                    path,
                    f"{weapon.name} strength",
                    weapon.bow_strength,
                    min=1,
                    max=rules.TRAIT_MAX,
                    kind=self.kind_of(L5RWeapon, "bow_strength"),
                )
            if weapon is not None and weapon.bow_strength is None and part == "rolled":
                return EditableField(
                    path,
                    f"{weapon.name} rolled dice",
                    weapon.rolled,
                    min=0,
                    max=rules.TEN_DICE,
                    kind=self.kind_of(L5RWeapon, "rolled"),
                )
            if weapon is not None and weapon.bow_strength is None and part == "kept":
                return EditableField(
                    path,
                    f"{weapon.name} kept dice",
                    weapon.kept,
                    min=1,
                    max=rules.TEN_DICE,
                    kind=self.kind_of(L5RWeapon, "kept"),
                )
        raise KeyError(path)

    def apply_edit(self, character, path, value):
        kind, _, rest = path.partition(":")
        if kind == "skill":
            ident, _, part = rest.partition(":")
            skill = character.l5r_skills.get(pk=int(ident))
            if part == "emphasis" and value and not skill.rank:
                raise ValidationError(f"An emphasis needs at least one rank in {skill.name}.")
            setattr(skill, part, value)
            skill.save(update_fields=[part])
            return
        if kind == "weapon":
            ident, _, part = rest.partition(":")
            weapon = character.l5r_weapons.get(pk=int(ident))
            setattr(weapon, part, value)
            weapon.save(update_fields=[part])
            return
        sheet = character.l5r
        setattr(sheet, path, value)
        # A lower Void cannot leave more points spent than it has.
        sheet.void_spent = min(sheet.void_spent, sheet.void)
        sheet.save()

    # ----- rolls -----------------------------------------------------------------------------------

    def options_form(self, *, character, data=None):
        return L5ROptionsForm(data, character=character)

    def _rollables(self, character, options) -> list[dict[str, Any]]:
        """Every rollable thing: key, label, group, the pool, and whether it is a TN roll."""
        sheet = character.l5r
        ring_ranks = rules.rings(sheet.trait_values(), void=sheet.void)
        items: list[dict[str, Any]] = []

        def add(key, label, group, pool, *, tn_roll=True, note="", emphasis=""):
            items.append(
                {
                    "key": key,
                    "label": label,
                    "group": group,
                    "pool": pool,
                    "tn_roll": tn_roll,
                    "note": note,
                    "emphasis": emphasis,
                }
            )

        skills = list(character.l5r_skills.all())
        for skill in skills:
            trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait)
            info = rules.skill_info(skill.name)
            pool = rules.skill_pool(trait, skill.rank, attack=bool(info and info.attack), label=skill.name)
            note = f"{trait_label(skill.trait)} {trait}" + (f" · {skill.emphasis}" if skill.emphasis else "")
            emphasis = chosen_emphasis(options, skill)
            if emphasis:
                pool = pool.with_emphasis()
                note += f" · {emphasis} applies: 1s re-rolled once"
            label = f"{skill.name} {skill.rank}"
            add(f"skill:{skill.pk}", label, "Skills", pool, note=note, emphasis=emphasis)
        if options.get("unskilled"):
            known = {s.name.lower() for s in skills}
            for skill in rules.SKILLS:
                if skill.name.lower() in known:
                    continue
                trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait)
                pool = rules.skill_pool(trait, 0, attack=skill.attack, label=skill.name)
                add(
                    f"untrained:{_slug(skill.name)}",
                    f"{skill.name} 0",
                    "Untrained skills",
                    pool,
                    note=f"{trait_label(skill.trait)} {trait}",
                )
        for trait in rules.TRAITS:
            add(
                f"trait:{trait}",
                f"{TRAIT_LABELS[trait]} {getattr(sheet, trait)}",
                "Traits",
                rules.trait_pool(getattr(sheet, trait), label=TRAIT_LABELS[trait]),
            )
        for ring in rules.Ring:
            add(
                f"ring:{ring.value}",
                f"{RING_LABELS[ring]} {ring_ranks[ring]}",
                "Rings",
                rules.ring_pool(ring_ranks[ring], label=RING_LABELS[ring]),
            )
        if "shugenja" in sheet.school.lower():
            for ring in rules.Ring:
                add(
                    f"spell:{ring.value}",
                    f"{RING_LABELS[ring]} spell",
                    "Spells",
                    rules.spell_pool(sheet.school_rank, ring_ranks[ring], label=f"{RING_LABELS[ring]} spell"),
                    note=f"school rank {sheet.school_rank} + {RING_LABELS[ring]} {ring_ranks[ring]}",
                )
        for weapon in character.l5r_weapons.all():
            if weapon.bow_strength is None:
                add(
                    f"damage:{weapon.pk}",
                    f"{weapon.name} damage",
                    "Damage",
                    rules.damage_pool(self._melee(weapon), sheet.strength),
                    tn_roll=False,
                    note=f"DR {weapon.rolled}k{weapon.kept} + Strength {sheet.strength}",
                )
            else:
                for arrow_key, arrow in ARROWS.items():
                    add(
                        f"bow:{weapon.pk}:{arrow_key}",
                        f"{weapon.name}, {arrow.name.lower()}",
                        "Damage",
                        rules.bow_damage_pool(self._bow(weapon), arrow),
                        tn_roll=False,
                        note=f"arrow DR {arrow.dr} + bow strength {weapon.bow_strength}",
                    )
        add(
            "damage:unarmed",
            "Unarmed damage",
            "Damage",
            rules.damage_pool(rules.UNARMED, sheet.strength),
            tn_roll=False,
            note=f"DR 0k1 + Strength {sheet.strength}",
        )
        return items

    @staticmethod
    def _with_void(pool: rules.Pool, options) -> rules.Pool:
        if not options.get("use_void"):
            return pool
        return dataclasses.replace(pool, rolled=pool.rolled + 1, kept=pool.kept + 1)

    @staticmethod
    def _plan(sheet, pool: rules.Pool, options) -> rules.RaisePlan:
        """The TN after wounds and raises; RulesError for raises an unskilled roll may not take."""
        return rules.plan_raises(
            options.get("tn", 15) + rules.wound_penalty(sheet.wounds, _earth(sheet)),
            raises=options.get("raises") or 0,
            void=sheet.void,
            free_raises=options.get("free_raises") or 0,
            free_raises_on_tn=options.get("free_on_tn") or 0,
            unskilled=not pool.raises_allowed,
        )

    def buttons(self, character, options):
        sheet = character.l5r
        odd = odd_die_bonus(character.campaign)
        penalty = rules.wound_penalty(sheet.wounds, _earth(sheet))
        wound_note = f" (+{penalty} {wound_state(sheet).name})" if penalty else ""
        buttons = []
        for item in self._rollables(character, options):
            note = item["note"]
            if not item["tn_roll"]:
                pool = item["pool"]
                curve = total_curve(pool, odd=odd, target=None)
                middle = median_total(curve)
                buttons.append(
                    RollButton(
                        key=item["key"],
                        label=item["label"],
                        chance=None,
                        detail=f"{pool_text(pool, odd=odd)} · half the time {middle}+"
                        + (f" · {note}" if note else ""),
                        picture=Curve(tuple(curve.items()), middle),
                        group=item["group"],
                    )
                )
                continue
            pool = self._with_void(item["pool"], options)
            written = pool_text(pool, odd=odd) + ("" if pool.explode else " unskilled")
            try:
                plan = self._plan(sheet, pool, options)
            except RulesError:
                buttons.append(
                    RollButton(
                        key=item["key"],
                        label=item["label"],
                        chance=None,
                        detail=f"{written} · unskilled: no raises" + (f" · {note}" if note else ""),
                        group=item["group"],
                    )
                )
                continue
            curve = total_curve(pool, odd=odd, target=plan.tn)
            buttons.append(
                RollButton(
                    key=item["key"],
                    label=item["label"],
                    chance=pool.chance(plan.tn, odd_die_bonus=odd),
                    detail=f"{written} vs TN {plan.tn}{wound_note}" + (f" · {note}" if note else ""),
                    picture=Curve(tuple(curve.items()), plan.tn),
                    group=item["group"],
                )
            )
        return buttons

    def roll(self, character, key, options, roller: Roller):
        sheet = character.l5r
        after, _, _ = after_roll.split_key(key)
        if after == after_roll.REKEEP:
            return after_roll.rekeep(character, key)
        retried = None
        if after == after_roll.RETRY:
            key, options, retried = after_roll.second_attempt(character, key, options)
        rollables = self._rollables(character, {**options, "unskilled": True})
        item = next((i for i in rollables if i["key"] == key), None)
        if item is None:
            raise KeyError(key)
        if retried is not None:
            options = {**options, "tn": after_roll.check_second_attempt(item["pool"], options)}
        level = wound_state(sheet)
        if not rules.can_roll(level):
            raise ValidationError(f"{character.name} is {level.name}: {wound_note(level)} until healed.")
        odd = odd_die_bonus(character.campaign)
        changes = []
        request = {"key": key, "odd_die_bonus": odd}
        if item["tn_roll"]:
            pool = self._with_void(item["pool"], options)
            try:
                plan = self._plan(sheet, pool, options)
            except RulesError as error:
                raise rules_error_to_validation(error) from None
            if options.get("use_void"):
                # Claim the point in the database so two quick rolls cannot spend the same one.
                claimed = L5RSheet.objects.filter(pk=sheet.pk, void_spent__lt=F("void")).update(
                    void_spent=F("void_spent") + 1
                )
                if not claimed:
                    raise ValidationError(f"No Void points left: all {sheet.void} are spent.")
                sheet.refresh_from_db(fields=["void_spent"])
                changes.append(f"Void point spent: {sheet.void - sheet.void_spent} of {sheet.void} left")
            tn = plan.tn
            chance = pool.chance(tn, odd_die_bonus=odd)
            penalty = rules.wound_penalty(sheet.wounds, _earth(sheet))
            request.update(
                tn=options.get("tn", 15),
                raises=plan.raises,
                free_raises=plan.free_raises,
                free_raises_on_tn=plan.free_raises_on_tn,
                effective_tn=tn,
                use_void=bool(options.get("use_void")),
                wound_penalty=penalty,
            )
            if retried is not None:
                request["second_attempt_of"] = retried.seq
        else:
            pool, plan, tn, chance = item["pool"], None, None, None
        try:
            result = rules.roll_pool(roller, pool, tn=tn, odd_die_bonus=odd)
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        dice = tuple(
            Die(total, kept=(i in result.kept), exploded=len(chain) > 1, sides=rules.SIDES)
            for i, (chain, total) in enumerate(zip(result.chains, result.die_totals, strict=True))
        )
        exploded = [" + ".join(str(f) for f in chain) for chain in result.chains if len(chain) > 1]
        written = pool_text(pool, odd=odd) + ("" if pool.explode else " unskilled")
        request.update(pool=written, rolled=result.notation)
        if item["emphasis"]:
            request["emphasis"] = item["emphasis"]
        outcome_label = ""
        if plan is None:
            outcome, outcome_label = Outcome.NONE, "damage"
            summary = f"{result.total} damage ({result.notation})"
        else:
            outcome = result.outcome
            summary = f"{result.total} vs TN {tn}, {rules.difficulty_name(tn)} ({result.notation}): {outcome}"
            if request["wound_penalty"]:
                wounded = wound_state(sheet).name
                summary += f" · TN includes +{request['wound_penalty']} for wounds ({wounded})"
            if result.success:
                if plan.effects:
                    summary += f", {plan.effects} raise{'s' if plan.effects != 1 else ''} made"
                if result.total > tn:
                    summary += f", {result.total - tn} over"
            elif plan.raises and result.total >= tn - rules.RAISE_STEP * plan.raises:
                summary += " (the TN without the raises was reached)"
        if exploded:
            summary += " · tens exploded: " + ", ".join(exploded)
        if item["emphasis"]:
            summary += " · " + rerolled_text(item["emphasis"], result)
        label = f"{item['label']} ({written})"
        if retried is not None:
            first_tn = options["tn"] - rules.SECOND_ATTEMPT_PENALTY
            label += ", second attempt"
            summary = f"Second attempt, TN {first_tn} + {rules.SECOND_ATTEMPT_PENALTY}: {summary}"
        return RollResult(
            label=label,
            request=request,
            dice=dice,
            outcome=outcome,
            outcome_label=outcome_label,
            summary=summary,
            chance=chance,
            total=result.total,
            changes=tuple(changes),
            extra={
                "chains": [list(chain) for chain in result.chains],
                "bonus": result.bonus,
                "tn": tn,
                "raises": plan.raises if plan else 0,
                "explode": result.explode,
                "rerolled": list(result.rerolled),
            },
        )

    # ----- roll requests: the GM names a trait, a ring or a skill; each sheet rolls its own pool -----

    def dice_box_options(self, campaign_options):
        # The Ten Dice house rule folds an XkY typed in the dice box as it folds the sheet's pools.
        return {"odd_die_bonus": bool((campaign_options or {}).get(ODD_DIE_OPTION))}

    def common_roll_keys(self):
        return (
            [(f"trait:{trait}", f"Trait: {label}") for trait, label in TRAIT_LABELS.items()]
            + [(f"ring:{ring.value}", f"Ring: {label}") for ring, label in RING_LABELS.items()]
            + [(f"skill:{_slug(skill.name)}", f"Skill: {skill.name}") for skill in rules.SKILLS]
        )

    def request_roll_key(self, character, key):
        # A skill asked for by name: the sheet's own rank of it (trait + skill), or the untrained roll.
        kind, _, name = key.partition(":")
        if kind != "skill" or row_id(name):
            return key
        row = next((s for s in character.l5r_skills.all() if _slug(s.name) == name), None)
        return f"skill:{row.pk}" if row is not None else f"untrained:{name}"

    def request_buttons(self, character, key, options):
        # An untrained skill's button is listed only with "show untrained skills"; a request shows it.
        shown = {**options, "unskilled": bool(key) or options.get("unskilled")}
        return super().request_buttons(character, key, shown)

    def answer_text(self, result):
        if result.get("tn") is None:
            return super().answer_text(result)
        return f"{result.get('total')} vs TN {result['tn']}, {result.get('outcome')}"

    # ----- experience: the GM awards it, the player spends it at the common 4th-edition costs ------

    def xp(self, character):
        return max(0, xp_left(character))

    def xp_award(self, *, character, amount, author):
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= self.xp_award_max:
            raise ValidationError(f"Award from 1 to {self.xp_award_max} XP at a time.")
        with character_change(character=character, author=author, reason=f"Awarded {amount} XP"):
            sheet = character.l5r
            sheet.refresh_from_db(fields=["xp_awarded"])
            if sheet.xp_awarded + amount > XP_TOTAL_MAX:
                raise ValidationError(f"A sheet holds at most {XP_TOTAL_MAX} XP awarded in all.")
            sheet.xp_awarded += amount
            sheet.save(update_fields=["xp_awarded"])

    def xp_spends(self, character):
        sheet = character.l5r
        skills = {skill.name.lower(): skill for skill in character.l5r_skills.all()}
        left = xp_left(character, list(skills.values()))
        offers = []

        def offer(key, what, rank, cost, seen, **kwargs):
            if cost is None:
                offers.append(XpOffer(key, f"{what} {rank} (the highest rank)", None, seen))
            elif cost > left:
                offers.append(
                    XpOffer(key, f"{what} {rank} → {rank + 1} ({cost} XP; {left} left)", None, seen)
                )
            else:
                offers.append(XpOffer(key, f"{what} {rank} → {rank + 1} ({cost} XP)", cost, seen, **kwargs))

        for trait in rules.TRAITS:
            rank = getattr(sheet, trait)
            cost = rules.trait_cost(rank + 1) if rank < rules.TRAIT_MAX else None
            offer(f"trait:{trait}", TRAIT_LABELS[trait], rank, cost, str(rank))
        cost = rules.void_cost(sheet.void + 1) if sheet.void < rules.TRAIT_MAX else None
        offer("void", "Void", sheet.void, cost, str(sheet.void))
        for name, info in SKILL_FIELDS.items():
            row = skills.get(info.name.lower())
            rank = row.rank if row is not None else 0
            cost = rules.skill_cost(rank + 1) if rank < rules.SKILL_MAX else None
            offer(f"skill:{name}", info.name, rank, cost, str(rank))
        for name, info in SKILL_FIELDS.items():
            row = skills.get(info.name.lower())
            if row is None or not row.rank:
                continue
            label = f"New {info.name} emphasis, named below ({rules.EMPHASIS_XP} XP)"
            if rules.EMPHASIS_XP > left:
                offers.append(XpOffer(f"emphasis:{name}", f"{label}; {left} left", None, row.emphasis))
            else:
                offers.append(
                    XpOffer(f"emphasis:{name}", label, rules.EMPHASIS_XP, row.emphasis, needs_name=True)
                )
        return offers

    def xp_spend(self, *, character, key, expected, name="", author):
        """Buy one rank (a trait, Void, a skill) or an emphasis; ``expected`` is what the player saw, so
        a second click or a stale tab is refused rather than paying twice. ValidationError: nothing saved."""
        kind, _, ident = key.partition(":")
        if kind == "trait" and ident in rules.TRAITS:
            what = TRAIT_LABELS[ident]
        elif kind == "void" and not ident:
            what = "Void"
        elif kind in ("skill", "emphasis") and ident in SKILL_FIELDS:
            what = SKILL_FIELDS[ident].name
        else:
            raise KeyError(key)
        if kind == "emphasis":
            return self._xp_emphasis(character, SKILL_FIELDS[ident], expected, name, author)
        with character_change(
            character=character, author=author, reason=f"Spent XP: raised {what}"
        ) as record:
            # Read again under character_change's lock, so two requests cannot both spend the same XP.
            sheet = L5RSheet.objects.get(pk=character.l5r.pk)
            character.l5r = sheet
            row = None
            if kind == "skill":
                info = SKILL_FIELDS[ident]
                row = character.l5r_skills.filter(name__iexact=info.name).first()
                rank = row.rank if row is not None else 0
                top, cost_of = rules.SKILL_MAX, rules.skill_cost
            else:
                rank = getattr(sheet, ident or "void")
                top, cost_of = rules.TRAIT_MAX, rules.void_cost if kind == "void" else rules.trait_cost
            if str(rank) != expected:
                raise ValidationError(f"{what} is {rank} now, not what you saw; look again before spending.")
            if rank >= top:
                raise ValidationError(f"{what} is already {top}, the highest rank.")
            cost = cost_of(rank + 1)
            left = xp_left(character, list(L5RSkill.objects.filter(character=character)))
            if cost > left:
                raise ValidationError(
                    f"{what} {rank + 1} costs {cost} XP; {character.name} has {max(0, left)}."
                )
            if kind == "skill":
                if row is None:
                    L5RSkill.objects.create(character=character, name=info.name, rank=1, trait=info.trait)
                else:
                    row.rank = rank + 1
                    row.save(update_fields=["rank"])
            else:
                setattr(sheet, ident or "void", rank + 1)
                sheet.save(update_fields=[ident or "void"])
            record["reason"] = f"Spent {cost} XP: {what} raised to {rank + 1}"
        return cost

    def _xp_emphasis(self, character, info, expected, name, author) -> int:
        emphasis = " ".join((name or "").replace(",", " ").split())
        if not emphasis:
            raise ValidationError(f"Name the new {info.name} emphasis.")
        with character_change(
            character=character, author=author, reason=f"Spent XP: {info.name} emphasis"
        ) as record:
            row = character.l5r_skills.filter(name__iexact=info.name).first()
            if row is None or not row.rank:
                raise ValidationError(f"An emphasis needs at least one rank in {info.name}.")
            if row.emphasis != expected:
                raise ValidationError(
                    f"{info.name}'s emphases changed since you looked; look again before spending."
                )
            known = {part.strip().lower() for part in row.emphasis.split(",")}
            if emphasis.lower() in known:
                raise ValidationError(f"{info.name} already has the emphasis {emphasis}.")
            written = f"{row.emphasis}, {emphasis}" if row.emphasis else emphasis
            if len(written) > EMPHASIS_MAX_LENGTH:
                raise ValidationError(
                    f"{info.name}'s emphases can be at most {EMPHASIS_MAX_LENGTH} characters in all."
                )
            left = xp_left(character, list(L5RSkill.objects.filter(character=character)))
            if rules.EMPHASIS_XP > left:
                raise ValidationError(
                    f"An emphasis costs {rules.EMPHASIS_XP} XP; {character.name} has {max(0, left)}."
                )
            row.emphasis = written
            row.save(update_fields=["emphasis"])
            record["reason"] = f"Spent {rules.EMPHASIS_XP} XP: {info.name} emphasis {emphasis}"
        return rules.EMPHASIS_XP

    # ----- export and party ------------------------------------------------------------------------

    def export_data(self, character):
        sheet = character.l5r
        data: dict[str, Any] = {trait: getattr(sheet, trait) for trait in rules.TRAITS}
        data.update(void=sheet.void, school=sheet.school, school_rank=sheet.school_rank, armor=sheet.armor)
        data["reduction"] = sheet.reduction
        by_name = {skill.name.lower(): skill for skill in character.l5r_skills.all()}
        for name, info in SKILL_FIELDS.items():
            skill = by_name.get(info.name.lower())
            if skill is not None and skill.rank:
                data[name] = skill.rank
                if skill.emphasis:
                    data[f"{name}_emphasis"] = skill.emphasis
        names = {w.name.lower(): key for key, w in WEAPON_CHOICES.items()}
        weapons = character.l5r_weapons.all()
        data["weapons"] = [names[w.name.lower()] for w in weapons if w.name.lower() in names]
        return data

    def import_form_data(self, data):
        # Only the builder's own field names pass through; everything is validated by the builder.
        allowed = {"school", "school_rank", "void", "armor", "reduction", "weapons", *rules.TRAITS}
        allowed |= set(SKILL_FIELDS) | {f"{name}_emphasis" for name in SKILL_FIELDS}
        form_data = {key: value for key, value in data.items() if key in allowed}
        if not isinstance(form_data.get("weapons", []), list):
            form_data["weapons"] = [str(form_data["weapons"])]
        return form_data

    def import_builder_form(self, *, campaign, data, play):
        # A played character's ranks cost the budget plus the XP the GM awarded since (xp_left's sum).
        awarded = ((play or {}).get("l5r") or {}).get("xp_awarded") if isinstance(play, dict) else None
        extra = awarded if isinstance(awarded, int) and not isinstance(awarded, bool) and awarded > 0 else 0
        budget = starting_xp(campaign) + extra
        return L5RBuilderForm(data, odd_die_bonus=odd_die_bonus(campaign), budget=budget)

    def play_problems(self, rows, campaign):
        sheet = rows["l5r"]
        problems = []
        if sheet.void_spent > sheet.void:
            problems.append(f"Void spent ({sheet.void_spent}) is more than Void ({sheet.void})")
        if sheet.wounds > WOUNDS_MAX:
            problems.append(f"Wounds ({sheet.wounds}) can be at most {WOUNDS_MAX}")
        for skill in rows["l5r_skills"]:
            if skill.rank > rules.SKILL_MAX:
                problems.append(f"Skill {skill.name}: rank {skill.rank} is above {rules.SKILL_MAX}")
        for weapon in rows["l5r_weapons"]:
            if not (weapon.rolled <= 10 and 1 <= weapon.kept <= 10):
                problems.append(f"Weapon {weapon.name}: its DR {weapon.rolled}k{weapon.kept} is out of range")
        return problems

    def party_summary(self, character):
        sheet = character.l5r
        void_left = max(0, sheet.void - sheet.void_spent)
        return f"Wounds {sheet.wounds} ({wound_text(wound_state(sheet))}) · Void {void_left}/{sheet.void}"


system = L5RSystem()
