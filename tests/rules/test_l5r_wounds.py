"""L5R wound ranks, Armor TN and the initiative pool: the combat numbers the encounters use."""

import pytest

from rules import l5r
from rules.dice import RulesError


def test_wound_chart_for_earth_2():
    # Healthy holds 5 x Earth, every later rank 2 x Earth more.
    levels = l5r.wound_levels(2)
    assert [(lv.name, lv.tn_penalty, lv.limit) for lv in levels] == [
        ("Healthy", 0, 10),
        ("Nicked", 3, 14),
        ("Grazed", 5, 18),
        ("Hurt", 10, 22),
        ("Injured", 15, 26),
        ("Crippled", 20, 30),
        ("Down", 40, 34),
        ("Out", None, 38),
    ]


def test_wound_chart_for_earth_3():
    assert [lv.limit for lv in l5r.wound_levels(3)] == [15, 21, 27, 33, 39, 45, 51, 57]


@pytest.mark.parametrize(
    ("wounds", "name", "penalty"),
    [
        (0, "Healthy", 0),
        (10, "Healthy", 0),
        (11, "Nicked", 3),
        (14, "Nicked", 3),
        (15, "Grazed", 5),
        (19, "Hurt", 10),
        (23, "Injured", 15),
        (27, "Crippled", 20),
        (31, "Down", 40),
        (34, "Down", 40),
        (35, "Out", None),
        (38, "Out", None),
        (39, "Dead", None),
    ],
)
def test_wound_rank_at_each_edge_for_earth_2(wounds, name, penalty):
    rank, tn_penalty, _ = l5r.wound_rank(wounds, 2)
    assert (rank, tn_penalty) == (name, penalty)


def test_wound_penalty_of_who_cannot_act_is_down_s():
    assert l5r.wound_penalty(12, 2) == 3
    assert l5r.wound_penalty(36, 2) == 40
    assert l5r.wound_penalty(100, 2) == 40


@pytest.mark.parametrize(("wounds", "earth"), [(-1, 2), (3, 0), (3, 11), (True, 2), ("3", 2)])
def test_wound_rank_refuses_bad_numbers(wounds, earth):
    with pytest.raises(RulesError):
        l5r.wound_rank(wounds, earth)


def test_armor_tn():
    assert l5r.armor_tn(2) == 15
    assert l5r.armor_tn(3, armor=5) == 25
    with pytest.raises(RulesError):
        l5r.armor_tn(3, armor=-1)


def test_initiative_pool():
    assert l5r.initiative_pool(3, 1).notation == "4k3"
    assert l5r.initiative_pool(3, 2, extra_rolled=1, extra_kept=1, bonus=2).notation == "6k4+2"
    with pytest.raises(RulesError):
        l5r.initiative_pool(2, 1, extra_kept=-2)


def test_down_takes_no_complex_action_and_out_takes_nothing():
    """A reading (the seed has no wound chart): at Down no attack, but rolls; at Out and past it, nothing."""
    chart = {level.name: level for level in l5r.wound_levels(2)}
    assert all(l5r.can_attack(chart[name]) for name in ("Healthy", "Nicked", "Crippled"))
    assert not l5r.can_attack(chart["Down"]) and l5r.can_roll(chart["Down"])
    for level in (chart["Out"], l5r.wound_rank(39, 2)):
        assert not l5r.can_attack(level) and not l5r.can_roll(level)


def test_build_cost_refuses_bad_numbers():
    base = dict.fromkeys(l5r.TRAITS, 2)
    with pytest.raises(RulesError, match="Void must be from 1 to 10"):
        l5r.build_cost(base, void=11)
    with pytest.raises(RulesError, match="emphases"):
        l5r.build_cost(base, void=2, emphases=-1)
    with pytest.raises(RulesError, match="Skill must be from 1 to 10"):
        l5r.skill_cost(0)
