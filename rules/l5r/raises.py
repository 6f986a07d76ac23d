"""Raises and TNs, second attempts, contested rolls, the two kinds of cooperation and cumulative rolls."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.dice import RulesError
from rules.l5r.ranks import (
    RAISE_STEP,
    SECOND_ATTEMPT_PENALTY,
    SKILL_MAX,
    SKILL_MIN,
    TRAIT_MAX,
    TRAIT_MIN,
    _int,
    _rank,
)

# --------------------------------------------------------------------------- raises and TNs


@dataclass(frozen=True)
class RaisePlan:
    tn: int  # the TN the roll must now reach
    effects: int  # how many raises' worth of benefit a success brings
    raises: int
    free_raises: int
    free_raises_on_tn: int


def plan_raises(
    tn: int,
    *,
    raises: int = 0,
    void: int,
    free_raises: int = 0,
    free_raises_on_tn: int = 0,
    unskilled: bool = False,
) -> RaisePlan:
    """The TN after raises (+5 each, at most Void) and free raises (spent as effects or -5 TN each)."""
    tn = _int("TN", tn)
    raises = _int("number of raises", raises)
    free_raises = _int("number of free raises", free_raises)
    free_raises_on_tn = _int("number of free raises spent on the TN", free_raises_on_tn)
    void = _rank("void", void, TRAIT_MIN, TRAIT_MAX)
    if min(raises, free_raises, free_raises_on_tn) < 0:
        raise RulesError("Raises cannot be negative.")
    if unskilled and (raises or free_raises):
        raise RulesError("An unskilled roll cannot use raises or free raises.")
    if raises > void:
        raise RulesError(f"With Void {void} you can call at most {void} raises, not {raises}.")
    if free_raises_on_tn > free_raises:
        raise RulesError(f"You have only {free_raises} free raises to spend on the TN.")
    new_tn = max(0, tn + RAISE_STEP * raises - RAISE_STEP * free_raises_on_tn)
    return RaisePlan(new_tn, raises + free_raises - free_raises_on_tn, raises, free_raises, free_raises_on_tn)


def second_attempt_tn(tn: int, *, attack: bool = False) -> int:
    """The TN of a second try at a failed skill roll: +10; attacks never get one."""
    if attack:
        raise RulesError("A missed attack cannot be tried again at +10 TN.")
    return _int("TN", tn) + SECOND_ATTEMPT_PENALTY


def second_attempt_needs_new_situation(trait: str) -> bool:
    """True for Intelligence and Perception rolls, which usually need new information to try again."""
    return str(trait).lower() in ("intelligence", "perception")


# ------------------------------------------------------------------ contests, cooperation, cumulative


def contest_winner(totals: Sequence[int], *, raises: Sequence[int] | None = None) -> int | None:
    """Index of the winner of a contested roll of two or more, or None when the top is tied (re-roll).

    The highest total wins, unless it declared raises and did not beat every other contestant still
    standing by 5 per raise: then it failed, drops out, and the rest are judged the same way. Two sides
    are the book's usual case ("by an increment of 5 for every Raise declared"); several are its "multiple
    characters ... the player who rolls the highest".
    """
    totals = [_int("total", t) for t in totals]
    if len(totals) < 2:
        raise RulesError("A contest needs at least two rolls.")
    declared = [0] * len(totals) if raises is None else [_int("number of raises", r) for r in raises]
    if len(declared) != len(totals) or min(declared) < 0:
        raise RulesError("Give each contestant's raises (0 or more), one per roll.")
    standing = list(range(len(totals)))
    while len(standing) > 1:
        best = max(totals[i] for i in standing)
        leaders = [i for i in standing if totals[i] == best]
        if len(leaders) > 1:
            return None
        leader = leaders[0]
        runner_up = max(totals[i] for i in standing if i != leader)
        if best - runner_up >= RAISE_STEP * declared[leader]:
            return leader
        standing.remove(leader)  # its raises were not beaten by: it failed the roll
    return standing[0]


def group_effort_bonus(helper_ranks: Iterable[int]) -> int:
    """First kind of cooperative roll: the one roller adds the skill ranks of everyone helping."""
    return sum(_rank("skill", r, SKILL_MIN, SKILL_MAX) for r in helper_ranks)


def roped_team_bonuses(ranks: Sequence[int]) -> tuple[int, ...]:
    """Second kind: everyone rolls; all but the best-ranked member add the best rank (one leader on ties)."""
    ranks = [_rank("skill", r, SKILL_MIN, SKILL_MAX) for r in ranks]
    if not ranks:
        return ()
    best = max(ranks)
    leader = ranks.index(best)
    return tuple(0 if i == leader else best for i in range(len(ranks)))


@dataclass(frozen=True)
class CumulativeProgress:
    remaining: int  # TN still to go, never below 0
    counted: tuple[bool, ...]  # which rolls counted against the total
    done: bool


def cumulative(tn: int, totals: Iterable[int], *, minimum: int = 0) -> CumulativeProgress:
    """A cumulative roll: each total reaching ``minimum`` is taken off the TN until nothing is left."""
    remaining = _int("TN", tn)
    counted = []
    for total in totals:
        total = _int("total", total)
        counts = remaining > 0 and total >= minimum
        counted.append(counts)
        if counts:
            remaining = max(0, remaining - total)
    return CumulativeProgress(remaining, tuple(counted), remaining <= 0)
