"""The dice box's and the chat box's slash commands (campaigns/commands.py), as Roll20 and Foundry read them.

Each command's meaning is checked where it matters: the raw frames each seat's socket receives (who gets
the content, who a notice, who nothing) and the group events the table's sockets count (``feed.hidden``).
"""

import json
import re
import uuid

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from campaigns import commands, realtime
from campaigns.models import WHISPER, FeedEntry, Visibility, WhisperRecipient
from sheets.models import Character
from tests.campaigns.test_consumers import open_socket
from tests.conftest import HTMX, frames_before_barrier

MARK = "mark-4417"


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.fixture
def carol(make_user):
    return make_user("carol")


@pytest.fixture
def table(make_campaign, player, other_player, carol):
    table = make_campaign("triad", players=[player, other_player, carol])
    Character.objects.create(campaign=table, owner=carol, name="Kara Voss")
    Character.objects.create(campaign=table, owner=player, name="Bram")
    return table


def box(user, campaign, notation, visibility="public", **data):
    """The dice box's htmx POST, as the page sends it; the response."""
    client = Client()
    client.force_login(user)
    data = {"notation": notation, "visibility": visibility, "idempotency_key": uuid.uuid4().hex, **data}
    return client.post(reverse("table_roll", args=[campaign.pk]), data, **HTMX)


def chat(user, campaign, text):
    client = Client()
    client.force_login(user)
    data = {"text": text, "idempotency_key": uuid.uuid4().hex}
    return client.post(reverse("table_chat", args=[campaign.pk]), data, **HTMX)


def read(table, author, text, plain=commands.ROLL):
    return commands.read(text, plain=plain, campaign=table, author=author)


# -- reading a line --------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "action", "visibility"),
    [
        ("1d20+5 # attack", commands.ROLL, None),
        ("/r 1d20 # attack", commands.ROLL, None),
        ("/roll 1d20+2", commands.ROLL, None),
        ("/R 1d20", commands.ROLL, None),
        ("/pr 1d20", commands.ROLL, Visibility.PUBLIC),
        ("/gmroll 1d20", commands.ROLL, Visibility.GM),
        ("/gr 1d20", commands.ROLL, Visibility.GM),
        ("/broll 1d20", commands.ROLL, Visibility.BLIND),
        ("/br 1d20", commands.ROLL, Visibility.BLIND),
        ("/blindroll 1d20", commands.ROLL, Visibility.BLIND),
        ("/sr 1d20", commands.ROLL, Visibility.SELF),
        ("/selfroll 1d20", commands.ROLL, Visibility.SELF),
        ("/em draws her sword", commands.EMOTE, Visibility.PUBLIC),
        ("/me draws her sword", commands.EMOTE, Visibility.PUBLIC),
        ("/w other 1d20", commands.ROLL, WHISPER),
    ],
)
def test_each_command_reads_as_an_action_and_a_visibility_for_its_line(
    table, player, text, action, visibility
):
    command = read(table, player, text)
    assert (command.action, command.visibility) == (action, visibility)
    assert not command.body.startswith("/")


@pytest.mark.django_db
def test_a_whisper_in_the_chat_box_carries_words_and_in_the_dice_box_dice(table, player):
    assert read(table, player, "/w other 1d20", plain=commands.SAY).action == commands.SAY
    assert read(table, player, "1d20", plain=commands.SAY) == commands.Command(
        action=commands.SAY, visibility=None, recipients=(), body="1d20"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "names", "body"),
    [
        ("/w other, we go at dawn", ["other"], "we go at dawn"),
        ("/w other, carol we go at dawn", ["carol", "other"], "we go at dawn"),
        ("/w other,carol, hello", ["carol", "other"], "hello"),
        ("/w OTHER , Carol hi", ["carol", "other"], "hi"),
        ('/w "Kara Voss" hide', ["carol"], "hide"),
        ("/w “kara voss”, other hide", ["carol", "other"], "hide"),
        ("/w gm the plan", ["gm"], "the plan"),
        ("/whisper other hi", ["other"], "hi"),
        ("/w other, player hi", ["other"], "hi"),  # the author is no recipient
    ],
)
def test_names_are_matched_whole_and_the_message_follows_them(table, player, text, names, body):
    command = read(table, player, text, plain=commands.SAY)
    assert [user.username for user in command.recipients] == names
    assert command.body == body and command.visibility == WHISPER


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("/wother 1d20", "There is no /wother command. Did you mean “/w other 1d20”, with a space?"),
        ("/r1d20", "Did you mean “/r 1d20”"),
        ("/gmroll1d20", "Did you mean “/gmroll 1d20”"),
        ("/foo 1d20", "There is no /foo command. Commands: /r, /gr (GM only)"),
        (
            "/w\u200bother 1d20",
            "The command /w\u200bother holds an invisible character (U+200B ZERO WIDTH SPACE)",
        ),
        ("\u200b/w other 1d20", "The start of the line holds an invisible character (U+200B"),
        ("\u2060/r 1d20", "(U+2060 WORD JOINER)"),
        ("/w oth\u200ber 1d20", "The name “oth\u200ber” holds an invisible character"),
        ("/w \u3164 1d20", "U+3164 HANGUL FILLER"),
        ("/w zed 1d20", "Nobody called “zed” sits at this table."),
        ("/w other,zed 1d20", "Nobody called “zed” sits at this table."),
        ("/w Kara Voss 1d20", "A name with spaces goes in quotes: /w “Kara Voss”"),
        ('/w "Kara Voss 1d20', "Close the quotes"),
        ("/w", "Name who to whisper to"),
        ("/w player 1d20", "Name someone besides yourself"),
        ("/w other", "Write the dice to roll after the names"),
        ("/r", "Write the dice to roll after /r"),
        ("/em   ", "Write what you do after /em"),
    ],
)
def test_a_near_miss_is_refused_with_a_hint(table, player, text, message):
    with pytest.raises(commands.CommandError, match=re.escape(message)):
        read(table, player, text)


@pytest.mark.django_db
def test_a_name_two_people_share_is_refused(table, player, other_player):
    Character.objects.create(campaign=table, owner=other_player, name="Kara Voss")
    with pytest.raises(commands.CommandError, match="More than one person at the table is called"):
        read(table, player, '/w "Kara Voss" 1d20')


@pytest.mark.django_db
def test_an_npc_or_an_outsiders_character_is_nobody_to_whisper_to(table, gm, player, outsider):
    Character.objects.create(campaign=table, owner=gm, name="Thug", is_npc=True)
    Character.objects.create(campaign=table, owner=outsider, name="Ghost")
    for name in ("Thug", "Ghost"):
        with pytest.raises(commands.CommandError, match=f"Nobody called “{name}”"):
            read(table, player, f"/w {name} 1d20")


# -- each command's audience, on the raw frames of every seat ---------------------------------------

# What each seat gets, in the order gm, player (the roller), other, carol: F the entry, N the blind
# roll's notice, - nothing at all.
SEATS = ("gm", "player", "other", "carol")


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("line", "chosen", "seen"),
    [
        (f"/r 1d20 # {MARK}", "public", "FFFF"),
        (f"/r 1d20 # {MARK}", "gm", "FF--"),  # /r rolls as the box's "Who sees it" says
        (f"/roll 1d20+2 # {MARK}", "public", "FFFF"),
        (f"/pr 1d20 # {MARK}", "self", "FFFF"),
        (f"/gmroll 1d20 # {MARK}", "public", "FF--"),
        (f"/gr 1d20 # {MARK}", "public", "FF--"),
        (f"/broll 1d20 # {MARK}", "public", "FN--"),
        (f"/sr 1d20 # {MARK}", "public", "-F--"),
        (f"/em waves {MARK}", "gm", "FFFF"),
        (f"/me waves {MARK}", "self", "FFFF"),
        (f"/w other 1d20 # {MARK}", "public", "FFF-"),
        (f'/w "Kara Voss" 1d20 # {MARK}', "gm", "FF-F"),
    ],
)
async def test_each_command_reaches_exactly_its_audience(
    table, gm, player, other_player, carol, line, chosen, seen
):
    users = (gm, player, other_player, carol)
    sockets = {user.username: (await open_socket(user, table))[0] for user in users}
    response = await sync_to_async(box)(player, table, line, chosen)
    assert response.status_code == 200 and "alert" not in response.content.decode()
    heard = await frames_before_barrier(table.pk, *(sockets[name] for name in SEATS))
    for name, gets, frames in zip(SEATS, seen, heard, strict=True):
        if gets == "-":
            assert frames == [], name
            continue
        (frame,) = frames
        # The frame as it went down the wire: the raw text, so an escaped mark would still be found.
        raw = json.dumps(frame, ensure_ascii=False)
        assert frame["type"] == "entry", name
        if gets == "F":
            assert MARK in raw, name
        else:
            assert MARK not in raw and "A blind roll was made" in frame["html"], name
    for socket in sockets.values():
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("line", "hidden_from"),
    [("/w other 1d20", ["carol"]), ('/w "Kara Voss", gm 1d20', ["other"]), ("/gr 1d20", [])],
)
def test_only_a_whisper_tells_the_table_a_hidden_seq(
    table, gm, player, other_player, carol, line, hidden_from
):
    with realtime.collected_broadcasts() as sent:
        assert box(player, table, line).status_code == 200
    events = {group: event for group, event in sent}
    table_event = events.pop(realtime.table_group(table.pk))
    users = {user.username: user for user in (gm, player, other_player, carol)}
    if not hidden_from:  # every other roll goes to the table's group; each socket asks entry_variant
        assert table_event["type"] == "feed.entry" and not events
        return
    audience = sorted(user.pk for name, user in users.items() if name not in hidden_from)
    assert table_event == {"type": "feed.hidden", "seq": table_event["seq"], "audience": audience}
    assert sorted(events) == sorted(realtime.user_group(pk) for pk in audience)


# -- the box's own choice comes back after a command ------------------------------------------------


def _box_choice(html: str) -> tuple[str, list[str]]:
    """What the returned dice box will send with the next line: its visibility and names ticked."""
    visibility = re.search(r'<option value="(\w+)" selected>', html)[1]
    ticked = re.findall(r'name="whisper_to" value="(\d+)" id="[^"]+" checked', html)
    return visibility, ticked


@pytest.mark.django_db
@pytest.mark.parametrize("line", ["/w other 1d6", "/w gm 1d20 # plan", "/gr 1d20", "/broll 1d20", "/em nods"])
def test_after_a_command_the_box_is_back_to_the_players_own_choice(table, player, other_player, line):
    html = box(player, table, line, "public").content.decode()
    visibility, ticked = _box_choice(html)
    assert (visibility, ticked) == ("public", [])
    box(player, table, "1d20", visibility, whisper_to=ticked)
    plain = FeedEntry.objects.filter(author=player).order_by("seq").last()
    assert plain.visibility == Visibility.PUBLIC and plain.label == "1d20"


@pytest.mark.django_db
def test_a_whisper_names_whom_it_says_once_the_issue_sequence(table, gm, player, other_player, carol):
    box(player, table, "/w other 1d6")
    box(player, table, "/w gm 1d20 # plan")
    plan = FeedEntry.objects.get(label="1d20")
    assert plan.visibility == WHISPER and [user.username for user in plan.whisper_to] == ["gm"]
    assert not WhisperRecipient.objects.filter(entry=plan, user=other_player).exists()


@pytest.mark.django_db
def test_a_box_whisper_by_ticks_keeps_its_ticks_and_a_command_line_leaves_them_alone(table, player, carol):
    html = box(player, table, "/gr 1d20", "public", whisper_to=[carol.pk]).content.decode()
    assert FeedEntry.objects.get().visibility == Visibility.GM
    visibility, ticked = _box_choice(html)
    assert ticked == [str(carol.pk)]
    box(player, table, "2d6", visibility, whisper_to=ticked)
    plain = FeedEntry.objects.get(label="2d6")
    assert plain.visibility == WHISPER and [user.username for user in plain.whisper_to] == ["carol"]


# -- refusals save nothing and say why on the box ---------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "line", ["/wother 1d20", "/w\u200bother 1d20", "\u200b/w other 1d20", "/w zed 1d20", "/x 1d20"]
)
def test_a_near_miss_in_the_dice_box_is_refused_on_the_box(table, player, line):
    response = box(player, table, line)
    body = response.content.decode()
    assert FeedEntry.objects.count() == 0
    assert re.search(r'id="notation-field-error" role="alert">[^<]*(command|character|Nobody)', body)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text", ["/wother we go at dawn", "/w\u200bother we go at dawn", "\u200b/w other hi", "/w we go at dawn"]
)
def test_a_near_miss_in_the_chat_box_is_never_said_aloud(table, player, text):
    body = chat(player, table, text).content.decode()
    assert FeedEntry.objects.count() == 0
    assert 'id="chat-error" role="alert">' in body


@pytest.mark.django_db
def test_the_chat_box_takes_the_same_commands(table, player, other_player):
    chat(player, table, "/w other, we go at dawn")
    chat(player, table, "/gr 1d20 # the chat box rolls too")
    chat(player, table, "/me nods [[1d6]]")
    whisper, roll, inline, emote = FeedEntry.objects.order_by("seq")
    assert whisper.label == "we go at dawn" and [u.username for u in whisper.whisper_to] == ["other"]
    assert roll.kind == "roll" and roll.visibility == Visibility.GM
    assert inline.kind == "roll" and emote.kind == "chat" and emote.request["emote"] is True


@pytest.mark.django_db
def test_an_emote_from_the_dice_box_is_made_as_the_chosen_character(table, player, client_for):
    bram = Character.objects.get(name="Bram")
    box(player, table, "/em draws her sword", character=bram.pk)
    emote = FeedEntry.objects.get()
    assert emote.kind == "chat" and emote.label == "draws her sword" and emote.character_name == "Bram"
    page = client_for(player).get(reverse("table", args=[table.pk])).content.decode()
    assert re.search(r"feed-emote[^>]*><bdi>Bram</bdi> draws her sword", page)


# -- the preview ------------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("line", ["/r 2d6", "/roll 2d6", "/gr 2d6", "/broll 2d6", "/sr 2d6", "/w other 2d6"])
def test_the_preview_of_a_command_is_the_preview_of_its_dice(table, player, client_for, line):
    odds = reverse("table_odds", args=[table.pk])
    client = client_for(player)
    plain = client.get(odds, {"notation": "2d6"}).content
    assert b"<svg" in plain
    assert client.get(odds, {"notation": line}).content == plain


@pytest.mark.django_db
def test_the_preview_says_what_is_wrong_with_a_command_and_draws_nothing_for_an_emote(
    table, player, client_for
):
    odds = reverse("table_odds", args=[table.pk])
    client = client_for(player)
    near_miss = client.get(odds, {"notation": "/wother 2d6"}).content.decode()
    assert "Did you mean “/w other 2d6”" in near_miss and "<svg" not in near_miss
    emote = client.get(odds, {"notation": "/em waves"}).content.decode()
    assert "<svg" not in emote and "dice-odds-error" not in emote
