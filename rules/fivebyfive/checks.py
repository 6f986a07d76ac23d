"""The 5x5 check read from its faces (a trump always succeeds), its exact odds, and a task roll with
the doubles token's bookkeeping."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from rules.dice import Outcome, Roller, check_faces
from rules.fivebyfive.ladder import (
    MAX_TARGET,
    POOR,
    TOKEN_TRUMP_FACE,
    TRUMP_FACE,
    AspectRating,
    _rank,
    shift,
    total_shift,
)

# --------------------------------------------------------------------------- the 5x5 check


def dice_for(value: int | None) -> int:
    """How many d6 a check against ``value`` takes: none below the ladder, one at -5, else two."""
    if value is None:
        return 0
    return 1 if _rank(value) == POOR else 2


def _trump_face(doubles_token: bool) -> int:
    return TOKEN_TRUMP_FACE if doubles_token else TRUMP_FACE


@dataclass(frozen=True)
class Check:
    """One 5x5 check read from its faces."""

    value: int | None
    dice: tuple[int, ...]
    doubles_token: bool
    success: bool
    trump: bool
    doubles: bool

    @property
    def product(self) -> int | None:
        return self.dice[0] * self.dice[1] if len(self.dice) == 2 else None

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.success, trump=self.trump)


def check(value: int | None, dice: Iterable[int], *, doubles_token: bool = False) -> Check:
    """Read a 5x5 check: any trump succeeds, else the product must be <= min(value, 16)."""
    faces = check_faces(dice, sides=6, count=dice_for(value))
    if value is None:
        # Below the ladder there is no roll at all, not even a trump.
        return Check(None, faces, bool(doubles_token), False, False, False)
    trump = any(f >= _trump_face(doubles_token) for f in faces)
    doubles = len(faces) == 2 and faces[0] == faces[1]
    if value == POOR:
        success = trump  # "roll one less die": only a trump can succeed
    else:
        success = trump or faces[0] * faces[1] <= min(value, MAX_TARGET)
    return Check(value, faces, bool(doubles_token), success, trump, doubles)


def outcome_odds(value: int | None, *, doubles_token: bool = False) -> dict[str, Fraction]:
    """Exact odds of 'trump', 'success' (without trump) and 'failure'; they sum to 1."""
    return dict(_outcome_odds(value, bool(doubles_token)))


@cache  # a fresh dict is handed out above, so callers cannot spoil the cached one
def _outcome_odds(value: int | None, doubles_token: bool) -> tuple[tuple[str, Fraction], ...]:
    n = dice_for(value)
    counts = {"trump": 0, "success": 0, "failure": 0}
    if n == 0:
        return (("trump", Fraction(0)), ("success", Fraction(0)), ("failure", Fraction(1)))
    outcomes = [(a,) for a in range(1, 7)] if n == 1 else [(a, b) for a in range(1, 7) for b in range(1, 7)]
    for faces in outcomes:
        c = check(value, faces, doubles_token=doubles_token)
        counts["trump" if c.trump else "success" if c.success else "failure"] += 1
    return tuple((k, Fraction(v, len(outcomes))) for k, v in counts.items())


def chance(value: int | None, *, doubles_token: bool = False) -> Fraction:
    """Exact chance that a 5x5 check against ``value`` succeeds (None -> 0)."""
    odds = outcome_odds(value, doubles_token=bool(doubles_token))
    return odds["trump"] + odds["success"]


# --------------------------------------------------------------------------- task rolls


@dataclass(frozen=True)
class TaskRoll:
    """A rolled 5x5 check with every face and the doubles-token bookkeeping."""

    value: int
    steps: int  # net shift applied (GM, advanced, aspect)
    target: int | None
    faces: tuple[int, ...]
    success: bool
    trump: bool
    doubles: bool
    token_spent: bool
    token_earned: bool  # a new token actually gained (not already holding one)
    token_held: bool  # holds a token after this roll

    @property
    def outcome(self) -> Outcome:
        """Trump, success or failure: a trump is a success the feed marks apart."""
        return Outcome.of(self.success, trump=self.trump)

    def replay(self) -> Check:
        """The same check read again from the logged faces."""
        return check(self.target, self.faces, doubles_token=self.token_spent)


def _token_after(*, holding: bool, spent: bool, doubles: bool) -> tuple[bool, bool]:
    kept = holding and not spent
    earned = doubles and not kept  # nobody holds more than one token
    return earned, kept or doubles


def roll_task(
    roller: Roller,
    value: int,
    *,
    steps: int = 0,
    advanced: bool = False,
    aspect: AspectRating = AspectRating.AVERAGE,
    doubles_token: bool = False,
    holding_token: bool = False,
) -> TaskRoll:
    """Roll a 5x5 check; ``doubles_token`` spends a held token so 5s trump too."""
    net = total_shift(steps=steps, advanced=advanced, aspect=aspect)
    target = shift(value, net)
    faces = tuple(roller.dice(dice_for(target), 6))
    c = check(target, faces, doubles_token=doubles_token)
    earned, held = _token_after(
        holding=holding_token or doubles_token, spent=bool(doubles_token), doubles=c.doubles
    )
    return TaskRoll(
        value, net, target, faces, c.success, c.trump, c.doubles, bool(doubles_token), earned, held
    )
