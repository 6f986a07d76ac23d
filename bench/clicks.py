"""The paths bench/table.py times, each as clicks against one server: how many, and what is timed.

Sequential clicks at one table (``latency``; the edit, the encounter action and the request answer
each with their own untimed set-up between clicks), and ``sustained``, closed loop at many tables.
Each returns a row of figures: ``summary``'s (click-to-feed p50/p99, POST answered, the server's CPU
per click, lost, duplicated, not 200) or the sustained rate.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from clients import Server, Table
from servers import process_cpu

SIZES = (8, 64, 256)  # sockets at the table
SAMPLES = {8: 150, 64: 80, 256: 40}
TABLES, SEATS = 100, 8
SUSTAIN_SECONDS = 4.0
WARM_UP = 5
ACTIONS = ("dice box", "sheet roll", "broadcast leg")  # timed at every size


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def summary(times: list[float], answered: list[float], lost: int, dup: int, bad: int, cpu: float) -> dict:
    nan = float("nan")
    return {
        "p50": statistics.median(times) * 1000 if times else nan,
        "p99": percentile(times, 0.99) * 1000 if times else nan,
        "post": statistics.median(answered) * 1000 if answered else nan,
        "post99": percentile(answered, 0.99) * 1000 if answered else nan,
        "lost": lost,
        "dup": dup,
        "bad": bad,
        "cpu": cpu * 1000,  # the server's CPU per click, ms: steady on a busy machine, unlike the clock
    }


async def latency(server: Server, table_id: int, size: int, samples: int, action: str) -> dict:
    """Sequential clicks at one table: click-to-feed p50/p99, POST answered p50, lost, duplicated."""
    table = await server.open_table(table_id, size)
    await server.open_trigger()
    times, answered, sent, seq, bad = [], [], [], 0, 0
    cpu = 0.0
    for round_number in range(WARM_UP + samples):
        if round_number == WARM_UP:
            cpu = process_cpu(server.pid)
        seq += 1
        table.expect(seq)
        start = time.perf_counter()
        if action == "broadcast leg":
            await server.broadcast(table_id, seq)
        else:
            status = await server.post(table_id, action)
            bad += status != 200
            if round_number >= WARM_UP:
                answered.append(time.perf_counter() - start)
        if await table.wait() and round_number >= WARM_UP:
            times.append(time.perf_counter() - start)
        sent.append(seq)
    cpu = (process_cpu(server.pid) - cpu) / samples
    await asyncio.sleep(0.2)  # let stragglers land before counting
    lost, dup = table.losses(sent)
    await table.close()
    return summary(times, answered, lost, dup, bad, cpu)


async def edit_latency(server: Server, table_id: int, samples: int) -> dict:
    """An in-place edit's answer (an edit puts nothing in the feed)."""
    answered, bad, cpu = [], 0, 0.0
    for round_number in range(WARM_UP + samples):
        if round_number == WARM_UP:
            cpu = process_cpu(server.pid)
        start = time.perf_counter()
        status = await server.post(table_id, "edit")
        bad += status != 200
        if round_number >= WARM_UP:
            answered.append(time.perf_counter() - start)
    cpu = (process_cpu(server.pid) - cpu) / samples
    return summary(answered, answered, 0, 0, bad, cpu)


async def _set_up_then_click(
    server: Server, table_id: int, samples: int, action: str, set_up, recount=None
) -> dict:
    """Clicks of ``action`` at a table of 8, each after ``set_up`` (untimed: it returns how many entries
    the table holds once what it logged has landed, or None when it logs nothing): click-to-feed of the
    click's entry, POST answered, and the server's CPU for the click alone. ``recount``, if given, reads
    how many entries the table holds at the end from the database."""
    table = await server.open_table(table_id, SEATS)
    times, answered, bad, cpu, held = [], [], 0, 0.0, 0
    for round_number in range(WARM_UP + samples):
        logged = await set_up()
        if logged is not None:
            held = logged
            table.expect(held)
            if held and not await table.wait():  # what the set-up logged has landed everywhere
                bad += 1
        table.expect(held + 1)
        before = process_cpu(server.pid)
        start = time.perf_counter()
        status = await server.post(table_id, action)
        bad += status != 200
        if round_number >= WARM_UP:
            answered.append(time.perf_counter() - start)
        if await table.wait() and round_number >= WARM_UP:
            times.append(time.perf_counter() - start)
        if round_number >= WARM_UP:
            cpu += process_cpu(server.pid) - before
        held += 1
    await asyncio.sleep(0.2)  # let stragglers land before counting
    if recount is not None:
        held = await recount()
    lost, dup = table.losses(list(range(held)))
    await table.close()
    return summary(times, answered, lost, dup, bad, cpu / samples)


async def encounter_latency(server: Server, table_id: int, samples: int) -> dict:
    """The player's encounter action at a table of 8; between clicks, untimed, the GM presses Next turn
    until the player's turn is back (a server without fixtures, the floor, has no turns to wait for)."""

    async def next_turns():
        return await server.encounter_turn(table_id) if server.fixtures is not None else None

    async def logged():
        return (await asyncio.to_thread(server.fixtures.encounter_state, server.forms[table_id]["fight"]))[2]

    recount = logged if server.fixtures is not None else None
    return await _set_up_then_click(server, table_id, samples, "encounter action", next_turns, recount)


async def request_latency(server: Server, table_id: int, samples: int) -> dict:
    """A roll-request answer at a table of 8: the prompt's button as the sheet posts it, until every
    socket has the answer's entry. Between clicks, untimed, the GM sends the last request's group
    result and asks again, and the roller's sheet fetches its new prompt."""
    return await _set_up_then_click(server, table_id, samples, "request answer", lambda: server.ask(table_id))


async def sustained(server: Server, table_ids: list[int], action: str) -> dict:
    """Closed loop at every table at once: completed clicks per second over all of them."""
    tables = [await server.open_table(table_id, SEATS) for table_id in table_ids]
    completed = timeouts = bad = 0
    sent_per_table: list[list[int]] = [[] for _ in tables]
    stop_at = time.perf_counter() + SUSTAIN_SECONDS

    async def loop(index: int, table: Table, table_id: int):
        nonlocal completed, timeouts, bad
        seq = 0
        while time.perf_counter() < stop_at:
            seq += 1
            table.expect(seq)
            status = await server.post(table_id, action)
            bad += status != 200
            sent_per_table[index].append(seq)
            if await table.wait():
                completed += 1
            else:
                timeouts += 1

    start, cpu = time.perf_counter(), process_cpu(server.pid)
    await asyncio.gather(*(loop(i, t, tid) for i, (t, tid) in enumerate(zip(tables, table_ids, strict=True))))
    elapsed, cpu = time.perf_counter() - start, process_cpu(server.pid) - cpu
    await asyncio.sleep(0.3)
    lost = dup = 0
    for table, sent in zip(tables, sent_per_table, strict=True):
        table_lost, table_dup = table.losses(sent)
        lost, dup = lost + table_lost, dup + table_dup
        await table.close()
    clicks = completed + timeouts
    return {
        "rate": completed / elapsed,
        "cpu": cpu / clicks * 1000 if clicks else float("nan"),
        "lost": lost,
        "dup": dup,
        "bad": bad,
    }
