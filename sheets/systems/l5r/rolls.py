"""L5R rolls from the sheet: the roll options, every rollable pool with its exact chance and curve, the
roll itself (Void spent, wounds on the TN, raises, emphases, second attempts), and the GM's roll requests."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import F

from campaigns.forms import WholeNumberField, row_id
from rules import l5r
from rules.dice import Outcome, Roller, RulesError
from sheets.contract import Curve, Die, RollButton, RollResult, SheetSystem, rules_error_to_validation

from . import after_roll
from .base import (
    ARROWS,
    ODD_DIE_OPTION,
    RING_LABELS,
    TRAIT_LABELS,
    bow,
    chosen_emphasis,
    earth,
    emphasis_choices,
    melee,
    odd_die_bonus,
    pool_text,
    slug,
    trait_label,
    wound_note,
    wound_state,
)
from .models import L5RSheet


def total_curve(pool: l5r.Pool, *, odd: bool, target: int | None) -> dict[int, Any]:
    """P(total >= t) where the picture has something to say: the sure totals and the far tail cut off."""
    return dict(_drawn_curve(pool.rolled, pool.kept, pool.bonus, pool.explode, pool.reroll_ones, odd, target))


# A sheet draws every button's curve on each render, and a roll's answer draws them all again: the same
# few pools, so each is cut to its picture once (the exact odds below are cached in rules.l5r too).
@lru_cache(maxsize=1024)
def _drawn_curve(
    rolled: int, kept: int, bonus: int, explode: bool, reroll_ones: bool, odd: bool, target: int | None
) -> tuple[tuple[int, Any], ...]:
    _, kept_after, bonus_after = l5r.ten_dice(rolled, kept, bonus, odd_die_bonus=odd)
    low, high = kept_after + bonus_after, 10 * kept_after + bonus_after + 10  # one explosion past the top
    if target is not None:
        low, high = max(0, min(low, target)), max(high, target + 10)
    high = min(high, l5r.MAX_ODDS_TARGET + bonus_after, low + 400)
    curve = l5r.total_curve(
        rolled,
        kept,
        explode=explode,
        bonus=bonus,
        odd_die_bonus=odd,
        low=low,
        high=high,
        reroll_ones=reroll_ones,
    )
    totals = sorted(curve)
    first = max([t for t in totals if curve[t] >= Fraction(995, 1000)], default=totals[0])
    last = min([t for t in totals if curve[t] < Fraction(2, 100)], default=totals[-1])
    if target is not None:
        # Keep the TN and two raises past it in view, so the picture shows what a raise costs.
        first, last = min(first, target), max(last, min(target + 10, totals[-1]))
    return tuple((t, p) for t, p in curve.items() if first <= t <= last)


def rerolled_text(emphasis: str, result: l5r.RollResult) -> str:
    """What the emphasis did, for the feed: which dice showed 1 and what each became."""
    if not result.rerolled:
        return f"emphasis {emphasis}: no 1s to re-roll"
    became = ", ".join(f"die {i + 1}: 1 → {result.die_totals[i]}" for i in result.rerolled)
    return f"emphasis {emphasis}: 1s re-rolled ({became})"


def median_total(curve: dict[int, Any]) -> int:
    """The highest total reached at least half the time."""
    reached = [t for t, p in curve.items() if p * 2 >= 1]
    return max(reached) if reached else min(curve)


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
    raises = _small_number(0, l5r.TRAIT_MAX, 0, "Raises called")
    free_raises = _small_number(0, l5r.TRAIT_MAX, 0, "Free raises")
    free_on_tn = _small_number(0, l5r.TRAIT_MAX, 0, "Free raises off the TN")
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


class Keeping(NamedTuple):
    """What the rolls will throw and keep under the options, for the lines above the buttons."""

    folded: tuple[str, ...]  # pools the Ten Dice Rule folds: "Kenjutsu 7: 12k4 → 10k5"
    emphases: tuple[str, ...]  # "Katana on Kenjutsu 7"
    void: bool  # a Void point's +1k1 is in every TN roll's pool
    odd_die_bonus: bool  # the campaign's Ten Dice house rule


class L5RRolls(SheetSystem):
    """Rolls: the options form, what the rolls keep and the buttons with their odds, the roll, and answers
    to the GM's requests."""

    roll_summary_template = "l5r/_keeping.html"

    def options_form(self, *, character, data=None):
        return L5ROptionsForm(data, character=character)

    def roll_summary(self, character, options) -> Keeping:
        """The pools as the roll throws them (_with_void, then the Ten Dice Rule as rules.l5r.ten_dice
        folds them) and the emphasis that re-rolls 1s, for the same rollables the buttons show."""
        odd = odd_die_bonus(character.campaign)
        folded, emphases = [], []
        for item in self._rollables(character, options):
            pool = self._with_void(item["pool"], options) if item["tn_roll"] else item["pool"]
            try:
                rolled = pool.effective(odd_die_bonus=odd)
            except RulesError:
                continue  # a pool past the engine's limits: its button says so
            if rolled != (pool.rolled, pool.kept, pool.bonus):
                folded.append(f"{item['label']}: {pool_text(pool, odd=odd)}")
            if item["emphasis"]:
                emphases.append(f"{item['emphasis']} on {item['label']}")
        return Keeping(tuple(folded), tuple(emphases), bool(options.get("use_void")), odd)

    def _rollables(self, character, options) -> list[dict[str, Any]]:
        """Every rollable thing: key, label, group, the pool, and whether it is a TN roll."""
        sheet = character.l5r
        ring_ranks = l5r.rings(sheet.trait_values(), void=sheet.void)
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
            info = l5r.skill_info(skill.name)
            pool = l5r.skill_pool(trait, skill.rank, attack=bool(info and info.attack), label=skill.name)
            note = f"{trait_label(skill.trait)} {trait}" + (f" · {skill.emphasis}" if skill.emphasis else "")
            emphasis = chosen_emphasis(options, skill)
            if emphasis:
                pool = pool.with_emphasis()
                note += f" · {emphasis} applies: 1s re-rolled once"
            label = f"{skill.name} {skill.rank}"
            add(f"skill:{skill.pk}", label, "Skills", pool, note=note, emphasis=emphasis)
        if options.get("unskilled"):
            known = {s.name.lower() for s in skills}
            for skill in l5r.SKILLS:
                if skill.name.lower() in known:
                    continue
                trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait)
                pool = l5r.skill_pool(trait, 0, attack=skill.attack, label=skill.name)
                add(
                    f"untrained:{slug(skill.name)}",
                    f"{skill.name} 0",
                    "Untrained skills",
                    pool,
                    note=f"{trait_label(skill.trait)} {trait}",
                )
        for trait in l5r.TRAITS:
            add(
                f"trait:{trait}",
                f"{TRAIT_LABELS[trait]} {getattr(sheet, trait)}",
                "Traits",
                l5r.trait_pool(getattr(sheet, trait), label=TRAIT_LABELS[trait]),
            )
        for ring in l5r.Ring:
            add(
                f"ring:{ring.value}",
                f"{RING_LABELS[ring]} {ring_ranks[ring]}",
                "Rings",
                l5r.ring_pool(ring_ranks[ring], label=RING_LABELS[ring]),
            )
        if "shugenja" in sheet.school.lower():
            for ring in l5r.Ring:
                add(
                    f"spell:{ring.value}",
                    f"{RING_LABELS[ring]} spell",
                    "Spells",
                    l5r.spell_pool(sheet.school_rank, ring_ranks[ring], label=f"{RING_LABELS[ring]} spell"),
                    note=f"school rank {sheet.school_rank} + {RING_LABELS[ring]} {ring_ranks[ring]}",
                )
        for weapon in character.l5r_weapons.all():
            if weapon.bow_strength is None:
                add(
                    f"damage:{weapon.pk}",
                    f"{weapon.name} damage",
                    "Damage",
                    l5r.damage_pool(melee(weapon), sheet.strength),
                    tn_roll=False,
                    note=f"DR {weapon.rolled}k{weapon.kept} + Strength {sheet.strength}",
                )
            else:
                for arrow_key, arrow in ARROWS.items():
                    add(
                        f"bow:{weapon.pk}:{arrow_key}",
                        f"{weapon.name}, {arrow.name.lower()}",
                        "Damage",
                        l5r.bow_damage_pool(bow(weapon), arrow),
                        tn_roll=False,
                        note=f"arrow DR {arrow.dr} + bow strength {weapon.bow_strength}",
                    )
        add(
            "damage:unarmed",
            "Unarmed damage",
            "Damage",
            l5r.damage_pool(l5r.UNARMED, sheet.strength),
            tn_roll=False,
            note=f"DR 0k1 + Strength {sheet.strength}",
        )
        return items

    @staticmethod
    def _with_void(pool: l5r.Pool, options) -> l5r.Pool:
        if not options.get("use_void"):
            return pool
        return dataclasses.replace(pool, rolled=pool.rolled + 1, kept=pool.kept + 1)

    @staticmethod
    def _plan(sheet, pool: l5r.Pool, options) -> l5r.RaisePlan:
        """The TN after wounds and raises; RulesError for raises an unskilled roll may not take."""
        return l5r.plan_raises(
            options.get("tn", 15) + l5r.wound_penalty(sheet.wounds, earth(sheet)),
            raises=options.get("raises") or 0,
            void=sheet.void,
            free_raises=options.get("free_raises") or 0,
            free_raises_on_tn=options.get("free_on_tn") or 0,
            unskilled=not pool.raises_allowed,
        )

    def buttons(self, character, options):
        sheet = character.l5r
        odd = odd_die_bonus(character.campaign)
        penalty = l5r.wound_penalty(sheet.wounds, earth(sheet))
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
        if not l5r.can_roll(level):
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
            penalty = l5r.wound_penalty(sheet.wounds, earth(sheet))
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
            result = l5r.roll_pool(roller, pool, tn=tn, odd_die_bonus=odd)
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        dice = tuple(
            Die(total, kept=(i in result.kept), exploded=len(chain) > 1, sides=l5r.SIDES)
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
            summary = f"{result.total} vs TN {tn}, {l5r.difficulty_name(tn)} ({result.notation}): {outcome}"
            if request["wound_penalty"]:
                wounded = wound_state(sheet).name
                summary += f" · TN includes +{request['wound_penalty']} for wounds ({wounded})"
            if result.success:
                if plan.effects:
                    summary += f", {plan.effects} raise{'s' if plan.effects != 1 else ''} made"
                if result.total > tn:
                    summary += f", {result.total - tn} over"
            elif plan.raises and result.total >= tn - l5r.RAISE_STEP * plan.raises:
                summary += " (the TN without the raises was reached)"
        if exploded:
            summary += " · tens exploded: " + ", ".join(exploded)
        if item["emphasis"]:
            summary += " · " + rerolled_text(item["emphasis"], result)
        label = f"{item['label']} ({written})"
        if retried is not None:
            first_tn = options["tn"] - l5r.SECOND_ATTEMPT_PENALTY
            label += ", second attempt"
            summary = f"Second attempt, TN {first_tn} + {l5r.SECOND_ATTEMPT_PENALTY}: {summary}"
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
            + [(f"skill:{slug(skill.name)}", f"Skill: {skill.name}") for skill in l5r.SKILLS]
        )

    def request_roll_key(self, character, key):
        # A skill asked for by name: the sheet's own rank of it (trait + skill), or the untrained roll.
        kind, _, name = key.partition(":")
        if kind != "skill" or row_id(name):
            return key
        row = next((s for s in character.l5r_skills.all() if slug(s.name) == name), None)
        return f"skill:{row.pk}" if row is not None else f"untrained:{name}"

    def request_buttons(self, character, key, options):
        # An untrained skill's button is listed only with "show untrained skills"; a request shows it.
        shown = {**options, "unskilled": bool(key) or options.get("unskilled")}
        return super().request_buttons(character, key, shown)

    def answer_text(self, result):
        if result.get("tn") is None:
            return super().answer_text(result)
        return f"{result.get('total')} vs TN {result['tn']}, {result.get('outcome')}"
