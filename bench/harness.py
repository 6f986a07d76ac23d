"""Shared by bench/full_table.py and bench/many_tables.py: a seated table and the pages its people keep open.

A *full table* is 8 players, each with their sheet page and the table page open, and the GM with the
table page and the encounter page: 18 pages, 18 sockets, each a ``Page`` (bench/open_page.py: loaded
over HTTP as a browser loads it, its socket running static/js/table.js's refresh logic, every fetch it
makes counted, and each one that changes nothing on the page counted as wasted).
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from dataclasses import dataclass, field

from open_page import Page, Tracker
from page_markup import DEBOUNCE, attr

PLAYERS = 8


@dataclass
class Seating:
    """One full table in the database: its campaign, and per player (user pk, character id)."""

    campaign_id: int
    encounter_id: int = 0  # the GM's encounter page: one made, not started
    characters: list[tuple[int, int]] = field(default_factory=list)


def players(fixtures, count: int = PLAYERS) -> list:
    """``count`` player accounts, logged in: their cookies join the fixtures' (user pk -> cookie)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    made = []
    for number in range(count):
        user = get_user_model().objects.create_user(f"bench-player-{number}-{uuid.uuid4().hex[:6]}")
        client = Client(HTTP_HOST="127.0.0.1")  # outside the test runner: a host settings allow
        client.force_login(user)
        fixtures.cookies[user.pk] = (
            f"sessionid={client.cookies['sessionid'].value}; csrftoken={fixtures.csrf}"
        )
        made.append(user)
    return made


def seat_tables(fixtures, seated: list, count: int) -> list[Seating]:
    """``count`` campaigns of the fixtures' system, each with the players seated and a character each
    (the system's demo characters in turn, numbered), built through the builder as the browser's are."""
    from campaigns.models import Campaign, Membership
    from play.encounters import encounter_create
    from sheets.registry import system_for
    from sheets.services import character_create

    campaigns = Campaign.objects.bulk_create(
        Campaign(name=f"full {uuid.uuid4().hex[:6]}", system=fixtures.system, gm=fixtures.gm)
        for _ in range(count)
    )
    Membership.objects.bulk_create(Membership(campaign_id=c.pk, user=u) for c in campaigns for u in seated)
    tables = []
    for campaign in campaigns:
        system = system_for(campaign)
        demo = system.demo_form_data()
        table = Seating(campaign.pk, encounter_create(campaign=campaign, name="Ambush").pk)
        for number, user in enumerate(seated):
            data = dict(demo[number % len(demo)])
            data["name"] = f"{data.get('name', 'Hero')} {number + 1}"
            form = system.builder_form(campaign=campaign, data=data, trusted=True)
            if not form.is_valid():
                raise ValueError(f"a bench character is invalid: {form.errors.as_text()}")
            character = character_create(campaign=campaign, owner=user, cleaned_data=form.cleaned_data)
            table.characters.append((user.pk, character.pk))
        tables.append(table)
    return tables


class FullTable:
    """The 18 pages of one seated table against a running server, and what one click sets off."""

    def __init__(self, port: int, fixtures, seating: Seating, encounter_id: int | None = None):
        self.port, self.seating = port, seating
        self.origin = f"http://127.0.0.1:{port}"
        self.csrf = fixtures.csrf
        self.tracker = Tracker()
        self.feed_target = 0
        self.fed = asyncio.Event()
        self.fed_at = 0.0
        cid = seating.campaign_id
        gm = fixtures.cookies[fixtures.gm.pk]
        self.sheets, self.tables = [], []
        for number, (user_pk, character_id) in enumerate(seating.characters):
            cookie = fixtures.cookies[user_pk]
            self.sheets.append(
                Page(self, f"player {number + 1}'s sheet", cookie, f"/characters/{character_id}/")
            )
            self.tables.append(Page(self, f"player {number + 1}'s table", cookie, f"/campaigns/{cid}/table/"))
        self.gm_table = Page(self, "GM's table", gm, f"/campaigns/{cid}/table/")
        self.tables.append(self.gm_table)
        encounter = f"/campaigns/{cid}/encounters/{encounter_id or seating.encounter_id}/"
        self.gm_encounter = Page(self, "GM's encounter", gm, encounter)
        self.pages = [*self.sheets, *self.tables, self.gm_encounter]

    async def open(self) -> None:
        for page in self.pages:
            await page.load()
            await page.connect()
        async with asyncio.timeout(60):
            for page in self.pages:
                await page.ready.wait()

    def entry_arrived(self) -> None:
        if self.feed_target and all(len(page.entries) >= self.feed_target for page in self.tables):
            self.feed_target = 0
            self.fed_at = time.perf_counter()
            self.fed.set()

    def expect_entry(self) -> None:
        self.fed.clear()
        self.feed_target = max(len(page.entries) for page in self.tables) + 1

    async def settle(self, quiet: float) -> None:
        """Until nothing is in flight and nothing new started for ``quiet`` seconds."""
        while True:
            begun = self.tracker.begun
            await asyncio.sleep(quiet)
            if self.tracker.busy == 0 and self.tracker.begun == begun:
                return

    async def click(self, page: Page, path: str, fields: dict, *, target: str | None, entry: bool) -> dict:
        """One click on ``page``: the POST, its answer swapped in, then every refresh it sets off.

        Returns click-to-feed (the POST's answer for a click that makes no entry), click-to-settled
        (the last fetch it caused done), the requests it caused (the click's own included) and the
        fetches that were wasted."""
        tracker = self.tracker
        tracker.requests, tracker.fetched, tracker.wasted, tracker.bad = 0, [], [], 0
        if entry:
            self.expect_entry()
        start = time.perf_counter()
        tracker.begin()
        tracker.requests += 1
        status, body = await page.send("POST", path, fields)
        answered = time.perf_counter()
        page.swapped(body.decode(errors="replace"), target)
        tracker.end()
        fed = True
        if entry:
            try:
                async with asyncio.timeout(10):
                    await self.fed.wait()
            except TimeoutError:
                fed = False
        await self.settle(DEBOUNCE + 0.25)
        feed_at = self.fed_at if entry and fed else answered
        return {
            "status": status,
            "feed": feed_at - start,
            "settled": max(tracker.last, feed_at) - start,
            "requests": tracker.requests,
            "wasted": list(tracker.wasted),
            "fetched": list(tracker.fetched),
            "bad": tracker.bad + (status != 200) + (not fed),
        }

    def losses(self) -> tuple[int, int]:
        """(lost, duplicated) entries over the feed pages: each should hold every entry, once."""
        everything = set().union(*(set(page.entries) for page in self.tables))
        lost = sum(len(everything - set(page.entries)) for page in self.tables)
        dup = sum(len(page.entries) - len(set(page.entries)) for page in self.tables)
        return lost, dup

    async def close(self) -> None:
        for page in self.pages:
            await page.close()


HP_PATHS = ("hp", "wounds", "body_spent", "body")


def hp_path(sheet_html: str) -> str:
    """The sheet's hit points, as the first of HP_PATHS it offers in place (else the name)."""
    paths = set(re.findall(r'class="[^"]*\beditable\b[^"]*"[^>]*data-path="([^"]+)"', sheet_html))
    paths |= set(re.findall(r'data-path="([^"]+)"[^>]*class="[^"]*\beditable\b', sheet_html))
    return next((path for path in HP_PATHS if path in paths), "name")


async def gm_hp_edit(seat: FullTable, number: int, hp: str) -> dict:
    """The GM saves player ``number``'s hit points one up or down, from the GM's table page; untimed
    first, the editor opened as the page opens it (its value and version)."""
    character_id = seat.seating.characters[number][1]
    path = f"/characters/{character_id}/field/{hp}/"
    page = seat.gm_table
    _, body = await page.send("GET", f"{path}?edit=1")
    text = body.decode()
    editor = re.search(r"<input\b[^>]*name=\"value\"[^>]*>", text)
    value = (attr(editor.group(0), "value") if editor else None) or ""
    version = re.search(r'name="version" value="(\d+)"', text)
    # ASCII digits only, as the app's number field reads them (str.isdigit passes "²", which int() refuses).
    number = int(value) if re.fullmatch(r"[0-9]+", value) else None
    new = value if number is None else str(number - 1 if number > 0 else number + 1)
    fields = {"value": new, "version": version.group(1) if version else "0"}
    return await seat.click(page, path, fields, target=None, entry=False)
