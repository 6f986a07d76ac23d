"""Reinforcements in Five by Five and FREE/FALL: a quick NPC added from the GM's page to a running fight
takes the place the book gives a newcomer, and whoever acts now keeps the turn."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from sheets.demo import load_demo_characters
from sheets.registry import combat_for

from .encounter import reload, roller

pytestmark = pytest.mark.django_db


def add_npc(client, encounter, name):
    """The GM's "add NPC" form, filled with the system's sample foe, as the page posts it."""
    data = {f"npc-{key}": value for key, value in combat_for(encounter.campaign).sample_npc().items()}
    data = {k: v for k, v in data.items() if v is not False}  # an unticked box is not posted
    data.update({"name": name, "version": encounter.version})
    url = reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "add-npc"])
    assert client.post(url, data).status_code == 302
    return reload(encounter)


def order(encounter):
    return [c.name for c in encounter.combatants.order_by("position")]


def fight(make_campaign, gm, player, other_player, system, *npcs):
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    for character in campaign.characters.order_by("pk"):
        services.combatant_add_character(encounter=encounter, character=character)
    sample = combat_for(campaign).npc_form_class(combat_for(campaign).sample_npc())
    assert sample.is_valid(), sample.errors
    for name in npcs:
        services.combatant_add_npc(encounter=encounter, name=name, cleaned_data=sample.cleaned_data)
    return encounter


def test_rule_five_by_five_newcomers_take_their_sides_place(
    make_campaign, gm, player, other_player, client_for
):
    """Five by Five l.331-351: "At the beginning of combat before the GM's side takes a turn, each player
    rolls to 'steal initiative'"; "Player Characters that steal initiative go first. GM controlled
    characters go second. Remaining Player Characters go third." A quick NPC joining a running fight acts
    after the GM's side, before the players who did not steal; stealing was at the start, so the
    newcomer rolls nothing."""
    encounter = fight(make_campaign, gm, player, other_player, "fivebyfive", "Bandit")
    # Larry untrained 3 x 3 = 9 fails; Mara Alertness 2: 1 x 2 = 2, steals. Mara, Bandit, Larry.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(3, 3, 1, 2), author=gm
    )
    encounter, _ = reload(encounter)
    assert order(encounter) == ["Mara Quill", "Bandit", "Larry Booker"]
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, _ = reload(encounter)
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Bandit"
    encounter, _ = add_npc(client_for(gm), encounter, "Second bandit")
    assert order(encounter) == ["Mara Quill", "Bandit", "Second bandit", "Larry Booker"]
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Bandit"
    line = FeedEntry.objects.get(label="Ambush: Second bandit joins")
    assert line.summary.startswith("Second bandit joins the fight, after the GM's side.")
    assert not line.result.get("dice")  # no roll to steal initiative


def test_rule_freefall_newcomer_declares_last(make_campaign, gm, player, other_player, client_for):
    """FREE/FALL l.9: "Everyone declares actions simultaneously"; l.51: "Actions resolve in Reverse Order
    of Declaration (Last declared acts first)". The encounter's order is the declaration order: a
    newcomer while declarations are made declares last (so resolves first); one arriving after them
    declares from the next round, and the resolution under way is not disturbed."""
    encounter = fight(make_campaign, gm, player, other_player, "freefall", "Ganger")
    services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(), author=gm)
    encounter, _ = reload(encounter)
    seats = encounter.state["seats"]
    encounter, _ = add_npc(client_for(gm), encounter, "Sniper")
    assert order(encounter)[-1] == "Sniper" and encounter.state["seats"] == seats + 1
    assert "declares last this round" in FeedEntry.objects.get(label="Ambush: Sniper joins").summary
    # Everyone passes: the last declaration turn is the Sniper's, then the (empty) resolution wraps.
    for _ in range(seats):
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
        encounter.refresh_from_db()
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Sniper"
    # The Sniper declares an attack and locks it in; resolution opens on it (last declared, first).
    target = encounter.combatants.exclude(side="gm").order_by("position").first()
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=encounter.combatants.get(name="Sniper").pk,
        action="attack",
        target_id=target.pk,
        prefix="attack",
        roller=roller(),
        author=gm,
        data={
            "attack-name": "Shot",
            "attack-dice": "2",
            "attack-difficulty": "hard",
            "attack-kind": "physical",
        },
    )
    encounter.refresh_from_db()
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=encounter.combatants.get(name="Sniper").pk,
        action="declare",
        target_id=None,
        prefix="declare",
        roller=roller(),
        author=gm,
        data={},
    )
    encounter, _ = reload(encounter)
    assert encounter.state["phase"] == "resolve"
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Sniper"
    # A second newcomer during resolution waits for the next round: the Sniper's roll is still due.
    encounter, _ = add_npc(client_for(gm), encounter, "Lookout")
    assert encounter.state["seats"] == seats + 1
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Sniper"
    assert "declares from the next round" in FeedEntry.objects.get(label="Ambush: Lookout joins").summary
