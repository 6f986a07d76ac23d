"""Experience: what a rank of a trait, Void or a skill costs, and what a character's ranks cost in all."""

from __future__ import annotations

from collections.abc import Mapping

from rules.dice import RulesError
from rules.l5r.ranks import SKILL_MAX, SKILL_MIN, TRAIT_MAX, TRAIT_MIN, _rank
from rules.l5r.traits import TRAITS, _trait

# ------------------------------------------------------------------ experience: what ranks cost

# Not in the seed (which gives no costs): L5R 4th edition's common table. A trait costs 4 x the new
# rank, Void 6 x the new rank, a skill rank the new rank, an emphasis 2. A character starts with 2 in
# every trait and Void and no skills, and buys the rest from a starting budget (commonly 40 XP).
TRAIT_BASE = 2
TRAIT_XP_PER_RANK = 4
VOID_XP_PER_RANK = 6
EMPHASIS_XP = 2
STARTING_XP = 40
# 4th edition, Character Creation: every new character is a Rank 1 student of its school (the seed's
# Isawa Tishi is "a Rank 1 student", l.53).
STARTING_SCHOOL_RANK = 1


def _raise_cost(per_rank: int, low: int, high: int) -> int:
    """Buying every rank above ``low`` up to ``high``, each at ``per_rank`` x the new rank."""
    return per_rank * sum(range(low + 1, high + 1))


def trait_cost(rank: int) -> int:
    """XP to raise a trait to ``rank``, one step (4 x the new rank)."""
    return TRAIT_XP_PER_RANK * _rank("trait", rank, TRAIT_MIN, TRAIT_MAX)


def void_cost(rank: int) -> int:
    """XP to raise Void to ``rank``, one step (6 x the new rank)."""
    return VOID_XP_PER_RANK * _rank("void", rank, TRAIT_MIN, TRAIT_MAX)


def skill_cost(rank: int) -> int:
    """XP to raise a skill to ``rank``, one step (the new rank; rank 1 of a new skill costs 1)."""
    return _rank("skill", rank, SKILL_MIN + 1, SKILL_MAX)


def build_cost(
    traits: Mapping[str, int], *, void: int, skills: Mapping[str, int] | None = None, emphases: int = 0
) -> int:
    """What a character's ranks cost from the base (2 in every trait and Void, no skills).

    Costs depend only on the ranks held, so this is both what a new character's build spends and what
    a sheet has spent in all: a trait or Void below the base gives back nothing (it is a choice the
    GM allows, not a sale).
    """
    total = 0
    for name in TRAITS:
        total += _raise_cost(TRAIT_XP_PER_RANK, TRAIT_BASE, max(TRAIT_BASE, _trait(traits, name)))
    total += _raise_cost(
        VOID_XP_PER_RANK, TRAIT_BASE, max(TRAIT_BASE, _rank("void", void, TRAIT_MIN, TRAIT_MAX))
    )
    for name, rank in (skills or {}).items():
        total += _raise_cost(1, 0, _rank(name, rank, SKILL_MIN, SKILL_MAX))
    if isinstance(emphases, bool) or not isinstance(emphases, int) or emphases < 0:
        raise RulesError("The number of emphases must be a whole number, 0 or more.")
    return total + EMPHASIS_XP * emphases
