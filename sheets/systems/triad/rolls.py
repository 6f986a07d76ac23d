"""Triad rolls from the sheet: the roll options, each ability and trait with its exact odds, and the
roll itself (extra effort paid, a hazard's damage, Berserker Rage used)."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import triad as rules
from rules.dice import Roller, RulesError
from sheets.contract import Bar, Die, RollButton, RollResult, SheetSystem, rules_error_to_validation

from .base import ABILITY_LABELS
from .models import TriadTrait

OUTCOME_TONES = {
    rules.CRITICAL: "success",
    rules.SUCCESS: "info",
    rules.MIXED: "warning",
    rules.FAILURE: "secondary",
    rules.FUMBLE: "danger",
}


class Task(NamedTuple):
    """Something the sheet rolls: an ability, or a trait rolled with its usual ability."""

    key: str
    label: str
    ability: str
    adv: bool  # an (Adv.) trait
    group: str


class TaskOdds(NamedTuple):
    current: int
    difficulty: int
    edge: int
    adv_trait: bool
    outcomes: dict
    success: Fraction  # critical + success (+ mixed when an (Adv.) trait turns it)


#: How far short of the Difficulty a hazard roll must fall for its severe damage (Triad, l.110's example).
HAZARD_SEVERE_BY = 7


class TriadOptionsForm(forms.Form):
    difficulty = WholeNumberField(min_value=0, max_value=40, initial=10)
    advantages = WholeNumberField(min_value=0, max_value=9, initial=0, label="Advantage sources")
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, label="Disadvantage sources")
    adv_trait = forms.BooleanField(required=False, label="An (Adv.) trait applies")
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point)")
    tool = WholeNumberField(
        min_value=rules.ABILITY_MIN,
        max_value=rules.ABILITY_MAX,
        required=False,
        label="Exceptional tool's rating",
        error_messages={
            "invalid": "Exceptional tool's rating: a whole number from 1 to 20, or blank for none.",
            "min_value": "Exceptional tool's rating: from 1 to 20, or blank for none.",
            "max_value": "Exceptional tool's rating: from 1 to 20, or blank for none.",
        },
    )
    hazard = WholeNumberField(
        min_value=0,
        max_value=99,
        required=False,
        label="Hazard: damage on a failure",
    )
    hazard_severe = WholeNumberField(
        min_value=0,
        max_value=99,
        required=False,
        label=f"Hazard: damage when short by {HAZARD_SEVERE_BY} or more",
    )

    def clean(self):
        data = super().clean()
        if data.get("hazard_severe") and not data.get("hazard"):
            self.add_error("hazard_severe", "Give the ordinary hazard damage too (the first hazard box).")
        return data


class TriadRolls(SheetSystem):
    """Rolls: the options form, the buttons with their odds, the roll, and the GM's common roll keys."""

    def options_form(self, *, character, data=None):
        return TriadOptionsForm(data)

    @staticmethod
    def _tasks(character) -> list[Task]:
        """Everything the sheet rolls: each ability, and each trait tied to an ability."""
        tasks = [Task(f"ability:{a}", ABILITY_LABELS[a], a, False, "Abilities") for a in rules.ABILITIES]
        tasks += [
            Task(f"trait:{t.pk}", t.name, t.ability, t.adv, "Traits")
            for t in character.triad_traits.all()
            if t.kind == TriadTrait.Kind.TRAIT and t.ability
        ]
        return tasks

    @staticmethod
    def _odds(sheet, task: Task, options) -> TaskOdds:
        """The task under the options: an (Adv.) trait (the button's own, or "An (Adv.) trait applies", one
        trait either way) adds an advantage source and wins mixed results (Triad l.17, l.62); a hold or
        ropes weigh on Body tasks (l.63, l.125)."""
        body = task.ability == rules.BODY
        adv_trait = task.adv or bool(options.get("adv_trait"))
        rage = sheet.rage_advantage and body
        advantages = (options.get("advantages") or 0) + bool(options.get("extra_effort")) + adv_trait + rage
        held = sheet.body_hindrances if body else 0
        disadvantages = (options.get("disadvantages") or 0) + sheet.stunned + held
        edge = rules.net_edge(advantages, disadvantages)
        # An exceptional tool's rating stands in for the score outright, lower or higher.
        current = rules.effective_ability(getattr(sheet, task.ability), tool=options.get("tool"))
        difficulty = options.get("difficulty", 10)
        odds = rules.chance(current, difficulty, edge=edge, adv_trait=adv_trait)
        success = odds[rules.CRITICAL] + odds[rules.SUCCESS] + (odds[rules.MIXED] if adv_trait else 0)
        return TaskOdds(current, difficulty, edge, adv_trait, odds, success)

    def buttons(self, character, options):
        sheet = character.triad
        buttons = []
        for task in self._tasks(character):
            odds = self._odds(sheet, task, options)
            label = (
                f"{task.label} {odds.current}"
                if task.group == "Abilities"
                else (f"{task.label} ({ABILITY_LABELS[task.ability]} {odds.current})")
            )
            buttons.append(
                RollButton(
                    key=task.key,
                    label=label,
                    chance=odds.success,
                    detail=f"vs {odds.difficulty}" + (", Adv." if task.adv else ""),
                    picture=tuple(Bar(o, odds.outcomes[o], OUTCOME_TONES[o]) for o in rules.OUTCOMES),
                    group=task.group,
                )
            )
        return buttons

    def roll(self, character, key, options, roller: Roller):
        sheet = character.triad
        task = next((t for t in self._tasks(character) if t.key == key), None)
        if task is None:
            raise KeyError(key)
        if sheet.dead:
            raise ValidationError(f"{character.name} is dead and rolls nothing.")
        if sheet.dying:
            # Triad l.126, l.100: no task at all, a hazard's roll to avoid harm included.
            raise ValidationError(
                f"{character.name} is dying and makes no roll: only a crawl of "
                f"{rules.CRAWL_FEET} feet a turn."
            )
        odds = self._odds(sheet, task, options)
        ability, current, difficulty = task.ability, odds.current, odds.difficulty
        own = getattr(sheet, ability)  # the character's score, which pays for extra effort even with a tool
        names = [t.name for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT]
        vitals = sheet.vitals(names)
        try:
            if options.get("extra_effort"):
                vitals = rules.spend(vitals, ability, 1)  # refused before any die is thrown
            result = rules.roll_task(
                roller, ability=current, difficulty=difficulty, edge=odds.edge, adv_trait=odds.adv_trait
            )
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        changes = []
        if options.get("extra_effort"):
            # Paid once the task is settled (Triad, l.57): the spent score goes on the sheet now.
            sheet.store(vitals)
            sheet.save(update_fields=[ability])
            changes.append(f"{ABILITY_LABELS[ability]} {own} -> {vitals.current(ability)} (extra effort)")
        hazard = options.get("hazard")
        if hazard:
            changes += self._hazard(sheet, vitals, ability, result, hazard, options.get("hazard_severe"))
        if sheet.rage_advantage and ability == rules.BODY:
            # Berserker Rage's advantage was for the next Body task: this one.
            sheet.rage_advantage = False
            sheet.save(update_fields=["rage_advantage"])
            changes.append("Berserker Rage advantage used")
        kept_index = result.faces.index(result.kept)
        dice = tuple(Die(face, kept=(i == kept_index), sides=20) for i, face in enumerate(result.faces))
        floor_note = " (floored by the ability)" if result.total > result.kept else ""
        scored = f"exceptional tool {current} for {ABILITY_LABELS[ability]}" if options.get("tool") else ""
        return RollResult(
            label=f"{task.label} ({scored or f'{ABILITY_LABELS[ability]} {current}'})",
            request={
                "key": key,
                "difficulty": difficulty,
                "edge": odds.edge,
                "adv_trait": odds.adv_trait,
                "extra_effort": bool(options.get("extra_effort")),
                "tool": options.get("tool"),
                "hazard": hazard or 0,
                "hazard_severe": options.get("hazard_severe"),
            },
            dice=dice,
            outcome=result.outcome,
            total=result.total,
            summary=f"{result.total}{floor_note} vs {difficulty}: {result.outcome}",
            chance=odds.success,
            changes=tuple(changes),
        )

    @staticmethod
    def _hazard(sheet, vitals, ability, result, points, severe) -> list[str]:
        """A roll to avoid harm (Triad, l.110): what the failure costs lands on the rolled score."""
        lost = rules.hazard_damage(result, points=points, severe_points=severe, severe_by=HAZARD_SEVERE_BY)
        if not lost:
            return ["Hazard avoided"]
        # Not an attack, so no stun (that rule is for "a single attack"); Hard To ..., dying and death apply.
        report = rules.take_damage(vitals, lost, ability=ability)
        fields = sheet.store(report.vitals)
        sheet.save(update_fields=fields)
        label = ABILITY_LABELS[ability]
        before, after = vitals.current(ability), report.vitals.current(ability)
        changes = [f"Hazard: {label} {before} -> {after} ({lost} damage)"]
        if report.saved_by:
            changes.append(f"{report.saved_by} keeps them going (used until {label} is full again)")
        if report.dead:
            changes.append("Dead")
        elif report.dying:
            changes.append("Dying")
        return changes

    def common_roll_keys(self):
        return [(f"ability:{ability}", label) for ability, label in ABILITY_LABELS.items()]
