"""Triad on the sheet: Body/Mind/Spirit point-buy with traits, d20 floored by the current ability."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

from django import forms
from django.core.exceptions import ValidationError

from rules import triad as rules
from rules.dice import Roller, RulesError
from sheets.contract import (
    Bar,
    Die,
    EditableField,
    RollButton,
    RollResult,
    SheetSystem,
    rules_error_to_validation,
)

from .models import TriadSheet, TriadTrait

ABILITY_LABELS = {rules.BODY: "Body", rules.MIND: "Mind", rules.SPIRIT: "Spirit"}
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


TRAIT_CHOICES = [(t.name, f"{t.name}{' (Adv.)' if t.adv else ''}") for t in rules.TRAITS]


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in (text or "").splitlines() if line.strip()]


class TriadBuilderForm(forms.Form):
    name = forms.CharField(max_length=80)
    tier = forms.ChoiceField(
        choices=[
            (
                k,
                f"{t.name}: {t.points} points, {t.traits} traits"
                + (f", {t.powers} powers" if t.powers else ""),
            )
            for k, t in rules.TIERS.items()
        ],
        help_text="Split exactly the tier's points over Body, Mind and Spirit, and take exactly its traits.",
    )
    body = forms.IntegerField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
    mind = forms.IntegerField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
    spirit = forms.IntegerField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
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
        choices=[("", "None")] + [(k, t.name) for k, t in rules.ARMOR.items() if t.points], required=False
    )
    weapon = forms.ChoiceField(
        choices=[(k, f"{t.name} ({t.points})") for k, t in rules.WEAPONS.items()], initial="light"
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

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["build"] = rules.validate_character(
                tier=data.get("tier") or None,
                body=data["body"],
                mind=data["mind"],
                spirit=data["spirit"],
                traits=data.get("traits", []),
                custom_traits=[
                    line.replace("(Adv.)", "").strip() for line in _lines(data.get("custom_traits"))
                ],
                powers=_lines(data.get("powers")),
                allow_out_of_tier=self.allow_out_of_tier,
            )
        except rules.BuildError as error:
            # "points" is the sum of the three scores: show it on Body, Mind and Spirit's row.
            raise ValidationError({"body" if error.field == "points" else error.field: str(error)}) from None
        return data


class TriadOptionsForm(forms.Form):
    difficulty = forms.IntegerField(min_value=0, max_value=40, initial=10)
    advantages = forms.IntegerField(min_value=0, max_value=9, initial=0, label="Advantage sources")
    disadvantages = forms.IntegerField(min_value=0, max_value=9, initial=0, label="Disadvantage sources")
    adv_trait = forms.BooleanField(required=False, label="An (Adv.) trait applies")
    extra_effort = forms.BooleanField(required=False, label="Extra effort (costs 1 point)")


class TriadSystem(SheetSystem):
    key = "triad"
    label = "Triad"
    demo_campaign = ("Castle Dracula", "Hunters climb toward the count's tower. Triad demo table.")
    campaign_options = (
        (
            "triad_out_of_tier",
            "Allow characters outside the tiers",
            "Players may build characters whose points and traits match no tier; their sheets say so.",
        ),
    )
    template = "triad/sheet.html"
    builder_template = "triad/builder.html"
    samples = rules.SAMPLE_CHARACTERS

    # ----- builder ---------------------------------------------------------------------------------

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
            for line in _lines(cleaned_data.get("custom_traits"))
        }
        rows = []
        for name in build.traits:
            if name in custom:
                rows.append(TriadTrait(character=character, name=name, adv=custom[name], custom=True))
            else:
                trait = rules.find_trait(name)
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

    def sample_form_data(self, key: str) -> dict[str, Any]:
        """Builder data for one of the seed's sample characters (created with one click)."""
        sample = rules.SAMPLE_CHARACTERS[key]
        return {
            "name": sample.name,
            "tier": sample.tier or "",
            "body": sample.body,
            "mind": sample.mind,
            "spirit": sample.spirit,
            "traits": list(sample.traits),
            "powers": "\n".join(sample.powers),
            "weapon": "light",
            "armor": "",
            "notes": sample.background,
        }

    def demo_form_data(self):
        return [self.sample_form_data("van_helsing"), self.sample_form_data("zheng_yi_sao")]

    # ----- sheet -----------------------------------------------------------------------------------

    def context(self, character):
        sheet = character.triad
        traits = list(character.triad_traits.all())
        build_points = sheet.body_max + sheet.mind_max + sheet.spirit_max
        return {
            "sheet": sheet,
            "abilities": [self.field(character, a) for a in rules.ABILITIES],
            "maxima": [self.field(character, f"{a}_max") for a in rules.ABILITIES],
            "traits": [t for t in traits if t.kind == TriadTrait.Kind.TRAIT],
            "powers": [t for t in traits if t.kind == TriadTrait.Kind.POWER],
            "tier": rules.TIERS.get(sheet.tier),
            "out_of_tier": not sheet.tier,
            "build_points": build_points,
            "gear": [self.field(character, "armor"), self.field(character, "weapon")],
        }

    def field(self, character, path):
        sheet = character.triad
        if path in rules.ABILITIES:
            return EditableField(
                path, ABILITY_LABELS[path], getattr(sheet, path), min=0, max=getattr(sheet, f"{path}_max")
            )
        if path.endswith("_max") and path[:-4] in rules.ABILITIES:
            return EditableField(
                path,
                f"{ABILITY_LABELS[path[:-4]]} maximum",
                getattr(sheet, path),
                min=rules.ABILITY_MIN,
                max=rules.ABILITY_MAX,
            )
        if path in ("armor", "weapon"):
            return EditableField(
                path,
                path.title(),
                getattr(sheet, path),
                input_type="select",
                choices=tuple(TriadSheet._meta.get_field(path).choices),
            )
        raise KeyError(path)

    def apply_edit(self, character, path, value):
        sheet = character.triad
        setattr(sheet, path, value)
        if path.endswith("_max"):
            # Lowering a maximum drags the current score down with it; raising it leaves it alone.
            ability = path[:-4]
            setattr(sheet, ability, min(getattr(sheet, ability), value))
        sheet.save()

    # ----- rolls -----------------------------------------------------------------------------------

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
        """The task under the options: an (Adv.) trait adds an advantage source and wins mixed results."""
        advantages = (options.get("advantages") or 0) + bool(options.get("extra_effort")) + task.adv
        disadvantages = (options.get("disadvantages") or 0) + sheet.stunned
        edge = rules.net_edge(advantages, disadvantages)
        adv_trait = task.adv or bool(options.get("adv_trait"))
        current = getattr(sheet, task.ability)
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
        odds = self._odds(sheet, task, options)
        ability, current, difficulty = task.ability, odds.current, odds.difficulty
        try:
            result = rules.roll_task(
                roller,
                ability=current,
                difficulty=difficulty,
                edge=odds.edge,
                adv_trait=odds.adv_trait,
                extra_effort=bool(options.get("extra_effort")),
            )
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        changes = []
        if result.effort_spent:
            setattr(sheet, ability, current - result.effort_spent)
            sheet.save(update_fields=[ability])
            changes.append(
                f"{ABILITY_LABELS[ability]} {current} -> {current - result.effort_spent} (extra effort)"
            )
        kept_index = result.faces.index(result.kept)
        dice = tuple(Die(face, kept=(i == kept_index), sides=20) for i, face in enumerate(result.faces))
        floor_note = " (floored by the ability)" if result.total > result.kept else ""
        return RollResult(
            label=f"{task.label} ({ABILITY_LABELS[ability]} {current})",
            request={
                "key": key,
                "difficulty": difficulty,
                "edge": odds.edge,
                "adv_trait": odds.adv_trait,
                "extra_effort": bool(options.get("extra_effort")),
            },
            dice=dice,
            outcome=result.outcome,
            total=result.total,
            summary=f"{result.total}{floor_note} vs {difficulty}: {result.outcome}",
            chance=odds.success,
            changes=tuple(changes),
        )

    # ----- export and party ------------------------------------------------------------------------

    def export_data(self, character):
        sheet = character.triad
        traits = list(character.triad_traits.all())
        return {
            "tier": sheet.tier,
            "body": sheet.body_max,
            "mind": sheet.mind_max,
            "spirit": sheet.spirit_max,
            "traits": [t.name for t in traits if t.kind == "trait" and not t.custom],
            "custom_traits": "\n".join(
                f"{t.name}{' (Adv.)' if t.adv else ''}" for t in traits if t.kind == "trait" and t.custom
            ),
            "powers": "\n".join(t.name for t in traits if t.kind == "power"),
            "armor": sheet.armor,
            "weapon": sheet.weapon,
        }

    def common_roll_keys(self):
        return [(f"ability:{ability}", label) for ability, label in ABILITY_LABELS.items()]

    def party_summary(self, character):
        sheet = character.triad
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}"
        )


system = TriadSystem()
