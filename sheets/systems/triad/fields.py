"""The Triad sheet as drawn and edited: its context, each editable field by path, an edit's side effects,
and the write policy's kind of every stored value."""

from __future__ import annotations

from rules import triad
from sheets.contract import EditableField, SheetSystem
from sheets.edits import EditPath
from sheets.policy import Kind

from .actions import RestForm, TraitAddForm
from .base import ABILITY_LABELS, OUT_OF_TIER_OPTION
from .models import HARD_TO_USED, TriadSheet, TriadTrait

#: The sheet's play state, each a checkbox the GM can set by hand (every change is in the history).
CONDITION_LABELS = {
    "stunned": "Stunned (disadvantage on the next turn)",
    "rage_advantage": "Berserker Rage: advantage on the next Body task",
    "grappled": "Grappled (disadvantage on Body tasks until broken free)",
    "restrained": "Restrained (cannot move; disadvantage on Body tasks)",
    "prone": "Prone (a move action to stand up)",
    "disarmed": "Disarmed (punches and kicks: Light damage)",
    "dead": "Dead",
    HARD_TO_USED[triad.BODY]: "Hard To Kill used (ready again at full Body)",
    HARD_TO_USED[triad.MIND]: "Hard To Confuse used (ready again at full Mind)",
    HARD_TO_USED[triad.SPIRIT]: "Hard To Unnerve used (ready again at full Spirit)",
}
#: The conditions an attack may leave instead of damage (Triad l.125), and the GM's ropes (l.63, l.100).
CONDITIONS = ("grappled", "restrained", "prone", "disarmed")

# The tier, the maxima and the traits are the build (the GM's after creation: Triad has no XP).
VALUE_KINDS = {
    TriadSheet: {
        **dict.fromkeys(("tier", *(f"{a}_max" for a in triad.ABILITIES)), Kind.BUILD),
        **dict.fromkeys(triad.ABILITIES, Kind.PLAY),
        **dict.fromkeys(("stunned", "rage_advantage", *HARD_TO_USED.values()), Kind.PLAY),
        **dict.fromkeys(CONDITIONS, Kind.PLAY),
        "dead": Kind.GM,
        "armor": Kind.KIT,
        "weapon": Kind.KIT,
    },
    TriadTrait: dict.fromkeys(("kind", "name", "description", "adv", "ability", "custom"), Kind.BUILD),
}


def _out_of_tier_allowed(character) -> bool:
    return bool(character.campaign.options.get(OUT_OF_TIER_OPTION))


def _ready_at_full(sheet, ability: str) -> None:
    """Back to full by hand (the GM's healing, a correction): the Hard To ... trait is ready again."""
    if getattr(sheet, ability) == getattr(sheet, f"{ability}_max"):
        setattr(sheet, HARD_TO_USED[ability], False)


def _build(sheet, traits) -> triad.Build:
    """The sheet's maxima and traits checked against its tier, problems listed rather than raised."""
    listed = [t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT and not t.custom]
    return triad.validate_character(
        tier=sheet.tier or None,
        body=sheet.body_max,
        mind=sheet.mind_max,
        spirit=sheet.spirit_max,
        traits=listed,
        custom_traits=[t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT and t.custom],
        powers=[t.name for t in traits if t.kind == TriadTrait.Kind.POWER],
        allow_out_of_tier=True,
    )


class TriadFields(SheetSystem):
    """The sheet: what its template draws, and the fields a player or the GM edits in place."""

    def context(self, character):
        sheet = character.triad
        traits = list(character.triad_traits.all())
        build_points = sheet.body_max + sheet.mind_max + sheet.spirit_max
        build = _build(sheet, traits)
        return {
            "sheet": sheet,
            "abilities": [self.field(character, a) for a in triad.ABILITIES],
            "maxima": [self.field(character, f"{a}_max") for a in triad.ABILITIES],
            "traits": [t for t in traits if t.kind == TriadTrait.Kind.TRAIT],
            "powers": [t for t in traits if t.kind == TriadTrait.Kind.POWER],
            "tier": triad.TIERS.get(sheet.tier),
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
            "crawl_feet": triad.CRAWL_FEET,
        }

    @staticmethod
    def _condition_paths(traits) -> list[str]:
        """The play state a GM may need to set by hand; a Hard To ... flag only with its trait."""
        names = {t.name for t in traits if t.kind == TriadTrait.Kind.TRAIT}
        return ["stunned", *CONDITIONS, "rage_advantage", "dead"] + [
            HARD_TO_USED[a] for a, trait in triad.HARD_TO.items() if trait in names
        ]

    def _ability_field(self, character, path, ability):
        sheet = character.triad
        return EditableField(
            path,
            ABILITY_LABELS[ability],
            getattr(sheet, ability),
            min=0,
            max=getattr(sheet, f"{ability}_max"),
            kind=self.kind_of(TriadSheet, ability),
        )

    def _save_ability(self, character, value, ability):
        sheet = character.triad
        setattr(sheet, ability, value)
        _ready_at_full(sheet, ability)
        sheet.save()

    def _maximum_field(self, character, path, ability):
        return EditableField(
            path,
            f"{ABILITY_LABELS[ability]} maximum",
            getattr(character.triad, f"{ability}_max"),
            min=triad.ABILITY_MIN,
            max=triad.ABILITY_MAX,
            kind=self.kind_of(TriadSheet, f"{ability}_max"),
        )

    def _save_maximum(self, character, value, ability):
        sheet = character.triad
        setattr(sheet, f"{ability}_max", value)
        # Lowering a maximum drags the current score down with it; raising it leaves it alone.
        setattr(sheet, ability, min(getattr(sheet, ability), value))
        _ready_at_full(sheet, ability)
        sheet.save()

    def _condition_field(self, character, path, attribute):
        # What the fight decided is play state (death the GM's alone), not the player's to wish away.
        return EditableField(
            path,
            CONDITION_LABELS[attribute],
            getattr(character.triad, attribute),
            input_type="checkbox",
            kind=self.kind_of(TriadSheet, attribute),
        )

    def _tier_field(self, character, path):
        sheet = character.triad
        choices = [(k, t.name) for k, t in triad.TIERS.items()]
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

    def _save_tier(self, character, value):
        character.triad.tier = value
        character.triad.save()

    def _gear_field(self, character, path, attribute):
        return EditableField(
            path,
            attribute.title(),
            getattr(character.triad, attribute),
            input_type="select",
            choices=tuple(TriadSheet._meta.get_field(attribute).choices),
            kind=self.kind_of(TriadSheet, attribute),
        )

    def _save_on_sheet(self, character, value, attribute):
        setattr(character.triad, attribute, value)
        character.triad.save()

    # Each path's field and save are the methods above, called with the system as their self.
    edit_paths = (
        EditPath("<ability>", values={"ability": triad.ABILITIES}, field=_ability_field, save=_save_ability),
        EditPath(
            "<ability>_max", values={"ability": triad.ABILITIES}, field=_maximum_field, save=_save_maximum
        ),
        EditPath(
            "<attribute>", values={"attribute": CONDITION_LABELS}, field=_condition_field, save=_save_on_sheet
        ),
        EditPath("tier", field=_tier_field, save=_save_tier),
        EditPath(
            "<attribute>", values={"attribute": ("armor", "weapon")}, field=_gear_field, save=_save_on_sheet
        ),
    )
