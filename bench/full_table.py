"""A full table's fan-out: what one click sets off across 18 open pages, and whether any of it is wasted.

Run with ``.venv/bin/python bench/full_table.py`` (``--quick``: a smoke run well under 3 minutes;
``--no-redis``: the in-memory layer only). It prints figures and asserts nothing.

The table (bench/harness.py): 8 players, each with their sheet page and the table page open, the GM
with the table page and the encounter page, 18 sockets, each page loaded over HTTP and running
static/js/table.js's refresh logic on what its socket hears (panels read from the HTML the server
returns). The app runs as bench/table.py runs it (bench/servers.py: production mode, rate limits
out of the way, a throwaway SQLite database), on the in-memory layer and on Redis.

Four clicks, each many times (players in turn where a player clicks):

* *sheet roll*: a player's first roll button on their sheet page, as the page posts it;
* *dice box*: a player's dice-box line on their table page;
* *GM's HP edit*: the GM saves a player's hit points (the system's first of hp / wounds / body) in
  place; the edit makes no feed entry, so its "feed" figure is the POST's answer;
* *encounter hit*: player 1's attack from the turn panel on their table page, against an NPC; between
  two hits, untimed, the GM presses Next turn on the encounter page until player 1's turn is back.

Per click: *click-to-feed* (until every table page holds the entry), *click-to-settled* (until every
refresh and re-fetch the click set off is done: table.js's debounce, the GET, a merged sheet's
re-pricing of its buttons), the HTTP requests the click caused across the table (its own POST
included), and every *wasted* fetch (one that brought nothing the page shows differently). Aims:
settled within 3x of click-to-feed at p99; no wasted fetch.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402 (after the path is set)
import servers  # noqa: E402
from clicks import percentile  # noqa: E402
from fixtures import Fixtures  # noqa: E402
from page_markup import DEBOUNCE  # noqa: E402

SAMPLES = 30
CLICKS = ("sheet roll", "dice box", "GM's HP edit", "encounter hit")


class Clicks:
    """The clicks of one run at one full table, as its pages post them."""

    def __init__(self, seat: harness.FullTable, fixtures, forms: dict, fight: dict):
        self.seat, self.fixtures, self.forms, self.fight = seat, fixtures, forms, fight
        self.hp = harness.hp_path(seat.sheets[0].html)
        fight["acted"] = True  # the turn it may be now was someone's to take: the GM moves on first

    async def sheet_roll(self, number: int) -> dict:
        page = self.seat.sheets[number]
        url, data = self.forms[self.seat.seating.characters[number][1]]
        return await self.seat.click(
            page, url, page.sheet_roll_fields(data), target="roll-result", entry=True
        )

    async def dice_box(self, number: int) -> dict:
        page = self.seat.tables[number]
        path = f"/campaigns/{self.seat.seating.campaign_id}/table/roll/"
        return await self.seat.click(page, path, page.dice_box_fields(), target="dice-box", entry=True)

    async def hp_edit(self, number: int) -> dict:
        return await harness.gm_hp_edit(self.seat, number, self.hp)

    async def encounter_hit(self, _number: int) -> dict:
        fight, seat = self.fight, self.seat
        # Untimed: the GM presses Next turn until player 1's character may act again; all of it settles.
        while True:
            version, mine, _ = await asyncio.to_thread(self.fixtures.encounter_state, fight)
            if mine and not fight["acted"]:
                break
            await seat.gm_encounter.send("POST", fight["next_url"], {"version": str(version)})
            fight["acted"] = False
            await seat.settle(DEBOUNCE + 0.25)
        version, _, _ = await asyncio.to_thread(self.fixtures.encounter_state, fight)
        fight["acted"] = True
        fields = {**fight["fields"], "version": str(version)}
        return await seat.click(seat.tables[0], fight["url"], fields, target="turn-panel", entry=True)


async def measure(port: int, fixtures, seating, forms: dict, fight: dict, samples: int) -> dict:
    seat = harness.FullTable(port, fixtures, seating, encounter_id=fight["encounter_id"])
    opened = time.perf_counter()
    await seat.open()
    opened = time.perf_counter() - opened
    clicks = Clicks(seat, fixtures, forms, fight)
    doing = {
        "sheet roll": clicks.sheet_roll,
        "dice box": clicks.dice_box,
        "GM's HP edit": clicks.hp_edit,
        "encounter hit": clicks.encounter_hit,
    }
    panels = collections.Counter(panel.name.split(":")[0] for page in seat.pages for panel in page.panels)
    results = {"opened": opened, "pages": len(seat.pages), "panels": dict(panels), "hp": clicks.hp}
    for name in CLICKS:
        rows = []
        for number in range(1 + samples):  # the first click warms up
            row = await doing[name](number % harness.PLAYERS)
            if number:
                rows.append(row)
        results[name] = rows
    await seat.settle(DEBOUNCE + 0.25)
    results["lost"], results["dup"] = seat.losses()
    await seat.close()
    return results


def run_server(kind: str, fixtures, env: dict, seating, forms: dict, fight: dict, samples: int) -> dict:
    port = servers.free_port()
    with servers.running(servers.app_argv(port, kind), port, env):
        print(f"  measuring {kind} ...", flush=True)
        return asyncio.run(measure(port, fixtures, seating, forms, fight, samples))


def report(results: dict) -> None:
    ms = 1000
    print()
    first = next(iter(results.values()))
    print(
        f"A full table: {first['pages']} pages, opened in {first['opened']:.1f} s; live panels read"
        f" from them: {first['panels']}; table.js's debounce {DEBOUNCE * ms:.0f} ms; the HP edit"
        f" edits {first['hp']!r}"
    )
    header = (
        f"{'layer':<7} {'click':<14} {'feed p50':>8} {'p99':>7}  {'settled p50':>11} {'p99':>7}  "
        f"{'requests p50':>12} {'p99':>4}  {'wasted':>6} {'!ok':>4}  "
        "aims (settled p99 <= 3x feed p99; no waste)"
    )
    print(header)
    print("-" * len(header))
    print("(the HP edit makes no feed entry: its feed columns are its POST's answer)")
    wasted_lists = {}
    for layer, figures in results.items():
        for name in CLICKS:
            rows = figures[name]
            feed = [row["feed"] for row in rows]
            settled = [row["settled"] for row in rows]
            requests = [row["requests"] for row in rows]
            wasted = collections.Counter(w for row in rows for w in row["wasted"])
            wasted_lists[(layer, name)] = wasted
            feed99, settled99 = percentile(feed, 0.99), percentile(settled, 0.99)
            bad = sum(row["bad"] for row in rows)
            fast = "HELD" if settled99 <= 3 * feed99 else "NOT HELD"
            clean = "HELD" if not wasted else "NOT HELD"
            print(
                f"{layer:<7} {name:<14} {statistics.median(feed) * ms:8.1f} {feed99 * ms:7.1f}  "
                f"{statistics.median(settled) * ms:11.1f} {settled99 * ms:7.1f}  "
                f"{statistics.median(requests):12.0f} {percentile(requests, 0.99):4.0f}  "
                f"{sum(wasted.values()):6} {bad:4}  settled {fast}, waste {clean}"
            )
        print(f"{layer:<7} lost {figures['lost']} dup {figures['dup']} (entries over the 9 table pages)")
        print()
    print("What one click sets off (the last click of each kind, first layer): the fetches, by page")
    for name in CLICKS:
        fetched = first[name][-1]["fetched"] if first[name] else []
        print(f"  {name}: {len(fetched)} fetches")
        for what, times in collections.Counter(fetched).most_common():
            print(f"    {what}" + (f" x{times}" if times > 1 else ""))
    for (layer, name), wasted in wasted_lists.items():
        if wasted:
            print(f"Wasted fetches, {layer}, {name} (page: panel (url) x times over the clicks):")
            for what, times in wasted.most_common():
                print(f"    {what} x{times}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few clicks each: checks the bench runs")
    parser.add_argument("--no-redis", action="store_true", help="leave out the Redis layer")
    args = parser.parse_args()
    servers.raise_fd_limit()
    samples = 4 if args.quick else SAMPLES
    started = time.perf_counter()
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex * 2
    with tempfile.TemporaryDirectory(prefix="full-table-bench-") as folder:
        fixtures = Fixtures(Path(folder))
        seated = harness.players(fixtures)
        (seating,) = harness.seat_tables(fixtures, seated, 1)
        forms = {
            character_id: fixtures.sheet_roll_form(
                seating.campaign_id, check=False, character_id=character_id
            )
            for _, character_id in seating.characters
        }
        layers = ["memory"] if args.no_redis else ["memory", "redis"]
        results = {}
        print(
            f"Full-table benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs,"
            f" a {fixtures.system} table, {samples} clicks of each kind per layer"
        )
        fight = fixtures.encounter_fight(seating.campaign_id, player=seated[0])
        for layer in layers:
            env = servers.app_env(
                SQLITE_PATH=str(Path(folder) / "bench.sqlite3"),
                REDIS_URL=servers.REDIS_URL,
                LAYER_PREFIX=f"bench-{uuid.uuid4().hex[:10]}",
            )
            results[layer] = run_server(layer, fixtures, env, seating, forms, fight, samples)
    report(results)
    print(f"Total run time {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
