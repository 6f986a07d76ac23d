"""The client side every bench drives the servers with: a browser tab's connection, a table's sockets,
and the clicks a browser sends (``Server``: the same requests to the app's URLs or the floor's)."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from urllib.parse import urlencode

from fixtures import DICE_LINE, Fixtures
from page_markup import value_by_id

SAMPLE_TIMEOUT = 5.0
# The floor's work through Django's stack and nothing of the app's (bench/minimum.py).
DJANGO_MINIMUM = "django minimum"
VERSION = re.compile(rb'id="sheet-version"[^>]*value="(\d+)"')
ASKED = re.compile(rb'data-request="(\d+)"')  # the GM's panel lists the newest request first
# The sheet's first prompt: its button's form (where it posts, the key it sends).
PROMPT = re.compile(
    rb'hx-post="(/characters/\d+/requests/\d+/roll/)"[^>]*>\s*<input[^>]*name="key" value="([^"]*)"'
)


class Http:
    """One keep-alive HTTP/1.1 connection, as a browser tab keeps to its server."""

    def __init__(self, port: int):
        self.port = port
        self.reader = self.writer = None

    async def post(self, path: str, fields: dict, headers: dict) -> tuple[int, bytes]:
        return await self.send("POST", path, fields, headers)

    async def get(self, path: str, headers: dict) -> tuple[int, bytes]:
        return await self.send("GET", path, {}, headers)

    async def send(self, method: str, path: str, fields: dict, headers: dict) -> tuple[int, bytes]:
        try:
            return await self._send(method, path, fields, headers)
        except (asyncio.IncompleteReadError, ConnectionError):
            # The server closed an idle keep-alive connection; a browser opens a new one and resends.
            self.writer = None
            return await self._send(method, path, fields, headers)

    async def _send(self, method: str, path: str, fields: dict, headers: dict) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
        body = urlencode(fields).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}", f"Content-Length: {len(body)}"]
        if method == "POST":
            lines.append("Content-Type: application/x-www-form-urlencoded")
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length, chunked = 0, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        if not chunked:
            return status, await self.reader.readexactly(length)
        body = b""
        while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
            body += await self.reader.readexactly(size)
            await self.reader.readuntil(b"\r\n")
        await self.reader.readuntil(b"\r\n")
        return status, body

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Table:
    """N sockets at one table; counts the entries each receives and when the last one got each."""

    def __init__(self, size: int):
        self.size = size
        self.sockets = []
        self.readers = []
        self.seqs: list[list[int]] = []
        self.waiting_count = None
        self.got = 0
        self.done = asyncio.Event()
        self.ready = 0
        self.all_ready = asyncio.Event()

    async def open(self, urls_and_headers) -> None:
        from websockets.asyncio.client import connect

        for index, (url, origin, headers) in enumerate(urls_and_headers):
            sock = await connect(
                url, origin=origin, additional_headers=headers, compression=None, max_queue=None
            )
            self.sockets.append(sock)
            self.seqs.append([])
            self.readers.append(asyncio.create_task(self._read(index, sock)))

    async def _read(self, index: int, sock) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for raw in sock:
                frame = json.loads(raw)
                kind = frame.get("type")
                if kind == "entry":
                    # The app's frames carry a cursor (an opaque id), the floor's and the trigger's a seq.
                    self.seqs[index].append(frame.get("cursor", frame.get("seq")))
                    if len(self.seqs[index]) == self.waiting_count:
                        self.got += 1
                        if self.got == self.size:
                            self.done.set()
                elif kind == "ready":
                    self.ready += 1
                    if self.ready == self.size:
                        self.all_ready.set()
        except ConnectionClosed:
            pass

    def expect(self, count: int) -> None:
        """Wait for every socket to hold ``count`` entries (one roller per table: one entry per click)."""
        self.waiting_count = count
        self.got = sum(len(got) >= count for got in self.seqs)  # sockets already there (a catch-up)
        self.done.clear()
        if self.got == self.size:
            self.done.set()

    async def wait(self) -> bool:
        try:
            async with asyncio.timeout(SAMPLE_TIMEOUT):
                await self.done.wait()
            return True
        except TimeoutError:
            return False

    def losses(self, sent: list[int]) -> tuple[int, int]:
        """(lost, duplicated) entries over every socket: each should hold one of each click, once."""
        lost = dup = 0
        for got in self.seqs:
            dup += len(got) - len(set(got))
            lost += max(0, len(sent) - len(set(got)))
        return lost, dup

    async def close(self) -> None:
        for sock in self.sockets:
            await sock.close()
        for reader in self.readers:
            reader.cancel()


class Server:
    """How the clients talk to one of the servers: the same requests, the app's URLs or the floor's."""

    def __init__(self, name: str, port: int, fixtures: Fixtures | None, forms: dict, pid: int):
        self.name = name
        self.port = port
        self.pid = pid  # the server process, for the CPU it spends per click
        self.fixtures = fixtures
        self.forms = forms  # campaign id -> {"sheet": (url, data), "edit": (url, value)}
        self.origin = f"http://127.0.0.1:{port}"
        self.trigger = None
        self.http: dict[int, Http] = {}

    def headers(self, user_pk: int | None) -> dict:
        headers = {"Origin": self.origin, "HX-Request": "true"}
        if self.fixtures is not None:
            headers["Cookie"] = self.fixtures.cookies[user_pk]
            headers["X-CSRFToken"] = self.fixtures.csrf
        return headers

    def seat_urls(self, table_id: int, size: int):
        if self.fixtures is None:
            url = f"ws://127.0.0.1:{self.port}/ws/{table_id}/table/"
            return [(url, None, None)] * size
        url = f"ws://127.0.0.1:{self.port}/ws/campaigns/{table_id}/table/"
        roller = {"Cookie": self.fixtures.cookies[self.fixtures.roller.pk]}
        viewer = {"Cookie": self.fixtures.cookies[self.fixtures.viewer.pk]}
        return [(url, self.origin, roller)] + [(url, self.origin, viewer)] * (size - 1)

    async def open_table(self, table_id: int, size: int) -> Table:
        table = Table(size)
        await table.open(self.seat_urls(table_id, size))
        if self.fixtures is not None:
            for sock in table.sockets:
                # Today's hello (a null cursor: the page shows no entry yet) and the one before cursors.
                await sock.send('{"type": "hello", "cursor": null, "feed": true, "last_seq": 0}')
        async with asyncio.timeout(60):
            await table.all_ready.wait()
        return table

    async def open_trigger(self) -> None:
        from websockets.asyncio.client import connect

        if self.trigger is None:
            self.trigger = await connect(
                f"ws://127.0.0.1:{self.port}/bench/trigger/", origin=self.origin, compression=None
            )

    def _client(self, table_id) -> Http:
        if table_id not in self.http:
            self.http[table_id] = Http(self.port)
        return self.http[table_id]

    async def post(self, table_id: int, action: str) -> int:
        """One click: the POST a browser sends for ``action``; returns the answer's status."""
        key = uuid.uuid4().hex
        roller = self.fixtures.roller.pk if self.fixtures else None
        if self.fixtures is None:
            path, fields = (
                f"/roll/{table_id}/",
                {"notation": DICE_LINE, "visibility": "public", "idempotency_key": key},
            )
        elif action == "dice box":
            path = f"/campaigns/{table_id}/table/roll/"
            fields = {"notation": DICE_LINE, "visibility": "public", "idempotency_key": key}
            fields.update(self.forms[table_id]["box"])  # what the page's box offers, as it sends it
        elif action == DJANGO_MINIMUM:
            path = f"/bench/minimum/{table_id}/"
            fields = {"notation": DICE_LINE, "visibility": "public", "idempotency_key": key}
        elif action == "sheet roll":
            path, data = self.forms[table_id]["sheet"]
            fields = {**data, "idempotency_key": key}
        elif action == "saved roll":
            path, drawn = self.forms[table_id]["saved"]
            fields = {**drawn, "idempotency_key": key}
        elif action == "request answer":
            path, fields = self.forms[table_id]["request"]["answer"]
        elif action == "encounter action":
            fight = self.forms[table_id]["fight"]
            version, _, _ = await asyncio.to_thread(self.fixtures.encounter_state, fight)
            path, fields = fight["url"], {**fight["fields"], "version": str(version)}
            fight["acted"] = True
        else:  # in-place edit: the name saved again, with the version the page holds
            edit = self.forms[table_id]["edit"]
            # The form sends the roll options and what the buttons were drawn from too (hx-include).
            page = self.forms[table_id].get("sheet", (None, {}))[1]
            fields = {**page, "value": edit["value"], "version": str(edit["version"])}
            path = edit["url"]
        status, body = await self._client(table_id).post(path, fields, self.headers(roller))
        drawn = None
        if action in ("sheet roll", "edit"):
            drawn = value_by_id(body.decode(errors="replace"), "roll-buttons-drawn")
        if drawn is not None:
            # An answer that redrew the buttons brings what they were drawn from, as the page keeps it.
            self.forms[table_id]["sheet"][1]["buttons_drawn"] = drawn
        edit = self.forms.get(table_id, {}).get("edit") if self.fixtures is not None else None
        if edit is not None and (found := VERSION.search(body)):
            # An edit's answer, and a sheet roll's, carry the sheet's version: the page keeps it for the
            # next save (a roll moves it too).
            edit["version"] = int(found.group(1))
        return status

    async def encounter_turn(self, table_id: int) -> int:
        """Untimed: the GM presses Next turn until the roller's character may act again; returns the
        feed's last seq then (the entries each socket should hold before the next click)."""
        fight = self.forms[table_id]["fight"]
        gm = self.fixtures.gm.pk
        pressed = False
        while True:
            version, mine, last_seq = await asyncio.to_thread(self.fixtures.encounter_state, fight)
            if mine and (pressed or not fight["acted"]):
                fight["acted"] = False
                return last_seq
            status, _ = await self._client(("gm", table_id)).post(
                fight["next_url"], {"version": str(version)}, self.headers(gm)
            )
            if status not in (200, 204, 302):
                raise RuntimeError(f"next turn answered {status}")
            pressed = True

    async def ask(self, table_id: int) -> int:
        """Untimed: the GM sends the last request's group result (closing it, so prompts do not pile up
        on the sheet) and asks the roller's character for a roll; the roller's sheet fetches its prompt
        as the page does, and the first button's form is what the next click posts. Returns the feed's
        last seq then."""
        form = self.forms[table_id]["request"]
        gm, roller = self.headers(self.fixtures.gm.pk), self.headers(self.fixtures.roller.pk)
        client = self._client(("gm", table_id))
        if form["open"] is not None:
            # A 422 (nobody answered: the last click failed) leaves that prompt first on the sheet.
            await client.post(f"{form['ask_url']}{form['open']}/result/", {}, gm)
        status, body = await client.post(form["ask_url"], form["ask"], gm)
        asked = ASKED.search(body)
        if status != 200 or not asked:
            raise RuntimeError(f"the roll request answered {status}")
        form["open"] = int(asked.group(1))
        status, body = await self._client(("prompt", table_id)).get(form["prompts_url"], roller)
        prompt = PROMPT.search(body)
        if status != 200 or not prompt:
            raise RuntimeError(f"the sheet's prompt answered {status} without a button")
        form["answer"] = (prompt.group(1).decode(), {"key": prompt.group(2).decode()})
        return await asyncio.to_thread(self.fixtures.last_seq, table_id)

    async def broadcast(self, table_id: int, seq: int) -> None:
        await self.trigger.send(
            json.dumps({"table": str(table_id) if self.fixtures is None else table_id, "seq": seq})
        )

    async def close(self) -> None:
        for client in self.http.values():
            await client.close()
        if self.trigger is not None:
            await self.trigger.close()
