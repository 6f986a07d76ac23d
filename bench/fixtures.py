"""The benches' database furniture: users, campaigns, characters and the cookies a browser holds.

``Fixtures`` makes a throwaway database (SQLite in a folder, or a PostgreSQL database the caller made)
and everything the benches click on in it: a GM, a roller and a viewer logged in, campaigns with their
demo characters, a sheet's roll button, an in-place edit, a running encounter and its action form, a
saved roll, a roll request, and a real entry frame and dice-box answer for the floor's sizes.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import string
import sys
import uuid
from pathlib import Path

import page_markup
from servers import ROOT

sys.path.insert(0, str(ROOT))  # the project: its settings, its apps, the tests' NPCs

from tests.npcs import L5R_BANDIT  # noqa: E402 (after the path is set)

DICE_LINE = "4d6kh3+2 vs 12"
# A quick NPC per system for the encounter row, as tests/campaigns/test_player_turns.py makes them;
# Five by Five's has hit points enough to last the run.
NPCS = {
    "triad": {"difficulty": 10, "weapon": "medium", "armor": "light"},
    "fivebyfive": {
        "descriptors": {"Brute": 6, "Sneaky": 4},
        "hp": 10**6,
        "weapon_db": 0,
        "armor_av": 0,
        "shield": False,
    },
    "freefall": {"body": 3, "mind": 2, "ghost": 2, "av": 1, "dv": 5},
    "l5r": L5R_BANDIT,
}


def box_drawn(client, campaign_id: int) -> dict:
    """What the table page's dice box offers, as the box sends it with a roll (nothing on a commit
    before the box carried it)."""
    drawn = page_markup.value_by_id(client.get(f"/campaigns/{campaign_id}/table/").text, "dice-box-drawn")
    return {} if drawn is None else {"box_drawn": drawn}


def saved_roll_drawn(client, campaign_id: int, url: str) -> dict:
    """What the table page's saved-roll button for ``url`` sends besides its key (what its panel was
    drawn from: play.saved_roll_views answers a roll from a panel still as drawn with the key alone)."""
    html = client.get(f"/campaigns/{campaign_id}/table/").content.decode()
    form = next(
        found.group(0)
        for found in re.finditer(r"<form\b[^>]*>.*?</form>", html, re.S)
        if page_markup.attr(found.group(0).split(">", 1)[0] + ">", "action") == url
    )
    left_out = ("csrfmiddlewaretoken", "idempotency_key")
    return {name: value for name, value in page_markup.form_fields(form).items() if name not in left_out}


def turn_action_form(client, campaign_id: int) -> tuple[str, dict]:
    """The action form the logged-in player's turn panel offers (``attack`` where offered, else the
    first): its URL and its fields as the page posts them, less the version."""
    html = client.get(f"/campaigns/{campaign_id}/turn/").content.decode()
    offered = []
    for form in re.finditer(r"<form\b[^>]*>.*?</form>", html, re.S):
        fields = page_markup.form_fields(form.group(0))
        if fields.get("action"):
            offered.append((page_markup.attr(form.group(0).split(">", 1)[0] + ">", "action"), fields))
    url, fields = next((found for found in offered if found[1]["action"] == "attack"), offered[0])
    left_out = ("csrfmiddlewaretoken", "version")
    return url, {name: value for name, value in fields.items() if name not in left_out}


class Fixtures:
    """Users, campaigns, characters and browser cookies in a throwaway SQLite database."""

    def __init__(self, folder: Path, database_url: str | None = None):
        # A throwaway SQLite file, or a throwaway PostgreSQL database the caller made (many_tables.py).
        os.environ["SQLITE_PATH"] = str(folder / "bench.sqlite3")
        if database_url:
            os.environ["DATABASE_URL"] = database_url
        else:
            os.environ.pop("DATABASE_URL", None)
        os.environ.pop("REDIS_URL", None)  # this process only writes rows; servers get their layer
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        from django.conf import settings
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.test import Client

        call_command("migrate", verbosity=0)
        # Setting up clicks and reads hundreds of pages here, unmeasured: the limiter is not in its way
        # (the servers get their own settings; bench/fairness.py measures the limiter).
        try:
            from campaigns.limits import DEFAULT_RATE_LIMITS
        except ImportError:  # a commit before the limiter
            DEFAULT_RATE_LIMITS = {}
        settings.TABLE_RATE_LIMITS = {name: (10**9, 1) for name in DEFAULT_RATE_LIMITS}
        users = get_user_model()
        self.gm = users.objects.create_user("bench-gm")
        self.roller = users.objects.create_user("bench-roller")
        self.viewer = users.objects.create_user("bench-viewer")
        # What a browser holds: a session cookie, and the CSRF cookie whose value it echoes in a header.
        self.csrf = "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(32))
        self.cookies = {}
        for user in (self.roller, self.viewer, self.gm):
            client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
            client.force_login(user)
            self.cookies[user.pk] = f"sessionid={client.cookies['sessionid'].value}; csrftoken={self.csrf}"
        self.system = self._working_system()

    def _working_system(self) -> str:
        """The first installed system whose demo sheet rolls and edits cleanly (the sheet-roll rows)."""
        from sheets.registry import game_systems

        for config in game_systems():
            try:
                (campaign_id,) = self.campaigns(1, config.label)
                self.sheet_roll_form(campaign_id)
                return config.label
            except Exception as error:  # noqa: BLE001 (a system half-way through an edit: try the next)
                print(f"  ({config.label} left out of the sheet rows: {error!r:.120})")
        raise SystemExit("no system's demo sheet rolls")

    def campaigns(self, count: int, system: str | None = None) -> list[int]:
        from campaigns.models import Campaign, Membership
        from sheets.demo import load_demo_characters

        made = Campaign.objects.bulk_create(
            Campaign(name=f"bench {uuid.uuid4().hex[:6]}", system=system or self.system, gm=self.gm)
            for _ in range(count)
        )
        Membership.objects.bulk_create(
            Membership(campaign_id=c.pk, user=user) for c in made for user in (self.roller, self.viewer)
        )
        for campaign in made:
            load_demo_characters(campaign, players=[self.roller])
        return [c.pk for c in made]

    def sheet_roll_form(
        self, campaign_id: int, *, check: bool = True, character_id: int | None = None
    ) -> tuple[str, dict]:
        """The first roll button's URL and the fields the page posts with it (checked through Django);
        the campaign's one character, or ``character_id`` at a table of several."""
        from django.test import Client

        from sheets.forms import as_posted
        from sheets.models import Character
        from sheets.registry import system_for

        found = {"pk": character_id} if character_id else {"campaign_id": campaign_id}
        character = Character.objects.select_related("campaign", "owner").get(**found)
        system = system_for(character.campaign)
        form = system.options_form(character=character)
        options = {name: field.initial for name, field in form.fields.items()}
        key = system.buttons(character, options)[0].key
        data = {**as_posted(options), "visibility": "public"}
        url = f"/characters/{character.pk}/roll/{key}/"
        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(character.owner)  # at a full table, each sheet is its own player's
        # What the page's buttons were drawn from, which the page sends with every roll.
        drawn = page_markup.value_by_id(client.get(character.get_absolute_url()).text, "roll-buttons-drawn")
        if drawn is not None:  # (a commit before the buttons carried it: nothing to send)
            data["buttons_drawn"] = drawn
        if not check:
            return url, data
        response = client.post(url, {**data, "idempotency_key": uuid.uuid4().hex}, HTTP_HX_REQUEST="true")
        if response.status_code != 200:
            raise RuntimeError(f"sheet roll answered {response.status_code}")
        return url, data

    def box_form(self, campaign_id: int) -> dict:
        """What the roller's table page sends with a dice-box line besides the line and its key."""
        from django.test import Client

        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(self.roller)
        return box_drawn(client, campaign_id)

    def edit_form(self, campaign_id: int) -> dict:
        """The in-place edit of the character's name (every system has it): URL, value, page version."""
        from sheets.models import Character

        character = Character.objects.get(campaign_id=campaign_id)
        return {
            "url": f"/characters/{character.pk}/field/name/",
            "value": character.name,
            "version": character.version,
        }

    def encounter_fight(self, campaign_id: int, player=None) -> dict:
        """A running encounter, the roller's character (or ``player``'s) against one quick NPC, and the
        action form the player's turn panel shows (its fields as the page posts them, less the version)."""
        import secrets as secret_source

        from django.test import Client

        from campaigns.models import Campaign
        from play import encounters
        from rules.dice import Roller

        campaign = Campaign.objects.get(pk=campaign_id)
        player = player or self.roller
        character = campaign.characters.get(owner=player)
        encounter = encounters.encounter_create(campaign=campaign, name="Bench")
        encounters.combatant_add_character(encounter=encounter, character=character)
        encounters.combatant_add_npc(
            encounter=encounter, name="Dummy", cleaned_data=dict(NPCS[campaign.system])
        )
        encounters.encounter_start(
            encounter=encounter,
            version=encounter.version,
            roller=Roller(secret_source.SystemRandom()),
            author=self.gm,
        )
        fight = {"encounter_id": encounter.pk, "character_id": character.pk, "acted": False}
        while not self.encounter_state(fight)[1]:
            encounter.refresh_from_db()
            encounters.encounter_next_turn(encounter=encounter, version=encounter.version, author=self.gm)

        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(player)
        url, fields = turn_action_form(client, campaign_id)
        fight.update(
            url=url,
            fields=fields,
            next_url=f"/campaigns/{campaign_id}/encounters/{encounter.pk}/next/",
        )
        return fight

    def encounter_state(self, fight: dict) -> tuple[int, bool, int]:
        """(the encounter's version, whether it is the roller's character's turn, the feed's last seq)."""
        from campaigns.models import Campaign
        from play import encounters
        from play.models import Encounter

        encounter = Encounter.objects.get(pk=fight["encounter_id"])
        actor = encounters.current_actor(encounter, encounters.combatants_of(encounter))
        last_seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=encounter.campaign_id)
        return encounter.version, actor.character_id == fight["character_id"], last_seq

    def saved_roll(self, campaign_id: int) -> tuple[str, dict]:
        """The roller's saved dice line at this table (play's saved rolls): the URL its button posts to,
        and what the button sends besides its key."""
        from django.test import Client

        from campaigns.models import Campaign
        from play import saved_rolls

        saved = saved_rolls.saved_roll_create(
            campaign=Campaign.objects.get(pk=campaign_id),
            owner=self.roller,
            character=None,
            name="Bench",
            line=DICE_LINE,
            visibility="public",
        )
        url = f"/campaigns/{campaign_id}/saved-rolls/{saved.pk}/roll/"
        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(self.roller)
        return url, saved_roll_drawn(client, campaign_id, url)

    def request_form(self, campaign_id: int) -> dict:
        """The GM's request form for the roller's character, and where the prompt's answer is fetched."""
        from sheets.models import Character

        character = Character.objects.get(campaign_id=campaign_id, owner=self.roller)
        return {
            "ask_url": f"/campaigns/{campaign_id}/requests/",
            "ask": {
                "label": "Bench",
                "characters": str(character.pk),
                "roll_key": "",
                "visibility": "public",
            },
            "prompts_url": f"/characters/{character.pk}/requests/",
            "open": None,  # the request the last answer went to, closed by the GM before the next
        }

    def last_seq(self, campaign_id: int) -> int:
        from campaigns.models import Campaign

        return Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign_id)

    def samples(self) -> dict:
        """A real public entry frame and a real dice-box answer, for the trigger and the floor's sizes."""
        from django.test import Client

        from campaigns import services
        from campaigns.models import Campaign
        from campaigns.realtime import entry_event

        (campaign_id,) = self.campaigns(1)
        entry, _ = services.table_roll_create(
            campaign=Campaign.objects.get(pk=campaign_id), author=self.roller, notation_text=DICE_LINE
        )
        frame = entry_event(entry)["frames"]["full"]
        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(self.roller)
        fields = {"notation": DICE_LINE, "visibility": "public", "idempotency_key": uuid.uuid4().hex}
        response = client.post(
            f"/campaigns/{campaign_id}/table/roll/",
            {**fields, **box_drawn(client, campaign_id)},  # as the page posts it: the answer it gets
            HTTP_HX_REQUEST="true",
        )
        return {
            "html": json.loads(frame)["html"],
            "entry_size": len(frame),
            "response_size": len(response.content),
        }
