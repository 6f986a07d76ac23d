"""Task rolls read from their faces and their exact odds, exceptional tools, opposed rolls and team
tasks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

from rules.dice import Outcome, Roller, check_faces
from rules.triad.vocabulary import (
    ABILITY_MAX,
    CRITICAL,
    CRITICAL_MARGIN,
    DIE,
    FAILURE,
    FUMBLE,
    MIXED,
    OUTCOMES,
    SUCCESS,
    TriadError,
    _edge,
    _int,
    dice_for,
)

# ---------------------------------------------------------------------------
# Task rolls
# ---------------------------------------------------------------------------


def _kept(faces: tuple[int, ...], edge: int) -> int:
    if edge > 0:
        return max(faces)
    if edge < 0:
        return min(faces)
    return faces[0]


def _grade(total: int, difficulty: int, *, fumbled: bool, adv_trait: bool) -> Outcome:
    if fumbled:
        return FUMBLE
    if total >= difficulty + CRITICAL_MARGIN:
        return CRITICAL
    if total > difficulty:
        return SUCCESS
    if total == difficulty:
        return SUCCESS if adv_trait else MIXED
    return FAILURE


@dataclass(frozen=True)
class TaskResult:
    """One task roll: every face thrown, the die kept, the total and its outcome."""

    ability: int
    difficulty: int
    faces: tuple[int, ...]
    kept: int
    total: int
    outcome: Outcome
    edge: int = 0
    adv_trait: bool = False

    @property
    def succeeded(self) -> bool:
        """Whether the task got done (a mixed result succeeds, at a price)."""
        return self.outcome in (CRITICAL, SUCCESS, MIXED)

    @property
    def failed(self) -> bool:
        """Whether the character suffers the failure's consequence (mixed results do too)."""
        return self.outcome in (MIXED, FAILURE, FUMBLE)

    @property
    def margin(self) -> int:
        """Total minus Difficulty: negative when the roll fell short."""
        return self.total - self.difficulty


def check(ability: int, difficulty: int, dice: Iterable[int], *, edge: int = 0,
          adv_trait: bool = False) -> TaskResult:
    """Grade a task roll from the faces thrown: total = max(kept die, current ability)."""
    ability = _int(ability, "The ability score", low=0, field="ability")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    edge = _edge(edge)
    faces = check_faces(dice, sides=DIE, count=dice_for(edge))
    kept = _kept(faces, edge)
    total = max(kept, ability)
    # The kept die decides the fumble: advantage ignores a lone 1, disadvantage keeps it.
    outcome = _grade(total, difficulty, fumbled=kept == 1, adv_trait=bool(adv_trait))
    return TaskResult(ability=ability, difficulty=difficulty, faces=faces, kept=kept,
                      total=total, outcome=outcome, edge=edge, adv_trait=bool(adv_trait))


def roll_task(roller: Roller, *, ability: int, difficulty: int, edge: int = 0,
              adv_trait: bool = False) -> TaskResult:
    """Throw the dice for a task roll and grade it.

    ``edge`` is the net edge with every source already counted: for extra effort pass
    ``count_edge(..., extra_effort=True)``, and pay its point with ``spend`` after the roll.
    """
    faces = roller.dice(dice_for(edge), DIE)
    return check(ability, difficulty, faces, edge=edge, adv_trait=adv_trait)


@cache
def kept_distribution(edge: int = 0) -> dict[int, Fraction]:
    """Exact odds of each face being the kept die for this edge."""
    edge = _edge(edge)
    n = DIE
    if edge == 0:
        return {k: Fraction(1, n) for k in range(1, n + 1)}
    if edge > 0:  # the higher of two: P(max = k) = (k^2 - (k-1)^2) / n^2
        return {k: Fraction(k * k - (k - 1) ** 2, n * n) for k in range(1, n + 1)}
    return {k: Fraction((n + 1 - k) ** 2 - (n - k) ** 2, n * n) for k in range(1, n + 1)}


def _side_states(ability: int, edge: int) -> dict[tuple[int, bool], Fraction]:
    """Odds of each (total, fumbled) pair for one roller."""
    states: dict[tuple[int, bool], Fraction] = {}
    for kept, p in kept_distribution(edge).items():
        key = (max(kept, ability), kept == 1)
        states[key] = states.get(key, Fraction(0)) + p
    return states


def _blank() -> dict[str, Fraction]:
    return {o: Fraction(0) for o in OUTCOMES}


def chance(ability: int, difficulty: int, *, edge: int = 0,
           adv_trait: bool = False) -> dict[str, Fraction]:
    """Exact odds of each of the five outcomes of a task roll; they sum to 1."""
    ability = _int(ability, "The ability score", low=0, field="ability")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    return dict(_chance(ability, difficulty, _edge(edge), bool(adv_trait)))


@lru_cache(maxsize=4096)
def _chance(ability: int, difficulty: int, edge: int, adv_trait: bool) -> dict[str, Fraction]:
    odds = _blank()
    for (total, fumbled), p in _side_states(ability, edge).items():
        odds[_grade(total, difficulty, fumbled=fumbled, adv_trait=adv_trait)] += p
    return odds


# ---------------------------------------------------------------------------
# Exceptional tools, extra effort
# ---------------------------------------------------------------------------


def effective_ability(current: int, *, tool: int | None = None) -> int:
    """The score a task uses: an exceptional tool's rating replaces the current score outright."""
    current = _int(current, "The ability score", low=0, field="ability")
    if tool is None:
        return current
    return _int(tool, "The tool's ability rating", low=1, high=ABILITY_MAX, field="tool")


# ---------------------------------------------------------------------------
# Opposed rolls and teamwork
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One participant in an opposed or team roll: current ability, edge, and (Adv.) trait."""

    ability: int
    edge: int = 0
    adv_trait: bool = False

    def __post_init__(self) -> None:
        _int(self.ability, "The ability score", low=0, field="ability")
        _edge(self.edge)


@dataclass(frozen=True)
class OpposedResult:
    """An opposed roll: both sides' faces and totals, who won, and by how much."""

    a: TaskResult
    b: TaskResult
    #: "a", "b", or None when neither side wins (a tie, or both fumble).
    winner: str | None
    margin: int
    #: The winner beat the loser by 5 or more (double damage if harm was at stake).
    critical: bool

    @property
    def outcome(self) -> Outcome:
        """Side a's outcome, one of OUTCOMES."""
        return self.a.outcome


def _side_roll(side: Side, dice: Iterable[int]) -> tuple[tuple[int, ...], int, int]:
    faces = check_faces(dice, sides=DIE, count=dice_for(side.edge))
    kept = _kept(faces, side.edge)
    return faces, kept, max(kept, side.ability)


def _opposed_grade(total_a: int, fumble_a: bool, adv_a: bool,
                   total_b: int, fumble_b: bool, adv_b: bool) -> tuple[Outcome, Outcome, str | None]:
    """Outcomes for a and b and the winner; fumbles lose outright, ties are mixed for both."""
    if fumble_a and fumble_b:
        return FUMBLE, FUMBLE, None
    if fumble_a or fumble_b:
        win, lose_total, win_total = ("b", total_a, total_b) if fumble_a else ("a", total_b, total_a)
        grade = CRITICAL if win_total >= lose_total + CRITICAL_MARGIN else SUCCESS
        return (FUMBLE, grade, "b") if win == "b" else (grade, FUMBLE, "a")
    if total_a == total_b:
        # An (Adv.) trait turns a tie into a win only when the other side lacks one.
        if adv_a and not adv_b:
            return SUCCESS, FAILURE, "a"
        if adv_b and not adv_a:
            return FAILURE, SUCCESS, "b"
        return MIXED, MIXED, None
    grade = CRITICAL if abs(total_a - total_b) >= CRITICAL_MARGIN else SUCCESS
    return (grade, FAILURE, "a") if total_a > total_b else (FAILURE, grade, "b")


def opposed(a: Side, dice_a: Iterable[int], b: Side, dice_b: Iterable[int]) -> OpposedResult:
    """Settle an opposed roll from both sides' faces: the higher total wins."""
    faces_a, kept_a, total_a = _side_roll(a, dice_a)
    faces_b, kept_b, total_b = _side_roll(b, dice_b)
    out_a, out_b, winner = _opposed_grade(total_a, kept_a == 1, a.adv_trait,
                                          total_b, kept_b == 1, b.adv_trait)
    res_a = TaskResult(ability=a.ability, difficulty=total_b, faces=faces_a, kept=kept_a,
                       total=total_a, outcome=out_a, edge=a.edge, adv_trait=a.adv_trait)
    res_b = TaskResult(ability=b.ability, difficulty=total_a, faces=faces_b, kept=kept_b,
                       total=total_b, outcome=out_b, edge=b.edge, adv_trait=b.adv_trait)
    margin = abs(total_a - total_b) if winner else 0
    return OpposedResult(a=res_a, b=res_b, winner=winner, margin=margin,
                         critical=CRITICAL in (out_a, out_b))


def roll_opposed(roller: Roller, a: Side, b: Side) -> OpposedResult:
    """Throw both sides' dice for an opposed roll."""
    dice_a = roller.dice(dice_for(a.edge), DIE)
    dice_b = roller.dice(dice_for(b.edge), DIE)
    return opposed(a, dice_a, b, dice_b)


def opposed_chance(a: Side, b: Side) -> dict[str, Fraction]:
    """Exact odds of each outcome for side a in an opposed roll against side b."""
    odds = _blank()
    states_b = _side_states(b.ability, b.edge)
    for (ta, fa), pa in _side_states(a.ability, a.edge).items():
        for (tb, fb), pb in states_b.items():
            out_a, _, _ = _opposed_grade(ta, fa, a.adv_trait, tb, fb, b.adv_trait)
            odds[out_a] += pa * pb
    return odds


@dataclass(frozen=True)
class TeamResult:
    """A team task: each member's faces, the best single number, and the shared outcome."""

    members: tuple[Side, ...]
    faces: tuple[tuple[int, ...], ...]
    difficulty: int
    total: int
    outcome: Outcome
    adv_trait: bool = False


def team_check(members: Sequence[Side], dice: Sequence[Iterable[int]], difficulty: int, *,
               adv_trait: bool = False) -> TeamResult:
    """Grade a team task: the best ability or kept die counts, and any member's fumble sinks it."""
    members = tuple(members)
    if not members:
        raise TriadError("A team needs at least one member.", field="members")
    if len(dice) != len(members):
        raise TriadError(f"Each of the {len(members)} team members needs their own dice.",
                         field="dice")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    faces, totals, fumbled = [], [], False
    for side, rolled in zip(members, dice, strict=True):
        f, kept, total = _side_roll(side, rolled)
        faces.append(f)
        totals.append(total)
        fumbled = fumbled or kept == 1
    total = max(totals)
    outcome = _grade(total, difficulty, fumbled=fumbled, adv_trait=bool(adv_trait))
    return TeamResult(members=members, faces=tuple(faces), difficulty=difficulty, total=total,
                      outcome=outcome, adv_trait=bool(adv_trait))


def roll_team(roller: Roller, members: Sequence[Side], difficulty: int, *,
              adv_trait: bool = False) -> TeamResult:
    """Throw every member's dice for a team task."""
    dice = [roller.dice(dice_for(m.edge), DIE) for m in members]
    return team_check(members, dice, difficulty, adv_trait=adv_trait)


def team_chance(members: Sequence[Side], difficulty: int, *,
                adv_trait: bool = False) -> dict[str, Fraction]:
    """Exact odds of each outcome of a team task."""
    members = tuple(members)
    if not members:
        raise TriadError("A team needs at least one member.", field="members")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    states = [_side_states(m.ability, m.edge) for m in members]
    tops = range(0, max(max(t for t, _ in s) for s in states) + 1)

    def clean_at_most(t: int) -> Fraction:
        # P(nobody fumbles and every member's total <= t): members roll independently.
        prod = Fraction(1)
        for s in states:
            prod *= sum((p for (tot, f), p in s.items() if not f and tot <= t), Fraction(0))
        return prod

    odds = _blank()
    clean = [clean_at_most(t) for t in tops]
    for t in tops:
        p = clean[t] - (clean[t - 1] if t else 0)
        if p:
            odds[_grade(t, difficulty, fumbled=False, adv_trait=bool(adv_trait))] += p
    odds[FUMBLE] = 1 - clean[-1]
    return odds
