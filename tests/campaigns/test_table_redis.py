"""Scale-out: two uvicorn processes on one Redis channel layer share a table.

Runs on real Redis: REDIS_URL when set (CI), else redis://127.0.0.1:6379/15. A random channel-layer
prefix (CHANNEL_LAYER_PREFIX) keeps this test's groups apart from anything else using the same Redis.
Both processes use the test database, so what one writes the other reads.
"""

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
import redis
from django.db import connection
from django.test import Client

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"

# The server process: the project's own settings, from the environment it is given (REDIS_URL, the
# database, CHANNEL_LAYER_PREFIX when a test sets one).
LAUNCHER = """
import sys
import uvicorn
uvicorn.run("config.asgi:application", host="127.0.0.1", port=int(sys.argv[1]),
            log_level="warning", lifespan="off")
"""


def require_redis() -> None:
    """Redis at REDIS_URL answers, or the test stops here and says plainly why it cannot run."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2, socket_timeout=2).ping()
    except redis.RedisError as error:
        where = f"Redis at {REDIS_URL} is unreachable ({error})"
        if os.environ.get("REDIS_URL") or os.environ.get("CI") == "true":
            pytest.fail(
                f"{where}; REDIS_URL or CI=true says this run has Redis, so this is a failure.", pytrace=False
            )
        pytest.skip(f"{where}: start redis-server on 127.0.0.1:6379 (or set REDIS_URL) to run it.")


@pytest.fixture
def redis_server():
    require_redis()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_env() -> dict[str, str]:
    """Point a child process at the database this test is using."""
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return {"SQLITE_PATH": str(db["NAME"])}
    user = db.get("USER") or ""
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    host = f"{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    return {"DATABASE_URL": f"postgres://{user}{password}@{host}/{db['NAME']}"}


def server_env(**overrides) -> dict[str, str]:
    """The environment of a server process on this test's database, with ``overrides`` on top."""
    if "REDIS_URL" not in overrides:
        require_redis()  # every server on the shared Redis needs it up, whichever test starts one
    skip = ("DATABASE_URL", "SQLITE_PATH", "DJANGO_DEBUG", "CHANNEL_LAYER_PREFIX", "WEB_CONCURRENCY")
    env = {k: v for k, v in os.environ.items() if k not in skip}
    env.update(database_env())
    env.update(
        REDIS_URL=REDIS_URL, DJANGO_ALLOWED_HOSTS="127.0.0.1", DJANGO_SETTINGS_MODULE="config.settings"
    )
    env.update(overrides)
    return env


def wait_for_port(port: int, process: subprocess.Popen, log) -> None:
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            log.seek(0)
            pytest.fail(f"server on {port} exited: {log.read().decode(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                pytest.fail(f"server on {port} did not start")
            time.sleep(0.1)


def stop_process(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def running_servers(*envs: dict[str, str]):
    """One uvicorn process per environment; yields their ports once all of them listen."""
    servers = []
    try:
        for env in envs:
            port = free_port()
            log = tempfile.TemporaryFile()
            process = subprocess.Popen(
                [sys.executable, "-c", LAUNCHER, str(port)], cwd=ROOT, env=env, stdout=log, stderr=log
            )
            servers.append((port, process, log))
        for port, process, log in servers:
            wait_for_port(port, process, log)
        yield [port for port, _, _ in servers]
    except BaseException:
        # What the servers said is the first thing to read when a scenario fails.
        for port, _, log in servers:
            log.seek(0)
            print(f"--- server on {port} ---\n{log.read().decode(errors='replace')}")
        raise
    finally:
        for _, process, log in servers:
            stop_process(process)
            log.close()


@pytest.fixture
def two_servers(redis_server):
    env = server_env(CHANNEL_LAYER_PREFIX=f"test-{uuid.uuid4().hex[:12]}")
    with running_servers(env, env) as ports:
        yield ports


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def post_roll(port: int, campaign_id: int, cookie: str, *, timeout: float = 15, **fields) -> int:
    """The dice box's htmx POST to one server process, as a browser sends it; returns the status."""
    return post_form(port, f"/campaigns/{campaign_id}/table/roll/", cookie, timeout=timeout, **fields)


def post_chat(port: int, campaign_id: int, cookie: str, text: str, *, timeout: float = 15) -> int:
    """The chat box's htmx POST to one server process (the socket takes no chat); returns the status."""
    return post_form(port, f"/campaigns/{campaign_id}/table/chat/", cookie, timeout=timeout, text=text)


def post_form(port: int, path: str, cookie: str, *, timeout: float = 15, **fields) -> int:
    """A table form's htmx POST, with the session and CSRF cookies and headers a browser sends."""
    import urllib.parse
    import urllib.request

    csrf = uuid.uuid4().hex
    body = urllib.parse.urlencode({"visibility": "public", "idempotency_key": uuid.uuid4().hex, **fields})
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=body.encode(),
        headers={
            "Cookie": f"{cookie}; csrftoken={csrf}",
            "X-CSRFToken": csrf,
            "Origin": f"http://127.0.0.1:{port}",
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (a local test server)
        return response.status


class Seat:
    """One browser's socket to one server process."""

    def __init__(self, port: int, campaign_id: int, cookie: str):
        self.url = f"ws://127.0.0.1:{port}/ws/campaigns/{campaign_id}/table/"
        self.origin = f"http://127.0.0.1:{port}"
        self.cookie = cookie

    async def __aenter__(self):
        from websockets.asyncio.client import connect

        self.socket = await connect(self.url, origin=self.origin, additional_headers={"Cookie": self.cookie})
        await self.send({"type": "hello", "cursor": None})
        await self.next_of("ready")
        return self

    async def __aexit__(self, *exc):
        await self.socket.close()

    async def send(self, message: dict):
        await self.socket.send(json.dumps(message))

    async def next_of(self, kind: str, timeout: float = 15):
        """The next frame of this kind, skipping others (an answer and a broadcast may come either way)."""
        async with asyncio.timeout(timeout):
            while True:
                frame = json.loads(await self.socket.recv())
                if frame["type"] == kind:
                    return frame

    async def silent(self, seconds: float = 0.5) -> bool:
        try:
            async with asyncio.timeout(seconds):
                frame = await self.socket.recv()
        except TimeoutError:
            return True
        pytest.fail(f"expected silence, got {frame}")


def test_a_roll_through_one_worker_reaches_a_browser_on_the_other(
    two_servers, campaign, gm, player, other_player
):
    port_a, port_b = two_servers
    cookies = {user.pk: session_cookie(user) for user in (gm, player, other_player)}

    async def scenario():
        async with (
            Seat(port_a, campaign.pk, cookies[player.pk]) as roller,
            Seat(port_b, campaign.pk, cookies[gm.pk]) as gm_seat,
            Seat(port_b, campaign.pk, cookies[other_player.pk]) as other,
        ):
            roll = asyncio.to_thread(post_roll, port_a, campaign.pk, cookies[player.pk], notation="3d6")
            assert await roll == 200
            heard = [await seat.next_of("entry") for seat in (gm_seat, other, roller)]
            assert len({entry["cursor"] for entry in heard}) == 1
            assert all("3d6" in entry["html"] for entry in heard)

            # A blind roll crosses the processes too, but only the GM gets its result.
            blind = {"notation": "1d20", "visibility": "blind"}
            assert await asyncio.to_thread(post_roll, port_a, campaign.pk, cookies[player.pk], **blind) == 200
            gm_entry = await gm_seat.next_of("entry")
            notice = await roller.next_of("entry")
            assert gm_entry["cursor"] == notice["cursor"] and 'class="die' in gm_entry["html"]
            assert "A blind roll was made" in notice["html"] and 'class="die' not in notice["html"]
            assert await other.silent()

            # And the other way round: a chat line through B reaches the player on A.
            said = asyncio.to_thread(post_chat, port_b, campaign.pk, cookies[gm.pk], "Roll for initiative")
            assert await said == 200
            entry = await roller.next_of("entry")
            assert "Roll for initiative" in entry["html"]

    asyncio.run(scenario())
