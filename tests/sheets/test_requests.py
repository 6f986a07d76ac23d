"""The GM asks characters for a roll; players answer from their sheets; the GM sees answers gather."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play.models import RollRequest, RollRequestTarget

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
