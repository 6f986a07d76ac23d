"""The GM asks characters for a roll; players answer from their sheets; the GM sees answers gather."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import FeedEntry
from play.models import RollRequest, RollRequestTarget
from play.requests import roll_request_create
from sheets.registry import system_for
from tests.conftest import FRAME_WAIT

from .conftest import HTMX, page_text


@pytest.fixture
def table(make_campaign, player, other_player):
    from sheets.demo import load_demo_characters

    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


def ask(client, campaign, characters, **extra):
    data = {
        "label": "Spot the ambush",
        "characters": [c.pk for c in characters],
        "roll_key": "",
        "visibility": "public",
        "difficulty": 14,
        "advantages": 0,
        "disadvantages": 0,
        **extra,
    }
    return client.post(reverse("requests_gm", args=[campaign.pk]), data, **HTMX)


def test_gm_asks_and_players_answer_with_the_gms_options(
    table, gm, player, other_player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    theirs = table.characters.get(owner=other_player)
    response = ask(client_for(gm), table, [mine, theirs], roll_key="ability:mind")
    assert response.status_code == 200
    request = RollRequest.objects.get()
    assert request.options["difficulty"] == "14" and request.roll_key == "ability:mind"

    prompt = client_for(player).get(reverse("sheet_requests", args=[mine.pk]), **HTMX)
    text = page_text(prompt)
    assert "The GM asks: Spot the ambush" in text and "Mind 15" in text and "Body" not in text

    target = RollRequestTarget.objects.get(character=mine)
    fixed_dice(3)
    answer = client_for(player).post(
        reverse("sheet_request_roll", args=[mine.pk, target.pk]), {"key": "ability:mind"}, **HTMX
    )
    assert answer.status_code == 200
    target.refresh_from_db()
    entry = FeedEntry.objects.get()
    assert target.entry == entry and entry.request["difficulty"] == 14 and entry.result["total"] == 15
    assert "The GM asks" not in page_text(answer)  # answered: the prompt is gone

    panel = page_text(client_for(gm).get(reverse("requests_gm", args=[table.pk]), **HTMX))
    assert f"{mine.name}: {entry.summary}" in panel and f"{theirs.name}: waiting" in panel


def test_a_request_is_answered_once(table, gm, player, client_for):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine])
    target = RollRequestTarget.objects.get()
    url = reverse("sheet_request_roll", args=[mine.pk, target.pk])
    client_for(player).post(url, {"key": "ability:body"}, **HTMX)
    again = client_for(player).post(url, {"key": "ability:body"}, **HTMX)
    assert again.status_code == 422 and "already made" in again.content.decode()
    assert FeedEntry.objects.count() == 1


def test_a_fixed_roll_key_must_be_rolled(table, gm, player, client_for):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:spirit")
    target = RollRequestTarget.objects.get()
    response = client_for(player).post(
        reverse("sheet_request_roll", args=[mine.pk, target.pk]), {"key": "ability:body"}, **HTMX
    )
    assert response.status_code == 422 and "Roll what the GM asked for" in response.content.decode()
    assert not FeedEntry.objects.exists()


@pytest.mark.parametrize(
    ("nobody", "extra", "message"),
    [
        (True, {}, "Pick at least one character."),
        (False, {"difficulty": "high"}, "Enter a whole number (digits 0-9)."),
        (False, {"difficulty": 99}, "less than or equal to 40"),
    ],
)
def test_bad_requests_are_refused_with_a_message(table, gm, client_for, nobody, extra, message):
    response = ask(client_for(gm), table, [] if nobody else list(table.characters.all()), **extra)
    assert response.status_code == 422 and message in response.content.decode()
    assert not RollRequest.objects.exists()


def test_only_the_gm_asks_and_only_the_owner_answers(table, gm, player, other_player, outsider, client_for):
    mine = table.characters.get(owner=player)
    assert ask(client_for(player), table, [mine]).status_code == 403
    assert ask(client_for(outsider), table, [mine]).status_code == 404
    ask(client_for(gm), table, [mine])
    target = RollRequestTarget.objects.get()
    url = reverse("sheet_request_roll", args=[mine.pk, target.pk])
    assert client_for(other_player).post(url, {"key": "ability:body"}, **HTMX).status_code == 403
    assert "The GM asks" not in page_text(
        client_for(other_player).get(reverse("sheet_requests", args=[mine.pk]))
    )
    # Another sheet's target through one's own sheet: not found, nothing rolled, the target still open.
    theirs = table.characters.get(owner=other_player)
    ask(client_for(gm), table, [theirs])
    their_target = RollRequestTarget.objects.get(character=theirs)
    mine_url = reverse("sheet_request_roll", args=[mine.pk, their_target.pk])
    assert client_for(player).post(mine_url, {"key": "ability:body"}, **HTMX).status_code == 404
    their_target.refresh_from_db()
    assert their_target.entry_id is None
    assert not FeedEntry.objects.exists()


@pytest.mark.parametrize("system", ["fivebyfive", "freefall", "triad", "l5r"])
def test_every_system_takes_requests_with_default_options(
    make_campaign, gm, player, other_player, client_for, system
):
    from sheets.demo import load_demo_characters

    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    assert client_for(gm).get(reverse("requests_gm", args=[campaign.pk])).status_code == 200
    mine = campaign.characters.get(owner=player)
    data = {"label": "Steady now", "characters": [mine.pk], "roll_key": "", "visibility": "public"}
    assert client_for(gm).post(reverse("requests_gm", args=[campaign.pk]), data).status_code == 200
    prompt = page_text(client_for(player).get(reverse("sheet_requests", args=[mine.pk])))
    assert "The GM asks: Steady now" in prompt and "%" in prompt


# -- concrete choices: the GM names the roll, each sheet rolls its own numbers ---------------------


def demo_table(make_campaign, system, players):
    from sheets.demo import load_demo_characters

    campaign = make_campaign(system, players=players)
    load_demo_characters(campaign, players=players)
    return campaign


def answer(client, character, key):
    target = RollRequestTarget.objects.get(character=character, entry__isnull=True)
    return client.post(reverse("sheet_request_roll", args=[character.pk, target.pk]), {"key": key}, **HTMX)


def prompt_keys(client, character) -> list[str]:
    body = client.get(reverse("sheet_requests", args=[character.pk]), **HTMX).content.decode()
    return re.findall(r'name="key" value="([^"]+)"', body)


def test_l5r_request_names_a_skill_and_each_sheet_rolls_trait_plus_skill(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    """L5R, Skill Rolls (l.33): the GM announces the skill; each player rolls trait + skill, keeps the
    trait. Unskilled Rolls (l.60-61): a sheet without the skill rolls the trait alone, no raises."""
    table = demo_table(make_campaign, "l5r", [player, other_player])
    shinai = table.characters.get(name="Bayushi Shinai")  # Agility 3, Kenjutsu 2
    tishi = table.characters.get(name="Isawa Tishi")  # Agility 3, no Kenjutsu
    data = {
        "label": "Duel at dawn",
        "characters": [shinai.pk, tishi.pk],
        "roll_key": "skill:kenjutsu",
        "visibility": "public",
        "tn": 15,
        "raises": 1,
        "free_raises": 0,
        "free_on_tn": 0,
    }
    assert client_for(gm).post(reverse("requests_gm", args=[table.pk]), data, **HTMX).status_code == 200

    shinai_prompt = page_text(client_for(shinai.owner).get(reverse("sheet_requests", args=[shinai.pk])))
    assert "Kenjutsu 2" in shinai_prompt and "5k3 vs TN 20" in shinai_prompt  # TN 15 + one raise
    tishi_prompt = page_text(client_for(tishi.owner).get(reverse("sheet_requests", args=[tishi.pk])))
    assert "Kenjutsu 0" in tishi_prompt and "3k3 unskilled" in tishi_prompt and "no raises" in tishi_prompt
    assert prompt_keys(client_for(shinai.owner), shinai) == [
        f"skill:{shinai.l5r_skills.get(name='Kenjutsu').pk}"
    ]

    # Another of the sheet's buttons does not answer it.
    assert answer(client_for(shinai.owner), shinai, "trait:agility").status_code == 422
    fixed_dice(9, 8, 5, 2, 1)  # keep 9 + 8 + 5 = 22 against TN 20
    key = prompt_keys(client_for(shinai.owner), shinai)[0]
    assert answer(client_for(shinai.owner), shinai, key).status_code == 200
    entry = FeedEntry.objects.get()
    assert entry.result["total"] == 22 and entry.result["tn"] == 20 and entry.result["outcome"] == "success"

    panel = page_text(client_for(gm).get(reverse("requests_gm", args=[table.pk]), **HTMX))
    assert "1 of 2 answered · 1 succeeded · 0 failed" in panel and "22 vs TN 20" in panel


def test_l5r_request_for_raises_past_a_sheets_void_says_so_on_the_prompt(
    make_campaign, gm, player, other_player, client_for
):
    """L5R, Raises (l.28): at most as many raises as the Void Ring; the GM's request asks for three."""
    table = demo_table(make_campaign, "l5r", [player, other_player])
    shinai = table.characters.get(name="Bayushi Shinai")  # Void 2
    data = {
        "label": "Show off",
        "characters": [shinai.pk],
        "roll_key": "trait:agility",
        "tn": 10,
        "raises": 3,
    }
    client_for(gm).post(reverse("requests_gm", args=[table.pk]), {**data, "visibility": "public"}, **HTMX)
    prompt = page_text(client_for(player).get(reverse("sheet_requests", args=[shinai.pk])))
    assert "The GM’s options do not fit this sheet: With Void 2 you can call at most 2 raises." in prompt


def test_freefall_request_names_an_action_its_dice_and_tn(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    """FREE/FALL, the core loop: dice are assigned to the action (l.11), rolled against the TN
    (Hard: 16+, l.33); one success is a basic success (l.41)."""
    table = demo_table(make_campaign, "freefall", [player, other_player])
    vesna = table.characters.get(name="Vesna Kade")
    data = {
        "label": "Slip past the drones",
        "characters": [vesna.pk],
        "roll_key": "attribute:ghost",
        "visibility": "public",
        "tn": "hard",
        "dice": 2,
        "conflict": "on",
    }
    assert client_for(gm).post(reverse("requests_gm", args=[table.pk]), data, **HTMX).status_code == 200
    prompt = page_text(client_for(player).get(reverse("sheet_requests", args=[vesna.pk])))
    assert "GHOST 5" in prompt and "2d20 vs TN 16" in prompt and "BODY" not in prompt
    fixed_dice(17, 9)
    assert answer(client_for(player), vesna, "attribute:ghost").status_code == 200
    entry = FeedEntry.objects.get()
    assert entry.request["dice"] == 2 and entry.request["tn"] == 16 and entry.result["successes"] == 1
    panel = page_text(client_for(gm).get(reverse("requests_gm", args=[table.pk]), **HTMX))
    assert "Vesna Kade: 2d20 vs TN 16: 1 success, success" in panel
    client_for(gm).post(reverse("request_result", args=[table.pk, RollRequest.objects.get().pk]), **HTMX)
    group = FeedEntry.objects.get(label="Slip past the drones: group result")
    assert group.summary == "1 of 1 answered: 1 succeeded, 0 failed. Vesna Kade 1 success vs TN 16, success"


def test_freefall_hack_request_answers_with_the_sheets_program_of_that_type(
    make_campaign, gm, player, other_player, client_for
):
    """FREE/FALL, Hacking: it needs an active program; the GM asks for a SPIKE hack."""
    table = demo_table(make_campaign, "freefall", [player, other_player])
    vesna = table.characters.get(name="Vesna Kade")  # runs Needle, a SPIKE program
    data = {"label": "Burn the lock", "characters": [vesna.pk], "roll_key": "hack:spike", "tn": "challenging"}
    client_for(gm).post(reverse("requests_gm", args=[table.pk]), {**data, "visibility": "public"}, **HTMX)
    assert prompt_keys(client_for(player), vesna) == [f"program:{vesna.ff_programs.get(name='Needle').pk}"]


# -- after answering: who sees the result ------------------------------------------------------------


def test_the_player_sees_their_own_result_on_the_sheet_after_answering(
    table, gm, player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind")
    fixed_dice(17)
    answer(client_for(player), mine, "ability:mind")
    entry = FeedEntry.objects.get()
    # Fetched again (a live refresh, a reload): the answer is still on the sheet.
    again = page_text(client_for(player).get(reverse("sheet_requests", args=[mine.pk])))
    assert "You rolled for the GM’s “Spot the ambush”" in again and entry.summary in again


@pytest.mark.parametrize("visibility", ["blind", "gm"])
def test_a_hidden_requests_answer_on_the_sheet(
    visibility, table, gm, player, other_player, client_for, fixed_dice
):
    """Blind: the player sees only that the roll was made. GM only: the roller and the GM see it."""
    from tests.campaigns.test_live_private import HIDDEN_MARKS

    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind", visibility=visibility)
    fixed_dice(17)
    answer(client_for(player), mine, "ability:mind")
    entry = FeedEntry.objects.get()
    body = client_for(player).get(reverse("sheet_requests", args=[mine.pk])).content.decode()
    if visibility == "blind":
        assert "A blind roll was made" in body and entry.summary not in body
        for mark in HIDDEN_MARKS:
            assert mark not in body, mark
    else:
        assert "You rolled" in body and entry.summary in body
    for url in (
        reverse("sheet_requests", args=[mine.pk]),
        mine.get_absolute_url(),
        reverse("table", args=[table.pk]),
    ):
        third = client_for(other_player).get(url).content.decode()
        assert entry.summary not in third and entry.cursor not in third and "Spot the ambush" not in third


# -- the group result ----------------------------------------------------------------------------------


def test_the_gm_sends_the_group_result_once(table, gm, player, other_player, client_for, fixed_dice):
    mine = table.characters.get(owner=player)
    theirs = table.characters.get(owner=other_player)
    url_for = lambda request: reverse("request_result", args=[table.pk, request.pk])  # noqa: E731
    ask(client_for(gm), table, [mine, theirs], roll_key="ability:mind")
    request = RollRequest.objects.get()
    early = client_for(gm).post(url_for(request), **HTMX)
    assert early.status_code == 422 and "Nobody has answered yet" in early.content.decode()

    fixed_dice(17)  # Mind 15, 17 against Difficulty 14: a success
    answer(client_for(player), mine, "ability:mind")
    assert client_for(player).post(url_for(request), **HTMX).status_code == 403
    for _ in range(2):  # a double click
        sent = client_for(gm).post(url_for(request), **HTMX)
        assert sent.status_code == 200 and "Group result sent to the table" in page_text(sent)
    group = FeedEntry.objects.get(label="Spot the ambush: group result")
    assert FeedEntry.objects.count() == 2 and group.visibility == "public" and group.author == gm
    assert group.summary.startswith("1 of 2 answered: 1 succeeded, 0 failed.")
    assert f"{mine.name} 17, success" in group.summary and f"{theirs.name} did not answer" in group.summary
    # The request is closed: the prompt leaves the sheet that did not answer, the answer the one that did.
    assert "The GM asks" not in page_text(
        client_for(other_player).get(reverse("sheet_requests", args=[theirs.pk]))
    )
    assert "You rolled" not in page_text(client_for(player).get(reverse("sheet_requests", args=[mine.pk])))
    assert group.summary in page_text(client_for(other_player).get(reverse("table", args=[table.pk])))
    # A prompt left open on a page from before rolls nothing now, and says why.
    left = RollRequestTarget.objects.get(character=theirs)
    late_url = reverse("sheet_request_roll", args=[theirs.pk, left.pk])
    late = client_for(other_player).post(late_url, {"key": "ability:mind"}, **HTMX)
    assert late.status_code == 422 and "That request is closed" in late.content.decode()
    assert FeedEntry.objects.count() == 2


@pytest.mark.parametrize(("visibility", "word"), [("blind", "blind"), ("gm", "GM-only")])
def test_a_hidden_requests_group_result_goes_to_everyone_only_when_the_gm_confirms_it_by_name(
    visibility, word, table, gm, player, other_player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind", visibility=visibility)
    fixed_dice(17)
    answer(client_for(player), mine, "ability:mind")
    request = RollRequest.objects.get()
    url = reverse("request_result", args=[table.pk, request.pk])
    panel = client_for(gm).get(reverse("requests_gm", args=[table.pk])).content.decode()
    assert f"Send the {word} results to everyone" in panel and "Send group result to me only" in panel
    # Asking for everyone without the box ticked (or with another kind named) is refused: nothing sent.
    for confirm in ("", "public", "blind" if visibility == "gm" else "gm"):
        refused = client_for(gm).post(url, {"audience": "everyone", "confirm": confirm}, **HTMX)
        assert refused.status_code == 422 and f"to send the {word} results to everyone" in page_text(refused)
    assert not FeedEntry.objects.filter(label__endswith="group result").exists()
    # A post that names no audience (a careless click, a hand-made post) sends it to the GM alone.
    assert client_for(gm).post(url, **HTMX).status_code == 200
    group = FeedEntry.objects.get(label__endswith="group result")
    assert group.visibility == "gm" and "17" in group.summary
    for seat in (player, other_player):
        assert group.summary not in client_for(seat).get(reverse("table", args=[table.pk])).content.decode()


@pytest.mark.parametrize("visibility", ["blind", "gm"])
def test_a_confirmed_hidden_group_result_is_public(
    visibility, table, gm, player, other_player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind", visibility=visibility)
    fixed_dice(17)
    answer(client_for(player), mine, "ability:mind")
    url = reverse("request_result", args=[table.pk, RollRequest.objects.get().pk])
    sent = client_for(gm).post(url, {"audience": "everyone", "confirm": visibility}, **HTMX)
    assert sent.status_code == 200 and "Group result sent" in page_text(sent)
    group = FeedEntry.objects.get(label__endswith="group result")
    assert group.visibility == "public"
    assert group.summary in page_text(client_for(other_player).get(reverse("table", args=[table.pk])))


def test_the_group_result_without_javascript_redirects_to_the_table(
    table, gm, player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind")
    fixed_dice(17)
    answer(client_for(player), mine, "ability:mind")
    response = client_for(gm).post(reverse("request_result", args=[table.pk, RollRequest.objects.get().pk]))
    assert response.status_code == 302 and response.url == reverse("table", args=[table.pk])
    assert FeedEntry.objects.filter(label__endswith="group result").count() == 1


def test_l5r_group_result_gives_each_total_against_its_tn(
    make_campaign, gm, player, other_player, client_for, fixed_dice
):
    table = demo_table(make_campaign, "l5r", [player, other_player])
    shinai = table.characters.get(name="Bayushi Shinai")
    tishi = table.characters.get(name="Isawa Tishi")
    data = {"label": "Climb", "characters": [shinai.pk, tishi.pk], "roll_key": "trait:agility", "tn": 15}
    client_for(gm).post(reverse("requests_gm", args=[table.pk]), {**data, "visibility": "public"}, **HTMX)
    fixed_dice(9, 8, 5)  # Agility 3: 3k3 = 22
    answer(client_for(shinai.owner), shinai, "trait:agility")
    fixed_dice(3, 2, 1)  # 6
    answer(client_for(tishi.owner), tishi, "trait:agility")
    client_for(gm).post(reverse("request_result", args=[table.pk, RollRequest.objects.get().pk]), **HTMX)
    group = FeedEntry.objects.get(label="Climb: group result")
    assert group.summary == (
        "2 of 2 answered: 1 succeeded, 1 failed. Bayushi Shinai 22 vs TN 15, success; "
        "Isawa Tishi 6 vs TN 15, failure"
    )


# -- on the wire: a GM-only request's answer reaches the GM and the roller, no third member ------------


@pytest.fixture
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
async def test_a_gm_only_answer_and_the_group_result_on_the_wire(
    in_memory_layer, table, gm, player, other_player
):
    from asgiref.sync import sync_to_async

    from play import requests as roll_requests
    from rules.dice import FixedFaces, Roller
    from tests.campaigns.test_consumers import open_socket

    mine = await sync_to_async(table.characters.get)(owner=player)
    asked = await sync_to_async(roll_requests.roll_request_create)(
        campaign=table,
        gm=gm,
        label="Sense the lie",
        characters=[mine],
        options={"difficulty": "14", "advantages": "0", "disadvantages": "0"},
        roll_key="ability:spirit",
        visibility="gm",
    )
    sockets = {user.username: (await open_socket(user, table))[0] for user in (gm, player, other_player)}
    target = await sync_to_async(RollRequestTarget.objects.get)(request=asked)
    entry = await sync_to_async(roll_requests.roll_request_answer)(
        character=mine, target_id=target.pk, key="ability:spirit", roller=Roller(FixedFaces([17])),
        author=player,
    )

    async def frames_until_pong(socket):
        await socket.send_json_to({"type": "ping"})
        frames = []
        while (frame := await socket.receive_json_from(timeout=FRAME_WAIT))["type"] != "pong":
            frames.append(frame)
        return frames

    heard = {name: await frames_until_pong(socket) for name, socket in sockets.items()}
    # A socket reads its browser and the channel layer side by side, so a broadcast queued before the
    # ping may still be sent after the pong (channels' own dispatch, stock mode): wait for what is due.
    while {"type": "refresh", "panel": "requests"} not in heard[gm.username]:
        heard[gm.username].append(await sockets[gm.username].receive_json_from(timeout=FRAME_WAIT))
    gm_entry = [f for f in heard[gm.username] if f["type"] == "entry"]
    roller_entry = [f for f in heard[player.username] if f["type"] == "entry"]
    assert len(gm_entry) == 1 and entry.summary in gm_entry[0]["html"]
    assert len(roller_entry) == 1 and entry.summary in roller_entry[0]["html"]  # GM only: the roller too
    assert {"type": "refresh", "panel": "requests"} in heard[gm.username]
    # The third member hears nothing of it: no entry, not even the panel's refresh.
    assert heard[other_player.username] == []

    # Sent with the GM's confirmation (play.request_views.request_result asks for it by name).
    send = sync_to_async(roll_requests.roll_request_send_result)
    group = await send(request=asked, gm=gm, to_everyone=True)
    for name, socket in sockets.items():
        frames = await frames_until_pong(socket)
        while not any(f["type"] == "entry" for f in frames):
            frames.append(await socket.receive_json_from(timeout=FRAME_WAIT))
        entries = [f for f in frames if f["type"] == "entry"]
        assert len(entries) == 1 and group.summary in entries[0]["html"], name
    for socket in sockets.values():
        await socket.disconnect()


def test_fivebyfive_request_names_the_untrained_roll(make_campaign, gm, player, other_player, client_for):
    """Five by Five: anything not on the sheet rolls untrained (0); the GM can ask every sheet for it."""
    table = demo_table(make_campaign, "fivebyfive", [player, other_player])
    mine = table.characters.get(owner=player)
    data = {"label": "Pick the lock", "characters": [mine.pk], "roll_key": "untrained"}
    data["visibility"] = "public"
    assert client_for(gm).post(reverse("requests_gm", args=[table.pk]), data, **HTMX).status_code == 200
    assert RollRequest.objects.get().roll_key == "untrained"
    prompt = page_text(client_for(player).get(reverse("sheet_requests", args=[mine.pk])))
    assert "Untrained 0" in prompt and "Brawler" not in prompt


@pytest.mark.parametrize("system", ["fivebyfive", "freefall", "triad", "l5r"])
def test_the_prompts_read_the_sheet_once_however_many_wait(system, demo_character, gm, player, client_for):
    """Each waiting prompt offers the sheet's buttons for it: the sheet's rows are read once for all."""
    character = demo_character(system)
    form = system_for(character.campaign).options_form(character=character)
    options = {name: field.initial for name, field in form.fields.items() if field.initial is not None}
    url = reverse("sheet_requests", args=[character.pk])
    counted = []
    for _ in range(3):
        roll_request_create(
            campaign=character.campaign,
            gm=gm,
            label="Asked",
            characters=[character],
            options=options,
            visibility="public",
        )
        with CaptureQueriesContext(connection) as queries:
            assert client_for(player).get(url, **HTMX).status_code == 200
        counted.append(len(queries))
    assert counted[0] == counted[1] == counted[2], counted
