"""A hidden roll has no visible side effects: whoever may not see a roll receives the same bytes
whatever its dice showed (issue 18, "Deliver 3"; docs/rules.md, "A hidden roll changes nothing on the
sheet"), and what it would change waits on its entry for those who see it to apply.

The proof plays every roll button of every system (tests/test_query_budgets.py's enumeration, plus the
first button under options that change the sheet), L5R's after-roll forms, the answer to a GM's request
and the dice box, in each hidden mode, twice from the same starting state with two different scripted
dice, and compares every byte each seat that may not see the roll receives: the click's HTTP answer
(when the roller is one of them: a blind roll), every frame on its table and sheet sockets, and the
sheet and History pages it fetches after the run. Only per-request values are normalised (CSRF tokens,
fresh idempotency keys); the clock is frozen so both runs stamp the same times. The dice come from
``Faces``, put in place of ``secrets.SystemRandom``, which every roll path asks for its source
(``rules.dice.system_random``, the dice box), so one patch scripts them all, for any die.

How both runs start from the same state: the whole test runs in the test's transaction, each run inside
a savepoint rolled back after it. The sockets' consumers run their database work on this thread (the
test drives them through one ``async_to_sync``), so they read the same uncommitted rows; the broadcasts
a click commits are collected as config.asgi's handler collects them and sent from the event loop.
"""

from __future__ import annotations

import json
import re
import secrets

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from campaigns import realtime
from campaigns.models import FeedEntry
from campaigns.selectors import FULL, entry_variant
from campaigns.validators import validate_feed_result
from play.requests import roll_request_answer, roll_request_create
from rules.dice import Roller
from sheets.demo import load_demo_characters
from sheets.models import Character, SheetChange
from sheets.systems.fivebyfive.models import FiveByFiveSheet
from sheets.systems.l5r.models import L5RSheet
from tests.campaigns.test_consumers import open_socket
from tests.conftest import FRAME_WAIT, HTMX
from tests.test_query_budgets import SYSTEMS, roll_buttons, system_of

pytestmark = pytest.mark.django_db

# (who rolls, who may see it): the sheet's modes, by its player and by the GM on the player's sheet.
SHEET_MODES = [
    ("player", "blind"),
    ("player", "gm"),
    ("player", "self"),
    ("gm", "blind"),
    ("gm", "gm"),
    ("gm", "self"),
]
# The dice box has whispers too: the player's, to the GM.
BOX_MODES = [*SHEET_MODES, ("player", "whisper")]
SEATS = ("gm", "player", "other")
# Options under which a roll changes the sheet beyond what the default ones do, clicked on the first
# button too: a Triad hazard's damage on a failure (so by the dice), an L5R Void point spent.
CHANGING_OPTIONS = {"triad": {"hazard": 4, "hazard_severe": 8}, "l5r": {"use_void": "on"}}
SYNC = "hidden-roll-test-sync"  # a refresh every socket hears once the click's own frames are through


class Faces:
    """A random source that shows every die by a pattern of its own sides, whatever the die.

    ``high``: the top face twice, then one below (doubles, trumps and explosions that stop); else the
    two lowest faces in turn. Rolled fresh for each roll, so both runs of a click see one pattern each.
    """

    def __init__(self, high: bool):
        self.high, self.count = high, 0

    def randint(self, a: int, b: int) -> int:
        self.count += 1
        if self.high:
            return b if self.count % 3 else b - 1
        return a + self.count % 2


def normalised(body: bytes | str) -> str:
    """The page as every request of it would give it: CSRF tokens and fresh one-time keys blanked."""
    text = body.decode() if isinstance(body, bytes) else body
    text = re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]+"', r'\1CSRF"', text)
    text = re.sub(r'("x-csrftoken": ")[^"]+"', r'\1CSRF"', text)
    return re.sub(r"\b[0-9a-f]{32}\b", "KEY", text)  # uuid4().hex: every form's idempotency key


def hidden_from(roller: str, visibility: str, users: dict) -> list[str]:
    """The seats that may not see the roll whole: the one rule (selectors.entry_variant) says which."""
    recipients = [users["gm"].pk] if visibility == "whisper" else []
    return [
        seat
        for seat in SEATS
        if entry_variant(
            visibility=visibility,
            author_id=users[roller].pk,
            viewer_id=users[seat].pk,
            gm_id=users["gm"].pk,
            recipient_ids=recipients,
        )
        != FULL
    ]


def clicks(
    system_key: str, character: Character, mode: tuple[str, str], users: dict, drawn: str
) -> list[tuple]:
    """(name, url, data) for every roll a page offers in this mode: each sheet button (with what the
    page's buttons were drawn from, ``drawn``, as the page sends it), the answer to a GM's request of
    this visibility (requests offer GM only and blind), then the dice box."""
    roller, visibility = mode
    system = system_of(system_key)
    buttons = roll_buttons(system, character)
    fields = system.options_form(character=character).fields.items()
    defaults = {name: field.initial for name, field in fields if field.initial is not None}
    made = []
    if visibility != "whisper":
        for button in buttons:
            url = reverse("sheet_roll", args=[character.pk, button.key])
            made.append((f"button {button.key}", url, {"visibility": visibility, "buttons_drawn": drawn}))
        if system_key in CHANGING_OPTIONS:
            options = {**defaults, **CHANGING_OPTIONS[system_key], "visibility": visibility}
            made.append((f"{made[0][0]} with {sorted(CHANGING_OPTIONS[system_key])}", made[0][1], options))
    if roller == "player" and visibility in ("gm", "blind"):
        request = roll_request_create(
            campaign=character.campaign, gm=users["gm"], label="Asked", characters=[character],
            options=defaults,
            visibility=visibility,
        )
        url = reverse("sheet_request_roll", args=[character.pk, request.targets.get().pk])
        made.append(("request answer", url, {"key": buttons[0].key}))  # the GM asked for no roll by name
    box = {"notation": "2d6", "visibility": visibility, "character": character.pk}
    if visibility == "whisper":
        box["whisper_to"] = [users["gm"].pk]
    made.append(("dice box", reverse("table_roll", args=[character.campaign_id]), box))
    return made


def after_roll_clicks(character: Character) -> list[tuple]:
    """L5R's forms under a roll's result, on the newest roll of the sheet: keep other dice, try again."""
    entry = FeedEntry.objects.filter(character_id=character.pk).order_by("-seq").first()
    if entry is None or character.campaign.system != "l5r":
        return []
    url = reverse("l5r_after_roll", args=[character.pk, entry.cursor])
    return [
        ("keep other dice", url, {"do": "rekeep", "keep": ["0"]}),
        ("try again", url, {"do": "retry", "new_situation": "on"}),
    ]


def post(client, url, data, capture_on_commit):
    """One click as a deployment serves it: what the view commits is broadcast, collected as
    config.asgi's handler collects it (sent from the event loop by the caller)."""
    with realtime.collected_broadcasts() as events, capture_on_commit(execute=True):
        response = client.post(url, data, **HTMX)
    return response.status_code, normalised(response.content), list(events)


def pages(client, character: Character) -> list[tuple[int, str]]:
    """What a seat fetches after the clicks: the sheet and its History (the table's feed came by socket)."""
    urls = [character.get_absolute_url(), reverse("sheet_history", args=[character.pk])]
    return [(response.status_code, normalised(response.content)) for response in map(client.get, urls)]


async def drained(sockets: dict) -> dict:
    """Every frame each socket got since the last call: a refresh sent to the whole table last marks
    the end, as a socket handles its group's events in order."""
    sync = {"type": "panel.changed", "panel": SYNC, "gm_only": False}
    await get_channel_layer().group_send(realtime.table_group(sockets["campaign_id"]), sync)
    heard = {}
    for name, socket in sockets["open"].items():
        frames = []
        sync = {"type": "refresh", "panel": SYNC}
        while json.loads(frame := await socket.receive_from(timeout=FRAME_WAIT)) != sync:
            frames.append(frame)
        heard[name] = frames
    return heard


async def play(*, high, mode, character, users, clients, capture_on_commit, monkeypatch):
    """One run of a mode from a savepoint, rolled back after it: per click, what each seat that may not
    see the roll received (the answer if the roller is one, its pages, its sockets' frames)."""
    roller, visibility = mode
    hidden = hidden_from(roller, visibility, users)
    monkeypatch.setattr(secrets, "SystemRandom", lambda: Faces(high))
    savepoint = await sync_to_async(transaction.savepoint)()
    sockets = {"campaign_id": character.campaign_id, "open": {}}
    for seat in hidden:
        for feed in (True, False):  # the table page's socket, and the sheet page's
            sockets["open"][(seat, feed)], _ = await open_socket(users[seat], character.campaign, feed=feed)
    transcript = []
    sheet_page = await sync_to_async(clients[roller].get)(character.get_absolute_url())
    drawn = re.search(r'name="buttons_drawn" value="([^"]*)"', sheet_page.content.decode()).group(1)
    todo = await sync_to_async(clicks)(character.campaign.system, character, mode, users, drawn)
    n = 0
    while todo:
        name, url, data = todo.pop(0)
        n += 1
        await sync_to_async(cache.clear)()  # the rate limiter's counts: each click starts alike
        status, body, events = await sync_to_async(post)(
            clients[roller], url, {**data, "idempotency_key": f"hidden-{n:04d}"}, capture_on_commit
        )
        assert status != 429, (mode, name)  # a limited click would read the same for want of a roll
        await realtime.send_collected(events)
        seen = {"frames": await drained(sockets)}
        if roller in hidden:
            seen["answer"] = (status, body)
        # What the roll was, for those who see it whole: not compared, only to show the dice differed.
        newest = await sync_to_async(FeedEntry.objects.values_list("result", flat=True).last)()
        transcript.append((name, seen, newest))
        if n == 1 and name.startswith("button"):  # under the run's first roll: L5R's keep dice, try again
            todo[:0] = await sync_to_async(after_roll_clicks)(character)
    # The pages show everything the clicks left behind: the sheet's values, History's rows.
    for seat in hidden:
        fetched = await sync_to_async(pages)(clients[seat], character)
        transcript.append((f"{seat}'s pages", {"pages": fetched}, None))
    for socket in sockets["open"].values():
        await socket.disconnect()
    await sync_to_async(transaction.savepoint_rollback)(savepoint)
    return transcript


@pytest.mark.long
@pytest.mark.parametrize("mode", BOX_MODES, ids="-".join)
@pytest.mark.parametrize("system_key", SYSTEMS)
def test_a_hidden_roll_reads_the_same_whatever_its_dice(
    system_key, mode, demo_character, gm, player, other_player, client_for, settings, monkeypatch,
    django_capture_on_commit_callbacks,
):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # The consumers' database work runs on this thread, in this test's transaction: channels must not
    # close the connection around it (an open transaction reads as a stale connection to it).
    monkeypatch.setattr("channels.db.close_old_connections", lambda: None)
    now = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: now)
    character = demo_character(system_key)
    users = {"gm": gm, "player": player, "other": other_player}
    clients = {seat: client_for(user) for seat, user in users.items()}
    runs = [
        async_to_sync(play)(
            high=high, mode=mode, character=character, users=users, clients=clients,
            capture_on_commit=django_capture_on_commit_callbacks, monkeypatch=monkeypatch,
        )
        for high in (True, False)
    ]
    assert [click[0] for click in runs[0]] == [click[0] for click in runs[1]]
    for (name, first, _), (_, second, _) in zip(*runs, strict=True):
        for what in first:
            assert first[what] == second[what], (name, what)
    # The dice did differ, and a sheet's roll did have a change to keep back (a token, Void, a program, harm).
    assert [click[2] for click in runs[0]] != [click[2] for click in runs[1]]
    if mode in SHEET_MODES:
        assert any("pending" in (click[2] or {}) for click in runs[0] + runs[1])


# -- what a hidden roll keeps back, and applying it --------------------------------------------------


def token_roll(client, character, visibility):
    """Larry's Amateur Chef 4 rolled with the fixed dice, as ``visibility``."""
    key = f"descriptor:{character.descriptors.get(name='Amateur Chef').pk}"
    data = {"shift": 0, "visibility": visibility, "idempotency_key": f"roll-{FeedEntry.objects.count():04d}"}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def apply(client, entry, **data):
    return client.post(reverse("sheet_roll_apply", args=[entry.character_id, entry.cursor]), data, **HTMX)


def token(character) -> bool:
    return FiveByFiveSheet.objects.get(character=character).doubles_token


def test_a_blind_roll_keeps_the_token_back_until_the_gm_applies_it(
    demo_character, gm, player, client_for, fixed_dice
):
    character = demo_character("fivebyfive")
    version = character.version
    fixed_dice(3, 3)  # doubles: the roll wins the token
    answer = token_roll(client_for(player), character, "blind").content.decode()
    entry = FeedEntry.objects.get()
    assert entry.result["changes"] == ["doubles token earned"]
    assert entry.result["pending"]["lines"] == ["Doubles token: no → yes"]
    # Nothing moved: no token, no version, no History row; the roller's answer names none of it.
    assert not token(character) and Character.objects.get(pk=character.pk).version == version
    assert not SheetChange.objects.exists()
    assert "A blind roll was made" in answer and "oubles token" not in answer and "Apply" not in answer
    # The GM sees what it would change, with the button, on the table's feed.
    table = client_for(gm).get(reverse("table", args=[character.campaign_id])).content.decode()
    assert "Doubles token: no → yes" in table and "Apply to the sheet" in table
    own_table = client_for(player).get(reverse("table", args=[character.campaign_id])).content.decode()
    assert "Doubles token" not in own_table and "Apply" not in own_table

    applied = apply(client_for(gm), entry)
    assert applied.status_code == 200
    body = applied.content.decode()
    assert "Applied to the sheet:" in body and "Apply to the sheet" not in body
    assert token(character) and Character.objects.get(pk=character.pk).version == version + 1
    change = SheetChange.objects.get()
    assert change.author == gm and change.reason == "Applied a hidden roll"
    assert list(change.after.values()) == [True]
    # Once: a second click (another tab, the feed's old button) changes nothing.
    again = apply(client_for(gm), entry)
    assert again.status_code == 422 and "applied already" in again.content.decode()
    assert SheetChange.objects.count() == 1


def test_applying_refuses_a_sheet_that_moved_on_and_leaves_it_for_later(
    demo_character, gm, player, client_for, fixed_dice
):
    character = demo_character("fivebyfive")
    fixed_dice(3, 3)
    token_roll(client_for(gm), character, "gm")  # the GM's hidden roll on the player's sheet
    entry = FeedEntry.objects.get()
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    refused = apply(client_for(gm), entry)
    assert refused.status_code == 422
    reason = "The sheet changed since that roll: doubles token (no at the roll, yes now). Nothing was applied"
    assert reason in refused.content.decode()
    entry.refresh_from_db()
    assert entry.applied_at is None and not SheetChange.objects.exists()
    # Without JavaScript the same refusal comes as a message above the sheet.
    plain = client_for(gm).post(reverse("sheet_roll_apply", args=[character.pk, entry.cursor]), follow=True)
    assert "The sheet changed since that roll" in plain.content.decode()


@pytest.mark.parametrize(
    ("who", "status"), [("roller", 403), ("other_player", 403), ("outsider", 404), ("gm", 200)]
)
def test_only_who_sees_the_roll_whole_and_may_edit_the_sheet_applies(
    who, status, demo_character, gm, player, other_player, outsider, client_for, fixed_dice
):
    character = demo_character("fivebyfive")
    fixed_dice(3, 3)
    token_roll(client_for(player), character, "blind")
    entry = FeedEntry.objects.get()
    user = {"roller": player, "other_player": other_player, "outsider": outsider, "gm": gm}[who]
    assert apply(client_for(user), entry).status_code == status
    assert token(character) is (status == 200)


def test_an_only_me_roll_is_applied_by_its_roller_and_the_gm_cannot(
    demo_character, gm, player, client_for, fixed_dice
):
    character = demo_character("fivebyfive")
    fixed_dice(3, 3)
    answer = token_roll(client_for(player), character, "self").content.decode()
    assert "Doubles token: no → yes" in answer and "Apply to the sheet" in answer
    entry = FeedEntry.objects.get()
    assert apply(client_for(gm), entry).status_code == 404  # the GM does not know the roll exists
    applied = apply(client_for(player), entry, version=str(character.version))
    assert applied.status_code == 200 and token(character)
    # From the sheet page, the page's version moves on with the change (its next edit is not stale).
    assert f'id="sheet-version" name="version" value="{character.version + 1}"' in applied.content.decode()


def test_a_roll_everyone_who_may_see_the_sheet_sees_changes_it_at_once(
    make_campaign, gm, player, client_for, fixed_dice
):
    """An NPC's sheet is the GM's alone: the GM's GM-only roll on it is seen by all who see the sheet."""
    campaign = make_campaign("fivebyfive", players=[player])
    load_demo_characters(campaign, players=[player])
    npc = campaign.characters.get(owner=player)
    Character.objects.filter(pk=npc.pk).update(is_npc=True, owner=gm)
    npc = Character.objects.get(pk=npc.pk)
    fixed_dice(3, 3)
    token_roll(client_for(gm), npc, "gm")
    assert token(npc) and "pending" not in FeedEntry.objects.get().result
    assert SheetChange.objects.get().reason.startswith("Roll: ")


def test_a_hidden_request_answer_keeps_void_back(demo_character, gm, player, client_for):
    """A GM's blind request answered with a Void point: the player's History shows nothing."""
    character = demo_character("l5r")
    sheet = L5RSheet.objects.get(character=character)
    request = roll_request_create(
        campaign=character.campaign, gm=gm, label="Notice", characters=[character],
        roll_key="trait:perception", visibility="blind",
        options={"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0, "use_void": True},
    )
    entry = roll_request_answer(
        character=character, target_id=request.targets.get().pk, key="trait:perception",
        roller=Roller(Faces(True)), author=player,
    )
    assert entry.result["pending"]["lines"] == [f"Void spent: {sheet.void_spent} → {sheet.void_spent + 1}"]
    assert L5RSheet.objects.get(pk=sheet.pk).void_spent == sheet.void_spent
    history = client_for(player).get(reverse("sheet_history", args=[character.pk])).content.decode()
    assert "Void" not in history


@pytest.mark.parametrize(
    "pending",
    [
        [],
        {"before": {}, "after": {}, "lines": []},
        {"before": {"a:1:b": 1}, "after": {"a:1:c": 2}, "lines": []},
        {"before": {"a:1:b": 1}, "after": {"a:1:b": 2}, "lines": ["x" * 301]},
        {"before": {"a:1:b": 1}, "after": {"a:1:b": 2}, "lines": [], "more": 1},
    ],
)
def test_a_malformed_pending_change_is_refused_at_the_write(pending):
    result = {"dice": [], "outcome": "none", "pending": pending}
    with pytest.raises(ValidationError):
        validate_feed_result(result)
    fine = {"before": {"a:1:b": 1}, "after": {"a:1:b": 2}, "lines": ["b"]}
    validate_feed_result({**result, "pending": fine})


def test_a_sheet_roll_for_no_one_on_the_list_is_refused_with_a_sentence(demo_character, player, client_for):
    # Every roll form asks who sees it through one field (campaigns.forms.VisibilityField): a value
    # that is none of its choices is refused in words, and nothing is rolled.
    character = demo_character("triad")
    url = reverse("sheet_roll", args=[character.pk, "ability:body"])
    response = client_for(player).post(url, {"visibility": "everyone-but-the-gm"}, HTTP_HX_REQUEST="true")
    assert "Choose who may see this roll from the list." in response.content.decode()
    assert not FeedEntry.objects.filter(character_id=character.pk).exists()
