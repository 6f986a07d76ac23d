"""The table's websocket: who gets in, who sees which roll, catch-up, and refusal of bad client frames."""

import pytest
from asgiref.sync import sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from campaigns import realtime, services
from campaigns.models import FeedEntry
from campaigns.routing import websocket_urlpatterns
from rules.dice import FixedFaces, Roller

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

ROUTER = URLRouter(websocket_urlpatterns)


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    # Each test gets a fresh in-process layer, whatever REDIS_URL says (the Redis test is separate).
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # The rate limit counts in the cache, which outlives a test; start every test with none used.
    from django.core.cache import cache

    cache.clear()


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


async def open_socket(user, campaign, *, hello: int | None = 0):
    """Connect as ``user``; with ``hello`` set, say hello and return the frames replayed before ready."""
    communicator = WebsocketCommunicator(ROUTER, f"/ws/campaigns/{campaign.pk}/table/")
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    replayed = []
    if hello is not None:
        await communicator.send_json_to({"type": "hello", "last_seq": hello})
        replayed = await frames_until_ready(communicator)
    return communicator, replayed


async def frames_until_ready(communicator):
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=5)
        if frame["type"] == "ready":
            return frames
        frames.append(frame)


async def entries(communicator, count: int):
    frames = [await communicator.receive_json_from(timeout=5) for _ in range(count)]
    assert all(frame["type"] == "entry" for frame in frames), frames
    return frames


async def close_code(communicator) -> int:
    output = await communicator.receive_output(timeout=5)
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
        assert [frame["seq"] for frame in frames] == [made[v].seq for v in sees], name
        for frame, variant in zip(frames, sees.values(), strict=True):
            if variant == "full":
                assert "987" in frame["html"]
            else:
                assert "987" not in frame["html"]
                assert "A blind roll was made" in frame["html"]
        assert await sockets[name].receive_nothing(timeout=0.2), f"{name} heard more than it may"
    for communicator in sockets.values():
        await communicator.disconnect()


async def test_gm_rolling_blind_sees_own_result(campaign, gm, player):
    gm_socket, _ = await open_socket(gm, campaign)
    player_socket, _ = await open_socket(player, campaign)
    entry = await aroll(campaign, gm, "1d1000", "blind", faces=(987,))
    (frame,) = await entries(gm_socket, 1)
    assert frame["seq"] == entry.seq and "987" in frame["html"]
    assert await player_socket.receive_nothing(timeout=0.2)
    await gm_socket.disconnect()
    await player_socket.disconnect()


# -- nothing lost, nothing twice --------------------------------------------------------------------


async def test_catch_up_replays_what_was_missed_in_order_without_duplicates(campaign, gm, player):
    first = await aroll(campaign, player)
    communicator, replayed = await open_socket(player, campaign, hello=first.seq)
    assert replayed == []
    await communicator.disconnect()

    missed = [
        await aroll(campaign, player, visibility="public"),
        await aroll(campaign, gm, visibility="gm"),  # hidden from this player: skipped, not a gap
        await aroll(campaign, player, visibility="self"),
        await aroll(campaign, gm, visibility="public"),
    ]
    communicator, replayed = await open_socket(player, campaign, hello=first.seq)
    assert [frame["seq"] for frame in replayed] == [missed[0].seq, missed[2].seq, missed[3].seq]

    live = await aroll(campaign, gm)
    (frame,) = await entries(communicator, 1)
    assert frame["seq"] == live.seq
    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()


async def test_entries_broadcast_before_hello_come_once_through_the_catch_up(campaign, player):
    communicator, _ = await open_socket(player, campaign, hello=None)
    made = [await aroll(campaign, player) for _ in range(3)]
    await communicator.send_json_to({"type": "hello", "last_seq": 0})
    replayed = await frames_until_ready(communicator)
    assert [frame["seq"] for frame in replayed] == [entry.seq for entry in made]
    later = await aroll(campaign, player)
    (frame,) = await entries(communicator, 1)
    assert frame["seq"] == later.seq
    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()


async def test_a_dropped_broadcast_is_filled_from_the_database(campaign, player, monkeypatch):
    communicator, _ = await open_socket(player, campaign)
    real_entry_created = realtime.entry_created
    monkeypatch.setattr(realtime, "entry_created", lambda entry: None)  # the layer "loses" this one
    lost = await aroll(campaign, player)
    monkeypatch.setattr(realtime, "entry_created", real_entry_created)
    heard = await aroll(campaign, player)
    frames = await entries(communicator, 2)
    assert [frame["seq"] for frame in frames] == [lost.seq, heard.seq]
    assert await communicator.receive_nothing(timeout=0.2)
    await communicator.disconnect()


# -- rolls and chat over the socket -----------------------------------------------------------------


async def test_roll_over_the_socket_is_saved_once_per_key(campaign, player, gm):
    gm_socket, _ = await open_socket(gm, campaign)
    communicator, _ = await open_socket(player, campaign)
    for _ in range(2):
        await communicator.send_json_to({"type": "roll", "notation": "3d6", "key": "k-0123456789"})
        reply = await communicator.receive_json_from(timeout=5)
        if reply["type"] == "entry":  # the broadcast may overtake the answer
            reply, _ = await communicator.receive_json_from(timeout=5), reply
        assert reply["type"] == "ok" and reply["action"] == "roll"
    assert await sync_to_async(FeedEntry.objects.count)() == 1
    (frame,) = await entries(gm_socket, 1)
    assert frame["seq"] == reply["seq"]
    await communicator.disconnect()
    await gm_socket.disconnect()


async def test_bad_notation_over_the_socket_answers_with_the_position_and_saves_nothing(campaign, player):
    communicator, _ = await open_socket(player, campaign)
    await communicator.send_json_to({"type": "roll", "notation": "2d6+x"})
    reply = await communicator.receive_json_from(timeout=5)
    assert reply["type"] == "error" and "position 5" in reply["message"]
    assert await sync_to_async(FeedEntry.objects.count)() == 0
    await communicator.disconnect()


async def test_rolls_and_chat_are_rate_limited_with_a_clear_message(campaign, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (2, 60), "chat": (1, 60)}
    communicator, _ = await open_socket(player, campaign)
    answers = []
    for message in (
        {"type": "roll", "notation": "d6"},
        {"type": "roll", "notation": "d6"},
        {"type": "roll", "notation": "d6"},
        {"type": "chat", "text": "hello"},
        {"type": "chat", "text": "hello again"},
    ):
        await communicator.send_json_to(message)
        while True:
            reply = await communicator.receive_json_from(timeout=5)
            if reply["type"] in ("ok", "error"):
                answers.append(reply)
                break
    assert [a["type"] for a in answers] == ["ok", "ok", "error", "ok", "error"]
    assert "at most 2 rolls every 60 seconds" in answers[2]["message"]
    assert "at most 1 messages every 60 seconds" in answers[4]["message"]
    await communicator.disconnect()


# -- refusals that close only the offender ----------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ('{"type": "feed.entry", "seq": 1, "visibility": "public", "author_id": 1, "frames": {}}', 4400),
        ('{"type": "websocket.disconnect", "code": 1000}', 4400),
        ('{"type": "member.removed", "user_id": 1}', 4400),
        ('{"type": "hello", "last_seq": "all"}', 4400),
        ("not json", 4400),
        ("[1, 2]", 4400),
        ('{"type": "chat", "text": "' + "x" * 5000 + '"}', 1009),
    ],
)
async def test_forged_or_oversized_frames_close_only_that_client(campaign, gm, player, frame, code):
    bystander, _ = await open_socket(gm, campaign)
    offender, _ = await open_socket(player, campaign)
    await offender.send_to(text_data=frame)
    assert await close_code(offender) == code
    entry = await aroll(campaign, gm)
    (heard,) = await entries(bystander, 1)
    assert heard["seq"] == entry.seq
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
    assert heard["seq"] == entry.seq
    await staying.disconnect()


async def test_ping_is_answered(campaign, player):
    communicator, _ = await open_socket(player, campaign)
    await communicator.send_json_to({"type": "ping"})
    assert await communicator.receive_json_from(timeout=5) == {"type": "pong"}
    await communicator.disconnect()


async def test_a_sheet_change_asks_only_the_gm_page_to_refresh_its_party_panel(campaign, gm, player):
    from channels.layers import get_channel_layer

    gm_socket, _ = await open_socket(gm, campaign)
    player_socket, _ = await open_socket(player, campaign)
    layer = get_channel_layer()
    await layer.group_send(
        realtime.table_group(campaign.pk), {"type": "panel.changed", "panel": "party", "gm_only": True}
    )
    assert await gm_socket.receive_json_from(timeout=5) == {"type": "refresh", "panel": "party"}
    assert await player_socket.receive_nothing(timeout=0.2)
    await gm_socket.disconnect()
    await player_socket.disconnect()


async def test_an_unknown_group_event_is_ignored_not_fatal(campaign, player, gm):
    from channels.layers import get_channel_layer

    communicator, _ = await open_socket(player, campaign)
    await get_channel_layer().group_send(realtime.table_group(campaign.pk), {"type": "something.new"})
    entry = await aroll(campaign, gm)
    (frame,) = await entries(communicator, 1)
    assert frame["seq"] == entry.seq
    await communicator.disconnect()
