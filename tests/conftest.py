"""Shared furniture: users in each role, a campaign they sit at, demo characters, fixed dice."""

import gc
import itertools
import re
from importlib import import_module

import pytest
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.test import Client
from django.utils.html import strip_tags

from campaigns import realtime
from campaigns.models import Membership
from campaigns.services import campaign_create
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters

PASSWORD = "correct-horse-battery-staple"

# What htmx sends with every request it makes; views answer such requests with partials.
HTMX = {"HTTP_HX_REQUEST": "true"}

# Every module that rolls for a request through ``system_random``: fixed_dice patches them all, so a
# test's faces are used whichever view does the rolling.
ROLLING_VIEWS = ("sheets.views", "play.request_views", "play.encounter_views", "play.saved_roll_views")


# How long a test waits for a socket frame that is due: long, since only a broken app uses it up and a
# busy machine (CI, other work) can take seconds to deliver one; a frame that must not come is checked
# with a barrier (frames_before_barrier), never by waiting this out.
FRAME_WAIT = 30
BARRIER = "test-barrier-"
_barriers = itertools.count()


async def frames_before_barrier(campaign_id: int, *sockets) -> list[list[dict]]:
    """Every frame each socket at the campaign's table got before a barrier sent now to the whole table.

    The barrier goes to the table's group after every broadcast the test's changes made (those went out
    as each change committed), and a socket handles its channel's events in order, whichever group they
    came by: once the barrier arrives, so has everything sent before it. So "nothing more" is checked
    at once, not by waiting out a timeout that a busy machine could outrun. Each call sends a barrier of
    its own; an earlier call's, still waiting on a socket it did not read, is passed over.
    """
    mine = f"{BARRIER}{next(_barriers)}"
    event = {"type": "panel.changed", "panel": mine, "gm_only": False}
    await get_channel_layer().group_send(realtime.table_group(campaign_id), event)
    heard = []
    for socket in sockets:
        frames = []
        while (frame := await socket.receive_json_from(timeout=FRAME_WAIT)).get("panel") != mine:
            if not str(frame.get("panel", "")).startswith(BARRIER):
                frames.append(frame)
        heard.append(frames)
    return heard


async def hears_nothing_more(campaign_id: int, *sockets) -> bool:
    """Whether each socket got nothing before the barrier (:func:`frames_before_barrier`)."""
    return not any(await frames_before_barrier(campaign_id, *sockets))


# The parts of a body that look random (clock times to the microsecond, 32-hex keys and file names,
# 64-character CSRF tokens, an entry's 16-hex cursor): a secret's digits may turn up inside them by
# chance (a cursor "6be98719a8137d33" beside a blind 987 failed a CI run).
RANDOM_ON_THE_WIRE = re.compile(r'datetime="[^"]*"|\b[0-9a-f]{32}\b|\b[A-Za-z0-9]{64}\b|\b[0-9a-f]{16}\b')


def wire(html: str) -> str:
    """A raw body or frame with its per-request random parts cut out, so a check for a hidden number
    that is absent is not failed by a timestamp or key that happens to contain its digits."""
    return RANDOM_ON_THE_WIRE.sub("", html)


def page_text(response) -> str:
    """The response's visible text: tags stripped, white space folded."""
    return re.sub(r"\s+", " ", strip_tags(response.content.decode()))


@pytest.fixture
def make_user(db):
    def make(username: str):
        return get_user_model().objects.create_user(username=username, password=PASSWORD)

    return make


@pytest.fixture
def gm(make_user):
    return make_user("gm")


@pytest.fixture
def player(make_user):
    return make_user("player")


@pytest.fixture
def other_player(make_user):
    return make_user("other")


@pytest.fixture
def outsider(make_user):
    return make_user("outsider")


@pytest.fixture
def make_campaign(gm):
    def make(system: str = "triad", *, players=(), name: str = "Test table"):
        campaign = campaign_create(gm=gm, name=name, system=system)
        for user in players:
            Membership.objects.create(campaign=campaign, user=user)
        return campaign

    return make


@pytest.fixture
def campaign(make_campaign, player, other_player):
    return make_campaign("triad", players=[player, other_player])


def logged_in(client: Client, user) -> Client:
    """The client with the session a login leaves: the user, ModelBackend, the password's hash.

    ``force_login`` goes through ``login()``: a session made and made again (``cycle_key``), the
    login signals (axes writes an access-log row, Django saves last_login). Tests of logging in use
    the login form; every other test only needs to be someone, at a third of the cost.
    """
    session = import_module(settings.SESSION_ENGINE).SessionStore()
    session[SESSION_KEY] = user._meta.pk.value_to_string(user)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    client.cookies[settings.SESSION_COOKIE_NAME] = session.session_key
    return client


@pytest.fixture
def client_for(client):
    """A logged-in test client for a user, or the anonymous client for None."""

    def for_user(user):
        if user is None:
            return client
        return logged_in(Client(), user)

    return for_user


@pytest.fixture
def fixed_dice(monkeypatch):
    """Make the next roll a view makes show these faces (the server still rolls through the engine)."""

    def use(*faces):
        for view_module in ROLLING_VIEWS:
            monkeypatch.setattr(f"{view_module}.system_random", lambda: FixedFaces(faces))

    return use


@pytest.fixture
def demo_character(make_campaign, player, other_player):
    """The first demo character of a campaign of the given system, owned by ``player``."""

    def make(system: str):
        campaign = make_campaign(system, players=[player, other_player])
        load_demo_characters(campaign, players=[player, other_player])
        return campaign.characters.get(owner=player)

    return make


@pytest.fixture(autouse=True, scope="session")
def channel_layer_of_this_worker(worker_id):
    """Each xdist worker has a test database of its own, so campaign ids repeat from worker to worker;
    on Redis (whose pub/sub ignores the database number) their tables' groups would hear each other.
    A prefix per worker keeps them apart, as the prefix keeps two deployments apart."""
    from channels.layers import channel_layers
    from django.conf import settings

    config = settings.CHANNEL_LAYERS.get("default", {}).get("CONFIG", {})
    if worker_id != "master" and "prefix" in config:
        config["prefix"] = f"{config['prefix']}-{worker_id}"
        channel_layers.backends.clear()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's test database, and before it is dropped, the connection of asgiref's one shared
    thread closed: async tests make their ORM calls there (sync_to_async), and that connection outlives
    them. Left open, PostgreSQL waits 5 s on it and then refuses to drop the database."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True, scope="session")
def flush_without_content_types_and_permissions():
    """A test that commits (transaction=True, the browser tests, the socket tests) ends with every table
    flushed, and Django then fills contenttypes and auth's permissions again for every model: half of
    a flush's time on PostgreSQL (about 70 of 140 ms here). The app reads neither table (a content type
    is made when first asked for; no page checks a model permission), so the tests run without those
    rows."""
    from django.contrib.auth.management import create_permissions
    from django.contrib.contenttypes.management import create_contenttypes
    from django.db.models.signals import post_migrate

    auth_uid = "django.contrib.auth.management.create_permissions"  # as django.contrib.auth.apps connects it
    post_migrate.disconnect(create_permissions, dispatch_uid=auth_uid)
    post_migrate.disconnect(create_contenttypes)


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # Password hashing is deliberately slow; tests make many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def static_files_found_when_asked(settings):
    # WhiteNoise's middleware lists and stats every static file as it starts, and each test client
    # starts its own middleware: that listing was a quarter of the non-browser suite's time. Finding a
    # file when it is asked for serves the same files with the same headers; a server starts it once.
    settings.WHITENOISE_AUTOREFRESH = True


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    # The per-user rate limit counts in the process's cache, and user ids repeat from test to test.
    from django.core.cache import cache

    cache.clear()


def still_at_the_moves_version(moved) -> bool:
    """Whether the encounter a move saved is still at the move's version, so a drawing from a read made
    before this showed the fight the move left. In a browser test the next click may have moved it on
    already: a drawing from a read then shows a later fight, and comparing the two says nothing."""
    from play.models import Encounter

    return Encounter.objects.filter(pk=moved.pk, version=moved.version).exists()


@pytest.fixture(autouse=True)
def seat_views_drawn_from_a_move_are_a_fresh_reads():
    """Every encounter change any test makes: the table's views drawn from the fight the change holds
    (play.encounters.fight_of's ``moved``) show what views drawn from a fresh read show. The frame's
    digests are built after the answer, where an error is logged, not raised: a mismatch is kept and
    fails the test at its end."""
    from campaigns import hooks

    drawn_from_reads = hooks.seat_views("encounter")
    mismatches = []

    def checked(campaign_id, moved=None):
        views = drawn_from_reads(campaign_id, moved=moved)
        if moved is not None:
            read = drawn_from_reads(campaign_id)
            differ = [realtime.shows(view) for view in views] != [realtime.shows(view) for view in read]
            if differ and still_at_the_moves_version(moved):
                mismatches.append((views, read))
        return views

    hooks.register_seat_views(panel="encounter", render=checked)
    yield
    hooks.register_seat_views(panel="encounter", render=drawn_from_reads)
    assert not mismatches, f"drawn from the move's fight: {mismatches[0][0]}\nfrom a read: {mismatches[0][1]}"


# What a page draws anew every time: each form's fresh one-time key, and the CSRF token, masked anew.
DRAWN_ANEW_KEY = re.compile(r"\b[0-9a-f]{32}\b")
DRAWN_ANEW_CSRF = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')


@pytest.fixture(autouse=True)
def a_turn_panel_drawn_from_a_move_is_a_fresh_reads(monkeypatch):
    """Every turn panel any test's move answers with, drawn from the fight the move saved
    (play.encounters.fight_of's ``moved``), is the panel a fresh read draws, byte for byte but for what
    is drawn anew every time. Not inside a test that counts the answer's queries: the read is extra."""
    from django.db import connection

    from play import encounter_views

    drawn = encounter_views._turn_context

    def checked(request, campaign, character=None, moved=None):
        context = drawn(request, campaign, character, moved)
        if moved is not None and not connection.force_debug_cursor:
            read = drawn(request, campaign, character)
            pages = [encounter_views._turn_html(request, c) for c in (context, read)]
            keyless = [DRAWN_ANEW_CSRF.sub(r"\1", DRAWN_ANEW_KEY.sub("", page)) for page in pages]
            if keyless[0] != keyless[1] and still_at_the_moves_version(moved):
                raise AssertionError(f"from the move:\n{pages[0]}\nfrom a read:\n{pages[1]}")
        return context

    monkeypatch.setattr(encounter_views, "_turn_context", checked)


def pytest_collection_finish(session):
    """Every module imported and every test collected: all of it frozen out of the garbage collector's
    sight (gc.freeze), as config.asgi does for a server, so its full passes walk only what the tests make."""
    gc.collect()
    gc.freeze()


def pytest_collection_modifyitems(config, items):
    """Tests that take seconds first, browser tests last.

    A test marked ``long`` starts while the other cores still have the rest of the suite to share:
    started last, it would keep one core busy after the others ran out of work (``make test`` spreads
    the suite with xdist's ``worksteal``, which moves waiting tests but cannot split a running one).
    Browser tests last: Playwright's sync API leaves an event loop in the main thread, after which the
    async consumer tests cannot start their own (RuntimeError: Runner.run() ... running event loop).
    """
    items.sort(key=lambda item: (bool(item.get_closest_marker("e2e")), not item.get_closest_marker("long")))
