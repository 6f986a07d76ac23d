"""Advancement with XP: raising a descriptor a rank, adding a new one, and swapping the poor one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.dice import RulesError
from rules.fivebyfive.descriptors import Descriptor, validate_descriptors
from rules.fivebyfive.ladder import (
    ADVANCED_CAP,
    BASIC_CAP,
    NEW_DESCRIPTOR_COST,
    POOR,
    POOR_SWAP_COST,
    UNTRAINED,
    ExclusiveAction,
    FieldError,
    _rank,
    shift,
)


def improvement_cost(value: int, *, advanced: bool = False) -> int:
    """XP to raise ``value`` one rank (0 -> 2 costs 2): the new rank's value."""
    _rank(value)
    if value == POOR:
        raise RulesError("A poor (-5) descriptor cannot be improved; it can only be swapped for another.")
    cap = ADVANCED_CAP if advanced else BASIC_CAP
    if value >= cap:
        kind = "An advanced" if advanced else "A basic"
        raise RulesError(f"{kind} descriptor cannot go above {cap}.")
    return shift(value, 1)  # type: ignore[return-value]


@dataclass(frozen=True)
class Advancement:
    descriptors: tuple[Descriptor, ...]
    cost: int


def _find(ds: Sequence[Descriptor], name: str) -> int:
    key = name.strip().casefold()
    for i, d in enumerate(ds):
        if d.name.strip().casefold() == key:
            return i
    raise FieldError(f"There is no descriptor called '{name.strip()}'.", field="name")


def _afford(cost: int, xp: int | None) -> None:
    if xp is not None and cost > xp:
        raise FieldError(f"That costs {cost} XP, and only {xp} XP is available.", field="xp")


def improve(descriptors: Sequence[Descriptor], name: str, *, xp: int | None = None) -> Advancement:
    """Raise one descriptor a rank, checking the caps and (optionally) the XP available."""
    ds = list(descriptors)
    i = _find(ds, name)
    try:
        cost = improvement_cost(ds[i].value, advanced=ds[i].advanced)
    except RulesError as e:
        raise FieldError(str(e), field="name") from e
    _afford(cost, xp)
    ds[i] = replace(ds[i], value=shift(ds[i].value, 1))
    validate_descriptors(ds)
    return Advancement(tuple(ds), cost)


def add_descriptor(
    descriptors: Sequence[Descriptor],
    name: str,
    *,
    advanced: bool = False,
    exclusive: ExclusiveAction | None = None,
    xp: int | None = None,
) -> Advancement:
    """Add a new descriptor at novice (2) for 2 XP."""
    _afford(NEW_DESCRIPTOR_COST, xp)
    new = Descriptor(name.strip(), NEW_DESCRIPTOR_COST, advanced, exclusive)  # a new one starts at 2
    ds = (*descriptors, new)
    validate_descriptors(ds)
    return Advancement(ds, NEW_DESCRIPTOR_COST)


def swap_poor(descriptors: Sequence[Descriptor], new_name: str, *, xp: int | None = None) -> Advancement:
    """Trade the poor (-5) descriptor for a different one (GM approval and role play): 5 XP."""
    ds = list(descriptors)
    poor = [i for i, d in enumerate(ds) if d.value == POOR]
    if len(poor) != 1:
        raise FieldError("There is no single poor descriptor to swap.", field="descriptors")
    old = ds[poor[0]]
    if not new_name or not new_name.strip() or new_name.strip().casefold() == old.name.strip().casefold():
        raise FieldError("Name a different weakness to take in its place.", field="name")
    _afford(POOR_SWAP_COST, xp)
    if old.is_hp:
        # HP never leaves the sheet: it falls back to untrained (10 HP) and the new weakness is added.
        ds[poor[0]] = replace(old, value=UNTRAINED)
        ds.append(Descriptor(new_name.strip(), POOR))
    else:
        ds[poor[0]] = Descriptor(new_name.strip(), POOR)
    validate_descriptors(ds)
    return Advancement(tuple(ds), POOR_SWAP_COST)
