"""How fast the live table is on the path a browser takes: an htmx POST in, the entry on every socket.

Run with ``.venv/bin/python bench/table.py`` (``--quick``: a smoke run well under 3 minutes). It prints
figures and asserts nothing. Redis must be reachable at REDIS_URL (default redis://127.0.0.1:6379/15)
for the Redis rows; a random channel-layer prefix keeps the run apart from anything else there.

Three servers, each in its own process under the same uvicorn, driven by the same client code here:

* **floor**: a framework-free ASGI app. An HTTP POST in (its body read), one draw from ``secrets``, an
  entry of the app's entry frame's size sent to every socket at the table, a response of the app's
  response's size. Sockets are kept per table in a dict.
* **memory** and **redis**: the real app (``config.asgi``) in production mode, on the in-memory layer
  and on channels-redis, with a throwaway SQLite database.

What the client sends is what a browser sends: ``POST`` with the session cookie, the CSRF cookie and
its ``X-CSRFToken`` header, ``Origin``, ``HX-Request: true`` and the form fields of the dice box or the
sheet's roll button (a fresh idempotency key each time), over one keep-alive connection per roller.

Figures (every one also as a ratio to the floor's in this run):

* *click-to-feed*: from the POST until the last of the N sockets at the table (the roller's own
  included) has the entry; *POST answered*: until the response is in.
* *broadcast leg*: a bench-only socket asks the server to group_send a ready-made entry event (the
  app's own event shape); until the last socket has it. The floor sends the same bytes to its sockets.
* *in-place edit*: a sheet value saved the way the page saves it; the answer only (an edit sends the
  table no feed entry).
* *encounter action*: the player's own turn taken from the turn panel (the panel's first action
  form as the page posts it, ``attack`` where offered) at a table of 8, until every socket has the
  action's entry. Between clicks, untimed, the GM presses Next turn over HTTP until the player's
  turn comes round again, and the bench waits for the entries that makes; the floor posts its roll.
* *saved roll*: the player's saved dice line (play's saved rolls) from its button on the table page,
  a fresh key each time; the floor's row for it is its dice box.
* *request answer*: the GM asks the player's character for a roll, the sheet fetches its prompt, and
  the prompt's first button is posted as the page posts it, until every socket has the answer's
  entry (timed); between clicks, untimed, the GM sends the last request's group result (closing it)
  and asks again. The floor's row for it is its dice box.
* *django minimum*: the floor's work done through Django's whole stack and nothing of the app's: a
  bench-only view behind every middleware (the session and its user read, CSRF checked) that draws
  once from ``secrets``, broadcasts the sample entry as a roll's is broadcast and answers with the
  dice-box answer's size. What the framework costs before the app does anything (the floor's own
  row for it is its dice box).
* *sustained*: one roller rolling closed-loop at a table of 8; and 100 tables of 8 at once, each
  closed-loop (the next POST once all 8 have the last entry). The client decodes every frame, on the
  same 2 cores, for the floor as much as for the app.

Last, the aims at N = 8: each of the six paths (dice box, sheet roll, saved roll, encounter action,
request answer, in-place edit) as a ratio to Django's minimum and to the floor, p50 and p99, HELD
when both are within 2x of the minimum's (the edit: its answer against the minimum's answer).

Lost and duplicated entries are counted per socket from the seq numbers. Every row also gives the
server process's CPU per click (all its threads, from /proc): the figure that holds still when other
work shares the machine, where the clock's do not.

Every roll on the page is an htmx POST; the table socket takes no rolls (campaigns/consumers.py).

The pieces: bench/servers.py (the floor, the app under uvicorn, their processes), bench/fixtures.py
(the throwaway database and what is clicked on in it), bench/clients.py (a tab's connection, a table's
sockets, the clicks as a browser sends them), bench/clicks.py (each path timed) and bench/report.py.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import clicks
import servers
from clicks import (
    ACTIONS,
    SAMPLES,
    SEATS,
    SIZES,
    edit_latency,
    encounter_latency,
    latency,
    request_latency,
    sustained,
)
from clients import DJANGO_MINIMUM, Server
from fixtures import Fixtures
from report import report, report_aims


async def measure(server: Server, ids: dict) -> dict:
    results = {}
    for size in SIZES:
        for action in ACTIONS:
            results[(action, size)] = await latency(server, ids[(action, size)], size, SAMPLES[size], action)
    minimum = (DJANGO_MINIMUM, SEATS)
    results[minimum] = await latency(server, ids[minimum], SEATS, SAMPLES[SEATS], DJANGO_MINIMUM)
    results["edit"] = await edit_latency(server, ids[("sheet roll", 8)], SAMPLES[8])
    results["encounter"] = await encounter_latency(server, ids["encounter"], SAMPLES[8])
    if server.fixtures is not None:  # the floor's row for these is its dice box
        results["saved roll"] = await latency(server, ids["saved roll"], SEATS, SAMPLES[SEATS], "saved roll")
        results["request answer"] = await request_latency(server, ids["request answer"], SAMPLES[SEATS])
    for action in ("dice box", "sheet roll", DJANGO_MINIMUM):
        results[("one roller", action)] = await sustained(server, ids[("one roller", action)], action)
        results[("100 tables", action)] = await sustained(server, ids[("100 tables", action)], action)
    await server.close()
    return results


def table_ids(fixtures: Fixtures | None) -> dict:
    ids = {}
    for size in SIZES:
        for action in ACTIONS:
            ids[(action, size)] = fixtures.campaigns(1)[0] if fixtures else f"{action[:4]}-{size}"
    ids["encounter"] = fixtures.campaigns(1)[0] if fixtures else "encounter"
    ids[(DJANGO_MINIMUM, SEATS)] = fixtures.campaigns(1)[0] if fixtures else "minimum"
    if fixtures:
        ids["saved roll"], ids["request answer"] = fixtures.campaigns(2)
    for action in ("dice box", "sheet roll", DJANGO_MINIMUM):
        ids[("one roller", action)] = fixtures.campaigns(1) if fixtures else [f"one-{action[:4]}"]
        ids[("100 tables", action)] = (
            fixtures.campaigns(clicks.TABLES)
            if fixtures
            else [f"many-{action[:4]}-{n}" for n in range(clicks.TABLES)]
        )
    return ids


def forms_for(fixtures: Fixtures | None, ids: dict) -> dict:
    """Per campaign: its sheet's roll button (URL and fields) and its in-place edit."""
    if fixtures is None:
        return {}
    forms = {}
    for value in ids.values():
        for campaign_id in value if isinstance(value, list) else [value]:
            forms[campaign_id] = {
                "sheet": fixtures.sheet_roll_form(campaign_id, check=False),
                "edit": fixtures.edit_form(campaign_id),
                "box": fixtures.box_form(campaign_id),
            }
    forms[ids["encounter"]]["fight"] = fixtures.encounter_fight(ids["encounter"])
    forms[ids["saved roll"]]["saved"] = fixtures.saved_roll(ids["saved roll"])
    forms[ids["request answer"]]["request"] = fixtures.request_form(ids["request answer"])
    return forms


def run_server(kind: str, fixtures: Fixtures | None, env: dict[str, str], sizes: dict) -> dict:
    port = servers.free_port()
    if kind == "floor":
        argv = servers.floor_argv(port, sizes["entry_size"], sizes["response_size"])
    else:
        argv = servers.app_argv(port, kind)
    ids = table_ids(fixtures)
    forms = forms_for(fixtures, ids)
    with servers.running(argv, port, env) as process:
        print(f"  measuring {kind} ...", flush=True)
        return asyncio.run(measure(Server(kind, port, fixtures, forms, process.pid), ids))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few samples only: checks the bench runs")
    parser.add_argument("--no-redis", action="store_true", help="leave out the Redis layer")
    args = parser.parse_args()
    servers.raise_fd_limit()
    if args.quick:
        for size in SAMPLES:
            SAMPLES[size] = 10
        clicks.SUSTAIN_SECONDS, clicks.TABLES = 1.0, 10

    started = time.perf_counter()
    # The sessions this process writes must be valid in the production-mode servers: one secret key.
    os.environ["DJANGO_SECRET_KEY"] = "bench-only-" + uuid.uuid4().hex * 2
    with tempfile.TemporaryDirectory(prefix="table-bench-") as folder:
        fixtures = Fixtures(Path(folder))
        sizes = fixtures.samples()
        env = servers.app_env(
            SQLITE_PATH=str(Path(folder) / "bench.sqlite3"),
            REDIS_URL=servers.REDIS_URL,
            LAYER_PREFIX=f"bench-{uuid.uuid4().hex[:10]}",
            SAMPLE_HTML=sizes["html"],
            RESPONSE_SIZE=str(sizes["response_size"]),
        )
        print(
            f"Table benchmark: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
            f"redis {servers.REDIS_URL}; sheet rolls on a {fixtures.system} demo sheet"
        )
        results = {"floor": run_server("floor", None, env, sizes)}
        results["memory"] = run_server("memory", fixtures, env, sizes)
        if not args.no_redis:
            results["redis"] = run_server("redis", fixtures, env, sizes)
    report(results)
    report_aims(results)
    print(
        f"Total run time {time.perf_counter() - started:.0f} s. Entry frame {sizes['entry_size']} bytes, "
        f"dice-box answer {sizes['response_size']} bytes (the floor sends the same sizes)."
    )


if __name__ == "__main__":
    main()
