"""Exact distributions of dice groups and sums of them, and of a line's total capped at its target."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache

from rules.notation.arithmetic import (
    MAX_DENOMINATOR_BITS,
    MAX_SUPPORT,
    Dist,
    add,
    charge,
    check_denominator,
    check_size,
    combine,
    from_ways,
    lump,
    mix,
    multiplication_ms,
    multiply,
    negate,
    pack,
    power,
    slot_width,
    slots_ms,
    tail,
    trimmed,
    unpack,
)
from rules.notation.throws import explode_throws, throw
from rules.notation.tree import Constant, Dice, Expression, Group, Keep, Node, NotExact, Product, Term


def _face_ways(node: Dice, low: int, counts: tuple[int, ...], faces, per_face: bool) -> dict[int, int]:
    """The ways for each value some faces of one throw give: the face, or (``per_face``) what it counts."""
    ways: dict[int, int] = {}
    for face in faces:
        if counts[face - low]:
            value = node.counted(face) if per_face else face
            ways[value] = ways.get(value, 0) + counts[face - low]
    return ways


def _die_counts(node: Dice, *, per_face: bool) -> Dist:
    """One die of the group: its chain's total, or (``per_face``) the successes its faces count."""
    low, counts, total = throw(node)
    shown = range(low, low + len(counts))

    def mapped(faces) -> dict[int, int]:
        return _face_ways(node, low, counts, faces, per_face)

    if not node.explode:
        return from_ways(mapped(shown), total)
    throws = explode_throws(node)
    boom = from_ways(mapped([face for face in shown if node.explodes(face)]), 1)
    stay = from_ways(mapped([face for face in shown if not node.explodes(face)]), 1)
    whole = from_ways(mapped(shown), 1)
    # T(1) = any face; T(c) = a face that stays, then nothing more (scaled to the common
    # denominator), or an exploding face followed by a chain of at most c-1 throws. Kept packed
    # throughout: every coefficient stays below total**throws, so no slot ever overflows.
    mass = total**throws
    check_denominator(mass)
    width = slot_width(mass)
    check_size(throws * len(whole[1]), width)
    bits = 8 * width
    charge(
        throws * multiplication_ms(throws * len(whole[1]) * bits // 2, len(boom[1]) * bits)
        + slots_ms(throws * len(whole[1]))
    )
    packed_boom, packed_stay = pack(boom[1], width), pack(stay[1], width)
    chain, chain_low = pack(whole[1], width), whole[0]
    for c in range(2, throws + 1):
        grown, grown_low = packed_boom * chain, boom[0] + chain_low
        ended, ended_low = packed_stay * total ** (c - 1), stay[0]
        base = min(grown_low, ended_low)
        chain = (grown << (grown_low - base) * bits) + (ended << (ended_low - base) * bits)
        chain_low = base
    length = max(1, -(-chain.bit_length() // bits))
    return trimmed(chain_low, unpack(chain, width, length), mass)


def _keep_ways(per_die: Dist, node: Dice, *, cap: int | None = None) -> Dist:
    """Keep the best (or worst) of the group's dice, adding their totals or their successes.

    Walks the die's totals from the first kept end, choosing how many dice show each: once the
    kept dice are all placed, the rest need only fall on the far side (the L5R engine's method).
    """
    n, k = node.count, node.kept
    low, counts, total = per_die
    values = [(low + i, c) for i, c in enumerate(counts) if c]
    if node.keep is Keep.HIGHEST:
        values.reverse()
    contribution = node.counted if node.success is not None else (lambda v: v)
    if node.success is not None:
        # neighbouring totals that count the same are one step: ties keep the same successes
        runs: list[tuple[int, int]] = []
        for v, weight in values:
            gain = contribution(v)
            if runs and contribution(runs[-1][0]) == gain:
                runs[-1] = (runs[-1][0], runs[-1][1] + weight)
            else:
                runs.append((v, weight))
        values = runs
    gains = [contribution(v) for v, _ in values]
    spread = max(gains) - min(gains)
    steps = len(values) * sum((j * spread + 2) * (k - j) for j in range(k)) + k * k
    charge(steps / 1_000)  # about a microsecond a step
    check_denominator(total**n)
    binomials = [[math.comb(n - j, c) for c in range(k - j)] for j in range(k)]
    layers: list[dict[int, int]] = [{} for _ in range(k)]
    layers[0][0] = 1
    ways: dict[int, int] = {}
    rest = total
    for (_, weight), gain in zip(values, gains, strict=True):
        below = rest - weight
        powers = [weight**c for c in range(k)]
        lowest = n - k + 1  # the fewest free dice left once fewer than need show this value
        below_powers = {lowest: below**lowest}
        for e in range(lowest + 1, n + 1):
            below_powers[e] = below_powers[e - 1] * below
        new_layers: list[dict[int, int]] = [{} for _ in range(k)]
        for j, layer in enumerate(layers):
            if not layer:
                continue
            free, need = n - j, k - j
            # c of the free dice show this value, comb(free, c) ways to pick them; with need or more
            # the kept dice are all placed and the rest fall beyond. Those moves add up to one weight:
            # every way for the free dice to fall here or beyond, rest**free, less the fewer-than-need
            row = binomials[j]
            moves = [(c, row[c] * powers[c]) for c in range(1, need)]
            finish = rest**free - sum(row[c] * powers[c] * below_powers[free - c] for c in range(need))
            for s, count in layer.items():
                new_layers[j][s] = new_layers[j].get(s, 0) + count
                for c, weight_c in moves:
                    target = new_layers[j + c]
                    s2 = s + c * gain if cap is None else min(s + c * gain, cap)
                    target[s2] = target.get(s2, 0) + count * weight_c
                if finish:
                    s2 = s + need * gain if cap is None else min(s + need * gain, cap)
                    ways[s2] = ways.get(s2, 0) + count * finish
        layers = new_layers
        rest = below
    return from_ways(ways, total**n)


def _dice_dist(node: Dice) -> Dist:
    keeps_some = node.drops_any
    per_face = node.success is not None and not node.compound
    if keeps_some and per_face and node.explode:
        raise NotExact("keeping exploding dice that count each face")
    # keeping looks at each die's total; the successes are counted from the kept totals
    if node.count * (_die_mass(node).bit_length() - 1) > MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")
    per_die = _die_counts(node, per_face=per_face and not keeps_some)
    if keeps_some:
        return _keep_ways(per_die, node)
    if node.success is not None and node.compound:
        ways: dict[int, int] = {}
        for n, c in enumerate(per_die[1]):
            if c:
                value = node.counted(per_die[0] + n)
                ways[value] = ways.get(value, 0) + c
        per_die = from_ways(ways, per_die[2])
    check_denominator(per_die[2] ** node.count)
    return per_die[0] * node.count, power(per_die[1], node.count), per_die[2] ** node.count


@lru_cache(maxsize=128)
def node_dist(node: Node) -> Dist:
    """Cached: a table rolls the same few lines all night. Callers must not change the lists."""
    if isinstance(node, Constant):
        return node.value, [1], 1
    if isinstance(node, Dice):
        return _dice_dist(node)
    if isinstance(node, Group):
        return sum_dist(node.terms)
    if isinstance(node, Product):
        left, right = node_dist(node.left), node_dist(node.right)
        if len(right[1]) == 1 and node.op == "*" and right[0] >= 0:
            # times a sure number (a constant, or dice that always count the same): spread the totals
            factor, weight = right[0], right[1][0]
            if factor == 0:
                return 0, [sum(left[1]) * weight], left[2] * right[2]
            if (len(left[1]) - 1) * factor + 1 > MAX_SUPPORT:
                raise NotExact(f"more than {MAX_SUPPORT:,} totals")
            spread = [0] * ((len(left[1]) - 1) * factor + 1)
            spread[::factor] = [c * weight for c in left[1]]
            return left[0] * factor, spread, left[2] * right[2]
        return combine(left, right, node.op)
    raise NotExact("roll and keep dice have only their chance against a TN worked out")


def _alike_groups(terms: tuple[Term, ...]) -> tuple[Counter, list[Term]]:
    """Groups of alike dice that keep every die, merged: {(sign, one such die): dice}; and the other terms.

    So 20 terms of 1d600 are one power.
    """
    merged: Counter = Counter()
    others: list[Term] = []
    for term in terms:
        node = term.node
        if isinstance(node, Dice) and not node.drops_any:
            merged[(term.sign, dataclasses.replace(node, count=1, keep=None, keep_count=0))] += node.count
        else:
            others.append(term)
    return merged, others


def sum_dist(terms: tuple[Term, ...]) -> Dist:
    """The sum of terms; alike groups of dice are merged first (see _alike_groups)."""
    merged, others = _alike_groups(terms)
    parts = []
    for (sign, die), count in merged.items():
        parts.append((sign, node_dist(dataclasses.replace(die, count=count))))
    for term in others:
        parts.append((term.sign, node_dist(term.node)))
    parts.sort(key=lambda part: len(part[1][1]))
    out: Dist = (0, [1], 1)
    for sign, dist in parts:
        out = add(out, dist if sign > 0 else negate(dist))
    return out


# A line whose every term adds something never negative needs only P(total >= target): totals at or
# past what is still missing can be merged into one, at every step (a die's chain, its group, the
# sum). That keeps exploding pools small whatever their chains' length; the denominators stay exact.


def cappable(tree: Expression) -> bool:
    for term in tree.terms:
        node = term.node
        if isinstance(node, Constant):
            continue
        if term.sign < 0 or not isinstance(node, Dice) or node.fudge or node.failure is not None:
            return False
        if node.success is not None and (node.compound or node.keep is not None):
            return False  # a success count of a whole chain, or of kept dice, is not monotone in it
        if node.minimum is not None and node.minimum < 0:
            return False
    return True


def _capped_die(node: Dice, cap: int, per_face: bool) -> Dist:
    low, counts, total = throw(node)
    shown = range(low, low + len(counts))

    def part(faces) -> Dist:
        return lump(from_ways(_face_ways(node, low, counts, faces, per_face), 1), cap)

    whole = part(shown)
    if not node.explode:
        return whole[0], whole[1], total
    throws = explode_throws(node)
    mass = total**throws
    check_denominator(mass)
    boom = part([face for face in shown if node.explodes(face)])
    stay = part([face for face in shown if not node.explodes(face)])
    chain = whole
    for c in range(2, throws + 1):  # as in _die_counts, merging past the cap at each throw
        grown = lump((boom[0] + chain[0], multiply(boom[1], chain[1]), 1), cap)
        scale = total ** (c - 1)
        chain = lump(mix(grown, (stay[0], [w * scale for w in stay[1]], 1)), cap)
    return chain[0], chain[1], mass


def _capped_sum(x: Dist, y: Dist, cap: int) -> Dist:
    return lump(add(x, y), cap)


def _capped_dice(node: Dice, cap: int) -> Dist:
    per_face = node.success is not None
    per_die = _capped_die(node, cap, per_face)
    if node.drops_any:
        return _keep_ways(per_die, node, cap=cap)
    out: Dist = (0, [1], 1)
    square, n = per_die, node.count
    while n:  # square and multiply, merging past the cap after every product
        if n & 1:
            out = _capped_sum(out, square, cap)
        n >>= 1
        if n:
            square = _capped_sum(square, square, cap)
    return out


def _die_mass(node: Dice) -> int:
    """The denominator of one die of the group: a throw's, raised to the chain's longest."""
    return throw(node)[2] ** explode_throws(node)


def capped_chance(tree: Expression, threshold: int) -> Fraction:
    cap = threshold - sum(t.sign * t.node.value for t in tree.terms if isinstance(t.node, Constant))
    if cap <= 0:
        return Fraction(1)  # nothing in the line is negative
    dice = [t.node for t in tree.terms if isinstance(t.node, Dice)]
    if sum(node.count * _die_mass(node).bit_length() for node in dice) > MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")
    merged, others = _alike_groups(tree.terms)  # every sign is + here (cappable)
    out: Dist = (0, [1], 1)
    for (_, die), count in merged.items():
        out = _capped_sum(out, _capped_dice(dataclasses.replace(die, count=count), cap), cap)
    for term in others:
        if isinstance(term.node, Dice):
            out = _capped_sum(out, _capped_dice(term.node, cap), cap)
    return tail(out, cap)
