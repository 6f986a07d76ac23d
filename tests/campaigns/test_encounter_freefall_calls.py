"""FREE/FALL's calls that are the GM's: the TN tier of a declared action, and the prerequisite a player
claims, said in the declaration line the GM reads and paid for when locked in. Through the pages."""

import html

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from sheets.demo import load_demo_characters
from sheets.systems.freefall.sheet import system as freefall_sheet

from .test_player_turns import advance_to, combatant, post

pytestmark = pytest.mark.django_db


@pytest.fixture
def fight(make_campaign, gm, player, other_player, client_for):
    """Vesna Kade (the player's: Infiltration, BODY 3 current) and a ganger; the GM starts it setting the
    scene's TN tier to Hard on the start button."""
    campaign = make_campaign("freefall", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    vesna = campaign.characters.get(owner=player)
    encounter = services.encounter_create(campaign=campaign, name="Dock")
    services.combatant_add_character(encounter=encounter, character=vesna)
    ganger = services.combatant_add_npc(
        encounter=encounter, name="Ganger", cleaned_data={"body": 3, "mind": 2, "ghost": 2, "av": 1, "dv": 5}
    )
    url = reverse("encounter_action", args=[campaign.pk, encounter.pk, "start"])
    client_for(gm).post(url, {"version": encounter.version, "start-difficulty": "hard"})
    encounter.refresh_from_db()
    assert encounter.status == "running"
    advance_to(encounter, vesna, gm)
    return campaign, encounter, vesna, ganger


def declaring(encounter, character):
    return combatant(encounter, character).state["declaring"]


def test_rule_tn_tier_is_the_gms_call(fight, gm, player, client_for):
    """FREE/FALL l.29-35: "Roll assigned dice against Target Number (TN). Challenging: TN 11+ / Hard: TN
    16+ / Near Impossible: TN 21+". The tier is the GM's: a player's declaration takes the scene's tier
    the GM set, and a POST that names a tier is refused; the GM's form shows that tier first and may
    pick another."""
    campaign, encounter, vesna, ganger = fight
    panel = client_for(player).get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    assert 'name="attack-difficulty"' not in panel and 'name="task-difficulty"' not in panel
    actor = combatant(encounter, vesna)
    fields = {"name": "Sneak", "dice": "1", "prerequisite": "specialty"}
    refused = post(client_for(player), encounter, actor, "task", difficulty="challenging", **fields)
    assert refused.status_code == 422 and "the GM's call" in html.unescape(refused.content.decode())
    assert post(client_for(player), encounter, actor, "task", **fields).status_code == 200
    encounter.refresh_from_db()
    assert declaring(encounter, vesna)[-1]["tn"] == 16  # the GM's Hard, not the player's Challenging
    page = client_for(gm).get(reverse("encounter", args=[campaign.pk, encounter.pk])).content.decode()
    assert '<option value="hard" selected>' in page  # the GM's forms start at the scene's tier
    assert post(client_for(gm), encounter, actor, "task", difficulty="near_impossible", **fields).status_code
    encounter.refresh_from_db()
    assert declaring(encounter, vesna)[-1]["tn"] == 21


def test_rule_prerequisite_claimed_is_said_and_its_cost_paid(fight, gm, player, client_for):
    """FREE/FALL l.17-25: "To roll for a Specialized Action ... you must meet ONE condition: 1. HAVE THE
    GEAR ... 2. HAVE THE SPECIALTY ... 3. SPEND ATTRIBUTE: Spend 1 Current Attribute to force it. 4. TAKE
    HARM: Take 1 Level of Harm immediately". The claim is the player's; the declaration line the GM reads
    says which was claimed, and spending a point comes off the sheet when the declaration is locked in."""
    campaign, encounter, vesna, ganger = fight
    client = client_for(player)
    actor = combatant(encounter, vesna)
    body = freefall_sheet.state(vesna).current.body
    for name, prerequisite in (("Pick the lock", "specialty"), ("Force the door", "spend:body")):
        assert post(
            client, encounter, actor, "task", name=name, dice="1", prerequisite=prerequisite
        ).status_code
        encounter.refresh_from_db()
    # The GM reads the claims while the player is still declaring (the panel beside Vesna) ...
    page = client_for(gm).get(reverse("encounter", args=[campaign.pk, encounter.pk])).content.decode()
    specialty = vesna.freefall.specialty
    assert f"Pick the lock 1d20 vs TN 16 (specialty: {specialty})" in page
    assert "Force the door 1d20 vs TN 16 (spends 1 BODY)" in page
    assert post(client, encounter, actor, "declare").status_code == 200
    line = FeedEntry.objects.get(label=f"Dock: {vesna.name} declares")
    assert line.summary == (
        f"Pick the lock 1d20 vs TN 16 (specialty: {specialty}); Force the door 1d20 vs TN 16 (spends 1 BODY)"
        " (2 of 5 dice)"
    )
    assert f"{vesna.name} spends 1 BODY to force an action" in line.result["changes"]
    vesna.refresh_from_db()
    assert freefall_sheet.state(vesna).current.body == body - 1
