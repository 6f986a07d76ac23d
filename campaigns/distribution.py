"""The dice box's picture of a line: its exact distribution as an SVG bar chart, and the same in words.

``distribution_picture`` gives what templates/campaigns/_distribution.html draws; ``distribution_summary``
its text alternative and the line under it. Percentages are written as the feed writes them
(:func:`campaigns.rendering.format_percent`).
"""

from __future__ import annotations

from fractions import Fraction

from rules import notation

from .rendering import format_percent

CHART_WIDTH = 320
CHART_HEIGHT = 150
CHART_MARGIN = {"left": 44, "right": 8, "top": 10, "bottom": 34}
MAX_BARS = 100  # more totals than this are drawn (and tabled) in equal ranges
MAX_EXACT_DIGITS = 24  # a fraction longer than this is shown as its percentage alone
X_TICKS = 6


def exact_text(value: Fraction) -> str:
    text = str(value)
    return text if len(text) <= MAX_EXACT_DIGITS else ""


def _mean_text(mean: Fraction) -> str:
    if mean.denominator == 1:
        return str(mean.numerator)
    return f"{float(mean):.2f}".rstrip("0").rstrip(".")


_TICK_STEPS = sorted(m * 10**e for e in range(13) for m in (1, 2, 5))


def _ticks(low: int, high: int, count: int = X_TICKS) -> list[int]:
    """Totals to label the x axis: both ends and round values between, none crowding an end."""
    span = high - low
    if span <= 0:
        return [low]
    step = next(step for step in _TICK_STEPS if step * (count - 1) >= span)
    first = -(-low // step) * step
    between = [t for t in range(first, high + 1, step) if min(t - low, high - t) >= step]
    return [low, *between, high]


def distribution_picture(dist, *, target: int | None, repeat: int | None = None) -> dict:
    """What templates/campaigns/_distribution.html draws for one notation.Distribution.

    Heights are in the chart's own units (SVG presentation attributes, since the page's CSP allows no
    inline style). Totals beyond MAX_BARS are summed into equal ranges so the markup stays small;
    the summary's mean, chance and most likely total are always the exact ones.
    """
    counts, low, denominator = dist.counts, dist.low, dist.denominator
    width = -(-len(counts) // MAX_BARS)  # totals per bar
    bins = []
    for start in range(0, len(counts), width):
        ways = sum(counts[start : start + width])
        first, last = low + start, min(low + start + width, low + len(counts)) - 1
        bins.append((first, last, ways))
    inner_w = CHART_WIDTH - CHART_MARGIN["left"] - CHART_MARGIN["right"]
    inner_h = CHART_HEIGHT - CHART_MARGIN["top"] - CHART_MARGIN["bottom"]
    top_ways = max(ways for _, _, ways in bins)
    bar_w = inner_w / len(bins)
    base_y = CHART_MARGIN["top"] + inner_h
    bars, rows = [], []
    for n, (first, last, ways) in enumerate(bins):
        chance = Fraction(ways, denominator)
        name = str(first) if first == last else f"{first} to {last}"
        hit = target is not None and first >= target
        height = inner_h * ways / top_ways if top_ways else 0
        bars.append(
            {
                "x": round(CHART_MARGIN["left"] + n * bar_w, 2),
                "y": round(base_y - height, 2),
                "width": round(max(bar_w - (1 if bar_w > 3 else 0), 0.5), 2),
                "height": round(height, 2),
                "hit": hit,
                "title": f"{name}: {format_percent(chance)}",
            }
        )
        if ways:
            rows.append(
                {"total": name, "percent": format_percent(chance), "exact": exact_text(chance), "hit": hit}
            )

    def x_of(total: float) -> float:
        # the middle of the bar holding ``total``
        return round(CHART_MARGIN["left"] + ((total - low) / width + 0.5) * bar_w, 2)

    best = max(range(len(counts)), key=counts.__getitem__)
    top_chance = Fraction(top_ways, denominator)
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "left": CHART_MARGIN["left"],
        "right": CHART_WIDTH - CHART_MARGIN["right"],
        "top": CHART_MARGIN["top"],
        "base": base_y,
        "bars": bars,
        "rows": rows,
        "grouped": width > 1,
        "group_width": width,
        "x_ticks": [{"x": x_of(t), "label": t} for t in _ticks(low, dist.high)],
        "y_ticks": [
            {"y": base_y, "label": "0%"},
            {"y": CHART_MARGIN["top"], "label": format_percent(top_chance)},
        ],
        "x_label_y": CHART_HEIGHT - 4,
        "x_label_x": CHART_MARGIN["left"] + inner_w / 2,
        "y_label_y": CHART_MARGIN["top"] + inner_h / 2,
        "low": low,
        "high": dist.high,
        "mean": _mean_text(dist.mean),
        "mean_exact": exact_text(dist.mean),
        "mean_x": x_of(float(dist.mean)),
        "likeliest": low + best,
        "likeliest_percent": format_percent(Fraction(counts[best], denominator)),
        "target": target,
        "target_x": None if target is None or not low <= target <= dist.high else x_of(target - 0.5),
        "chance": format_percent(dist.chance) if dist.chance is not None else "",
        "chance_exact": exact_text(dist.chance) if dist.chance is not None else "",
        "repeat": repeat,
    }


def distribution_summary(tree, dist, picture: dict) -> str:
    """The picture in words: its text alternative, and the line under it."""
    words = (
        f"Totals {picture['low']} to {picture['high']}"
        if picture["low"] != picture["high"]
        else (f"Always {picture['low']}")
    )
    words += f", mean {picture['mean']}"
    if picture["mean_exact"] and "/" in picture["mean_exact"]:
        words += f" ({picture['mean_exact']})"
    # A flat spread (1d20+5) has no likeliest total: every total is as likely as the next.
    if len({n for n in dist.counts if n}) == 1:
        words += "."
    else:
        words += f"; most likely {picture['likeliest']} ({picture['likeliest_percent']})."
    if picture["chance"]:
        if isinstance(tree, notation.Repeat):
            tree = tree.line
        if getattr(tree, "target", None) is not None:
            what = f"{tree.target} or more"
        elif dist.target == 1 and notation.counts_successes(tree):
            what = "at least one success"
        else:
            what = "success"
        exact = f" ({picture['chance_exact']})" if picture["chance_exact"] else ""
        words += f" Chance of {what}: {picture['chance']}{exact}."
    if picture["repeat"]:
        words = f"Each of the {picture['repeat']} rolls: {words}"
    return words
