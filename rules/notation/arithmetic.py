"""The exact odds' arithmetic, and the meter that bounds its cost.

A distribution is (lowest total, ways for each total from there up, ways in all).

Adding independent totals multiplies their generating polynomials; Kronecker substitution packs
each polynomial's integer coefficients into one Python int, wide enough that no slot can carry
into the next, so one big-integer multiplication does the whole convolution.

Every step estimates its cost before it runs and charges it to a meter; past the budget it raises
NotExact, and chance() says None. The costs were measured on a slow machine shared by several test
runs (Python 3.11's Karatsuba squared a 250,000-bit integer in 15 to 30 ms there), and the budget
leaves room for the estimates' error, so a line stays under 50 ms; bench/odds.py times the worst.
"""

from __future__ import annotations

from contextvars import ContextVar
from fractions import Fraction

from rules.notation.tree import NotExact

_BUDGET_MS = 30.0  # estimated work for one line's chance or distribution
_MAX_PACKED_BITS = 600_000  # the largest packed polynomial built at all
MAX_SUPPORT = 5_000  # totals in one distribution (each becomes a Fraction for the reader)
MAX_DENOMINATOR_BITS = 12_000  # keeps str(chance) under Python's 4,300-digit limit

Dist = tuple[int, list[int], int]

_spent: ContextVar[float | None] = ContextVar("dice_box_odds_spent", default=None)


def charge(ms: float) -> None:
    """Book estimated work against the running meter; with no meter running (tests), nothing is booked."""
    spent = _spent.get()
    if spent is None:
        return
    if spent + ms > _BUDGET_MS:
        raise NotExact("the exact figure would take too long")
    _spent.set(spent + ms)


def multiplication_ms(bits_a: int, bits_b: int) -> float:
    """Karatsuba's cost: (n/250,000)**1.585 * 30 ms for two n-bit numbers, linear in the longer one."""
    small, big = max(1, min(bits_a, bits_b)), max(bits_a, bits_b)
    return 30.0 * (big / small) * (small / 250_000) ** 1.585 + big / 5_000_000


def slots_ms(length: int) -> float:
    """Packing and unpacking cost about two microseconds a slot, whatever its width."""
    return length / 500


def metered(compute):
    """Run one chance or distribution with a fresh meter (a ContextVar: safe across threads)."""
    token = _spent.set(0.0)
    try:
        return compute()
    finally:
        _spent.reset(token)


def slot_width(bound: int) -> int:
    """Bytes per slot for coefficients up to ``bound``."""
    return bound.bit_length() // 8 + 1


def pack(counts: list[int], width: int) -> int:
    return int.from_bytes(b"".join(c.to_bytes(width, "little") for c in counts), "little")


def unpack(value: int, width: int, length: int) -> list[int]:
    raw = value.to_bytes(width * length, "little")
    return [int.from_bytes(raw[k : k + width], "little") for k in range(0, width * length, width)]


def check_size(length: int, width: int) -> None:
    if length > MAX_SUPPORT:
        raise NotExact(f"more than {MAX_SUPPORT:,} totals")
    if length * width * 8 > _MAX_PACKED_BITS:
        raise NotExact("the exact counts grow too large")


def multiply(a: list[int], b: list[int]) -> list[int]:
    """The convolution of two coefficient lists, by one multiplication of packed integers."""
    if len(a) == 1 or len(b) == 1:
        (scalar,), other = (a, b) if len(a) == 1 else (b, a)
        return [scalar * c for c in other]
    length = len(a) + len(b) - 1
    width = slot_width(max(min(max(a) * sum(b), sum(a) * max(b)), max(a), max(b)))
    check_size(length, width)
    charge(multiplication_ms(len(a) * width * 8, len(b) * width * 8) + slots_ms(length))
    return unpack(pack(a, width) * pack(b, width), width, length)


def power(a: list[int], n: int) -> list[int]:
    """``a`` convolved with itself ``n`` times: one packed integer raised to the n-th power."""
    if n == 1 or len(a) == 1:
        return [c**n for c in a]
    length = n * (len(a) - 1) + 1
    width = slot_width(max(a) * sum(a) ** (n - 1))
    check_size(length, width)
    bits = length * width * 8
    # repeated squaring: the last squaring (of half the result) is the bulk, the earlier ones a half more
    charge((1.0 if n == 2 else 1.6) * multiplication_ms(bits // 2, bits // 2) + slots_ms(length))
    return unpack(pack(a, width) ** n, width, length)


def check_denominator(denominator: int) -> None:
    if denominator.bit_length() > MAX_DENOMINATOR_BITS:
        raise NotExact("the exact chance has too many digits")


def trimmed(low: int, counts: list[int], total: int) -> Dist:
    start = next(n for n, c in enumerate(counts) if c)
    end = len(counts) - next(n for n, c in enumerate(reversed(counts)) if c)
    return low + start, counts[start:end], total


def from_ways(ways: dict[int, int], total: int) -> Dist:
    low, high = min(ways), max(ways)
    if high - low + 1 > MAX_SUPPORT:
        raise NotExact(f"more than {MAX_SUPPORT:,} totals")
    counts = [0] * (high - low + 1)
    for value, count in ways.items():
        counts[value - low] += count
    return trimmed(low, counts, total)


def add(x: Dist, y: Dist) -> Dist:
    total = x[2] * y[2]
    check_denominator(total)
    return x[0] + y[0], multiply(x[1], y[1]), total


def negate(x: Dist) -> Dist:
    return -(x[0] + len(x[1]) - 1), x[1][::-1], x[2]


def combine(x: Dist, y: Dist, op: str) -> Dist:
    """``x * y`` or ``x / y`` (rounded down) of two independent totals."""
    xs = [(x[0] + n, c) for n, c in enumerate(x[1]) if c]
    ys = [(y[0] + n, c) for n, c in enumerate(y[1]) if c]
    charge(len(xs) * len(ys) / 1_000)  # about a microsecond a pair
    total = x[2] * y[2]
    check_denominator(total)
    ways: dict[int, int] = {}
    for a, m in xs:
        for b, n in ys:
            value = a * b if op == "*" else a // b
            ways[value] = ways.get(value, 0) + m * n
    return from_ways(ways, total)


def lump(dist: Dist, cap: int) -> Dist:
    """Totals at or past ``cap`` merged into ``cap``."""
    low, counts, total = dist
    charge(slots_ms(len(counts)))
    if low >= cap:
        return cap, [sum(counts)], total
    cut = cap - low
    if len(counts) <= cut + 1:
        return dist
    return low, counts[:cut] + [sum(counts[cut:])], total


def mix(x: Dist, y: Dist) -> Dist:
    """Two parts of one distribution (the same denominator) put together."""
    low = min(x[0], y[0])
    counts = [0] * (max(x[0] + len(x[1]), y[0] + len(y[1])) - low)
    charge(slots_ms(len(counts)))
    for start, part in ((x[0], x[1]), (y[0], y[1])):
        for n, c in enumerate(part):
            counts[start - low + n] += c
    return low, counts, x[2]


def tail(dist: Dist, threshold: int) -> Fraction:
    low, counts, total = dist
    return Fraction(sum(counts[max(0, threshold - low) :]), total)
