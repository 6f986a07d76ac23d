"""One open page of a full table (bench/harness.py), as a browser keeps it: static/js/table.js's logic
run by a client, and the tracker of the table's work in flight.

A ``Page`` is loaded over HTTP as a browser loads it, and its live panels are read from the HTML the
server returns (every element with ``data-live-panel`` and ``data-refresh-url``; ``data-live-merge`` for
a sheet). Its socket then runs table.js's logic: hello with the page's cursor (``feed`` only where the
page has a feed), entries counted on a page with a feed, and on a ``refresh`` frame for a panel the page
shows, after table.js's debounce (read from the script itself), one GET of each such panel's
``data-refresh-url``: htmx's GET for a plain panel, a plain fetch of the whole page for a merged one (the
sheet), after which the sheet's roll buttons are the fresh page's where the page's roll options are the
fresh page's, else priced again as htmx does (``#roll-options``' hx-get, re-pricing ``#roll-buttons``).
A frame for a panel the page does not show costs nothing, as in the browser. (table.js also fetches one
panel name one round at a time; this client does not wait for a round before the next.) A panel inside
a merged one (a sheet's recent rolls) is left to the merge where table.js leaves it
(``comesWithMerge``), and a panel that already shows the entries its frames name is not fetched
(``showsEntries``; where the merge holding it is out, once that is in).

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
from typing import TYPE_CHECKING
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
    shows_entries,
    value_by_id,
)

if TYPE_CHECKING:
    from harness import FullTable


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
        # Per panel name, the entries its gathered frames name (None once one named none: table.js
        # refreshEntries), and the merge fetches out, by the merged panel's name (table.js roundOut).
        self.named: dict[str, list[str] | None] = {}
        self.merging: dict[str, asyncio.Task] = {}
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
                    self.refresh(
                        str(frame.get("panel")), str(frame.get("shows") or ""), str(frame.get("entry") or "")
                    )
                elif kind == "ready":
                    self.ready.set()
        except ConnectionClosed:
            pass

    # -- static/js/table.js's refreshPanel, mergePanel and the re-pricing after a merge ---------------

    def refresh(self, name: str, shows: str = "", entry: str = "") -> None:
        if not any(panel.name == name for panel in self.panels):
            return  # no such panel here: nothing is fetched
        first = name not in self.timers
        # The newest digest of the gathering, or none once a frame came without one (table.js refreshShows).
        self.shows[name] = shows if shows and (first or self.shows.get(name)) else ""
        named = self.named.get(name)
        self.named[name] = [*(named or []), entry] if entry and (first or named) else None
        if not first:
            return  # a timer already runs for it
        self.seat.tracker.begin()
        self.heard_at[name] = time.perf_counter()
        self.timers[name] = asyncio.get_running_loop().call_later(DEBOUNCE, self._fire, name)

    def _fire(self, name: str) -> None:
        del self.timers[name]
        known = self.shows.pop(name, "")
        heard_at = self.heard_at.pop(name)
        entries = self.named.pop(name, None)
        for panel in [p for p in self.panels if p.name == name and not (known and p.shows == known)]:
            if entries and shows_entries(panel.html, entries):
                continue
            if self._comes_with_merge(panel, heard_at):
                continue
            outer = self._outer(panel)
            merging = self.merging.get(outer.name) if entries and outer else None
            self.seat.tracker.begin()
            if merging is not None and not merging.done():
                task = asyncio.create_task(self._after_merge(merging, panel, entries))
            else:
                task = asyncio.create_task(self._fetch(panel))
                if panel.merge:
                    self.merging[panel.name] = task
            self.fetches.add(task)
            task.add_done_callback(self.fetches.discard)
        self.seat.tracker.end()

    def _outer(self, panel: Panel) -> Panel | None:
        """The merged panel (a sheet) holding this one, if any."""
        for outer in self.panels:
            if outer is panel or not outer.merge or not panel.element_id:
                continue
            if element_by_id(outer.html, panel.element_id):
                return outer
        return None

    def _comes_with_merge(self, panel: Panel, heard_at: float) -> bool:
        """table.js comesWithMerge: a panel inside a merged one (a sheet's recent rolls) is not fetched
        where the merged one is fetched since this panel's frame was heard, or is about to be."""
        outer = self._outer(panel)
        if outer is None:
            return False
        skipped = self.shows.get(outer.name) and outer.shows == self.shows[outer.name]
        return (outer.name in self.timers and not skipped) or outer.merge_started > heard_at

    async def _after_merge(self, merging: asyncio.Task, panel: Panel, entries: list[str]) -> None:
        """table.js: the merge holding the panel was out when its frame came; once it is in, the panel is
        fetched only if it still does not show the frames' entries."""
        await asyncio.wait([merging])
        if shows_entries(panel.html, entries):
            self.seat.tracker.end()
            return
        await self._fetch(panel)

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
