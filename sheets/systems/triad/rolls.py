"""Triad rolls from the sheet: the roll options, each ability and trait with its exact odds, and the
roll itself (extra effort paid, a hazard's damage, Berserker Rage used)."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from rules import triad
from rules.dice import Roller, RulesError
from sheets.contract import Bar, Die, RollButton, RollResult, SheetSystem, rules_error_to_validation

from .base import ABILITY_LABELS
from .edge import EdgeSource, cancelling_text, dice_text, feed_text
from .models import TriadTrait

OUTCOME_TONES = {
    triad.CRITICAL: "success",
    triad.SUCCESS: "info",
    triad.MIXED: "warning",
    triad.FAILURE: "secondary",
    triad.FUMBLE: "danger",
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
    sources: tuple[EdgeSource, ...]  # every advantage and disadvantage source, by name
    reading: triad.EdgeReading  # the sources cancelled: the dice thrown and the one kept


class EdgeSummary(NamedTuple):
    """The sources on the sheet's rolls now, each with the rolls it is on, and what each roll comes to."""

    # (source, the rolls it is on: "every roll", "Body rolls", "its own roll", or their names)
    sources: tuple[tuple[EdgeSource, str], ...]
    # (the rolls, or "Every roll"; how their sources cancel; the dice they throw), rolls alike together
    rows: tuple[tuple[str, str, str], ...]


#: How far short of the Difficulty a hazard roll must fall for its severe damage (Triad, l.110's example).
HAZARD_SEVERE_BY = 7


class TriadOptionsForm(forms.Form):
    difficulty = WholeNumberField(min_value=0, max_value=40, initial=10)
    advantages = WholeNumberField(min_value=0, max_value=9, initial=0, label="Advantage sources")
    disadvantages = WholeNumberField(min_value=0, max_value=9, initial=0, label="Disadvantage sources")
    adv_trait = forms.BooleanField(required=False, label="An (Adv.) trait applies")
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point)")
    tool = WholeNumberField(
        min_value=triad.ABILITY_MIN,
        max_value=triad.ABILITY_MAX,
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
    """Rolls: the options form, the buttons with their odds and the edge summary above them, the roll, and
    the GM's common roll keys."""

    roll_summary_template = "triad/_edge.html"

    def options_form(self, *, character, data=None):
        return TriadOptionsForm(data)

    @staticmethod
    def _tasks(character) -> list[Task]:
        """Everything the sheet rolls: each ability, and each trait tied to an ability."""
        tasks = [Task(f"ability:{a}", ABILITY_LABELS[a], a, False, "Abilities") for a in triad.ABILITIES]
        tasks += [
            Task(f"trait:{t.pk}", t.name, t.ability, t.adv, "Traits")
            for t in character.triad_traits.all()
            if t.kind == TriadTrait.Kind.TRAIT and t.ability
        ]
        return tasks

    @staticmethod
    def _edge_sources(sheet, task: Task, options) -> tuple[EdgeSource, ...]:
        """Every advantage and disadvantage source on this task now, by name: what the player typed, an
        (Adv.) trait (the button's own, or "An (Adv.) trait applies": one trait either way, Triad l.17, l.63),
        extra effort (l.57), Berserker Rage's waiting advantage on a Body task (l.142), a stun (l.124), and
        a hold or ropes on a Body task (l.63, l.125)."""
        body = task.ability == triad.BODY
        candidates = (
            EdgeSource("Advantage sources typed", advantages=options.get("advantages") or 0),
            EdgeSource("An (Adv.) trait", advantages=1) if task.adv or options.get("adv_trait") else None,
            EdgeSource("Extra effort", advantages=1, note="1 point of the score rolled, paid after the roll")
            if options.get("extra_effort")
            else None,
            EdgeSource("Berserker Rage", advantages=1) if body and sheet.rage_advantage else None,
            EdgeSource("Disadvantage sources typed", disadvantages=options.get("disadvantages") or 0),
            EdgeSource("Stunned", disadvantages=1) if sheet.stunned else None,
            EdgeSource("Grappled", disadvantages=1) if body and sheet.grappled else None,
            EdgeSource("Restrained", disadvantages=1) if body and sheet.restrained else None,
        )
        return tuple(s for s in candidates if s is not None and (s.advantages or s.disadvantages))

    @classmethod
    def _odds(cls, sheet, task: Task, options) -> TaskOdds:
        """The task under the options: its edge sources cancelled one for one (Triad l.55), an (Adv.) trait
        winning mixed results (l.35, l.62), an exceptional tool's rating for the score (l.59)."""
        sources = cls._edge_sources(sheet, task, options)
        reading = triad.read_edge(sum(s.advantages for s in sources), sum(s.disadvantages for s in sources))
        adv_trait = task.adv or bool(options.get("adv_trait"))
        # An exceptional tool's rating stands in for the score outright, lower or higher.
        current = triad.effective_ability(getattr(sheet, task.ability), tool=options.get("tool"))
        difficulty = options.get("difficulty", 10)
        odds = triad.chance(current, difficulty, edge=reading.edge, adv_trait=adv_trait)
        success = odds[triad.CRITICAL] + odds[triad.SUCCESS] + (odds[triad.MIXED] if adv_trait else 0)
        return TaskOdds(current, difficulty, reading.edge, adv_trait, odds, success, sources, reading)

    def roll_summary(self, character, options) -> EdgeSummary:
        """Each advantage and disadvantage source once, with the rolls it is on, then each roll's count
        of them, how they cancel and the dice it throws: all from the count the roll makes (_odds)."""
        sheet = character.triad
        tasks = self._tasks(character)
        on: dict[EdgeSource, list[Task]] = {}
        alike: dict[triad.EdgeReading, list[Task]] = {}
        for task in tasks:
            odds = self._odds(sheet, task, options)
            for source in odds.sources:
                on.setdefault(source, []).append(task)
            alike.setdefault(odds.reading, []).append(task)
        scopes = {
            "every roll": tasks,
            "Body rolls": [t for t in tasks if t.ability == triad.BODY],
            "its own roll": [t for t in tasks if t.adv],
        }

        def rolls(some: list[Task]) -> str:
            named = [name for name, them in scopes.items() if them == some]
            return named[0] if named else ", ".join(t.label for t in some)

        rows = tuple(
            (
                "Every roll" if some == tasks else ", ".join(t.label for t in some),
                cancelling_text(reading),
                dice_text(reading),
            )
            for reading, some in alike.items()
        )
        return EdgeSummary(tuple((source, rolls(some)) for source, some in on.items()), rows)

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
                    detail=f"vs {odds.difficulty}"
                    + (", Adv." if task.adv else "")
                    + f" · {dice_text(odds.reading, form='button')}",
                    picture=tuple(Bar(o, odds.outcomes[o], OUTCOME_TONES[o]) for o in triad.OUTCOMES),
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
                f"{triad.CRAWL_FEET} feet a turn."
            )
        odds = self._odds(sheet, task, options)
        ability, current, difficulty = task.ability, odds.current, odds.difficulty
        own = getattr(sheet, ability)  # the character's score, which pays for extra effort even with a tool
        names = [t.name for t in character.triad_traits.all() if t.kind == TriadTrait.Kind.TRAIT]
        vitals = sheet.vitals(names)
        try:
            if options.get("extra_effort"):
                vitals = triad.spend(vitals, ability, 1)  # refused before any die is thrown
            result = triad.roll_task(
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
        if sheet.rage_advantage and ability == triad.BODY:
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
            summary=f"{result.total}{floor_note} vs {difficulty}: {result.outcome}"
            + (f" · {feed_text(odds.sources, odds.reading)}" if odds.sources else ""),
            chance=odds.success,
            changes=tuple(changes),
        )

    @staticmethod
    def _hazard(sheet, vitals, ability, result, points, severe) -> list[str]:
        """A roll to avoid harm (Triad, l.110): what the failure costs lands on the rolled score."""
        lost = triad.hazard_damage(result, points=points, severe_points=severe, severe_by=HAZARD_SEVERE_BY)
        if not lost:
            return ["Hazard avoided"]
        # Not an attack, so no stun (that rule is for "a single attack"); Hard To ..., dying and death apply.
        report = triad.take_damage(vitals, lost, ability=ability)
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
