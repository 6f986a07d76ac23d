"""Names people type cannot break the page: each is bidi-isolated wherever it is shown."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns.models import Campaign
from play import encounters
from sheets.demo import load_demo_characters
from sheets.registry import game_systems

# 80 characters without a break opportunity, right-to-left letters first: without isolation the
# Hebrew would pull the "· GM" and "played by" text around it into its own direction.
LONG = "שלום" * 5 + "X" * 60
SYSTEMS = [config.label for config in game_systems()]
HTMX = {"HTTP_HX_REQUEST": "true"}


def isolated(body: str, name: str) -> bool:
    return f"<bdi>{name}</bdi>" in body


@pytest.fixture
def long_player(db):
    return get_user_model().objects.create_user(username="p" + LONG[:79], password="x")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_long_name_is_isolated_on_every_page(
    system, make_campaign, gm, long_player, other_player, client_for
):
    campaign = make_campaign(system, players=[long_player, other_player])
    Campaign.objects.filter(pk=campaign.pk).update(name=LONG)
    load_demo_characters(campaign, players=[long_player, other_player])
    character = campaign.characters.get(owner=long_player)
    character.name = LONG
    character.save(update_fields=["name"])
    assert len(character.name) == 80

    player = client_for(long_player)
    sheet = player.get(character.get_absolute_url()).content.decode()
    assert isolated(sheet, LONG)  # the heading (an editable field), the breadcrumb
    assert sheet.count(f"<bdi>{LONG}</bdi>") >= 2
    assert isolated(sheet, long_player.username)  # "played by"
    # The navbar keeps one line: the name is cut short there, the whole of it in the title.
    assert f'title="{long_player.username}"' in sheet

    key = system_roll_key(player, character)
    rolled = player.post(reverse("sheet_roll", args=[character.pk, key]), {"visibility": "public"}, **HTMX)
    assert rolled.status_code == 200, rolled.content.decode()[:500]

    table = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    assert isolated(table, LONG)  # the table's heading, the feed entry's character and the party panel
    assert table.count(f"<bdi>{LONG}</bdi>") >= 3
    assert isolated(table, long_player.username)

    detail = client_for(gm).get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    assert isolated(detail, LONG) and isolated(detail, long_player.username)
    dashboard = client_for(gm).get(reverse("dashboard")).content.decode()
    assert isolated(dashboard, LONG)


def system_roll_key(client, character) -> str:
    """The first roll button on the sheet (each system names its rolls its own way)."""
    body = client.get(reverse("sheet_buttons", args=[character.pk])).content.decode()
    marker = 'data-roll-key="'
    start = body.index(marker) + len(marker)
    return body[start : body.index('"', start)]


def test_encounter_names_are_isolated(make_campaign, gm, player, other_player, client_for):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    character = campaign.characters.get(owner=player)
    character.name = LONG
    character.save(update_fields=["name"])
    encounter = encounters.encounter_create(campaign=campaign, name=LONG[::-1])
    encounters.combatant_add_character(encounter=encounter, character=character)
    body = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert isolated(body, LONG[::-1])  # the heading and the breadcrumb
    assert isolated(body, LONG)  # the turn order
