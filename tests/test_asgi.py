"""HTTP through config.asgi's OneHopHandler: one kept worker thread per request, broadcasts from the loop.

Driven in-process as uvicorn drives it (each test speaks ASGI to the application), with the table's
sockets on the in-memory layer beside it. config.asgi is imported inside the tests, not at collection:
its websocket stack reads ALLOWED_HOSTS when it is built, and the test settings are set up later.
"""

import asyncio
import threading
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.signals import request_finished
from django.db import connections
from django.db.backends.signals import connection_created
from django.test import Client
from django.urls import reverse

from campaigns.models import FeedEntry
from tests.campaigns.test_consumers import entries, open_socket
from tests.conftest import frames_before_barrier

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

# What only the speed layer does; stock mode (settings.TABLETOP_STOCK) serves through Django's handler.
speed_layer_only = pytest.mark.skipif(settings.TABLETOP_STOCK, reason="stock mode: Django's own ASGI handler")


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def browser_headers(user) -> list[tuple[bytes, bytes]]:
    """What a logged-in browser's htmx POST carries: session and CSRF cookies, the token, Origin."""
    client = Client()
    client.force_login(user)
    csrf = uuid.uuid4().hex
    cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}"
    return [
        (b"host", b"testserver"),
        (b"cookie", cookie.encode()),
        (b"x-csrftoken", csrf.encode()),
        (b"origin", b"http://testserver"),
        (b"hx-request", b"true"),
        (b"content-type", b"application/x-www-form-urlencoded"),
    ]


def asgi():
    import config.asgi

    return config.asgi


async def request(method: str, path: str, headers=(), body: bytes = b"", *, app=None) -> dict:
    """One request through the ASGI app, as uvicorn makes it: {"status", "headers", "body"}."""
    app = app or asgi().application
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    answer = {"body": b""}
    done = asyncio.Event()

    async def receive():
        if incoming:
            return incoming.pop()
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message):
        if message["type"] == "http.response.start":
            answer.update(status=message["status"], headers=message["headers"])
        else:
            answer["body"] += message.get("body", b"")
            if not message.get("more_body"):
                done.set()

    async with asyncio.timeout(10):
        await app(scope, receive, send)
    assert done.is_set()
    return answer


async def roll(campaign, headers, notation="3d6", *, app=None) -> dict:
    body = f"notation={notation}&visibility=public&idempotency_key={uuid.uuid4().hex}".encode()
    return await request("POST", reverse("table_roll", args=[campaign.pk]), headers, body, app=app)


@pytest.fixture(autouse=True)
def kept_threads_closed():
    """The shared application's kept threads end with each test: their database connections would
    otherwise outlive the test database (PostgreSQL refuses to drop a database in use)."""
    yield
    if hasattr(asgi().django_asgi_app, "close_threads"):
        asgi().django_asgi_app.close_threads()


@pytest.fixture
def opened_connections():
    """The database connections opened while the test runs, as the threads that opened them."""
    opened = []

    def note(**kwargs):
        opened.append(threading.get_ident())

    connection_created.connect(note, weak=False)
    yield opened
    connection_created.disconnect(note)


async def test_a_roll_through_the_handler_reaches_the_table_and_answers_the_dice_box(campaign, gm, player):
    gm_socket, _ = await open_socket(gm, campaign)
    headers = await sync_to_async(browser_headers)(player)
    answer = await roll(campaign, headers, "1d1000")
    assert answer["status"] == 200 and b'id="dice-box"' in answer["body"]
    entry = await sync_to_async(FeedEntry.objects.get)()
    (frame,) = await entries(gm_socket, 1)  # sent from the event loop, collected in the worker thread
    assert frame["cursor"] == entry.cursor
    await gm_socket.disconnect()


@speed_layer_only
async def test_requests_share_a_kept_thread_and_its_database_connection(campaign, player, opened_connections):
    headers = await sync_to_async(browser_headers)(player)
    before = len(opened_connections)
    for _ in range(5):
        assert (await roll(campaign, headers))["status"] == 200
    # Django's own handler opened a thread, so a connection, for every request.
    assert len(opened_connections) - before <= 1, opened_connections


async def test_request_finished_runs_on_the_requests_own_thread(campaign, player, opened_connections):
    """With CONN_MAX_AGE 0 every request closes its connection when it finishes: a new one each time
    shows ``request_finished`` reached the connection the request used, on its own thread."""
    handler = asgi().OneHopHandler(threads=1)  # a thread of its own, with no connection open yet
    age = connections.settings["default"]["CONN_MAX_AGE"]
    connections.settings["default"]["CONN_MAX_AGE"] = 0
    finished_on = []

    def note(**kwargs):
        finished_on.append(threading.get_ident())

    headers = await sync_to_async(browser_headers)(player)  # may open the test's own thread's connection
    before = len(opened_connections)
    request_finished.connect(note, weak=False)
    try:
        for _ in range(3):
            assert (await roll(campaign, headers, app=handler))["status"] == 200
    finally:
        request_finished.disconnect(note)
        connections.settings["default"]["CONN_MAX_AGE"] = age
        await sync_to_async(handler.close_threads)()
    opened = opened_connections[before:]
    assert len(opened) == 3 and len(set(opened)) == 1
    assert set(finished_on) == set(opened)


async def test_an_error_page_and_a_streamed_static_file_are_answered_in_full(player):
    missing = await request("GET", "/campaigns/999999/table/", await sync_to_async(browser_headers)(player))
    assert missing["status"] == 404
    script = await request("GET", "/static/js/table.js", [(b"host", b"testserver")])
    assert script["status"] == 200 and script["body"].rstrip().endswith(b"})();")


async def test_past_the_thread_limit_a_request_waits_for_a_free_thread():
    threads = asgi().WorkerThreads(limit=1)
    first = await threads.take()
    waiting = asyncio.ensure_future(threads.take())
    await asyncio.sleep(0)
    assert not waiting.done() and threads.made == 1
    threads.give(first)
    assert await waiting is first
    # A waiter cancelled after it was handed a thread gives it back rather than losing it.
    late = asyncio.ensure_future(threads.take())
    await asyncio.sleep(0)
    threads.give(first)
    late.cancel()
    with pytest.raises(asyncio.CancelledError):
        await late
    assert threads.idle == [first]
    first.shutdown()


async def test_shutdown_closes_the_kept_threads_connections(campaign, player):
    handler = asgi().OneHopHandler(threads=2)
    headers = await sync_to_async(browser_headers)(player)
    assert (await roll(campaign, headers, app=handler))["status"] == 200
    (executor,) = handler.threads.idle
    assert await asyncio.wrap_future(executor.submit(lambda: connections["default"].connection is not None))
    await sync_to_async(handler.close_threads)()
    assert handler.threads.idle == [] and handler.threads.made == 0
    with pytest.raises(RuntimeError):  # the thread is gone
        executor.submit(print)


async def test_the_handler_runs_the_middleware_in_sync_mode():
    # One hop per request: a middleware chain in async mode would hop to a thread for each of them.
    handler = asgi().OneHopHandler(threads=1)
    assert not asyncio.iscoroutinefunction(handler._middleware_chain)


@speed_layer_only
async def test_what_start_up_loaded_is_frozen_out_of_the_collectors_sight():
    # Unfrozen, each full collection walked Django and the app's modules and held every table for
    # 50 to 100 ms (docs/performance.md).
    import gc

    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000


@speed_layer_only
async def test_a_panels_digest_is_drawn_after_the_answer_and_still_reaches_the_table(
    make_campaign, gm, player, other_player, monkeypatch
):
    """realtime.panel_changed's players' view is database and template work: the GM's click is answered
    first, then the view is drawn on the request's thread and its digest reaches every page."""
    from campaigns import realtime
    from play import encounters
    from play.encounter_panel import seat_views
    from sheets.demo import load_demo_characters

    campaign = await sync_to_async(make_campaign)("fivebyfive", players=[player, other_player])
    await sync_to_async(load_demo_characters)(campaign, players=[player, other_player])
    character = await sync_to_async(campaign.characters.get)(owner=player)
    ambush = await sync_to_async(encounters.encounter_create)(campaign=campaign, name="Salt Road")
    socket, _ = await open_socket(player, campaign, feed=False)
    happened = []
    drawn = realtime.shows
    monkeypatch.setattr(realtime, "shows", lambda html: happened.append("digest drawn") or drawn(html))

    async def app(scope, receive, send):
        async def noted(message):
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                happened.append("answered")

        await asgi().application(scope, receive, noted)

    headers = await sync_to_async(browser_headers)(gm)
    url = reverse("encounter_action", args=[campaign.pk, ambush.pk, "add-character"])
    body = f"character={character.pk}&version={ambush.version}".encode()
    answer = await request("POST", url, headers, body, app=app)
    # Drawn after the answer (the panel's markup, which carries its own digest, may take one too).
    assert answer["status"] < 400 and happened[0] == "answered" and "digest drawn" in happened
    (heard,) = await frames_before_barrier(campaign.pk, socket)
    await socket.disconnect()
    expected = await sync_to_async(lambda: drawn(seat_views(campaign.pk)[0]))()
    assert {"type": "refresh", "panel": "encounter", "shows": expected} in heard


async def test_what_is_built_after_the_answer_keeps_its_place_in_the_order():
    """Everything from the first event built after the answer on waits with it, so the table hears the
    click's events in the order they were committed."""
    from campaigns import realtime

    entry, member = ("t", {"type": "feed.entry"}), ("t", {"type": "member.removed"})
    panel = ("t", lambda: {"type": "panel.changed"})
    now, later = realtime.answer_first([entry, panel, member])
    assert now == [entry] and later == [panel, member]
    assert realtime.build_later(later) == [("t", {"type": "panel.changed"}), member]
    assert realtime.answer_first([entry, member]) == ([entry, member], [])

    def broken():
        raise RuntimeError("a rendering bug")

    assert realtime.build_later([("t", broken), member]) == [member]  # the rest still goes out
