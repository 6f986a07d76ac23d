"""What a sheet page costs the server: each system's demo sheet loaded many times, as its player.

Run with ``.venv/bin/python bench/sheet_page.py`` (``--loads N``, default 60; ``--templates``: also the
time spent in each template, rendered inside the page, inclusive of what it includes). It builds a
throwaway SQLite database with a campaign per installed system and its demo characters, then sends
the page's GET through Django's test client (the request, every middleware, the view and its render),
in production mode. A sheet page is loaded when a player opens it, and again for every live merge of
a change made elsewhere (static/js/table.js), so its cost is on the table's refresh path too. It prints
the mean CPU time per load and the page's size. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=60)
    parser.add_argument("--templates", action="store_true", help="time spent in each template")
    args = parser.parse_args()
    import servers

    servers.in_process_app("sheet-page")
    from django.contrib.auth import get_user_model
    from django.test import Client

    from campaigns.models import Campaign, Membership
    from sheets.demo import load_demo_characters
    from sheets.registry import game_systems

    spent = _time_templates() if args.templates else None
    users = get_user_model()
    gm, player = users.objects.create_user("gm"), users.objects.create_user("player")
    print(f"Sheet page: python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.loads} loads a system")
    for system in game_systems():
        campaign = Campaign.objects.create(name="Bench", system=system.label, gm=gm)
        Membership.objects.create(campaign=campaign, user=player)
        load_demo_characters(campaign, players=[player])
        url = campaign.characters.get(owner=player).get_absolute_url()
        client = Client()
        client.force_login(player)
        for _ in range(5):  # warm: templates compiled, caches filled
            assert client.get(url).status_code == 200
        if spent is not None:
            spent.clear()
        started = time.process_time()
        for _ in range(args.loads):
            size = len(client.get(url).content)
        cpu = (time.process_time() - started) / args.loads * 1000
        print(f"  {system.label:<12} {cpu:6.2f} ms CPU a load   {size:6d} bytes")
        for name, seconds in (spent or collections.Counter()).most_common(8):
            print(f"      {seconds / args.loads * 1000:6.2f} ms  {name}")


def _time_templates() -> collections.Counter:
    """Seconds spent in each template's render, by name, inclusive (a template counts what it includes)."""
    from django.template import base

    spent = collections.Counter()
    render = base.Template._render

    def timed(template, context):
        started = time.perf_counter()
        try:
            return render(template, context)
        finally:
            spent[template.origin.template_name or template.name] += time.perf_counter() - started

    base.Template._render = timed
    return spent


if __name__ == "__main__":
    main()
