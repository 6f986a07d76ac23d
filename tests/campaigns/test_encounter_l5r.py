"""A scripted L5R fight through the services, with fixed dice, checking every number after every step."""

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from rules import l5r
from rules.dice import Outcome
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.l5r.combat import L5RCombat
from sheets.systems.l5r.models import L5RSheet
from tests.npcs import L5R_BANDIT

from .encounter import reload, roller


@pytest.fixture
def fight(make_campaign, gm, player, other_player):
    campaign = make_campaign("l5r", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    # Reflexes 3, Agility 3, Strength 2, Stamina 2, Willpower 2 (Earth 2), Void 2, school rank 1;
    # Kenjutsu 2, Kyujutsu 4; a katana (3k2), a wakizashi and a yumi (strength 3).
    shinai = campaign.characters.get(name="Bayushi Shinai")
    encounter = services.encounter_create(campaign=campaign, name="Road")
    services.combatant_add_character(encounter=encounter, character=shinai)
    bandit = services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=L5R_BANDIT)
    return encounter, shinai, bandit


def act(encounter, actor, target, data, *faces, gm):
    return services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action="attack",
        target_id=target.pk,
        data={f"attack-{name}": value for name, value in data.items()},  # as the page posts it
        prefix="attack",
        roller=roller(*faces),
        author=gm,
    )


def next_turn(encounter, gm):
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    return reload(encounter)


def around(encounter, gm):
    """A whole round on: the same combatant's next turn (one Complex Action a turn: 4th edition)."""
    for _ in range(encounter.combatants.count()):
        encounter, by_name = next_turn(encounter, gm)
    return encounter, by_name


def test_a_short_l5r_fight(fight, gm):
    encounter, shinai, bandit = fight
    before_fight = snapshot(shinai)
    katana = shinai.l5r_weapons.get(name="Katana").pk
    yumi = shinai.l5r_weapons.get(name="Yumi").pk

    # Initiative, Reflexes + school rank k Reflexes: Shinai 4k3 keeps 7 + 5 + 3 = 15; the bandit 3k2
    # keeps 9 + 4 = 13. Shinai acts first; the bandit's roll is for the GM's eyes only.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by_name = reload(encounter)
    assert (by_name["Bayushi Shinai"].initiative, by_name["Bandit"].initiative) == (15, 13)
    assert [c.name for c in encounter.combatants.order_by("position")] == ["Bayushi Shinai", "Bandit"]
    assert (encounter.round, encounter.turn, encounter.status) == (1, 0, "running")
    assert FeedEntry.objects.get(label__endswith="Bandit initiative").visibility == "gm"
    initiative = FeedEntry.objects.get(label__endswith="Shinai initiative")
    assert "Reflexes 3 + school rank 1: 4k3: 15" in initiative.summary

    # Round 1. Shinai: Kenjutsu 2 + Agility 3 = 5k3, a Void point makes it 6k4, one raise.
    # The bandit's Armor TN is 5 x 2 + 5 + 5 armor = 20, + 5 for the raise = 25.
    # Dice 10+6, 8, 4, 3, 2, 1: keeps 16 + 8 + 4 + 3 = 31, a hit.
    # Damage: katana 3k2 + Strength 2 = 5k2, + 1k0 for the raise = 6k2: 9 + 7 = 16 wounds.
    # The bandit (Earth 2: Healthy to 10, Nicked to 14, Grazed to 18) is Grazed, +5 to its TNs.
    act(
        encounter,
        by_name["Bayushi Shinai"],
        bandit,
        {"skill": "Kenjutsu", "weapon": str(katana), "raises": "1", "use_void": "on"},
        *(10, 6, 8, 4, 3, 2, 1),
        *(9, 7, 3, 2, 1, 5),
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["wounds"] == 16
    shinai.l5r.refresh_from_db()
    assert (shinai.l5r.void_spent, shinai.l5r.wounds) == (1, 0)
    attack = FeedEntry.objects.get(label__endswith="Shinai attacks Bandit")
    assert attack.result["total"] == 31 and attack.result["outcome"] == Outcome.SUCCESS
    assert attack.result["outcome_label"] == "hit"
    assert Fraction(attack.chance) == l5r.chance(6, 4, 25)
    assert "vs TN 25 (Armor TN 20 + 5 for 1 raise): 31, hit" in attack.summary
    assert [d["face"] for d in attack.result["dice"]] == [16, 8, 4, 3, 2, 1]
    assert attack.result["changes"] == ["Bayushi Shinai: Void point spent, 1 of 2 left"]
    damage = FeedEntry.objects.get(label__endswith="Shinai damages Bandit")
    assert damage.result["total"] == 16 and "Katana 3k2 + Strength 2 + 1k0 for raises: 6k2" in damage.summary
    assert damage.result["changes"] == ["Bandit: wounds 0 -> 16 (Grazed +5)"]
    # One attack a turn: it is the turn's Complex Action (4th edition, Actions).
    assert services.combatants_of(encounter)[0].state["spent"] == l5r.TURN_ACTIONS
    with pytest.raises(EncounterError, match="not open"):
        act(encounter, by_name["Bayushi Shinai"], bandit, {}, gm=gm)
    encounter.refresh_from_db()

    # The bandit: attack skill 2 + Agility 3 = 5k3 against Shinai's Armor TN 5 x 3 + 5 = 20, + 5 for its
    # Grazed wounds = 25. Dice 8, 9, 6, 2, 1 keep 23: it would have hit unhurt; now it misses.
    encounter, by_name = next_turn(encounter, gm)
    assert encounter.turn == 1
    act(encounter, by_name["Bandit"], by_name["Bayushi Shinai"], {"raises": "0"}, 8, 9, 6, 2, 1, gm=gm)
    miss = FeedEntry.objects.get(label__endswith="Bandit attacks Bayushi Shinai")
    assert miss.result["total"] == 23 and miss.result["outcome"] == Outcome.FAILURE
    assert miss.result["outcome_label"] == "miss"
    assert "vs TN 25 (Armor TN 20 + 5 for Grazed wounds): 23, miss" in miss.summary
    assert Fraction(miss.chance) == l5r.chance(5, 3, 25)
    assert not FeedEntry.objects.filter(label__endswith="Bandit damages Bayushi Shinai").exists()

    # Round 2. Shinai shoots: Kyujutsu 4 + Reflexes 3 = 7k3 against TN 20. 9 + 9 + 8 = 26, a hit.
    # Damage: standard arrow 2k2 + the yumi's strength 3 = 5k2: 4 + 3 = 7. The bandit: 16 -> 23, Injured.
    encounter, by_name = next_turn(encounter, gm)
    assert (encounter.round, encounter.turn) == (2, 0)
    act(
        encounter,
        by_name["Bayushi Shinai"],
        bandit,
        {"skill": "Kyujutsu", "weapon": str(yumi), "raises": "0"},
        *(9, 9, 8, 1, 1, 1, 1),
        *(4, 3, 2, 2, 1),
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["wounds"] == 23
    shot = FeedEntry.objects.filter(label__endswith="Shinai damages Bandit").latest("seq")
    assert "Standard arrow 2k2 + Yumi strength 3: 5k2: 7 wounds" in shot.summary
    assert shot.result["changes"] == ["Bandit: wounds 16 -> 23 (Injured +15)"]

    # The bandit spends a Void point: 6k4 against 20 + 15 for Injured = 35. 10+5, 9, 8, 6 = 38, a hit.
    # Damage: weapon 3k2 + Strength 3 = 6k2: 10+2 and 5 = 17 wounds on Shinai's sheet: Grazed, +5.
    encounter, by_name = next_turn(encounter, gm)
    act(
        encounter,
        by_name["Bandit"],
        by_name["Bayushi Shinai"],
        {"raises": "0", "use_void": "on"},
        *(10, 5, 9, 8, 6, 2, 1),
        *(10, 2, 5, 3, 1, 1, 4),
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Bandit"].stats["void_spent"] == 1
    shinai.l5r.refresh_from_db()
    assert shinai.l5r.wounds == 17
    hit = FeedEntry.objects.filter(label__endswith="Bandit attacks Bayushi Shinai").latest("seq")
    assert hit.result["total"] == 38 and "vs TN 35" in hit.summary
    assert Fraction(hit.chance) == l5r.chance(6, 4, 35)
    assert hit.result["changes"] == ["Bandit: Void point spent, 1 of 2 left"]
    wounds = FeedEntry.objects.get(label__endswith="Bandit damages Bayushi Shinai")
    assert wounds.result["total"] == 17 and wounds.character_id == shinai.pk
    assert wounds.result["changes"] == ["Bayushi Shinai: wounds 0 -> 17 (Grazed +5)"]
    change = SheetChange.objects.get(reason="17 wounds from Bandit")
    assert list(change.before.values()) == [0] and list(change.after.values()) == [17]

    # Round 3. Shinai's wounds now count: Kyujutsu 7k3 against 20 + 5 (Grazed) + 10 for two raises = 35.
    # 10+10+5, 9, 8 = 42, a hit. Damage 5k2 + 2k0 = 7k2: 9 + 8 = 17. The bandit: 23 -> 40, past the
    # 38 its Out rank holds: dead, and out of the fight.
    encounter, by_name = next_turn(encounter, gm)
    assert (encounter.round, encounter.turn) == (3, 0)
    act(
        encounter,
        by_name["Bayushi Shinai"],
        bandit,
        {"skill": "Kyujutsu", "weapon": str(yumi), "raises": "2"},
        *(10, 10, 5, 9, 8, 1, 1, 1, 1),
        *(9, 8, 1, 1, 1, 1, 1),
        gm=gm,
    )
    encounter, by_name = reload(encounter)
    last = FeedEntry.objects.filter(label__endswith="Shinai attacks Bandit").latest("seq")
    assert "vs TN 35 (Armor TN 20 + 5 for Grazed wounds + 10 for 2 raises): 42, hit" in last.summary
    assert "tens exploded: 10 + 10 + 5" in last.summary
    assert Fraction(last.chance) == l5r.chance(7, 3, 35)
    assert by_name["Bandit"].stats["wounds"] == 40 and by_name["Bandit"].out
    finish = FeedEntry.objects.filter(label__endswith="Shinai damages Bandit").latest("seq")
    assert finish.result["changes"] == ["Bandit: wounds 23 -> 40 (Dead)", "Bandit is dead"]

    # The bandit is out: the turn comes straight back to Shinai in round 4.
    encounter, by_name = next_turn(encounter, gm)
    assert (encounter.round, encounter.turn) == (4, 0)

    # Every change to the sheet is traced, and undoing them in reverse restores the sheet exactly.
    assert SheetChange.objects.filter(character=shinai).count() == 2  # the Void point and the wounds
    for change in SheetChange.objects.filter(character=shinai).order_by("-pk"):
        change_undo(change=change, author=gm)
    shinai.refresh_from_db()
    assert snapshot(shinai) == before_fight


def test_the_gm_sets_the_initiative_roll(fight, gm, client_for):
    encounter, shinai, bandit = fight
    # One more rolled and kept die and +2 for everyone: Shinai 5k4 + 2, the bandit 4k3 + 2.
    response = client_for(gm).post(
        reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "start"]),
        {"version": encounter.version, "start-extra_rolled": 1, "start-extra_kept": 1, "start-bonus": 2},
    )
    assert response.status_code == 302
    encounter, by_name = reload(encounter)
    assert encounter.state["start"] == {"extra_rolled": 1, "extra_kept": 1, "bonus": 2}
    entry = FeedEntry.objects.get(label__endswith="Shinai initiative")
    assert entry.result["total"] == by_name["Bayushi Shinai"].initiative
    assert "5k4+2" in entry.summary and len(entry.result["dice"]) == 5


def test_initiative_ties_go_to_reflexes(fight, gm):
    encounter, _, bandit = fight
    bandit.stats = {**bandit.stats, "reflexes": 4}
    bandit.save()
    # Shinai 4k3 keeps 6 + 5 + 4 = 15; the bandit, Reflexes 4, 5k4 keeps 5 + 4 + 3 + 3 = 15: it goes first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(6, 5, 4, 1, 5, 4, 3, 3, 1), author=gm
    )
    encounter, by_name = reload(encounter)
    assert (by_name["Bayushi Shinai"].initiative, by_name["Bandit"].initiative) == (15, 15)
    assert [c.name for c in encounter.combatants.order_by("position")] == ["Bandit", "Bayushi Shinai"]


def test_attack_refusals(fight, gm):
    encounter, shinai, bandit = fight
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by_name = reload(encounter)
    me = by_name["Bayushi Shinai"]
    katana = str(shinai.l5r_weapons.get(name="Katana").pk)
    refused = [
        # Void 2: at most 2 raises.
        ({"skill": "Kenjutsu", "weapon": katana, "raises": "3"}, "Increased Damage raises"),
        ({"skill": "Kyujutsu", "weapon": katana, "raises": "0"}, "Kyujutsu needs a bow"),
        ({"skill": "Jiujutsu", "weapon": "unarmed", "raises": "1"}, "unskilled roll cannot use raises"),
    ]
    for data, message in refused:
        with pytest.raises(EncounterError, match=message):
            act(encounter, me, bandit, data, 5, 5, 5, 5, 5, gm=gm)
        encounter.refresh_from_db()
    shinai.l5r.void_spent = 2
    shinai.l5r.save()
    with pytest.raises(EncounterError, match="no Void points left"):
        act(encounter, me, bandit, {"skill": "Kenjutsu", "weapon": katana, "use_void": "on"}, gm=gm)
    encounter.refresh_from_db()
    assert FeedEntry.objects.filter(label__contains="attacks").count() == 0
    assert SheetChange.objects.filter(character=shinai).count() == 0


def test_npc_raises_are_capped_by_its_void(fight, gm):
    encounter, shinai, _ = fight
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by_name = next_turn(reload(encounter)[0], gm)
    with pytest.raises(EncounterError, match="at most 2 raises"):
        act(encounter, by_name["Bandit"], by_name["Bayushi Shinai"], {"raises": "3"}, gm=gm)


def test_panels_and_the_gm_page(fight, gm, player, client_for):
    encounter, shinai, _ = fight
    gm_page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert "Extra kept dice" in gm_page and "Insight rank" in gm_page
    assert "Wounds 0 (Healthy; Out at 35) · Armor TN 20 · Void points 2/2" in gm_page
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    gm_page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    for text in ("Increased Damage raises", "Maneuver", "Kyujutsu 4", "Yumi (bow 3)"):
        assert text in gm_page, text
    # A sheet records its armor, so the attack no longer asks for it.
    assert "Armor (sheet target)" not in gm_page
    player_panel = (
        client_for(player).get(reverse("encounter_panel", args=[encounter.campaign_id])).content.decode()
    )
    # The bandit's numbers stay with the GM (only a wounded rank would show); Shinai's are on show.
    assert "Bandit" in player_panel and player_panel.count("Armor TN") == 1
    assert "Wounds 0 (Healthy; Out at 35) · Armor TN 20 · Void points 2/2" in player_panel


def test_rule_armor_tn_comes_from_the_targets_sheet(fight, gm):
    """Seed l.46: "Any time a character makes a successful attack roll ... he inflicts damage". 4th
    edition, Attack & Defense: the attack's TN is the target's Armor TN, "Reflexes Trait by 5, adding 5,
    and adding any bonuses ... from the character wearing armor": heavy armor +10 on its sheet."""
    encounter, shinai, _ = fight
    L5RSheet.objects.filter(character=shinai).update(armor=10, reduction=5)  # heavy armor
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by_name = next_turn(reload(encounter)[0], gm)
    # The bandit's 5k3 keeps 9 + 8 + 6 = 23: a hit against Reflexes 3 alone (20), a miss in the armor.
    act(encounter, by_name["Bandit"], by_name["Bayushi Shinai"], {"raises": "0"}, 8, 9, 6, 2, 1, gm=gm)
    attack = FeedEntry.objects.get(label__endswith="Bandit attacks Bayushi Shinai")
    assert "5k3 vs TN 30 (Armor TN 30): 23, miss" in attack.summary
    assert not FeedEntry.objects.filter(label__endswith="damages Bayushi Shinai").exists()
    assert "Armor TN 30, Reduction 5" in L5RCombat().summary(by_name["Bayushi Shinai"], for_gm=True)


def test_rule_down_takes_no_attack(fight, gm, client_for):
    """Seed l.46 (damage lands as Wounds); the seed has no wound chart. 4th edition, Wounds: a character
    who is Down "may only potentially take Free Actions ... and must spend a Void Point in order to be
    able to do so": no attack, skill roll or contest; Out ends its part in the fight."""
    encounter, shinai, _ = fight
    L5RSheet.objects.filter(character=shinai).update(wounds=33)  # Earth 2: Down holds 31-34
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1), author=gm
    )
    encounter, by_name = reload(encounter)
    me, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    assert encounter.combatants.order_by("position").first() == me
    # Down: a Stance (no Action) and a Free Action paid with Void; the GM's own settings.
    offered = [a.key for a in L5RCombat().actions(encounter, me, list(by_name.values()))]
    assert offered == ["stance", "free", "scene", "task"]
    summary = L5RCombat().summary(me, for_gm=True)
    assert "Down +40; Out at 35) · no attacks or other Complex Actions" in summary
    page = client_for(gm).get(encounter.get_absolute_url())
    assert page.status_code == 200 and "no attacks or other Complex Actions" in page.content.decode()
    assert "Increased Damage raises" not in page.content.decode()  # no attack form on this turn
    katana = str(shinai.l5r_weapons.get(name="Katana").pk)
    attack = {"skill": "Kenjutsu", "weapon": katana, "raises": "0"}
    with pytest.raises(EncounterError, match="That action is not open to this combatant now."):
        act(encounter, me, bandit, attack, 9, 9, 9, 9, 9, gm=gm)
    assert not FeedEntry.objects.filter(label__contains="attacks").exists()
    encounter, by_name = next_turn(reload(encounter)[0], gm)
    assert not L5RCombat().is_out(by_name["Bayushi Shinai"])


# ----- contests, skill rolls with others, cumulative tasks ------------------------------------------


def do(encounter, actor, action, data, faces=(), *, gm, target=None):
    return services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target is not None else None,
        data={f"{action}-{name}": value for name, value in data.items()},
        prefix=action,
        roller=roller(*faces),
        author=gm,
    )


@pytest.fixture
def party(fight, gm):
    """Shinai first in the order, with Tishi (Isawa Tishi, the other demo character) at his side."""
    encounter, shinai, bandit = fight
    tishi = encounter.campaign.characters.get(name="Isawa Tishi")
    services.combatant_add_character(encounter=encounter, character=tishi)
    # Shinai 4k3: 7 + 5 + 3 = 15; the bandit 3k2: 9 + 4 = 13; Tishi 3k2: 1 + 1 = 2.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(7, 5, 3, 2, 9, 4, 1, 1, 1, 1), author=gm
    )
    encounter, by_name = reload(encounter)
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Bayushi Shinai",
        "Bandit",
        "Isawa Tishi",
    ]
    return encounter, by_name


def test_rule_contested_roll(party, gm):
    """L5R, Contested Rolls: "The character whose player rolled a higher result is victorious" and on a tie
    "the players involved must immediately re-roll"; a declared raise "must exceed his opponent's by an
    increment of 5 for every Raise declared, or he is considered to have failed"."""
    encounter, by_name = party
    shinai, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    # Agility 3 (3k3) against the bandit's Agility 3: 5 + 5 + 5 = 15 each, a tie; then 9 + 9 + 1 = 19 to 12.
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility"},
        (5, 5, 5, 5, 5, 5, 9, 9, 1, 4, 4, 4),
        gm=gm,
        target=bandit,
    )
    verdict = FeedEntry.objects.get(label__endswith="Contest of Agility: Bayushi Shinai against Bandit")
    assert verdict.summary == "19 to 12: Bayushi Shinai wins" and verdict.result["outcome"] == "success"
    rolls = FeedEntry.objects.filter(label__contains="contested Agility").order_by("seq")
    assert [e.result["total"] for e in rolls] == [15, 15, 19, 12]
    assert rolls[2].label.endswith("(re-roll 1)")
    # Two raises: 19 against 12 beats it by 7, short of 10, so Shinai fails and the bandit prevails.
    encounter, by_name = around(encounter, gm)
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility", "raises": "2"},
        (9, 9, 1, 4, 4, 4),
        gm=gm,
        target=bandit,
    )
    verdict = FeedEntry.objects.filter(label__contains="Contest of Agility").latest("seq")
    assert verdict.summary == "19 to 12, 2 raises declared: Bandit wins (Bayushi Shinai not ahead by 10)"
    assert verdict.result["outcome"] == "failure"
    # A tie that can stand; and a quick NPC has no Perception to roll.
    encounter, by_name = around(encounter, gm)
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility", "tie_stands": "on"},
        (5, 5, 5, 5, 5, 5),
        gm=gm,
        target=bandit,
    )
    assert FeedEntry.objects.filter(label__contains=": Contest of").latest("seq").summary == (
        "15 to 15: a tie, and it stands"
    )
    encounter, by_name = around(encounter, gm)
    with pytest.raises(EncounterError, match="Bandit's numbers have no Perception"):
        do(
            encounter,
            shinai,
            "contest",
            {"roll": "trait:perception"},
            (5, 5, 5, 5, 5, 5),
            gm=gm,
            target=bandit,
        )


def test_rule_contested_roll_of_several(party, gm):
    """L5R, Contested Rolls (l.57): "It is possible for multiple characters to be involved in a Contested
    Roll, in which case the player who rolls the highest of those involved is the victor"; a tie at the
    top is rolled again by everyone in it; a raise the actor declared must be beaten by 5 over each."""
    encounter, by_name = party
    shinai, bandit, tishi = by_name["Bayushi Shinai"], by_name["Bandit"], by_name["Isawa Tishi"]
    # Agility: Shinai 3k3, the bandit 3k3, Tishi 3k3. First 15, 15, 12 (a tie at the top: all re-roll),
    # then 12, 13, 21: Tishi wins.
    faces = (5, 5, 5, 5, 5, 5, 4, 4, 4) + (4, 4, 4, 5, 4, 4, 9, 9, 3)
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility", "also": [str(tishi.pk)]},
        faces,
        gm=gm,
        target=bandit,
    )
    verdict = FeedEntry.objects.filter(label__contains="Contest of Agility").latest("seq")
    assert verdict.label.endswith("Contest of Agility: Bayushi Shinai against Bandit, Isawa Tishi")
    assert verdict.summary == "12 to 13 to 21: Isawa Tishi wins"
    assert verdict.result["outcome"] == "failure"
    rolls = FeedEntry.objects.filter(label__contains="contested Agility").order_by("seq")
    assert [e.result["total"] for e in rolls] == [15, 15, 12, 12, 13, 21]
    # One raise: Shinai's 19 is only 2 ahead of Tishi's 17, so he fails and Tishi, the best of the rest, wins.
    encounter, by_name = around(encounter, gm)
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility", "raises": "1", "also": [str(tishi.pk)]},
        (9, 9, 1, 4, 4, 4, 9, 7, 1),
        gm=gm,
        target=bandit,
    )
    verdict = FeedEntry.objects.filter(label__contains="Contest of Agility").latest("seq")
    assert verdict.summary == (
        "19 to 12 to 17, 1 raise declared: Isawa Tishi wins (Bayushi Shinai not ahead by 5)"
    )
    # A tie at the top that the GM lets stand names who tied.
    encounter, by_name = around(encounter, gm)
    do(
        encounter,
        shinai,
        "contest",
        {"roll": "trait:agility", "also": [str(tishi.pk)], "tie_stands": "on"},
        (5, 5, 5, 1, 1, 1, 5, 5, 5),
        gm=gm,
        target=bandit,
    )
    verdict = FeedEntry.objects.filter(label__contains="Contest of Agility").latest("seq")
    assert verdict.summary == "15 to 3 to 15: a tie between Bayushi Shinai and Isawa Tishi, and it stands"


def test_rule_cooperative_rolls(party, gm):
    """L5R, Cooperative Rolls: one rolls and "receives a bonus to the total of his roll equal to the
    combined Ranks of all other participants"; roped together, "the participant with the single highest
    rank in the Skill ... grants a bonus equal to his Skill Rank to all others making the roll"."""
    encounter, by_name = party
    shinai, tishi = by_name["Bayushi Shinai"], by_name["Isawa Tishi"]
    # Stealth: Shinai 1 + Agility 3 = 4k3; Tishi has no Stealth (0). Lore: Tishi 2, Shinai 0.
    do(
        encounter,
        shinai,
        "skill",
        {"skill": "Lore", "tn": "20", "cooperation": "group", "helpers": [str(tishi.pk)]},
        (5, 5, 4),
        gm=gm,
    )
    line = FeedEntry.objects.get(label__endswith="Bayushi Shinai: Lore")
    # Shinai's Lore is unskilled (Intelligence 2, 2k2): 5 + 5 + Tishi's 2 ranks = 12 against 20.
    assert line.summary == (
        "Lore 0 + Intelligence 2 unskilled, +2 from the helpers' ranks: u2k2+2 vs TN 20: 12, failure"
    )
    assert line.chance == str(l5r.chance(2, 2, 20, explode=False, bonus=2))
    encounter, by_name = around(encounter, gm)
    do(
        encounter,
        shinai,
        "skill",
        {"skill": "Lore", "tn": "10", "cooperation": "roped", "helpers": [str(tishi.pk)]},
        (3, 3, 4, 4, 2, 1, 1),
        gm=gm,
    )
    shinai_line = FeedEntry.objects.filter(label__endswith="Bayushi Shinai: Lore").latest("seq")
    tishi_line = FeedEntry.objects.get(label__endswith="Isawa Tishi: Lore")
    # Tishi holds the best rank (2) and rolls alone: Lore 2 + Intelligence 3 = 5k3, 4 + 4 + 2 = 10.
    assert shinai_line.summary.startswith(
        "Lore 0 + Intelligence 2 unskilled, +2 from the best-ranked climber"
    )
    assert shinai_line.result["total"] == 8 and shinai_line.result["outcome"] == "failure"
    assert tishi_line.result["total"] == 10 and "+2" not in tishi_line.summary
    with pytest.raises(EncounterError, match="Tick the helpers"):
        do(
            around(encounter, gm)[0],
            shinai,
            "skill",
            {"skill": "Lore", "tn": "10", "cooperation": "group"},
            gm=gm,
        )


def test_rule_cumulative_rolls(party, gm):
    """L5R, Cumulative Rolls: "Each time an individual makes a successful Skill Roll, the total of the
    roll is deducted from the total of the TN"; the GM may require "a minimum TN" for a roll to count."""
    encounter, by_name = party
    shinai = by_name["Bayushi Shinai"]
    do(encounter, shinai, "task", {"name": "Sculpture", "tn": "60", "minimum": "15"}, gm=gm)
    encounter, by_name = reload(encounter)
    assert encounter.state["l5r_tasks"] == [
        {"id": 1, "name": "Sculpture", "tn": 60, "minimum": 15, "totals": [], "remaining": 60}
    ]
    # Stealth (Shinai 1 + Agility 3: 4k3) toward the task: 9 + 8 + 7 = 24 counts, 36 to go.
    sculpt = {"skill": "Stealth", "tn": "99", "cooperation": "alone", "task": "1"}
    do(encounter, shinai, "skill", sculpt, (9, 8, 7, 1), gm=gm)
    progress = FeedEntry.objects.filter(label__endswith="Sculpture: cumulative TN 60").latest("seq")
    assert progress.summary == "24 counts: 36 of 60 to go"
    assert (
        "vs TN 15: 24, success"
        in FeedEntry.objects.get(label__endswith="Shinai: Stealth toward Sculpture").summary
    )
    encounter, by_name = around(encounter, gm)
    do(encounter, shinai, "skill", sculpt, (4, 3, 2, 1), gm=gm)  # 9: under the minimum, not counted
    assert FeedEntry.objects.filter(label__endswith="Sculpture: cumulative TN 60").latest("seq").summary == (
        "9 is under 15: it does not count; 36 of 60 to go"
    )
    encounter, by_name = around(encounter, gm)
    do(encounter, shinai, "skill", sculpt, (10, 9, 9, 8, 1), gm=gm)  # (10 + 9) + 9 + 8 = 36: done
    done = FeedEntry.objects.filter(label__endswith="Sculpture: cumulative TN 60").latest("seq")
    assert done.summary == "36 counts: the task is done (60 reached)" and done.result["outcome"] == "success"
    encounter, _ = around(encounter, gm)
    assert encounter.state["l5r_tasks"][0]["remaining"] == 0
    assert encounter.state["l5r_tasks"][0]["totals"] == [24, 36]
    with pytest.raises(EncounterError, match="Counts toward: Select a valid choice"):
        do(encounter, shinai, "skill", sculpt, (1, 1, 1, 1), gm=gm)
