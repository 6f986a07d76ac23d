"""Five by Five combatants: what each can roll (descriptors as an action uses them), what it has (HP,
gear, dodges, its doubles token), how one action's changes are saved, and the forms of the actions.

Shared by the encounter's rules (``combat.py``) and the sheet's healing check (``healing.py``); the
readings these follow are at the top of ``combat.py``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from django import forms

from campaigns.forms import WholeNumberField
from rules import fivebyfive
from sheets.combat import EncounterError, is_npc
from sheets.contract import Die
from sheets.history import load_sheet_rows_of
from sheets.services import character_change

from .fields import OPTION_ASPECTS

ATTACK = fivebyfive.ExclusiveAction.ATTACK
DODGE = fivebyfive.ExclusiveAction.DODGE
HEALING = fivebyfive.ExclusiveAction.HEALING
STEAL = fivebyfive.ExclusiveAction.STEAL_INITIATIVE
UNTRAINED_KEY = "untrained"
MAX_NPC_DESCRIPTORS = 8
WEAPON_CHOICES = [(w.db, f"{w.name} (DB {w.db})") for w in fivebyfive.WEAPONS]
ARMOR_CHOICES = [(a.av, f"{a.name} (AV {a.av})") for a in fivebyfive.ARMOR]
#: The aspect each action is based on unless the GM names another (a reading: see the docstring).
DEFAULT_ASPECT = {
    ATTACK: fivebyfive.Aspect.AGILITY,
    DODGE: fivebyfive.Aspect.AGILITY,
    HEALING: fivebyfive.Aspect.COGNITION,
    STEAL: fivebyfive.Aspect.COGNITION,
}
ASPECT_CHOICES = [("", "None named (no shift)")] + [
    (a.value, a.value.capitalize()) for a in fivebyfive.Aspect
]
DESCRIPTOR_ITEM = re.compile(r"^(?P<name>.+?)\s+(?P<value>[+-]?\d+)$")


def parse_descriptors(text: str) -> dict[str, int]:
    """'Brute 6, Sneaky 4' -> {'Brute': 6, 'Sneaky': 4}, each value on the ladder."""
    descriptors: dict[str, int] = {}
    for item in (part.strip() for part in (text or "").split(",")):
        if not item:
            continue
        match = DESCRIPTOR_ITEM.match(" ".join(item.split()))
        if match is None:
            raise forms.ValidationError(f"'{item}': write a name then a value, like 'Brute 6'.")
        name, value = match["name"], int(match["value"])
        if value not in fivebyfive.RANKS:
            ladder = ", ".join(str(r) for r in fivebyfive.RANKS)
            raise forms.ValidationError(f"{name}: {value} is not on the ladder ({ladder}).")
        if len(name) > fivebyfive.NAME_MAX_LENGTH:
            raise forms.ValidationError(f"Keep descriptor names to {fivebyfive.NAME_MAX_LENGTH} characters.")
        if name.casefold() in (n.casefold() for n in descriptors):
            raise forms.ValidationError(f"'{name}' is listed twice.")
        descriptors[name] = value
    if not descriptors:
        raise forms.ValidationError("Give it at least one descriptor, like 'Brute 6'.")
    if len(descriptors) > MAX_NPC_DESCRIPTORS:
        raise forms.ValidationError(f"A quick NPC has at most {MAX_NPC_DESCRIPTORS} descriptors.")
    return descriptors


class FiveByFiveNpcForm(forms.Form):
    descriptors = forms.CharField(
        max_length=400,
        initial="Brute 6, Sneaky 4",
        help_text="Name and value on the ladder, separated by commas; its best one is used by default.",
    )
    hp = WholeNumberField(min_value=1, max_value=99, initial=12, label="HP")
    weapon_db = forms.TypedChoiceField(choices=WEAPON_CHOICES, coerce=int, initial=2, label="Weapon")
    armor_av = forms.TypedChoiceField(choices=ARMOR_CHOICES, coerce=int, initial=-1, label="Armor")
    shield = forms.BooleanField(required=False, label="Shield or off-hand dagger (two dodges a round)")

    def clean_descriptors(self):
        return parse_descriptors(self.cleaned_data["descriptors"])


STEAL_EXCLUSIVE, STEAL_BEST = "exclusive", "best"


class FiveByFiveStartForm(forms.Form):
    steal_with = forms.ChoiceField(
        choices=[
            (STEAL_EXCLUSIVE, "Their steal-initiative descriptor (else untrained)"),
            (STEAL_BEST, "Their best descriptor"),
        ],
        initial=STEAL_EXCLUSIVE,
        label="Players steal initiative with",
    )


# ----- what a combatant can roll -------------------------------------------------------------------


@dataclass(frozen=True)
class Use:
    """A descriptor (or untrained) as a roll uses it: its value and the shifts it always carries."""

    key: str
    name: str
    value: int
    steps: int = 0  # advanced -2 and the aspect's +/-1, summed
    exclusive: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} {self.value}"

    @property
    def strength(self) -> int:
        """How good a roll it makes, to pick the best (no chance at all sorts last)."""
        target = fivebyfive.shift(self.value, self.steps)
        return -99 if target is None else target


UNTRAINED = Use(UNTRAINED_KEY, "Untrained", fivebyfive.UNTRAINED)


def uses_of(combatant) -> list[Use]:
    if combatant.character is None:
        named = [Use(name, name, value) for name, value in combatant.stats["descriptors"].items()]
    else:
        # Read once per character and kept on it: the offered forms and the action itself all ask.
        load_sheet_rows_of(combatant.character, "descriptors")
        named = [
            Use(
                str(row.pk),
                row.name,
                row.value,
                fivebyfive.total_shift(advanced=row.advanced),
                row.exclusive_action,
            )
            for row in combatant.character.descriptors.all()
        ]
    return named + [UNTRAINED]


def serves(use: Use, action: fivebyfive.ExclusiveAction) -> bool:
    """Whether ``use`` may be rolled for ``action``: untied, or tied to this very action."""
    return use.exclusive in ("", action.value)


def usable_uses(combatant, action: fivebyfive.ExclusiveAction) -> list[Use]:
    return [u for u in uses_of(combatant) if serves(u, action)]


def auto_use(combatant, action: fivebyfive.ExclusiveAction) -> Use:
    """The descriptor a combatant rolls for ``action`` unless the GM picks another."""
    uses = uses_of(combatant)
    if combatant.character is not None:
        uses = [u for u in uses if u.exclusive == action.value] or [UNTRAINED]
    return max(uses, key=lambda u: u.strength)


def pick_use(combatant, key: str, action: fivebyfive.ExclusiveAction) -> Use:
    if not key:
        return auto_use(combatant, action)
    use = next((u for u in uses_of(combatant) if u.key == key), None)
    if use is None:
        raise EncounterError(f"{combatant.name} has no such descriptor.")
    if not serves(use, action):
        raise EncounterError(
            f"{use.name} is {combatant.name}'s {use.exclusive} descriptor; a descriptor tied to one "
            f"exclusive action cannot serve another ({action.value})."
        )
    return use


def use_choices(combatant, action: fivebyfive.ExclusiveAction) -> list[tuple[str, str]]:
    auto = auto_use(combatant, action)
    return [("", f"{auto.label} (auto)")] + [(u.key, u.label) for u in usable_uses(combatant, action)]


def aspect_steps(combatant, name: str) -> int:
    """The rank shift of the aspect ``name`` for this combatant (a quick NPC's aspects are Average)."""
    if combatant.character is None or not name:
        return 0
    return int(fivebyfive.AspectRating(getattr(sheet_of(combatant), name)))


def uses_aspects(encounter) -> bool:
    return bool((encounter.campaign.options or {}).get(OPTION_ASPECTS))


def aspect_field(action: fivebyfive.ExclusiveAction, label: str) -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=ASPECT_CHOICES, required=False, initial=DEFAULT_ASPECT[action].value, label=label
    )


# ----- what a combatant has ------------------------------------------------------------------------


def sheet_of(combatant):
    return combatant.character.fivebyfive


def hp_of(combatant) -> tuple[int, int]:
    if combatant.character is None:
        return combatant.stats["hp"], combatant.stats["hp_max"]
    sheet = sheet_of(combatant)
    return sheet.hp, fivebyfive.hp_points(sheet.hp_rank)


def condition_of(combatant) -> str:
    return fivebyfive.condition(hp_of(combatant)[0])


def gear_of(combatant) -> tuple[int, int, bool, bool]:
    """(weapon DB, armor AV, shield, off-hand dagger)."""
    if combatant.character is None:
        stats = combatant.stats
        return stats["db"], stats["av"], stats.get("shield", False), False
    sheet = sheet_of(combatant)
    return sheet.weapon_db, sheet.armor_av, sheet.shield, sheet.offhand_dagger


def dodges_of(combatant) -> tuple[int, int]:
    """(dodges used this round, dodges a round)."""
    _, _, shield, dagger = gear_of(combatant)
    return combatant.state.get("dodges", 0), fivebyfive.dodges_per_round(shield=shield, offhand_dagger=dagger)


def read_task(task: fivebyfive.TaskRoll) -> str:
    """The faces of a 5x5 check as a player reads them."""
    if task.target is None:
        return "no chance after the shifts: nothing rolled"
    faces = " × ".join(str(f) for f in task.faces)
    if task.trump:
        return f"{faces}: trump"
    if len(task.faces) == 2:
        return f"{faces} = {task.faces[0] * task.faces[1]} vs {min(task.target, fivebyfive.MAX_TARGET)}"
    return f"{faces}: a poor roll needs a trump"


def task_dice(task: fivebyfive.TaskRoll) -> tuple[Die, ...]:
    trump_face = fivebyfive.TOKEN_TRUMP_FACE if task.token_spent else fivebyfive.TRUMP_FACE
    return tuple(Die(face, trump=face >= trump_face, sides=6) for face in task.faces)


def chain_dice(faces, *, token: bool) -> tuple[Die, ...]:
    trump_face = fivebyfive.TOKEN_TRUMP_FACE if token else fivebyfive.TRUMP_FACE
    return tuple(Die(f, trump=f >= trump_face, exploded=f >= trump_face, sides=6) for f in faces)


def shifted(use: Use, shift: int) -> str:
    return use.label + (f" (shift {shift:+d})" if shift else "")


class Changes:
    """What one action does to sheets and quick NPCs, saved together at the end.

    Each sheet gets one history record per action, so undo puts back the action as a whole.
    """

    def __init__(self, encounter):
        self.encounter = encounter
        self.sheets: dict[int, tuple[Any, set[str]]] = {}

    def holds_token(self, combatant) -> bool:
        if combatant.character is None:
            return bool(self.encounter.state.get("gm_token"))
        return sheet_of(combatant).doubles_token

    def _touch(self, combatant, field: str, value) -> None:
        sheet = sheet_of(combatant)
        setattr(sheet, field, value)
        self.sheets.setdefault(combatant.character.pk, (combatant, set()))[1].add(field)

    def set_token(self, combatant, held: bool) -> None:
        if combatant.character is None:
            self.encounter.state = {**self.encounter.state, "gm_token": held}
        elif sheet_of(combatant).doubles_token != held:
            self._touch(combatant, "doubles_token", held)

    def set_hp(self, combatant, hp: int) -> None:
        if combatant.character is None:
            combatant.stats = {**combatant.stats, "hp": hp}
        else:
            self._touch(combatant, "hp", hp)
        combatant.out = fivebyfive.condition(hp) != "healthy"

    def save(self, author, reasons: dict[int, str]) -> None:
        for character_pk, (combatant, fields) in self.sheets.items():
            sheet = sheet_of(combatant)
            values = {field: getattr(sheet, field) for field in fields}
            # character_change snapshots the database, so the values are written inside it.
            with character_change(character=combatant.character, author=author, reason=reasons[character_pk]):
                type(sheet).objects.filter(pk=sheet.pk).update(**values)


def tokens_said(who: str, *, spent: bool, earned: bool) -> list[str]:
    notes = []
    if spent:
        notes.append(f"{who} spends a doubles token")
    if earned:
        notes.append(f"{who} earns a doubles token")
    return notes


def condition_note(combatant, before: int, after: int) -> list[str]:
    notes = [f"{combatant.name}: HP {before} -> {after}"]
    old, new = fivebyfive.condition(before), fivebyfive.condition(after)
    if new != old:
        notes.append(f"{combatant.name} is {new}")
    return notes


def shown_condition(combatant, before: int, after: int) -> list[str]:
    """condition_note as players read it: an NPC's HP is the GM's, its condition is not."""
    notes = condition_note(combatant, before, after)
    return notes[1:] if is_npc(combatant) else notes


# ----- action forms --------------------------------------------------------------------------------

TOKEN_ATTACK = [("", "No token"), ("hit", "Token on the hit"), ("damage", "Token on the damage")]
TOKEN_HEAL = [("", "No token"), ("check", "Token on the check"), ("die", "Token on the healing die")]


def attack_form_class(
    actor, targets, *, holds_token: bool = False, aspects: bool = False
) -> type[forms.Form]:
    """The attack's inputs: the attacker's descriptor, and the dodge each possible target may roll."""
    token_label = "Attacker's token (holds one)" if holds_token else "Attacker's token (none held)"

    @functools.cache
    def dodge_choices() -> list[Any]:
        # Each target's descriptors, read when the form is drawn or a pick is checked: a player's
        # attack (its dodge is the GM's call, sent blank) never reads them.
        choices: list[Any] = [("", "Auto (its dodge descriptor)")]
        for target in targets:
            auto = auto_use(target, DODGE)
            picks = [
                (f"{target.pk}:{u.key}", f"{target.name}: {u.label}" + (" (auto)" if u == auto else ""))
                for u in usable_uses(target, DODGE)
            ]
            choices.append((target.name, picks))
        return choices

    class FiveByFiveAttackForm(forms.Form):
        descriptor = forms.ChoiceField(
            choices=use_choices(actor, ATTACK), required=False, label="To hit with"
        )
        shift = WholeNumberField(min_value=-4, max_value=4, initial=0, required=False, label="Rank shift")
        spend = forms.ChoiceField(choices=TOKEN_ATTACK, required=False, label=token_label)
        dodge = forms.BooleanField(required=False, initial=True, label="Target dodges")
        dodge_with = forms.ChoiceField(choices=dodge_choices, initial="", required=False, label="Dodge with")
        dodge_token = forms.BooleanField(required=False, label="Dodge spends a token")
        if aspects:
            aspect = aspect_field(ATTACK, "Attack based on aspect")
            dodge_aspect = aspect_field(DODGE, "Dodge based on aspect")

    return FiveByFiveAttackForm


NO_DODGE = "none"


def defence_form_class(defender, *, holds_token: bool = False, aspects: bool = False) -> type[forms.Form]:
    """What a hit player character's player declares (Five by Five l.500-503): dodge, with which
    descriptor, spending their token, based on which aspect; or no dodge."""
    auto = auto_use(defender, DODGE)
    choices = [
        (u.key, f"Dodge with {u.label}" + (" (auto)" if u == auto else ""))
        for u in usable_uses(defender, DODGE)
    ] + [(NO_DODGE, "No dodge: take the damage")]
    token_label = "Spend a doubles token" + (" (one held)" if holds_token else " (none held)")

    class FiveByFiveDefenceForm(forms.Form):
        dodge_with = forms.ChoiceField(choices=choices, initial=auto.key, label="Defence")
        dodge_token = forms.BooleanField(required=False, label=token_label)
        if aspects:
            dodge_aspect = aspect_field(DODGE, "Dodge based on aspect")

    return FiveByFiveDefenceForm


def heal_form_class(actor, *, holds_token: bool = False, aspects: bool = False) -> type[forms.Form]:
    token_label = "Healer's token (holds one)" if holds_token else "Healer's token (none held)"

    class FiveByFiveHealForm(forms.Form):
        descriptor = forms.ChoiceField(choices=use_choices(actor, HEALING), required=False, label="Heal with")
        shift = WholeNumberField(min_value=-4, max_value=4, initial=0, required=False, label="Rank shift")
        spend = forms.ChoiceField(choices=TOKEN_HEAL, required=False, label=token_label)
        if aspects:
            aspect = aspect_field(HEALING, "Healing based on aspect")

    return FiveByFiveHealForm
