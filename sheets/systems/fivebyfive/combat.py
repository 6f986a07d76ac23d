"""Five by Five 2.5 fights: players try to steal initiative, then attack (to hit, the target's dodge,
damage with weapon DB, armor AV and trumps) or heal; HP, conditions and doubles tokens land on sheets.

Quick NPCs carry a few descriptors ("Brute 6, Sneaky 4"), HP, a weapon's DB, an armor's AV and a shield.

Readings taken (where the seed leaves room):

- Stealing initiative happens once, when the fight starts ("At the beginning of combat"); the order it
  gives holds for every round. Every player character able to act rolls; the GM's side never steals.
- For an exclusive action (attack, dodge, healing, steal initiative) a sheet rolls its best descriptor
  tied to that action, else untrained (0): the seed's exclusive actions are what such descriptors are
  for. A descriptor tied to one exclusive action never serves another ("A Descriptor cannot be defined
  that improves the ability of more than one Exclusive Action"): the forms leave it out and a posted
  one is refused. For attack, heal and dodge the GM may pick any descriptor not tied elsewhere; for
  stealing initiative the GM may switch, when starting, to every player's best such descriptor.
- Aspects (when the campaign plays them): each action names the aspect it is based on, and that
  aspect's rating shifts the roll. The forms default attack and dodge to Agility and healing to
  Cognition; the GM may name another (Brawn for a shove). Stealing initiative is based on Cognition
  (alertness, the book's own example of a steal-initiative descriptor). Quick NPCs are Average.
- A quick NPC's descriptors carry no exclusive tag (the GM typed only what matters in this fight), so
  its automatic choice is its best descriptor.
- One action a turn: an attack or a heal ("Next turn" passes). A round ends when the order wraps, and
  dodges come back then.
- A dodge is rolled only against a hit and is used up only when rolled. Only a target above 0 HP can
  dodge. Ticking "target dodges" with no dodge left goes ahead without one and says so.
- Doubles tokens: a character with a sheet keeps its token on the sheet; quick NPCs share the GM's one
  token, kept on the encounter. A token is spent only when the action's form says so (refused when
  none is held); doubles on any 5x5 check here (initiative, to hit, dodge, healing) earn one.
- At 0 HP or below (unconscious, dying, dead) a combatant takes no turns; healed above 0 it is back.
  Attacks may target any foe not dead; heals any wounded, living member of the healer's side (itself
  included). The dying clock (HP lost by the minute) is not run by the encounter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django import forms
from django.db.models import prefetch_related_objects

from campaigns.forms import WholeNumberField
from rules import fivebyfive as rules
from rules.dice import Outcome
from sheets.combat import Action, CombatRules, Defence, EncounterError, RollResult, Side
from sheets.contract import Die
from sheets.services import character_change

from .sheet import OPTION_ASPECTS

ATTACK = rules.ExclusiveAction.ATTACK
DODGE = rules.ExclusiveAction.DODGE
HEALING = rules.ExclusiveAction.HEALING
STEAL = rules.ExclusiveAction.STEAL_INITIATIVE
UNTRAINED_KEY = "untrained"
MAX_NPC_DESCRIPTORS = 8
WEAPON_CHOICES = [(w.db, f"{w.name} (DB {w.db})") for w in rules.WEAPONS]
ARMOR_CHOICES = [(a.av, f"{a.name} (AV {a.av})") for a in rules.ARMOR]
#: The aspect each action is based on unless the GM names another (a reading: see the docstring).
DEFAULT_ASPECT = {
    ATTACK: rules.Aspect.AGILITY,
    DODGE: rules.Aspect.AGILITY,
    HEALING: rules.Aspect.COGNITION,
    STEAL: rules.Aspect.COGNITION,
}
ASPECT_CHOICES = [("", "None named (no shift)")] + [(a.value, a.value.capitalize()) for a in rules.Aspect]
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
        if value not in rules.RANKS:
            ladder = ", ".join(str(r) for r in rules.RANKS)
            raise forms.ValidationError(f"{name}: {value} is not on the ladder ({ladder}).")
        if len(name) > rules.NAME_MAX_LENGTH:
            raise forms.ValidationError(f"Keep descriptor names to {rules.NAME_MAX_LENGTH} characters.")
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
        target = rules.shift(self.value, self.steps)
        return -99 if target is None else target


UNTRAINED = Use(UNTRAINED_KEY, "Untrained", rules.UNTRAINED)


def _uses(combatant) -> list[Use]:
    if combatant.character is None:
        named = [Use(name, name, value) for name, value in combatant.stats["descriptors"].items()]
    else:
        # Read once per character and kept on it: the offered forms and the action itself all ask.
        prefetch_related_objects([combatant.character], "descriptors")
        named = [
            Use(
                str(row.pk),
                row.name,
                row.value,
                rules.total_shift(advanced=row.advanced),
                row.exclusive_action,
            )
            for row in combatant.character.descriptors.all()
        ]
    return named + [UNTRAINED]


def _serves(use: Use, action: rules.ExclusiveAction) -> bool:
    """Whether ``use`` may be rolled for ``action``: untied, or tied to this very action."""
    return use.exclusive in ("", action.value)


def _usable(combatant, action: rules.ExclusiveAction) -> list[Use]:
    return [u for u in _uses(combatant) if _serves(u, action)]


def _auto(combatant, action: rules.ExclusiveAction) -> Use:
    """The descriptor a combatant rolls for ``action`` unless the GM picks another."""
    uses = _uses(combatant)
    if combatant.character is not None:
        uses = [u for u in uses if u.exclusive == action.value] or [UNTRAINED]
    return max(uses, key=lambda u: u.strength)


def _pick(combatant, key: str, action: rules.ExclusiveAction) -> Use:
    if not key:
        return _auto(combatant, action)
    use = next((u for u in _uses(combatant) if u.key == key), None)
    if use is None:
        raise EncounterError(f"{combatant.name} has no such descriptor.")
    if not _serves(use, action):
        raise EncounterError(
            f"{use.name} is {combatant.name}'s {use.exclusive} descriptor; a descriptor tied to one "
            f"exclusive action cannot serve another ({action.value})."
        )
    return use


def _use_choices(combatant, action: rules.ExclusiveAction) -> list[tuple[str, str]]:
    auto = _auto(combatant, action)
    return [("", f"{auto.label} (auto)")] + [(u.key, u.label) for u in _usable(combatant, action)]


def _aspect_steps(combatant, name: str) -> int:
    """The rank shift of the aspect ``name`` for this combatant (a quick NPC's aspects are Average)."""
    if combatant.character is None or not name:
        return 0
    return int(rules.AspectRating(getattr(_sheet(combatant), name)))


def _uses_aspects(encounter) -> bool:
    return bool((encounter.campaign.options or {}).get(OPTION_ASPECTS))


def _aspect_field(action: rules.ExclusiveAction, label: str) -> forms.ChoiceField:
    return forms.ChoiceField(
        choices=ASPECT_CHOICES, required=False, initial=DEFAULT_ASPECT[action].value, label=label
    )


# ----- what a combatant has ------------------------------------------------------------------------


def _sheet(combatant):
    return combatant.character.fivebyfive


def _hp(combatant) -> tuple[int, int]:
    if combatant.character is None:
        return combatant.stats["hp"], combatant.stats["hp_max"]
    sheet = _sheet(combatant)
    return sheet.hp, rules.hp_points(sheet.hp_rank)


def _condition(combatant) -> str:
    return rules.condition(_hp(combatant)[0])


def _gear(combatant) -> tuple[int, int, bool, bool]:
    """(weapon DB, armor AV, shield, off-hand dagger)."""
    if combatant.character is None:
        stats = combatant.stats
        return stats["db"], stats["av"], stats.get("shield", False), False
    sheet = _sheet(combatant)
    return sheet.weapon_db, sheet.armor_av, sheet.shield, sheet.offhand_dagger


def _dodges(combatant) -> tuple[int, int]:
    """(dodges used this round, dodges a round)."""
    _, _, shield, dagger = _gear(combatant)
    return combatant.state.get("dodges", 0), rules.dodges_per_round(shield=shield, offhand_dagger=dagger)


def _read(task: rules.TaskRoll) -> str:
    """The faces of a 5x5 check as a player reads them."""
    if task.target is None:
        return "no chance after the shifts: nothing rolled"
    faces = " × ".join(str(f) for f in task.faces)
    if task.trump:
        return f"{faces}: trump"
    if len(task.faces) == 2:
        return f"{faces} = {task.faces[0] * task.faces[1]} vs {min(task.target, rules.MAX_TARGET)}"
    return f"{faces}: a poor roll needs a trump"


def _task_dice(task: rules.TaskRoll) -> tuple[Die, ...]:
    trump_face = rules.TOKEN_TRUMP_FACE if task.token_spent else rules.TRUMP_FACE
    return tuple(Die(face, trump=face >= trump_face, sides=6) for face in task.faces)


def _chain_dice(faces, *, token: bool) -> tuple[Die, ...]:
    trump_face = rules.TOKEN_TRUMP_FACE if token else rules.TRUMP_FACE
    return tuple(Die(f, trump=f >= trump_face, exploded=f >= trump_face, sides=6) for f in faces)


def _shifted(use: Use, shift: int) -> str:
    return use.label + (f" (shift {shift:+d})" if shift else "")


class _Changes:
    """What one action does to sheets and quick NPCs, saved together at the end.

    Each sheet gets one history record per action, so undo puts back the action as a whole.
    """

    def __init__(self, encounter):
        self.encounter = encounter
        self.sheets: dict[int, tuple[Any, set[str]]] = {}

    def holds_token(self, combatant) -> bool:
        if combatant.character is None:
            return bool(self.encounter.state.get("gm_token"))
        return _sheet(combatant).doubles_token

    def _touch(self, combatant, field: str, value) -> None:
        sheet = _sheet(combatant)
        setattr(sheet, field, value)
        self.sheets.setdefault(combatant.character.pk, (combatant, set()))[1].add(field)

    def set_token(self, combatant, held: bool) -> None:
        if combatant.character is None:
            self.encounter.state = {**self.encounter.state, "gm_token": held}
        elif _sheet(combatant).doubles_token != held:
            self._touch(combatant, "doubles_token", held)

    def set_hp(self, combatant, hp: int) -> None:
        if combatant.character is None:
            combatant.stats = {**combatant.stats, "hp": hp}
        else:
            self._touch(combatant, "hp", hp)
        combatant.out = rules.condition(hp) != "healthy"

    def save(self, author, reasons: dict[int, str]) -> None:
        for character_pk, (combatant, fields) in self.sheets.items():
            sheet = _sheet(combatant)
            values = {field: getattr(sheet, field) for field in fields}
            # character_change snapshots the database, so the values are written inside it.
            with character_change(character=combatant.character, author=author, reason=reasons[character_pk]):
                type(sheet).objects.filter(pk=sheet.pk).update(**values)


def _token_notes(who: str, *, spent: bool, earned: bool) -> list[str]:
    notes = []
    if spent:
        notes.append(f"{who} spends a doubles token")
    if earned:
        notes.append(f"{who} earns a doubles token")
    return notes


def _condition_note(combatant, before: int, after: int) -> list[str]:
    notes = [f"{combatant.name}: HP {before} -> {after}"]
    old, new = rules.condition(before), rules.condition(after)
    if new != old:
        notes.append(f"{combatant.name} is {new}")
    return notes


# ----- action forms --------------------------------------------------------------------------------

TOKEN_ATTACK = [("", "No token"), ("hit", "Token on the hit"), ("damage", "Token on the damage")]
TOKEN_HEAL = [("", "No token"), ("check", "Token on the check"), ("die", "Token on the healing die")]


def attack_form_class(
    actor, targets, *, holds_token: bool = False, aspects: bool = False
) -> type[forms.Form]:
    """The attack's inputs: the attacker's descriptor, and the dodge each possible target may roll."""
    token_label = "Attacker's token (holds one)" if holds_token else "Attacker's token (none held)"
    dodge_choices: list[Any] = [("", "Auto (its dodge descriptor)")]
    for target in targets:
        auto = _auto(target, DODGE)
        dodge_choices.append(
            (
                target.name,
                [
                    (f"{target.pk}:{u.key}", f"{target.name}: {u.label}" + (" (auto)" if u == auto else ""))
                    for u in _usable(target, DODGE)
                ],
            )
        )

    class FiveByFiveAttackForm(forms.Form):
        descriptor = forms.ChoiceField(
            choices=_use_choices(actor, ATTACK), required=False, label="To hit with"
        )
        shift = WholeNumberField(min_value=-4, max_value=4, initial=0, required=False, label="Rank shift")
        spend = forms.ChoiceField(choices=TOKEN_ATTACK, required=False, label=token_label)
        dodge = forms.BooleanField(required=False, initial=True, label="Target dodges")
        dodge_with = forms.ChoiceField(choices=dodge_choices, required=False, label="Dodge with")
        dodge_token = forms.BooleanField(required=False, label="Dodge spends a token")
        if aspects:
            aspect = _aspect_field(ATTACK, "Attack based on aspect")
            dodge_aspect = _aspect_field(DODGE, "Dodge based on aspect")

    return FiveByFiveAttackForm


NO_DODGE = "none"


def defence_form_class(defender, *, holds_token: bool = False, aspects: bool = False) -> type[forms.Form]:
    """What a hit player character's player declares (Five by Five l.500-503): dodge, with which
    descriptor, spending their token, based on which aspect; or no dodge."""
    auto = _auto(defender, DODGE)
    choices = [
        (u.key, f"Dodge with {u.label}" + (" (auto)" if u == auto else "")) for u in _usable(defender, DODGE)
    ] + [(NO_DODGE, "No dodge: take the damage")]
    token_label = "Spend a doubles token" + (" (one held)" if holds_token else " (none held)")

    class FiveByFiveDefenceForm(forms.Form):
        dodge_with = forms.ChoiceField(choices=choices, initial=auto.key, label="Defence")
        dodge_token = forms.BooleanField(required=False, label=token_label)
        if aspects:
            dodge_aspect = _aspect_field(DODGE, "Dodge based on aspect")

    return FiveByFiveDefenceForm


def heal_form_class(actor, *, holds_token: bool = False, aspects: bool = False) -> type[forms.Form]:
    token_label = "Healer's token (holds one)" if holds_token else "Healer's token (none held)"

    class FiveByFiveHealForm(forms.Form):
        descriptor = forms.ChoiceField(
            choices=_use_choices(actor, HEALING), required=False, label="Heal with"
        )
        shift = WholeNumberField(min_value=-4, max_value=4, initial=0, required=False, label="Rank shift")
        spend = forms.ChoiceField(choices=TOKEN_HEAL, required=False, label=token_label)
        if aspects:
            aspect = _aspect_field(HEALING, "Healing based on aspect")

    return FiveByFiveHealForm


# ----- the rules -----------------------------------------------------------------------------------


class FiveByFiveCombat(CombatRules):
    key = "fivebyfive"
    npc_form_class = FiveByFiveNpcForm
    start_form_class = FiveByFiveStartForm

    def npc_stats(self, cleaned_data):
        return {
            "descriptors": cleaned_data["descriptors"],
            "hp": cleaned_data["hp"],
            "hp_max": cleaned_data["hp"],
            "db": cleaned_data["weapon_db"],
            "av": cleaned_data["armor_av"],
            "shield": bool(cleaned_data.get("shield")),
        }

    # ----- order ----------------------------------------------------------------------------------

    def start(self, encounter, combatants, roller):
        # The author of the sheet changes is the GM who started the fight.
        author = encounter.campaign.gm
        changes = _Changes(encounter)
        reasons: dict[int, str] = {}
        lines, stole = [], []
        steal_with = encounter.state.get("start", {}).get("steal_with", STEAL_EXCLUSIVE)
        players = [c for c in combatants if c.side == Side.PLAYERS]
        for combatant in players:
            combatant.state = {}
            if combatant.character is None or self.is_out(combatant):
                continue
            if steal_with == STEAL_BEST:
                use = max(_usable(combatant, STEAL), key=lambda u: u.strength)
            else:
                use = _auto(combatant, STEAL)
            held = changes.holds_token(combatant)
            aspect = DEFAULT_ASPECT[STEAL].value if _uses_aspects(encounter) else ""
            steps = use.steps + _aspect_steps(combatant, aspect)
            result = rules.roll_task(roller, use.value, steps=steps, holding_token=held)
            changes.set_token(combatant, result.token_held)
            if result.success:
                stole.append(str(combatant.pk))
                combatant.state["stole"] = True
            reasons[combatant.character.pk] = "Steal initiative"
            lines.append(
                RollResult(
                    label=f"{combatant.name} tries to steal initiative",
                    summary=f"{_shifted(use, steps - use.steps)}: {_read(result)}, "
                    + ("steals it" if result.success else "acts after the GM's side"),
                    dice=_task_dice(result),
                    outcome=result.outcome,
                    total=result.faces[0] * result.faces[1] if len(result.faces) == 2 else None,
                    chance=rules.chance(result.target),
                    changes=tuple(_token_notes(combatant.name, spent=False, earned=result.token_earned)),
                    character=combatant.character,
                )
            )
        order = rules.turn_order(
            players=[str(c.pk) for c in players],
            gm_side=[str(c.pk) for c in combatants if c.side == Side.GM],
            stole=stole,
        ).flat()
        for combatant in combatants:
            combatant.position = order.index(str(combatant.pk))
            combatant.initiative = None
            if combatant.side == Side.GM:
                combatant.state = {}
        combatants.sort(key=lambda c: c.position)
        changes.save(author, reasons)
        lines.append(RollResult(label="Turn order", summary=", ".join(c.name for c in combatants)))
        return lines

    def new_round(self, encounter, combatants):
        for combatant in combatants:
            combatant.state = {**combatant.state, "dodges": 0}
        return []

    def begin_turn(self, encounter, actor, author):
        actor.state = {**actor.state, "acted": False}
        return []

    # ----- a turn ---------------------------------------------------------------------------------

    def _foes(self, actor, combatants):
        return tuple(c for c in combatants if c.side != actor.side and _condition(c) != "dead")

    def _wounded_friends(self, actor, combatants):
        return tuple(
            c
            for c in combatants
            if c.side == actor.side and _condition(c) != "dead" and _hp(c)[0] < _hp(c)[1]
        )

    def actions(self, encounter, actor, combatants):
        if actor.state.get("acted"):
            return []
        foes = self._foes(actor, combatants)
        holds_token = _Changes(encounter).holds_token(actor)
        aspects = _uses_aspects(encounter)
        return [
            Action(
                "attack",
                "Attack",
                needs_target=True,
                form_class=attack_form_class(actor, foes, holds_token=holds_token, aspects=aspects),
                targets=foes,
                help="To hit, then the target may dodge (once a round, twice with a shield or off-hand "
                "dagger), then 1d6 + DB + the target's AV. A player's character hit declares its own "
                "dodge, unless the GM resolves at once with the dodge inputs here.",
                # The shift is the GM's ruling and the dodge is the target's own choice.
                gm_fields=("shift", "dodge", "dodge_with", "dodge_token", "dodge_aspect"),
                defender_chooses=True,
            ),
            Action(
                "heal",
                "Heal",
                needs_target=True,
                form_class=heal_form_class(actor, holds_token=holds_token, aspects=aspects),
                targets=self._wounded_friends(actor, combatants),
                help="A healing check: success restores 1d6 HP (trumps add 5), failure harms 1-2 HP.",
                gm_fields=("shift",),
            ),
        ]

    def act(self, encounter, actor, action, target, data, roller, author):
        if action == "attack":
            lines, _ = self._attack(encounter, actor, target, data, roller, author)
        else:
            lines = self._heal(encounter, actor, target, data, roller, author)
        actor.state = {**actor.state, "acted": True}
        return lines

    def open_defence(self, encounter, actor, action, target, data, roller, author):
        """The to-hit alone: on a hit the target's player declares the dodge (l.500-503, "declares after
        being the successful target of an attack"); a miss, or a target with no dodge, is done at once."""
        lines, waits = self._attack(encounter, actor, target, data, roller, author, ask=True)
        actor.state = {**actor.state, "acted": True}
        return lines, waits

    def defence(self, encounter, pending, attacker, defender):
        holds_token = _Changes(encounter).holds_token(defender)
        aspects = _uses_aspects(encounter)
        aspect = DEFAULT_ASPECT[DODGE].value if aspects else ""
        used, per_round = _dodges(defender)
        shift = _aspect_steps(defender, aspect)
        odds = tuple(
            (f"Dodge with {u.label}", rules.chance(rules.shift(u.value, u.steps + shift)))
            for u in _usable(defender, DODGE)
        )
        return Defence(
            prompt=f"{attacker.name} hits {defender.name}: dodge, or take the damage?",
            form_class=defence_form_class(defender, holds_token=holds_token, aspects=aspects),
            label="Defend",
            help=f"A dodge that succeeds negates the attack; {per_round - used} of {per_round} "
            f"dodge{'s' if per_round > 1 else ''} left this round. Damage: 1d6 + DB + your AV.",
            odds=odds,
        )

    def defence_chance(self, encounter, pending, attacker, defender, data):
        """The chance the declared dodge succeeds (None: no dodge, nothing rolled)."""
        if data.get("dodge_with", NO_DODGE) == NO_DODGE:
            return None
        use = _pick(defender, data["dodge_with"], DODGE)
        steps = use.steps + _aspect_steps(defender, data.get("dodge_aspect") or "")
        return rules.chance(rules.shift(use.value, steps), doubles_token=bool(data.get("dodge_token")))

    def defend(self, encounter, pending, attacker, defender, data, roller, author):
        changes = _Changes(encounter)
        dodge_use, no_dodge = None, self._no_dodge(defender)
        if data["dodge_with"] != NO_DODGE and not no_dodge:
            dodge_use = _pick(defender, data["dodge_with"], DODGE)
        dodge_token = bool(data.get("dodge_token")) and dodge_use is not None
        if dodge_token and not changes.holds_token(defender):
            raise EncounterError(f"{defender.name} holds no doubles token to spend on the dodge.")
        dodge_aspect = _aspect_steps(defender, data.get("dodge_aspect") or "")
        # The attacker's token waits for the damage it was named for (still held after the hit).
        damage_token = bool(pending.get("damage_token")) and changes.holds_token(attacker)
        reasons: dict[int, str] = {}
        lines = self._after_hit(
            attacker, defender, dodge_use, dodge_aspect, dodge_token, damage_token, roller, changes, reasons
        )
        changes.save(author, reasons)
        return lines

    @staticmethod
    def _no_dodge(target) -> str:
        """Why ``target`` cannot dodge now ("" when it can)."""
        _, _, shield, dagger = _gear(target)
        if _condition(target) != "healthy":
            return f"{target.name} is {_condition(target)} and cannot dodge"
        if not rules.can_dodge(_dodges(target)[0], shield=shield, offhand_dagger=dagger):
            return f"{target.name} has no dodge left this round"
        return ""

    def chance(self, encounter, actor, action, target, data):
        """To hit (an attack, before the target's dodge) or the healing check, as ``act`` rolls it."""
        if action not in ("attack", "heal"):
            return None
        exclusive, token_on = (ATTACK, "hit") if action == "attack" else (HEALING, "check")
        use = _pick(actor, data.get("descriptor") or "", exclusive)
        shift = (data.get("shift") or 0) + _aspect_steps(actor, data.get("aspect") or "")
        target_number = rules.shift(use.value, use.steps + shift)
        return rules.chance(target_number, doubles_token=data.get("spend") == token_on)

    def _attack(self, encounter, actor, target, data, roller, author, *, ask=False):
        """To hit, then (on a hit) the target's dodge and the damage. ``ask``: a hit the target can dodge
        stops after the to-hit, for its player to declare the dodge (``defend``); the second value is
        what that needs, or None when the attack is done."""
        if data.get("dodge_with") and not str(data["dodge_with"]).startswith(f"{target.pk}:"):
            raise EncounterError(
                f"That dodge is another combatant's: pick one of {target.name}'s, or leave it automatic."
            )
        options = data
        use = _pick(actor, options["descriptor"], ATTACK)
        shift = (options.get("shift") or 0) + _aspect_steps(actor, options.get("aspect") or "")
        changes = _Changes(encounter)
        attacker_token = changes.holds_token(actor)
        if options["spend"] and not attacker_token:
            raise EncounterError(f"{actor.name} holds no doubles token to spend.")
        no_dodge = self._no_dodge(target) if (ask or options["dodge"]) else ""
        dodge_use, dodge_aspect, dodge_token = None, 0, False
        if not ask and options["dodge"] and not no_dodge:
            key = options["dodge_with"].partition(":")[2] if options["dodge_with"] else ""
            dodge_use = _pick(target, key, DODGE)
            dodge_aspect = _aspect_steps(target, options.get("dodge_aspect") or "")
            dodge_token = bool(options["dodge_token"])
            if dodge_token and not changes.holds_token(target):
                raise EncounterError(f"{target.name} holds no doubles token to spend on the dodge.")
        # As rules.roll_attack rolls it: a token kept for the damage is still held through the hit.
        hit = rules.roll_task(
            roller,
            use.value,
            steps=use.steps + shift,
            doubles_token=options["spend"] == "hit",
            holding_token=attacker_token,
        )
        changes.set_token(actor, hit.token_held)
        hit_notes = _token_notes(actor.name, spent=hit.token_spent, earned=hit.token_earned)
        if no_dodge and hit.success:
            hit_notes.append(no_dodge)
        lines = [
            RollResult(
                label=f"{actor.name} attacks {target.name}",
                summary=f"{_shifted(use, shift)}: {_read(hit)}, " + ("hit" if hit.success else "miss"),
                dice=_task_dice(hit),
                outcome=hit.outcome,
                total=hit.faces[0] * hit.faces[1] if len(hit.faces) == 2 else None,
                chance=rules.chance(hit.target, doubles_token=hit.token_spent),
                changes=tuple(hit_notes),
                character=actor.character,
            )
        ]
        reasons = {}
        if actor.character is not None:
            reasons[actor.character.pk] = f"Attack on {target.name}"
        waits = None
        if hit.success and ask and not no_dodge:
            waits = {"damage_token": options["spend"] == "damage"}
        elif hit.success:
            lines += self._after_hit(
                actor,
                target,
                dodge_use,
                dodge_aspect,
                dodge_token,
                options["spend"] == "damage",
                roller,
                changes,
                reasons,
            )
        changes.save(author, reasons)
        return lines, waits

    def _after_hit(
        self, actor, target, dodge_use, dodge_aspect, dodge_token, damage_token, roller, changes, reasons
    ) -> list[RollResult]:
        """The hit target's dodge (``dodge_use`` None: none), then the damage unless it dodged."""
        lines = []
        if dodge_use is not None:
            dodge = rules.roll_task(
                roller,
                dodge_use.value,
                steps=dodge_use.steps + dodge_aspect,
                doubles_token=dodge_token,
                holding_token=changes.holds_token(target),
            )
            target.state = {**target.state, "dodges": target.state.get("dodges", 0) + 1}
            changes.set_token(target, dodge.token_held)
            used, per_round = _dodges(target)
            lines.append(
                RollResult(
                    label=f"{target.name} dodges",
                    summary=f"{_shifted(dodge_use, dodge_aspect)}: {_read(dodge)}, "
                    + ("dodged" if dodge.success else "too slow")
                    + f" ({used} of {per_round} dodge{'s' if per_round > 1 else ''} this round)",
                    dice=_task_dice(dodge),
                    outcome=dodge.outcome,
                    total=dodge.faces[0] * dodge.faces[1] if len(dodge.faces) == 2 else None,
                    chance=rules.chance(dodge.target, doubles_token=dodge.token_spent),
                    changes=tuple(
                        _token_notes(target.name, spent=dodge.token_spent, earned=dodge.token_earned)
                    ),
                    character=target.character,
                )
            )
            if target.character is not None:
                reasons[target.character.pk] = f"Dodged {actor.name}'s attack"
            if dodge.success:
                return lines
        db, _, _, _ = _gear(actor)
        _, av, _, _ = _gear(target)
        hurt = rules.roll_damage(roller, db=db, av=av, doubles_token=damage_token)
        if hurt.token_spent:
            changes.set_token(actor, False)
        before = _hp(target)[0]
        after = rules.apply_damage(before, hurt.damage)
        changes.set_hp(target, after)
        trumps = len(hurt.faces) - 1
        trump_note = f" + {rules.DAMAGE_TRUMP_BONUS * trumps} ({trumps} trump{'s' if trumps > 1 else ''})"
        lines.append(
            RollResult(
                label=f"{actor.name} damages {target.name}",
                summary=f"{hurt.faces[-1]}{trump_note if trumps else ''} + DB {hurt.db} + AV {hurt.av} "
                f"= {hurt.damage} damage",
                dice=_chain_dice(hurt.faces, token=hurt.token_spent),
                outcome=Outcome.NONE,
                outcome_label="damage",
                total=hurt.damage,
                changes=tuple(
                    _token_notes(actor.name, spent=hurt.token_spent, earned=False)
                    + _condition_note(target, before, after)
                ),
                character=target.character,
            )
        )
        if target.character is not None:
            reasons[target.character.pk] = f"{hurt.damage} damage from {actor.name}"
        return lines

    def _heal(self, encounter, actor, target, data, roller, author):
        options = data
        use = _pick(actor, options["descriptor"], HEALING)
        shift = (options.get("shift") or 0) + _aspect_steps(actor, options.get("aspect") or "")
        changes = _Changes(encounter)
        healer_token = changes.holds_token(actor)
        if options["spend"] and not healer_token:
            raise EncounterError(f"{actor.name} holds no doubles token to spend.")
        result = rules.roll_healing(
            roller,
            use.value,
            steps=use.steps + shift,
            doubles_token=options["spend"] == "check",
            heal_token=options["spend"] == "die",
            holding_token=healer_token,
        )
        check = result.check
        changes.set_token(actor, result.token_held)
        before, most = _hp(target)
        if result.healed:
            after = rules.apply_healing(before, result.amount, max_hp=most)
        else:
            after = rules.apply_damage(before, result.amount)
        changes.set_hp(target, after)
        reasons = {}
        if actor.character is not None:
            reasons[actor.character.pk] = f"Healed {target.name}"
        if target.character is not None:
            reasons[target.character.pk] = (
                f"Healed by {actor.name}" if result.healed else f"Harmed by {actor.name}'s failed heal"
            )
        changes.save(author, reasons)
        chain = f"heals {after - before} HP" if result.healed else f"harms: {result.amount} HP lost"
        trumps = len(result.faces) - 1
        return [
            RollResult(
                label=f"{actor.name} heals {target.name}",
                summary=f"{_shifted(use, shift)}: {_read(check)}, "
                + ("success" if check.success else "failure"),
                dice=_task_dice(check),
                outcome=check.outcome,
                total=check.faces[0] * check.faces[1] if len(check.faces) == 2 else None,
                chance=rules.chance(check.target, doubles_token=check.token_spent),
                changes=tuple(_token_notes(actor.name, spent=check.token_spent, earned=check.token_earned)),
                character=actor.character,
            ),
            RollResult(
                label=f"{actor.name} {'heals' if result.healed else 'harms'} {target.name}",
                summary=f"{'Healing' if result.healed else 'Harming'} die {', '.join(map(str, result.faces))}"
                + (f" ({trumps} trump{'s' if trumps > 1 else ''})" if trumps else "")
                + f": {chain}",
                dice=_chain_dice(result.faces, token=result.heal_token_spent),
                outcome=Outcome.NONE,  # the check above succeeded or failed; this chain only counts HP
                outcome_label="healing" if result.healed else "harm",
                total=result.amount,
                changes=tuple(
                    _token_notes(actor.name, spent=result.heal_token_spent, earned=False)
                    + _condition_note(target, before, after)
                ),
                character=target.character,
            ),
        ]

    # ----- display --------------------------------------------------------------------------------

    def summary(self, combatant, *, for_gm):
        hp, most = _hp(combatant)
        state = rules.condition(hp)
        used, per_round = _dodges(combatant)
        flags = []
        if combatant.state.get("stole"):
            flags.append("stole initiative")
        if combatant.character is None:
            if not for_gm:
                return state if state != "healthy" else ("hurt" if hp < most else "")
            stats = combatant.stats
            descriptors = ", ".join(f"{name} {value}" for name, value in stats["descriptors"].items())
            shield = " · shield" if stats.get("shield") else ""
            return (
                f"HP {hp}/{most} · {state} · {descriptors} · DB {stats['db']} · AV {stats['av']}{shield} · "
                f"dodges {per_round - used}/{per_round} left"
            )
        token = "token" if _sheet(combatant).doubles_token else "no token"
        return " · ".join(
            [f"HP {hp}/{most}", state, token, f"dodges {per_round - used}/{per_round} left", *flags]
        )

    def is_out(self, combatant):
        return _condition(combatant) != "healthy"


combat = FiveByFiveCombat()
