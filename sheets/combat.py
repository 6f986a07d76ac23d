"""The contract of every system's combat: quick NPCs, the turn order, actions, and results on sheets.

The generic encounter service (``play/encounters.py``) owns the encounter's life: versions, turns,
rounds, the feed and the live panel. A system (``sheets/systems/<name>/combat.py``) knows only its
rules: how initiative is found, what a combatant may do on its turn, and what a hit does to a sheet or
a quick NPC.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from django import forms
from django.db import models

from campaigns.selectors import PLAYERS
from rules.dice import Roller
from sheets.contract import RollResult  # an encounter's feed lines are sheet rolls' kind, re-exported


class Side(models.TextChoices):
    """Which side of a fight a combatant is on."""

    PLAYERS = "players", "Players"
    GM = "gm", "GM"


def is_npc(combatant) -> bool:
    """Whether the combatant is on the GM's side (a quick NPC or an NPC's sheet): its numbers (HP,
    defences, damage taken, the ranks it rolls) are the GM's unless the campaign shows them
    (campaigns.systems.SHOW_NPC_NUMBERS)."""
    return combatant.side == Side.GM


def for_players(line: RollResult, summary: str = "", changes: Iterable[str] = ()) -> RollResult:
    """``line``, which shows an NPC's numbers, with the words every seat but the GM's reads instead:
    ``summary`` and ``changes`` in plain terms ("Thug is wounded"); the line's outcome word is shown
    beside them, its dice, total and odds are not.

    Both texts are stored in the one feed entry; campaigns.selectors.entry_variant picks which a viewer
    gets, and play.encounters drops the players' words when the campaign shows NPC numbers.
    """
    words = {"summary": summary, "changes": list(changes)}
    return dataclasses.replace(line, extra={**line.extra, PLAYERS: words})


class EncounterError(Exception):
    """A refused encounter action; the message is shown to the GM."""


class _MadeOnRead:
    """A field holding a form class, or a function of no arguments that makes it: made on first read
    and kept. A turn offers every action but takes one, and an action's form may read each target's
    sheet for its choices (a dodge per foe): only the form that is read is made."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = f"_{name}"

    def __get__(self, action, owner=None):
        if action is None:
            return None  # the dataclass's default
        value = action.__dict__[self.slot]
        if value is not None and not isinstance(value, type):
            value = action.__dict__[self.slot] = value()
        return value

    def __set__(self, action, value) -> None:
        action.__dict__[self.slot] = value  # the frozen dataclass's __init__ sets fields through here


@dataclass(frozen=True)
class Action:
    """Something the combatant whose turn it is may do."""

    key: str
    label: str
    needs_target: bool = False
    # Extra inputs (which ability, a dodge, a spell): a form class, or a function making one (_MadeOnRead).
    form_class: _MadeOnRead = _MadeOnRead()
    help: str = ""
    targets: tuple[Any, ...] = field(default_factory=tuple)  # Combatants it may target
    # Inputs of ``form_class`` that are the GM's call (a situational shift, how the foe defends): a
    # player acting on their own turn neither sees nor sets them; they take the form's initial values.
    gm_fields: tuple[str, ...] = ()
    # An action that is the GM's alone (setting up a task for the scene): never offered to a player.
    gm_only: bool = False
    # The target chooses its own defence (a dodge, a trait to hold it off): aimed at a player's
    # character, the action waits for that player (``CombatRules.open_defence`` then ``defend``) unless
    # the GM resolves it at once with the form's own defence inputs.
    defender_chooses: bool = False
    # The odds of its roll hang on the actor alone, not on the target's numbers: a player sees them even
    # against an NPC whose numbers are the GM's (else they would tell its defence, and are not shown).
    own_odds: bool = False


@dataclass(frozen=True)
class Defence:
    """What a waiting defence asks the defender's player: the choice, and the odds against each option."""

    prompt: str  # "Bandit hits Larry Booker: dodge, or take the damage?"
    form_class: type[forms.Form]  # the defender's inputs
    label: str = "Defend"  # the button that answers
    help: str = ""
    # Each main option with the exact chance the defence holds with it ("Dodge with Quick 4", 4/9).
    odds: tuple[tuple[str, Fraction], ...] = ()
    # The odds hang on the defender alone, not on the attacker's numbers (as Action.own_odds).
    own_odds: bool = False


class CombatRules:
    """Base of every system's combat."""

    key: ClassVar[str]
    npc_form_class: ClassVar[type[forms.Form]]
    # Options the GM sets on the start button (how initiative is rolled); the cleaned values wait in
    # ``encounter.state["start"]`` for ``start``. None: the start button has no fields.
    start_form_class: ClassVar[type[forms.Form] | None] = None

    def npc_stats(self, cleaned_data: dict[str, Any]) -> dict[str, Any]:
        """A quick NPC's numbers as stored on its Combatant."""
        raise NotImplementedError

    def sample_npc(self) -> dict[str, Any]:
        """The quick-NPC form data (``npc_form_class``, unprefixed) of a typical foe of the books: what
        tests, benches and the combat contract suite (tests/campaigns/test_combat_contract.py) fight."""
        raise NotImplementedError(
            f"{type(self).__name__} ({self.key}) has no sample_npc(): write the quick-NPC form data of a "
            "typical foe, so the combat contract suite can fight it."
        )

    def start(self, encounter, combatants: list, roller: Roller) -> list[RollResult]:
        """Open round 1: find the turn order (set each combatant's initiative and position)."""
        raise NotImplementedError

    def join(self, encounter, combatant, combatants: list, roller: Roller) -> list[RollResult]:
        """A reinforcement joins the running fight: place ``combatant`` (saved, last in ``combatants``,
        the turn order) as the book places a newcomer (rolled initiative, declaration order, ...). Set
        positions (and initiative) and keep ``encounter.turn`` on whoever acts now (``place`` does both
        for one turn per combatant); the service refuses a join that moves the turn. By default the
        newcomer acts last."""
        return [
            RollResult(
                label=f"{combatant.name} joins",
                summary=f"{combatant.name} joins the fight, last in the order.",
                character=combatant.character,
            )
        ]

    def place(self, encounter, combatants: list, newcomer, index: int) -> None:
        """Move ``newcomer`` (last in ``combatants``) to ``index`` of a one-turn-per-combatant order,
        renumber the positions, and move the turn on with whoever acts now."""
        combatants.remove(newcomer)
        combatants.insert(index, newcomer)
        for position, combatant in enumerate(combatants):
            combatant.position = position
        if index <= encounter.turn:
            encounter.turn += 1

    def new_round(self, encounter, combatants: list) -> list[RollResult]:
        """Reset what lasts a round (dodges, actions); some systems re-declare or re-roll here."""
        for combatant in combatants:
            combatant.state = {}
        return []

    def begin_turn(self, encounter, actor, author) -> list[RollResult]:
        """``actor``'s turn starts (clear what lasts "until your next turn")."""
        return []

    def end_turn(self, encounter, actor, author) -> list[RollResult]:
        """``actor``'s turn ends (a stun that lasted this turn wears off)."""
        return []

    # ----- the shape of a round (override only when turns are not one per combatant) --------------

    def current_actor(self, encounter, combatants: list):
        """Whose turn it is: by default the ``encounter.turn``-th in the turn order."""
        return combatants[encounter.turn % len(combatants)]

    def turns_in_round(self, encounter, combatants: list) -> int:
        """How many turns the round holds before it wraps (one per combatant by default)."""
        return len(combatants)

    def turn_over(self, encounter, actor, action: str) -> bool:
        """Whether doing ``action`` ends the turn by itself, so the next one begins at once."""
        return False

    def order_settable(self, encounter, combatants: list) -> bool:
        """Whether the GM may move combatants up and down the order now (a declared order rather than
        one found by initiative). Never by default."""
        return False

    def order_changed(self, encounter, combatants: list) -> list[RollResult]:
        """The GM just moved someone (``combatants`` is in the new order): restart what the order drives."""
        return []

    def hold(self, encounter, combatants: list) -> str:
        """Why the GM may not move to the next turn yet ("" when nothing waits to be settled)."""
        return ""

    def actions(self, encounter, actor, combatants: list) -> list[Action]:
        """What ``actor`` may do now."""
        raise NotImplementedError

    def act(
        self, encounter, actor, action: str, target, data: dict[str, Any], roller: Roller, author
    ) -> list[RollResult]:
        """Do ``action``: roll with the engine, apply the results to sheets and quick NPCs."""
        raise NotImplementedError

    def chance(self, encounter, actor, action: str, target, data: dict[str, Any]) -> Fraction | None:
        """The exact chance that ``action`` (with the cleaned ``data`` of its form, at ``target``)
        succeeds, as the roll ``act`` makes would record it; None when it rolls nothing."""
        return None

    # ----- a defence the defender's player chooses (for actions with ``defender_chooses``) -----------

    def open_defence(
        self, encounter, actor, action: str, target, data: dict[str, Any], roller: Roller, author
    ) -> tuple[list[RollResult], dict[str, Any] | None]:
        """Do ``action`` at a player's character up to the defender's choice: roll what comes before it
        (an attack's to-hit) and return those lines with what the defence needs later (plain JSON), or
        None for the state when nothing is left to choose (a miss, no dodge left) and the action is done.
        ``data`` is the action's cleaned form; its defence inputs are not used."""
        raise NotImplementedError

    def defence(self, encounter, pending: dict[str, Any], attacker, defender) -> Defence:
        """What ``defender``'s player is asked while the action ``pending`` describes waits."""
        raise NotImplementedError

    def defence_chance(
        self, encounter, pending: dict[str, Any], attacker, defender, data: dict[str, Any]
    ) -> Fraction | None:
        """The exact chance the defence with these choices (``Defence.form_class``'s cleaned data)
        holds the attack off, as ``defend`` would record it."""
        return None

    def defend(
        self,
        encounter,
        pending: dict[str, Any],
        attacker,
        defender,
        data: dict[str, Any],
        roller: Roller,
        author,
    ) -> list[RollResult]:
        """Finish the waiting action with the defender's choices: roll the defence and what follows."""
        raise NotImplementedError

    def summary(self, combatant, *, for_gm: bool) -> str:
        """The key numbers shown beside the combatant. ``for_gm`` False (an NPC, as players see it while
        NPC numbers are the GM's: play.encounter_views): its state in words ("wounded", "out"), no number."""
        raise NotImplementedError

    def is_out(self, combatant) -> bool:
        """Whether the combatant no longer takes turns (slain, knocked out, dead)."""
        return combatant.out
