"""Does one user's flood slow another table down? Roll times at a quiet table, then while a flood runs.

Run with ``.venv/bin/python bench/fairness.py`` (``--quick``: fewer samples, shorter floods). It prints
figures and asserts nothing. The app runs under uvicorn on loopback, in production mode on the
in-memory layer with a throwaway SQLite database, as bench/table.py starts it (its fixtures, HTTP client
and table of sockets are reused: bench/fixtures.py, bench/clients.py) but with the rate limiter left as
it ships (campaigns/limits.py).

* *measured*: a table of 8 sockets; its players take turns at the dice box, one roll every
  ``PACE`` seconds (each stays inside the dice box's budget, as real players do). The figure is
  click-to-feed: from the POST until all 8 sockets have the entry.
* *flood*: one user at another table sends ``FLOODERS`` requests at a time, each the next as soon as
  the last is answered, for as long as the measured table rolls (at most ``MAX_FLOOD`` requests):
  sheet rolls, the dice box's odds, character imports, or in-place edits. Past its budget each answer
  is a 429, which costs the server a session lookup and no more.

The aim (issue 18): each flood leaves the measured table's p50 within 2x of the quiet run's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

import servers  # noqa: E402 (after the path is set)
from clicks import percentile  # noqa: E402
from clients import VERSION, Http, Server  # noqa: E402
from fixtures import DICE_LINE, Fixtures  # noqa: E402

SEATS, SAMPLES, PACE = 8, 30, 0.35
PHASES = ("quiet", "rolls", "odds", "imports", "edits")
FLOODERS, MAX_FLOOD = 4, 5000
ODDS_LINE = "12d10+8d12+6d20 vs 120"  # exact odds the dice box can still work out while it is typed

# The app as bench/table.py serves it (bench/servers.py), without its override of the rate limits.
LAUNCHER = r"""
import os, sys
import config.settings as project_settings
project_settings.CHANNEL_LAYERS = {"default": {"BACKEND": "campaigns.layers.TableChannelLayer"}}
project_settings.TABLE_SOCKETS_PER_USER = 10**6  # the table's 7 viewers are one bench user
from config.asgi import application
import uvicorn
uvicorn.run(application, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", lifespan="off",
            ws_per_message_deflate=False)
"""


class RawHttp(Http):
    """Http with a body of any kind (a file upload's multipart form)."""

    async def post_body(self, path: str, body: bytes, content_type: str, headers: dict) -> int:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [
            f"POST {path} HTTP/1.1",
            f"Host: 127.0.0.1:{self.port}",
            f"Content-Length: {len(body)}",
            f"Content-Type: {content_type}",
            *(f"{k}: {v}" for k, v in headers.items()),
        ]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await self.reader.readexactly(length)
        return int(head.split(b" ", 2)[1])


class Flooder:
    """One user with a table of their own, the requests they flood with, and a session like a browser's."""

    def __init__(self, fixtures: Fixtures):
        from django.contrib.auth import get_user_model
        from django.test import Client

        from campaigns.models import Campaign, Membership
        from sheets.demo import load_demo_characters

        self.user = get_user_model().objects.create_user(f"bench-flooder-{uuid.uuid4().hex[:6]}")
        campaign = Campaign.objects.create(name="flood", system=fixtures.system, gm=fixtures.gm)
        Membership.objects.create(campaign=campaign, user=self.user)
        load_demo_characters(campaign, players=[self.user])
        self.campaign_id = campaign.pk
        character = campaign.characters.get(owner=self.user)
        self.roll = fixtures.sheet_roll_form(campaign.pk, check=False, character_id=character.pk)
        self.edit, self.version = f"/characters/{character.pk}/field/name/", character.version
        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(self.user)
        self.export = client.get(f"/characters/{character.pk}/export/").content
        self.headers = {
            "Origin": "",
            "HX-Request": "true",
            "Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={fixtures.csrf}",
            "X-CSRFToken": fixtures.csrf,
        }

    async def send(self, kind: str, http: RawHttp) -> int:
        if kind == "rolls":
            path, data = self.roll
            status, _ = await http.post(path, {**data, "idempotency_key": uuid.uuid4().hex}, self.headers)
        elif kind == "odds":
            query = urlencode({"notation": ODDS_LINE})
            status, _ = await http.get(f"/campaigns/{self.campaign_id}/table/odds/?{query}", self.headers)
        elif kind == "edits":
            # The name saved again with the version the last answer gave, as the page keeps it.
            fields = {"value": f"Flood {uuid.uuid4().hex[:6]}", "version": str(self.version)}
            status, body = await http.post(self.edit, fields, self.headers)
            found = VERSION.search(body)
            if found:
                self.version = max(self.version, int(found.group(1)))
        else:  # imports: the character's own export, a new character each time the budget allows
            boundary = uuid.uuid4().hex
            body = (
                (
                    f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="c.json"\r\n'
                    f"Content-Type: application/json\r\n\r\n"
                ).encode()
                + self.export
                + f"\r\n--{boundary}--\r\n".encode()
            )
            path = f"/campaigns/{self.campaign_id}/characters/import/"
            status = await http.post_body(
                path, body, f"multipart/form-data; boundary={boundary}", self.headers
            )
        return status


async def flood(flooder: Flooder, kind: str, port: int, origin: str, stop: asyncio.Event) -> dict:
    flooder.headers["Origin"] = origin
    counts: dict[int, int] = {}
    sent = 0

    async def one_connection():
        nonlocal sent
        http = RawHttp(port)
        while not stop.is_set() and sent < MAX_FLOOD:
            sent += 1
            status = await flooder.send(kind, http)
            counts[status] = counts.get(status, 0) + 1
        await http.close()

    await asyncio.gather(*(one_connection() for _ in range(FLOODERS)))
    return counts


async def measured_rolls(server: Server, table_id: int, players: list[dict]) -> list[float]:
    """Click-to-feed of ``SAMPLES`` dice-box rolls at a table of ``SEATS``, the players taking turns."""
    seats = await server.open_table(table_id, SEATS)
    connections = [Http(server.port) for _ in players]
    times = []
    for number in range(1, SAMPLES + 1):
        headers = players[number % len(players)]
        seats.expect(number)
        start = time.perf_counter()
        fields = {"notation": DICE_LINE, "visibility": "public", "idempotency_key": uuid.uuid4().hex}
        status, _ = await connections[number % len(players)].post(
            f"/campaigns/{table_id}/table/roll/", fields, headers
        )
        if status == 200 and await seats.wait():
            times.append(time.perf_counter() - start)
        await asyncio.sleep(max(0.0, PACE - (time.perf_counter() - start)))
    await seats.close()
    for connection in connections:
        await connection.close()
    return times


async def run(port: int, fixtures: Fixtures, players: list[dict], flooder: Flooder, pid: int, ids) -> list:
    server = Server("memory", port, fixtures, {}, pid)
    rows = []
    for kind, table_id in zip(PHASES, ids, strict=True):  # a fresh table each phase
        stop = asyncio.Event()
        flooding = (
            None if kind == "quiet" else asyncio.create_task(flood(flooder, kind, port, server.origin, stop))
        )
        cpu = servers.process_cpu(pid)
        times = await measured_rolls(server, table_id, players)
        stop.set()
        counts = await flooding if flooding else {}
        rows.append((kind, times, counts, servers.process_cpu(pid) - cpu))
        await asyncio.sleep(1.0)  # let the last flood's requests drain
    await server.close()
    return rows


def report(rows: list) -> None:
    quiet = statistics.median(rows[0][1]) * 1000 if rows[0][1] else float("nan")
    head = f"{'flood':<9}{'p50 ms':>9}{'p99 ms':>9}{'x quiet':>9}{'rolls':>7}{'flood sent':>12}{'429s':>7}"
    print(f"\n{head}  other answers")
    for kind, times, counts, _cpu in rows:
        p50 = statistics.median(times) * 1000 if times else float("nan")
        p99 = percentile(times, 0.99) * 1000 if times else float("nan")
        others = ", ".join(f"{status}: {n}" for status, n in sorted(counts.items()) if status != 429)
        print(
            f"{kind:<9}{p50:>9.1f}{p99:>9.1f}{p50 / quiet:>9.2f}{len(times):>7}"
            f"{sum(counts.values()):>12}{counts.get(429, 0):>7}  {others}"
        )
    worst = max(statistics.median(times) * 1000 / quiet for _, times, _, _ in rows[1:] if times)
    verdict = "met" if worst <= 2 else "MISSED"
    print(f"\nAim: every flood within 2x of the quiet p50. Worst: {worst:.2f}x ({verdict}).")


def main() -> None:
    global SAMPLES, PACE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few samples only: checks the bench runs")
    args = parser.parse_args()
    if args.quick:
        SAMPLES = 8
    servers.raise_fd_limit()
    started = time.perf_counter()
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex * 2
    with tempfile.TemporaryDirectory(prefix="fairness-bench-") as folder:
        fixtures = Fixtures(Path(folder))
        from django.contrib.auth import get_user_model
        from django.test import Client

        from campaigns.limits import DEFAULT_RATE_LIMITS

        # Enough players that taking turns keeps each inside the dice box's budget.
        allowed, seconds = DEFAULT_RATE_LIMITS["roll"]
        players = [fixtures.roller] + [
            get_user_model().objects.create_user(f"bench-player-{n}")
            for n in range(int(seconds / PACE / allowed) + 1)
        ]
        headers = []
        for user in players:
            client = Client(HTTP_HOST="127.0.0.1")
            client.force_login(user)
            headers.append(
                {"Cookie": f"sessionid={client.cookies['sessionid'].value}; csrftoken={fixtures.csrf}"}
            )
        flooder = Flooder(fixtures)
        original_campaigns = fixtures.campaigns

        def campaigns_with_players(count, system=None):  # every measured table seats all the players
            from campaigns.models import Membership

            made = original_campaigns(count, system)
            Membership.objects.bulk_create(
                Membership(campaign_id=pk, user=user) for pk in made for user in players[1:]
            )
            return made

        fixtures.campaigns = campaigns_with_players
        ids = fixtures.campaigns(len(PHASES))
        env = servers.app_env(SQLITE_PATH=str(Path(folder) / "bench.sqlite3"))
        port = servers.free_port()
        # Its log would be one "Too Many Requests" line per refused request of the flood.
        with servers.running(["-c", LAUNCHER, str(port)], port, env, stderr=subprocess.DEVNULL) as process:
            origin = f"http://127.0.0.1:{port}"
            players_headers = [
                {**h, "Origin": origin, "HX-Request": "true", "X-CSRFToken": fixtures.csrf} for h in headers
            ]
            print(
                f"Fairness: {os.cpu_count()} CPUs, {fixtures.system} sheets, {SAMPLES} dice-box rolls "
                "a phase "
                f"at a table of {SEATS}, {len(players)} players taking turns; the flood from {FLOODERS} "
                f"connections. Budgets: {json.dumps(DEFAULT_RATE_LIMITS)}",
                flush=True,
            )
            rows = asyncio.run(run(port, fixtures, players_headers, flooder, process.pid, ids))
    report(rows)
    print(f"Total run time {time.perf_counter() - started:.0f} s.")


if __name__ == "__main__":
    main()
