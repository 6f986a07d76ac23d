"""Junk at every input: each POST endpoint and GET parameter refuses it with a page (never a 500) and
nothing saved changes.

The junk is what a careless client or a hostile one sends: digits from other scripts (``int()`` reads
"٣" as 3, ``str.isdigit`` passes "²"), NaN and infinities, numbers too long to read, negatives, blanks,
nested JSON where a value belongs, unknown ids and files that are not UTF-8.
"""

import json

import pytest
from asgiref.sync import sync_to_async
from django.apps import apps
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns import consumers
from campaigns.forms import CampaignForm
from play import encounters as services
from play import requests as roll_requests
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from sheets.registry import system_for
from sheets.services import character_edit

from .campaigns.test_consumers import open_socket
from .conftest import HTMX

HUGE = "9" * 5000
# 30 digits: int() reads it, the database's 64-bit integers cannot hold it.
JUNK = ["²", "٣", "NaN", "1e999", "-Infinity", HUGE, "9" * 30, "-1", "", "0x1F", " 12 3", "\x00"]
JUNK_IDS = JUNK + ["999999"]  # well formed, but nobody's


def blank(junk: str) -> bool:
    """Blank is a fair answer to an optional field (its default), so it is not junk there."""
    return junk.strip() == ""


def saved_rows() -> dict:
    """Every row the project's apps keep (campaigns, sheets and each system's tables, play)."""
    return {
        model._meta.label: list(model.objects.order_by("pk").values())
        for model in apps.get_models()
        if model.__module__.split(".")[0] in {"campaigns", "sheets", "play"}
    }


def assert_refused(client, method: str, url: str, data=None, **extra):
    before = saved_rows()
    response = getattr(client, method)(url, data or {}, **extra)
    assert response.status_code < 500, (url, data)
    assert saved_rows() == before, (url, data)
    return response


@pytest.fixture
def triad(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


@pytest.fixture
def encounter(triad, gm):
    """A Triad fight set up but not started: one player character and a ghoul; one character waits."""
    helsing = triad.characters.get(name="Abraham Van Helsing")
    fight = services.encounter_create(campaign=triad, name="Crypt")
    services.combatant_add_character(encounter=fight, character=helsing)
    services.combatant_add_npc(
        encounter=fight, name="Ghoul", cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "light"}
    )
    return fight


@pytest.fixture
def running(encounter, gm):
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([3])), author=gm
    )
    encounter.refresh_from_db()
    return encounter


def verb_url(fight, verb):
    return reverse("encounter_action", args=[fight.campaign_id, fight.pk, verb])


def combatant(fight, name):
    return fight.combatants.get(name=name)


# ----- encounters -------------------------------------------------------------------------------


@pytest.mark.parametrize("junk", JUNK_IDS)
def test_setup_verbs_refuse_junk(encounter, gm, client_for, junk):
    gm_client = client_for(gm)
    waiting = encounter.campaign.characters.exclude(combatants__encounter=encounter).first()
    ghoul = combatant(encounter, "Ghoul")
    version = str(encounter.version)
    npc = {"name": "Ghast", "npc-difficulty": "10", "npc-weapon": "medium", "npc-armor": "light"}
    cases = [
        ("add-character", {"version": version, "character": junk}),
        ("add-character", {"version": junk, "character": str(waiting.pk)}),
        ("add-npc", {**npc, "version": junk}),
        ("start", {"version": junk}),
        ("remove", {"version": version, "combatant": junk}),
        ("remove", {"version": junk, "combatant": str(ghoul.pk)}),
        ("next", {"version": junk}),
        ("end", {"version": junk}),
    ]
    if junk != "٣":  # the Triad NPC form's own number field still reads other scripts' digits
        cases.append(("add-npc", {**npc, "version": version, "npc-difficulty": junk}))
    cases.append(("add-npc", {**npc, "version": version, "npc-armor": junk}))
    for verb, data in cases:
        response = assert_refused(gm_client, "post", verb_url(encounter, verb), data)
        if verb == "add-npc":  # the page again, with what was typed and the message on the form
            page = response.content.decode()
            assert response.status_code == 200 and 'role="alert"' in page and 'value="Ghast"' in page, data
            continue
        assert response.status_code == 302
        shown = [str(m) for m in get_messages(response.wsgi_request)]
        assert shown and shown[0].startswith(("Check", "The encounter moved on", "That combatant")), (
            verb,
            data,
            shown,
        )


def test_a_refused_field_is_named(encounter, gm, client_for):
    response = client_for(gm).post(
        verb_url(encounter, "add-character"), {"version": encounter.version, "character": "²"}, follow=True
    )
    assert "Check the character: Character: That choice is not valid." in response.content.decode()
    response = client_for(gm).post(
        verb_url(encounter, "add-npc"),
        {"version": encounter.version, "name": "", "npc-difficulty": "NaN", "npc-armor": "light"},
    )
    page = response.content.decode()
    # Each message sits under its own field, which is outlined and points at it; the typed text stays.
    assert response.status_code == 200
    assert 'id="id_name-error"' in page and "This field is required." in page
    assert 'id="id_npc-difficulty-error"' in page and 'value="NaN"' in page
    assert 'aria-describedby="id_npc-difficulty-error' in page


def test_a_stale_npc_form_keeps_the_typing_and_takes_the_new_version(encounter, gm, client_for):
    gm_client = client_for(gm)
    data = {"version": encounter.version + 5, "name": "Ghast", "npc-difficulty": "10", "npc-armor": "light"}
    response = assert_refused(gm_client, "post", verb_url(encounter, "add-npc"), data)
    page = response.content.decode()
    assert "The encounter moved on" in page and 'value="Ghast"' in page
    assert f'name="version" value="{encounter.version}"' in page
    retry = gm_client.post(verb_url(encounter, "add-npc"), {**data, "version": encounter.version})
    assert retry.status_code == 302 and encounter.combatants.filter(name="Ghast").exists()


def test_an_htmx_npc_refusal_is_422_with_the_controls(encounter, gm, client_for):
    data = {"version": encounter.version, "name": "Ghast", "npc-difficulty": "NaN", "npc-armor": "light"}
    response = assert_refused(client_for(gm), "post", verb_url(encounter, "add-npc"), data, **HTMX)
    page = response.content.decode()
    assert response.status_code == 422 and 'id="encounter-controls"' in page and "<html" not in page
    assert 'value="Ghast"' in page


def test_npc_numbers_refuse_other_scripts_digits(encounter, gm, client_for):
    data = {"version": encounter.version, "name": "Ghast", "npc-difficulty": "٣", "npc-armor": "light"}
    assert_refused(client_for(gm), "post", verb_url(encounter, "add-npc"), data)


@pytest.mark.parametrize("junk", JUNK_IDS)
def test_turn_verbs_refuse_junk(running, gm, client_for, junk):
    gm_client = client_for(gm)
    actor = combatant(running, "Abraham Van Helsing")
    ghoul = combatant(running, "Ghoul")
    attack = {
        "version": str(running.version),
        "actor": str(actor.pk),
        "action": "attack",
        "target": str(ghoul.pk),
        "attack-ability": "body",
    }
    cases = [
        ("act", {**attack, "version": junk}),
        ("act", {**attack, "actor": junk}),
        ("act", {**attack, "target": junk}),
        ("act", {**attack, "action": junk}),
        ("act", {**attack, "attack-ability": junk}),
        ("next", {"version": junk}),
        ("end", {"version": junk}),
        ("start", {"version": junk}),
        ("remove", {"version": junk, "combatant": str(ghoul.pk)}),
        ("add-character", {"version": str(running.version), "character": junk}),
    ]
    if junk != "٣" and not blank(junk):  # the Triad attack form's numbers still read other scripts' digits
        cases.append(("act", {**attack, "attack-advantages": junk}))
    for verb, data in cases:
        assert assert_refused(gm_client, "post", verb_url(running, verb), data).status_code == 302


def test_an_action_form_is_read_under_its_prefix(running, gm, client_for):
    """An unprefixed field is not the action's: the attack reads only ``attack-ability``."""
    actor = combatant(running, "Abraham Van Helsing")
    ghoul = combatant(running, "Ghoul")
    data = {
        "version": running.version,
        "actor": actor.pk,
        "action": "attack",
        "target": ghoul.pk,
        "ability": "body",
    }
    response = assert_refused(client_for(gm), "post", verb_url(running, "act"), data, follow=True)
    assert "Check the options of Attack: Ability: This field is required." in response.content.decode()


def test_unknown_verb_and_unknown_encounter(encounter, gm, client_for):
    gm_client = client_for(gm)
    assert_refused(gm_client, "post", verb_url(encounter, "explode"), {"version": encounter.version})
    url = reverse("encounter_action", args=[encounter.campaign_id, 10**30, "start"])
    assert assert_refused(gm_client, "post", url, {"version": "1"}).status_code == 404


# ----- the table: dice box, chat, feed ----------------------------------------------------------


@pytest.mark.parametrize("junk", JUNK)
def test_dice_box_and_chat_refuse_junk(triad, player, client_for, junk):
    client = client_for(player)
    roll_url = reverse("table_roll", args=[triad.pk])
    chat_url = reverse("table_chat", args=[triad.pk])
    roll = {"notation": "1d6", "visibility": "public", "character": "", "idempotency_key": "key-12345678"}
    for data in (
        *([] if blank(junk) else [{**roll, "character": junk}]),  # blank: roll as nobody in particular
        {**roll, "visibility": junk},
        {**roll, "idempotency_key": junk + "%"},  # the key's own letters are free; this one is not
        {**roll, "idempotency_key": junk[:7]},  # too short to be a key
    ):
        assert_refused(client, "post", roll_url, data, **HTMX)
    assert_refused(client, "post", chat_url, {"text": "hello", "idempotency_key": junk + "%"}, **HTMX)
    if junk.strip() == "":
        assert_refused(client, "post", chat_url, {"text": junk, "idempotency_key": "key-12345678"}, **HTMX)


@pytest.mark.parametrize("junk", JUNK_IDS)
def test_feed_pages_read_junk_as_the_newest(triad, player, client_for, junk):
    response = assert_refused(
        client_for(player), "get", reverse("table_feed", args=[triad.pk]), {"before": junk}
    )
    assert response.status_code == 200


# ----- sheets: edit, roll, buttons, undo, import ------------------------------------------------


@pytest.fixture
def helsing(triad, player):
    return triad.characters.get(owner=player)


@pytest.mark.parametrize("junk", JUNK)
def test_sheet_edit_with_a_junk_version_is_refused_as_stale(helsing, player, client_for, junk):
    url = reverse("sheet_field", args=[helsing.pk, "name"])
    response = assert_refused(client_for(player), "post", url, {"value": "Renamed", "version": junk}, **HTMX)
    assert response.status_code == 409
    # Two versions (the form's and the page's): one junk one makes the pair unreadable.
    data = {"value": "Renamed", "version": [str(helsing.version), junk]}
    assert assert_refused(client_for(player), "post", url, data, **HTMX).status_code == 409


@pytest.mark.parametrize("junk", JUNK)
def test_sheet_roll_and_buttons_refuse_junk(helsing, player, client_for, junk):
    client = client_for(player)
    options = {name: junk for name in system_for(helsing.campaign).options_form(character=helsing).fields}
    roll_url = reverse("sheet_roll", args=[helsing.pk, "ability:body"])
    assert_refused(client, "post", roll_url, {**options, "visibility": junk}, **HTMX)
    assert_refused(client, "get", reverse("sheet_buttons", args=[helsing.pk]), options, **HTMX)
    assert_refused(client, "get", reverse("sheet", args=[helsing.pk]), {"edit": junk})


def test_unknown_ids_in_paths_are_not_found(helsing, player, client_for):
    client = client_for(player)
    for url in (
        reverse("sheet_undo", args=[helsing.pk, 10**30]),
        reverse("sheet_undo", args=[helsing.pk, 999999]),
        reverse("sheet_roll", args=[10**30, "ability:body"]),
        reverse("sheet_request_roll", args=[helsing.pk, 10**30]),
    ):
        assert assert_refused(client, "post", url).status_code == 404


def test_undo_of_another_sheets_change_is_refused(helsing, triad, player, gm, client_for):
    other = triad.characters.exclude(pk=helsing.pk).first()
    character_edit(character=other, path="notes", raw="New notes", version=other.version, author=gm)
    change = other.changes.get()
    url = reverse("sheet_undo", args=[helsing.pk, change.pk])
    assert assert_refused(client_for(player), "post", url).status_code == 404


def _export(client, character) -> dict:
    return json.loads(client.get(reverse("sheet_export", args=[character.pk])).content)


def _bad_exports(good: dict) -> list[bytes]:
    sheet = good["sheet"]
    as_json = [
        {**good, "name": {"first": "Abraham"}},
        {**good, "name": ["Abraham"]},
        {**good, "notes": {"a": 1}},
        {**good, "sheet": {**sheet, "body": {"value": 8}}},
        {**good, "sheet": {**sheet, "body": [8]}},
        {**good, "sheet": {**sheet, "body": 10**40}},
        {**good, "sheet": {**sheet, "traits": [{"name": "Occult"}]}},
        {**good, "sheet": {**sheet, "weapon": ["light"]}},
        {**good, "sheet": [sheet]},
        {**good, "version": [1]},
        {**good, "system": {"key": "triad"}},
        [good],
        "a character",
    ]
    encoded = [json.dumps(item).encode() for item in as_json]
    text = json.dumps(good)
    encoded += [
        text.replace('"body": 8', '"body": NaN').encode(),
        text.replace('"body": 8', '"body": Infinity').encode(),
        text.replace('"body": 8', '"body": 1e999').encode(),
        text.replace('"body": 8', f'"body": {HUGE}').encode(),
        text.replace('"version": 2', '"version": NaN').encode(),
        text.encode("utf-16"),
        b"\xff\xfe\x00junk",
        b"",
        b"[" * 100_000,
        b"{" + b" " * 70_000 + b"}",
    ]
    return encoded


def test_import_refuses_bad_files(helsing, player, client_for):
    client = client_for(player)
    good = _export(client, helsing)
    assert good["sheet"]["body"] == 8  # the replacements below hit this number
    url = reverse("character_import", args=[helsing.campaign_id])
    for content in _bad_exports(good):
        upload = SimpleUploadedFile("c.json", content, content_type="application/json")
        response = assert_refused(client, "post", url, {"file": upload}, follow=True)
        shown = [str(m) for m in response.context["messages"]]
        assert len(shown) == 1 and shown[0].startswith("That "), (content[:80], shown)
        assert "{'" not in shown[0] and len(shown[0]) < 400, shown  # no Python repr, no flood
    assert_refused(client, "post", url, {})  # no file at all


def test_imported_nested_values_are_refused_by_name(helsing, player, client_for):
    client = client_for(player)
    good = _export(client, helsing)
    content = json.dumps({**good, "name": {"first": "Abraham"}}).encode()
    upload = SimpleUploadedFile("c.json", content, content_type="application/json")
    response = client.post(
        reverse("character_import", args=[helsing.campaign_id]), {"file": upload}, follow=True
    )
    text = response.content.decode()
    assert "values of the wrong kind" in text and "Name: a list or object" in text


# ----- roll requests ----------------------------------------------------------------------------


@pytest.mark.parametrize("junk", JUNK_IDS)
def test_roll_requests_refuse_junk(helsing, triad, gm, player, client_for, junk):
    url = reverse("requests_gm", args=[triad.pk])
    ask = {
        "label": "Spot the ambush",
        "characters": [str(helsing.pk)],
        "roll_key": "",
        "visibility": "public",
    }
    gm_client = client_for(gm)
    for data in (
        {**ask, "characters": [junk]},
        {**ask, "characters": [str(helsing.pk), junk]},
        *([] if blank(junk) else [{**ask, "roll_key": junk}]),  # blank: the player picks
        {**ask, "visibility": junk},
    ):
        assert assert_refused(gm_client, "post", url, data, **HTMX).status_code == 422
    request = roll_requests.roll_request_create(
        campaign=triad,
        gm=gm,
        label="Spot",
        characters=[helsing],
        options={},
        roll_key="",
        visibility="public",
    )
    target = request.targets.get()
    answer_url = reverse("sheet_request_roll", args=[helsing.pk, target.pk])
    for key in (junk, "ability:" + junk, "x" * 5000):
        assert assert_refused(client_for(player), "post", answer_url, {"key": key}, **HTMX).status_code == 422


# ----- Five by Five experience ------------------------------------------------------------------


@pytest.fixture
def larry(make_campaign, player, other_player):
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    character = campaign.characters.get(owner=player)
    sheet = character.fivebyfive
    sheet.xp = 30  # enough to raise anything, so only the junk can stop it
    sheet.save(update_fields=["xp"])
    return character


@pytest.mark.parametrize("junk", JUNK_IDS)
def test_xp_refuses_junk(larry, gm, player, client_for, junk):
    award = reverse("xp_award", args=[larry.pk])
    spend = reverse("xp_spend", args=[larry.pk])
    row = larry.descriptors.order_by("pk").first()
    if junk != "999999":  # a well-formed amount is only refused by its bounds
        response = assert_refused(client_for(gm), "post", award, {"amount": junk}, follow=True)
        assert "Award from 1 to" in response.content.decode()
    for offer in (
        junk,
        f"raise:{junk}@{row.value}",
        f"raise:{row.pk}@{junk}" if junk != "999999" else f"raise:{row.pk}@x",
        f"add@{junk}",
    ):
        assert_refused(client_for(player), "post", spend, {"offer": offer, "name": junk})
    assert_refused(
        client_for(player), "post", spend, {"offer": f"raise:hp@{junk}"} if junk != "999999" else {}
    )


def test_xp_award_at_the_bounds(larry, gm, client_for):
    award = reverse("xp_award", args=[larry.pk])
    for amount in ("0", "21", "-5", "999999"):
        assert_refused(client_for(gm), "post", award, {"amount": amount})
    client_for(gm).post(award, {"amount": "2"})
    larry.fivebyfive.refresh_from_db()
    assert larry.fivebyfive.xp == 32


# ----- the campaign -----------------------------------------------------------------------------


@pytest.mark.parametrize("junk", ["", "x" * 5000])
def test_campaign_edit_refuses_a_bad_name(triad, gm, client_for, junk):
    url = reverse("campaign_edit", args=[triad.pk])
    options = [name for name in CampaignForm(instance=triad).fields if name.startswith("option_")]
    data = {"name": junk, "description": "", **dict.fromkeys(options, "²")}
    assert assert_refused(client_for(gm), "post", url, data).status_code == 200


# ----- the table's websocket: JSON frames ---------------------------------------------------------

SOCKET_FRAMES = [
    # Rolls and chat go over HTTP (their junk: test_dice_box_and_chat_refuse_junk); the socket takes none.
    {"type": "roll", "notation": "1d6"},
    {"type": "chat", "text": "hello", "key": "key-12345678"},
    {"type": "chat", "text": float("nan"), "key": ["k"]},
    *(
        {"type": "hello", "cursor": cursor}
        for cursor in (10**30, -1, float("nan"), [0], {"seq": 0}, "0", "g" * 16, "F" * 16, "0" * 17)
    ),
    *({"type": "hello", "cursor": None, "feed": feed} for feed in ("no", 0, None, [False])),
    {"type": ["roll"]},
    {"type": {"roll": 1}},
    [{"type": "roll", "notation": "1d6"}],
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
@pytest.mark.parametrize("frame", SOCKET_FRAMES, ids=lambda frame: json.dumps(frame)[:60])
async def test_socket_frames_with_junk_are_refused(campaign, player, settings, frame):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    before = await sync_to_async(saved_rows)()
    greeting = isinstance(frame, dict) and frame.get("type") == "hello"
    communicator, _ = await open_socket(player, campaign, hello=None if greeting else 0)
    await communicator.send_to(text_data=json.dumps(frame))  # NaN and 1e999 go out as NaN and Infinity
    output = await communicator.receive_output(timeout=5)
    if output["type"] == "websocket.close":
        assert output.get("code") == consumers.CLOSE_BAD_MESSAGE
    else:
        reply = json.loads(output["text"])
        if greeting and reply["type"] == "ready":
            pass  # a well-formed hello: nothing to replay
        else:
            assert reply["type"] == "error" and reply["message"], reply
    assert await sync_to_async(saved_rows)() == before
    await communicator.disconnect()
