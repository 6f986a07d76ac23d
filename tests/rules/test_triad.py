"""Triad rules: every seed example and figure, exact odds, and the creation rules."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import triad
from rules.dice import FixedFaces, Roller, RulesError

abilities = st.integers(min_value=0, max_value=22)
difficulties = st.integers(min_value=0, max_value=26)
edges = st.sampled_from([-1, 0, 1])
FAST = settings(max_examples=60, deadline=None)


def all_dice(edge):
    return itertools.product(range(1, 21), repeat=triad.dice_for(edge))


# --- advantage and disadvantage -------------------------------------------------


@pytest.mark.parametrize("adv,dis,want", [(0, 0, 0), (1, 0, 1), (0, 1, -1), (3, 3, 0),
                                          (2, 1, 1), (1, 4, -1), (5, 0, 1)])
def test_net_edge_cancels_one_for_one(adv, dis, want):
    assert triad.net_edge(adv, dis) == want


def test_rope_example_two_traits_beat_one_disadvantage():
    # Restrained by ropes (one disadvantage) with Physique and Swiftness: still advantage.
    assert triad.count_edge(adv_traits=2, disadvantages=1) == 1
    assert triad.dice_for(triad.count_edge(adv_traits=2, disadvantages=1)) == 2


def test_many_advantages_still_only_two_dice():
    assert triad.dice_for(triad.count_edge(adv_traits=3)) == 2
    assert triad.dice_for(triad.count_edge(adv_traits=1, disadvantages=1)) == 1


def test_count_edge_sources():
    assert triad.count_edge(extra_effort=True) == 1
    assert triad.count_edge(stunned=True) == -1
    assert triad.count_edge(evading=True, stunned=True) == 0


def test_net_edge_rejects_negative():
    with pytest.raises(RulesError):
        triad.net_edge(-1, 0)


# --- task rolls -------------------------------------------------------------------


def test_total_is_higher_of_die_and_ability():
    r = triad.check(12, 10, [4])
    assert (r.kept, r.total, r.outcome) == (4, 12, "success")
    r = triad.check(3, 10, [17])
    assert (r.kept, r.total, r.outcome) == (17, 17, "critical")


@pytest.mark.parametrize("ability,die,want", [
    (5, 15, "critical"), (5, 14, "success"), (5, 11, "success"), (5, 10, "mixed"),
    (5, 9, "failure"), (15, 2, "critical"), (10, 2, "mixed"), (20, 1, "fumble"),
])
def test_outcome_ladder_against_difficulty_10(ability, die, want):
    assert triad.check(ability, 10, [die]).outcome == want


def test_adv_trait_turns_mixed_into_success():
    assert triad.check(10, 10, [3]).outcome == "mixed"
    assert triad.check(10, 10, [3], adv_trait=True).outcome == "success"
    assert triad.check(4, 10, [3], adv_trait=True).outcome == "failure"


def test_fumble_ignores_ability():
    assert triad.check(20, 1, [1]).outcome == "fumble"


def test_advantage_keeps_higher_and_ignores_one_lone_1():
    r = triad.check(5, 10, [1, 14], edge=1)
    assert (r.kept, r.outcome, r.faces) == (14, "success", (1, 14))
    assert triad.check(5, 10, [1, 1], edge=1).outcome == "fumble"


def test_disadvantage_keeps_lower_and_any_1_fumbles():
    r = triad.check(5, 10, [18, 9], edge=-1)
    assert (r.kept, r.total, r.outcome) == (9, 9, "failure")
    assert triad.check(15, 10, [20, 1], edge=-1).outcome == "fumble"
    # The ability still floors the total under disadvantage.
    assert triad.check(15, 10, [20, 3], edge=-1).outcome == "critical"


def test_check_rejects_wrong_dice():
    with pytest.raises(RulesError):
        triad.check(5, 10, [3, 4])
    with pytest.raises(RulesError):
        triad.check(5, 10, [4], edge=1)
    with pytest.raises(RulesError):
        triad.check(5, 10, [21])
    with pytest.raises(RulesError):
        triad.check(5, 10, [3], edge=2)
    with pytest.raises(triad.TriadError) as err:
        triad.check(-1, 10, [3])
    assert err.value.field == "ability"


def _outright(odds) -> Fraction:
    """The chance a task succeeds outright: a critical or a plain success."""
    return odds["critical"] + odds["success"]


@pytest.mark.parametrize("difficulty,want", [(1, Fraction(95, 100)), (5, Fraction(75, 100)),
                                             (10, Fraction(50, 100)), (15, Fraction(25, 100))])
@pytest.mark.parametrize("ability", [0, 1])
def test_seed_difficulty_figures_for_a_bare_d20(ability, difficulty, want):
    assert _outright(triad.chance(ability, difficulty)) == want


@pytest.mark.parametrize("ability", [0, 1, 19])
def test_seed_difficulty_20_is_five_percent_mixed(ability):
    odds = triad.chance(ability, 20)
    assert odds["mixed"] == Fraction(5, 100)
    assert odds["success"] == odds["critical"] == 0


def test_chance_known_values():
    assert triad.chance(10, 10) == {"critical": Fraction(6, 20), "success": Fraction(4, 20),
                                "mixed": Fraction(9, 20), "failure": 0, "fumble": Fraction(1, 20)}
    adv = triad.chance(0, 10, edge=1)
    assert adv["fumble"] == Fraction(1, 400)
    assert adv["critical"] + adv["success"] == 1 - Fraction(10 * 10, 400)
    dis = triad.chance(0, 10, edge=-1)
    assert dis["fumble"] == Fraction(39, 400)
    assert dis["critical"] + dis["success"] == Fraction(100, 400)


@FAST
@given(abilities, difficulties, edges, st.booleans())
def test_chance_is_a_distribution_matching_every_face(ability, difficulty, edge, adv_trait):
    odds = triad.chance(ability, difficulty, edge=edge, adv_trait=adv_trait)
    assert set(odds) == set(triad.OUTCOMES)
    assert sum(odds.values()) == 1
    brute = dict.fromkeys(triad.OUTCOMES, Fraction(0))
    n = 20 ** triad.dice_for(edge)
    for dice in all_dice(edge):
        result = triad.check(ability, difficulty, dice, edge=edge, adv_trait=adv_trait)
        brute[result.outcome] += Fraction(1, n)
    assert odds == brute


@FAST
@given(abilities, difficulties, edges, st.booleans())
def test_higher_ability_never_lowers_the_chance(ability, difficulty, edge, adv_trait):
    lo = triad.chance(ability, difficulty, edge=edge, adv_trait=adv_trait)
    hi = triad.chance(ability + 1, difficulty, edge=edge, adv_trait=adv_trait)
    assert hi["critical"] >= lo["critical"]
    assert hi["critical"] + hi["success"] >= lo["critical"] + lo["success"]
    assert hi["fumble"] == lo["fumble"]
    harder = triad.chance(ability, difficulty + 1, edge=edge, adv_trait=adv_trait)
    assert harder["critical"] + harder["success"] <= lo["critical"] + lo["success"]


@FAST
@given(abilities, difficulties)
def test_advantage_helps_and_disadvantage_hurts(ability, difficulty):
    win = [_outright(triad.chance(ability, difficulty, edge=e)) for e in (-1, 0, 1)]
    assert win[0] <= win[1] <= win[2]
    fumble = [triad.chance(ability, difficulty, edge=e)["fumble"] for e in (-1, 0, 1)]
    assert fumble[0] > fumble[1] > fumble[2]


@pytest.mark.parametrize("ability,difficulty,edge", [(8, 12, 0), (3, 10, 1), (12, 14, -1)])
def test_roll_frequencies_agree_with_exact_odds(ability, difficulty, edge):
    roller = Roller(random.Random(20240611), max_dice=10**6)
    n = 20000
    counts = dict.fromkeys(triad.OUTCOMES, 0)
    for _ in range(n):
        counts[triad.roll_task(roller, ability=ability, difficulty=difficulty, edge=edge).outcome] += 1
    for outcome, p in triad.chance(ability, difficulty, edge=edge).items():
        sigma = math.sqrt(n * p * (1 - p))
        assert abs(counts[outcome] - n * p) <= 5 * sigma + 1e-9, outcome


def test_roll_task_replays_through_check():
    r = triad.roll_task(Roller(FixedFaces([7, 16])), ability=9, difficulty=11, edge=1)
    assert r == triad.check(9, 11, r.faces, edge=1)
    assert (r.kept, r.total, r.outcome) == (16, 16, "critical")


# --- extra effort and exceptional tools -------------------------------------------


def test_extra_effort_costs_one_point_after_the_roll():
    edge = triad.count_edge(extra_effort=True)
    r = triad.roll_task(Roller(FixedFaces([2, 13])), ability=6, difficulty=10, edge=edge)
    # The roll used the unspent score; the point comes off afterwards.
    assert (r.ability, r.kept, r.outcome) == (6, 13, "success")
    vitals = triad.spend(triad.Vitals.fresh(body=6, mind=10, spirit=10), "body", 1)
    assert vitals.body == 5


def test_exceptional_tool_replaces_the_score():
    assert triad.effective_ability(6, tool=20) == 20  # the battlesuit's Body 20
    assert triad.effective_ability(6) == 6
    with pytest.raises(triad.TriadError) as err:
        triad.effective_ability(6, tool=21)
    assert err.value.field == "tool"


# --- opposed rolls ----------------------------------------------------------------


def test_opposed_higher_total_wins_and_margin_five_doubles():
    r = triad.opposed(triad.Side(12), [3], triad.Side(8), [15])
    assert (r.winner, r.margin, r.critical, r.outcome, r.b.outcome) == ("b", 3, False, "failure", "success")
    r = triad.opposed(triad.Side(14), [3], triad.Side(8), [9])
    assert (r.winner, r.margin, r.critical, r.outcome) == ("a", 5, True, "critical")


def test_opposed_ties_and_fumbles():
    assert triad.opposed(triad.Side(10), [4], triad.Side(7), [10]).winner is None
    assert triad.opposed(triad.Side(10), [4], triad.Side(7), [10]).outcome == "mixed"
    assert triad.opposed(triad.Side(10, adv_trait=True), [4], triad.Side(7), [10]).winner == "a"
    both_adv = triad.opposed(triad.Side(10, adv_trait=True), [4], triad.Side(7, adv_trait=True), [10])
    assert both_adv.winner is None
    r = triad.opposed(triad.Side(18), [1], triad.Side(5), [2])
    assert (r.winner, r.outcome, r.b.outcome) == ("b", "fumble", "success")
    assert triad.opposed(triad.Side(18), [1], triad.Side(5), [1]).winner is None


@FAST
@given(abilities, edges, st.booleans(), abilities, edges, st.booleans())
def test_opposed_chance_matches_every_face(ab_a, e_a, t_a, ab_b, e_b, t_b):
    a, b = triad.Side(ab_a, e_a, t_a), triad.Side(ab_b, e_b, t_b)
    odds = triad.opposed_chance(a, b)
    assert sum(odds.values()) == 1
    if triad.dice_for(e_a) + triad.dice_for(e_b) > 3:
        return  # 160,000 combinations: covered by the smaller cases
    n = 20 ** (triad.dice_for(e_a) + triad.dice_for(e_b))
    brute = dict.fromkeys(triad.OUTCOMES, Fraction(0))
    for da in all_dice(e_a):
        for db in all_dice(e_b):
            brute[triad.opposed(a, da, b, db).outcome] += Fraction(1, n)
    assert odds == brute


def test_roll_opposed_draws_a_then_b():
    r = triad.roll_opposed(Roller(FixedFaces([11, 2, 19])), triad.Side(5, edge=1), triad.Side(5))
    assert r.a.faces == (11, 2) and r.b.faces == (19,) and r.winner == "b"


# --- teamwork -----------------------------------------------------------------------


def test_team_takes_the_best_number():
    team = [triad.Side(6), triad.Side(13), triad.Side(4)]
    r = triad.team_check(team, [[9], [2], [11]], 12)
    assert (r.total, r.outcome) == (13, "success")


def test_any_1_fumbles_the_team():
    team = [triad.Side(6), triad.Side(20), triad.Side(4)]
    assert triad.team_check(team, [[19], [20], [1]], 5).outcome == "fumble"
    # With advantage a member's lone 1 is ignored, as on a solo roll.
    team = [triad.Side(6, edge=1), triad.Side(13)]
    assert triad.team_check(team, [[1, 15], [7]], 12).outcome == "success"


def test_team_rejects_mismatched_dice():
    with pytest.raises(triad.TriadError) as err:
        triad.team_check([triad.Side(5), triad.Side(6)], [[3]], 10)
    assert err.value.field == "dice"


@FAST
@given(st.lists(st.tuples(abilities, edges), min_size=1, max_size=2), difficulties, st.booleans())
def test_team_chance_matches_every_face(spec, difficulty, adv_trait):
    team = [triad.Side(a, e) for a, e in spec]
    odds = triad.team_chance(team, difficulty, adv_trait=adv_trait)
    assert sum(odds.values()) == 1
    if sum(triad.dice_for(m.edge) for m in team) > 3:
        return
    combos = list(itertools.product(*[list(all_dice(m.edge)) for m in team]))
    brute = dict.fromkeys(triad.OUTCOMES, Fraction(0))
    for dice in combos:
        result = triad.team_check(team, dice, difficulty, adv_trait=adv_trait)
        brute[result.outcome] += Fraction(1, len(combos))
    assert odds == brute


def test_bigger_team_fumbles_more():
    one = triad.team_chance([triad.Side(10)], 10)["fumble"]
    three = triad.team_chance([triad.Side(10)] * 3, 10)["fumble"]
    assert one == Fraction(1, 20) and three == 1 - Fraction(19, 20) ** 3


# --- initiative ----------------------------------------------------------------------


def test_initiative_is_best_of_die_and_scores():
    assert triad.initiative("Ann", [7], body=10, mind=14, spirit=9).value == 14
    assert triad.initiative("Ann", [17], body=10, mind=14, spirit=9).value == 17
    # Danger Sense rolls with advantage.
    assert triad.initiative("Ann", [3, 18], body=10, mind=14, spirit=9, edge=1).value == 18


def test_npc_initiative_is_difficulty_plus_five():
    assert triad.npc_initiative("Ghoul", 10).value == 15
    assert triad.Npc("Ghoul", 10).initiative == 15


def test_initiative_tie_breaks():
    a = triad.initiative("A", [15], body=12, mind=10, spirit=10)
    b = triad.initiative("B", [12], body=15, mind=10, spirit=10)  # value 15 too, lower die
    c = triad.initiative("C", [9], body=15, mind=15, spirit=10)   # loses on die, wins nothing
    d = triad.initiative("D", [9], body=15, mind=15, spirit=11)
    e = triad.initiative("E", [15], body=13, mind=10, spirit=10)
    order = [x.name for x in triad.initiative_order([a, b, c, d, e])]
    assert order == ["E", "A", "B", "D", "C"]
    # Same die, Body decides; same Body, Mind; then Spirit.
    x = triad.initiative("X", [15], body=9, mind=12, spirit=14)
    y = triad.initiative("Y", [15], body=9, mind=13, spirit=3)
    assert [i.name for i in triad.initiative_order([x, y])] == ["Y", "X"]


def test_npc_loses_ties_to_characters_who_rolled():
    pc = triad.initiative("PC", [4], body=15, mind=6, spirit=6)
    npc = triad.npc_initiative("Guard", 10)
    assert [i.name for i in triad.initiative_order([npc, pc])] == ["PC", "Guard"]


# --- damage --------------------------------------------------------------------------


def test_weapon_and_armor_tables():
    assert [triad.weapon_damage(k) for k in ("light", "medium", "heavy", "superheavy")] == [3, 6, 9, 15]
    armor = [triad.armor_rating(k) for k in ("none", "light", "medium", "heavy", "superheavy")]
    assert armor == [0, 2, 4, 6, 12]
    with pytest.raises(triad.TriadError) as err:
        triad.armor_rating("mithril")
    assert err.value.field == "armor"


@pytest.mark.parametrize("base,armor,critical,want", [
    (6, 0, False, 6), (6, 2, False, 4), (6, 4, True, 8), (3, 6, False, 0),
    (15, 12, False, 3), (9, 6, True, 12), (0, 0, True, 0),
])
def test_damage(base, armor, critical, want):
    assert triad.damage(base, armor=armor, critical=critical) == want


@FAST
@given(st.integers(0, 40), st.integers(0, 20), st.booleans())
def test_damage_never_negative_and_armor_never_helps_the_attacker(base, armor, critical):
    d = triad.damage(base, armor=armor, critical=critical)
    assert 0 <= d <= base * 2
    assert triad.damage(base, armor=armor + 1, critical=critical) <= d


def test_deadly_adds_three_or_six_on_a_critical():
    assert triad.attack("success", weapon=6, deadly=True).to_target == 9
    assert triad.attack("critical", weapon=6, deadly=True).to_target == 18  # (6 + 3) x 2: +6 from Deadly
    assert triad.attack("critical", weapon=6, deadly=True, target_armor=4).to_target == 14


def test_attack_both_ways():
    assert triad.attack("success", weapon=6, counter=9) == triad.AttackOutcome("success", 6, 0)
    assert triad.attack("mixed", weapon=6, counter=9, attacker_armor=2) == triad.AttackOutcome("mixed", 6, 7)
    assert triad.attack("failure", weapon=6, counter=9) == triad.AttackOutcome("failure", 0, 9)
    assert triad.attack("fumble", weapon=6) == triad.AttackOutcome("fumble", 0, 0)
    assert triad.attack("success", weapon=6).target_stunned
    assert not triad.attack("success", weapon=6, target_armor=2).target_stunned


def test_stun_on_five_or_more():
    assert not triad.stuns(4) and triad.stuns(5) and triad.stuns(12)


def test_burning_room_example():
    # Difficulty 12 Body roll: 4 points on a failure, 8 when failing by 7 or worse.
    def burn(ability, die):
        return triad.hazard_damage(triad.check(ability, 12, [die]), points=4, severe_points=8)
    assert burn(3, 14) == 0
    assert burn(3, 6) == 4
    assert burn(3, 5) == 8
    assert burn(12, 20) == 0
    assert burn(12, 5) == 4  # mixed still burns; the ability floors the miss at 0
    assert burn(3, 1) == 8  # fumble, total 3: short by 9
    assert burn(20, 1) == 4  # fumble fails, but the total (20) is not short of 12


# --- characters in play -------------------------------------------------------------


def test_damage_stun_dying_and_death():
    v = triad.Vitals.fresh(body=8, mind=10, spirit=10)
    hit = triad.take_damage(v, 6)
    assert (hit.vitals.body, hit.stunned, hit.dying) == (2, True, False)
    hit = triad.take_damage(hit.vitals, 3)
    assert (hit.vitals.body, hit.stunned, hit.dying, hit.dead) == (0, False, True, False)
    assert triad.take_damage(hit.vitals, 0).dead is False  # fully absorbed: no new damage
    assert triad.take_damage(hit.vitals, 1, ability="spirit").dead is True
    with pytest.raises(triad.TriadError):
        triad.take_damage(triad.take_damage(hit.vitals, 1).vitals, 1)


def test_mental_damage_hits_mind():
    hit = triad.take_damage(triad.Vitals.fresh(body=8, mind=10, spirit=10), 4, ability="Mind")
    assert (hit.vitals.body, hit.vitals.mind) == (8, 6)


def test_hard_to_kill_once_until_fully_recovered():
    v = triad.Vitals.fresh(body=9, mind=10, spirit=10, traits={"Hard To Kill"})
    hit = triad.take_damage(v, 12)
    assert (hit.vitals.body, hit.saved_by, hit.dying) == (4, "Hard To Kill", False)
    again = triad.take_damage(hit.vitals, 4)
    assert again.saved_by is None and again.dying
    healed = triad.rest(hit.vitals, 5)
    assert healed.body == 9 and healed.spent == frozenset()
    assert triad.take_damage(healed, 9).saved_by == "Hard To Kill"
    # Hard To Unnerve guards Spirit only.
    v = triad.Vitals.fresh(body=9, mind=10, spirit=13, traits={"Hard To Unnerve"})
    assert triad.take_damage(v, 13, ability="spirit").vitals.spirit == 6
    assert triad.take_damage(v, 9).dying


def test_recovery_one_point_per_hour_up_to_maximum():
    v = triad.take_damage(triad.take_damage(triad.Vitals.fresh(body=10, mind=10, spirit=10), 4).vitals,
                      3, ability="mind").vitals
    assert triad.rest(v, 2, {"mind": 2}).mind == 9
    assert triad.rest(v, 1).body == 7
    full = triad.rest(v, 100)
    assert (full.body, full.mind, full.spirit) == (10, 10, 10)
    with pytest.raises(triad.TriadError) as err:
        triad.rest(v, 1, {"mind": 2})
    assert err.value.field == "hours"
    with pytest.raises(triad.TriadError) as err:
        triad.recover(v, {"mind": 4})
    assert err.value.field == "mind"


def test_berserker_rage_moves_a_point_into_body():
    v = triad.take_damage(triad.Vitals.fresh(body=10, mind=10, spirit=10), 3).vitals
    raged = triad.berserker_rage(v, "spirit")
    assert (raged.body, raged.spirit) == (8, 9)
    with pytest.raises(triad.TriadError):
        triad.berserker_rage(triad.Vitals.fresh(body=10, mind=10, spirit=10), "mind")


def test_movement():
    assert triad.move_feet() == 30 and triad.move_feet(moves=2) == 60
    assert triad.move_feet(trait="Fast") == 60 and triad.move_feet(moves=2, trait="Fast (Extreme)") == 180
    assert triad.move_feet(moves=2, restrained=True) == 0 and triad.move_feet(moves=2, dying=True) == 5


def test_npc_damage_lowers_difficulty_until_slain():
    ghoul = triad.Npc("Ghoul", 10, armor=2)
    hurt = triad.hit_npc(ghoul, triad.damage(6, armor=ghoul.armor))
    assert hurt.difficulty == 6 and not hurt.down
    dead = triad.hit_npc(hurt, 9)
    assert dead.difficulty == 0 and dead.slain
    spared = triad.hit_npc(hurt, 9, spare=True)
    assert spared.down and not spared.slain and spared.unconscious


def test_bestiary_and_benchmarks():
    assert "great white shark" in triad.BESTIARY["Animals & dinosaurs"][15][0]
    assert triad.OPPONENT_BENCHMARKS[10][1:] == ("light", "heavy")
    assert set(triad.DIFFICULTY_BENCHMARKS) == {1, 5, 10, 15, 20}


# --- traits --------------------------------------------------------------------------


def test_trait_list():
    assert len(triad.TRAITS) == 62
    assert len(triad.TRAITS_BY_NAME) == 62
    for name in triad.COMMON_ADV_TRAITS:
        assert triad.TRAITS_BY_NAME[name].adv
    for name in ("Deadly", "Fast", "Fast (Extreme)", "Hard To Kill", "Magical", "Relentless",
                 "Berserker Rage", "Danger Sense", "Cover Identities", "Psionics"):
        assert not triad.TRAITS_BY_NAME[name].adv
    assert triad.TRAITS_BY_NAME["Brawling/Martial Artist"].adv
    assert all(tr.ability in (None, *triad.ABILITIES) and tr.summary for tr in triad.TRAITS)


def test_find_trait_is_forgiving_about_case_and_adv_label():
    assert triad.find_trait("occult (Adv.)").name == "Occult"
    assert triad.find_trait("  hard to  kill").name == "Hard To Kill"
    with pytest.raises(triad.TriadError):
        triad.find_trait("Laser Eyes")


# --- creation --------------------------------------------------------------------------


def test_tiers():
    got = {k: (v.points, v.traits, v.powers) for k, v in triad.TIERS.items()}
    assert got == {
        "ordinary": (30, 3, 0), "heroic": (35, 5, 0), "elite": (40, 7, 0), "epic": (45, 9, 0),
        "street_level_superhero": (35, 3, 2), "minor_superhero": (40, 3, 4),
        "major_superhero": (50, 5, 6),
    }


def test_valid_build():
    b = triad.validate_character(tier="ordinary", body=10, mind=10, spirit=10,
                             traits=["Charm", "Stealth", "Fast"])
    assert b.in_tier and b.points == 30 and b.matching_tiers == ("ordinary",)
    b = triad.validate_character(tier="street_level_superhero", body=15, mind=10, spirit=10,
                             traits=["Physique", "Swiftness", "Deadly"],
                             powers=["Flight", "Super Strength"])
    assert b.in_tier and b.powers == ("Flight", "Super Strength")


@pytest.mark.parametrize("kwargs,field", [
    (dict(tier="mythic"), "tier"),
    (dict(tier=None), "tier"),
    (dict(body=0), "body"),
    (dict(mind=21), "mind"),
    (dict(spirit="ten"), "spirit"),
    (dict(body=11), "points"),
    (dict(traits=["Charm", "Stealth"]), "traits"),
    (dict(traits=["Charm", "Stealth", "Laser Eyes"]), "traits"),
    (dict(traits=["Charm", "charm", "Fast"]), "traits"),
    (dict(powers=["Flight"]), "powers"),
    (dict(powers=[""]), "powers"),
])
def test_invalid_builds_name_the_field(kwargs, field):
    args = dict(tier="ordinary", body=10, mind=10, spirit=10, traits=["Charm", "Stealth", "Fast"])
    args.update(kwargs)
    with pytest.raises(triad.BuildError) as err:
        triad.validate_character(**args)
    assert err.value.field == field
    assert isinstance(err.value, RulesError) and isinstance(err.value, ValueError)


def test_duplicate_powers_rejected():
    with pytest.raises(triad.BuildError) as err:
        triad.validate_character(tier="street_level_superhero", body=15, mind=10, spirit=10,
                             traits=["Physique", "Swiftness", "Deadly"], powers=["Flight", "flight"])
    assert err.value.field == "powers"


def test_out_of_tier_allowed_and_reported():
    b = triad.validate_character(tier="heroic", body=8, mind=15, spirit=13,
                             traits=["Hard To Unnerve", "Medical Expert", "Natural Sciences",
                                     "Occult", "Willpower"], allow_out_of_tier=True)
    assert not b.in_tier and b.points == 36 and b.matching_tiers == ()
    assert "35" in b.problems[0] and "36" in b.problems[0]
    # Scores outside 1-20 are never allowed, even out of tier.
    with pytest.raises(triad.BuildError):
        triad.validate_character(tier=None, body=25, mind=5, spirit=5, allow_out_of_tier=True)


def test_sample_characters():
    vh = triad.SAMPLE_CHARACTERS["van_helsing"]
    assert (vh.body, vh.mind, vh.spirit) == (8, 15, 13)
    b = vh.build()
    assert b.points == 36 and not b.in_tier and b.problems
    zys = triad.SAMPLE_CHARACTERS["zheng_yi_sao"]
    assert (zys.body, zys.mind, zys.spirit) == (10, 12, 13)
    b = zys.build()
    assert b.in_tier and b.tier == "heroic" and len(b.traits) == 5
    with pytest.raises(triad.BuildError) as err:
        triad.validate_character(tier="heroic", body=vh.body, mind=vh.mind, spirit=vh.spirit,
                             traits=vh.traits)
    assert err.value.field == "points"


def test_rules_triad_imports_no_django():
    import ast
    import pathlib
    for module in pathlib.Path(triad.__file__).parent.glob("*.py"):
        tree = ast.parse(module.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert not any(name.split(".")[0] == "django" for name in names)


@pytest.mark.parametrize(
    ("outcome", "left", "back"),
    [
        ("critical", "grappled", 0),  # nothing to double: the hold is the whole outcome
        ("success", "grappled", 0),
        ("mixed", "grappled", 4),  # both succeeds and suffers the failure's consequence
        ("failure", None, 4),
        ("fumble", None, 4),
    ],
)
def test_an_alternative_to_damage_hits_and_misses_like_an_attack(outcome, left, back):
    """Triad l.125: "Instead of causing damage, a player may declare other intended outcomes of an attack
    task roll"; l.105: a failed attack on a foe that fights back costs the attacker (here 6 less armor 2)."""
    assert triad.alternative(outcome, triad.GRAPPLE, counter=6, attacker_armor=2) == (left, back)


def test_each_alternative_leaves_its_condition_and_an_unknown_one_is_refused():
    """Triad l.125 (grappling, disarming, tripping: prone) and l.191 (Stunning Strikes: stunned)."""
    intents = (triad.GRAPPLE, triad.DISARM, triad.TRIP, triad.STUN)
    left = {intent: triad.alternative("success", intent)[0] for intent in intents}
    assert left == {"grapple": "grappled", "disarm": "disarmed", "trip": "prone", "stun": "stunned"}
    with pytest.raises(triad.TriadError) as err:
        triad.alternative("success", "decapitate")
    assert err.value.field == "intent"


def test_a_disarmed_fighter_hits_with_its_fists():
    """Triad l.125 "disarming (knocking away a held weapon)"; l.112: punches and kicks are Light (3)."""
    assert triad.weapon_in_hand("heavy") == 9 and triad.weapon_in_hand("heavy", disarmed=True) == 3
    assert triad.weapon_in_hand("", disarmed=True) == 0  # no weapon, nothing changes


@pytest.mark.parametrize(
    ("advantages", "disadvantages", "cancelled", "edge", "dice", "keeps"),
    [(0, 0, 0, 0, 1, ""), (2, 0, 0, 1, 2, "higher"), (3, 1, 1, 1, 2, "higher"), (1, 2, 1, -1, 2, "lower"),
     (2, 2, 2, 0, 1, "")],
)
def test_sources_cancel_one_for_one_and_at_most_two_dice_are_thrown(
    advantages, disadvantages, cancelled, edge, dice, keeps
):
    # Triad l.55: sources "cancel out on a 1-to-1 basis before making the die roll"; what remains is one
    # case of advantage (two d20, the higher) or disadvantage (two d20, the lower), never more dice.
    reading = triad.read_edge(advantages, disadvantages)
    assert (reading.cancelled, reading.edge, reading.dice, reading.keeps) == (cancelled, edge, dice, keeps)
