"""The core loop: the error every rule raises, the pool, the target numbers, one action's check read
from its faces, and its exact odds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import comb

from rules.dice import Outcome, Roller, RulesError, check_faces

# ---------------------------------------------------------------------------
# Errors


class FreeFallError(RulesError):
    """A FREE/FALL rule was broken; ``field`` names the form field at fault, if any."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


# ---------------------------------------------------------------------------
# The core loop: pool, target numbers, outcomes

DIE = 20
BASE_POOL = 5
MIN_POOL = 2
HARM_SLOTS = 3

FAILURE = Outcome.FAILURE
SUCCESS = Outcome.SUCCESS
GREATER = Outcome.GREATER
OUTCOMES = (FAILURE, SUCCESS, GREATER)

OUTCOME_TEXT = {
    FAILURE: "No die made it: the action fails and something goes wrong.",
    SUCCESS: "One die made it: the action works.",
    GREATER: "Two or more dice made it: the action works faster, cleaner or harder.",
}


class Difficulty(StrEnum):
    """The three named target numbers."""

    CHALLENGING = "challenging"
    HARD = "hard"
    NEAR_IMPOSSIBLE = "near_impossible"

    @property
    def tn(self) -> int:
        return _TN[self]

    @property
    def label(self) -> str:
        return _DIFFICULTY_LABEL[self]


_TN = {Difficulty.CHALLENGING: 11, Difficulty.HARD: 16, Difficulty.NEAR_IMPOSSIBLE: 21}
_DIFFICULTY_LABEL = {
    Difficulty.CHALLENGING: "Challenging",
    Difficulty.HARD: "Hard",
    Difficulty.NEAR_IMPOSSIBLE: "Near Impossible",
}
TARGET_NUMBERS = {d: d.tn for d in Difficulty}


def _int(
    value: object, what: str, *, low: int | None = None, high: int | None = None, field: str | None = None
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FreeFallError(f"{what} must be a whole number, not {value!r}.", field=field)
    if low is not None and value < low:
        raise FreeFallError(f"{what} cannot be below {low} (got {value}).", field=field)
    if high is not None and value > high:
        raise FreeFallError(f"{what} cannot be above {high} (got {value}).", field=field)
    return value


def _enum(cls, value, what: str, field: str | None = None):
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise FreeFallError(f"{value!r} is not a {what} (choose from {choices}).", field=field) from None


def pool(harm_filled: int) -> int:
    """Dice available this round: 5, less one per filled harm slot, never under 2."""
    filled = _int(harm_filled, "Filled harm slots", low=0, high=HARM_SLOTS)
    return max(MIN_POOL, BASE_POOL - filled)


def _check_tn_bonus(tn: int, bonus: int) -> tuple[int, int]:
    return _int(tn, "The target number", low=1), _int(bonus, "The bonus", low=0)


@dataclass(frozen=True)
class Check:
    """One action's roll: the faces, what they were measured against, and what came of it."""

    faces: tuple[int, ...]
    tn: int
    bonus: int
    successes: int
    outcome: Outcome
    crit: bool
    complication: bool

    @property
    def made(self) -> tuple[bool, ...]:
        """Each die's own verdict, in the order thrown: whether it made it (what the feed marks)."""
        return tuple(makes_it(face, self.tn, self.bonus) for face in self.faces)

    @property
    def highest(self) -> int:
        """The highest single die face, which settles clashes."""
        return max(self.faces)

    @property
    def natural_ones(self) -> int:
        return self.faces.count(1)


def _outcome(successes: int) -> Outcome:
    return FAILURE if successes == 0 else SUCCESS if successes == 1 else GREATER


def makes_it(face: int, tn: int, bonus: int = 0) -> bool:
    """Whether one die succeeds: a natural 20 always does, another when it meets the TN with the bonus."""
    return face == DIE or face + bonus >= tn


def check(dice: Iterable[int], tn: int, *, bonus: int = 0, conflict: bool = True) -> Check:
    """Read the faces rolled for one action against a target number."""
    faces = tuple(dice)
    if not 1 <= len(faces) <= BASE_POOL:
        raise FreeFallError(f"An action rolls between 1 and {BASE_POOL} dice, not {len(faces)}.")
    faces = check_faces(faces, sides=DIE)
    tn, bonus = _check_tn_bonus(tn, bonus)
    successes = sum(1 for f in faces if makes_it(f, tn, bonus))
    # A natural 1 only complicates matters in a conflict; a failure always does.
    complication = successes == 0 or (conflict and 1 in faces)
    return Check(
        faces=faces,
        tn=tn,
        bonus=bonus,
        successes=successes,
        outcome=_outcome(successes),
        crit=DIE in faces,
        complication=complication,
    )


def roll_check(roller: Roller, *, dice: int, tn: int, bonus: int = 0, conflict: bool = True) -> Check:
    """Roll ``dice`` d20 for one action and read them."""
    dice = _int(dice, "Dice assigned", low=1, high=BASE_POOL)
    _check_tn_bonus(tn, bonus)
    return check(roller.dice(dice, DIE), tn, bonus=bonus, conflict=conflict)


# ---------------------------------------------------------------------------
# Exact odds


def die_chance(tn: int, *, bonus: int = 0) -> Fraction:
    """The chance one d20 succeeds."""
    tn, bonus = _check_tn_bonus(tn, bonus)
    good = sum(1 for f in range(1, DIE + 1) if f == DIE or f + bonus >= tn)
    return Fraction(good, DIE)


def _n_dice(n_dice: int) -> int:
    return _int(n_dice, "Dice assigned", low=1, high=BASE_POOL)


def successes_distribution(n_dice: int, tn: int, *, bonus: int = 0) -> dict[int, Fraction]:
    """P(exactly k successes) for k = 0..n_dice."""
    n = _n_dice(n_dice)
    p = die_chance(tn, bonus=bonus)
    q = 1 - p

    return {k: comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)}


def chance(n_dice: int, tn: int, *, bonus: int = 0) -> dict[str, Fraction]:
    """The chance of each outcome (failure, success, greater) with n_dice against tn."""
    dist = successes_distribution(n_dice, tn, bonus=bonus)
    return {
        FAILURE: dist[0],
        SUCCESS: dist[1],
        GREATER: sum((v for k, v in dist.items() if k >= 2), Fraction(0)),
    }


@dataclass(frozen=True)
class Odds:
    """Everything a roll button shows: the outcome odds and the side effects' odds."""

    outcomes: Mapping[str, Fraction]
    crit: Fraction  # at least one natural 20
    complication: Fraction  # no success, or (in a conflict) a natural 1
    natural_one: Fraction  # at least one 1: a hacking program would be compromised

    @property
    def at_least_success(self) -> Fraction:
        return self.outcomes[SUCCESS] + self.outcomes[GREATER]


def odds(n_dice: int, tn: int, *, bonus: int = 0, conflict: bool = True) -> Odds:
    """Exact odds of every outcome and side effect for n_dice against tn."""
    n = _n_dice(n_dice)
    tn, bonus = _check_tn_bonus(tn, bonus)
    outcomes = chance(n, tn, bonus=bonus)
    no_one = Fraction(DIE - 1, DIE) ** n
    if conflict:
        # Clean = at least one success and no 1 showing = P(no 1) - P(no 1 and no success).
        dud = sum(1 for f in range(2, DIE) if f + bonus < tn)
        clean = no_one - Fraction(dud, DIE) ** n
        complication = 1 - clean
    else:
        complication = outcomes[FAILURE]
    return Odds(
        outcomes=outcomes,
        crit=1 - Fraction(DIE - 1, DIE) ** n,
        complication=complication,
        natural_one=1 - no_one,
    )
