"""Many full tables on several server processes: PostgreSQL, Redis, ``uvicorn --workers N``.

Run with ``.venv/bin/python bench/many_tables.py`` (``--quick``: a smoke run of about 3 minutes). It
prints figures and asserts nothing; it stops by itself. Everything stays on 127.0.0.1: PostgreSQL at
PG_URL (default postgres://postgres@127.0.0.1:5432, a throwaway database made for the run and dropped
after it), Redis at REDIS_URL (default redis://127.0.0.1:6379/15, a random channel-layer prefix).

Two parts, each against the app served by ``python -m uvicorn worker_app:application --workers N``
(bench/worker_app.py: production mode, rate limits out of the way):

* *workers*: the sustained rate, closed loop (bench/table.py's, bench/clicks.py: each table's next
  dice-box roll once its 8 sockets have the last), at the same tables for the same time, on 1 worker
  and then on 2. Aim: 2 workers at least 1.4x one. The client shares the machine's cores with the
  server.
* *tables*: full tables (bench/harness.py: 18 pages each, every page's own refresh logic) at a
  realistic pace, each table on its own clock: a roll every 5 s (a player's dice box or sheet button,
  in turn), a chat line every 10 s, an in-place edit every 20 s (the GM's, of a player's hit points,
  the editor opened first as the page opens it). Steps of more tables (the tables of the last step stay open);
  each step measured for a bounded time: click-to-feed p50/p99 (rolls and chat lines), click-to-
  settled p99, the server's CPU per click (every worker process, from /proc), memory per socket (the
  workers' RSS grown over the step's new sockets and the pages they loaded; one table is open before
  the first step, so the workers' own warm-up is left out), entries lost or duplicated. It steps up until p99
  crosses 100 ms or the last step, and prints the most tables held at p99 under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import clicks  # noqa: E402 (after the path is set)
import harness  # noqa: E402
import servers  # noqa: E402
from clients import Server  # noqa: E402
from fixtures import Fixtures  # noqa: E402

PG_URL = os.environ.get("PG_URL") or "postgres://postgres@127.0.0.1:5432"
ROLL_EVERY, CHAT_EVERY, EDIT_EVERY = 5.0, 10.0, 20.0
P99_AIM = 0.100
SUSTAIN_TABLES = 20
OPEN_AT_ONCE = 8  # tables opening their pages at the same time


# ---------------------------------------------------------------------------------------------------
# The server: several uvicorn workers behind one port, and what they use
# ---------------------------------------------------------------------------------------------------


def family(pid: int) -> list[int]:
    """The process and every descendant (uvicorn's workers), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if re.fullmatch(r"[0-9]+", entry.name):  # a process's folder (ASCII digits; isdigit passes "²")
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, ()))
    return found


def server_cpu(pid: int) -> float:
    return sum(servers.process_cpu(member) for member in family(pid))


def server_rss(pid: int) -> int:
    """Bytes resident over every process of the server."""
    total = 0
    for member in family(pid):
        try:
            for line in Path(f"/proc/{member}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class Workers:
    """``uvicorn --workers N`` on a free port; stopped on exit."""

    def __init__(self, count: int, env: dict):
        self.count, self.port = count, servers.free_port()
        argv = [
            sys.executable,
            "-m",
            "uvicorn",
            "worker_app:application",
            "--app-dir",
            str(Path(__file__).resolve().parent),
            "--workers",
            str(count),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
            "--lifespan",
            "off",
            "--ws-per-message-deflate",
            "false",
        ]
        self.process = subprocess.Popen(argv, cwd=servers.ROOT, env=env)

    def __enter__(self) -> Workers:
        servers.wait_for_port(self.port, self.process)
        deadline = time.monotonic() + 60
        while len(family(self.process.pid)) <= self.count and time.monotonic() < deadline:
            time.sleep(0.2)  # every worker up (the parent and, with several, a worker each)
        time.sleep(1.0)  # the workers import the app after they start
        return self

    def __exit__(self, *exc) -> None:
        servers.stop(self.process, 20)


# ---------------------------------------------------------------------------------------------------
# Part one: 1 worker against 2
# ---------------------------------------------------------------------------------------------------


def sustained_rate(workers: int, env: dict, fixtures, ids: list[int], forms: dict, seconds: float) -> dict:
    with Workers(workers, env) as server:

        async def run():
            client = Server(f"{workers}w", server.port, fixtures, forms, server.process.pid)
            before = server_cpu(server.process.pid)
            row = await clicks.sustained(client, ids, "dice box")
            row["cpu"] = (server_cpu(server.process.pid) - before) / max(1, row["rate"] * seconds) * 1000
            await client.close()
            return row

        clicks.SUSTAIN_SECONDS = seconds
        return asyncio.run(run())


# ---------------------------------------------------------------------------------------------------
# Part two: full tables at a realistic pace
# ---------------------------------------------------------------------------------------------------


class Paced:
    """One full table playing on its own clock; its clicks' figures go to the shared lists."""

    def __init__(self, seat: harness.FullTable, forms: dict, figures: dict):
        self.seat, self.forms, self.figures = seat, forms, figures
        self.hp = harness.hp_path(seat.sheets[0].html)
        self.turn = 0

    async def play(self, until: float, measured_from: float) -> None:
        loop = time.perf_counter
        phase = random.uniform(0, ROLL_EVERY)
        due = {"roll": loop() + phase, "chat": loop() + phase + random.uniform(0, CHAT_EVERY)}
        due["edit"] = loop() + random.uniform(0, EDIT_EVERY)
        every = {"roll": ROLL_EVERY, "chat": CHAT_EVERY, "edit": EDIT_EVERY}
        while True:
            kind = min(due, key=due.get)
            if due[kind] >= until:
                return
            await asyncio.sleep(max(0.0, due[kind] - loop()))
            due[kind] += every[kind]
            clicked = loop()
            row = await getattr(self, kind)()
            if clicked < measured_from:
                continue  # clicked in the warm-up
            self.figures["clicks"] += 1
            self.figures["bad"] += row["bad"]
            self.figures["requests"] += row["requests"]
            self.figures["wasted"] += len(row["wasted"])
            if kind == "edit":
                self.figures["edit"].append(row["feed"])
            else:
                self.figures["feed"].append(row["feed"])
                self.figures["settled"].append(row["settled"])

    async def roll(self) -> dict:
        seat, number = self.seat, self.turn % harness.PLAYERS
        self.turn += 1
        if self.turn % 2:
            page, path = seat.tables[number], f"/campaigns/{seat.seating.campaign_id}/table/roll/"
            return await seat.click(page, path, page.dice_box_fields(), target="dice-box", entry=True)
        url, data = self.forms[seat.seating.characters[number][1]]
        page = seat.sheets[number]
        return await seat.click(page, url, page.sheet_roll_fields(data), target="roll-result", entry=True)

    async def chat(self) -> dict:
        seat = self.seat
        number = random.randrange(harness.PLAYERS)
        fields = {"text": "On my way.", "idempotency_key": uuid.uuid4().hex}
        path = f"/campaigns/{seat.seating.campaign_id}/table/chat/"
        return await seat.click(seat.tables[number], path, fields, target="chat-box", entry=True)

    async def edit(self) -> dict:
        return await harness.gm_hp_edit(self.seat, random.randrange(harness.PLAYERS), self.hp)


async def open_tables(port: int, fixtures, seatings: list, opened: list) -> None:
    """Open the new tables' pages, a few tables at once."""
    gate = asyncio.Semaphore(OPEN_AT_ONCE)

    async def one(seating):
        async with gate:
            seat = harness.FullTable(port, fixtures, seating)
            await seat.open()
            opened.append(seat)

    await asyncio.gather(*(one(seating) for seating in seatings))


async def step(server: Workers, fixtures, new: list, opened: list, forms: dict, seconds: float) -> dict:
    pid = server.process.pid
    rss = server_rss(pid)
    sockets = sum(len(seat.pages) for seat in opened)
    started = time.perf_counter()
    await open_tables(server.port, fixtures, new, opened)
    open_time = time.perf_counter() - started
    new_sockets = sum(len(seat.pages) for seat in opened) - sockets
    grown = server_rss(pid) - rss
    figures = {"clicks": 0, "bad": 0, "requests": 0, "wasted": 0, "feed": [], "settled": [], "edit": []}
    warm = min(5.0, seconds / 3)
    measured_from = time.perf_counter() + warm
    until = measured_from + seconds
    cpu = None

    async def sample_cpu():
        nonlocal cpu
        await asyncio.sleep(warm)
        cpu = server_cpu(pid)

    players = [Paced(seat, forms, figures) for seat in opened]
    await asyncio.gather(sample_cpu(), *(player.play(until, measured_from) for player in players))
    elapsed = time.perf_counter() - measured_from  # the last clicks' settling included
    cpu = server_cpu(pid) - cpu
    lost = dup = 0
    for seat in opened:
        seat_lost, seat_dup = seat.losses()
        lost, dup = lost + seat_lost, dup + seat_dup
    feed = figures["feed"]
    return {
        "tables": len(opened),
        "sockets": sum(len(seat.pages) for seat in opened),
        "open": open_time,
        "clicks": figures["clicks"],
        "rate": figures["clicks"] / elapsed,
        "p50": statistics.median(feed) if feed else float("nan"),
        "p99": clicks.percentile(feed, 0.99) if feed else float("nan"),
        "settled99": clicks.percentile(figures["settled"], 0.99) if feed else float("nan"),
        "edit50": statistics.median(figures["edit"]) if figures["edit"] else float("nan"),
        "cpu": cpu / figures["clicks"] * 1000 if figures["clicks"] else float("nan"),
        "rss_per_socket": grown / new_sockets if new_sockets else float("nan"),
        "requests": figures["requests"] / figures["clicks"] if figures["clicks"] else float("nan"),
        "wasted": figures["wasted"],
        "lost": lost,
        "dup": dup,
        "bad": figures["bad"],
    }


def seat_more(fixtures, seated: list, count: int, forms: dict) -> list:
    """``count`` more full tables in the database, their players' roll buttons added to ``forms``."""
    seatings = harness.seat_tables(fixtures, seated, count)
    for seating in seatings:
        for _, character_id in seating.characters:
            forms[character_id] = fixtures.sheet_roll_form(
                seating.campaign_id, check=False, character_id=character_id
            )
    return seatings


async def many(server: Workers, fixtures, steps: list[int], seconds: float) -> list:
    """Step by step, more tables seated and opened (a step's tables stay open for the next)."""
    seated = await asyncio.to_thread(harness.players, fixtures)
    forms: dict = {}
    opened: list = []
    rows = []
    try:
        # One table open first, so the first step's memory per socket leaves out the workers' warm-up.
        await open_tables(
            server.port, fixtures, await asyncio.to_thread(seat_more, fixtures, seated, 1, forms), opened
        )
        for count in steps:
            print(f"  {count} tables: seating and opening {count - len(opened)} more ...", flush=True)
            new = await asyncio.to_thread(seat_more, fixtures, seated, count - len(opened), forms)
            row = await step(server, fixtures, new, opened, forms, seconds)
            rows.append(row)
            print_step(row)
            if not row["p99"] < P99_AIM:
                break
    finally:
        for seat in opened:
            await seat.close()
    return rows


# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------


def print_step(row: dict) -> None:
    print(
        f"  {row['tables']:>4} tables {row['sockets']:>5} sockets (opened in {row['open']:.0f} s): "
        f"{row['clicks']} clicks, {row['rate']:.1f}/s; click-to-feed p50 {row['p50'] * 1000:.1f} ms "
        f"p99 {row['p99'] * 1000:.1f} ms; settled p99 {row['settled99'] * 1000:.0f} ms; edit answered p50 "
        f"{row['edit50'] * 1000:.1f} ms; server CPU {row['cpu']:.1f} ms a click; "
        f"{row['rss_per_socket'] / 1024:.0f} KiB a socket; {row['requests']:.1f} requests a click, "
        f"{row['wasted']} wasted; lost {row['lost']} dup {row['dup']} !ok {row['bad']}",
        flush=True,
    )


def make_database() -> tuple[str, str]:
    import psycopg

    name = f"bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return name, f"{PG_URL}/{name}"


def drop_database(name: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="small steps, short windows: checks the bench runs"
    )
    parser.add_argument("--workers", type=int, default=2, help="uvicorn workers for the tables part (2)")
    parser.add_argument("--steps", default="100,200,300,500", help="tables at each step (100,200,300,500)")
    parser.add_argument("--seconds", type=float, default=60, help="play measured at each step (60)")
    args = parser.parse_args()
    servers.raise_fd_limit()
    steps = [5, 10] if args.quick else sorted(int(n) for n in args.steps.split(","))
    seconds = 15.0 if args.quick else args.seconds
    sustain_tables = 5 if args.quick else SUSTAIN_TABLES
    sustain_seconds = 4.0 if args.quick else 15.0
    started = time.perf_counter()
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex * 2
    database, database_url = make_database()
    try:
        with tempfile.TemporaryDirectory(prefix="many-tables-bench-") as folder:
            fixtures = Fixtures(Path(folder), database_url=database_url)
            env = servers.app_env(
                DATABASE_URL=database_url,
                REDIS_URL=servers.REDIS_URL,
                LAYER_PREFIX=f"bench-{uuid.uuid4().hex[:10]}",
            )
            print(
                f"Many-tables benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, PostgreSQL"
                f" {PG_URL}/{database}, redis {servers.REDIS_URL}; a {fixtures.system} table"
            )
            ids = fixtures.campaigns(sustain_tables)
            rates = {}
            for workers in (1, 2):
                print(f"  sustained, {workers} worker(s), {sustain_tables} tables of 8 ...", flush=True)
                rates[workers] = sustained_rate(workers, env, fixtures, ids, {}, sustain_seconds)
            with Workers(args.workers, env) as server:
                rows = asyncio.run(many(server, fixtures, steps, seconds))
    finally:
        drop_database(database)
    report(rates, rows, args.workers, sustain_tables, sustain_seconds)
    print(f"Total run time {time.perf_counter() - started:.0f} s.")


def report(rates: dict, rows: list, workers: int, sustain_tables: int, sustain_seconds: float) -> None:
    print()
    print(f"Sustained, closed loop, {sustain_tables} tables of 8 sockets, {sustain_seconds:.0f} s each:")
    for count, row in rates.items():
        print(
            f"  {count} worker(s): {row['rate']:7.1f} rolls/s  server CPU {row['cpu']:.1f} ms a roll  "
            f"lost {row['lost']} dup {row['dup']} !200 {row['bad']}"
        )
    gain = rates[2]["rate"] / rates[1]["rate"] if rates[1]["rate"] else float("nan")
    print(f"  2 workers / 1: {gain:.2f}x  (aim >= 1.4x: {'HELD' if gain >= 1.4 else 'NOT HELD'})")
    print()
    print(
        f"Full tables at a realistic pace on {workers} workers (a roll every {ROLL_EVERY:.0f} s, a chat line"
        f" every {CHAT_EVERY:.0f} s, an edit every {EDIT_EVERY:.0f} s per table):"
    )
    for row in rows:
        print_step(row)
    held = [row["tables"] for row in rows if row["p99"] < P99_AIM]
    print(
        f"  most tables held at click-to-feed p99 under {P99_AIM * 1000:.0f} ms: "
        f"{max(held) if held else 'none of the steps'}"
        + ("" if len(held) < len(rows) else " (the last step: the cap, not the limit)")
    )
    whole = all(row["lost"] == 0 and row["dup"] == 0 for row in rows)
    print(f"  nothing lost or duplicated: {'HELD' if whole else 'NOT HELD'}")


if __name__ == "__main__":
    main()
