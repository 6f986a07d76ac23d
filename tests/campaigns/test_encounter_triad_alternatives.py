"""Triad's calls and alternatives to damage, played through the pages a GM and a player use (the turn
panel's route, the sheet's field and roll routes) with fixed dice: the GM's score for an attack, grappling,
disarming, tripping, Stunning Strikes, restrained, the final blow that spares, and reinforcements placed by
initiative."""

import html

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from play.models import Combatant
from sheets.models import SheetChange
from sheets.registry import combat_for
from tests.campaigns.encounter import show_npc_numbers
from tests.campaigns.test_player_turns import actor_of, advance_to, combatant, make_fight, post
from tests.conftest import HTMX, page_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def ambush(make_campaign, gm, player, other_player):
    """Van Helsing (the player's: Body 8, Mind 15, Spirit 13, light weapon, no armor) and Zheng Yi Sao
    against a Bandit (Difficulty 10, medium weapon, light armor); Van Helsing's turn."""
    campaign, encounter, mine, theirs, bandit = make_fight(make_campaign, gm, player, other_player, "triad")
    show_npc_numbers(campaign)  # the lines' numbers are what these tests read
    return campaign, encounter, mine, bandit


def attack(client, encounter, actor, target, **fields):
    encounter.refresh_from_db()
    return post(client, encounter, actor, "attack", target=target, **fields)


def bandit_turn(encounter, bandit, gm):
    for _ in range(6):
        if actor_of(encounter).pk == bandit.pk:
            return
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    raise AssertionError("the bandit's turn never came")


def gm_acts(client, encounter, actor, action, target=None, **fields):
    """The GM's action from the turn route, settling a defence at once ("Resolve at once")."""
    encounter.refresh_from_db()
    data = {"version": encounter.version, "actor": actor.pk, "action": action, "resolve_now": "on"}
    if target is not None:
        data["target"] = target.pk
    data.update({f"{action}-{name}": value for name, value in fields.items()})
    response = client.post(reverse("turn_act", args=[encounter.campaign_id, encounter.pk]), data, **HTMX)
    assert response.status_code == 204  # done: the GM has no turn panel
    return response


def last_line(label_part):
    return FeedEntry.objects.filter(label__contains=label_part).order_by("pk").last()


def offered(encounter):
    encounter.refresh_from_db()
    combatants = services.combatants_of(encounter)
    actor = services.current_actor(encounter, combatants)
    return [a.key for a in combat_for(encounter.campaign).actions(encounter, actor, combatants)]


def set_condition(client, character, path, on=True):
    character.refresh_from_db()
    url = reverse("sheet_field", args=[character.pk, path])
    return client.post(url, {"value": "on" if on else "", "version": character.version}, **HTMX)


# ----- the GM's call: the score an attack rolls ------------------------------------------------------------


def test_the_score_a_weapon_attack_rolls_is_the_gms_call(ambush, gm, player, client_for, fixed_dice):
    """Triad l.22 ("Body (strength, dexterity, survival, physical tasks)"), l.33 ("one current, most
    appropriate ability score"): the GM picks, Body by default. Issue 19's scholar: Mind 15 would have made
    "15, critical" where Body 8 fails and takes the counter-blow."""
    campaign, encounter, mine, bandit = ambush
    panel = client_for(player).get(reverse("turn_panel", args=[campaign.pk])).content.decode()
    assert 'name="attack-ability"' not in panel
    gm_page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert '<option value="body" selected>Body</option>' in gm_page
    fixed_dice(3)
    refused = attack(client_for(player), encounter, combatant(encounter, mine), bandit, ability="mind")
    assert refused.status_code == 422 and "the GM's call" in html.unescape(refused.content.decode())
    attack(client_for(player), encounter, combatant(encounter, mine), bandit)
    line = last_line("attacks Bandit")
    assert line.summary.startswith("Body 8 vs 10: 8, failure")  # Mind was not the player's to pick
    assert f"{mine.name}: Body 8 -> 2 (6 damage)" in line.result["changes"]
    # The GM, acting for the player, calls Mind (a psychic assault, say): that is what rolls.
    advance_to(encounter, mine, gm)
    while actor_of(encounter).character_id != mine.pk or encounter.round == 1:
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    fixed_dice(16, 12)  # stunned by the counter-blow: two dice, the lower kept
    attack(client_for(gm), encounter, combatant(encounter, mine), bandit, ability="mind")
    assert last_line("attacks Bandit").summary.startswith("Mind 15 vs 10: 15, critical")


# ----- alternatives to damage (l.125) ----------------------------------------------------------------------


def test_a_grapple_instead_of_damage_weighs_on_the_foes_body_tasks(
    ambush, gm, player, client_for, fixed_dice
):
    """Triad l.125: "grappling an adjacent target (causing ongoing Disadvantage on Body tasks unless breaking
    free)" - declared before the roll, no damage. The grappled NPC's blows and its try to break free are
    Body tasks: an NPC does not roll, so its disadvantage is the character's advantage."""
    campaign, encounter, mine, bandit = ambush
    fixed_dice(17)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="grapple")
    line = last_line("attacks Bandit")
    assert "to grapple" in line.summary
    assert line.result["changes"] == [
        "Bandit is grappled (disadvantage on its Body tasks until it breaks free)"
    ]
    bandit.refresh_from_db()
    assert bandit.stats["difficulty"] == 10 and bandit.stats["conditions"] == ["grappled"]
    bandit_turn(encounter, bandit, gm)
    assert "break_free" in offered(encounter)
    # Its blow: Van Helsing defends Body 8 vs 10 with advantage (3 and 12, the 12 kept): held off.
    fixed_dice(3, 12)
    gm_acts(client_for(gm), encounter, bandit, "attack", target=combatant(encounter, mine))
    blow = last_line("Bandit attacks")
    assert [d["kept"] for d in blow.result["dice"]] == [False, True] and "Bandit grappled" in blow.summary
    # Breaking free: Van Helsing holds on with Body 8 vs 10, advantage (11 and 4): 11, a success.
    fixed_dice(11, 4)
    gm_acts(client_for(gm), encounter, bandit, "break_free", target=combatant(encounter, mine))
    assert last_line("break free").result["changes"] == [f"{mine.name} keeps hold of Bandit"]
    bandit.refresh_from_db()
    assert bandit.stats["conditions"] == ["grappled"]


def test_a_grappled_character_rolls_body_at_disadvantage_and_breaks_free(
    ambush, gm, player, client_for, fixed_dice
):
    """Triad l.125 and the rope example of l.63: the hold's disadvantage weighs on every Body task, the one
    that breaks it included; from the sheet as in the fight. Mind tasks are untouched."""
    campaign, encounter, mine, bandit = ambush
    assert set_condition(client_for(gm), mine, "grappled").status_code == 200
    page = page_text(client_for(player).get(mine.get_absolute_url()))
    assert "Grappled (disadvantage on Body tasks until broken free) yes" in page
    fixed_dice(18, 4)
    roll = reverse("sheet_roll", args=[mine.pk, "ability:body"])
    client_for(player).post(
        roll, {"difficulty": 10, "advantages": 0, "disadvantages": 0, "visibility": "public"}, **HTMX
    )
    assert FeedEntry.objects.order_by("pk").last().result["total"] == 8  # the 4 kept, Body 8 counts
    # Breaking free of the bandit: Body 8 vs 10 at disadvantage (15 and 12, the 12 kept): a success.
    assert "break_free" in offered(encounter)
    fixed_dice(15, 12)
    post(client_for(player), encounter, combatant(encounter, mine), "break_free", target=bandit)
    line = last_line("breaks free of Bandit")
    assert [d["kept"] for d in line.result["dice"]] == [False, True] and line.result["outcome"] == "success"
    mine.triad.refresh_from_db()
    assert mine.triad.grappled is False
    assert SheetChange.objects.filter(character=mine, reason="Broke free of Bandit").exists()


def test_disarming_leaves_the_foe_its_fists_until_it_picks_the_weapon_up(
    ambush, gm, player, client_for, fixed_dice
):
    """Triad l.125: "disarming (knocking away a held weapon)"; fists are l.112's Light (punches, kicks)."""
    campaign, encounter, mine, bandit = ambush
    fixed_dice(17)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="disarm")
    bandit.refresh_from_db()
    assert bandit.stats["conditions"] == ["disarmed"] and bandit.stats["difficulty"] == 10
    bandit_turn(encounter, bandit, gm)
    assert "pick_up" in offered(encounter)
    # Its punch lands (Van Helsing rolls 2: Body 8 vs 10): Light 3, not its sword's 6.
    fixed_dice(2)
    gm_acts(client_for(gm), encounter, bandit, "attack", target=combatant(encounter, mine))
    assert f"{mine.name}: Body 8 -> 5 (3 damage)" in last_line("Bandit attacks").result["changes"]
    gm_acts(client_for(gm), encounter, bandit, "pick_up")
    bandit.refresh_from_db()
    assert bandit.stats["conditions"] == []


def test_nothing_to_disarm_is_refused_before_the_roll(ambush, gm, player, client_for, fixed_dice):
    campaign, encounter, mine, bandit = ambush
    Combatant.objects.filter(pk=bandit.pk).update(stats={**bandit.stats, "weapon": ""})
    fixed_dice(17)
    response = attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="disarm")
    assert (
        response.status_code == 422 and "Bandit holds no weapon to knock away." in response.content.decode()
    )
    assert not FeedEntry.objects.filter(label__contains="attacks Bandit").exists()


def test_a_tripped_foe_spends_an_action_standing_up(ambush, gm, player, client_for, fixed_dice):
    """Triad l.125: "tripping (causing a target to fall prone)"; standing is one of its turn's actions."""
    campaign, encounter, mine, bandit = ambush
    fixed_dice(17)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="trip")
    bandit_turn(encounter, bandit, gm)
    assert "move" not in offered(encounter) and "stand" in offered(encounter)
    gm_acts(client_for(gm), encounter, bandit, "stand")
    assert "move" in offered(encounter) and "stand" not in offered(encounter)
    bandit.refresh_from_db()
    assert bandit.state["actions"] == 1


def test_a_stunning_strike_trades_the_damage_for_a_stun(ambush, gm, player, client_for, fixed_dice):
    """Triad l.191: "attacks that trade damage for instead stunning targets, making them suffer Disadvantage
    for one turn"; the bandit's stunned blow is the defender's advantage (the Stun reading)."""
    campaign, encounter, mine, bandit = ambush
    fixed_dice(17)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="stun")
    assert last_line("attacks Bandit").result["changes"] == [
        "Bandit is stunned (disadvantage on its next turn)"
    ]
    bandit.refresh_from_db()
    assert bandit.stats["difficulty"] == 10
    bandit_turn(encounter, bandit, gm)
    fixed_dice(3, 12)
    gm_acts(client_for(gm), encounter, bandit, "attack", target=combatant(encounter, mine))
    blow = last_line("Bandit attacks")
    assert "Bandit stunned" in blow.summary and "held off" in blow.summary


def test_a_missed_alternative_still_lets_the_foe_hit_back(ambush, gm, player, client_for, fixed_dice):
    """Triad l.105: failing an attack on a foe that can fight back costs the attacker, whatever it meant."""
    campaign, encounter, mine, bandit = ambush
    fixed_dice(3)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, intent="grapple")
    line = last_line("attacks Bandit")
    assert (
        line.result["outcome"] == "failure"
        and f"{mine.name}: Body 8 -> 2 (6 damage)" in line.result["changes"]
    )
    bandit.refresh_from_db()
    assert not bandit.stats.get("conditions")


def test_restrained_cannot_move_and_rolls_body_at_disadvantage(ambush, gm, player, client_for, fixed_dice):
    """Triad l.100: "being restrained prevents a character from moving any distance at all"; l.63: ropes are
    "a Disadvantage on Body tasks"."""
    campaign, encounter, mine, bandit = ambush
    assert "move" in offered(encounter)
    set_condition(client_for(gm), mine, "restrained")
    assert "move" not in offered(encounter)
    page = page_text(client_for(player).get(mine.get_absolute_url()))
    assert "Restrained (cannot move; disadvantage on Body tasks) yes" in page
    fixed_dice(18, 4)
    roll = reverse("sheet_roll", args=[mine.pk, "ability:body"])
    client_for(player).post(
        roll, {"difficulty": 10, "advantages": 0, "disadvantages": 0, "visibility": "public"}, **HTMX
    )
    assert [d["kept"] for d in FeedEntry.objects.order_by("pk").last().result["dice"]] == [False, True]


def test_a_hit_armor_stops_says_so(ambush, player, client_for, fixed_dice):
    """Triad l.117: "Subtract a target's Armor from damage"; issue 19: a hit fully absorbed says "0 damage"
    rather than nothing. Van Helsing's knife (3) on heavy armor (6)."""
    campaign, encounter, mine, bandit = ambush
    Combatant.objects.filter(pk=bandit.pk).update(stats={**bandit.stats, "armor": "heavy"})
    fixed_dice(14)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit)
    line = last_line("attacks Bandit")
    assert line.result["outcome"] == "success"
    assert line.result["changes"] == ["Bandit's armor stops the blow (0 damage)"]


# ----- the final blow ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("spare", "said", "down"), [("on", "knocked out", True), ("", "slain", False)])
def test_the_final_blow_may_knock_the_npc_out_instead(
    ambush, player, client_for, fixed_dice, spare, said, down
):
    """Triad l.127: "considered slain at Difficulty 0 or less, unless the character delivering the final blow
    declares the target is knocked unconscious instead"."""
    campaign, encounter, mine, bandit = ambush
    Combatant.objects.filter(pk=bandit.pk).update(stats={**bandit.stats, "difficulty": 1})
    fixed_dice(17)
    attack(client_for(player), encounter, combatant(encounter, mine), bandit, spare=spare)
    assert f"Bandit is {said}" in last_line("attacks Bandit").result["changes"]
    bandit.refresh_from_db()
    assert bandit.out and bandit.stats["unconscious"] is down
    gm_summary = combat_for(campaign).summary(bandit, for_gm=True)
    assert gm_summary.endswith("knocked out" if down else " · out")


# ----- reinforcements ---------------------------------------------------------------------------------------


def test_a_reinforcement_takes_its_place_by_initiative(ambush, gm, client_for):
    """Triad l.84: "The highest initiative numbers act first"; "(For GM-run NPCs, initiative values are
    Difficulty + 5.)" A Difficulty 12 brute (17) goes above everyone; Van Helsing keeps the turn he has, and
    the brute acts from the next round. Added from the GM's page, the sample NPC's form data."""
    campaign, encounter, mine, bandit = ambush
    encounter.refresh_from_db()
    npc = {f"npc-{k}": v for k, v in {**combat_for(campaign).sample_npc(), "difficulty": 12}.items()}
    url = reverse("encounter_action", args=[campaign.pk, encounter.pk, "add-npc"])
    response = client_for(gm).post(url, {"version": encounter.version, "name": "Brute", **npc})
    assert response.status_code == 302
    encounter.refresh_from_db()
    order = [c.name for c in services.combatants_of(encounter)]
    assert order[0] == "Brute" and actor_of(encounter).character_id == mine.pk
    assert encounter.combatants.get(name="Brute").initiative == 17
    assert "Difficulty 12 + 5 = 17" in last_line("Brute initiative").summary
    joined = last_line("Brute joins")
    assert joined.summary == "Brute joins the fight, acting first in the order, from the next round."
    assert joined.visibility == "public"  # its initiative line, with its Difficulty, is the GM's
    # A Difficulty 1 rat (6) goes last, and its place this round is still to come.
    npc = {f"npc-{k}": v for k, v in {**combat_for(campaign).sample_npc(), "difficulty": 1}.items()}
    encounter.refresh_from_db()
    client_for(gm).post(url, {"version": encounter.version, "name": "Rat", **npc})
    assert [c.name for c in services.combatants_of(encounter)][-1] == "Rat"
    assert last_line("Rat joins").summary == "Rat joins the fight, acting after Zheng Yi Sao in the order."
    assert actor_of(encounter).character_id == mine.pk
