"""The rank ladder and its numbers, the field error, a shift along the ladder, the four aspects, the
exclusive actions, and the value a roll is made against once every shift is summed."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping

from rules.dice import RulesError

# --------------------------------------------------------------------------- ladder

#: The whole rank ladder. 20 and 25 exist only for advanced descriptors.
RANKS: tuple[int, ...] = (-5, 0, 2, 4, 6, 9, 12, 16, 20, 25)
#: Ranks a basic descriptor can hold.
BASIC_RANKS: tuple[int, ...] = (-5, 0, 2, 4, 6, 9, 12, 16)
POOR = -5
UNTRAINED = 0
#: No 5x5 roll targets more than this, whatever the rank (issue reading).
MAX_TARGET = 16
BASIC_CAP = 16
ADVANCED_CAP = 25
#: The shift every use of an advanced descriptor takes.
ADVANCED_SHIFT = -2

RANK_NAMES: Mapping[int, str] = {
    -5: "poor",
    0: "untrained",
    2: "novice",
    4: "competent",
    6: "skilled",
    9: "expert",
    12: "master",
    16: "legendary",
}

#: The rounded percentages the rulebook's rank shift table prints (None = below the ladder).
#: They are labels, not odds: 20 and 25 read 95% and 100% there, but no roll targets above 16.
TABLE_PERCENT: Mapping[int | None, int] = {
    None: 0,
    -5: 15,
    0: 30,
    2: 40,
    4: 50,
    6: 60,
    9: 70,
    12: 80,
    16: 90,
    20: 95,
    25: 100,
}

#: Values given by importance at character creation, most important first.
CREATION_VALUES: tuple[int, ...] = (6, 4, 4, 2, 2, -5)
HP_NAME = "HP"
HP_BONUS = 10
NAME_MAX_LENGTH = 60

MAX_TWELVES = 2
MAX_LEGENDARY = 1
NEW_DESCRIPTOR_COST = 2
POOR_SWAP_COST = 5

#: A d6 result that shows this or more is a trump; a spent doubles token lowers it to 5.
TRUMP_FACE = 6
TOKEN_TRUMP_FACE = 5
DAMAGE_TRUMP_BONUS = 5
HARM_TRUMP_BONUS = 2

DEAD_AT = -10
#: The lowest armor value the armor table prints (heavy armor).
MIN_AV = -6


class FieldError(RulesError):
    """A rules error that names the form field at fault (``.field``)."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _rank(value: object, *, what: str = "A descriptor value") -> int:
    if not _is_int(value) or value not in RANKS:
        ladder = ", ".join(str(r) for r in RANKS)
        raise RulesError(f"{what} must be one of {ladder}, not {value!r}.")
    return value  # type: ignore[return-value]


def shift(value: int, steps: int) -> int | None:
    """Move ``value`` ``steps`` places along RANKS; below -5 is None, above 25 stays 25."""
    _rank(value)
    if not _is_int(steps):
        raise RulesError(f"A rank shift is a whole number of steps, not {steps!r}.")
    index = RANKS.index(value) + steps
    if index < 0:
        return None
    return RANKS[min(index, len(RANKS) - 1)]


# --------------------------------------------------------------------------- aspects


class Aspect(enum.Enum):
    AGILITY = "agility"
    BRAWN = "brawn"
    COGNITION = "cognition"
    DETERMINATION = "determination"


class AspectRating(enum.IntEnum):
    """An aspect's rating; its integer is the rank shift it gives every action it governs."""

    INFERIOR = -1
    AVERAGE = 0
    SUPERIOR = 1


def validate_aspects(ratings: Mapping[Aspect, AspectRating]) -> dict[Aspect, AspectRating]:
    """Return all four aspects (missing ones Average) or raise: each Superior needs an Inferior."""
    full: dict[Aspect, AspectRating] = {a: AspectRating.AVERAGE for a in Aspect}
    for aspect, rating in ratings.items():
        if not isinstance(aspect, Aspect):
            raise FieldError(f"{aspect!r} is not one of the four aspects.", field="aspects")
        if not isinstance(rating, AspectRating):
            raise FieldError(
                f"{aspect.value.title()} must be Inferior, Average or Superior.",
                field=f"aspects.{aspect.value}",
            )
        full[aspect] = rating
    superior = sum(r is AspectRating.SUPERIOR for r in full.values())
    inferior = sum(r is AspectRating.INFERIOR for r in full.values())
    if superior > inferior:
        raise FieldError(
            f"Each Superior aspect must be paid for with an Inferior one: "
            f"{superior} Superior but only {inferior} Inferior.",
            field="aspects",
        )
    return full


# --------------------------------------------------------------------------- exclusive actions


class ExclusiveAction(enum.Enum):
    ATTACK = "attack"
    DODGE = "dodge"
    HEALING = "healing"
    STEAL_INITIATIVE = "steal initiative"


def exclusive_action(actions: Iterable[ExclusiveAction]) -> ExclusiveAction | None:
    """The single exclusive action a descriptor improves, or None; more than one is refused."""
    chosen = list(dict.fromkeys(actions))
    for a in chosen:
        if not isinstance(a, ExclusiveAction):
            raise FieldError(f"{a!r} is not an exclusive action.", field="exclusive")
    if len(chosen) > 1:
        names = " and ".join(a.value for a in chosen)
        raise FieldError(
            f"A descriptor can improve only one exclusive action; pick one of {names}.",
            field="exclusive",
        )
    return chosen[0] if chosen else None


# --------------------------------------------------------------------------- effective value


def total_shift(
    *, steps: int = 0, advanced: bool = False, aspect: AspectRating = AspectRating.AVERAGE
) -> int:
    """The net rank shift from a GM shift, an advanced descriptor and an aspect."""
    if not _is_int(steps):
        raise RulesError(f"A rank shift is a whole number of steps, not {steps!r}.")
    return steps + (ADVANCED_SHIFT if advanced else 0) + int(AspectRating(aspect))


def effective_value(
    value: int, *, steps: int = 0, advanced: bool = False, aspect: AspectRating = AspectRating.AVERAGE
) -> int | None:
    """The value a roll is made against after every shift, summed first and applied once."""
    return shift(value, total_shift(steps=steps, advanced=advanced, aspect=aspect))
