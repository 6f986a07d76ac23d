"""A line's exact chance (:func:`chance`, :func:`rolled_chance`) and distribution (:func:`distribution`).

Plain dice (no modifiers) have a closed form: the ways n dice of s sides stay at or under m are a
short alternating sum of binomials, so the chance of a sum of plain dice needs no distribution at
all. L5R roll and keep goes to the L5R engine, Five by Five to its own; the rest to distributions.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, lru_cache

from rules.dice import RulesError
from rules.fivebyfive import chance as five_by_five_chance
from rules.l5r import MAX_ODDS_TARGET as L5R_MAX_TARGET
from rules.l5r import chance as l5r_chance
from rules.l5r import ten_dice
from rules.notation.arithmetic import MAX_SUPPORT, Dist, charge, check_denominator, from_ways, metered, tail
from rules.notation.distributions import cappable, capped_chance, sum_dist
from rules.notation.tree import (
    Constant,
    Dice,
    Expression,
    FiveByFive,
    Node,
    NotationLimitError,
    NotExact,
    Repeat,
    RollKeep,
    Term,
    Tree,
    counts_successes,
)

_MAX_SPLIT = 64  # totals of a line's other terms that the closed form is evaluated at


def _is_plain(node: Node) -> bool:
    return (
        isinstance(node, Dice)
        and not node.drops_any
        and not node.explode
        and node.reroll is None
        and node.minimum is None
        and node.maximum is None
        and node.success is None
    )


def _plain_tail(plain: list[tuple[int, int]], rest: Dist, threshold: int) -> Fraction:
    """P(Y + rest >= threshold) where Y adds n dice of s faces 0..s-1 for each (n, s) in ``plain``.

    (1 + x + ... + x^(s-1))^n = (1 - x^s)^n / (1 - x)^n, so the ways for Y <= m are
    sum over the numerator's terms a*x^e (e <= m) of a * C(m - e + N, N), N the number of dice.
    """
    dice = sum(n for n, _ in plain)
    most = sum(n * (s - 1) for n, s in plain)
    outcomes = math.prod(s**n for n, s in plain)
    check_denominator(outcomes * rest[2])
    points = [(rest[0] + i, c) for i, c in enumerate(rest[1]) if c]
    if len(points) > _MAX_SPLIT:
        raise NotExact("too many totals to split on")

    def mirrored(m: int) -> tuple[int, bool]:
        # Y and most - Y have the same distribution: walk whichever side has fewer terms
        return (most - 1 - m, True) if m > most - 1 - m else (m, False)

    wanted = []
    for value, _ in points:
        m = threshold - value - 1  # ways that fall short: Y <= m
        if 0 <= m < most:
            wanted.append(mirrored(m)[0])
    reach = max(wanted, default=-1)
    numerator: dict[int, int] = {0: 1}
    by_sides: Counter = Counter()
    for n, s in plain:
        by_sides[s] += n
    for s, n in by_sides.items():
        factor = {s * k: (-1) ** k * math.comb(n, k) for k in range(n + 1) if s * k <= reach}
        charge(len(numerator) * len(factor) / 1_000)  # about a microsecond a pair
        new: dict[int, int] = {}
        for e1, a1 in numerator.items():
            for e2, a2 in factor.items():
                if e1 + e2 <= reach:
                    new[e1 + e2] = new.get(e1 + e2, 0) + a1 * a2
        numerator = {e: a for e, a in new.items() if a}
        if len(numerator) * len(wanted) > MAX_SUPPORT:
            raise NotExact("the closed form has too many terms")
    terms = sorted(numerator.items())
    # Measured costs on a slow machine: math.comb(m, N) takes about (N/30)**2 microseconds; walking
    # from C(top + gap, N) to C(top, N) takes about gap * N / 150. Each step takes the cheaper road,
    # and the meter stops the walk once the estimate passes the budget.
    comb_cost = 1 + (dice / 30) ** 2

    def at_most(m: int) -> int:
        acc = 0
        previous = None
        binomial = 0
        for e, a in terms:
            if e > m:
                break
            top = m - e + dice
            walk_cost = math.inf if previous is None else 1 + (previous - top) * dice / 150
            charge(min(comb_cost, walk_cost) / 1_000)
            if walk_cost < comb_cost:  # C(top, N) from C(previous, N): a product over the gap
                binomial = (binomial * math.prod(range(top + 1 - dice, previous + 1 - dice))) // math.prod(
                    range(top + 1, previous + 1)
                )
            else:
                binomial = math.comb(top, dice)
            previous = top
            acc += a * binomial
        return acc

    reached = 0
    for value, count in points:
        m = threshold - value - 1
        if m < 0:
            short = 0
        elif m >= most:
            short = outcomes
        else:
            point, flipped = mirrored(m)
            short = outcomes - at_most(point) if flipped else at_most(point)
        reached += count * (outcomes - short)
    return Fraction(reached, outcomes * rest[2])


def _expression_chance(tree: Expression, threshold: int) -> Fraction:
    plain: list[tuple[int, int]] = []
    shift = 0
    others: list[Term] = []
    for term in tree.terms:
        node = term.node
        if isinstance(node, Constant):
            shift += term.sign * node.value
        elif _is_plain(node):
            sides = node.high - node.low + 1
            # a die reads low-1 more than a face counted from 0; minus a die is sides-1 minus another
            if term.sign > 0:
                shift += node.count * node.low
            else:
                shift -= node.count * node.high
            plain.append((node.count, sides))
        else:
            others.append(term)
    if plain:
        try:
            rest = sum_dist(tuple(others)) if others else (0, [1], 1)
            return _plain_tail(plain, (rest[0] + shift, rest[1], rest[2]), threshold)
        except NotExact:
            pass  # the distribution may still be small enough to build, and the meter has room
    if cappable(tree):
        return capped_chance(tree, threshold)
    return tail(sum_dist(tree.terms), threshold)


_L5R_BUDGET_MS = 40.0


def _l5r_ms(node: RollKeep, target: int, odd_die_bonus: bool) -> float:
    """The L5R engine's cold cost, measured: 10k10 takes 200 ms at TN 250, 37 ms at 125, growing as
    TN**2.6 and with the dice (this bound is above every pool's measured cost). Its answers are
    cached, but a fresh TN is cold, and the dice box must answer within 50 ms."""
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    reach = max(0, target - bonus)
    return 200.0 * (reach / 250) ** 2.6 * min(1.0, rolled * kept / 50)


def _threshold(tree: Expression) -> int | None:
    if tree.target is not None:
        return tree.target
    return 1 if counts_successes(tree) else None


def _roll_keep_line(tree: Expression) -> tuple[RollKeep, int] | None:
    """A line that is one L5R pool plus constants: (the pool, the constants' sum); else None."""
    constant = sum(t.sign * t.node.value for t in tree.terms if isinstance(t.node, Constant))
    groups = [t for t in tree.terms if not isinstance(t.node, Constant)]
    if len(groups) == 1 and isinstance(groups[0].node, RollKeep) and groups[0].sign > 0:
        return groups[0].node, constant
    return None


def _highest_quick_tn(node: RollKeep, constant: int, odd_die_bonus: bool) -> int:
    """The highest target the L5R engine answers for this pool within its budget (see _l5r_ms) and
    its own bound on the TN less the bonuses."""
    rolled, kept, bonus = ten_dice(node.rolled, node.kept, odd_die_bonus=odd_die_bonus)
    scale = min(1.0, rolled * kept / 50)
    reach = min(L5R_MAX_TARGET, int(250 * (_L5R_BUDGET_MS / (200.0 * scale)) ** (1 / 2.6)))
    while reach > 0 and _l5r_ms(node, reach + bonus, odd_die_bonus) > _L5R_BUDGET_MS:
        reach -= 1  # the float root may land a step past the bound
    return reach + bonus + constant


# A saved roll, a dice-box line typed again, a sheet's button: the same lines come back all evening, and
# the work meter is a count, not a clock, so a line's figure is the same each time (a refusal is not kept).
@lru_cache(maxsize=1024)
def _exact_chance(tree: Tree, odd_die_bonus: bool) -> Fraction | None:
    """chance(), raising RulesError (NotExact included) where the figure is out of reach."""
    if isinstance(tree, FiveByFive):
        return five_by_five_chance(tree.value, doubles_token=tree.doubles_token)
    if isinstance(tree, Repeat):
        return None
    threshold = _threshold(tree)
    if threshold is None:
        return None
    pool = _roll_keep_line(tree)
    if pool is not None:
        node, constant = pool
        if _l5r_ms(node, threshold - constant, odd_die_bonus) > _L5R_BUDGET_MS:
            raise NotExact("the L5R engine would take too long at this TN")
        return l5r_chance(
            node.rolled,
            node.kept,
            threshold,
            explode=not node.unskilled,
            bonus=constant,
            odd_die_bonus=odd_die_bonus,
        )
    return metered(lambda: _expression_chance(tree, threshold))


def chance(tree: Tree, *, odd_die_bonus: bool = False) -> Fraction | None:
    """The exact chance (a Fraction) that a line succeeds: meets its target, or scores a success.

    None without a target or success count, for a repeated line (each roll has its own outcome),
    and when the exact figure is out of reach within the time bound (see :class:`NotExact`).
    """
    try:
        return _exact_chance(tree, odd_die_bonus)
    except RulesError:  # NotExact included
        return None


def rolled_chance(tree: Tree, text: str, *, odd_die_bonus: bool = False) -> Fraction | None:
    """The exact chance of a line about to be rolled; refuses a line whose chance is out of reach.

    The dice box rolls nothing it cannot give the exact odds of: a line with a target or a success
    count whose chance would take longer than the time bound raises NotationLimitError, pointing at
    the target (``text`` is the line as typed, for the message). None only where a line has no single
    chance (no target, or repeated).
    """
    try:
        return _exact_chance(tree, odd_die_bonus)
    except RulesError as error:
        body = text.split("#", 1)[0]
        at = body.rfind("vs") if getattr(tree, "target", None) is not None else -1
        index = at if at >= 0 else 0
        pool = _roll_keep_line(tree) if isinstance(tree, Expression) else None
        if pool is not None:
            node, constant = pool
            highest = _highest_quick_tn(node, constant, odd_die_bonus)
            name = f"{node.rolled}k{node.kept}"
            raise NotationLimitError(
                f"A TN past {highest} for {name}",
                text=text,
                index=index,
                hint=f"its exact chance is worked out against a TN up to {highest}",
            ) from error
        raise NotationLimitError(
            "An exact chance out of reach",
            text=text,
            index=index,
            hint=f"{error}; roll fewer or smaller dice, or a nearer target",
        ) from error


@dataclass(frozen=True)
class Distribution:
    """Every total a line can show with its exact chance: P(total = low + i) = counts[i] / denominator."""

    low: int
    counts: tuple[int, ...]
    denominator: int
    target: int | None  # the total that succeeds (a line's vs, or 1 for a success count)
    chance: Fraction | None  # P(total >= target)

    @property
    def high(self) -> int:
        return self.low + len(self.counts) - 1

    @cached_property
    def probabilities(self) -> dict[int, Fraction]:
        return {self.low + i: Fraction(c, self.denominator) for i, c in enumerate(self.counts) if c}

    @cached_property
    def mean(self) -> Fraction:
        return Fraction(sum((self.low + i) * c for i, c in enumerate(self.counts)), self.denominator)

    def probability(self, total: int) -> Fraction:
        i = total - self.low
        return Fraction(self.counts[i], self.denominator) if 0 <= i < len(self.counts) else Fraction(0)


def distribution(tree: Tree) -> Distribution:
    """The exact distribution of a line's total; raises NotExact where it cannot be had in time.

    A repeated line gives the distribution of one of its rolls. Roll and keep (L5R) dice, whose
    tens explode, have only their chance against a TN (:func:`chance`), and so raise NotExact too.
    """
    if isinstance(tree, Repeat):
        return distribution(tree.line)
    if isinstance(tree, FiveByFive):
        count = 1 if tree.value == -5 else 2
        ways: dict[int, int] = {}
        for faces in _faces(count):
            total = math.prod(faces)
            ways[total] = ways.get(total, 0) + 1
        low, counts, total = from_ways(ways, 6**count)
        chance_ = five_by_five_chance(tree.value, doubles_token=tree.doubles_token)
        return Distribution(low, tuple(counts), total, None, chance_)
    low, counts, total = metered(lambda: sum_dist(tree.terms))
    threshold = _threshold(tree)
    chance_ = None if threshold is None else tail((low, counts, total), threshold)
    return Distribution(low, tuple(counts), total, threshold, chance_)


def _faces(count: int):
    if count == 1:
        return [(a,) for a in range(1, 7)]
    return [(a, b) for a in range(1, 7) for b in range(1, 7)]
