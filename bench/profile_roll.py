"""Where one roll's time goes: the dice box, a sheet's roll button and an encounter action, profiled.

Run with ``.venv/bin/python bench/profile_roll.py`` (pyinstrument, from the test extra). It builds a
throwaway SQLite database with one campaign and its demo characters, then sends the htmx POST a browser
sends (session cookie, CSRF cookie and header, Origin) many times, each through what the server runs
for it: ``config.asgi``'s handler's one hop (``OneHopHandler.respond``: the request, every middleware,
the view and its answer's render, ``request_finished``), called on this thread so pyinstrument sees
it, then the broadcasts it collected sent to the in-memory layer on an event loop (nobody listens:
this is the server's own work up to the sockets). It prints, per path: the queries one request makes,
the mean wall and CPU time per request, the Python calls one request makes (functions and built-ins
called, counted over ``--counted`` requests: a figure a busy or noisy machine does not move, so a change
of a few percent shows where the times cannot tell it from the noise), and the call tree (functions
under 2% of the time left out).
The paths: Django's own minimum (bench/minimum.py: the framework's stack around one draw and one
broadcast, nothing of the app's), the dice box, a saved dice line from the table's panel, the sheet's
first roll button, the player's encounter action from the turn panel (bench/fixtures.py's fight;
between two actions the GM's Next turn presses run outside the timing and the profile), and the answer
to a GM's roll request from the sheet's prompt (between two answers the GM closes the last request and
asks again, untimed).

Then two figures without the profiler: the dice box through the whole ASGI application
(``config.asgi.application`` driven in-process on uvloop, as uvicorn calls it: body, thread hop,
broadcast, answer), with the database connections it opened; and the dice box's service alone (the
seat check, the roll subjects, ``table_roll_create``), a roll without any HTTP stack.

``--system KEY`` picks the game system (default: the first installed); ``--rolls N`` the count;
``--bystanders N`` adds N more quick NPCs to the encounter: a fuller fight, as a table of
several players and the GM's band makes; ``--only TEXT`` times only the paths whose name holds TEXT
(Django's minimum is always timed, as the yardstick of the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import re
import secrets
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default=None)
    parser.add_argument("--rolls", type=int, default=200)
    parser.add_argument("--bystanders", type=int, default=0)
    parser.add_argument("--only", default="")
    parser.add_argument("--counted", type=int, default=50, help="requests whose Python calls are counted")
    parser.add_argument("--all-frames", action="store_true", help="show Django's frames too")
    args = parser.parse_args()
    import servers

    servers.in_process_app("profile-roll")
    import django
    import minimum
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from fixtures import NPCS, box_drawn, saved_roll_drawn, turn_action_form
    from page_markup import value_by_id
    from pyinstrument import Profiler

    from campaigns import realtime
    from campaigns.models import Campaign, Membership
    from play import encounters
    from play.models import Encounter
    from rules.dice import Roller
    from sheets.combat import EncounterError
    from sheets.demo import load_demo_characters
    from sheets.forms import as_posted
    from sheets.registry import game_systems, system_for

    system_key = args.system or game_systems()[0].label
    users = get_user_model()
    gm, player = users.objects.create_user("gm"), users.objects.create_user("player")
    campaign = Campaign.objects.create(name="Profile", system=system_key, gm=gm)
    Membership.objects.create(campaign=campaign, user=player)
    load_demo_characters(campaign, players=[player])
    character = campaign.characters.get(owner=player)
    system = system_for(campaign)
    options = {name: field.initial for name, field in system.options_form(character=character).fields.items()}
    key = system.buttons(character, options)[0].key
    data = as_posted(options)

    client = Client()
    client.force_login(player)
    csrf = uuid.uuid4().hex  # 32 characters: a CSRF secret as the cookie holds it
    cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}"
    box = box_drawn(client, campaign.pk)  # what the table page's dice box offers, sent with each line
    # What the sheet's buttons were drawn from, which the page sends with every roll.
    sheet_page = client.get(character.get_absolute_url()).text
    data["buttons_drawn"] = value_by_id(sheet_page, "roll-buttons-drawn")
    from config.asgi import application, django_asgi_app

    loop = asyncio.new_event_loop()
    encounter = encounters.encounter_create(campaign=campaign, name="Profile")
    encounters.combatant_add_character(encounter=encounter, character=character)
    for name in ["Dummy"] + [f"Bystander {number}" for number in range(1, args.bystanders + 1)]:
        encounters.combatant_add_npc(encounter=encounter, name=name, cleaned_data=dict(NPCS[system_key]))
    encounters.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(secrets.SystemRandom()), author=gm
    )
    actor = encounter.combatants.get(character=character)

    fight = {"acted": False}

    def players_turn():
        """Untimed: Next turn until the player's character may act again (once it has acted)."""
        pressed = False
        while True:
            fresh = Encounter.objects.get(pk=encounter.pk)
            mine = encounters.current_actor(fresh, encounters.combatants_of(fresh)).pk == actor.pk
            if mine and (pressed or not fight["acted"]):
                fight.update(acted=False, version=fresh.version)
                return
            encounters.encounter_next_turn(encounter=fresh, version=fresh.version, author=gm)
            pressed = True

    players_turn()
    # The panel's own action form, as the page posts it (each system's fields differ).
    act_url, action = turn_action_form(client, campaign.pk)

    def act_fields():
        fight["acted"] = True
        return {**action, "version": fight["version"]}

    from play import saved_rolls

    saved = saved_rolls.saved_roll_create(
        campaign=campaign,
        owner=player,
        character=None,
        name="Profile",
        line="4d6kh3+2 vs 12",
        visibility="public",
    )
    from play import requests as roll_requests

    asked = {}

    def ask():
        """Untimed: the GM closes the last request (its group result sent) and asks the player's
        character again, as the GM does between two answers; the answer's URL is the new prompt's."""
        if "request" in asked:
            roll_requests.roll_request_send_result(request=asked["request"], gm=gm)
        typed = {name: value for name, value in data.items() if isinstance(value, str)}
        request = roll_requests.roll_request_create(
            campaign=campaign, gm=gm, label="Profile", characters=[character], options=typed
        )
        target = request.targets.get()
        asked.update(request=request, url=f"/characters/{character.pk}/requests/{target.pk}/roll/")

    saved_url = f"/campaigns/{campaign.pk}/saved-rolls/{saved.pk}/roll/"
    saved_fields = saved_roll_drawn(client, campaign.pk, saved_url)  # as the table page's button sends them
    minimum.install()
    paths = {
        "django minimum (bench/minimum.py)": (
            f"/bench/minimum/{campaign.pk}/",
            lambda: {"notation": "4d6kh3+2 vs 12"},
            None,
        ),
        "dice box": (
            f"/campaigns/{campaign.pk}/table/roll/",
            lambda: {"notation": "4d6kh3+2 vs 12", **box},
            None,
        ),
        "saved roll (the table's panel)": (
            saved_url,
            lambda: dict(saved_fields),
            None,
        ),
        f"sheet roll ({system_key} {key})": (
            f"/characters/{character.pk}/roll/{key}/",
            lambda: dict(data),
            None,
        ),
        f"encounter action ({system_key} {action['action']})": (
            act_url,
            act_fields,
            players_turn,
        ),
        f"request answer ({system_key} {key})": (lambda: asked["url"], lambda: {"key": key}, ask),
    }
    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, {args.rolls} rolls per path")
    for label, (url, fields, before) in paths.items():
        if args.only not in label and not label.startswith("django minimum"):
            continue

        def post(url=url, fields=fields, before=before, counter=None):
            """One request; returns its (wall, CPU) seconds, the untimed preparation left out. With
            ``counter``, the server's part of it is counted too."""
            if before is not None:
                before()
            fields = {**fields(), "visibility": "public", "idempotency_key": uuid.uuid4().hex}
            scope, body = asgi_request(url() if callable(url) else url, fields, cookie, csrf)
            wall, cpu = time.perf_counter(), time.process_time()
            with counter or contextlib.nullcontext():
                response, broadcasts = django_asgi_app.respond(scope, io.BytesIO(body))
                # Built here, the deferred ones too: the server builds them on the request's thread too.
                loop.run_until_complete(realtime.send_collected(realtime.build_later(broadcasts)))
            spent = time.perf_counter() - wall, time.process_time() - cpu
            if (drawn := value_by_id(response.content.decode(), "roll-buttons-drawn")) is not None:
                data["buttons_drawn"] = drawn  # as the page keeps it
            refused = re.findall(rb'role="alert"[^<]*>[^<]*', response.content)
            assert response.status_code == 200, (url, response.status_code, refused)
            return spent

        try:
            for _ in range(5):
                post()  # templates, imports and caches warm up first
        except (AssertionError, EncounterError) as stopped:
            # Only Five by Five's sample fight repeats one action round after round (bench/fixtures.py's
            # NPCs): elsewhere the NPC falls, or the round asks for another step first.
            print(f"\n=== {label}: left out, it does not repeat here: {stopped}")
            continue
        if before is not None:
            before()
        queries = []
        with connection.execute_wrapper(
            lambda run, sql, *rest, seen=queries: seen.append(sql) or run(sql, *rest)
        ):
            post(before=None)
        # Unprofiled first: wall and CPU time per request (the CPU figure holds up on a busy machine).
        spent = [post() for _ in range(args.rolls)]
        wall, cpu = sum(w for w, _ in spent), sum(c for _, c in spent)
        # Then the statements' own share: what the database driver and the database take, each
        # statement timed from Django's cursor down (the floor of a path that must write its rows).
        in_statements = [0.0]

        def timed(run, sql, *rest, total=in_statements):
            started = time.perf_counter()
            try:
                return run(sql, *rest)
            finally:
                total[0] += time.perf_counter() - started

        with connection.execute_wrapper(timed):
            for _ in range(args.rolls):
                post()
        counter = CallCounter()
        for _ in range(args.counted):
            post(counter=counter)
        print(
            f"\n=== {label}: {len(queries)} statements; per request {wall / args.rolls * 1000:.2f} ms wall, "
            f"{cpu / args.rolls * 1000:.2f} ms CPU (unprofiled), "
            f"{counter.calls / args.counted:,.0f} Python calls; "
            f"{in_statements[0] / args.rolls * 1000:.2f} ms a request in its statements"
        )
        for sql in queries:
            print("   ", sql[:110])
        profiler = Profiler(interval=0.001)
        for _ in range(args.rolls):
            if before is not None:
                before()
            profiler.start()
            post(before=None)
            profiler.stop()
        print(
            profiler.output_text(
                unicode=False,
                color=False,
                time="percent_of_total",
                show_all=args.all_frames,
            )
        )
    if args.only in "dice box":
        through_asgi(application, f"/campaigns/{campaign.pk}/table/roll/", cookie, csrf, args.rolls, box)
        service_alone(campaign, player, args.rolls)


class CallCounter:
    """Counts the Python functions and built-ins called while it is entered (``sys.setprofile``, this
    thread: the one-hop handler runs the request here). Slower than the request itself, so never timed."""

    def __init__(self):
        self.calls = 0

    def _heard(self, frame, event, arg):
        if event in ("call", "c_call"):
            self.calls += 1

    def __enter__(self):
        sys.setprofile(self._heard)
        return self

    def __exit__(self, *exc):
        sys.setprofile(None)


def asgi_request(path: str, fields: dict, cookie: str, csrf: str) -> tuple[dict, bytes]:
    """The ASGI scope and body of the htmx POST a browser sends."""
    body = urlencode(fields).encode()
    headers = {
        "host": "testserver",
        "cookie": cookie,
        "x-csrftoken": csrf,
        "origin": "http://testserver",
        "hx-request": "true",
        "content-type": "application/x-www-form-urlencoded",
        "content-length": str(len(body)),
    }
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(name.encode(), value.encode()) for name, value in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    return scope, body


def through_asgi(application, path: str, cookie: str, csrf: str, rolls: int, box: dict) -> None:
    """The dice box through the whole ASGI application, in-process on uvloop as uvicorn calls it."""
    import uvloop
    from django.db.backends.signals import connection_created

    opened = []
    connection_created.connect(lambda **kwargs: opened.append(1), weak=False)

    async def one() -> None:
        scope, body = asgi_request(
            path,
            {
                "notation": "4d6kh3+2 vs 12",
                "visibility": "public",
                "idempotency_key": uuid.uuid4().hex,
                **box,
            },
            cookie,
            csrf,
        )
        messages = [{"type": "http.request", "body": body, "more_body": False}]
        answered = asyncio.Event()
        status = []

        async def receive():
            if messages:
                return messages.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message):
            if message["type"] == "http.response.start":
                status.append(message["status"])
            elif not message.get("more_body"):
                answered.set()

        await application(scope, receive, send)
        assert status == [200], status

    async def run() -> tuple[float, float, int]:
        for _ in range(10):
            await one()
        before = len(opened)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(rolls):
            await one()
        return time.perf_counter() - wall, time.process_time() - cpu, len(opened) - before

    wall, cpu, connections = uvloop.run(run())
    print(
        f"\n=== dice box through config.asgi (in-process, uvloop): per roll "
        f" {wall / rolls * 1000:.2f} ms wall, "
        f"{cpu / rolls * 1000:.2f} ms CPU (every thread); {connections} database connections opened"
    )


def service_alone(campaign, player, rolls: int) -> None:
    """The dice box's roll without the HTTP stack: the seat check, the roll subjects and the service,
    as a roll message over the table socket would run them. What is left of a request without
    Django's middleware, form and answer template: the floor any roll path over Django could reach."""
    from campaigns import hooks, selectors, services
    from campaigns.models import Campaign

    def roll():
        fresh = Campaign.objects.get(pk=campaign.pk)
        assert selectors.is_seated(player, fresh)
        hooks.roll_subjects(player, fresh)
        services.table_roll_create(
            campaign=fresh, author=player, notation_text="4d6kh3+2 vs 12", idempotency_key=uuid.uuid4().hex
        )

    for _ in range(5):
        roll()
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(rolls):
        roll()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"\n=== dice box, service alone (no HTTP stack): per roll {wall / rolls * 1000:.2f} ms wall, "
        f"{cpu / rolls * 1000:.2f} ms CPU"
    )


if __name__ == "__main__":
    main()
