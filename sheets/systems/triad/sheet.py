"""Triad on the sheet: Body/Mind/Spirit point-buy with traits, d20 floored by the current ability."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, NamedTuple

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField, whole_number
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
from sheets.policy import Kind
from sheets.services import character_change

from .models import HARD_TO_USED, TriadSheet, TriadTrait

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


def _count(have: int, want: int | None, done: str, short: str) -> str:
    """One line of the builder's running count; static/triad/builder.js words it the same way."""
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
            for k, t in rules.TIERS.items()
        ],
        help_text="Split exactly the tier's points over Body, Mind and Spirit, and take exactly its traits.",
    )
    body = WholeNumberField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
    mind = WholeNumberField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
    spirit = WholeNumberField(min_value=rules.ABILITY_MIN, max_value=rules.ABILITY_MAX, initial=10)
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

    # ----- what the builder's template draws beside the fields -----------------------------------------

    def trait_options(self) -> list[dict[str, Any]]:
        """Each listed trait with its summary (our own words) and whether the player has ticked it."""
        data = self.data if self.is_bound else {}
        ticked = set(data.getlist("traits") if hasattr(data, "getlist") else data.get("traits") or ())
        return [
            {"value": t.name, "label": label, "summary": t.summary, "checked": t.name in ticked}
            for t, (_, label) in zip(rules.TRAITS, TRAIT_CHOICES, strict=True)
        ]

    def tiers_data(self) -> str:
        """Every tier's totals for static/triad/builder.js: {key: [points, traits, powers]}."""
        return json.dumps({k: [t.points, t.traits, t.powers] for k, t in rules.TIERS.items()})

    def tally(self) -> dict[str, Any]:
        """The running count as the page was sent: points spent and traits taken against the tier's."""
        if self.is_bound:
            tier_key = self.data.get("tier") or ""
        else:
            tier_key = "" if self.allow_out_of_tier else next(iter(rules.TIERS))
        points = 0
        for name in rules.ABILITIES:
            raw = self.data.get(name) if self.is_bound else self.fields[name].initial
            points += whole_number(str(raw if raw is not None else ""), min_value=0) or 0
        custom = len(_lines(self.data.get("custom_traits") or ""))
        traits = sum(o["checked"] for o in self.trait_options()) + custom
        powers = len(_lines(self.data.get("powers") or "")) if self.is_bound else 0
        tier = rules.TIERS.get(tier_key)
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


#: The sheet's play state, each a checkbox the GM can set by hand (every change is in the history).
CONDITION_LABELS = {
    "stunned": "Stunned (disadvantage on the next turn)",
    "rage_advantage": "Berserker Rage: advantage on the next Body task",
    "grappled": "Grappled (disadvantage on Body tasks until broken free)",
    "restrained": "Restrained (cannot move; disadvantage on Body tasks)",
    "prone": "Prone (a move action to stand up)",
    "disarmed": "Disarmed (punches and kicks: Light damage)",
    "dead": "Dead",
    HARD_TO_USED[rules.BODY]: "Hard To Kill used (ready again at full Body)",
    HARD_TO_USED[rules.MIND]: "Hard To Confuse used (ready again at full Mind)",
    HARD_TO_USED[rules.SPIRIT]: "Hard To Unnerve used (ready again at full Spirit)",
}
#: The conditions an attack may leave instead of damage (Triad l.125), and the GM's ropes (l.63, l.100).
CONDITIONS = ("grappled", "restrained", "prone", "disarmed")
OUT_OF_TIER_OPTION = "triad_out_of_tier"


def _out_of_tier_allowed(character) -> bool:
    return bool(character.campaign.options.get(OUT_OF_TIER_OPTION))


def _build(sheet, traits) -> rules.Build:
    """The sheet's maxima and traits checked against its tier, problems listed rather than raised."""
    listed = [t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT and not t.custom]
    return rules.validate_character(
        tier=sheet.tier or None,
        body=sheet.body_max,
        mind=sheet.mind_max,
        spirit=sheet.spirit_max,
        traits=listed,
        custom_traits=[t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT and t.custom],
        powers=[t.name for t in traits if t.kind == TriadTrait.Kind.POWER],
        allow_out_of_tier=True,
    )


def _point_field(label: str) -> WholeNumberField:
    return WholeNumberField(
        min_value=0,
        max_value=rules.ABILITY_MAX,
        required=False,
        label=label,
        error_messages={
            "invalid": f"{label}: write a whole number of points (digits 0-9).",
            "max_value": f"{label}: at most {rules.ABILITY_MAX} points.",
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
        split = {a: data.get(a) or 0 for a in rules.ABILITIES}
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
            trait = rules.find_trait(listed)
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
            placed = rules.recover(before, split)
            after = rules.rest(placed, hours - sum(split.values()))
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        fields = sheet.store(after)
        # An hour's rest outlasts any stun, which is gone after one turn.
        sheet.stunned = False
        sheet.save(update_fields=[*fields, "stunned"])
        changes = [
            f"{ABILITY_LABELS[a]} {before.current(a)} -> {after.current(a)}"
            for a in rules.ABILITIES
            if after.current(a) != before.current(a)
        ]
        changes += [
            f"{rules.HARD_TO[a]} ready again" for a in rules.ABILITIES if a in before.spent - after.spent
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


class TriadSystem(SheetSystem):
    key = "triad"
    label = "Triad"
    # The tier, the maxima and the traits are the build (the GM's after creation: Triad has no XP).
    value_kinds = {
        TriadSheet: {
            **dict.fromkeys(("tier", *(f"{a}_max" for a in rules.ABILITIES)), Kind.BUILD),
            **dict.fromkeys(rules.ABILITIES, Kind.PLAY),
            **dict.fromkeys(("stunned", "rage_advantage", *HARD_TO_USED.values()), Kind.PLAY),
            **dict.fromkeys(CONDITIONS, Kind.PLAY),
            "dead": Kind.GM,
            "armor": Kind.KIT,
            "weapon": Kind.KIT,
        },
        TriadTrait: dict.fromkeys(("kind", "name", "description", "adv", "ability", "custom"), Kind.BUILD),
    }
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
    stylesheet = "triad/triad.css"
    # The demo's Van Helsing, like the seed's, matches no tier: the demo table allows such characters.
    demo_options = {OUT_OF_TIER_OPTION: True}

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

    def import_builder_form(self, *, campaign, data, play):
        form = self.builder_form(campaign=campaign, data=data)
        # A character built outside the tiers has none in its file: say why that matters here.
        form.fields["tier"].error_messages["required"] = (
            "it matches no tier, and this campaign builds characters within the tiers (its GM may allow "
            "characters outside them)"
        )
        return form

    def sample_characters(self, campaign) -> dict[str, rules.SampleCharacter]:
        """The seed's samples this campaign's builder accepts: one outside every tier only where the GM
        allows such characters."""
        allowed = bool((campaign.options or {}).get(OUT_OF_TIER_OPTION))
        return {key: sample for key, sample in rules.SAMPLE_CHARACTERS.items() if sample.tier or allowed}

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
        build = _build(sheet, traits)
        return {
            "sheet": sheet,
            "abilities": [self.field(character, a) for a in rules.ABILITIES],
            "maxima": [self.field(character, f"{a}_max") for a in rules.ABILITIES],
            "traits": [t for t in traits if t.kind == TriadTrait.Kind.TRAIT],
            "powers": [t for t in traits if t.kind == TriadTrait.Kind.POWER],
            "tier": rules.TIERS.get(sheet.tier),
            "tier_field": self.field(character, "tier"),
            "out_of_tier": not build.in_tier,
            "build_problems": build.problems,
            "out_of_tier_allowed": _out_of_tier_allowed(character),
            "build_points": build_points,
            "gear": [self.field(character, "armor"), self.field(character, "weapon")],
            "condition": [self.field(character, path) for path in self._condition_paths(traits)],
            "rest_form": RestForm(prefix="rest"),
            "trait_form": TraitAddForm(prefix="trait"),
            "sheet_oob_template": "triad/sheet.html#oob",
            "crawl_feet": rules.CRAWL_FEET,
        }

    @staticmethod
    def _condition_paths(traits) -> list[str]:
        """The play state a GM may need to set by hand; a Hard To ... flag only with its trait."""
        names = {t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT}
        return ["stunned", *CONDITIONS, "rage_advantage", "dead"] + [
            HARD_TO_USED[a] for a, trait in rules.HARD_TO.items() if trait in names
        ]

    def field(self, character, path):
        sheet = character.triad
        if path in rules.ABILITIES:
            return EditableField(
                path,
                ABILITY_LABELS[path],
                getattr(sheet, path),
                min=0,
                max=getattr(sheet, f"{path}_max"),
                kind=self.kind_of(TriadSheet, path),
            )
        if path.endswith("_max") and path[:-4] in rules.ABILITIES:
            return EditableField(
                path,
                f"{ABILITY_LABELS[path[:-4]]} maximum",
                getattr(sheet, path),
                min=rules.ABILITY_MIN,
                max=rules.ABILITY_MAX,
                kind=self.kind_of(TriadSheet, path),
            )
        if path in CONDITION_LABELS:
            # What the fight decided is play state (death the GM's alone), not the player's to wish away.
            return EditableField(
                path,
                CONDITION_LABELS[path],
                getattr(sheet, path),
                input_type="checkbox",
                kind=self.kind_of(TriadSheet, path),
            )
        if path == "tier":
            choices = [(k, t.name) for k, t in rules.TIERS.items()]
            # "No tier" is the GM's optional rule; a sheet already without one keeps the choice.
            if _out_of_tier_allowed(character) or not sheet.tier:
                choices = [("", "No tier"), *choices]
            return EditableField(
                path,
                "Tier",
                sheet.tier,
                input_type="select",
                choices=tuple(choices),
                kind=self.kind_of(TriadSheet, "tier"),
            )
        if path in ("armor", "weapon"):
            return EditableField(
                path,
                path.title(),
                getattr(sheet, path),
                input_type="select",
                choices=tuple(TriadSheet._meta.get_field(path).choices),
                kind=self.kind_of(TriadSheet, path),
            )
        raise KeyError(path)

    def apply_edit(self, character, path, value):
        sheet = character.triad
        setattr(sheet, path, value)
        ability = path[:-4] if path.endswith("_max") else path
        if path.endswith("_max"):
            # Lowering a maximum drags the current score down with it; raising it leaves it alone.
            setattr(sheet, ability, min(getattr(sheet, ability), value))
        if ability in rules.ABILITIES and getattr(sheet, ability) == getattr(sheet, f"{ability}_max"):
            # Back to full by hand (the GM's healing, a correction): the Hard To ... trait is ready again.
            setattr(sheet, HARD_TO_USED[ability], False)
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

    def play_problems(self, rows, campaign):
        sheet = rows["triad"]
        problems = []
        for ability, label in ABILITY_LABELS.items():
            current, most = getattr(sheet, ability), getattr(sheet, f"{ability}_max")
            if current > most:
                problems.append(f"Current {label} ({current}) is above its maximum ({most})")
        return problems

    def common_roll_keys(self):
        return [(f"ability:{ability}", label) for ability, label in ABILITY_LABELS.items()]

    def party_summary(self, character):
        sheet = character.triad
        state = "dead" if sheet.dead else ("dying" if sheet.dying else "")
        return (
            f"Body {sheet.body}/{sheet.body_max} · Mind {sheet.mind}/{sheet.mind_max} · "
            f"Spirit {sheet.spirit}/{sheet.spirit_max}" + (f" · {state}" if state else "")
        )


system = TriadSystem()
