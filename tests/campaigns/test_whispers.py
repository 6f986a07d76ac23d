"""Whispers: "/w player ..." in chat or the dice box reaches the named, the author and the GM only.

Checked where a secret could slip out: the feed queries, the table page, the older entries, the
socket's catch-up and its live frames (raw bodies and raw frames, not rendered text), and the chain.
"""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaigns import chain, realtime, selectors, services
from campaigns.entry_html import render_entry
from campaigns.models import WHISPER, FeedEntry, Membership, WhisperRecipient
from rules.dice import FixedFaces, Roller
from tests.campaigns.test_consumers import apost_chat, entries, open_socket
from tests.conftest import FRAME_WAIT, HTMX, hears_nothing_more

SECRET = "the-vault-code-is-7391"


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache  # the rate limit counts in the cache, which outlives a test

    cache.clear()


@pytest.fixture
def carol(make_user):
    """A third player at the table, beside conftest's ``player`` and ``other_player`` ("other")."""
    return make_user("carol")


@pytest.fixture
def table(make_campaign, player, other_player, carol):
    return make_campaign("triad", players=[player, other_player, carol])


def say(campaign, author, text, *faces, key=None):
    entry, _ = services.chat_line_create(
        campaign=campaign, author=author, text=text, idempotency_key=key, roller=Roller(FixedFaces(faces))
    )
    return entry


def roll(campaign, author, notation_text, *faces, **kwargs):
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=author,
        notation_text=notation_text,
        roller=Roller(FixedFaces(faces or (3,))),
        **kwargs,
    )
    return entry


def seen_by(user, campaign):
    entries_shown, _ = selectors.feed_for_viewer(user, campaign)
    return entries_shown


# -- who sees a whisper -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_whisper_reaches_the_named_the_author_and_the_gm_and_nobody_else(
    table, gm, player, other_player, carol
):
    whisper = say(table, player, f"/w other {SECRET}")
    assert whisper.visibility == WHISPER and whisper.label == SECRET
    assert [user.username for user in FeedEntry.objects.get(pk=whisper.pk).whisper_to] == ["other"]
    for viewer in (player, other_player, gm):
        assert [entry.pk for entry in seen_by(viewer, table)] == [whisper.pk], viewer
    assert seen_by(carol, table) == []


@pytest.mark.django_db
def test_names_are_read_in_any_case_with_commas_and_the_gm_can_be_named(
    table, gm, player, other_player, carol
):
    whisper = say(table, player, f"/w OTHER, Gm {SECRET}")
    assert sorted(user.username for user in whisper.whisper_to) == ["gm", "other"]
    assert [entry.pk for entry in seen_by(other_player, table)] == [whisper.pk]
    assert seen_by(carol, table) == []
    two = say(table, carol, "/w player,other hi")
    assert sorted(user.username for user in two.whisper_to) == ["other", "player"]
    assert [entry.pk for entry in seen_by(gm, table)] == [two.pk, whisper.pk]


@pytest.mark.django_db
def test_the_gm_whispers_to_one_player(table, gm, player, other_player):
    whisper = say(table, gm, "/w player a note for you")
    assert [entry.pk for entry in seen_by(player, table)] == [whisper.pk]
    assert seen_by(other_player, table) == []


@pytest.mark.django_db
def test_an_inline_roll_in_a_whisper_is_as_private_as_the_whisper(table, gm, player, other_player, carol):
    line = say(table, player, "/w other I pick the lock [[1d20+5]] quietly", 14)
    rolled = FeedEntry.objects.get(campaign=table, kind="roll")
    assert rolled.visibility == WHISPER and rolled.result["total"] == 19
    assert [user.username for user in rolled.whisper_to] == ["other"]
    assert [entry.pk for entry in seen_by(other_player, table)] == [line.pk, rolled.pk]
    assert seen_by(carol, table) == []
    html = render_entry(FeedEntry.objects.get(pk=line.pk), selectors.FULL)
    assert f'href="#entry-{rolled.cursor}"' in html and ">19</a>" in html


@pytest.mark.django_db
def test_a_dice_box_roll_with_recipients_is_a_whisper(table, gm, player, other_player, carol):
    ticked = roll(table, player, "2d6", 2, 3, recipients=[carol])
    assert ticked.visibility == WHISPER and [user.username for user in ticked.whisper_to] == ["carol"]
    assert [entry.pk for entry in seen_by(carol, table)] == [ticked.pk]
    assert seen_by(other_player, table) == []


@pytest.mark.django_db
def test_a_whisper_is_marked_with_whom_it_is_for(table, player, other_player, carol):
    whisper = say(table, player, "/w other,carol psst")
    html = render_entry(FeedEntry.objects.get(pk=whisper.pk), selectors.FULL)
    assert "whisper</span>" in html
    assert re.search(r"to <bdi>carol</bdi>, <bdi>other</bdi>", html)


# -- what is refused --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("/w zed hello", "Nobody called “zed” sits at this table."),
        ("/w outsider hello", "Nobody called “outsider” sits at this table."),
        ("/w other,zed,yan hello", "Nobody called “zed” or “yan” sits at this table."),
        ("/w", "Name who to whisper to"),
        ("/w   ", "Name who to whisper to"),
        ("/w other", "Write something to whisper after the names"),
        ("/w player hello", "Name someone besides yourself to whisper to."),
        ("/w other [[2d6+]]", "In [[2d6+]]:"),
    ],
)
def test_a_bad_whisper_says_why_and_saves_nothing(table, player, outsider, text, message):
    with pytest.raises(services.CampaignError, match=re.escape(message)):
        say(table, player, text)
    assert FeedEntry.objects.count() == 0 and WhisperRecipient.objects.count() == 0


@pytest.mark.django_db
def test_names_differing_only_in_case_must_be_spelled_out(table, player, make_user):
    Membership.objects.create(campaign=table, user=make_user("Other"))
    with pytest.raises(services.CampaignError, match="“OTHER” could be Other or other"):
        say(table, player, "/w OTHER hi")
    assert [user.username for user in say(table, player, "/w Other hi").whisper_to] == ["Other"]


@pytest.mark.django_db
def test_a_dice_box_whisper_to_nobody_or_with_another_visibility_is_refused(table, player, other_player):
    with pytest.raises(services.CampaignError, match="Choose who to whisper to."):
        roll(table, player, "d20", visibility=WHISPER)
    with pytest.raises(services.CampaignError, match="choose Whisper"):
        roll(table, player, "d20", visibility="blind", recipients=[other_player])
    with pytest.raises(services.CampaignError, match="A whisper names who it is for"):
        services.feed_entry_create(
            campaign=table, author=player, label="x", visibility="public", recipients=[other_player]
        )
    assert FeedEntry.objects.count() == 0


# -- the chain ----------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_chain_covers_a_whispers_recipients(table, player, other_player, carol):
    roll(table, player, "d6", 2)
    whisper = say(table, player, "/w other psst")
    roll(table, other_player, "d6", 5)
    assert chain.verify(table) is None
    WhisperRecipient.objects.create(entry=whisper, user=carol)  # carol slipped into the whisper
    assert chain.verify(table) == whisper.seq
    WhisperRecipient.objects.filter(entry=whisper, user=carol).delete()
    assert chain.verify(table) is None
    WhisperRecipient.objects.filter(entry=whisper).delete()  # other taken out of it
    assert chain.verify(table) == whisper.seq


# -- raw pages: a non-recipient's table page, older entries, history --------------------------------


def _hidden_markers(*whispers):
    """Everything of a whisper that could give it away in a body: text, cursors, the marker."""
    markers = [SECRET, "whisper"]
    for entry in whispers:
        markers.append(entry.cursor)
    return markers


@pytest.mark.django_db
def test_a_non_recipients_pages_carry_nothing_of_a_whisper(
    table, gm, player, other_player, carol, client_for
):
    before = roll(table, player, "d6", 1)
    whisper = say(table, player, f"/w other [[1d20]] {SECRET}", 7)
    inline = FeedEntry.objects.get(campaign=table, kind="roll", visibility=WHISPER)
    after = roll(table, player, "d6", 2)
    carol_client = client_for(carol)
    page = carol_client.get(reverse("table", args=[table.pk])).content.decode()
    for marker in _hidden_markers(whisper, inline):
        # "whisper" may appear in the dice box's own controls, never in the feed.
        feed = page.split('id="feed"', 1)[1]
        assert marker not in feed, marker
    assert SECRET not in page and whisper.cursor not in page and inline.cursor not in page
    assert before.cursor in page and after.cursor in page
    older = carol_client.get(reverse("table_feed", args=[table.pk]), {"before": after.cursor}, **HTMX)
    body = older.content.decode()
    assert before.cursor in body
    for marker in _hidden_markers(whisper, inline):
        assert marker not in body, marker
    history = carol_client.get(reverse("table_feed", args=[table.pk])).content.decode()
    assert SECRET not in history and whisper.cursor not in history and inline.cursor not in history
    # Those it is for see it, marked.
    for user in (player, other_player, gm):
        body = client_for(user).get(reverse("table", args=[table.pk])).content.decode()
        assert SECRET in body and whisper.cursor in body and "to <bdi>other</bdi>" in body, user


# -- the dice box and the chat box over HTTP ----------------------------------------------------------


def _post_roll(client, campaign, **data):
    data = {"notation": "d20", "visibility": "public", "idempotency_key": "whisper-key-0001", **data}
    return client.post(reverse("table_roll", args=[campaign.pk]), data)


@pytest.mark.django_db
def test_the_dice_box_offers_the_others_at_the_table_to_tick(table, gm, player, client_for):
    page = client_for(player).get(reverse("table", args=[table.pk])).content.decode()
    boxes = re.findall(
        r'<input class="form-check-input" type="checkbox" name="whisper_to" value="(\d+)"', page
    )
    assert sorted(map(int, boxes)) == sorted(
        user.pk for user in selectors.table_users(table) if user != player
    )
    assert "<legend" in page and "Whisper to" in page


@pytest.mark.django_db
def test_a_gm_alone_at_the_table_is_offered_no_whisper(make_campaign, gm, client_for):
    lonely = make_campaign("triad")
    page = client_for(gm).get(reverse("table", args=[lonely.pk])).content.decode()
    assert '<option value="whisper"' not in page and "Whisper to" not in page
    assert '<option value="gm"' in page


@pytest.mark.django_db
def test_ticking_a_name_in_the_dice_box_whispers_the_roll(table, player, other_player, carol, client_for):
    response = _post_roll(client_for(player), table, whisper_to=[other_player.pk])
    assert response.status_code == 302
    entry = FeedEntry.objects.get()
    assert entry.visibility == WHISPER and [user.pk for user in entry.whisper_to] == [other_player.pk]
    assert seen_by(carol, table) == []


@pytest.mark.django_db
def test_w_in_the_dice_box_whispers_to_its_names_alone_whatever_is_ticked(
    table, player, other_player, carol, gm, client_for
):
    response = _post_roll(
        client_for(player), table, notation="/W Other 1d20+5", visibility="gm", whisper_to=[carol.pk]
    )
    assert response.status_code == 302
    entry = FeedEntry.objects.get()
    assert entry.visibility == WHISPER and entry.label == "1d20+5" and entry.request["notation"] == "1d20+5"
    assert [user.username for user in entry.whisper_to] == ["other"]
    assert seen_by(gm, table) == [entry] and seen_by(carol, table) == []


@pytest.mark.django_db
def test_after_a_whispered_roll_the_dice_box_keeps_the_names_ticked(table, player, other_player, client_for):
    response = client_for(player).post(
        reverse("table_roll", args=[table.pk]),
        {
            "notation": "d20",
            "visibility": "public",
            "whisper_to": [other_player.pk],
            "idempotency_key": "whisper-key-2",
        },
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert f'value="{other_player.pk}" id="id_whisper_to_' in body
    assert re.search(rf'value="{other_player.pk}" id="[^"]+" checked', body)
    assert re.search(r'<option value="whisper" selected>', body)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "message", "field"),
    [
        ({"notation": "/w zed 1d20"}, "Nobody called “zed” sits at this table.", "notation"),
        ({"notation": "/w 1d20"}, "Nobody called “1d20” sits at this table.", "notation"),
        ({"notation": "/w"}, "Name who to whisper to", "notation"),
        ({"visibility": "whisper"}, "Choose who to whisper to.", "whisper"),
        ({"whisper_to": ["999999"]}, "Tick only people seated at this table.", "whisper"),
    ],
)
def test_a_bad_whisper_in_the_dice_box_is_refused_on_its_field(
    table, player, client_for, data, message, field
):
    response = _post_roll(client_for(player), table, **data)
    body = response.content.decode()
    assert response.status_code == 400
    assert FeedEntry.objects.count() == 0
    error_id = "notation-field-error" if field == "notation" else "whisper-error"
    assert re.search(rf'id="{error_id}" role="alert">[^<]*{re.escape(message)}', body), body[-3000:]
    typed = data.get("notation", "d20")
    assert f'name="notation" id="id_notation"\n               value="{typed}"' in body  # kept as typed


@pytest.mark.django_db
def test_an_outsiders_id_ticked_is_refused(table, player, outsider, client_for):
    response = _post_roll(client_for(player), table, whisper_to=[outsider.pk])
    assert (
        response.status_code == 400 and "Tick only people seated at this table." in response.content.decode()
    )
    assert FeedEntry.objects.count() == 0


@pytest.mark.django_db
def test_a_bad_whisper_in_the_chat_box_keeps_the_line_and_says_why(table, player, client_for):
    response = client_for(player).post(
        reverse("table_chat", args=[table.pk]),
        {"text": "/w zed meet me", "idempotency_key": "whisper-chat-1"},
    )
    body = response.content.decode()
    assert response.status_code == 400 and FeedEntry.objects.count() == 0
    assert 'id="chat-error" role="alert">Nobody called “zed” sits at this table.' in body
    assert 'value="/w zed meet me"' in body


@pytest.mark.django_db
def test_the_odds_picture_reads_the_dice_after_the_names(table, player, client_for):
    body = (
        client_for(player).get(reverse("table_odds", args=[table.pk]), {"notation": "/w other 2d6"}).content
    )
    assert b"notation-error" not in body and b"2d6" in body


# -- the socket: live frames and catch-up -----------------------------------------------------------

asay = sync_to_async(say)
aroll = sync_to_async(roll)


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_third_members_socket_hears_nothing_of_a_whisper(table, gm, player, other_player, carol):
    sockets = {}
    for user in (gm, player, other_player, carol):
        sockets[user.username], _ = await open_socket(user, table)
    whisper = await asay(table, player, f"/w other [[1d20+2]] {SECRET}", 9)
    for name in ("gm", "player", "other"):
        frames = await entries(sockets[name], 2)  # the inline roll, then the line
        assert SECRET in frames[1]["html"] and "to <bdi>other</bdi>" in frames[1]["html"], name
        assert frames[1]["cursor"] == whisper.cursor
    assert await hears_nothing_more(table.pk, sockets["carol"])
    # The next public entry comes through to carol alone, with nothing before it and no reload.
    public = await aroll(table, other_player, "d6", 4)
    raw = await sockets["carol"].receive_output(timeout=FRAME_WAIT)
    frame = json.loads(raw["text"])
    assert frame["type"] == "entry" and frame["cursor"] == public.cursor
    assert SECRET not in raw["text"] and whisper.cursor not in raw["text"]
    assert await hears_nothing_more(table.pk, sockets["carol"])
    for socket in sockets.values():
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_catch_up_gives_a_non_recipient_nothing_of_a_whisper(table, player, other_player, carol):
    first = await aroll(table, player, "d6", 1)
    whisper = await asay(table, player, f"/w other {SECRET}")
    last = await aroll(table, player, "d6", 2)
    carol_socket, replayed = await open_socket(carol, table, hello=first)
    assert [frame["cursor"] for frame in replayed] == [last.cursor]
    assert all(SECRET not in json.dumps(frame) for frame in replayed)
    other_socket, other_replayed = await open_socket(other_player, table, hello=first)
    assert [frame["cursor"] for frame in other_replayed] == [whisper.cursor, last.cursor]
    await carol_socket.disconnect()
    await other_socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_whispers_reach_the_sockets_of_their_audience_and_a_recipients_other_table_hears_nothing(
    table, make_campaign, gm, player, other_player, carol
):
    elsewhere = await sync_to_async(make_campaign)("triad", players=[other_player], name="Elsewhere")
    other_elsewhere, _ = await open_socket(other_player, elsewhere)
    other_here, _ = await open_socket(other_player, table)
    carol_socket, _ = await open_socket(carol, table)
    player_socket, _ = await open_socket(player, table)
    said = await apost_chat(player, table, "/w other over the wire", key="whisper-sock-1")  # the chat box
    assert said.status_code == 200
    (player_frame,) = await entries(player_socket, 1)
    assert "over the wire" in player_frame["html"]
    await aroll(table, player, "d20", 11, recipients=[other_player])
    other_frames = await entries(other_here, 2)
    assert "over the wire" in other_frames[0]["html"] and "d20" in other_frames[1]["html"]
    assert (await entries(player_socket, 1))[0]["cursor"] == other_frames[1]["cursor"]
    assert await hears_nothing_more(table.pk, carol_socket)
    assert await hears_nothing_more(elsewhere.pk, other_elsewhere)
    refused = await apost_chat(player, table, "/w zed hi", key="whisper-sock-3")
    assert "Nobody called “zed” sits at this table." in refused.content.decode()
    assert await hears_nothing_more(elsewhere.pk, other_elsewhere)
    assert await hears_nothing_more(table.pk, other_here, carol_socket, player_socket)
    for socket in (other_elsewhere, other_here, carol_socket, player_socket):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_whisper_is_broadcast_only_to_its_audiences_groups(table, gm, player, other_player, carol):
    with realtime.collected_broadcasts() as sent:
        say(table, player, f"/w other {SECRET}")
    groups = {group: event for group, event in sent}
    audience = sorted([gm.pk, player.pk, other_player.pk])
    assert set(groups) == {realtime.table_group(table.pk), *(realtime.user_group(pk) for pk in audience)}
    table_event = groups[realtime.table_group(table.pk)]
    assert table_event["type"] == "feed.hidden" and table_event["audience"] == audience
    assert SECRET not in json.dumps(table_event)
    assert realtime.user_group(carol.pk) not in groups
