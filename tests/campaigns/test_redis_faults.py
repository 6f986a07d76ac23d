"""Redis faults and neighbours, on real Redis and real uvicorn processes.

* Redis stops and starts again under a running table (a redis-server of this test's own, on a free
  port, so no one else's Redis is touched): a new socket is refused cleanly, open pages catch up by
  their heartbeat, and the table is live again once Redis is back.
* Two deployments on one Redis server never hear each other: pub/sub ignores the database number, so
  only the channel layer's prefix (by default derived from each deployment's database) keeps them apart.
"""

import asyncio
import shutil
import sqlite3
import subprocess
import time
import uuid

import pytest
from django.db import connection
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from campaigns.models import FeedEntry
from tests.campaigns.test_table_redis import (
    Seat,
    free_port,
    post_roll,
    running_servers,
    server_env,
    session_cookie,
    stop_process,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.long]


class OwnRedis:
    """A throw-away redis-server this test may stop and start at will."""

    def __init__(self):
        self.port = free_port()
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            if (
                subprocess.run(["redis-cli", "-p", str(self.port), "ping"], capture_output=True).stdout
                == b"PONG\n"
            ):
                return
            time.sleep(0.05)
        pytest.fail("redis-server did not start")

    def stop(self):
        if self.process is not None:
            stop_process(self.process)
            self.process = None


@pytest.fixture
def own_redis():
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.skip("needs redis-server and redis-cli on PATH to stop and restart a Redis of its own")
    redis = OwnRedis()
    redis.start()
    yield redis
    redis.stop()


async def refusal_code(port: int, campaign_id: int, cookie: str) -> int | None:
    """Open a socket: the close code if it is refused after the handshake, None if it is served."""
    url = f"ws://127.0.0.1:{port}/ws/campaigns/{campaign_id}/table/"
    async with connect(url, origin=f"http://127.0.0.1:{port}", additional_headers={"Cookie": cookie}) as ws:
        try:
            await ws.send('{"type": "hello", "cursor": null}')
            async with asyncio.timeout(15):
                while True:
                    frame = await ws.recv()
                    if '"ready"' in frame:
                        return None
        except ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd else None


def test_redis_going_away_and_coming_back(own_redis, campaign, gm, player):
    env = server_env(REDIS_URL=f"redis://127.0.0.1:{own_redis.port}/0", CHANNEL_LAYER_PREFIX=uuid.uuid4().hex)
    cookies = {user.pk: session_cookie(user) for user in (gm, player)}

    async def scenario(port):
        async with (
            Seat(port, campaign.pk, cookies[gm.pk]) as gm_seat,
            Seat(port, campaign.pk, cookies[player.pk]) as player_seat,
        ):
            own_redis.stop()

            # A roll while Redis is down is saved and answered; nobody hears it live.
            roll = asyncio.to_thread(
                post_roll, port, campaign.pk, cookies[player.pk], notation="3d6", timeout=30
            )
            assert await roll == 200
            missed = await asyncio.to_thread(newest_cursor)
            assert await gm_seat.silent(0.5)

            # A new page's socket is refused with "try again later", not a 500 at the handshake.
            try:
                code = await refusal_code(port, campaign.pk, cookies[gm.pk])
            except InvalidStatus as refused:  # pragma: no cover - the failure this test is about
                pytest.fail(f"handshake answered HTTP {refused.response.status_code}")
            assert code == 1013

            own_redis.start()

            # The open page catches up by its heartbeat, without a new roll.
            await gm_seat.send({"type": "ping"})
            entry = await gm_seat.next_of("entry")
            assert entry["cursor"] == missed and "3d6" in entry["html"]
            assert await gm_seat.next_of("pong") == {"type": "pong"}

            # The page keeps retrying; once the layer has reconnected a new socket is served again...
            async with asyncio.timeout(60):
                while await refusal_code(port, campaign.pk, cookies[gm.pk]) is not None:
                    await asyncio.sleep(0.5)

            # ...and the open sockets are live again: a roll reaches them with no ping.
            assert (
                await asyncio.to_thread(post_roll, port, campaign.pk, cookies[player.pk], notation="1d20")
                == 200
            )
            again = await asyncio.to_thread(newest_cursor)
            assert (await gm_seat.next_of("entry"))["cursor"] == again
            # The roller had not pinged: the live entry shows it a gap, filled from the database.
            assert [(await player_seat.next_of("entry"))["cursor"] for _ in range(2)] == [missed, again]

    with running_servers(env) as (port,):
        asyncio.run(scenario(port))


def newest_cursor() -> str:
    return FeedEntry.objects.order_by("-seq").first().cursor


def copy_of_test_database(tmp_path) -> str:
    copy = tmp_path / "other-deployment.sqlite3"
    source = sqlite3.connect(connection.settings_dict["NAME"])
    target = sqlite3.connect(copy)
    with target:
        source.backup(target)
    source.close()
    target.close()
    return str(copy)


@pytest.mark.parametrize("prefixes", ["default", "shared"])
def test_two_deployments_on_one_redis_never_hear_each_other(tmp_path, campaign, gm, player, prefixes):
    if connection.vendor != "sqlite":
        pytest.skip("the second deployment's database is a copy of the SQLite test database")
    cookies = {user.pk: session_cookie(user) for user in (gm, player)}
    # Deployment B is another installation: its own database (a copy, so the same ids and logins).
    env_a = server_env()
    env_b = server_env(SQLITE_PATH=copy_of_test_database(tmp_path))
    if prefixes == "shared":
        # The control: one prefix for both, as channels-redis' default "asgi" would give them.
        env_a["CHANNEL_LAYER_PREFIX"] = env_b["CHANNEL_LAYER_PREFIX"] = uuid.uuid4().hex

    async def scenario(port_a, port_b):
        async with (
            Seat(port_a, campaign.pk, cookies[player.pk]) as roller,
            Seat(port_b, campaign.pk, cookies[gm.pk]) as neighbour,
        ):
            assert (
                await asyncio.to_thread(post_roll, port_a, campaign.pk, cookies[player.pk], notation="3d6")
                == 200
            )
            await roller.next_of("entry")
            if prefixes == "default":
                assert await neighbour.silent(1.0)
            else:
                heard = await neighbour.next_of("entry", timeout=5)
                assert "3d6" in heard["html"]  # A's roll on B's table: what the prefix prevents

    with running_servers(env_a, env_b) as (port_a, port_b):
        asyncio.run(scenario(port_a, port_b))
