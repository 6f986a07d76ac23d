"""Where one roll's time goes: the dice box and a sheet's roll button, profiled through Django's stack.

Run with ``.venv/bin/python bench/profile_roll.py`` (pyinstrument, from the test extra). It builds a
throwaway SQLite database with one campaign and its demo characters, then sends the htmx POST a browser
sends (session and CSRF checks included: Django's test client runs every middleware) many times under
pyinstrument, and prints, per path: the queries one request makes, the mean wall time per request, and
the call tree (functions under 2% of the time left out). The broadcast goes to the in-memory layer with
nobody listening, so this is the server's own work up to the socket, not the sockets'.

``--system KEY`` picks the game system (default: the first installed); ``--rolls N`` the count.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--system", default=None)
    parser.add_argument("--rolls", type=int, default=200)
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="profile-roll-")
    os.environ["SQLITE_PATH"] = str(Path(folder) / "profile.sqlite3")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    # Production mode, as a table is served: no per-query debug bookkeeping.
    os.environ.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="profile-only-" + uuid.uuid4().hex * 2,
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="ERROR",
    )
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from pyinstrument import Profiler

    from campaigns.models import Campaign, Membership
    from sheets.demo import load_demo_characters
    from sheets.registry import game_systems, system_for

    settings.TABLE_RATE_LIMITS = {"roll": (10**9, 1), "chat": (10**9, 1)}
    call_command("migrate", verbosity=0)
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
    data = {n: ("on" if v is True else str(v)) for n, v in options.items() if v not in (None, False, "")}

    client = Client(enforce_csrf_checks=True, HTTP_HX_REQUEST="true")
    client.force_login(player)
    csrf = uuid.uuid4().hex  # 32 characters: a CSRF secret as the cookie holds it
    client.cookies["csrftoken"] = csrf
    paths = {
        "dice box": (f"/campaigns/{campaign.pk}/table/roll/", lambda: {"notation": "4d6kh3+2 vs 12"}),
        f"sheet roll ({system_key} {key})": (f"/characters/{character.pk}/roll/{key}/", lambda: dict(data)),
    }
    print(f"Python {sys.version.split()[0]}, Django {django.get_version()}, {args.rolls} rolls per path")
    for label, (url, fields) in paths.items():

        def post(url=url, fields=fields):
            body = {**fields(), "visibility": "public", "idempotency_key": uuid.uuid4().hex}
            response = client.post(url, body, HTTP_X_CSRFTOKEN=csrf)
            assert response.status_code == 200, (url, response.status_code, response.content[:300])

        for _ in range(5):
            post()  # templates, imports and caches warm up first
        queries = []
        with connection.execute_wrapper(
            lambda run, sql, *rest, seen=queries: seen.append(sql) or run(sql, *rest)
        ):
            post()
        # Unprofiled first: wall and CPU time per request (the CPU figure holds up on a busy machine).
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(args.rolls):
            post()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"\n=== {label}: {len(queries)} statements; per request {wall / args.rolls * 1000:.2f} ms wall, "
            f"{cpu / args.rolls * 1000:.2f} ms CPU (unprofiled)"
        )
        for sql in queries:
            print("   ", sql[:110])
        profiler = Profiler(interval=0.001)
        profiler.start()
        for _ in range(args.rolls):
            post()
        profiler.stop()
        print(
            profiler.output_text(
                unicode=False,
                color=False,
                time="percent_of_total",
            )
        )


if __name__ == "__main__":
    main()
