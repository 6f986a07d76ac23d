"""bench/table.py's report: every row as a ratio to the floor's, then the aims at N = 8."""

from __future__ import annotations

import clicks
from clicks import ACTIONS, SEATS, SIZES
from clients import DJANGO_MINIMUM

# clicks.SUSTAIN_SECONDS and clicks.TABLES are read as the report prints: --quick sets them.


def ratio(value: float, floor: float) -> str:
    if not floor or value != value or floor != floor:
        return "    -  "
    return f"{value / floor:6.1f}x"


def report(results: dict[str, dict]) -> None:
    floor = results["floor"]
    print()
    print(
        "Click-to-feed, ms (ratio to the floor's same figure in this run); POST answered p50; the server's"
        " CPU per click, ms; lost / dup"
    )
    header = (
        f"{'server':<7} {'what':<14} {'N':>4}  {'p50':>8} {'':>7}  {'p99':>8} {'':>7}  "
        f"{'answered':>8} {'':>7}  {'CPU':>5}  {'lost':>4} {'dup':>4} {'!200':>4}"
    )
    print(header)
    print("-" * len(header))
    for action in (*ACTIONS, DJANGO_MINIMUM):
        for size in SIZES:
            if (action, size) not in floor:
                continue
            base = floor[(action, size)]
            for name, figures in results.items():
                row = figures[(action, size)]
                print(
                    f"{name:<7} {action:<14} {size:>4}  {row['p50']:8.2f} {ratio(row['p50'], base['p50'])}"
                    f"  {row['p99']:8.2f} {ratio(row['p99'], base['p99'])}  {row['post']:8.2f} "
                    f"{ratio(row['post'], base['post'])}  {row['cpu']:5.2f}  "
                    f"{row['lost']:>4} {row['dup']:>4} {row['bad']:>4}"
                )
        print()
    base = floor["edit"]
    for name, figures in results.items():
        row = figures["edit"]
        print(
            f"{name:<7} {'in-place edit':<14} {'':>4}  {row['p50']:8.2f} {ratio(row['p50'], base['p50'])}"
            f"  {row['p99']:8.2f} {ratio(row['p99'], base['p99'])}  CPU {row['cpu']:.2f}  (the answer"
            f" only; !200 {row['bad']}, a warm-up edit after the sheet rolls may meet a moved version)"
        )
    base = floor["encounter"]
    for name, figures in results.items():
        row = figures["encounter"]
        print(
            f"{name:<7} {'encounter act':<14} {SEATS:>4}  {row['p50']:8.2f} {ratio(row['p50'], base['p50'])}"
            f"  {row['p99']:8.2f} {ratio(row['p99'], base['p99'])}  {row['post']:8.2f} "
            f"{ratio(row['post'], base['post'])}  {row['cpu']:5.2f}  "
            f"{row['lost']:>4} {row['dup']:>4} {row['bad']:>4}"
        )
    print()
    print(f"Sustained, {clicks.SUSTAIN_SECONDS:.0f} s, closed loop: clicks per second (share of the floor's)")
    for scope in ("one roller", f"{clicks.TABLES} tables"):
        for action in ("dice box", "sheet roll", DJANGO_MINIMUM):
            base_rate = floor[(scope.replace(f"{clicks.TABLES} tables", "100 tables"), action)]["rate"]
            for name, figures in results.items():
                row = figures[(scope.replace(f"{clicks.TABLES} tables", "100 tables"), action)]
                share = f"{row['rate'] / base_rate:6.1%}" if base_rate else "-"
                print(
                    f"{name:<7} {scope:<11} {action:<14} {row['rate']:8.0f}/s  {share:>7}  "
                    f"server CPU {row['cpu']:5.2f} ms a click  "
                    f"lost {row['lost']} dup {row['dup']} !200 {row['bad']}"
                )
        print()


# The paths the aim covers, at N = 8: (label, result key, the floor's row for it).
AIM_PATHS = (
    ("dice box", ("dice box", SEATS), ("dice box", SEATS)),
    ("sheet roll", ("sheet roll", SEATS), ("dice box", SEATS)),
    ("saved roll", "saved roll", ("dice box", SEATS)),
    ("encounter act", "encounter", "encounter"),
    ("request answer", "request answer", ("dice box", SEATS)),
    ("in-place edit", "edit", "edit"),
)


def report_aims(results: dict[str, dict]) -> None:
    """Each path at N = 8 against Django's minimum in the same run (and the floor): the aim is p50 and
    p99 within 2x of the minimum's. The edit puts nothing in the feed: its answer against the minimum's."""
    floor = results["floor"]
    print(
        f"Against Django's minimum at N = {SEATS}: click-to-feed ms, x the minimum's, x the floor's"
        " (the edit: its answer, against the minimum's answer). Aim: p50 and p99 within 2x of the minimum's."
    )
    header = (
        f"{'server':<7} {'what':<15} {'p50':>8} {'x min':>7} {'x floor':>7}  {'p99':>8} {'x min':>7} "
        f"{'x floor':>7}  {'lost':>4} {'dup':>4} {'!200':>4}  aim"
    )
    print(header)
    print("-" * len(header))
    for name, figures in results.items():
        if name == "floor":
            continue
        minimum = figures[(DJANGO_MINIMUM, SEATS)]
        base = floor[("dice box", SEATS)]
        print(
            f"{name:<7} {'django minimum':<15} {minimum['p50']:8.2f} {'':>7} "
            f"{ratio(minimum['p50'], base['p50'])}  {minimum['p99']:8.2f} {'':>7} "
            f"{ratio(minimum['p99'], base['p99'])}"
        )
        for label, key, floor_key in AIM_PATHS:
            row = figures.get(key)
            if row is None:
                continue
            p50, p99 = ("post", "post99") if key == "edit" else ("p50", "p99")
            to_min = (row["p50"] / minimum[p50], row["p99"] / minimum[p99])
            held = all(value <= 2.0 for value in to_min)  # a nan (no sample) fails too
            print(
                f"{name:<7} {label:<15} {row['p50']:8.2f} {ratio(row['p50'], minimum[p50])} "
                f"{ratio(row['p50'], floor[floor_key]['p50'])}  {row['p99']:8.2f} "
                f"{ratio(row['p99'], minimum[p99])} {ratio(row['p99'], floor[floor_key]['p99'])}  "
                f"{row['lost']:>4} {row['dup']:>4} {row['bad']:>4}  {'HELD' if held else 'NOT HELD'}"
            )
        print()
