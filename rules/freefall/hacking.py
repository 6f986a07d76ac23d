"""Hacking: a program's tier adds to every die, and a natural 1 compromises it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from rules.dice import Roller
from rules.freefall.checks import (
    BASE_POOL,
    DIE,
    Check,
    FreeFallError,
    Odds,
    _check_tn_bonus,
    _int,
    check,
    odds,
)
from rules.freefall.gear import Program

# ---------------------------------------------------------------------------
# Hacking


@dataclass(frozen=True)
class Hack:
    """A hacking roll: the check, the program used (if any), and whether it got compromised."""

    check: Check
    program: Program | None
    compromised: bool

    @property
    def program_after(self) -> Program | None:
        if self.program is None:
            return None
        return replace(self.program, compromised=self.program.compromised or self.compromised)


def hack(dice: Iterable[int], tn: int, *, program: Program | None = None, conflict: bool = True) -> Hack:
    """Read a hacking roll: the program's tier adds to every die, and any 1 compromises it."""
    if program is not None and not program.active:
        raise FreeFallError(f"{program.name} is compromised and out for this mission.", field="program")
    bonus = program.bonus if program is not None else 0
    result = check(dice, tn, bonus=bonus, conflict=conflict)
    return Hack(check=result, program=program, compromised=program is not None and 1 in result.faces)


def roll_hack(
    roller: Roller, *, dice: int, tn: int, program: Program | None = None, conflict: bool = True
) -> Hack:
    """Roll a hack with ``dice`` d20."""
    dice = _int(dice, "Dice assigned", low=1, high=BASE_POOL)
    if program is not None and not program.active:
        raise FreeFallError(f"{program.name} is compromised and out for this mission.", field="program")
    _check_tn_bonus(tn, 0)
    return hack(roller.dice(dice, DIE), tn, program=program, conflict=conflict)


def hack_odds(n_dice: int, tn: int, *, program: Program | None = None, conflict: bool = True) -> Odds:
    """Exact odds of a hack; ``natural_one`` is the chance the program is compromised."""
    return odds(n_dice, tn, bonus=program.bonus if program is not None else 0, conflict=conflict)
