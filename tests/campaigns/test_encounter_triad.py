"""A scripted Triad fight through the services, with fixed dice, checking every number after every step."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from play.models import Combatant
from rules import triad
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.history import snapshot
from sheets.models import SheetChange
from sheets.registry import combat_for
from sheets.systems.triad import actions as triad_actions
from sheets.systems.triad.models import TriadSheet
from tests.conftest import page_text

from .encounter import reload, roller


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
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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
            resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
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


# ----- the rules of a Triad fight, each played through the encounter services with fixed dice ------------


def give_trait(character, name, gm):
    """Add a listed trait the way the sheet's form does (versioned, in the history)."""
    trait = triad.find_trait(name)
    triad_actions.trait_add(
        character=character,
        trait={
            "name": trait.name,
            "adv": trait.adv,
            "ability": trait.ability or "",
            "description": trait.summary,
            "custom": False,
        },
        author=gm,
    )


def act(encounter, actor, action, *, gm, target=None, faces=(), **fields):
    """One action through the service, its form's fields given without their prefix."""
    encounter.refresh_from_db()
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target is not None else None,
        data={f"{action}-{k}": v for k, v in fields.items()},
        prefix=action,
        roller=roller(*faces),
        author=gm,
        resolve_now=True,  # the GM settles the defence (tests/campaigns/test_defence.py asks the player)
    )
    return reload(encounter)


def next_turn(encounter, gm):
    encounter.refresh_from_db()
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    return reload(encounter)


def offered(encounter):
    encounter, by_name = reload(encounter)
    combatants = services.combatants_of(encounter)
    actor = services.current_actor(encounter, combatants)
    return [a.key for a in combat_for(encounter.campaign).actions(encounter, actor, combatants)]


def start(encounter, gm, *faces):
    services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(*faces), author=gm)
    return reload(encounter)


def add_npc(encounter, name, **stats):
    return services.combatant_add_npc(
        encounter=encounter,
        name=name,
        cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "none", "kind": "body", **stats},
    )


@pytest.fixture
def crypt(make_campaign, gm, player, other_player):
    """Van Helsing (Body 8, Mind 15, Spirit 13, Hard To Unnerve, no armor) in an empty encounter."""
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(name="Abraham Van Helsing")
    encounter = services.encounter_create(campaign=campaign, name="Crypt")
    services.combatant_add_character(encounter=encounter, character=helsing)
    return encounter, helsing


def test_dying_character_cannot_take_actions(crypt, gm):
    """Triad l.100, l.126: "Any character reduced to 0 in Body, Mind, or Spirit is dying and cannot take
    actions"; "A dying character may only crawl up to 5 feet during a turn"."""
    encounter, helsing = crypt
    brute = add_npc(encounter, "Brute", difficulty=12, weapon="heavy")  # initiative 17, acts first
    encounter, by_name = start(encounter, gm, 2)
    # Body 8 defends against 12 and rolls 5: 8, a failure; the heavy weapon's 9 takes Body 8 -> 0.
    act(encounter, by_name["Brute"], "attack", gm=gm, target=by_name["Abraham Van Helsing"], faces=[5])
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.dying, helsing.triad.dead) == (0, True, False)
    encounter, by_name = next_turn(encounter, gm)
    assert offered(encounter) == ["crawl"]
    with pytest.raises(EncounterError, match="not open"):
        act(
            encounter,
            by_name["Abraham Van Helsing"],
            "attack",
            gm=gm,
            target=brute,
            faces=[20],
            ability="mind",
        )
    encounter, by_name = act(encounter, by_name["Abraham Van Helsing"], "crawl", gm=gm)
    assert offered(encounter) == []
    assert "crawls 5 feet" in FeedEntry.objects.filter(label__contains="crawls").get().summary


def test_dying_character_dies_from_any_new_damage_and_death_stays_on_the_sheet(crypt, gm, player, client_for):
    """Triad l.126: "If a dying character takes any new damage after being reduced to 0 or less in any
    ability score, the character dies." Dying, it cannot roll to hold the blow off."""
    encounter, helsing = crypt
    add_npc(encounter, "Brute", difficulty=12, weapon="heavy")
    TriadSheet.objects.filter(character=helsing).update(mind=0)  # dying from a mental blow earlier
    encounter, by_name = start(encounter, gm, 2)
    encounter, by_name = act(
        encounter, by_name["Brute"], "attack", gm=gm, target=by_name["Abraham Van Helsing"]
    )
    helsing.triad.refresh_from_db()
    assert helsing.triad.dead is True and helsing.triad.body == 8  # no roll was made: no dice used
    line = FeedEntry.objects.filter(label__contains="attacks Abraham").get()
    assert "cannot defend" in line.summary
    # Issue 19: not "Body 8 -> 8 (9 damage)", which reads as if nothing happened: what happened.
    assert line.result["changes"] == ["Abraham Van Helsing, dying, takes 9 damage and dies"]
    assert combat_for(encounter.campaign).is_out(by_name["Abraham Van Helsing"])
    # The encounter ends; the sheet still says so.
    encounter.refresh_from_db()
    services.encounter_end(encounter=encounter, version=encounter.version)
    assert "is dead" in page_text(client_for(player).get(helsing.get_absolute_url()))


def test_hard_to_kill_works_once_until_body_is_full_again(crypt, gm):
    """Triad l.76: "The first time you drop to 0 or less Body points, you instantly regain half you maximum
    number of Body points. You cannot benefit from this trait again until your Body points are recovered
    back to their full total.\""""
    encounter, helsing = crypt
    give_trait(helsing, "Hard To Kill", gm)
    add_npc(encounter, "Brute", difficulty=12, weapon="heavy")
    encounter, by_name = start(encounter, gm, 2)
    hunter = by_name["Abraham Van Helsing"]
    act(encounter, by_name["Brute"], "attack", gm=gm, target=hunter, faces=[5])  # 9 damage: Body 8 -> 0 -> 4
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.hard_to_kill_used) == (4, True)
    assert "Hard To Kill keeps" in " ".join(
        FeedEntry.objects.filter(label__contains="attacks").get().result["changes"]
    )
    encounter, by_name = act(encounter, by_name["Brute"], "attack", gm=gm, target=hunter, faces=[5])
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.dying) == (0, True)  # used: no second rescue
    # Rested back to full Body, the trait is ready again.
    triad_actions.rest(character=helsing, hours=8, split={"body": 8, "mind": 0, "spirit": 0}, author=gm)
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.hard_to_kill_used) == (8, False)


def test_damage_lands_on_the_score_the_attack_hurts_and_hard_to_unnerve_fires(crypt, gm):
    """Triad l.109: "the affected ability score is determined by the type of damage: Body for physical
    attacks, Mind for mental attacks, and Spirit for emotional or psychic attacks"; l.78 Hard To Unnerve."""
    encounter, helsing = crypt
    TriadSheet.objects.filter(character=helsing).update(armor="heavy")  # armor stops blows, not dread
    add_npc(encounter, "Wraith", difficulty=15, weapon="superheavy", kind="spirit")
    encounter, by_name = start(encounter, gm, 2)  # the wraith (20) acts first
    # He defends with Spirit 13 against 15 and rolls 2: 13, a failure; 15 psychic damage, no armor.
    act(encounter, by_name["Wraith"], "attack", gm=gm, target=by_name["Abraham Van Helsing"], faces=[2])
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.mind) == (8, 15)
    assert (helsing.triad.spirit, helsing.triad.hard_to_unnerve_used) == (6, True)  # 13 -> 0 -> half of 13
    line = FeedEntry.objects.filter(label__contains="attacks Abraham").get()
    assert "defends with Spirit 13 vs 15" in line.summary
    assert "Abraham Van Helsing: Spirit 13 -> 6 (15 damage)" in line.result["changes"]


def test_a_mental_attack_can_be_called_on_the_attack(crypt, gm):
    """Triad l.109: Mind for mental attacks, whatever the foe usually does."""
    encounter, helsing = crypt
    add_npc(encounter, "Mesmerist", difficulty=16, weapon="medium")
    encounter, by_name = start(encounter, gm, 2)
    act(
        encounter,
        by_name["Mesmerist"],
        "attack",
        gm=gm,
        target=by_name["Abraham Van Helsing"],
        faces=[3],
        kind="mind",
    )
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.mind) == (8, 9)


def test_adv_trait_turns_a_tied_attack_into_a_full_success(crypt, gm):
    """Triad l.35: "If the character has a related Trait that grants Advantage on the task roll, the result
    is considered a normal full Success"; l.62: "scores a Success instead of a Mixed Result"."""
    encounter, helsing = crypt
    elder = add_npc(encounter, "Elder vampire", difficulty=15, weapon="medium")
    spawn = add_npc(encounter, "Vampire spawn", difficulty=15, weapon="medium")
    encounter, by_name = start(encounter, gm, 17)  # both vampires (20) act before him (17)
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    hunter = by_name["Abraham Van Helsing"]
    occult = helsing.triad_traits.get(name="Occult")
    # Mind 15 vs 15 with Occult: advantage (two dice, 3 and 4) and the tie is a success: no hit back.
    act(encounter, hunter, "attack", gm=gm, target=elder, faces=[3, 4], ability="mind", trait=occult.pk)
    line = FeedEntry.objects.filter(label__contains="attacks Elder").get()
    assert line.result["outcome"] == "success" and [d["face"] for d in line.result["dice"]] == [3, 4]
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 8
    # The same tie without the trait is mixed: he hits, and the spawn's 6 lands on him.
    act(encounter, hunter, "attack", gm=gm, target=spawn, faces=[4], ability="mind")
    assert (
        FeedEntry.objects.filter(label__contains="attacks Vampire spawn").get().result["outcome"] == "mixed"
    )
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 2


def test_adv_trait_of_someone_else_is_refused(crypt, gm, player, other_player):
    """Triad l.62: only the character's own (Adv.) trait helps; nothing changes when another's is sent."""
    encounter, helsing = crypt
    zheng = helsing.campaign.characters.get(name="Zheng Yi Sao")
    vampire = add_npc(encounter, "Vampire", difficulty=15)
    encounter, by_name = start(encounter, gm, 17)
    encounter, by_name = next_turn(encounter, gm)
    before = list(Combatant.objects.values())
    with pytest.raises(EncounterError, match="Select a valid choice"):
        act(
            encounter,
            by_name["Abraham Van Helsing"],
            "attack",
            gm=gm,
            target=vampire,
            faces=[3, 4],
            ability="mind",
            trait=zheng.triad_traits.get(name="Swords").pk,
        )
    assert list(Combatant.objects.values()) == before


def test_adv_trait_holds_off_a_tied_attack(crypt, gm):
    """Triad l.35, l.62: an (Adv.) trait on the defence roll turns the tie into holding the foe off."""
    encounter, helsing = crypt
    add_npc(encounter, "Ghoul", difficulty=15, weapon="medium", kind="mind")
    encounter, by_name = start(encounter, gm, 2)
    willpower = helsing.triad_traits.get(name="Willpower")
    act(
        encounter,
        by_name["Ghoul"],
        "attack",
        gm=gm,
        target=by_name["Abraham Van Helsing"],
        faces=[2, 9],
        trait=willpower.pk,
    )
    helsing.triad.refresh_from_db()
    assert helsing.triad.mind == 15
    assert FeedEntry.objects.filter(label__contains="attacks Abraham").get().result["outcome"] == "success"


def test_deadly_adds_three_damage_or_six_on_a_critical(crypt, gm):
    """Triad l.73: "When you succeed at hitting a target with an attack task, you cause an additional 3
    points of damage, or 6 points of damage on a critical success.\""""
    encounter, helsing = crypt
    give_trait(helsing, "Deadly", gm)
    ogre = add_npc(encounter, "Ogre", difficulty=9, weapon="", armor="light")  # initiative 14
    encounter, by_name = start(encounter, gm, 2)  # Van Helsing: Mind 15
    hunter = by_name["Abraham Van Helsing"]
    # Body 8 vs 9, rolls 12: a success. Light 3 + Deadly 3 - light armor 2 = 4: Difficulty 9 -> 5.
    encounter, by_name = act(encounter, hunter, "attack", gm=gm, target=ogre, faces=[12], ability="body")
    assert by_name["Ogre"].stats["difficulty"] == 5
    # Body 8 vs 5, rolls 11: a critical. (3 + 3) x 2 - 2 = 10: the ogre drops.
    encounter, by_name = act(encounter, hunter, "attack", gm=gm, target=ogre, faces=[11], ability="body")
    assert by_name["Ogre"].stats["difficulty"] == 0 and by_name["Ogre"].out


def test_danger_sense_gives_advantage_on_initiative(crypt, gm):
    """Triad l.149: "gain advantage on initiative rolls"."""
    encounter, helsing = crypt
    give_trait(helsing, "Danger Sense", gm)
    add_npc(encounter, "Tiger", difficulty=14)  # initiative 19
    encounter, by_name = start(encounter, gm, 4, 18)  # two dice, 18 kept: 18 < 19
    assert by_name["Abraham Van Helsing"].initiative == 18
    line = FeedEntry.objects.filter(label__contains="Abraham Van Helsing initiative").get()
    assert [d["face"] for d in line.result["dice"]] == [4, 18] and "Danger Sense" in line.summary


def test_relentless_attacks_again_while_targets_keep_dropping(crypt, gm):
    """Triad l.80: "When any of your attack tasks reduce an enemy to 0 or less Body, you may immediately make
    an additional attack on another target ... until at least one opponent remains standing after being
    hit.\""""
    encounter, helsing = crypt
    give_trait(helsing, "Relentless", gm)
    sentry = add_npc(encounter, "Sentry", difficulty=9, weapon="")
    rat_a = add_npc(encounter, "Rat A", difficulty=1, weapon="")
    rat_b = add_npc(encounter, "Rat B", difficulty=1, weapon="")
    encounter, by_name = start(encounter, gm, 2)  # Van Helsing 15 first
    hunter = by_name["Abraham Van Helsing"]
    encounter, by_name = act(
        encounter, hunter, "attack", gm=gm, target=rat_a, faces=[10], ability="body"
    )  # drops: 1 action
    encounter, by_name = act(
        encounter, hunter, "attack", gm=gm, target=rat_b, faces=[10], ability="body"
    )  # free, drops
    encounter, by_name = act(
        encounter, hunter, "attack", gm=gm, target=sentry, faces=[3], ability="body"
    )  # free, misses
    assert by_name["Abraham Van Helsing"].state["actions"] == 1
    assert "relentless" not in by_name["Abraham Van Helsing"].state
    encounter, by_name = act(encounter, hunter, "move", gm=gm)  # the turn's second action
    assert offered(encounter) == []


def test_berserker_rage_once_a_turn_and_advantage_on_the_next_body_task(crypt, gm):
    """Triad l.142: "Once each turn, regardless of tasks rolls, you may subtract 1 point from your Mind or
    Spirit and add 1 to your Body, up to your Body's score normal maximum, and gain advantage on your next
    Body-related task roll.\""""
    encounter, helsing = crypt
    give_trait(helsing, "Berserker Rage", gm)
    TriadSheet.objects.filter(character=helsing).update(body=6)
    ghoul = add_npc(encounter, "Ghoul", difficulty=9, weapon="", armor="none")
    encounter, by_name = start(encounter, gm, 2)
    hunter = by_name["Abraham Van Helsing"]
    encounter, by_name = act(encounter, hunter, "rage", gm=gm, source="spirit")
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.spirit, helsing.triad.rage_advantage) == (7, 12, True)
    assert offered(encounter) == ["attack", "evade", "move"]  # free, and not twice in a turn
    with pytest.raises(EncounterError, match="not open"):
        act(encounter, hunter, "rage", gm=gm, source="mind")
    # The next Body task rolls with advantage: 2 and 8, the 8 kept.
    act(encounter, hunter, "attack", gm=gm, target=ghoul, faces=[2, 8], ability="body")
    helsing.triad.refresh_from_db()
    assert helsing.triad.rage_advantage is False
    line = FeedEntry.objects.filter(label__contains="attacks Ghoul").get()
    assert [d["kept"] for d in line.result["dice"]] == [False, True]


def test_stun_spoils_the_following_turn_not_the_rest_of_this_one(crypt, gm):
    """Triad l.124: "losing 5 or more ability score points from a single attack task roll also leaves a
    target stunned, suffering Disadvantage on all of that target's task rolls in the following turn. After
    the next turn, the stunned Disadvantage no longer is in effect on the target.\""""
    encounter, helsing = crypt
    ghoul = add_npc(encounter, "Ghoul", difficulty=9, weapon="medium")  # hits back for 6
    encounter, by_name = start(encounter, gm, 2)
    hunter = by_name["Abraham Van Helsing"]
    act(encounter, hunter, "attack", gm=gm, target=ghoul, faces=[3], ability="body")  # misses: Body 8 -> 2
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.stunned) == (2, True)
    # The rest of this turn is not the following turn: one die.
    act(encounter, hunter, "attack", gm=gm, target=ghoul, faces=[15], ability="mind")
    encounter, by_name = next_turn(encounter, gm)
    act(encounter, by_name["Ghoul"], "move", gm=gm)
    encounter, by_name = next_turn(encounter, gm)
    # His following turn: two dice, the lower kept.
    act(encounter, hunter, "attack", gm=gm, target=ghoul, faces=[18, 16], ability="mind")
    attacks = FeedEntry.objects.filter(label__contains="attacks Ghoul").order_by("pk")
    assert [len(e.result["dice"]) for e in attacks] == [1, 1, 2]
    assert [d["kept"] for d in attacks.last().result["dice"]] == [False, True]
    encounter, by_name = next_turn(encounter, gm)
    helsing.triad.refresh_from_db()
    assert helsing.triad.stunned is False


def test_stunned_npc_attacks_at_disadvantage_on_its_following_turn(crypt, gm):
    """Triad l.124: the stun is the target's, NPC or not; an NPC does not roll, so its disadvantage is the
    defender's advantage on the one roll made against it."""
    encounter, helsing = crypt
    ghoul = add_npc(encounter, "Ghoul", difficulty=9, weapon="medium")
    encounter, by_name = start(encounter, gm, 2)
    # Body 8 vs 9, rolls 14: a critical. 3 x 2 = 6 damage, 5 or more: the ghoul is stunned.
    encounter, by_name = act(
        encounter, by_name["Abraham Van Helsing"], "attack", gm=gm, target=ghoul, faces=[14], ability="body"
    )
    assert by_name["Ghoul"].stats["difficulty"] == 3 and by_name["Ghoul"].state["stunned"]
    assert "stunned" in combat_for(encounter.campaign).summary(by_name["Ghoul"], for_gm=True)
    encounter, by_name = next_turn(encounter, gm)
    # Its stunned turn: Van Helsing defends with two dice, keeping the higher (1 and 6: no fumble).
    act(encounter, by_name["Ghoul"], "attack", gm=gm, target=by_name["Abraham Van Helsing"], faces=[1, 6])
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    # The turn after: the stun is over, one die.
    act(encounter, by_name["Ghoul"], "attack", gm=gm, target=by_name["Abraham Van Helsing"], faces=[12])
    defences = FeedEntry.objects.filter(label__contains="attacks Abraham").order_by("pk")
    assert [len(e.result["dice"]) for e in defences] == [2, 1]
    assert defences.first().result["outcome"] == "critical"  # 6 kept: Body 8 against 3


def test_fast_moves_twice_the_distance(crypt, gm):
    """Triad l.74: "Fast: You move twice the distance as normal characters when moving"; l.92: 30 feet."""
    encounter, helsing = crypt
    give_trait(helsing, "Fast", gm)
    add_npc(encounter, "Ghoul", difficulty=9)
    encounter, by_name = start(encounter, gm, 2)
    combatants = services.combatants_of(encounter)
    actor = services.current_actor(encounter, combatants)
    move = next(
        a for a in combat_for(encounter.campaign).actions(encounter, actor, combatants) if a.key == "move"
    )
    assert move.help == "Up to 60 feet."


def test_hard_to_confuse_saves_mind_from_a_mental_blow(crypt, gm):
    """Triad l.77: "The first time you drop to 0 or less Mind points, you instantly regain half you maximum
    number of Mind points"; l.109: Mind for mental attacks."""
    encounter, helsing = crypt
    give_trait(helsing, "Hard To Confuse", gm)
    TriadSheet.objects.filter(character=helsing).update(mind=5)
    add_npc(encounter, "Mind flayer", difficulty=16, weapon="medium", kind="mind")
    encounter, by_name = start(encounter, gm, 2)
    # Mind 5 vs 16, rolls 9: a failure. 6 mental damage: Mind 5 -> 0 -> 7 (half of 15).
    act(encounter, by_name["Mind flayer"], "attack", gm=gm, target=by_name["Abraham Van Helsing"], faces=[9])
    helsing.triad.refresh_from_db()
    assert (helsing.triad.mind, helsing.triad.hard_to_confuse_used, helsing.triad.dying) == (7, True, False)


# ----- opposed rolls, team tasks and extra effort in a fight --------------------------------------------


@pytest.fixture
def hunters(crypt, gm):
    """Van Helsing (Body 8 Mind 15 Spirit 13) and Zheng Yi Sao (Body 10 Mind 12 Spirit 13, Swiftness (Adv.))
    against a Difficulty 5 ghoul; Van Helsing acts first (15), then Zheng Yi Sao (13), then the ghoul (10)."""
    encounter, helsing = crypt
    zheng = encounter.campaign.characters.get(name="Zheng Yi Sao")
    services.combatant_add_character(encounter=encounter, character=zheng)
    add_npc(encounter, "Ghoul", difficulty=5)
    encounter, by_name = start(encounter, gm, 3, 2)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Abraham Van Helsing",
        "Zheng Yi Sao",
        "Ghoul",
    ]
    return encounter, by_name, helsing, zheng


def van_helsing_acts(hunters, action, gm, *faces, target=None, **fields):
    """Van Helsing's action in the hunters' fight, against the combatant named ``target`` if any."""
    encounter, by_name, _, _ = hunters
    actor, target = by_name["Abraham Van Helsing"], by_name[target] if target else None
    return act(encounter, actor, action, gm=gm, target=target, faces=faces, **fields)


def test_opposed_roll_the_higher_total_wins_with_exact_odds(hunters, gm):
    """Triad l.45, l.47: "each rolls one d20 and compares results as they would against Difficulty. The
    character with the highest roll or ability score wins"; with the GM's approval "using different ability
    scores" (Mind vs. Spirit)."""
    encounter, by_name, helsing, zheng = hunters
    assert {"opposed", "team"} <= set(offered(encounter))
    # Mind 15 rolls 4 (15) against Spirit 13 rolling 18 (18): Zheng Yi Sao wins by 3.
    van_helsing_acts(
        hunters, "opposed", gm, 4, 18, target="Zheng Yi Sao", ability="mind", their_ability="spirit"
    )
    entry = FeedEntry.objects.get(label__contains="opposed roll")
    assert entry.summary.endswith(
        "Abraham Van Helsing Mind 15: 15 vs Zheng Yi Sao Spirit 13: 18: Zheng Yi Sao wins by 3"
    )
    assert entry.result["outcome"] == "failure" and entry.result["total"] == 15
    odds = triad.opposed_chance(triad.Side(15), triad.Side(13))
    win, tie = odds["critical"] + odds["success"], odds["mixed"]
    assert entry.chance == str(win)
    assert (
        f"Odds for Abraham Van Helsing: win {float(win) * 100:.1f}%, tie {float(tie) * 100:.1f}%, "
        f"lose {float(1 - win - tie) * 100:.1f}%"
    ) in entry.result["changes"]
    # An opposed roll is one of the turn's two actions.
    encounter, by_name = reload(encounter)
    assert by_name["Abraham Van Helsing"].state["actions"] == 1


def test_opposed_roll_with_harm_at_stake_hurts_the_loser_double_on_five(hunters, gm):
    """Triad l.48: "damage applies to the losing character as per the Combat Damage section. Any opposed
    roll with a difference of 5 or more causes double damage"."""
    encounter, by_name, helsing, zheng = hunters
    # Body 8 rolls 20 against Body 10 rolling 5 (10): ahead by 10, a critical; light 3 doubled = 6, no armor.
    van_helsing_acts(
        hunters, "opposed", gm, 20, 5, target="Zheng Yi Sao", ability="body", their_ability="body", harm="on"
    )
    zheng.triad.refresh_from_db()
    assert (zheng.triad.body, zheng.triad.stunned) == (4, True)
    entry = FeedEntry.objects.get(label__contains="opposed roll")
    assert entry.result["outcome"] == "critical"
    assert "Zheng Yi Sao: Body 10 -> 4 (6 damage)" in entry.result["changes"]
    assert SheetChange.objects.filter(character=zheng, reason="6 damage from Abraham Van Helsing").exists()


def test_opposed_roll_tie_goes_to_the_side_with_an_adv_trait(hunters, gm):
    """Triad l.62: an (Adv.) trait "scores a Success instead of a Mixed Result when equalling the needed
    Difficulty or opposed roll score"."""
    encounter, by_name, helsing, zheng = hunters
    swiftness = zheng.triad_traits.get(name="Swiftness")
    # Body 8 rolls 12 against Body 10 with Swiftness (advantage: 12 and 3, the 12 kept): tied at 12.
    van_helsing_acts(
        hunters,
        "opposed",
        gm,
        12,
        12,
        3,
        target="Zheng Yi Sao",
        ability="body",
        their_ability="body",
        their_trait=str(swiftness.pk),
    )
    entry = FeedEntry.objects.get(label__contains="opposed roll")
    assert entry.summary.endswith("Zheng Yi Sao wins by 0") and entry.result["outcome"] == "failure"


def test_team_task_counts_the_best_single_number(hunters, gm):
    """Triad l.50: "compare ability scores and d20 dice rolls from each participant to find the highest
    single number that compares against the Difficulty"."""
    encounter, by_name, helsing, zheng = hunters
    # Against 18: Van Helsing's Mind 15 (he rolls 5) and Zheng Yi Sao's roll of 19: the 19 counts, a success.
    van_helsing_acts(
        hunters, "team", gm, 5, 19, ability="mind", difficulty=18, helpers=[str(by_name["Zheng Yi Sao"].pk)]
    )
    entry = FeedEntry.objects.get(label__contains="team task")
    assert entry.summary.endswith("Abraham Van Helsing Mind 15, Zheng Yi Sao Mind 12 vs 18: best 19, success")
    odds = triad.team_chance([triad.Side(15), triad.Side(12)], 18)
    assert entry.chance == str(odds["critical"] + odds["success"])
    assert [d["face"] for d in entry.result["dice"]] == [5, 19]


def test_team_task_fumbles_on_anyones_one(hunters, gm):
    """Triad l.50: "If any one character in the team group rolls a 1 on their d20 die, the whole action is
    treated as a critical fumble"."""
    encounter, by_name, helsing, zheng = hunters
    van_helsing_acts(
        hunters, "team", gm, 20, 1, ability="body", difficulty=10, helpers=[str(by_name["Zheng Yi Sao"].pk)]
    )
    assert FeedEntry.objects.get(label__contains="team task").result["outcome"] == "fumble"


def test_team_task_refuses_a_helper_not_in_the_fight(hunters, gm):
    encounter, by_name, helsing, zheng = hunters
    with pytest.raises(EncounterError, match="Working with: Select a valid choice"):
        van_helsing_acts(hunters, "team", gm, 5, 5, ability="body", difficulty=10, helpers=["999999"])
    assert not FeedEntry.objects.filter(label__contains="team task").exists()


def test_extra_effort_on_an_attack_gives_advantage_and_costs_a_point(hunters, gm):
    """Triad l.57: "By expending one point from a related ability score, a character gains Advantage on one
    related task roll ... the ability point is subtracted from the character's score after the task
    attempt is resolved"."""
    encounter, by_name, helsing, zheng = hunters
    # Two dice, 2 and 3: the 3 kept, Body 8 counts: 8 vs 5, a success (light 3, no armor: 5 -> 2).
    van_helsing_acts(hunters, "attack", gm, 2, 3, target="Ghoul", ability="body", extra_effort="on")
    entry = FeedEntry.objects.get(label__contains="attacks Ghoul")
    assert [d["kept"] for d in entry.result["dice"]] == [False, True]
    assert "Body 8 -> 7 (extra effort)" in entry.result["changes"]
    assert "extra effort" in entry.summary
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 7
    assert SheetChange.objects.filter(character=helsing, reason="Extra effort").exists()
