"""The table's websocket: who gets in, who sees which roll, catch-up, and refusal of bad client frames."""

import json
import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.layers import InMemoryChannelLayer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.backends.db import SessionStore
from django.test import Client
from django.urls import reverse

from campaigns import consumers, realtime, services
from campaigns.models import FeedEntry
from campaigns.routing import websocket_urlpatterns
from rules.dice import FixedFaces, Roller
from tests.conftest import FRAME_WAIT, HTMX, PASSWORD, frames_before_barrier, hears_nothing_more, wire

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ROUTER = URLRouter(websocket_urlpatterns)


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    # Each test gets a fresh in-process layer, whatever REDIS_URL says (the Redis test is separate).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def roll(campaign, author, notation="2d6", visibility="public", faces=(3, 4), **kwargs):
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=author,
        notation_text=notation,
        visibility=visibility,
        roller=Roller(FixedFaces(faces)),
        **kwargs,
    )
    return entry


aroll = sync_to_async(roll)


async def open_socket(user, campaign, *, hello: FeedEntry | int | None = 0, feed: bool = True):
    """Connect as ``user``; unless ``hello`` is None, say hello after that entry (0: from the start)
    and return the frames replayed before ready."""
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    replayed = []
    if hello is not None:
        cursor = hello.cursor if isinstance(hello, FeedEntry) else None
        await communicator.send_json_to({"type": "hello", "cursor": cursor, "feed": feed})
        replayed = await frames_until_ready(communicator)
    return communicator, replayed


async def frames_until_ready(communicator):
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=FRAME_WAIT)
        if frame["type"] == "ready":
            return frames
        frames.append(frame)


async def entries(communicator, count: int):
    frames = [await communicator.receive_json_from(timeout=FRAME_WAIT) for _ in range(count)]
    assert all(frame["type"] == "entry" for frame in frames), frames
    return frames


async def close_code(communicator) -> int:
    output = await communicator.receive_output(timeout=FRAME_WAIT)
    assert output["type"] == "websocket.close", output
    return output.get("code")


# -- who gets in ------------------------------------------------------------------------------------


async def test_gm_and_player_are_accepted(campaign, gm, player):
    for user in (gm, player):
        communicator, replayed = await open_socket(user, campaign)
        assert replayed == []
        await communicator.disconnect()


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
async def test_outsider_and_anonymous_are_refused_before_accept(campaign, outsider, who):
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = outsider if who == "outsider" else AnonymousUser()
    connected, _ = await communicator.connect()
    assert not connected


async def test_unknown_campaign_is_refused(campaign, gm):
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk + 999}/table/")
    communicator.scope["user"] = gm
    connected, _ = await communicator.connect()
    assert not connected


async def test_foreign_origin_is_refused_by_the_real_stack(campaign, player, client, settings):
    """Through config.asgi: session cookie auth works, and a cross-site Origin is refused."""
    from config.asgi import application

    settings.ALLOWED_HOSTS = ["testserver", "127.0.0.1"]
    await sync_to_async(client.force_login)(player)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    path = f"/ws/campaigns/{campaign.pk}/table/"
    for origin, expected in ((b"http://evil.example", False), (b"http://testserver", True)):
        communicator = WebsocketCommunicator(
            application, path, headers=[(b"origin", origin), (b"host", b"testserver"), (b"cookie", cookie)]
        )
        connected, _ = await communicator.connect()
        assert connected is expected
        if connected:
            await communicator.disconnect()


# -- who sees what ----------------------------------------------------------------------------------


async def test_each_visibility_reaches_exactly_the_right_viewers(campaign, gm, player, other_player):
    sockets = {}
    for name, user in (("gm", gm), ("roller", player), ("other", other_player)):
        sockets[name], _ = await open_socket(user, campaign)

    made = {}
    for visibility in ("public", "gm", "blind", "self"):
        # 1d1000 showing 987: a face no page chrome contains, to prove it never reaches a hidden viewer.
        made[visibility] = await aroll(campaign, player, "1d1000", visibility, faces=(987,))

    expected = {
        "gm": {"public": "full", "gm": "full", "blind": "full"},
        "roller": {"public": "full", "gm": "full", "blind": "notice", "self": "full"},
        "other": {"public": "full"},
    }
    for name, sees in expected.items():
        frames = await entries(sockets[name], len(sees))
        assert [frame["cursor"] for frame in frames] == [made[v].cursor for v in sees], name
        for frame, variant in zip(frames, sees.values(), strict=True):
            if variant == "full":
                assert "987" in frame["html"]
            else:
                assert "987" not in wire(frame["html"])
                assert "A blind roll was made" in frame["html"]
    heard = await frames_before_barrier(campaign.pk, *sockets.values())
    assert dict(zip(sockets, heard, strict=True)) == dict.fromkeys(sockets, []), "heard more than it may"
    for communicator in sockets.values():
        await communicator.disconnect()


async def test_gm_rolling_blind_sees_own_result(campaign, gm, player):
    gm_socket, _ = await open_socket(gm, campaign)
    player_socket, _ = await open_socket(player, campaign)
    entry = await aroll(campaign, gm, "1d1000", "blind", faces=(987,))
    (frame,) = await entries(gm_socket, 1)
    assert frame["cursor"] == entry.cursor and "987" in frame["html"]
    assert await hears_nothing_more(campaign.pk, player_socket)
    await gm_socket.disconnect()
    await player_socket.disconnect()


# -- nothing lost, nothing twice --------------------------------------------------------------------


async def test_catch_up_replays_what_was_missed_in_order_without_duplicates(campaign, gm, player):
    first = await aroll(campaign, player)
    communicator, replayed = await open_socket(player, campaign, hello=first)
    assert replayed == []
    await communicator.disconnect()

    missed = [
        await aroll(campaign, player, visibility="public"),
        await aroll(campaign, gm, visibility="gm"),  # hidden from this player: skipped, not a gap
        await aroll(campaign, player, visibility="self"),
        await aroll(campaign, gm, visibility="public"),
    ]
    communicator, replayed = await open_socket(player, campaign, hello=first)
    assert [frame["cursor"] for frame in replayed] == [missed[0].cursor, missed[2].cursor, missed[3].cursor]

    live = await aroll(campaign, gm)
    (frame,) = await entries(communicator, 1)
    assert frame["cursor"] == live.cursor
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


async def test_entries_broadcast_before_hello_come_once_through_the_catch_up(campaign, player):
    communicator, _ = await open_socket(player, campaign, hello=None)
    made = [await aroll(campaign, player) for _ in range(3)]
    await communicator.send_json_to({"type": "hello", "cursor": None})
    replayed = await frames_until_ready(communicator)
    assert [frame["cursor"] for frame in replayed] == [entry.cursor for entry in made]
    later = await aroll(campaign, player)
    (frame,) = await entries(communicator, 1)
    assert frame["cursor"] == later.cursor
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


async def test_a_dropped_broadcast_is_filled_from_the_database(campaign, player, monkeypatch):
    communicator, _ = await open_socket(player, campaign)
    real_entry_created = realtime.entry_created
    monkeypatch.setattr(realtime, "entry_created", lambda entry: None)  # the layer "loses" this one
    lost = await aroll(campaign, player)
    monkeypatch.setattr(realtime, "entry_created", real_entry_created)
    heard = await aroll(campaign, player)
    frames = await entries(communicator, 2)
    assert [frame["cursor"] for frame in frames] == [lost.cursor, heard.cursor]
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


# -- nothing is written over the socket: rolls and chat come over HTTP ------------------------------


def post_chat(user, campaign, text, key=None):
    """The chat box's htmx POST, as the page sends it (the socket takes no chat); the response."""
    client = Client()
    client.force_login(user)
    data = {"text": text, "idempotency_key": key or uuid.uuid4().hex}
    return client.post(reverse("table_chat", args=[campaign.pk]), data, **HTMX)


apost_chat = sync_to_async(post_chat)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "roll", "notation": "3d6", "key": "k-0123456789"},
        {"type": "chat", "text": "hello", "key": "k-0123456789"},
    ],
)
async def test_a_roll_or_chat_frame_closes_the_socket_and_saves_nothing(campaign, player, frame):
    # The page rolls and chats over HTTP (the forms, with their checks: whispers, the character
    # rolled as); the socket has no write path to keep in step with them.
    communicator, _ = await open_socket(player, campaign)
    await communicator.send_json_to(frame)
    assert await close_of(communicator) == (consumers.CLOSE_BAD_MESSAGE, None)
    assert await sync_to_async(FeedEntry.objects.count)() == 0


async def test_a_chat_line_posted_twice_with_one_key_is_saved_and_broadcast_once(campaign, player, gm):
    gm_socket, _ = await open_socket(gm, campaign)
    communicator, _ = await open_socket(player, campaign)
    for _ in range(2):
        assert (await apost_chat(player, campaign, "hello", key="k-0123456789")).status_code == 200
    entry = await sync_to_async(FeedEntry.objects.get)()
    for socket in (gm_socket, communicator):
        (frame,) = await entries(socket, 1)
        assert frame["cursor"] == entry.cursor and "hello" in frame["html"]
    assert await hears_nothing_more(campaign.pk, gm_socket, communicator)
    await communicator.disconnect()
    await gm_socket.disconnect()


async def test_a_bad_inline_roll_in_chat_answers_with_the_position_and_saves_nothing(campaign, player, gm):
    gm_socket, _ = await open_socket(gm, campaign)
    response = await apost_chat(player, campaign, "I try [[2d6+x]]")
    assert "position 5" in response.content.decode()
    assert await sync_to_async(FeedEntry.objects.count)() == 0
    assert await hears_nothing_more(campaign.pk, gm_socket)
    await gm_socket.disconnect()


async def test_chat_and_its_inline_rolls_are_rate_limited_with_a_clear_message(campaign, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (2, 60), "chat": (3, 60)}
    communicator, _ = await open_socket(player, campaign)
    answers = [
        await apost_chat(player, campaign, text)
        for text in ("[[d6]] and [[d6]]", "[[d6]]", "hello", "hello again")
    ]
    # The second line's roll is one past the roll limit (its chat line still counted as sent).
    assert [answer.status_code for answer in answers] == [200, 429, 200, 429]
    assert "at most 2 rolls every 60 seconds" in answers[1].content.decode()
    assert "at most 3 messages every 60 seconds" in answers[3].content.decode()
    assert all(1 <= int(answers[i]["Retry-After"]) <= 61 for i in (1, 3))
    # What was saved reached the socket: two rolls and their line, then "hello".
    frames = await entries(communicator, 4)
    assert "hello" in frames[3]["html"]
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


# -- refusals that close only the offender ----------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ('{"type": "feed.entry", "seq": 1, "visibility": "public", "author_id": 1, "frames": {}}', 4400),
        ('{"type": "websocket.disconnect", "code": 1000}', 4400),
        ('{"type": "member.removed", "user_id": 1}', 4400),
        ('{"type": "hello", "cursor": 12}', 4400),
        ("not json", 4400),
        ("[1, 2]", 4400),
        ('{"type": "ping", "padding": "' + "x" * 5000 + '"}', 1009),
    ],
)
async def test_forged_or_oversized_frames_close_only_that_client(campaign, gm, player, frame, code):
    bystander, _ = await open_socket(gm, campaign)
    offender, _ = await open_socket(player, campaign)
    await offender.send_to(text_data=frame)
    assert await close_code(offender) == code
    entry = await aroll(campaign, gm)
    (heard,) = await entries(bystander, 1)
    assert heard["cursor"] == entry.cursor
    await bystander.disconnect()


async def test_binary_frames_are_refused(campaign, player):
    communicator, _ = await open_socket(player, campaign)
    await communicator.send_to(bytes_data=b"\x00\x01")
    assert await close_code(communicator) == 1003


async def test_removed_player_is_closed_at_once_and_others_stay(campaign, gm, player, other_player):
    removed, _ = await open_socket(player, campaign)
    staying, _ = await open_socket(other_player, campaign)
    await sync_to_async(services.member_remove)(campaign=campaign, user_id=player.pk)
    assert await close_code(removed) == 4403
    entry = await aroll(campaign, gm)
    (heard,) = await entries(staying, 1)
    assert heard["cursor"] == entry.cursor
    await staying.disconnect()


async def test_ping_is_answered_with_a_pong_that_counts_nothing(campaign, gm, player):
    communicator, _ = await open_socket(player, campaign)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from(timeout=FRAME_WAIT) == {"type": "pong"}
    await aroll(campaign, gm, visibility="gm")  # hidden from the player: the pong must not tell
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from(timeout=FRAME_WAIT) == {"type": "pong"}
    await communicator.disconnect()


async def test_the_heartbeat_replays_what_the_layer_lost_without_waiting_for_a_roll(
    campaign, gm, player, monkeypatch
):
    communicator, _ = await open_socket(player, campaign)
    monkeypatch.setattr(realtime, "entry_created", lambda entry: None)  # Redis is down: nothing is heard
    lost = [await aroll(campaign, gm), await aroll(campaign, gm, visibility="gm"), await aroll(campaign, gm)]
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.send_json_to({"type": "ping"})
    first, second, pong = [await communicator.receive_json_from(timeout=FRAME_WAIT) for _ in range(3)]
    assert [first["cursor"], second["cursor"]] == [lost[0].cursor, lost[2].cursor]
    assert pong == {"type": "pong"}
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


async def test_a_sheet_change_asks_only_the_gm_page_to_refresh_its_party_panel(campaign, gm, player):
    from channels.layers import get_channel_layer

    gm_socket, _ = await open_socket(gm, campaign)
    player_socket, _ = await open_socket(player, campaign)
    layer = get_channel_layer()
    await layer.group_send(
        realtime.table_group(campaign.pk), {"type": "panel.changed", "panel": "party", "gm_only": True}
    )
    assert await gm_socket.receive_json_from(timeout=FRAME_WAIT) == {"type": "refresh", "panel": "party"}
    assert await hears_nothing_more(campaign.pk, player_socket)
    await gm_socket.disconnect()
    await player_socket.disconnect()


async def test_an_unknown_group_event_is_ignored_not_fatal(campaign, player, gm):
    from channels.layers import get_channel_layer

    communicator, _ = await open_socket(player, campaign)
    await get_channel_layer().group_send(realtime.table_group(campaign.pk), {"type": "something.new"})
    entry = await aroll(campaign, gm)
    (frame,) = await entries(communicator, 1)
    assert frame["cursor"] == entry.cursor
    await communicator.disconnect()


# -- sockets follow the session ---------------------------------------------------------------------


def logged_in_client(user):
    client = Client()
    client.force_login(user)
    return client


async def open_socket_for(client, user, campaign):
    """A socket opened by the browser behind ``client``: same user, same session."""
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = user
    communicator.scope["session"] = SessionStore(client.session.session_key)
    connected, _ = await communicator.connect()
    assert connected
    await communicator.send_json_to({"type": "hello", "cursor": None})
    await frames_until_ready(communicator)
    return communicator


async def close_of(communicator) -> tuple[int, str]:
    output = await communicator.receive_output(timeout=FRAME_WAIT)
    assert output["type"] == "websocket.close", output
    return output.get("code"), output.get("reason")


async def test_logging_out_closes_that_browsers_sockets_and_nothing_reaches_them(campaign, gm, player):
    browser = await sync_to_async(logged_in_client)(player)
    laptop = await sync_to_async(logged_in_client)(player)
    tabs = [await open_socket_for(browser, player, campaign) for _ in range(2)]
    elsewhere = await open_socket_for(laptop, player, campaign)

    response = await sync_to_async(browser.post)(reverse("logout"))
    assert response.status_code == 302
    for tab in tabs:
        assert await close_of(tab) == (4403, "session ended")

    entry = await aroll(campaign, gm)
    for tab in tabs:
        assert await tab.receive_nothing(timeout=0.2)
    # Logged out in that browser only: the other device's session, and its socket, live on.
    (heard,) = await entries(elsewhere, 1)
    assert heard["cursor"] == entry.cursor
    await elsewhere.disconnect()


async def test_changing_the_password_closes_every_socket_of_that_user_only(
    campaign, gm, player, other_player
):
    browser = await sync_to_async(logged_in_client)(player)
    laptop = await sync_to_async(logged_in_client)(player)
    sockets = [
        await open_socket_for(browser, player, campaign),
        await open_socket_for(laptop, player, campaign),
    ]
    bystander = await open_socket_for(
        await sync_to_async(logged_in_client)(other_player), other_player, campaign
    )

    response = await sync_to_async(browser.post)(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a-new-long-phrase-42",
            "new_password2": "a-new-long-phrase-42",
        },
    )
    assert response.status_code == 302
    for communicator in sockets:
        assert await close_of(communicator) == (4403, "session ended")
    entry = await aroll(campaign, gm)
    (heard,) = await entries(bystander, 1)
    assert heard["cursor"] == entry.cursor
    await bystander.disconnect()


async def test_saving_a_user_without_a_new_password_leaves_their_sockets_alone(campaign, player):
    browser = await sync_to_async(logged_in_client)(player)
    communicator = await open_socket_for(browser, player, campaign)
    await sync_to_async(player.save)(update_fields=["last_login"])
    player.first_name = "Renamed"
    await sync_to_async(player.save)()
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.disconnect()


async def test_a_lost_logout_event_still_ends_the_socket_at_the_next_heartbeat(campaign, player, monkeypatch):
    browser = await sync_to_async(logged_in_client)(player)
    communicator = await open_socket_for(browser, player, campaign)
    monkeypatch.setattr(realtime, "sessions_ended", lambda **kwargs: None)  # the layer drops it
    await sync_to_async(browser.post)(reverse("logout"))
    assert await hears_nothing_more(campaign.pk, communicator)
    await communicator.send_json_to({"type": "ping"})
    assert await close_of(communicator) == (4403, "session ended")


async def test_a_lost_removal_event_still_ends_the_socket_at_the_next_heartbeat(
    campaign, player, monkeypatch
):
    communicator, _ = await open_socket(player, campaign)
    monkeypatch.setattr(realtime, "member_removed", lambda **kwargs: None)
    await sync_to_async(services.member_remove)(campaign=campaign, user_id=player.pk)
    await communicator.send_json_to({"type": "ping"})
    assert await close_of(communicator) == (4403, "not seated")


async def test_one_user_gets_a_few_sockets_per_table_not_more(campaign, player, other_player, settings):
    settings.TABLE_SOCKETS_PER_USER = 2
    first, _ = await open_socket(player, campaign)
    second, _ = await open_socket(player, campaign)
    third = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    third.scope["user"] = player
    connected, _ = await third.connect()
    assert connected  # accepted only to say why it is closed: the page stops retrying on 4409
    assert await close_of(third) == (4409, "too many sockets")
    # Someone else at the table is not affected, and closing a tab frees a place.
    other, _ = await open_socket(other_player, campaign)
    await first.disconnect()
    again, _ = await open_socket(player, campaign)
    for communicator in (second, other, again):
        await communicator.disconnect()


async def test_a_client_flooding_the_socket_is_closed_not_answered_hundreds_of_times(campaign, player):
    communicator, _ = await open_socket(player, campaign)
    for _ in range(300):
        await communicator.send_json_to({"type": "ping"})
    answers = []
    while True:
        output = await communicator.receive_output(timeout=FRAME_WAIT)
        if output["type"] == "websocket.close":
            break
        answers.append(json.loads(output["text"]))
    assert output["code"] == 4429
    # The hello spent one frame of the burst; every ping answered before the close was a pong.
    assert 0 < len(answers) < consumers.FRAME_BURST, answers
    assert all(answer == {"type": "pong"} for answer in answers)


async def test_a_layer_outage_refuses_a_new_socket_cleanly(campaign, player, monkeypatch):
    async def unavailable(self, *args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr(InMemoryChannelLayer, "new_channel", unavailable)
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = player
    connected, _ = await communicator.connect()
    assert connected
    assert (await close_of(communicator))[0] == 1013  # "try again later": the page keeps retrying
    monkeypatch.undo()

    monkeypatch.setattr(InMemoryChannelLayer, "group_add", unavailable)
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = player
    connected, _ = await communicator.connect()
    assert connected
    assert (await close_of(communicator))[0] == 1013
    monkeypatch.undo()
    # The failed sockets did not use up the user's allowance.
    assert (player.pk, campaign.pk) not in consumers._open_sockets
