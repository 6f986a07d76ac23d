"""Exact odds of a Roll & Keep pool: the chance of reaching a TN and the whole curve of totals.

Every figure is an exact :class:`fractions.Fraction`: although exploding dice have no upper bound, only
finitely many outcomes fall short of a TN, so the tail can be lumped. The work is cached
(:func:`cache_clear` forgets it, for cold-start benchmarks).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb

from rules.dice import RulesError
from rules.l5r.ranks import MAX_ODDS_TARGET, SIDES, _int, ten_dice

# --------------------------------------------------------------------------- exact odds


@lru_cache(maxsize=512)
def _die_weights(
    cap: int, explode: bool, reroll_ones: bool = False
) -> tuple[tuple[tuple[int, int], ...], int]:
    """One die's value, capped at ``cap`` (the top value lumps everything >= cap), as integer weights.

    Returns ((value, weight), ...) from the highest value down, and the scale: weights add up
    to 10**scale. An exploding die shows 10m + r (r in 1..9) with chance 10**-(m+1); no
    multiple of 10 can be its final value.

    With ``reroll_ones`` a first face of 1 (chance 1/10) is replaced by a fresh die D, so
    P(v) = D(v)/10 + D(v) for every v but 1 (a first face of 1 is never final), and P(1) = D(1)/10:
    over one more power of ten, weight 11w for each value but 1, and w for 1 (10w if 1 is the lump).
    """
    if reroll_ones:
        rows, scale = _die_weights(cap, explode)
        top = rows[0][0]
        return tuple((v, w * (10 if v == top else 1) if v == 1 else 11 * w) for v, w in rows), scale + 1
    if not explode:
        scale = 1
        rows = [(v, 1) for v in range(min(cap - 1, SIDES), 0, -1)]
        if cap <= SIDES:
            rows.insert(0, (cap, SIDES + 1 - cap))
        return tuple(rows), scale
    m, r = divmod(cap - 1, SIDES)
    r += 1  # cap == 10m + r with r in 1..10
    scale = m + 1
    rows = [(cap, (SIDES + 1 - r))]  # P(die >= cap) = (11 - r) / 10**(m+1)
    for v in range(cap - 1, 0, -1):
        if v % SIDES:
            rows.append((v, 10 ** (scale - (v // SIDES + 1))))
    return tuple(rows), scale


def _kept_sum_counts(
    n: int, k: int, cap: int, explode: bool, tail_only: bool, reroll_ones: bool = False
) -> tuple[tuple[int, ...], int]:
    """How the sum of the best k of n dice falls, each die and the sum capped at ``cap``.

    Returns (counts, scale): counts[s] / 10**(scale*n) is P(sum == s) for s < cap and
    counts[cap] / 10**(scale*n) is P(sum >= cap). With ``tail_only`` only counts[cap] is right
    (paths that can no longer reach the cap are dropped, certain ones are settled early).

    Dynamic programme over order statistics: walk the die values from the highest down,
    deciding how many of the n dice show each value; the first k placed are the kept ones.
    Once k dice are placed the sum is fixed and the rest only need to be lower.
    """
    rows, scale = _die_weights(cap, explode, reroll_ones)
    out = [0] * (cap + 1)
    if k == 0:
        out[0] = 10 ** (scale * n)
        return tuple(out), scale
    layers: list[dict[int, int]] = [{} for _ in range(k)]
    layers[0][0] = 1
    at_most = 10**scale  # weight of the values not yet passed (<= current value)
    binoms = [[comb(r, c) for c in range(r + 1)] for r in range(n + 1)]
    for v, w in rows:
        below = at_most - w
        if w == 0:
            at_most = below
            continue
        pow_below = [below**e for e in range(n + 1)]
        wpow = [w**c for c in range(n + 1)]
        new_layers: list[dict[int, int]] = [{} for _ in range(k)]
        for j in range(k):
            layer = layers[j]
            if not layer:
                continue
            r = n - j
            need = k - j
            bj = binoms[r]
            steps = [bj[c] * wpow[c] for c in range(r + 1)]
            if tail_only:
                pow_at_most = at_most**r
            for s, cnt in layer.items():
                if tail_only:
                    if s + need * v < cap:
                        continue  # even all remaining kept dice at this value fall short
                    if s + need >= cap:
                        out[cap] += cnt * pow_at_most  # every die shows at least 1: already there
                        continue
                carry = new_layers[j]
                carry[s] = carry.get(s, 0) + cnt
                for c in range(1, r + 1):
                    j2 = j + c
                    s2 = s + (c if c < need else need) * v
                    if s2 >= cap:
                        out[cap] += cnt * steps[c] * pow_below[n - j2]
                    elif j2 >= k:
                        if not tail_only:
                            out[s2] += cnt * steps[c] * pow_below[n - j2]
                    else:
                        nl = new_layers[j2]
                        nl[s2] = nl.get(s2, 0) + cnt * steps[c]
        layers = new_layers
        at_most = below
    return tuple(out), scale


def _check_target(tn: object, bonus: int) -> int:
    """TN less bonus, refused past MAX_ODDS_TARGET (the work grows with the cube of it)."""
    target = _int("TN", tn) - bonus
    if target > MAX_ODDS_TARGET:
        raise RulesError(f"Odds are worked out only up to TN {MAX_ODDS_TARGET} (after bonuses), not {tn}.")
    return target


def chance(
    rolled: int,
    kept: int,
    tn: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    odd_die_bonus: bool = False,
    reroll_ones: bool = False,
) -> Fraction:
    """Exact P(total >= tn) for XkY (+bonus) after the Ten Dice Rule, exploding tens unless told not to;
    ``reroll_ones``: an emphasis applies (each die first showing 1 rolled again, once)."""
    n, k, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    return _chance(n, k, _check_target(tn, bonus), bool(explode), bool(reroll_ones))


@lru_cache(maxsize=4096)
def _chance(n: int, k: int, target: int, explode: bool, reroll_ones: bool = False) -> Fraction:
    if target <= k:
        return Fraction(1)  # every die shows at least 1
    if not explode and target > SIDES * k:
        return Fraction(0)
    counts, scale = _kept_sum_counts(n, k, target, explode, True, reroll_ones)
    return Fraction(counts[target], 10 ** (scale * n))


def total_curve(
    rolled: int,
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    odd_die_bonus: bool = False,
    low: int | None = None,
    high: int | None = None,
    reroll_ones: bool = False,
) -> dict[int, Fraction]:
    """Exact P(total >= t) for each t from ``low`` to ``high`` (default: lowest total to 10 per kept die)."""
    n, k, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    low = k + bonus if low is None else _int("low end", low)
    high = SIDES * k + bonus if high is None else _int("high end", high)
    if high < low:
        raise RulesError("The curve's high end is below its low end.")
    if high - low > 1000:
        raise RulesError("That curve is too wide to draw.")
    _check_target(high, bonus)
    return dict(_curve(n, k, bonus, low, high, bool(explode), bool(reroll_ones)))


@lru_cache(maxsize=512)
def _curve(
    n: int, k: int, bonus: int, low: int, high: int, explode: bool, reroll_ones: bool = False
) -> tuple[tuple[int, Fraction], ...]:
    cap = max(high - bonus, 1)
    counts, scale = _kept_sum_counts(n, k, cap, explode, False, reroll_ones)
    denominator = 10 ** (scale * n)
    at_least = [0] * (cap + 2)
    for s in range(cap, -1, -1):
        at_least[s] = at_least[s + 1] + counts[s]
    curve = []
    for t in range(low, high + 1):
        target = t - bonus
        p = Fraction(1) if target <= 0 else Fraction(at_least[target], denominator)
        curve.append((t, p))
    return tuple(curve)


def cache_clear() -> None:
    """Forget every cached odds figure (for cold-start benchmarks)."""
    for fn in (_die_weights, _chance, _curve):
        fn.cache_clear()
