"""What every other module speaks in: the five outcomes, the three abilities, the numbers and
benchmarks, the errors, the small validators, and edge (advantage and disadvantage) counted and netted."""

from __future__ import annotations

from typing import NamedTuple

from rules.dice import Outcome, RulesError

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

CRITICAL = Outcome.CRITICAL
SUCCESS = Outcome.SUCCESS
MIXED = Outcome.MIXED
FAILURE = Outcome.FAILURE
FUMBLE = Outcome.FUMBLE
#: Best first; every distribution in this module uses these keys.
OUTCOMES = (CRITICAL, SUCCESS, MIXED, FAILURE, FUMBLE)

BODY = "body"
MIND = "mind"
SPIRIT = "spirit"
ABILITIES = (BODY, MIND, SPIRIT)

ABILITY_MIN = 1
ABILITY_MAX = 20
DIE = 20
#: A result this far above the Difficulty (or the opposing total) is a critical.
CRITICAL_MARGIN = 5
#: Losing this many points to a single attack stuns the target for its next turn.
STUN_THRESHOLD = 5
#: NPCs do not roll initiative; they act at Difficulty + this.
NPC_INITIATIVE_BONUS = 5
#: Feet covered by one move action, and by a dying character's whole turn.
MOVE_FEET = 30
CRAWL_FEET = 5
ACTIONS_PER_TURN = 2
TURN_ACTIONS = ("task", "move", "evade")

#: Ability score benchmarks (score -> what it means), for help text on the sheet.
ABILITY_BENCHMARKS = {
    5: "poor: untrained, no talent for it",
    10: "fair: trained or talented, a working professional",
    15: "excellent: a master, the best around",
    20: "great: legendary, among the best in the world",
}

#: Task Difficulty benchmarks: Difficulty -> (label, the chance the seed quotes for a bare d20).
DIFFICULTY_BENCHMARKS = {
    1: ("trivial", "95% success"),
    5: ("easy", "75% success"),
    10: ("moderate", "50% success"),
    15: ("hard", "25% success"),
    20: ("extreme", "5% mixed"),
}


class TriadError(RulesError):
    """A Triad rule was asked something it cannot answer; ``field`` names the culprit if known."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class BuildError(TriadError):
    """A character build breaks a creation rule; ``field`` names the builder field at fault."""


# ---------------------------------------------------------------------------
# Small validators
# ---------------------------------------------------------------------------


def _int(value: object, what: str, *, low: int | None = None, high: int | None = None,
         field: str | None = None, error: type[TriadError] = TriadError) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{what} must be a whole number, not {value!r}.", field=field)
    if low is not None and value < low:
        raise error(f"{what} cannot be below {low} (got {value}).", field=field)
    if high is not None and value > high:
        raise error(f"{what} cannot be above {high} (got {value}).", field=field)
    return value


def _edge(edge: object) -> int:
    if isinstance(edge, bool) or edge not in (-1, 0, 1):
        raise TriadError(f"Edge must be -1 (disadvantage), 0 or +1 (advantage), not {edge!r}.")
    return int(edge)  # type: ignore[call-overload]


def _ability_name(name: object) -> str:
    if not isinstance(name, str) or name.lower() not in ABILITIES:
        raise TriadError(f"{name!r} is not an ability; use Body, Mind or Spirit.", field="ability")
    return name.lower()


def dice_for(edge: int) -> int:
    """How many d20s a task roll with this edge takes: one, or two with (dis)advantage."""
    return 1 if _edge(edge) == 0 else 2


# ---------------------------------------------------------------------------
# Advantage and disadvantage
# ---------------------------------------------------------------------------


def net_edge(advantages: int, disadvantages: int) -> int:
    """Cancel advantage and disadvantage sources one for one: +1, 0 or -1."""
    adv = _int(advantages, "The number of advantages", low=0)
    dis = _int(disadvantages, "The number of disadvantages", low=0)
    return (adv > dis) - (adv < dis)


class EdgeReading(NamedTuple):
    """A task's sources counted and cancelled (Triad l.55): the net edge and the dice it rolls."""

    advantages: int
    disadvantages: int
    cancelled: int  # sources of each kind that cancel one for one
    edge: int  # +1, 0 or -1, as net_edge
    dice: int  # d20s thrown, as dice_for
    keeps: str  # "higher", "lower", or "" when one die is thrown


def read_edge(advantages: int, disadvantages: int) -> EdgeReading:
    """Cancel the sources one for one (net_edge) and say how many cancel, what the roll throws and keeps:
    for a page that shows the cancelling before the roll, from the same count the roll uses."""
    edge = net_edge(advantages, disadvantages)
    keeps = {1: "higher", -1: "lower"}.get(edge, "")
    return EdgeReading(advantages, disadvantages, min(advantages, disadvantages), edge, dice_for(edge), keeps)


def count_edge(*, adv_traits: int = 0, advantages: int = 0, disadvantages: int = 0,
               extra_effort: bool = False, stunned: bool = False, evading: bool = False) -> int:
    """Count every source of edge on one task roll (traits, effort, stun, evasion) and net it."""
    adv = (_int(adv_traits, "The number of (Adv.) traits", low=0)
           + _int(advantages, "The number of advantages", low=0)
           + bool(extra_effort) + bool(evading))
    dis = _int(disadvantages, "The number of disadvantages", low=0) + bool(stunned)
    return net_edge(adv, dis)
