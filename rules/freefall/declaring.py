"""Declaring a round's actions: the prerequisites that earn a specialized roll, the declaration checked
against the pool and the character, and the order the actions resolve in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from rules.dice import check_faces
from rules.freefall.attributes import Attribute, Attributes, _attribute
from rules.freefall.builder import _text
from rules.freefall.checks import BASE_POOL, DIE, MIN_POOL, FreeFallError, _enum, _int
from rules.freefall.gear import Gear, Program
from rules.freefall.harm import HarmKind

# ---------------------------------------------------------------------------
# Declaration, prerequisites and resolution order


class Prerequisite(StrEnum):
    """The four ways to earn a roll for a specialized action."""

    GEAR = "gear"
    SPECIALTY = "specialty"
    SPEND_ATTRIBUTE = "spend_attribute"
    TAKE_HARM = "take_harm"

    @property
    def label(self) -> str:
        return _PREREQ_LABEL[self]


_PREREQ_LABEL = {
    Prerequisite.GEAR: "Have the gear",
    Prerequisite.SPECIALTY: "Have the specialty",
    Prerequisite.SPEND_ATTRIBUTE: "Spend 1 current attribute",
    Prerequisite.TAKE_HARM: "Take 1 level of harm",
}


@dataclass(frozen=True)
class Action:
    """One declared action and the dice put on it.

    ``specialized`` is false only for plain things anyone can do (talking, walking).
    ``gear`` names the tool (with GEAR), ``attribute`` the one spent (with SPEND_ATTRIBUTE),
    ``harm_kind`` the harm taken (with TAKE_HARM). A hack names its ``program`` or uses the specialty.
    """

    name: str
    dice: int
    specialized: bool = True
    prerequisite: Prerequisite | None = None
    gear: str | None = None
    attribute: Attribute | None = None
    harm_kind: HarmKind | None = None
    hacking: bool = False
    program: str | None = None

    def __post_init__(self):
        if self.prerequisite is not None:
            object.__setattr__(
                self, "prerequisite", _enum(Prerequisite, self.prerequisite, "prerequisite", "actions")
            )
        if self.attribute is not None:
            object.__setattr__(self, "attribute", _attribute(self.attribute, field="actions"))
        if self.harm_kind is not None:
            object.__setattr__(self, "harm_kind", _enum(HarmKind, self.harm_kind, "kind of harm", "actions"))


@dataclass(frozen=True)
class Declaration:
    """A validated declaration: the actions in declared order and what they cost up front."""

    actions: tuple[Action, ...]
    pool: int
    spent: Attributes  # attribute points spent to force checks
    harm: tuple[HarmKind, ...]  # harm levels taken to push limits, one per action

    @property
    def dice_assigned(self) -> int:
        return sum(a.dice for a in self.actions)

    @property
    def resolution_order(self) -> tuple[Action, ...]:
        """Last declared resolves first."""
        return tuple(reversed(self.actions))


def validate_declaration(
    actions: Sequence[Action],
    *,
    pool: int,
    current: Attributes | None = None,
    gear: Sequence[Gear] | None = None,
    programs: Sequence[Program] | None = None,
    specialty: str | None = None,
) -> Declaration:
    """Check dice against the pool and each action's prerequisite against what the character has.

    Leave ``current``/``gear``/``programs``/``specialty`` as None to skip checking that resource.
    Errors carry ``field="actions"`` (or ``"actions[i]"`` for one action).
    """
    pool = _int(pool, "The pool", low=MIN_POOL, high=BASE_POOL, field="pool")
    actions = tuple(actions)
    if not actions:
        raise FreeFallError("Declare at least one action.", field="actions")
    spent = Attributes()
    harm: list[HarmKind] = []
    for i, act in enumerate(actions):
        where = f"actions[{i}]"
        if not isinstance(act, Action):
            raise FreeFallError(f"Action {i + 1} is not an action.", field=where)
        label = _text(act.name, f"Action {i + 1}'s name", where)
        _int(act.dice, f"Dice on {label}", low=1, field=where)
        if act.hacking:
            _hack_prereq(act, label, where, programs, specialty)
            continue
        if not act.specialized:
            continue
        if act.prerequisite is None:
            raise FreeFallError(
                f"{label} needs the gear, the specialty, 1 attribute point or 1 level of harm "
                "before it can be rolled.",
                field=where,
            )
        prereq = Prerequisite(act.prerequisite)
        if prereq is Prerequisite.GEAR:
            if not act.gear:
                raise FreeFallError(f"{label}: name the gear that does the job.", field=where)
            if gear is not None and not any(
                g.name.strip().lower() == act.gear.strip().lower() and g.usable for g in gear
            ):
                raise FreeFallError(f"{label}: you have no working {act.gear}.", field=where)
        elif prereq is Prerequisite.SPECIALTY:
            if specialty is not None and not specialty.strip():
                raise FreeFallError(f"{label}: you have no specialty to lean on.", field=where)
        elif prereq is Prerequisite.SPEND_ATTRIBUTE:
            if act.attribute is None:
                raise FreeFallError(f"{label}: say which attribute you spend.", field=where)
            a = _attribute(act.attribute, field=where)
            spent = spent.with_value(a, spent[a] + 1)
            if current is not None and spent[a] > current[a]:
                raise FreeFallError(
                    f"{label}: not enough current {a.label} left ({current[a]}) to force this.", field=where
                )
        elif prereq is Prerequisite.TAKE_HARM:
            if act.harm_kind is None:
                raise FreeFallError(f"{label}: say what kind of harm you take.", field=where)
            harm.append(HarmKind(act.harm_kind))
    total = sum(a.dice for a in actions)
    if total > pool:
        raise FreeFallError(f"You assigned {total} dice but your pool is only {pool}.", field="actions")
    return Declaration(actions=actions, pool=pool, spent=spent, harm=tuple(harm))


def _hack_prereq(
    act: Action, label: str, where: str, programs: Sequence[Program] | None, specialty: str | None
) -> None:
    # Hacking takes an active program or the specialty; attribute or harm cannot force it.
    if act.program:
        if programs is not None and not any(
            p.name.strip().lower() == act.program.strip().lower() and p.active for p in programs
        ):
            raise FreeFallError(f"{label}: {act.program} is not an active program of yours.", field=where)
        return
    if act.prerequisite is not None and Prerequisite(act.prerequisite) is Prerequisite.SPECIALTY:
        if specialty is not None and not specialty.strip():
            raise FreeFallError(f"{label}: you have no specialty to lean on.", field=where)
        return
    raise FreeFallError(f"{label}: hacking needs an active program or the specialty.", field=where)


@dataclass(frozen=True)
class Turn:
    """One action waiting to resolve; actions sharing a ``clash`` tag directly oppose each other."""

    label: str
    highest: int | None = None
    clash: str | None = None


def resolution_order(declared: Sequence[Turn]) -> tuple[Turn, ...]:
    """Order of resolution: last declared first; within a clash, highest single die first."""
    order = list(reversed(tuple(declared)))
    groups: dict[str, list[int]] = {}
    for pos, turn in enumerate(order):
        if turn.clash is not None:
            if turn.highest is None:
                raise FreeFallError(f"{turn.label} clashes, so it needs its highest die.", field="highest")
            check_faces([turn.highest], sides=DIE)
            groups.setdefault(turn.clash, []).append(pos)
    for positions in groups.values():
        # Clashing actions swap among the places they already hold; a tie keeps reverse order.
        members = sorted((order[p] for p in positions), key=lambda t: -t.highest)  # stable
        for p, t in zip(positions, members, strict=True):
            order[p] = t
    return tuple(order)
