"""A scripted Triad fight through the services, with fixed dice, checking every number after every step."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from play.models import Combatant
from rules.dice import FixedFaces, Roller
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.history import snapshot
from sheets.models import SheetChange


def roller(*faces):
    return Roller(FixedFaces(faces))


@pytest.fixture
def fight(make_campaign, gm, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(name="Abraham Van Helsing")  # Body 8 Mind 15 Spirit 13, light weapon
    encounter = services.encounter_create(campaign=campaign, name="Crypt")
    services.combatant_add_character(encounter=encounter, character=helsing)
    ghoul = services.combatant_add_npc(
        encounter=encounter,
        name="Ghoul",
        cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "light"},
    )
    return encounter, helsing, ghoul


def reload(encounter):
    encounter.refresh_from_db()
    return encounter, {c.name: c for c in encounter.combatants.all()}


def test_a_short_triad_fight(fight, gm):
    encounter, helsing, ghoul = fight
    before_fight = snapshot(helsing)

    # Initiative: Van Helsing rolls 3 -> his best ability (Mind 15) counts: 15; the ghoul has 10 + 5 = 15.
    # Tie: the die breaks it (3 beats the NPC's 0), so Van Helsing acts first.
    services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(3), author=gm)
    encounter, by_name = reload(encounter)
    assert (by_name["Abraham Van Helsing"].initiative, by_name["Ghoul"].initiative) == (15, 15)
    assert [c.name for c in encounter.combatants.order_by("position")] == ["Abraham Van Helsing", "Ghoul"]
    assert (encounter.round, encounter.turn, encounter.status) == (1, 0, "running")

    # Van Helsing attacks with Body 8 vs Difficulty 10 and rolls 17: a critical (17 >= 15).
    # Light weapon 3, doubled by the critical = 6, minus the ghoul's light armor 2 = 4: Difficulty 10 -> 6.
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by_name["Abraham Van Helsing"].pk,
        action="attack",
        target_id=ghoul.pk,
        data={"attack-ability": "body"},
        prefix="attack",
        roller=roller(17),
        author=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Ghoul"].stats["difficulty"] == 6
    entry = FeedEntry.objects.filter(label__contains="attacks Ghoul").get()
    assert entry.result["outcome"] == "critical" and entry.result["total"] == 17
    assert "Ghoul: Difficulty 10 -> 6" in entry.result["changes"]

    # A second action: he attacks again and rolls 4: total max(4, 8) = 8 vs 6, a success.
    # 3 - 2 armor = 1: Difficulty 6 -> 5.
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by_name["Abraham Van Helsing"].pk,
        action="attack",
        target_id=ghoul.pk,
        data={"attack-ability": "body"},
        prefix="attack",
        roller=roller(4),
        author=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Ghoul"].stats["difficulty"] == 5
    # Two actions used: nothing left this turn.
    with pytest.raises(EncounterError, match="not open"):
        services.encounter_act(
            encounter=encounter,
            version=encounter.version,
            actor_id=by_name["Abraham Van Helsing"].pk,
            action="move",
            target_id=None,
            data={},
            roller=roller(),
            author=gm,
        )
    encounter.refresh_from_db()

    # The ghoul's turn: Van Helsing defends with Body 8 vs Difficulty 5 and rolls 1: a fumble.
    # Medium weapon 6, no armor: Body 8 -> 2, and 6 points stun him.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert encounter.turn == 1
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by_name["Ghoul"].pk,
        action="attack",
        target_id=by_name["Abraham Van Helsing"].pk,
        data={},
        roller=roller(1),
        author=gm,
    )
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.stunned) == (2, True)
    hit = SheetChange.objects.get(reason="6 damage from Ghoul")
    assert list(hit.before.values()) == [8, False] and list(hit.after.values()) == [2, True]

    # Round 2: Van Helsing's turn starts stunned (disadvantage): he rolls 20 and 19, keeps 19: a critical
    # against Difficulty 5: 6 - 2 = 4... the ghoul is at 1.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    assert (encounter.round, encounter.turn) == (2, 0)
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by_name["Abraham Van Helsing"].pk,
        action="attack",
        target_id=ghoul.pk,
        data={"attack-ability": "body"},
        prefix="attack",
        roller=roller(20, 19),
        author=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Ghoul"].stats["difficulty"] == 1
    # Still stunned, so two dice again, keeping the lower: 12 vs 1 is a critical too (12 >= 6): 6 - 2 = 4,
    # more than the 1 left: the ghoul drops to 0 and is out.
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by_name["Abraham Van Helsing"].pk,
        action="attack",
        target_id=ghoul.pk,
        data={"attack-ability": "body"},
        prefix="attack",
        roller=roller(12, 15),
        author=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Ghoul"].stats["difficulty"] == 0 and by_name["Ghoul"].out

    # His turn ends: the stun wears off. The ghoul is out, so the turn comes straight back to him in round 3.
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by_name = reload(encounter)
    helsing.triad.refresh_from_db()
    assert helsing.triad.stunned is False
    assert (encounter.round, encounter.turn) == (3, 0)

    # Every change to the sheet is traced, and undoing them in reverse restores the sheet exactly.
    from sheets.history import change_undo

    for change in SheetChange.objects.filter(character=helsing).order_by("-pk"):
        change_undo(change=change, author=gm)
    helsing.refresh_from_db()
    assert snapshot(helsing) == before_fight


def test_stale_encounter_version_is_refused(fight, gm):
    encounter, _, _ = fight
    version = encounter.version
    services.encounter_start(encounter=encounter, version=version, roller=roller(3), author=gm)
    with pytest.raises(EncounterError, match="moved on"):
        services.encounter_next_turn(encounter=encounter, version=version, author=gm)


def test_start_needs_both_sides(make_campaign, gm):
    campaign = make_campaign("triad")
    encounter = services.encounter_create(campaign=campaign, name="Empty")
    with pytest.raises(EncounterError, match="at least one player character"):
        services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(), author=gm)


def test_players_see_the_panel_but_not_npc_numbers(fight, gm, player, client_for):
    encounter, _, _ = fight
    gm_panel = client_for(gm).get(reverse("encounter_panel", args=[encounter.campaign_id])).content.decode()
    player_panel = (
        client_for(player).get(reverse("encounter_panel", args=[encounter.campaign_id])).content.decode()
    )
    assert "Difficulty 10/10" in gm_panel
    assert "Ghoul" in player_panel and "Difficulty 10" not in player_panel


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404)])
def test_only_the_gm_runs_encounters(fight, player, outsider, client_for, who, status):
    encounter, _, _ = fight
    user = {"player": player, "outsider": outsider}[who]
    before = list(Combatant.objects.values())
    url = reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "start"])
    assert client_for(user).post(url, {"version": encounter.version}).status_code == status
    assert client_for(user).get(encounter.get_absolute_url()).status_code == status
    assert list(Combatant.objects.values()) == before
