"""Live and private: opaque feed cursors, sheet-change events, and blind rolls answered as blind."""

import re

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.test import override_settings
from django.urls import reverse

from campaigns import cursors, realtime
from campaigns.models import FeedEntry
from sheets.registry import game_systems, system_for
from sheets.services import character_change
from tests.campaigns.test_consumers import (
    apost_chat,
    aroll,
    close_code,
    entries,
    frames_until_ready,
    open_socket,
    roll,
)
from tests.conftest import FRAME_WAIT, frames_before_barrier, hears_nothing_more, wire

SYSTEMS = [config.label for config in game_systems()]


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache

    cache.clear()


# -- the cursor itself ------------------------------------------------------------------------------


def test_a_cursor_turns_back_into_its_seq_and_hides_order_and_distance():
    made = [cursors.cursor_for(7, seq) for seq in range(1, 201)]
    assert [cursors.seq_for(7, cursor) for cursor in made] == list(range(1, 201))
    assert len(set(made)) == 200 and all(re.fullmatch(r"[0-9a-f]{16}", c) for c in made)
    # Neither sorted nor evenly spaced: neighbours in seq are not neighbours in cursor.
    assert made != sorted(made)
    assert len({int(b, 16) - int(a, 16) for a, b in zip(made, made[1:], strict=False)}) == 199
    # Another campaign, or another secret, gives other cursors for the same seq.
    assert cursors.cursor_for(8, 5) != cursors.cursor_for(7, 5)
    with override_settings(SECRET_KEY="another-secret-for-this-test-only-0123456789"):
        assert cursors.cursor_for(7, 5) != made[4]


@pytest.mark.parametrize(
    "bad", [None, 5, "", "0" * 15, "0" * 17, "ABCDEF0123456789", " 123456789abcdef", "-" * 16]
)
def test_anything_but_a_cursor_is_refused(bad):
    assert cursors.seq_for(1, bad) is None


# -- what a player's socket and pages carry ----------------------------------------------------------

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.asyncio
async def test_a_players_frames_carry_no_counter_of_hidden_entries(campaign, gm, player):
    player_socket, _ = await open_socket(player, campaign)
    await player_socket.send_json_to({"type": "ping"})
    assert await player_socket.receive_json_from(timeout=FRAME_WAIT) == {"type": "pong"}
    await aroll(campaign, player)
    await aroll(campaign, gm, visibility="gm")
    await aroll(campaign, gm, visibility="blind")
    await aroll(campaign, player)
    frames = await entries(player_socket, 2)
    assert (await apost_chat(player, campaign, "Ready")).status_code == 200  # the chat box's POST
    said = await entries(player_socket, 1)
    await player_socket.send_json_to({"type": "ping"})
    pong = await player_socket.receive_json_from(timeout=FRAME_WAIT)
    for frame in [*frames, *said, pong]:
        assert "seq" not in frame, frame
        html = frame.get("html", "")
        assert "data-seq" not in html and not re.search(r'id="entry-\d{1,15}"', html), frame
    assert cursors.seq_for(campaign.pk, said[0]["cursor"]) == 5
    assert pong == {"type": "pong"}
    await player_socket.disconnect()


@pytest.mark.asyncio
async def test_hello_with_a_cursor_replays_only_what_came_after_it(campaign, gm, player):
    first = await aroll(campaign, player)
    await aroll(campaign, gm, visibility="gm")
    after = await aroll(campaign, player)
    communicator, replayed = await open_socket(player, campaign, hello=first)
    assert [frame["cursor"] for frame in replayed] == [after.cursor]
    await communicator.disconnect()


@pytest.mark.asyncio
async def test_a_cursor_from_nowhere_makes_the_page_reload_and_a_malformed_one_closes(campaign, player):
    await aroll(campaign, player)
    communicator, _ = await open_socket(player, campaign, hello=None)
    foreign = cursors.cursor_for(campaign.pk + 1000, 1)  # a cursor of no seq this campaign has yet
    await communicator.send_json_to({"type": "hello", "cursor": foreign})
    assert await frames_until_ready(communicator) == [{"type": "reload"}]
    await communicator.disconnect()
    communicator, _ = await open_socket(player, campaign, hello=None)
    await communicator.send_json_to({"type": "hello", "cursor": "1"})
    assert await close_code(communicator) == 4400


@pytest.mark.asyncio
async def test_a_page_without_a_feed_hears_panels_but_no_entries(campaign, gm, player):
    await aroll(campaign, player)
    sheet_page, replayed = await open_socket(player, campaign, feed=False)
    assert replayed == []
    await aroll(campaign, player)
    await aroll(campaign, gm)
    assert await hears_nothing_more(campaign.pk, sheet_page)
    await get_channel_layer().group_send(
        realtime.table_group(campaign.pk), {"type": "panel.changed", "panel": "requests", "gm_only": False}
    )
    assert await sheet_page.receive_json_from(timeout=FRAME_WAIT) == {"type": "refresh", "panel": "requests"}
    await sheet_page.send_json_to({"type": "ping"})
    assert await sheet_page.receive_json_from(timeout=FRAME_WAIT) == {"type": "pong"}
    await sheet_page.disconnect()


def test_the_table_page_and_its_older_pages_carry_cursors_not_seqs(
    campaign, gm, player, client_for, settings
):
    settings.TABLE_RATE_LIMITS = {"roll": (100, 60), "chat": (100, 60)}
    for number in range(35):
        roll(campaign, gm if number % 3 else player, visibility="gm" if number % 3 else "public")
    page = client_for(player).get(reverse("table", args=[campaign.pk])).content.decode()
    mine = list(FeedEntry.objects.filter(author=player).order_by("-seq"))
    assert f'data-cursor="{mine[0].cursor}"' in page
    assert "data-seq" not in page and "data-last-seq" not in page
    assert all(re.fullmatch(r"[0-9a-f]{16}", i) for i in re.findall(r'id="entry-([^"]*)"', page))
    gm_page = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    older = re.search(r"before=([0-9a-f]{16})", gm_page).group(1)
    assert cursors.seq_for(campaign.pk, older) == 6  # the GM's page of 30 ends at seq 6
    rest = client_for(gm).get(reverse("table_feed", args=[campaign.pk]), {"before": older}).content.decode()
    assert rest.count('class="feed-entry') == 5
    # An unreadable marker is the newest page, not an error.
    newest = client_for(gm).get(reverse("table_feed", args=[campaign.pk]), {"before": "12"})
    assert newest.status_code == 200


# -- sheet changes reach the sheet's open pages -------------------------------------------------------


@pytest.mark.asyncio
async def test_a_sheet_change_tells_its_open_pages_and_an_npc_change_only_the_gm(demo_character, gm):
    character = await sync_to_async(demo_character)("triad")
    campaign = await sync_to_async(lambda: character.campaign)()
    player = await sync_to_async(lambda: character.owner)()
    gm_page, _ = await open_socket(gm, campaign, feed=False)
    player_page, _ = await open_socket(player, campaign, feed=False)

    def hurt(target):
        with character_change(character=target, author=gm, reason="GM edit") as record:
            target.notes = "changed by the GM"
            target.save(update_fields=["notes"])
        return record

    await sync_to_async(hurt)(character)
    heard = [await player_page.receive_json_from(timeout=FRAME_WAIT)]
    assert heard == [{"type": "refresh", "panel": f"sheet:{character.pk}"}]
    gm_heard = {(await gm_page.receive_json_from(timeout=FRAME_WAIT))["panel"] for _ in range(2)}
    assert gm_heard == {"party", f"sheet:{character.pk}"}

    npc = await sync_to_async(lambda: campaign.characters.filter(is_npc=True).first())()
    if npc is not None:
        await sync_to_async(hurt)(npc)
        gm_heard = {(await gm_page.receive_json_from(timeout=FRAME_WAIT))["panel"] for _ in range(2)}
        assert gm_heard == {"party", f"sheet:{npc.pk}"}
        assert await hears_nothing_more(campaign.pk, player_page)
    await gm_page.disconnect()
    await player_page.disconnect()


def test_someone_elses_sheet_carries_no_version_counter(demo_character, other_player, client_for):
    character = demo_character("triad")
    own = client_for(character.owner).get(character.get_absolute_url()).content.decode()
    theirs = client_for(other_player).get(character.get_absolute_url()).content.decode()
    assert 'id="sheet-version"' in own
    assert 'id="sheet-version"' not in theirs
    for page in (own, theirs):
        assert f'data-live-panel="sheet:{character.pk}"' in page and "data-last-seq" not in page


# -- a blind roll from a sheet shows its roller nothing but that it was made -------------------------


def _first_button(character):
    system = system_for(character.campaign)
    form = system.options_form(character=character)
    defaults = {name: field.initial for name, field in form.fields.items()}
    return system.buttons(character, defaults)[0].key


HIDDEN_MARKS = ('class="die', "feed-total", "feed-outcome", "data-outcome", "feed-change", "feed-summary")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_blind_sheet_roll_answers_the_player_with_the_notice_only(system, demo_character, client_for, gm):
    character = demo_character(system)
    key = _first_button(character)
    url = reverse("sheet_roll", args=[character.pk, key])
    response = client_for(character.owner).post(url, {"visibility": "blind"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200, response.content
    body = response.content.decode()
    assert "A blind roll was made" in body
    for mark in HIDDEN_MARKS:
        assert mark not in body, (system, mark)
    entry = FeedEntry.objects.get(campaign=character.campaign)
    assert entry.visibility == "blind"
    assert entry.summary not in body and f'entry-{entry.seq}"' not in body
    # The GM rolling blind for the same sheet is the GM: the result is theirs to see.
    response = client_for(gm).post(url, {"visibility": "blind"}, HTTP_HX_REQUEST="true")
    assert "A blind roll was made" not in response.content.decode()
    assert "feed-outcome" in response.content.decode() or "feed-body" in response.content.decode()


@pytest.mark.parametrize("visibility", ["public", "gm"])
def test_other_sheet_rolls_still_show_the_roller_the_result(visibility, demo_character, client_for):
    character = demo_character("triad")
    url = reverse("sheet_roll", args=[character.pk, _first_button(character)])
    body = client_for(character.owner).post(url, {"visibility": visibility}, HTTP_HX_REQUEST="true")
    assert "feed-outcome" in body.content.decode()


# -- roll requests: blind and GM-only mean what they say -------------------------------------------


def _ask(client, campaign, characters, visibility):
    data = {
        "label": "Spot the ambush",
        "characters": [c.pk for c in characters],
        "roll_key": "ability:mind",
        "visibility": visibility,
        "difficulty": 14,
        "advantages": 0,
        "disadvantages": 0,
    }
    return client.post(reverse("requests_gm", args=[campaign.pk]), data, HTTP_HX_REQUEST="true")


@pytest.mark.parametrize("visibility", ["blind", "gm"])
def test_a_request_answer_reaches_whom_its_visibility_says(
    visibility, demo_character, gm, other_player, client_for
):
    from play.models import RollRequestTarget

    character = demo_character("triad")
    campaign = character.campaign
    assert _ask(client_for(gm), campaign, [character], visibility).status_code == 200
    target = RollRequestTarget.objects.get(character=character)
    answer = client_for(character.owner).post(
        reverse("sheet_request_roll", args=[character.pk, target.pk]),
        {"key": "ability:mind"},
        HTTP_HX_REQUEST="true",
    )
    body = answer.content.decode()
    entry = FeedEntry.objects.get(campaign=campaign)
    if visibility == "blind":
        assert "A blind roll was made" in body
        for mark in HIDDEN_MARKS:
            assert mark not in body, mark
    else:
        assert "feed-outcome" in body  # GM only: the roller and the GM
    # The other player learns nothing: not on the table page, not on the sheet they may look at.
    for url in (reverse("table", args=[campaign.pk]), character.get_absolute_url()):
        page = client_for(other_player).get(url).content.decode()
        assert entry.cursor not in page and "Spot the ambush" not in page and entry.summary not in page
    gm_panel = client_for(gm).get(reverse("requests_gm", args=[campaign.pk]), HTTP_HX_REQUEST="true")
    assert entry.summary in gm_panel.content.decode()


def test_a_request_cannot_ask_for_an_answer_only_the_player_sees(demo_character, gm, client_for):
    character = demo_character("triad")
    response = _ask(client_for(gm), character.campaign, [character], "self")
    assert (
        response.status_code == 422
        and "Choose who may see this roll from the list." in response.content.decode()
    )


# -- a sheet's recent rolls refresh live, for the viewers who may see the entry ------------------------


@pytest.mark.asyncio
async def test_an_entry_made_as_a_character_refreshes_its_recent_rolls_only_for_who_may_see_it(
    demo_character, gm, player, other_player, outsider
):
    character = await sync_to_async(demo_character)("triad")
    campaign = await sync_to_async(lambda: character.campaign)()
    sheets = {user: (await open_socket(user, campaign, feed=False))[0] for user in (gm, player, other_player)}

    async def heard(entry, *users):
        # The frame names the entry by the cursor its viewers' feeds show, so a page already showing
        # it fetches nothing (static/js/table.js showsEntries); no one else hears of it at all.
        refresh = {"type": "refresh", "panel": f"recent:{character.pk}", "entry": entry.cursor}
        frames = await frames_before_barrier(campaign.pk, *sheets.values())
        for user, got in zip(sheets, frames, strict=True):
            assert got == ([refresh] if user in users else []), user.username

    secret = await aroll(campaign, gm, "1d1000", "gm", faces=(987,), character=character)
    await heard(secret, gm)  # GM only: the roller (the GM) alone; the character's own player hears nothing
    mine = await aroll(campaign, player, "1d20", "self", faces=(17,), character=character)
    await heard(mine, player)
    public = await aroll(campaign, gm, "2d6", "public", character=character)
    await heard(public, gm, player, other_player)
    nobodys = await aroll(campaign, player, "2d6", "public")  # made as nobody: no sheet's panel moves
    await heard(nobodys)
    whisper = await aroll(campaign, gm, "1d6", faces=(1,), recipients=[player], character=character)
    await heard(whisper, gm, player)  # a whisper to the character's player: its audience alone

    # What each viewer then fetches is filtered for them (the raw body, not the rendered page).
    url = reverse("sheet_recent", args=[character.pk])
    # Each line's cursor (data-entry) set aside: 16 hex digits may hold "1d6" by chance (conftest.wire).
    bodies = {
        user: wire((await sync_to_async(lambda user=user: client_of(user).get(url))()).content.decode())
        for user in (gm, player, other_player)
    }
    assert public.label in bodies[other_player]
    for hidden in (secret, mine, whisper):
        assert hidden.label not in bodies[other_player], hidden.label
    assert "= 987" in bodies[gm] and whisper.label in bodies[gm] and mine.label not in bodies[gm]
    assert mine.label in bodies[player] and secret.label not in bodies[player]
    outsider_answer = await sync_to_async(lambda: client_of(outsider).get(url))()
    assert outsider_answer.status_code == 404
    for socket in sheets.values():
        await socket.disconnect()


def client_of(user):
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client
