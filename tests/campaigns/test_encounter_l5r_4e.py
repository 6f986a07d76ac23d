"""L5R fights as 4th edition plays them (Book of Earth, Skirmishes: Actions, Stances, Maneuvers, armor's
Reduction), the GM's calls on a player's own turn, and a reinforcement's initiative, with fixed dice.

The seed stops where combat begins: raises serve "Maneuvers in combat (described later in this chapter)"
(l.26); docs/rules.md says which 4th-edition rule each test plays and the readings taken."""

import pytest

from campaigns.models import FeedEntry
from play import encounters as services
from rules import l5r
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.systems.l5r.combat import L5RCombat, combat
from sheets.systems.l5r.combat.forms import L5RNpcForm
from sheets.systems.l5r.models import L5RSheet
from tests.npcs import L5R_BANDIT

from .encounter import reload, roller

START = (7, 5, 3, 2, 9, 4, 1)  # Shinai 4k3 keeps 7 + 5 + 3 = 15, the bandit 3k2 keeps 9 + 4 = 13


@pytest.fixture
def fight(make_campaign, gm, player, other_player):
    """Shinai (Reflexes 3, Agility 3, Strength 2, Void 2, Kenjutsu 2, Defense 1, a katana) against a
    bandit (Reflexes 2, Strength 3, Armor TN 20 in armor +5), Shinai first."""
    campaign = make_campaign("l5r", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    shinai = campaign.characters.get(name="Bayushi Shinai")
    encounter = services.encounter_create(campaign=campaign, name="Road")
    services.combatant_add_character(encounter=encounter, character=shinai)
    services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=L5R_BANDIT)
    return encounter, shinai


def start(encounter, gm, *faces):
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=roller(*(faces or START)), author=gm
    )
    return reload(encounter)


def do(encounter, actor, action, data, faces=(), *, author, target=None):
    encounter.refresh_from_db()
    return services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target is not None else None,
        data={f"{action}-{name}": value for name, value in data.items()},
        prefix=action,
        roller=roller(*faces),
        author=author,
    )


def next_turn(encounter, gm):
    encounter.refresh_from_db()
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    return reload(encounter)


def offered(encounter, name):
    encounter, by_name = reload(encounter)
    return [a.key for a in combat.actions(encounter, by_name[name], list(by_name.values()))]


def katana(shinai):
    return str(shinai.l5r_weapons.get(name="Katana").pk)


def test_rule_a_katana_hit_on_heavy_armor_loses_its_reduction(fight, gm):
    """4th edition, Armor: heavy armor adds +10 to the Armor TN and its Reduction 5 is "subtracted from
    all damage rolls": a katana's 16 wounds come through as 11."""
    encounter, shinai = fight
    bandit = encounter.combatants.get(name="Bandit")
    bandit.stats = {**bandit.stats, "armor": 10, "reduction": 5}
    bandit.save()
    encounter, by_name = start(encounter, gm)
    # Kenjutsu 2 + Agility 3 = 5k3 against 5 x 2 + 5 + 10 = 25: 10+6, 8, 4 keeps 28, a hit.
    # Katana 3k2 + Strength 2 = 5k2: 9 + 7 = 16, less Reduction 5 = 11 wounds.
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "raises": "0"},
        (10, 6, 8, 4, 3, 2, 9, 7, 3, 2, 1),
        author=gm,
        target=by_name["Bandit"],
    )
    attack = FeedEntry.objects.get(label__endswith="Shinai attacks Bandit")
    assert "5k3 vs TN 25 (Armor TN 25): 28, hit" in attack.summary
    damage = FeedEntry.objects.get(label__endswith="Shinai damages Bandit")
    assert "Katana 3k2 + Strength 2: 5k2: 16 - 5 Reduction = 11 wounds" in damage.summary
    assert damage.result["changes"] == ["Bandit: wounds 0 -> 11 (Nicked +3)"]
    assert reload(encounter)[1]["Bandit"].stats["wounds"] == 11


def test_rule_one_complex_or_two_simple_actions(fight, gm, make_campaign):
    """4th edition, Actions: a Turn holds "One Complex Action + Free Actions" or "Two Simple Actions +
    Free Actions"; an attack, a skill roll and a contest are each the Complex Action (seed l.70 expects
    time between the rolls of a cumulative task: one a turn)."""
    encounter, shinai = fight
    tishi = encounter.campaign.characters.get(name="Isawa Tishi")
    services.combatant_add_character(encounter=encounter, character=tishi)
    encounter, by_name = start(encounter, gm, *START, 1, 1, 1)
    me = by_name["Bayushi Shinai"]
    assert offered(encounter, "Bayushi Shinai") == [
        "stance",
        "attack",
        "contest",
        "skill",
        "guard",
        "scene",
        "task",
    ]
    do(
        encounter,
        me,
        "skill",
        {"skill": "Stealth", "tn": "10", "cooperation": "alone"},
        (9, 8, 7, 1),
        author=gm,
    )
    assert offered(encounter, "Bayushi Shinai") == ["scene", "task"]  # the Complex Action is spent
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    # Two Simple Actions: guard Tishi, then guard again (a new guard replaces it); nothing more.
    do(encounter, by_name["Bayushi Shinai"], "guard", {}, author=gm, target=by_name["Isawa Tishi"])
    assert offered(encounter, "Bayushi Shinai") == ["guard", "scene", "task"]
    do(encounter, by_name["Bayushi Shinai"], "guard", {}, author=gm, target=by_name["Isawa Tishi"])
    assert offered(encounter, "Bayushi Shinai") == ["scene", "task"]
    with pytest.raises(EncounterError, match="not open"):
        do(encounter, by_name["Bayushi Shinai"], "guard", {}, author=gm, target=by_name["Isawa Tishi"])


def test_rule_guard(fight, gm):
    """4th edition, Guard: "Guarding is a Simple Action ... Until your next Turn ... their Armor TN is
    increased by 10 and your Armor TN is decreased by 5"."""
    encounter, shinai = fight
    tishi = encounter.campaign.characters.get(name="Isawa Tishi")
    services.combatant_add_character(encounter=encounter, character=tishi)
    encounter, by_name = start(encounter, gm, *START, 1, 1, 1)
    do(encounter, by_name["Bayushi Shinai"], "guard", {}, author=gm, target=by_name["Isawa Tishi"])
    assert FeedEntry.objects.get(label__endswith="Bayushi Shinai guards Isawa Tishi")
    encounter, by_name = next_turn(encounter, gm)
    # The bandit attacks Tishi (Reflexes 2: 15) + 10 guarded = 25: 9 + 8 + 6 = 23 misses.
    do(
        encounter,
        by_name["Bandit"],
        "attack",
        {"raises": "0"},
        (9, 8, 6, 2, 1),
        author=gm,
        target=by_name["Isawa Tishi"],
    )
    miss = FeedEntry.objects.get(label__endswith="Bandit attacks Isawa Tishi")
    assert "vs TN 25 (Armor TN 15 +10 guarded = 25): 23, miss" in miss.summary
    # Shinai, guarding, is easier to hit: 20 - 5 = 15.
    assert L5RCombat().chance(encounter, by_name["Bandit"], "attack", by_name["Bayushi Shinai"], {}) == (
        l5r.chance(5, 3, 15)
    )


def test_rule_full_attack_and_defense_stances(fight, gm):
    """4th edition, Stances: Full Attack "gains a bonus of +2k1 to attack rolls ... his Armor TN is
    reduced by 10"; in Defense a character adds "their Air Ring plus their Defense Skill Rank to their
    Armor TN" and "may not attack"; the Stance is chosen "at the beginning of their Turn, before taking
    any Actions"."""
    encounter, shinai = fight
    encounter, by_name = start(encounter, gm)
    me, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    do(encounter, me, "stance", {"stance": "full_attack"}, author=gm)
    assert "Full Attack Stance" in FeedEntry.objects.latest("seq").label
    assert offered(encounter, "Bayushi Shinai") == ["attack", "scene", "task"]  # attacks only
    encounter, by_name = reload(encounter)
    assert "Armor TN 10" in combat.summary(by_name["Bayushi Shinai"], for_gm=True)  # 20 - 10
    # 5k3 + 2k1 = 7k4 against 20: 5 + 5 + 5 + 4 = 19, a miss.
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "raises": "0"},
        (5, 5, 5, 4, 1, 1, 1),
        author=gm,
        target=bandit,
    )
    line = FeedEntry.objects.get(label__endswith="Shinai attacks Bandit")
    assert "Kenjutsu 2 + Agility 3, Full Attack +2k1: 7k4 vs TN 20" in line.summary
    assert "19, miss" in line.summary
    # Next round Shinai takes Defense: Armor TN 20 + Air 3 + Defense 1 = 24, and offers no attack.
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    assert by_name["Bayushi Shinai"].state["stance"] == "full_attack"  # held until changed
    do(encounter, by_name["Bayushi Shinai"], "stance", {"stance": "defense"}, author=gm)
    assert "attack" not in offered(encounter, "Bayushi Shinai")
    encounter, by_name = reload(encounter)
    assert "Armor TN 24" in combat.summary(by_name["Bayushi Shinai"], for_gm=True)
    with pytest.raises(EncounterError, match="not open"):  # chosen once, at the start of the turn
        do(encounter, by_name["Bayushi Shinai"], "stance", {"stance": "attack"}, author=gm)


def test_rule_full_defense_and_center(fight, gm):
    """4th edition, Stances: Full Defense "makes a Defense / Reflexes roll and adds half of the total
    (rounding up) to his Armor TN until his following Turn ... may only take Free Actions"; Center
    "forfeits all Actions"; the next round "a bonus of 1k1 plus his Void Ring on any one roll" and +10 to
    the Initiative Score "for that Round only"."""
    encounter, shinai = fight
    encounter, by_name = start(encounter, gm)
    # Defense 1 + Reflexes 3 = 4k3: 9 + 8 + 6 = 23: +12 to the Armor TN, 20 -> 32.
    do(encounter, by_name["Bayushi Shinai"], "stance", {"stance": "full_defense"}, (9, 8, 6, 2), author=gm)
    line = FeedEntry.objects.latest("seq")
    assert line.summary.startswith("Defense 1 + Reflexes 3: 4k3: 23: Armor TN +12 until its next turn")
    assert offered(encounter, "Bayushi Shinai") == ["scene", "task"]
    encounter, by_name = next_turn(encounter, gm)
    assert L5RCombat().chance(encounter, by_name["Bandit"], "attack", by_name["Bayushi Shinai"], {}) == (
        l5r.chance(5, 3, 32)
    )
    # Round 2: Shinai's Full Defense ends as his turn begins; he takes Center. Round 3 he has 15 + 10.
    encounter, by_name = next_turn(encounter, gm)
    assert by_name["Bayushi Shinai"].state["stance"] == "attack"
    do(encounter, by_name["Bayushi Shinai"], "stance", {"stance": "center"}, author=gm)
    assert offered(encounter, "Bayushi Shinai") == ["scene", "task"]
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    assert encounter.round == 3 and by_name["Bayushi Shinai"].initiative == 25
    # One roll of this turn takes +1k1 and +Void 2: Kenjutsu 5k3 -> 6k4+2 against 20.
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "raises": "0"},
        (1, 1, 1, 1, 1, 1),
        author=gm,
        target=by_name["Bandit"],
    )
    line = FeedEntry.objects.get(label__endswith="Shinai attacks Bandit")
    assert "Center +1k1 +2: 6k4+2 vs TN 20 (Armor TN 20): 6, miss" in line.summary
    encounter, by_name = next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    assert by_name["Bayushi Shinai"].initiative == 15  # the +10 was for round 3 only


def test_rule_extra_attack_and_feint(fight, gm):
    """4th edition, Maneuvers: Extra Attack (5 Raises): if the first attack hits, "the character may
    immediately make a second attack roll ... only once per turn"; Feint (2 Raises): half the margin over
    the raised TN is added to the damage, at most five times the Insight Rank."""
    encounter, shinai = fight
    L5RSheet.objects.filter(character=shinai).update(void=5)
    encounter, by_name = start(encounter, gm)
    me, bandit = by_name["Bayushi Shinai"], by_name["Bandit"]
    # TN 20 + 25 = 45: 10+10+5, 10+9, 9 keeps 53, a hit; 5k2 damage 5 + 4 = 9.
    do(
        encounter,
        me,
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "maneuver": "extra_attack"},
        (10, 10, 5, 10, 9, 9, 1, 1, 5, 4, 3, 2, 1),
        author=gm,
        target=bandit,
    )
    assert (
        "(Armor TN 20 + 25 for 5 raises: Extra Attack): 53, hit"
        in FeedEntry.objects.get(label__endswith="Shinai attacks Bandit").summary
    )
    assert offered(encounter, "Bayushi Shinai")[0] == "attack"
    encounter, by_name = reload(encounter)
    with pytest.raises(EncounterError, match="only once a turn"):
        do(
            encounter,
            by_name["Bayushi Shinai"],
            "attack",
            {"skill": "Kenjutsu", "weapon": katana(shinai), "maneuver": "extra_attack"},
            author=gm,
            target=by_name["Bandit"],
        )
    # The second attack, a Feint: TN 20 + 10 = 30; 10+9, 9, 9 = 37: +3 damage (7 over, halved).
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "maneuver": "feint"},
        (10, 9, 9, 9, 1, 1, 5, 4, 3, 2, 1),
        author=gm,
        target=by_name["Bandit"],
    )
    feint = FeedEntry.objects.filter(label__endswith="Shinai damages Bandit").latest("seq")
    assert "Katana 3k2 + Strength 2 + 3 for the Feint: 5k2+3: 12 wounds" in feint.summary
    assert "attack" not in offered(encounter, "Bayushi Shinai")


def test_rule_disarm_and_knockdown(fight, gm):
    """4th edition, Maneuvers: a Disarm (3 Raises) "inflicts only 2k1 damage" and then "a Contested
    Strength Roll. If the attacking character wins, the target drops the weapon" ("Recovering a dropped
    weapon requires a Simple Action"); a Knockdown (2 Raises) deals normal damage and on a won Contested
    Strength Roll "the target is knocked prone": -10 to its Armor TN against melee, -2k0 to its attacks,
    a Simple Action to stand up."""
    encounter, shinai = fight
    L5RSheet.objects.filter(character=shinai).update(void=5)
    encounter, by_name = start(encounter, gm)
    # TN 20 + 15 = 35: 25 + 19 + 9 = 53, a hit; 2k1: 6; Strength 2k2 8 + 7 = 15 against the bandit's 3k3 3.
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "maneuver": "disarm"},
        (10, 10, 5, 10, 9, 9, 1, 1, 6, 2, 8, 7, 1, 1, 1),
        author=gm,
        target=by_name["Bandit"],
    )
    damage = FeedEntry.objects.get(label__endswith="Shinai damages Bandit")
    assert "Disarm 2k1: 2k1: 6 wounds" in damage.summary
    verdict = FeedEntry.objects.get(label__endswith="Disarm: Bayushi Shinai against Bandit")
    assert verdict.summary == "15 to 3: Bandit drops the weapon"
    encounter, by_name = next_turn(encounter, gm)
    assert by_name["Bandit"].state["disarmed"] is True
    assert "pick_up" in offered(encounter, "Bandit")
    # The bandit fights bare-handed: 5k3 against 20: 9 + 9 + 8 = 26; Unarmed 0k1 + Strength 3: 3k1.
    do(
        encounter,
        by_name["Bandit"],
        "attack",
        {"raises": "0"},
        (9, 9, 8, 1, 1, 4, 2, 1),
        author=gm,
        target=by_name["Bayushi Shinai"],
    )
    blow = FeedEntry.objects.get(label__endswith="Bandit damages Bayushi Shinai")
    assert "Unarmed 0k1 + Strength 3 (disarmed): 3k1: 4 wounds" in blow.summary
    # Round 2: a Knockdown, TN 20 + 10 = 30: 53 again; 5k2 damage 1 + 1; Strength 15 to 3: prone.
    encounter, by_name = next_turn(encounter, gm)
    do(
        encounter,
        by_name["Bayushi Shinai"],
        "attack",
        {"skill": "Kenjutsu", "weapon": katana(shinai), "maneuver": "knockdown"},
        (10, 10, 5, 10, 9, 9, 1, 1, 1, 1, 1, 1, 1, 8, 7, 1, 1, 1),
        author=gm,
        target=by_name["Bandit"],
    )
    assert FeedEntry.objects.get(label__endswith="Knockdown: Bayushi Shinai against Bandit").summary == (
        "15 to 3: Bandit is knocked prone"
    )
    encounter, by_name = reload(encounter)
    assert "prone" in combat.summary(by_name["Bandit"], for_gm=False)
    assert "Armor TN 10" in combat.summary(by_name["Bandit"], for_gm=True)  # 20 - 10 prone
    encounter, by_name = next_turn(encounter, gm)
    assert {"stand", "pick_up"} <= set(offered(encounter, "Bandit"))
    do(encounter, by_name["Bandit"], "stand", {}, author=gm)
    assert "prone" not in reload(encounter)[1]["Bandit"].state


def test_rule_down_pays_a_void_point_for_a_free_action(fight, gm):
    """4th edition, Wounds: a character who is Down "may only potentially take Free Actions ... and must
    spend a Void Point in order to be able to do so"."""
    encounter, shinai = fight
    L5RSheet.objects.filter(character=shinai).update(wounds=33)  # Earth 2: Down holds 31-34
    encounter, by_name = start(encounter, gm)
    do(encounter, by_name["Bayushi Shinai"], "free", {"what": "whispers a warning"}, author=gm)
    line = FeedEntry.objects.get(label__endswith="Bayushi Shinai (Down): Free Action")
    assert line.summary == "whispers a warning, for a Void point"
    shinai.l5r.refresh_from_db()
    assert shinai.l5r.void_spent == 1
    with pytest.raises(EncounterError, match="not open"):
        do(
            encounter,
            by_name["Bayushi Shinai"],
            "skill",
            {"skill": "Stealth", "tn": "10", "cooperation": "alone"},
            author=gm,
        )


def test_the_gm_calls_the_tn_and_the_contest_roll(fight, gm, player):
    """Seed l.6: "The Game Master must also decide how difficult the task should be, and choose a Target
    Number"; l.57: both participants "make the designated roll" (docs/rules.md: the GM picks it). On the
    player's own turn both are the GM's: a posted TN or roll is not the player's to set."""
    encounter, shinai = fight
    encounter, by_name = start(encounter, gm)
    me = by_name["Bayushi Shinai"]
    actions = {a.key: a for a in combat.actions(encounter, me, list(by_name.values()))}
    assert actions["skill"].gm_fields == ("tn",) and actions["contest"].gm_fields == ("roll", "tie_stands")
    # The GM sets the scene from the encounter page (a GM-only action, not the turn's).
    do(encounter, me, "scene", {"tn": "25", "roll": "trait:strength"}, author=gm)
    assert (
        FeedEntry.objects.latest("seq").summary
        == "Skill rolls against TN 25 (Difficult); contests roll Strength"
    )
    # The player posts TN 0: the roll is made against the GM's 25. Stealth 1 + Agility 3: 9 + 8 + 7 = 24.
    try:
        do(
            encounter,
            me,
            "skill",
            {"skill": "Stealth", "tn": "0", "cooperation": "alone"},
            (9, 8, 7, 1),
            author=player,
        )
    except EncounterError as refused:  # or the posted GM field is refused outright
        assert "GM" in str(refused)
        do(encounter, me, "skill", {"skill": "Stealth", "cooperation": "alone"}, (9, 8, 7, 1), author=player)
    line = FeedEntry.objects.get(label__endswith="Bayushi Shinai: Stealth")
    assert "4k3 vs TN 25: 24, failure" in line.summary
    # Next round the player's contest rolls the GM's Strength, not the Agility posted.
    next_turn(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)
    try:
        do(
            encounter,
            by_name["Bayushi Shinai"],
            "contest",
            {"roll": "trait:agility"},
            (8, 7, 1, 1, 1),
            author=player,
            target=by_name["Bandit"],
        )
    except EncounterError as refused:
        assert "GM" in str(refused)
        do(
            encounter,
            by_name["Bayushi Shinai"],
            "contest",
            {},
            (8, 7, 1, 1, 1),
            author=player,
            target=by_name["Bandit"],
        )
    verdict = FeedEntry.objects.get(label__contains="Contest of Strength")
    assert verdict.summary == "15 to 3: Bayushi Shinai wins"


def test_a_reinforcement_rolls_initiative_and_takes_its_place(fight, gm):
    """4th edition, Stage 1: Initiative: "An Initiative Roll is only made on a character's first Round of
    participation": a combatant joining a running fight rolls it then and is placed by it; whoever acts
    now keeps the turn."""
    encounter, _ = fight
    encounter, by_name = start(encounter, gm)
    encounter, by_name = next_turn(encounter, gm)  # the bandit's turn
    # Reflexes 3 + Insight 1 = 4k3: 9 + 9 + 9 = 27, ahead of everyone: first from next round on.
    ronin = services.combatant_add_npc(
        encounter=encounter,
        name="Ronin",
        cleaned_data={**L5R_BANDIT, "reflexes": 3},
        version=encounter.version,
        roller=roller(9, 9, 9, 1),
        author=gm,
    )
    encounter, by_name = reload(encounter)
    assert by_name["Ronin"].initiative == 27
    assert [c.name for c in encounter.combatants.order_by("position")] == [
        "Ronin",
        "Bayushi Shinai",
        "Bandit",
    ]
    assert services.current_actor(encounter, services.combatants_of(encounter)).name == "Bandit"
    line = FeedEntry.objects.get(label__endswith="Ronin initiative")
    assert line.visibility == "gm" and "Reflexes 3 + Insight rank 1: 4k3: 27" in line.summary
    assert ronin.pk


def test_sample_npc_is_a_bandit_in_light_armor():
    """The quick-NPC form takes the sample whole: the tests' bandit (tests/npcs.py) in 4th edition's
    light armor (+5, Reduction 3)."""
    form = L5RNpcForm(data=L5RCombat().sample_npc())
    assert form.is_valid(), form.errors
    stats = L5RCombat().npc_stats(form.cleaned_data)
    assert {k: stats[k] for k in L5R_BANDIT} == L5R_BANDIT
    assert (stats["armor"], stats["reduction"]) == (5, 3)
