"""How fast the live table is: click-to-feed, the broadcast leg, and sustained throughput.

Run with ``.venv/bin/python bench/table.py`` (``--quick`` for a smoke run). It prints figures and
asserts nothing. Redis must be reachable at REDIS_URL (default redis://127.0.0.1:6379/15); a random
channel-layer prefix keeps the run apart from anything else on that Redis.

Three servers are measured in one run, each in its own process, driven by the same client code in this
process (no per-message compression anywhere, so all three send the same bytes on the wire):

* **floor**: a bare ``websockets`` server that keeps a set of sockets per table and broadcasts to it;
  a "roll" draws from ``secrets`` and broadcasts a ~200-byte message.
* **memory** and **redis**: the real app (``config.asgi``) under uvicorn, on the in-memory layer and on
  channels-redis, with a throwaway SQLite database in a temporary folder.

Figures:

* *click-to-feed*: one client sends a roll request over the table's websocket; the time until the last
  of the N clients at the table (the roller included) has the entry. For the app this is the whole
  path: validate, roll, save with its seq, render, commit, group_send, per-viewer filtering, send.
* *broadcast leg*: the same, minus the roll: a bench-only socket (added by the launcher, never by the
  app) asks the server to group_send a pre-rendered entry event; the time until the last client has
  it. For the floor it is the same broadcast without the random draw.
* *sustained*: 100 tables of 8, each table closed-loop (the next broadcast once all 8 have the
  previous one), for a few seconds: broadcasts per second; and real rolls per second the same way.
  The client process decodes every frame, so on a 2-core machine it is part of what is measured, for
  the floor as much as for the app.

Every figure is also printed as a ratio to the floor's figure from this same run. Lost and duplicated
entries are counted per client from the seq numbers; they should be 0 everywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
SIZES = (8, 64, 256)
SAMPLES = {8: 200, 64: 100, 256: 60}
TABLES, SEATS = 100, 8
SUSTAIN_SECONDS = 5.0
SAMPLE_TIMEOUT = 5.0
WARM_UP = 5


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))


# ---------------------------------------------------------------------------------------------------
# Servers (each runs in a child process started by the main run)
# ---------------------------------------------------------------------------------------------------


def serve_floor(port: int) -> None:
    """The floor: a bare websockets server that broadcasts to every socket of a table."""
    from websockets.asyncio.server import broadcast, serve

    tables: dict[str, set] = {}
    seqs: dict[str, int] = {}
    pad = "x" * 120
    system_random = secrets.SystemRandom()

    async def handler(connection):
        table = connection.request.path
        members = tables.setdefault(table, set())
        members.add(connection)
        try:
            await connection.send('{"type": "ready"}')
            async for raw in connection:
                request = json.loads(raw)
                seqs[table] = seq = seqs.get(table, 0) + 1
                if request["type"] == "roll":
                    face = system_random.randint(1, 20)
                    body = {"type": "entry", "seq": seq, "face": face, "pad": pad}
                else:
                    body = {"type": "entry", "seq": seq, "face": 0, "pad": pad}
                broadcast(members, json.dumps(body))
        finally:
            members.discard(connection)

    async def main():
        async with serve(handler, "127.0.0.1", port, compression=None, max_queue=None) as server:
            await server.serve_forever()

    asyncio.run(main())


# The app under uvicorn, with the layer, a rate limit out of the way, and a bench-only trigger socket.
APP_LAUNCHER = r"""
import json, os, sys
import config.settings as project_settings
layer = sys.argv[2]
if layer == "redis":
    # The app's own Redis layer (settings read REDIS_URL), under a prefix of this run's own.
    project_settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = os.environ["LAYER_PREFIX"]
else:
    project_settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
project_settings.TABLE_RATE_LIMITS = {"roll": (10**9, 1), "chat": (10**9, 1)}

from config.asgi import application as app_application
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter
from campaigns import realtime

SAMPLE_HTML = None

class Trigger(AsyncWebsocketConsumer):
    # Bench only: group_send a ready-made public entry event to a table, as realtime.entry_event would.
    async def receive(self, text_data=None, bytes_data=None):
        request = json.loads(text_data)
        seq = request["seq"]
        frame = json.dumps({"type": "entry", "seq": seq, "html": os.environ["SAMPLE_HTML"]})
        await self.channel_layer.group_send(realtime.table_group(request["campaign"]), {
            "type": "feed.entry", "seq": seq, "visibility": "public", "author_id": 0,
            "frames": {"full": frame},
        })

trigger_app = Trigger.as_asgi()
table_app = app_application.application_mapping["websocket"]

async def websocket(scope, receive, send):
    app = trigger_app if scope["path"] == "/bench/trigger/" else table_app
    return await app(scope, receive, send)

application = ProtocolTypeRouter({"http": app_application, "websocket": websocket})

import uvicorn
uvicorn.run(application, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", lifespan="off",
            ws_per_message_deflate=False)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"server on port {port} did not start") from None
            time.sleep(0.1)


# ---------------------------------------------------------------------------------------------------
# Database furniture for the app runs
# ---------------------------------------------------------------------------------------------------


class Fixtures:
    """Users, campaigns and session cookies in a throwaway SQLite database."""

    def __init__(self, folder: Path):
        os.environ["SQLITE_PATH"] = str(folder / "bench.sqlite3")
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)  # this process only writes rows; servers get their layer
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        users = get_user_model()
        # Sessions are made with force_login below; nobody logs in with a password.
        self.gm = users.objects.create_user("bench-gm")
        self.roller = users.objects.create_user("bench-roller")
        self.viewer = users.objects.create_user("bench-viewer")
        self.cookies = {}
        for user in (self.roller, self.viewer):
            client = Client()
            client.force_login(user)
            self.cookies[user.pk] = f"sessionid={client.cookies['sessionid'].value}"

    def campaigns(self, count: int) -> list[int]:
        from campaigns.models import Campaign, Membership

        made = Campaign.objects.bulk_create(
            Campaign(name=f"bench {uuid.uuid4().hex[:6]}", system="triad", gm=self.gm) for _ in range(count)
        )
        ids = [campaign.pk for campaign in made]
        Membership.objects.bulk_create(
            Membership(campaign_id=pk, user=user) for pk in ids for user in (self.roller, self.viewer)
        )
        return ids

    def sample_html(self) -> str:
        """A real public entry as the feed renders it, for the broadcast-leg trigger."""
        from campaigns import services
        from campaigns.selectors import FULL

        (campaign_id,) = self.campaigns(1)
        from campaigns.models import Campaign
        from campaigns.rendering import render_entry

        entry, _ = services.table_roll_create(
            campaign=Campaign.objects.get(pk=campaign_id), author=self.roller, notation_text="4d6kh3+2 vs 12"
        )
        return render_entry(entry, FULL)


# ---------------------------------------------------------------------------------------------------
# Clients
# ---------------------------------------------------------------------------------------------------


class Table:
    """N sockets at one table; counts the entries each receives and when the last one got each."""

    def __init__(self, size: int):
        self.size = size
        self.sockets = []
        self.readers = []
        self.seqs: list[list[int]] = []
        self.waiting_seq = None
        self.got = 0
        self.done = asyncio.Event()
        self.ready = 0
        self.all_ready = asyncio.Event()

    async def open(self, urls_and_headers) -> None:
        from websockets.asyncio.client import connect

        for index, (url, origin, headers) in enumerate(urls_and_headers):
            sock = await connect(
                url, origin=origin, additional_headers=headers, compression=None, max_queue=None
            )
            self.sockets.append(sock)
            self.seqs.append([])
            self.readers.append(asyncio.create_task(self._read(index, sock)))

    async def _read(self, index: int, sock) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in sock:
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "entry":
                    self.seqs[index].append(frame["seq"])
                    if frame["seq"] == self.waiting_seq:
                        self.got += 1
                        if self.got == self.size:
                            self.done.set()
                elif kind == "ready":
                    self.ready += 1
                    if self.ready == self.size:
                        self.all_ready.set()
        except ConnectionClosed:
            pass

    def expect(self, seq: int) -> None:
        self.waiting_seq = seq
        self.got = 0
        self.done.clear()

    async def wait(self) -> bool:
        try:
            async with asyncio.timeout(SAMPLE_TIMEOUT):
                await self.done.wait()
            return True
        except TimeoutError:
            return False

    def losses(self, sent: list[int]) -> tuple[int, int]:
        """(lost, duplicated) entries summed over every socket at the table."""
        lost = dup = 0
        wanted = set(sent)
        for seqs in self.seqs:
            got = [seq for seq in seqs if seq in wanted]
            dup += len(got) - len(set(got))
            lost += len(wanted - set(got))
        return lost, dup

    async def close(self) -> None:
        for sock in self.sockets:
            await sock.close()
        for reader in self.readers:
            reader.cancel()


class Server:
    """How the clients talk to one of the three servers."""

    def __init__(self, name: str, port: int, fixtures: Fixtures | None):
        self.name = name
        self.port = port
        self.fixtures = fixtures
        self.origin = f"http://127.0.0.1:{port}"
        self.trigger = None

    def seat_urls(self, table_id: int, size: int):
        if self.fixtures is None:
            url = f"ws://127.0.0.1:{self.port}/table/{table_id}"
            return [(url, None, None)] * size
        url = f"ws://127.0.0.1:{self.port}/ws/campaigns/{table_id}/table/"
        roller = {"Cookie": self.fixtures.cookies[self.fixtures.roller.pk]}
        viewer = {"Cookie": self.fixtures.cookies[self.fixtures.viewer.pk]}
        return [(url, self.origin, roller)] + [(url, self.origin, viewer)] * (size - 1)

    async def open_table(self, table_id: int, size: int) -> Table:
        table = Table(size)
        await table.open(self.seat_urls(table_id, size))
        if self.fixtures is not None:
            for sock in table.sockets:
                await sock.send('{"type": "hello", "last_seq": 0}')
        async with asyncio.timeout(60):
            await table.all_ready.wait()
        return table

    async def open_trigger(self) -> None:
        from websockets.asyncio.client import connect

        if self.fixtures is not None and self.trigger is None:
            self.trigger = await connect(
                f"ws://127.0.0.1:{self.port}/bench/trigger/", origin=self.origin, compression=None
            )

    async def roll(self, table: Table, table_id: int, seq: int) -> None:
        if self.fixtures is None:
            await table.sockets[0].send('{"type": "roll"}')
        else:
            await table.sockets[0].send(json.dumps({"type": "roll", "notation": "4d6kh3+2 vs 12"}))

    async def broadcast(self, table: Table, table_id: int, seq: int) -> None:
        if self.fixtures is None:
            await table.sockets[0].send('{"type": "trigger"}')
        else:
            await self.trigger.send(json.dumps({"campaign": table_id, "seq": seq}))


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


async def latency(server: Server, table_id: int, size: int, samples: int, action: str) -> dict:
    """Sequential samples at one table; returns p50, p99 (ms), lost, duplicated."""
    table = await server.open_table(table_id, size)
    await server.open_trigger()
    send = server.roll if action == "roll" else server.broadcast
    times, sent, seq = [], [], 0
    # A few unmeasured rounds first: imports, template loading and connection pools warm up.
    for round_number in range(WARM_UP + samples):
        seq += 1
        table.expect(seq)
        start = time.perf_counter()
        await send(table, table_id, seq)
        if await table.wait() and round_number >= WARM_UP:
            times.append(time.perf_counter() - start)
        sent.append(seq)
        await asyncio.sleep(0.002)
    await asyncio.sleep(0.2)  # let stragglers land before counting
    lost, dup = table.losses(sent)
    await table.close()
    if not times:
        return {"p50": float("nan"), "p99": float("nan"), "lost": lost, "dup": dup}
    return {
        "p50": statistics.median(times) * 1000,
        "p99": percentile(times, 0.99) * 1000,
        "lost": lost,
        "dup": dup,
    }


async def sustained(server: Server, table_ids: list[int], action: str) -> dict:
    """Closed loop at every table at once for SUSTAIN_SECONDS; completed broadcasts per second."""
    tables = []
    for table_id in table_ids:
        tables.append(await server.open_table(table_id, SEATS))
    await server.open_trigger()
    send = server.roll if action == "roll" else server.broadcast
    completed = 0
    lost_samples = 0
    sent_per_table: list[list[int]] = [[] for _ in tables]
    stop_at = time.perf_counter() + SUSTAIN_SECONDS

    async def loop(index: int, table: Table, table_id: int):
        nonlocal completed, lost_samples
        seq = 0
        while time.perf_counter() < stop_at:
            seq += 1
            table.expect(seq)
            await send(table, table_id, seq)
            sent_per_table[index].append(seq)
            if await table.wait():
                completed += 1
            else:
                lost_samples += 1

    start = time.perf_counter()
    await asyncio.gather(*(loop(i, t, tid) for i, (t, tid) in enumerate(zip(tables, table_ids, strict=True))))
    elapsed = time.perf_counter() - start
    await asyncio.sleep(0.3)
    lost = dup = 0
    for table, sent in zip(tables, sent_per_table, strict=True):
        table_lost, table_dup = table.losses(sent)
        lost += table_lost
        dup += table_dup
        await table.close()
    return {"rate": completed / elapsed, "lost": lost, "dup": dup}


# ---------------------------------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------------------------------


async def measure(server: Server, ids: dict) -> dict:
    results = {}
    for size in SIZES:
        results[("roll", size)] = await latency(server, ids[("roll", size)], size, SAMPLES[size], "roll")
        results[("broadcast", size)] = await latency(
            server, ids[("broadcast", size)], size, SAMPLES[size], "broadcast"
        )
    results["sustained broadcast"] = await sustained(server, ids["sustained broadcast"], "broadcast")
    results["sustained roll"] = await sustained(server, ids["sustained roll"], "roll")
    if server.trigger is not None:
        await server.trigger.close()
    return results


def table_ids(fixtures: Fixtures | None) -> dict:
    ids = {}
    for size in SIZES:
        for action in ("roll", "broadcast"):
            ids[(action, size)] = fixtures.campaigns(1)[0] if fixtures else f"{action}-{size}"
    for action in ("sustained broadcast", "sustained roll"):
        ids[action] = (
            fixtures.campaigns(TABLES)
            if fixtures
            else [f"{action.replace(' ', '-')}-{n}" for n in range(TABLES)]
        )
    return ids


def run_server(kind: str, fixtures: Fixtures | None, env: dict[str, str]) -> dict:
    port = free_port()
    if kind == "floor":
        argv = [str(Path(__file__).resolve()), "--serve-floor", str(port)]
    else:
        argv = ["-c", APP_LAUNCHER, str(port), kind]
    process = subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env)
    try:
        wait_for_port(port, process)
        server = Server(kind, port, fixtures)
        print(f"  measuring {kind} ...", flush=True)
        return asyncio.run(measure(server, table_ids(fixtures)))
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def ratio(value: float, floor: float) -> str:
    if not floor or value != value or floor != floor:
        return "   -  "
    return f"{value / floor:5.1f}x"


def report(results: dict[str, dict]) -> None:
    floor = results["floor"]
    print()
    print("Latency, ms (ratio to the floor's same figure in this run); lost / duplicated entries")
    header = (
        f"{'server':<7} {'what':<14} {'N':>4}  {'p50':>8} {'':>6}  {'p99':>8} {'':>6}  {'lost':>4} {'dup':>4}"
    )
    print(header)
    print("-" * len(header))
    for action, title in (("roll", "click-to-feed"), ("broadcast", "broadcast leg")):
        for size in SIZES:
            base = floor[(action, size)]
            for name, figures in results.items():
                row = figures[(action, size)]
                print(
                    f"{name:<7} {title:<14} {size:>4}  {row['p50']:8.2f} {ratio(row['p50'], base['p50'])}"
                    f"  {row['p99']:8.2f} {ratio(row['p99'], base['p99'])}  {row['lost']:>4} {row['dup']:>4}"
                )
        print()
    print(
        f"Sustained over {TABLES} tables of {SEATS}, {SUSTAIN_SECONDS:.0f} s each: "
        "per second (share of the floor)"
    )
    for key in ("sustained broadcast", "sustained roll"):
        base = floor[key]["rate"]
        for name, figures in results.items():
            row = figures[key]
            share = f"{row['rate'] / base:6.1%}" if base else "-"
            print(
                f"{name:<7} {key:<20} {row['rate']:9.0f}/s  {share:>7}  lost {row['lost']} dup {row['dup']}"
            )
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few samples only: checks the bench runs")
    parser.add_argument("--serve-floor", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_fd_limit()
    if args.serve_floor:
        serve_floor(args.serve_floor)
        return
    global SUSTAIN_SECONDS, TABLES
    if args.quick:
        for size in SAMPLES:
            SAMPLES[size] = 10
        SUSTAIN_SECONDS, TABLES = 1.0, 10

    started = time.perf_counter()
    # The sessions this process writes must be valid in the production-mode servers: one secret key.
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex * 2
    with tempfile.TemporaryDirectory(prefix="table-bench-") as folder:
        fixtures = Fixtures(Path(folder))
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DJANGO_DEBUG")}
        env.update(
            SQLITE_PATH=str(Path(folder) / "bench.sqlite3"),
            REDIS_URL=REDIS_URL,
            LAYER_PREFIX=f"bench-{uuid.uuid4().hex[:10]}",
            # Production mode, as a table would be served: no per-query debug bookkeeping.
            DJANGO_DEBUG="0",
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
            DJANGO_SETTINGS_MODULE="config.settings",
            SAMPLE_HTML=fixtures.sample_html(),
            LOG_LEVEL="ERROR",
        )
        print(f"Table benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, redis {REDIS_URL}")
        results = {
            "floor": run_server("floor", None, env),
            "memory": run_server("memory", fixtures, env),
            "redis": run_server("redis", fixtures, env),
        }
    report(results)
    print(
        f"Total run time {time.perf_counter() - started:.0f} s. Entry frame for the app: "
        f"{len(env['SAMPLE_HTML'])} bytes of HTML; floor: ~200 bytes."
    )


if __name__ == "__main__":
    main()
