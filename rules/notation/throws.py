"""One throw and one chain of a die, and the bounds of a line they give.

Shared by parsing (its checks), rolling (how long a chain may run) and the exact odds, so the three
always agree on what a die can show.
"""

from __future__ import annotations

import math
from functools import lru_cache

from rules.l5r import ten_dice
from rules.notation.tree import (
    CHAIN_ODDS_BITS,
    L5R_SIDES,
    MAX_CHAIN,
    Condition,
    Constant,
    Dice,
    FiveByFive,
    Group,
    Node,
    Product,
    Repeat,
    Term,
    Tree,
)


def _chain_cap(weight: int, total: int) -> int:
    """Throws a chain may take when each further throw happens with chance weight/total (at most 1/2).

    The chain stops at the first length whose chance has fallen to 2**-99 or below, so the cap is
    out of reach in practice (a d2! needs the full MAX_CHAIN, a d6! stops at 40, a d20rr1 at 24).
    """
    if weight <= 0:
        return 1
    weights, totals = weight, total
    for extra in range(1, MAX_CHAIN):
        if weights << CHAIN_ODDS_BITS <= totals:
            return extra + 1
        weights, totals = weights * weight, totals * total
    return MAX_CHAIN


@lru_cache(maxsize=128)  # a rerolled d1000's counts hold a thousand 1,000-bit integers: keep few
def _throw_counts(
    low: int, high: int, reroll: Condition | None, once: bool, minimum: int | None, maximum: int | None
) -> tuple[int, tuple[int, ...], int]:
    """One throw after its rerolls and its least/most: (lowest face, ways for each face up, ways in all)."""
    faces = range(low, high + 1)
    sides = len(faces)
    if reroll is None:
        weights = [1] * sides
        total = sides
    else:
        matched = [reroll(face) for face in faces]
        hits = sum(matched)
        throws = 2 if once else _chain_cap(hits, sides)
        total = sides**throws
        # kept at the first throw that misses the reroll, or the last throw whatever it shows
        missed = sum(hits**j * sides ** (throws - 1 - j) for j in range(throws - 1))
        last = hits ** (throws - 1)
        weights = [(0 if hit else missed) + last for hit in matched]
    shown_low = low if minimum is None else max(low, minimum)
    shown_high = high if maximum is None else min(high, maximum)
    counts = [0] * (shown_high - shown_low + 1)
    for face, weight in zip(faces, weights, strict=True):
        counts[min(max(face, shown_low), shown_high) - shown_low] += weight
    common = math.gcd(total, *counts)
    return shown_low, tuple(c // common for c in counts), total // common


def throw(node: Dice) -> tuple[int, tuple[int, ...], int]:
    return _throw_counts(node.low, node.high, node.reroll, node.reroll_once, node.minimum, node.maximum)


def reroll_throws(node: Dice) -> int:
    if node.reroll is None:
        return 1
    if node.reroll_once:
        return 2
    hits = sum(1 for face in range(node.low, node.high + 1) if node.reroll(face))
    return _chain_cap(hits, node.high - node.low + 1)


def explode_throws(node: Dice) -> int:
    if not node.explode:
        return 1
    low, counts, total = throw(node)
    weight = sum(c for n, c in enumerate(counts) if node.explodes(low + n))
    return _chain_cap(weight, total)


def bounds(tree: Tree, *, odd_die_bonus: bool = False) -> tuple[int, int]:
    """The lowest and highest total a roll of ``tree`` can show (chains stop where rolling stops them)."""
    if isinstance(tree, Repeat):
        return bounds(tree.line, odd_die_bonus=odd_die_bonus)
    if isinstance(tree, FiveByFive):
        return (1, 6) if tree.value == -5 else (1, 36)
    return _sum_bounds(tree.terms, odd_die_bonus)


def _sum_bounds(terms: tuple[Term, ...], odd: bool) -> tuple[int, int]:
    low = high = 0
    for term in terms:
        least, most = node_bounds(term.node, odd)
        if term.sign < 0:
            least, most = -most, -least
        low += least
        high += most
    return low, high


def node_bounds(node: Node, odd: bool) -> tuple[int, int]:
    if isinstance(node, Constant):
        return node.value, node.value
    if isinstance(node, Dice):
        least, most = _die_bounds(node)
        return node.kept * least, node.kept * most
    if isinstance(node, Group):
        return _sum_bounds(node.terms, odd)
    if isinstance(node, Product):
        a, b = node_bounds(node.left, odd)
        c, d = node_bounds(node.right, odd)
        if node.op == "*":
            corners = [a * c, a * d, b * c, b * d]
        else:  # the divisor never spans 0, so the extremes sit at the corners
            corners = [x // y for x in (a, b) for y in (c, d) if y]
        return min(corners), max(corners)
    _, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd)
    return kept + bonus, kept * L5R_SIDES * (1 if node.unskilled else MAX_CHAIN) + bonus


def _die_bounds(node: Dice) -> tuple[int, int]:
    """The least and most one die of the group adds (its chain's total, or its successes)."""
    low, counts, _ = throw(node)
    shown = range(low, low + len(counts))
    exploding = [face for face in shown if node.explodes(face)]
    extra = explode_throws(node) - 1
    if node.success is not None and not node.compound:
        values = [node.counted(face) for face in shown]
        boom = [node.counted(face) for face in exploding] or [0]
        return min(values) + extra * min(0, min(boom)), max(values) + extra * max(0, max(boom))
    boom = exploding or [0]
    least, most = shown[0] + extra * min(0, min(boom)), shown[-1] + extra * max(0, max(boom))
    if node.success is not None:  # compound: the chain's total meets the conditions or not
        return (-1 if node.failure is not None else 0), 1
    return least, most
