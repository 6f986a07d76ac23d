"""Five by Five 2.5: every worked example and figure in the seed, plus property and frequency tests."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import fivebyfive
from rules.dice import FixedFaces, Roller

ranks = st.sampled_from(fivebyfive.RANKS)
value_or_none = st.one_of(st.none(), ranks)


def fixed(*faces: int) -> Roller:
    return Roller(FixedFaces(faces))


# --------------------------------------------------------------------------- ladder & shifts


def test_ranks_are_the_issue_ladder():
    assert fivebyfive.RANKS == (-5, 0, 2, 4, 6, 9, 12, 16, 20, 25)
    assert fivebyfive.BASIC_RANKS == (-5, 0, 2, 4, 6, 9, 12, 16)


@pytest.mark.parametrize(
    "value,steps,expected",
    [
        (4, 0, 4),
        (4, 1, 6),
        (4, -1, 2),
        (6, 2, 12),
        (2, -2, -5),
        (0, -1, -5),
        (0, -2, None),
        (-5, -1, None),
        (16, 1, 20),
        (20, 1, 25),
        (25, 1, 25),
        (9, 10, 25),
        (25, -9, -5),
        (25, -10, None),
    ],
)
def test_shift(value, steps, expected):
    assert fivebyfive.shift(value, steps) == expected


@pytest.mark.parametrize("value,steps", [(3, 1), (30, 0), (None, 1), (4, 1.5), (True, 0), (4, True)])
def test_shift_rejects_values_off_the_ladder(value, steps):
    with pytest.raises(ValueError):
        fivebyfive.shift(value, steps)


# --------------------------------------------------------------------------- the 5x5 check


def test_multiply_the_dice_example():
    # "a roll of [2] and [5] on two dice will produce a result of 10"
    c = fivebyfive.check(9, [2, 5])
    assert c.product == 10 and not c.success and not c.trump
    assert fivebyfive.check(12, [2, 5]).success
    assert fivebyfive.check(10 - 1, [3, 3]).success  # 9 <= 9: equal succeeds


def test_larry_amateur_chef_trump():
    # Amateur Chef 4, rolls [2] and [6]: 12 > 4 but the 6 trumps.
    c = fivebyfive.check(4, [2, 6])
    assert c.product == 12 and c.trump and c.success


def test_highest_non_trump_result_is_five_by_five():
    assert max(a * b for a in range(1, 6) for b in range(1, 6)) == 25
    assert not fivebyfive.check(16, [5, 5]).success


def test_untrained_needs_a_trump():
    assert not fivebyfive.check(0, [1, 1]).success
    assert fivebyfive.check(0, [1, 6]).success


def test_poor_rolls_one_die_and_needs_a_six():
    assert fivebyfive.dice_for(-5) == 1
    assert fivebyfive.check(-5, [6]).success and fivebyfive.check(-5, [6]).trump
    assert not fivebyfive.check(-5, [1]).success
    assert fivebyfive.check(-5, [5], doubles_token=True).success
    assert not fivebyfive.check(-5, [6]).doubles
    with pytest.raises(ValueError, match="1 die"):
        fivebyfive.check(-5, [6, 6])


def test_check_dice_count_and_faces():
    with pytest.raises(ValueError, match="2 dice"):
        fivebyfive.check(4, [3])
    with pytest.raises(ValueError):
        fivebyfive.check(4, [3, 7])
    with pytest.raises(ValueError):
        fivebyfive.check(4, [0, 2])
    with pytest.raises(ValueError):
        fivebyfive.check(5, [1, 1])


def test_no_chance_rolls_nothing():
    c = fivebyfive.check(None, [])
    assert not c.success and not c.trump and not c.doubles
    assert fivebyfive.chance(None) == 0 and fivebyfive.chance(None, doubles_token=True) == 0
    with pytest.raises(ValueError):
        fivebyfive.check(None, [6, 6])


def test_ranks_above_sixteen_still_roll_sixteen_or_less():
    # "Even with a rank 25 in Brain Surgery, the player still rolls a 16 or less"
    assert fivebyfive.check(25, [4, 4]).success
    assert not fivebyfive.check(25, [4, 5]).success
    assert not fivebyfive.check(20, [5, 5]).success
    assert fivebyfive.chance(20) == fivebyfive.chance(25) == fivebyfive.chance(16)


def test_doubles_token_makes_fives_trump():
    assert not fivebyfive.check(0, [5, 1]).success
    c = fivebyfive.check(0, [5, 1], doubles_token=True)
    assert c.trump and c.success
    assert fivebyfive.check(4, [3, 3]).doubles
    assert not fivebyfive.check(4, [3, 4]).doubles


# The seed's table: "N in 36 chance" and the "actual" percentages.
SEED_ODDS = [
    (-5, Fraction(1, 6), "16.67"),
    (0, Fraction(11, 36), "30.56"),
    (2, Fraction(14, 36), "38.89"),
    (4, Fraction(19, 36), "52.78"),
    (6, Fraction(23, 36), "63.89"),
    (9, Fraction(26, 36), "72.22"),
    (12, Fraction(30, 36), "83.33"),
    (16, Fraction(33, 36), "91.67"),
]


@pytest.mark.parametrize("value,odds,actual", SEED_ODDS)
def test_seed_odds(value, odds, actual):
    assert fivebyfive.chance(value) == odds
    assert f"{float(fivebyfive.chance(value) * 100):.2f}" == actual


def test_seed_nominal_percentages_are_in_order():
    # The rank shift table's rounded labels rise along the ladder from 0% (below -5).
    labels = [fivebyfive.TABLE_PERCENT[None]] + [fivebyfive.TABLE_PERCENT[r] for r in fivebyfive.RANKS]
    assert labels == [0, 15, 30, 40, 50, 60, 70, 80, 90, 95, 100]
    for value, odds, _ in SEED_ODDS:
        assert abs(float(odds) * 100 - fivebyfive.TABLE_PERCENT[value]) < 5


def test_poor_is_about_half_of_untrained():
    # "half as likely as an untrained task": 6/36 against 11/36.
    assert abs(2 * fivebyfive.chance(-5) - fivebyfive.chance(0)) <= Fraction(1, 36)


@pytest.mark.parametrize(
    "value,with_token",
    [
        (-5, Fraction(1, 3)),
        (0, Fraction(20, 36)),
        (2, Fraction(23, 36)),
        (4, Fraction(28, 36)),
        (16, Fraction(1)),
        (25, Fraction(1)),
    ],
)
def test_chance_with_token(value, with_token):
    assert fivebyfive.chance(value, doubles_token=True) == with_token


def test_button_odds_after_shifts():
    # A roll button prices the value after every shift: chance(effective_value(...)).
    assert fivebyfive.chance(fivebyfive.effective_value(4)) == Fraction(19, 36)
    assert fivebyfive.chance(4, doubles_token=True) == Fraction(28, 36)
    brain = fivebyfive.effective_value(2, advanced=True)
    assert brain == -5 and fivebyfive.chance(brain) == Fraction(1, 6)
    assert fivebyfive.chance(fivebyfive.effective_value(0, advanced=True)) == 0
    assert fivebyfive.effective_value(0, aspect=fivebyfive.AspectRating.SUPERIOR) == 2
    assert fivebyfive.effective_value(6, steps=-1, aspect=fivebyfive.AspectRating.INFERIOR) == 2


@settings(max_examples=100, deadline=None)
@given(value_or_none, st.booleans())
def test_outcome_odds_sum_to_one(value, token):
    odds = fivebyfive.outcome_odds(value, doubles_token=token)
    assert sum(odds.values()) == 1
    assert all(p >= 0 for p in odds.values())


@settings(max_examples=100, deadline=None)
@given(ranks, ranks, st.booleans())
def test_higher_value_never_lowers_chance(a, b, token):
    lo, hi = sorted((a, b))
    assert fivebyfive.chance(lo, doubles_token=token) <= fivebyfive.chance(hi, doubles_token=token)
    assert fivebyfive.chance(a) <= fivebyfive.chance(a, doubles_token=True)
    assert fivebyfive.chance(fivebyfive.shift(lo, -1)) <= fivebyfive.chance(lo)


@settings(max_examples=100, deadline=None)
@given(ranks, st.booleans(), st.lists(st.integers(1, 6), min_size=2, max_size=2))
def test_check_agrees_with_definition(value, token, dice):
    if value == -5:
        dice = dice[:1]
    c = fivebyfive.check(value, dice, doubles_token=token)
    trump = any(d >= (5 if token else 6) for d in dice)
    assert c.trump == trump
    if value == -5:
        assert c.success == trump
    else:
        assert c.success == (trump or dice[0] * dice[1] <= min(value, 16))


# --------------------------------------------------------------------------- task rolls and tokens


def test_roll_task_records_faces_and_earns_token_on_doubles():
    r = fivebyfive.roll_task(fixed(3, 3), 9)
    assert r.faces == (3, 3) and r.success and r.doubles
    assert r.token_earned and r.token_held and not r.token_spent
    assert r.replay().success == r.success


def test_holding_a_token_caps_at_one():
    r = fivebyfive.roll_task(fixed(2, 2), 4, holding_token=True)
    assert r.doubles and not r.token_earned and r.token_held


def test_spending_a_token():
    r = fivebyfive.roll_task(fixed(5, 1), 0, doubles_token=True)
    assert r.success and r.trump and r.token_spent and not r.token_held
    r = fivebyfive.roll_task(fixed(5, 5), 0, doubles_token=True)
    assert r.token_spent and r.token_earned and r.token_held  # spent one, rolled doubles: a fresh one
    r = fivebyfive.roll_task(fixed(1, 2), 4, holding_token=True)
    assert r.token_held and not r.token_spent


def test_roll_task_applies_shifts_once():
    r = fivebyfive.roll_task(fixed(6), 2, advanced=True)  # brain surgeon rank 2 rolls as poor
    assert r.target == -5 and r.faces == (6,) and r.success and r.steps == -2
    r = fivebyfive.roll_task(Roller(FixedFaces([])), 0, advanced=True)
    assert r.target is None and r.faces == () and not r.success
    r = fivebyfive.roll_task(fixed(4, 4), 25, advanced=True)
    assert r.target == 16 and r.success


@pytest.mark.parametrize("value", fivebyfive.RANKS)
def test_task_frequencies_match_exact_odds(value):
    rng = random.Random(1234 + value)
    roller = Roller(rng, max_dice=10**6)
    n = 4000
    for token in (False, True):
        wins = sum(fivebyfive.roll_task(roller, value, doubles_token=token).success for _ in range(n))
        p = float(fivebyfive.chance(value, doubles_token=token))
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / n)
        assert abs(wins / n - p) <= 5 * sigma + 1e-9


# --------------------------------------------------------------------------- trump chains, damage, healing


@pytest.mark.parametrize(
    "faces,token,total",
    [
        ([3], False, 3),
        ([6, 2], False, 7),
        ([6, 6, 1], False, 11),
        ([5, 3], True, 8),
        ([6, 5, 4], True, 14),
        ([5], False, 5),
    ],
)
def test_trump_total(faces, token, total):
    assert fivebyfive.trump_total(faces, doubles_token=token) == total


@pytest.mark.parametrize(
    "faces,token", [([6], False), ([3, 2], False), ([], False), ([5], True), ([6, 7], False)]
)
def test_trump_total_rejects_broken_chains(faces, token):
    with pytest.raises(ValueError):
        fivebyfive.trump_total(faces, doubles_token=token)


def test_second_trump_adds_ten():
    # "if the second roll is also trump, roll again, this time adding +10"
    assert fivebyfive.trump_total([6, 6, 4]) == 4 + 10


def test_damage_formula():
    # Damage = 1d6 + DB - AV, with AV written as a negative number.
    assert fivebyfive.damage([4], db=3, av=-2) == 5
    assert fivebyfive.damage([6, 3], db=2, av=-6) == 4
    assert fivebyfive.damage([1], db=0, av=-6) == 0  # never below 0
    with pytest.raises(ValueError, match="0 down to -6"):
        fivebyfive.damage([4], db=3, av=2)
    with pytest.raises(ValueError):
        fivebyfive.damage([4], db=-1, av=0)


@pytest.mark.parametrize("av", [-7, -100, 1, 2])
def test_damage_refuses_an_av_outside_the_armor_table(av):
    """Five by Five l.478-506: the armor table runs from AV 0 (scant or no clothes) to AV -6 (heavy armor);
    an AV past either end is refused the same way, by damage, its mean and its roll."""
    with pytest.raises(fivebyfive.FieldError, match="0 down to -6") as refused:
        fivebyfive.damage([4], db=3, av=av)
    assert refused.value.field == "av"
    with pytest.raises(fivebyfive.FieldError, match="0 down to -6"):
        fivebyfive.mean_damage(db=3, av=av)
    with pytest.raises(fivebyfive.FieldError, match="0 down to -6"):
        fivebyfive.roll_damage(Roller(FixedFaces([4])), db=3, av=av)
    assert fivebyfive.damage([4], db=3, av=-6) == 1 and fivebyfive.damage([4], db=3, av=0) == 7


@pytest.mark.parametrize("faces,lost", [([1], 1), ([3], 1), ([4], 2), ([5], 2), ([6, 2], 3), ([6, 6, 5], 6)])
def test_harm(faces, lost):
    assert fivebyfive.harm(faces) == lost


def test_harm_rejects_unfinished_chain():
    with pytest.raises(ValueError):
        fivebyfive.harm([6])


def _damage_by_enumeration(db: int, av: int, token: bool, trumps: int = 40) -> dict[int, Fraction]:
    """P(damage = d) from every chain of up to ``trumps`` trumps: what is left out is below 1e-20."""
    threshold = 5 if token else 6
    p_trump = Fraction(7 - threshold, 6)
    odds: dict[int, Fraction] = {}
    for k in range(trumps + 1):
        for last in range(1, threshold):
            d = max(0, last + 5 * k + db + av)
            odds[d] = odds.get(d, Fraction(0)) + p_trump**k * Fraction(1, 6)
    return odds


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5), st.integers(-6, 0), st.booleans())
def test_mean_damage_matches_enumeration(db, av, token):
    mean = fivebyfive.mean_damage(db=db, av=av, doubles_token=token)
    brute = sum(d * p for d, p in _damage_by_enumeration(db, av, token).items())
    assert abs(float(mean - brute)) < 1e-9
    assert fivebyfive.mean_damage(db=0, av=0) == 4


def test_damage_frequencies_match_enumeration():
    rng = random.Random(99)
    roller = Roller(rng, max_dice=10**6)
    n = 6000
    results = [fivebyfive.roll_damage(roller, db=2, av=-3).damage for _ in range(n)]
    odds = _damage_by_enumeration(2, -3, False)
    for t in range(0, 12):
        p = float(sum(q for d, q in odds.items() if d >= t))
        sigma = math.sqrt(max(p * (1 - p), 1e-12) / n)
        assert abs(sum(d >= t for d in results) / n - p) <= 5 * sigma + 1e-9


def test_roll_damage_chain_and_replay():
    r = fivebyfive.roll_damage(fixed(6, 6, 2), db=3, av=-1)
    assert r.faces == (6, 6, 2) and r.damage == 2 + 10 + 3 - 1 == r.replay()
    r = fivebyfive.roll_damage(fixed(5, 1), db=0, doubles_token=True)
    assert r.faces == (5, 1) and r.damage == 6


def test_roll_healing_success_and_failure():
    h = fivebyfive.roll_healing(fixed(1, 2, 6, 3), 4)
    assert h.healed and h.faces == (6, 3) and h.amount == 8 and h.hp_change == 8
    h = fivebyfive.roll_healing(fixed(4, 5, 6, 4), 4)
    assert not h.healed and h.faces == (6, 4) and h.amount == 4 and h.hp_change == -4
    h = fivebyfive.roll_healing(fixed(1, 1, 5, 2), 2, heal_token=True)
    assert h.healed and h.amount == 7 and h.heal_token_spent and not h.token_held
    h = fivebyfive.roll_healing(fixed(5, 5, 4), 2, heal_token=True)
    assert not h.healed and h.amount == 2 and not h.heal_token_spent and h.token_held
    with pytest.raises(ValueError, match="one roll"):
        fivebyfive.roll_healing(fixed(1, 1), 2, heal_token=True, doubles_token=True)


# --------------------------------------------------------------------------- conditions


@pytest.mark.parametrize(
    "hp,state",
    [
        (5, "healthy"),
        (1, "healthy"),
        (0, "unconscious"),
        (-1, "dying"),
        (-9, "dying"),
        (-10, "dead"),
        (-15, "dead"),
    ],
)
def test_condition(hp, state):
    assert fivebyfive.condition(hp) == state


def test_dying_clock_examples():
    # "A character with -1 HP will be at -2 HP in 9 minutes. At -9 HP ... only 1 minute left"
    assert fivebyfive.minutes_to_next_loss(-1) == 9
    assert fivebyfive.bleed(-1, 9)[0] == -2
    assert fivebyfive.bleed(-1, 8)[0] == -1
    assert fivebyfive.minutes_to_next_loss(-9) == 1 and fivebyfive.minutes_to_death(-9) == 1
    assert fivebyfive.bleed(-9, 1)[0] == -10
    assert fivebyfive.minutes_to_death(-1) == 45 and fivebyfive.bleed(-1, 45)[0] == -10
    assert fivebyfive.bleed(-1, 10_000)[0] == -10
    assert fivebyfive.minutes_to_next_loss(0) is None and fivebyfive.minutes_to_death(3) is None
    assert fivebyfive.bleed(0, 500)[0] == 0  # unconscious but stable


def test_hp_changes_and_recovery():
    assert fivebyfive.apply_damage(5, 7) == -2
    assert fivebyfive.apply_healing(-3, 5, max_hp=14) == 2
    assert fivebyfive.apply_healing(12, 5, max_hp=14) == 14
    assert fivebyfive.natural_recovery(3, 4, max_hp=14) == 7
    assert fivebyfive.natural_recovery(13, 4, max_hp=14) == 14
    assert fivebyfive.natural_recovery(0, 1, max_hp=14) == 1
    with pytest.raises(ValueError):
        fivebyfive.natural_recovery(-3, 1, max_hp=14)
    with pytest.raises(ValueError):
        fivebyfive.apply_healing(-10, 5, max_hp=14)


# --------------------------------------------------------------------------- combat


def test_turn_order_and_stealing_initiative():
    order = fivebyfive.turn_order(players=["Ann", "Bo", "Cy"], gm_side=["Orc", "Troll"], stole=["Cy"])
    assert order.phases == (("Cy",), ("Orc", "Troll"), ("Ann", "Bo"))
    assert order.flat() == ("Cy", "Orc", "Troll", "Ann", "Bo")
    assert fivebyfive.turn_order(players=["Ann"], gm_side=["Orc"]).flat() == ("Orc", "Ann")
    with pytest.raises(ValueError):
        fivebyfive.turn_order(players=["Ann"], gm_side=["Orc"], stole=["Orc"])


def test_dodges_per_round():
    assert fivebyfive.dodges_per_round() == 1
    assert fivebyfive.dodges_per_round(shield=True) == 2
    assert fivebyfive.dodges_per_round(offhand_dagger=True) == 2
    assert fivebyfive.dodges_per_round(shield=True, offhand_dagger=True) == 2
    assert fivebyfive.can_dodge(0) and not fivebyfive.can_dodge(1)
    assert fivebyfive.can_dodge(1, shield=True) and not fivebyfive.can_dodge(2, shield=True)


def test_roll_attack():
    a = fivebyfive.roll_attack(fixed(1, 2, 4, 5, 3), attack=4, db=3, av=-2, dodge=6)
    assert a.hit.success and not a.dodge.success and a.landed and a.damage.damage == 4
    a = fivebyfive.roll_attack(fixed(1, 2, 1, 1), attack=4, db=3, dodge=6)
    assert a.dodge.success and not a.landed and a.damage is None
    a = fivebyfive.roll_attack(fixed(5, 5), attack=4, db=3, dodge=6)
    assert not a.hit.success and a.dodge is None and a.damage is None
    a = fivebyfive.roll_attack(fixed(1, 1, 6, 2), attack=2, db=0)
    assert a.landed and a.damage.damage == 7 and a.attacker_token_held  # doubles on the hit
    a = fivebyfive.roll_attack(fixed(1, 2, 5, 1), attack=4, db=1, damage_token=True)
    assert a.damage.faces == (5, 1) and a.damage.damage == 7 and not a.attacker_token_held
    with pytest.raises(ValueError, match="one roll"):
        fivebyfive.roll_attack(fixed(1, 1), attack=4, db=1, attack_token=True, damage_token=True)


def test_roll_attack_keeps_tokens_held_but_not_spent():
    # The attacker holds a token and misses: it keeps the token; the target's doubles on a dodge earn
    # nothing new when it already holds one.
    a = fivebyfive.roll_attack(fixed(5, 5), attack=4, db=1, holding_token=True)
    assert a.attacker_token_held and not a.hit.token_earned
    a = fivebyfive.roll_attack(fixed(1, 2, 1, 1), attack=4, db=1, dodge=2, dodge_holding_token=True)
    assert a.dodge.token_held and not a.dodge.token_earned


def test_equipment_tables():
    assert [w.db for w in fivebyfive.WEAPONS] == [0, 1, 2, 3, 4, 5]
    assert [a.av for a in fivebyfive.ARMOR] == [0, -1, -2, -3, -4, -5, -6]
    assert "claymore" in fivebyfive.WEAPONS[5].examples and "heavy plate" in fivebyfive.ARMOR[6].examples


# --------------------------------------------------------------------------- aspects, exclusive actions


def test_aspects():
    A, R = fivebyfive.Aspect, fivebyfive.AspectRating
    full = fivebyfive.validate_aspects({A.BRAWN: R.SUPERIOR, A.COGNITION: R.INFERIOR})
    assert full[A.AGILITY] is R.AVERAGE and len(full) == 4
    with pytest.raises(fivebyfive.FieldError) as e:
        fivebyfive.validate_aspects({A.BRAWN: R.SUPERIOR})
    assert e.value.field == "aspects"
    fivebyfive.validate_aspects({A.BRAWN: R.INFERIOR})
    fivebyfive.validate_aspects(
        {A.BRAWN: R.SUPERIOR, A.AGILITY: R.SUPERIOR, A.COGNITION: R.INFERIOR, A.DETERMINATION: R.INFERIOR}
    )
    assert fivebyfive.effective_value(4, aspect=R.SUPERIOR) == 6
    assert fivebyfive.effective_value(4, aspect=R.INFERIOR) == 2


def test_exclusive_actions():
    E = fivebyfive.ExclusiveAction
    assert fivebyfive.exclusive_action([]) is None
    assert fivebyfive.exclusive_action([E.DODGE, E.DODGE]) is E.DODGE
    with pytest.raises(fivebyfive.FieldError, match="only one"):
        fivebyfive.exclusive_action([E.ATTACK, E.DODGE, E.STEAL_INITIATIVE])


def test_advanced_descriptors():
    # "A rank 2 (novice) brain surgeon would have to roll ... as if ... -5 poor"; rank 0: no chance.
    assert fivebyfive.effective_value(2, advanced=True) == -5
    assert fivebyfive.effective_value(0, advanced=True) is None
    assert fivebyfive.effective_value(25, advanced=True) == 16
    # shifts are summed, then applied once: advanced 0 with a Superior aspect is still on the ladder
    assert fivebyfive.effective_value(0, advanced=True, aspect=fivebyfive.AspectRating.SUPERIOR) == -5


# --------------------------------------------------------------------------- creation, XP


ORDER = ["Swordsman", "Amateur Chef", "HP", "Climbing", "Charm", "Swimming"]


def test_ranked_values():
    v = fivebyfive.ranked_values(ORDER)
    assert v == {"Swordsman": 6, "Amateur Chef": 4, "HP": 14, "Climbing": 2, "Charm": 2, "Swimming": -5}
    # "Setting HP as your least important descriptor will give you only 5 HP"
    assert fivebyfive.ranked_values(["A", "B", "C", "D", "E", "HP"])["HP"] == 5
    assert fivebyfive.ranked_values(["HP", "B", "C", "D", "E", "F"])["HP"] == 16


@pytest.mark.parametrize(
    "order,field",
    [
        (["A", "B", "C", "D", "E"], "order"),
        (["A", "B", "C", "D", "E", "F"], "order"),
        (["A", "a", "C", "D", "E", "HP"], "order[1]"),
        (["A", " ", "C", "D", "E", "HP"], "order[1]"),
    ],
)
def test_ranked_values_errors(order, field):
    with pytest.raises(fivebyfive.FieldError) as e:
        fivebyfive.ranked_values(order)
    assert e.value.field == field


def test_build_character():
    ds = fivebyfive.build_character(
        ORDER, advanced=["Swordsman"], exclusive={"Swordsman": fivebyfive.ExclusiveAction.ATTACK}
    )
    assert ds[0] == fivebyfive.Descriptor("Swordsman", 6, True, fivebyfive.ExclusiveAction.ATTACK)
    assert ds[2].is_hp and ds[2].value == 4 and ds[2].hp == 14
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.build_character(ORDER, advanced=["Nope"])


def _sheet(*values: int, hp_rank: int = 4) -> list[fivebyfive.Descriptor]:
    return [fivebyfive.Descriptor(f"D{i}", v) for i, v in enumerate(values)] + [
        fivebyfive.Descriptor("HP", hp_rank)
    ]


def test_validate_descriptor_caps():
    fivebyfive.validate_descriptors(_sheet(12, 12, 16, 2, -5))
    with pytest.raises(fivebyfive.FieldError, match="master"):
        fivebyfive.validate_descriptors(_sheet(12, 12, 12, 2, -5))
    with pytest.raises(fivebyfive.FieldError, match="legendary"):
        fivebyfive.validate_descriptors(_sheet(16, 16, 4, 2, -5))
    with pytest.raises(fivebyfive.FieldError, match="legendary"):
        fivebyfive.validate_descriptors(_sheet(16, 6, 4, 2, -5, hp_rank=16))
    with pytest.raises(fivebyfive.FieldError, match="poor"):
        fivebyfive.validate_descriptors(_sheet(6, 4, 4, 2, 2))
    with pytest.raises(fivebyfive.FieldError) as e:
        fivebyfive.validate_descriptors(_sheet(20, 4, 4, 2, -5))
    assert e.value.field == "descriptors[0].value"
    ds = _sheet(6, 4, 4, 2, -5)
    ds[0] = fivebyfive.Descriptor("Magic", 25, advanced=True)
    fivebyfive.validate_descriptors(ds)
    with pytest.raises(fivebyfive.FieldError) as e:
        fivebyfive.validate_descriptors(_sheet(6, 4, 0, 2, -5))
    assert e.value.field == "descriptors[2].value"
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.validate_descriptors(_sheet(6, 4, 2, -5))  # only four besides HP
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.validate_descriptors(_sheet(6, 4, 4, 2, -5)[:-1])  # no HP


def test_validate_creation():
    fivebyfive.validate_descriptors(_sheet(6, 4, 2, 2, -5), creation=True)
    with pytest.raises(fivebyfive.FieldError, match="6, 4, 4, 2, 2"):
        fivebyfive.validate_descriptors(_sheet(9, 4, 2, 2, -5), creation=True)
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.validate_descriptors(_sheet(6, 4, 4, 2, 2, -5, hp_rank=2), creation=True)


@pytest.mark.parametrize(
    "value,advanced,cost",
    [
        (0, False, 2),
        (2, False, 4),
        (4, False, 6),
        (6, False, 9),
        (9, False, 12),
        (12, False, 16),
        (16, True, 20),
        (20, True, 25),
    ],
)
def test_improvement_cost(value, advanced, cost):
    assert fivebyfive.improvement_cost(value, advanced=advanced) == cost


@pytest.mark.parametrize(
    "value,advanced", [(-5, False), (-5, True), (16, False), (25, True), (20, False), (3, False)]
)
def test_improvement_cost_refused(value, advanced):
    with pytest.raises(ValueError):
        fivebyfive.improvement_cost(value, advanced=advanced)


def test_xp_examples():
    # "to add a new Descriptor with a value of 2 costs 2 XP; ... 2 to a value of 4 costs an additional 4 XP"
    assert fivebyfive.NEW_DESCRIPTOR_COST == 2
    assert fivebyfive.improvement_cost(0) + fivebyfive.improvement_cost(2) == 6
    # HP = value + 10: reduce by 10 before pricing
    assert (
        fivebyfive.improvement_cost(fivebyfive.hp_rank(14)) == 6
        and fivebyfive.improvement_cost(fivebyfive.hp_rank(5 + 10 + 1)) == 9
    )
    assert fivebyfive.POOR_SWAP_COST == 5


def test_improve_add_and_swap():
    ds = fivebyfive.build_character(ORDER)
    adv = fivebyfive.improve(ds, "swordsman", xp=9)
    assert adv.cost == 9 and adv.descriptors[0].value == 9
    with pytest.raises(fivebyfive.FieldError) as e:
        fivebyfive.improve(ds, "Swordsman", xp=8)
    assert e.value.field == "xp"
    with pytest.raises(fivebyfive.FieldError, match="poor"):
        fivebyfive.improve(ds, "Swimming")
    hp = fivebyfive.improve(ds, "HP")
    assert hp.cost == 6 and hp.descriptors[2].hp == 16
    added = fivebyfive.add_descriptor(ds, "Lockpicking", exclusive=None)
    assert added.cost == 2 and added.descriptors[-1] == fivebyfive.Descriptor("Lockpicking", 2)
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.add_descriptor(ds, "charm")
    swapped = fivebyfive.swap_poor(ds, "Afraid of Heights", xp=5)
    assert swapped.cost == 5 and swapped.descriptors[5] == fivebyfive.Descriptor("Afraid of Heights", -5)
    with pytest.raises(fivebyfive.FieldError):
        fivebyfive.swap_poor(ds, "Swimming")
    fragile = fivebyfive.build_character(["A", "B", "C", "D", "E", "HP"])
    s = fivebyfive.swap_poor(fragile, "Clumsy")
    assert s.descriptors[5].hp == 10 and s.descriptors[-1] == fivebyfive.Descriptor("Clumsy", -5)


def test_caps_block_improvement():
    ds = [
        fivebyfive.Descriptor("A", 12),
        fivebyfive.Descriptor("B", 12),
        fivebyfive.Descriptor("C", 9),
        fivebyfive.Descriptor("D", 2),
        fivebyfive.Descriptor("E", -5),
        fivebyfive.Descriptor("HP", 4),
    ]
    with pytest.raises(fivebyfive.FieldError, match="master"):
        fivebyfive.improve(ds, "C")
    assert fivebyfive.improve(ds, "A").descriptors[0].value == 16
    ds[0] = fivebyfive.Descriptor("A", 16)
    with pytest.raises(fivebyfive.FieldError, match="legendary"):
        fivebyfive.improve(ds, "B")


def test_rules_never_import_django():
    for module in Path(fivebyfive.__file__).parent.glob("*.py"):
        assert "django" not in module.read_text().lower()


def test_an_attack_rolled_in_two_halves_is_the_same_attack():
    """Five by Five l.358-361, l.500-503: a hit target's player declares the dodge after the to-hit, so an
    encounter rolls the halves apart (``roll_to_hit``, then ``roll_after_hit``): the same faces give the
    same hit, dodge and damage as ``roll_attack`` at once."""
    for faces, dodge in (((1, 2, 4, 5, 3), 6), ((1, 2, 1, 1), 6), ((1, 1, 6, 2), None)):
        whole = fivebyfive.roll_attack(fixed(*faces), attack=4, db=3, av=-2, dodge=dodge, damage_token=True)
        roller = fixed(*faces)
        hit = fivebyfive.roll_to_hit(roller, 4, damage_token=True)
        after = fivebyfive.roll_after_hit(roller, db=3, av=-2, dodge=dodge, damage_token=True)
        assert (hit, after.dodge, after.damage) == (whole.hit, whole.dodge, whole.damage)
    with pytest.raises(ValueError, match="one roll"):
        fivebyfive.roll_to_hit(fixed(1, 1), 4, attack_token=True, damage_token=True)
    with pytest.raises(ValueError):
        fivebyfive.roll_after_hit(fixed(1), db=1, av=3)  # AV is 0 or the table's negative values
