"""A roll request reaches the player on the table page too: their own prompts show there, answer there,
and refresh there; nobody else's prompts and nothing of the GM's panel."""

import re

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play.models import RollRequestTarget

from .conftest import HTMX, page_text
from .test_requests import ask


@pytest.fixture
def table(make_campaign, player, other_player):
    from sheets.demo import load_demo_characters

    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


def table_page(client, campaign):
    return client.get(reverse("table", args=[campaign.pk]))


def test_the_table_page_shows_the_players_own_prompt_and_answers_it_there(
    table, gm, player, other_player, client_for, fixed_dice
):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind", label="Spot the ambush")
    target = RollRequestTarget.objects.get(character=mine)

    page = table_page(client_for(player), table)
    html = page.content.decode()
    assert f'id="table-requests-{mine.pk}"' in html and 'data-live-panel="requests"' in html
    # It refreshes and answers as the table's own panel, not the sheet's (whose id it does not take).
    assert f'data-refresh-url="{reverse("sheet_requests", args=[mine.pk])}?on=table"' in html
    answer_url = f'{reverse("sheet_request_roll", args=[mine.pk, target.pk])}?on=table'
    assert f'hx-post="{answer_url}"' in html and 'id="sheet-requests"' not in html
    assert f"The GM asks {mine.name}: Spot the ambush" in page_text(page)
    assert "requests-gm" not in html  # the GM's panel is the GM's

    # Someone else at the table sees no prompt of this player's.
    assert "Spot the ambush" not in page_text(table_page(client_for(other_player), table))

    refreshed = client_for(player).get(f'{reverse("sheet_requests", args=[mine.pk])}?on=table', **HTMX)
    assert f'id="table-requests-{mine.pk}"' in refreshed.content.decode()

    fixed_dice(3)
    answered = client_for(player).post(answer_url, {"key": "ability:mind"}, **HTMX)
    assert answered.status_code == 200
    target.refresh_from_db()
    assert target.entry == FeedEntry.objects.get()
    text = page_text(answered)
    assert f'id="table-requests-{mine.pk}"' in answered.content.decode()
    assert "The GM asks" not in text and re.search(r"You rolled for the GM’s “Spot the ambush”", text)


def test_the_sheet_keeps_its_own_prompt_panel(table, gm, player, client_for):
    mine = table.characters.get(owner=player)
    ask(client_for(gm), table, [mine], roll_key="ability:mind")
    html = client_for(player).get(mine.get_absolute_url()).content.decode()
    assert 'id="sheet-requests"' in html and "?on=table" not in html
    assert "The GM asks: Spot the ambush" in page_text(client_for(player).get(mine.get_absolute_url()))


def test_the_gms_request_form_words_blind_for_the_gm(table, gm, client_for):
    text = page_text(table_page(client_for(gm), table))
    assert "Blind (you see it, the player does not)" in text and "I don't" not in text
