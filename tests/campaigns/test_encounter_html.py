"""The turn order and the table's encounter panel, drawn in Python (play/encounter_html.py): every name
the GM or a player typed is escaped wherever it lands, the GM's controls are the GM's alone and carry
the page's CSRF token, their addresses are the URLconf's, and the ends of the order cannot move past it."""

import re

import pytest
from django.urls import reverse

from play import encounters
from sheets.demo import load_demo_characters
from tests.npcs import sample_npc

pytestmark = pytest.mark.django_db

HOSTILE = '<b title="h0stile">&amp;\'"'
ESCAPED = "&lt;b title=&quot;h0stile&quot;&gt;&amp;amp;&#x27;&quot;"


@pytest.fixture
def fight(make_campaign, player):
    """A FREE/FALL fight being set up (the GM may still reorder it and take combatants out), every
    name in it hostile: the encounter's, a character's and two quick NPCs'."""
    campaign = make_campaign("freefall", players=[player])
    load_demo_characters(campaign, players=[player])
    character = campaign.characters.get(owner=player)
    character.name = f"Ana {HOSTILE}"
    character.save(update_fields=["name"])
    encounter = encounters.encounter_create(campaign=campaign, name=f"Ambush {HOSTILE}")
    encounters.combatant_add_character(encounter=encounter, character=character)
    for name in (f"Thug {HOSTILE}", f"Boss {HOSTILE}"):
        encounters.combatant_add_npc(encounter=encounter, name=name, cleaned_data=sample_npc("freefall"))
    encounter.refresh_from_db()
    return campaign, encounter


def pages(campaign, encounter, gm, player, client_for) -> dict:
    return {
        "player's panel": client_for(player).get(reverse("encounter_panel", args=[campaign.pk])),
        "GM's panel": client_for(gm).get(reverse("encounter_panel", args=[campaign.pk])),
        "GM's page": client_for(gm).get(reverse("encounter", args=[campaign.pk, encounter.pk])),
    }


def test_every_typed_name_is_escaped_wherever_it_lands(fight, gm, player, client_for):
    campaign, encounter = fight
    for where, response in pages(campaign, encounter, gm, player, client_for).items():
        html = response.content.decode()
        assert "h0stile" in html, where
        # Nowhere raw: not in a heading, a row, its data-combatant, an aria-label or the avatar's label.
        assert '<b title="h0stile">' not in html, where
        order = html[html.index("encounter-order") :]
        for name in ("Ana", "Thug", "Boss"):
            assert f"<bdi>{name} {ESCAPED}</bdi>" in order, (where, name)
            assert f'data-combatant="{name} {ESCAPED}"' in order, (where, name)
        if where != "GM's page":  # the panel's heading names the fight; the GM's page has its own
            assert f"<bdi>Ambush {ESCAPED}</bdi>" in html, where


def test_the_gms_controls_are_the_gms_with_the_pages_token(fight, gm, player, client_for):
    campaign, encounter = fight
    drawn = pages(campaign, encounter, gm, player, client_for)
    move = reverse("encounter_action", args=[campaign.pk, encounter.pk, "move"])
    remove = reverse("encounter_action", args=[campaign.pk, encounter.pk, "remove"])
    players = drawn["player's panel"].content.decode()
    assert move not in players and remove not in players and "csrfmiddlewaretoken" not in players
    assert "Run it" not in players
    for where in ("GM's panel", "GM's page"):
        html = drawn[where].content.decode()
        order = html[html.index('class="list-group list-group-numbered encounter-order"') :]
        order = order[: order.index("</ol>")]
        forms = re.findall(r'<form method="post" action="([^"]+)">(.*?)</form>', order, re.S)
        # Three combatants: each has up, down and remove, each form with the page's token, the version
        # the page was drawn at and the combatant it moves.
        assert sorted(action for action, _ in forms) == sorted([move] * 6 + [remove] * 3), where
        assert all(body.count('name="csrfmiddlewaretoken" value="') == 1 for _, body in forms), where
        assert all(f'name="version" value="{encounter.version}"' in body for _, body in forms), where
        arrows = re.findall(r'aria-label="Move ([^"]+) (up|down)"( disabled)?>', order)
        assert [bool(disabled) for _, _, disabled in arrows] == [True, False, False, False, False, True], (
            where
        )
        assert {name for name, _, _ in arrows} == {f"{who} {ESCAPED}" for who in ("Ana", "Thug", "Boss")}, (
            where
        )
    assert f'href="{encounter.get_absolute_url()}">Run it</a>' in drawn["GM's panel"].content.decode()


def test_no_fight_says_so_and_the_gm_may_start_one(make_campaign, gm, player, client_for):
    campaign = make_campaign("triad", players=[player])
    url = reverse("encounter_panel", args=[campaign.pk])
    players = client_for(player).get(url).content.decode()
    assert "No fight going on." in players and "Start one" not in players
    start = f'href="{reverse("encounters", args=[campaign.pk])}">Start one</a>'
    assert start in client_for(gm).get(url).content.decode()
