"""Shared by bench/full_table.py and bench/many_tables.py: a seated table and the pages its people keep open.

A *full table* is 8 players, each with their sheet page and the table page open, and the GM with the
table page and the encounter page: 18 pages, 18 sockets. Each ``Page`` is loaded over HTTP as a browser
loads it, and its live panels are read from the HTML the server returns (every element with
``data-live-panel`` and ``data-refresh-url``; ``data-live-merge`` for a sheet). Its socket then runs
static/js/table.js's logic: hello with the page's cursor (``feed`` only where the page has a feed),
entries counted on a page with a feed, and on a ``refresh`` frame for a panel the page shows, after
table.js's debounce (read from the script itself), one GET of each such panel's ``data-refresh-url``:
htmx's GET for a plain panel, a plain fetch of the whole page for a merged one (the sheet), after which
the sheet's roll buttons are the fresh page's where the page's roll options are the fresh page's, else
priced again as htmx does (``#roll-options``' hx-get, re-pricing ``#roll-buttons``). A frame for a panel
the page does not show costs nothing, as in the browser. (table.js also fetches one panel name one round
at a time; this client does not wait for a round before the next.) A panel inside a merged one (a sheet's
recent rolls) is left to the merge where table.js leaves it (``comesWithMerge``).

A fetch is *wasted* when what it brings would not change what the page shows: the fragment (for a
merged sheet, less the parts table.js keeps: the version, the result, the buttons, the prompts) equals
the one the page holds, once the per-render tokens (CSRF, one-time idempotency keys) are set aside.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlencode

from clients import Http
from fixtures import DICE_LINE
from page_markup import (
    DEBOUNCE,
    KEEP,
    Panel,
    attr,
    element_at,
    element_by_id,
    form_fields,
    inner,
    live_panels,
    shown,
    value_by_id,
)

PLAYERS = 8


class Tracker:
    """One table's work in flight (debounce timers and fetches), what it cost and what was wasted."""

    def __init__(self):
        self.busy = 0
        self.begun = 0
        self.last = 0.0
        self.requests = 0
        self.fetched: list[str] = []  # each fetch a click caused: "page: url"
        self.wasted: list[str] = []
        self.bad = 0

    def begin(self) -> None:
        self.busy += 1
        self.begun += 1

    def end(self) -> None:
        self.busy -= 1
        self.last = time.perf_counter()


class Page:
    """One open page: its live panels, its socket, its own refresh logic; HTTP over its own connections."""

    def __init__(self, seat: FullTable, label: str, cookie: str, path: str):
        self.seat, self.label, self.cookie, self.path = seat, label, cookie, path
        self.panels: list[Panel] = []
        self.entries: list[str] = []
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.shows: dict[str, str] = {}  # per panel name, the digest its gathered refresh frames carry
        self.heard_at: dict[str, float] = {}  # per panel name, when its gathering began
        self.fetches: set[asyncio.Task] = set()
        self.idle: list[Http] = []
        self.feed = False
        self.html = ""
        self.sock = self.reader = None
        self.ready = asyncio.Event()

    def headers(self, *, htmx: bool = True, post: bool = False) -> dict:
        headers = {"Cookie": self.cookie, "Accept": "text/html"}
        if htmx:
            headers.update({"HX-Request": "true", "HX-Current-URL": self.seat.origin + self.path})
        if post:
            headers.update({"Origin": self.seat.origin, "X-CSRFToken": self.seat.csrf})
        return headers

    async def send(self, method: str, path: str, fields: dict | None = None, **kind) -> tuple[int, bytes]:
        """One request over an idle connection of this page's (a new one if all are busy, as a tab does)."""
        client = self.idle.pop() if self.idle else Http(self.seat.port)
        try:
            return await client.send(method, path, fields or {}, self.headers(post=method == "POST", **kind))
        finally:
            self.idle.append(client)

    async def load(self) -> None:
        status, body = await self.send("GET", self.path, htmx=False)
        if status != 200:
            raise RuntimeError(f"{self.label}: {self.path} answered {status}")
        self.html = body.decode()
        self.panels = live_panels(self.html)
        self.feed = 'id="feed"' in self.html

    async def connect(self) -> None:
        from websockets.asyncio.client import connect

        live = re.search(r'<[^>]*\bdata-ws-path="([^"]+)"[^>]*>', self.html)
        cursor = attr(live.group(0), "data-cursor") or None
        self.sock = await connect(
            f"ws://127.0.0.1:{self.seat.port}{live.group(1)}",
            origin=self.seat.origin,
            additional_headers={"Cookie": self.cookie},
            compression=None,
            max_queue=None,
        )
        self.reader = asyncio.create_task(self._read())
        await self.sock.send(json.dumps({"type": "hello", "cursor": cursor, "feed": self.feed}))

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in self.sock:
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "entry":
                    self.entries.append(frame.get("cursor"))
                    self.seat.entry_arrived()
                elif kind == "refresh":
                    self.refresh(str(frame.get("panel")), str(frame.get("shows") or ""))
                elif kind == "ready":
                    self.ready.set()
        except ConnectionClosed:
            pass

    # -- static/js/table.js's refreshPanel, mergePanel and the re-pricing after a merge ---------------

    def refresh(self, name: str, shows: str = "") -> None:
        if not any(panel.name == name for panel in self.panels):
            return  # no such panel here: nothing is fetched
        first = name not in self.timers
        # The newest digest of the gathering, or none once a frame came without one (table.js refreshShows).
        self.shows[name] = shows if shows and (first or self.shows.get(name)) else ""
        if not first:
            return  # a timer already runs for it
        self.seat.tracker.begin()
        self.heard_at[name] = time.perf_counter()
        self.timers[name] = asyncio.get_running_loop().call_later(DEBOUNCE, self._fire, name)

    def _fire(self, name: str) -> None:
        del self.timers[name]
        known = self.shows.pop(name, "")
        heard_at = self.heard_at.pop(name)
        for panel in [p for p in self.panels if p.name == name and not (known and p.shows == known)]:
            if self._comes_with_merge(panel, heard_at):
                continue
            self.seat.tracker.begin()
            task = asyncio.create_task(self._fetch(panel))
            self.fetches.add(task)
            task.add_done_callback(self.fetches.discard)
        self.seat.tracker.end()

    def _comes_with_merge(self, panel: Panel, heard_at: float) -> bool:
        """table.js comesWithMerge: a panel inside a merged one (a sheet's recent rolls) is not fetched
        where the merged one is fetched since this panel's frame was heard, or is about to be."""
        for outer in self.panels:
            if outer is panel or not outer.merge or not panel.element_id:
                continue
            if not element_by_id(outer.html, panel.element_id):
                continue
            skipped = self.shows.get(outer.name) and outer.shows == self.shows[outer.name]
            return (outer.name in self.timers and not skipped) or outer.merge_started > heard_at
        return False

    async def _fetch(self, panel: Panel) -> None:
        tracker = self.seat.tracker
        if panel.merge:
            panel.merge_started = time.perf_counter()
        try:
            tracker.requests += 1
            tracker.fetched.append(f"{self.label}: {panel.url}")
            status, body = await self.send("GET", panel.url, htmx=not panel.merge)
            if status != 200:
                tracker.bad += 1
                return
            text = body.decode()
            if panel.merge:
                fresh = next((p.html for p in live_panels(text) if p.name == panel.name), None)
                if fresh is None:
                    return
            else:
                fresh = text.strip()
                # The swapped-in element's own name and digest, as the page reads them next time.
                swapped = next(iter(live_panels(fresh)), None)
                if swapped is not None:
                    panel.name, panel.shows = swapped.name, swapped.shows
            if shown(fresh, merged=panel.merge) == shown(panel.html, merged=panel.merge):
                tracker.wasted.append(f"{self.label}: {panel.name} ({panel.url})")
            self._shows(panel, fresh)
            if panel.merge:
                await self._price_buttons(text)
        finally:
            tracker.end()

    def _shows(self, panel: Panel, fresh: str) -> None:
        """The panel now shows ``fresh``, and so does any panel it holds or that holds it (a sheet's
        recent rolls inside the merged sheet): a later fetch of either is compared with this."""
        panel.html = fresh
        for other in self.panels:
            if other is panel:
                continue
            if panel.merge and other.element_id and other.element_id not in KEEP:
                inner = element_by_id(fresh, other.element_id)
                if inner:
                    other.html = inner
            elif panel.element_id and other.merge:
                before = element_by_id(other.html, panel.element_id)
                if before:
                    other.html = other.html.replace(before, fresh)

    async def _price_buttons(self, page: str) -> None:
        """After a merge the page's roll buttons are the fresh page's where its options are the ones
        the fresh page was drawn with (table.js sameChoices); else it sends its own roll options again
        (htmx "change" on #roll-options, which the merge left as the player set it)."""
        options = element_by_id(self.html, "roll-options")
        fresh_options = element_by_id(page, "roll-options")
        if options and fresh_options and form_fields(options) == form_fields(fresh_options):
            before, fresh = element_by_id(self.html, "roll-buttons"), element_by_id(page, "roll-buttons")
            if before and fresh:
                self.html = self.html.replace(before, fresh)
            return
        await self._reprice(options)

    async def _reprice(self, options: str | None) -> None:
        url = options and attr(options.split(">", 1)[0] + ">", "hx-get")
        if not url:
            return
        tracker = self.seat.tracker
        tracker.requests += 1
        tracker.fetched.append(f"{self.label}: {url} (re-pricing)")
        status, body = await self.send("GET", f"{url}?{urlencode(form_fields(options))}")
        if status != 200:
            tracker.bad += 1
            return
        before = element_by_id(self.html, "roll-buttons") or ""
        # The buttons inside: a roll's answer puts them back out of band in a wrapper of its own.
        if inner(shown(body.decode().strip())) == inner(shown(before)):
            tracker.wasted.append(f"{self.label}: #roll-buttons re-priced ({url})")
        self.html = self.html.replace(before, body.decode().strip()) if before else self.html

    def sheet_roll_fields(self, data: dict) -> dict:
        """A roll button's fields as this sheet page sends them: what its buttons were drawn from, as it
        holds it now (each answer that redraws them brings a new one), and a fresh key."""
        return {
            **data,
            "buttons_drawn": value_by_id(self.html, "roll-buttons-drawn") or "",
            "idempotency_key": uuid.uuid4().hex,
        }

    def dice_box_fields(self) -> dict:
        """A dice-box line as this table page sends it: what its box offers (kept from the page, which
        a whole box's answer redraws), a fresh key."""
        drawn = value_by_id(self.html, "dice-box-drawn")
        fields = {"notation": DICE_LINE, "visibility": "public", "idempotency_key": uuid.uuid4().hex}
        return fields if drawn is None else {**fields, "box_drawn": drawn}

    def swapped(self, answer: str, target_id: str | None) -> None:
        """What the page does with its own click's answer: the target and any out-of-band parts."""
        # An answer that does not hold its target (the dice box's HX-Reswap: none, out-of-band parts
        # only) leaves the target as it is.
        parts = {target_id: answer} if target_id and f'id="{target_id}"' in answer else {}
        for match in re.finditer(r'<\w+\b[^>]*\bhx-swap-oob="[^"]*"[^>]*>', answer):
            element_id = attr(match.group(0), "id")
            if element_id:
                parts[element_id] = element_at(answer, match.start())
        for panel in self.panels:
            if panel.element_id in parts:
                panel.html = parts[panel.element_id]
        for element_id, part in parts.items():  # what a later re-pricing is compared with
            before = element_by_id(self.html, element_id)
            if before:
                self.html = self.html.replace(before, part)

    async def close(self) -> None:
        for timer in self.timers.values():
            timer.cancel()
        for task in list(self.fetches):
            task.cancel()
        if self.sock is not None:
            await self.sock.close()
        if self.reader is not None:
            self.reader.cancel()
        for client in self.idle:
            await client.close()


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
