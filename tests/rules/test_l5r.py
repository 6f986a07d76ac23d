"""L5R Roll & Keep: every worked example of the seed, exact odds against icepool, properties."""

import ast
import itertools
import math
import pathlib
import random
import time
from fractions import Fraction

import icepool
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import l5r
from rules.dice import FixedFaces, Roller, RulesError


def icepool_chance(n, k, tn, *, explode=True, bonus=0):
    """icepool's exact answer: exact for P(>= tn) once 10 * (depth + 1) >= the target."""
    target = tn - bonus
    die = icepool.d10.explode(depth=max(0, -(-target // 10) - 1)) if explode else icepool.d10
    return Fraction(die.pool(n).highest(k).sum().probability(">=", target))


# --------------------------------------------------------------------------- the Ten Dice Rule


@pytest.mark.parametrize(
    ("rolled", "kept", "expected"),
    [
        ((12, 4), None, (10, 5, 0)),
        ((13, 9), None, (10, 10, 2)),
        ((10, 12), None, (10, 10, 4)),
        ((14, 12), None, (10, 10, 12)),
        ((11, 4), None, (10, 4, 0)),
        ((7, 3), None, (7, 3, 0)),
        ((10, 10), None, (10, 10, 0)),
        ((11, 10), None, (10, 10, 2)),
        ((20, 1), None, (10, 6, 0)),
        ((30, 1), None, (10, 10, 4)),
    ],
)
def test_ten_dice_rule(rolled, kept, expected):
    assert l5r.ten_dice(*rolled) == expected


def test_ten_dice_odd_die_house_rule():
    assert l5r.ten_dice(11, 4, odd_die_bonus=True) == (10, 4, 2)
    assert l5r.ten_dice(13, 4, 3, odd_die_bonus=True) == (10, 5, 5)
    # the house rule changes nothing when no die is left over
    assert l5r.ten_dice(12, 4, odd_die_bonus=True) == (10, 5, 0)
    assert l5r.ten_dice(13, 9, odd_die_bonus=True) == (10, 10, 2)


def test_ten_dice_keeps_the_bonus_and_caps_kept_at_rolled():
    assert l5r.ten_dice(12, 4, 3) == (10, 5, 3)
    assert l5r.ten_dice(3, 5) == (3, 3, 0)


@pytest.mark.parametrize("bad", [(0, 0), (-1, 1), (3, -2), (2.5, 1), (True, 1), (100, 1)])
def test_ten_dice_rejects_nonsense(bad):
    with pytest.raises(RulesError):
        l5r.ten_dice(*bad)


# --------------------------------------------------------------------------- reading dice


def test_exploding_dice_examples():
    assert l5r.die_total([10, 3]) == 13
    assert l5r.die_total([10, 10, 7]) == 27
    assert l5r.die_total([7]) == 7
    assert l5r.die_total([10], explode=False) == 10


@pytest.mark.parametrize(
    ("chain", "explode"),
    [([10], True), ([3, 4], True), ([], True), ([11], True), ([10, 3], False), ([0], False)],
)
def test_bad_chains(chain, explode):
    with pytest.raises(RulesError):
        l5r.die_total(chain, explode=explode)


FOUR_K_TWO = [[3], [6], [7], [9]]  # "if the player rolled a 3, 6, 7, and 9 ... a total of 16"


def test_keep_highest_4k2_example():
    assert l5r.resolve(FOUR_K_TWO, 2).total == 16
    assert l5r.resolve(FOUR_K_TWO, 2, bonus=5).total == 21


def test_keep_any_chosen_dice():
    # a player who wants to fail may keep low dice
    assert l5r.resolve(FOUR_K_TWO, 2, choose=[0, 1]).total == 9
    with pytest.raises(RulesError):
        l5r.resolve(FOUR_K_TWO, 2, choose=[0])
    with pytest.raises(RulesError):
        l5r.resolve(FOUR_K_TWO, 2, choose=[0, 0])
    with pytest.raises(RulesError):
        l5r.resolve(FOUR_K_TWO, 2, choose=[0, 7])


def test_kyujutsu_example():
    # Reflexes 3, Kyujutsu 4: roll 7 keep 3; 2 4 5 7 7 8 and 10+2 -> 7 + 8 + 12 = 27 vs TN 20
    pool = l5r.skill_pool(3, 4, attack=True)
    assert (pool.rolled, pool.kept, pool.explode) == (7, 3, True)
    result = l5r.resolve([[2], [4], [5], [7], [7], [8], [10, 2]], pool.kept, tn=20)
    assert result.die_totals == (2, 4, 5, 7, 7, 8, 12)
    assert result.total == 27
    assert result.success is True
    assert sorted(result.die_totals[i] for i in result.kept) == [7, 8, 12]


def test_roll_with_fixed_faces_replays():
    roller = Roller(FixedFaces([2, 4, 5, 7, 7, 8, 10, 2]))
    result = l5r.roll(roller, 7, 3, tn=20)
    assert result.total == 27 and result.chains[-1] == (10, 2)
    assert l5r.resolve(result.chains, 3, tn=20) == result
    low = l5r.rekeep(result, [0, 1, 2])
    assert low.total == 11 and low.success is False


def test_roll_applies_ten_dice_rule():
    roller = Roller(FixedFaces([5] * 10))
    result = l5r.roll(roller, 13, 9, tn=60)
    assert len(result.chains) == 10 and len(result.kept) == 10
    assert result.total == 52 and result.bonus == 2 and result.notation == "10k10+2"


# --------------------------------------------------------------------------- kinds of roll


def test_pools_from_the_seed():
    assert l5r.trait_pool(3).notation == "3k3"
    assert l5r.ring_pool(2).notation == "2k2"
    dai_tsuchi = next(w for w in l5r.WEAPONS if w.name == "Dai tsuchi")
    assert dai_tsuchi.dr == "5k2"
    assert l5r.damage_pool(dai_tsuchi, 3).notation == "8k2"
    yumi = next(b for b in l5r.BOWS if b.name == "Yumi")
    arrow = next(a for a in l5r.ARROWS if a.name == "Standard arrow")
    assert l5r.bow_damage_pool(yumi, arrow).notation == "5k2"
    assert l5r.damage_pool(l5r.UNARMED, 3).notation == "3k1"
    # Isawa Tishi: Fire 3, school rank 1 -> 4k3
    assert l5r.spell_pool(1, 3).notation == "4k3"
    with pytest.raises(RulesError):
        l5r.bow_damage_pool(dai_tsuchi, arrow)


def test_unskilled_roll_never_explodes():
    pool = l5r.skill_pool(3, 0)
    assert pool.notation == "u3k3" and not pool.raises_allowed
    roller = Roller(FixedFaces([10, 10, 1]))
    result = l5r.roll_pool(roller, pool)
    assert result.chains == ((10,), (10,), (1,)) and result.total == 21
    with pytest.raises(RulesError):
        l5r.plan_raises(15, raises=1, void=3, unskilled=True)
    with pytest.raises(RulesError):
        l5r.plan_raises(15, free_raises=1, void=3, unskilled=True)
    assert l5r.chance(3, 3, 31, explode=False) == 0


def test_rings_are_the_lower_trait():
    traits = dict(
        stamina=3, willpower=2, strength=2, perception=4, agility=3, intelligence=3, reflexes=5, awareness=1
    )
    assert l5r.rings(traits, void=2) == {
        l5r.Ring.EARTH: 2,
        l5r.Ring.WATER: 2,
        l5r.Ring.FIRE: 3,
        l5r.Ring.AIR: 1,
        l5r.Ring.VOID: 2,
    }
    assert l5r.ring_rank("Fire", traits) == 3
    with pytest.raises(RulesError):
        l5r.ring_rank("metal", traits)
    with pytest.raises(RulesError):
        l5r.ring_rank("void", traits)


def test_validate_character_names_the_field():
    traits = dict.fromkeys(l5r.TRAITS, 2)
    l5r.validate_character(traits, void=2, skills={"Kyujutsu": 4, "Artisan: Sculpture": 1})
    with pytest.raises(l5r.L5RFieldError) as err:
        l5r.validate_character({**traits, "agility": 0}, void=2)
    assert err.value.field == "agility"
    with pytest.raises(l5r.L5RFieldError) as err:
        l5r.validate_character(traits, void=11)
    assert err.value.field == "void"
    with pytest.raises(l5r.L5RFieldError) as err:
        l5r.validate_character(traits, void=2, skills={"Basket Weaving": 1})
    assert err.value.field == "Basket Weaving"


def test_skill_list():
    assert l5r.skill_info("Kyujutsu").trait == "reflexes"
    assert l5r.skill_info("kyujutsu").attack
    assert l5r.skill_info("Artisan: Sculpture").trait == "agility"
    assert l5r.skill_info("Nope") is None
    assert all(s.trait in (*l5r.TRAITS, "void") for s in l5r.SKILLS)


@pytest.mark.parametrize(
    ("tn", "name"),
    [
        (0, "Mundane"),
        (5, "Very Easy"),
        (10, "Easy"),
        (15, "Average"),
        (20, "Moderate"),
        (25, "Difficult"),
        (30, "Very Hard"),
        (35, "Very Hard"),
        (40, "Heroic"),
        (60, "Impossible"),
        (90, "Impossible"),
    ],
)
def test_difficulty_names(tn, name):
    assert l5r.difficulty_name(tn) == name


# --------------------------------------------------------------------------- raises


def test_raises_limited_by_void():
    assert l5r.plan_raises(15, raises=1, void=2).tn == 20
    assert l5r.plan_raises(15, raises=2, void=2).tn == 25
    with pytest.raises(RulesError):
        l5r.plan_raises(15, raises=3, void=2)


def test_free_raises():
    plan = l5r.plan_raises(15, raises=2, free_raises=2, void=2)  # free raises do not count toward Void
    assert plan.tn == 25 and plan.effects == 4
    plan = l5r.plan_raises(15, free_raises=2, free_raises_on_tn=1, void=2)
    assert plan.tn == 10 and plan.effects == 1
    with pytest.raises(RulesError):
        l5r.plan_raises(15, free_raises=1, free_raises_on_tn=2, void=2)
    assert l5r.plan_raises(5, free_raises=2, free_raises_on_tn=2, void=2).tn == 0


def test_missing_the_raised_tn_fails_even_past_the_original():
    plan = l5r.plan_raises(20, raises=2, void=3)
    result = l5r.resolve([[9], [8], [7]], 3, tn=plan.tn)
    assert result.total == 24 and result.total >= 20 and result.success is False


# --------------------------------------------------------------------------- contests, retries, teams


def test_contested_rolls():
    """L5R, Contested Rolls (l.57): the higher result wins, a tie re-rolls, and a declared raise "must exceed
    his opponent's by an increment of 5", or that roll failed."""
    assert l5r.contest_winner([20, 15]) == 0
    assert l5r.contest_winner([15, 20]) == 1
    assert l5r.contest_winner([18, 18]) is None
    assert l5r.contest_winner([25, 15], raises=[2, 0]) == 0  # ahead by exactly 10: enough
    assert l5r.contest_winner([24, 15], raises=[2, 0]) == 1
    assert l5r.contest_winner([15, 20], raises=[0, 1]) == 1
    assert l5r.contest_winner([20, 18], raises=[2, 1]) == 1  # the other side prevails, raises or not


def test_contests_of_several():
    """L5R, Contested Rolls (l.57): "multiple characters ... the player who rolls the highest of those
    involved is the victor"; one whose raises were not beaten by drops out and the rest are judged."""
    assert l5r.contest_winner([10, 22, 17]) == 1
    assert l5r.contest_winner([22, 10, 22]) is None
    assert l5r.contest_winner([22, 10, 17], raises=[1, 0, 0]) == 0  # 5 ahead of the runner-up
    assert l5r.contest_winner([22, 10, 19], raises=[1, 0, 0]) == 2
    assert l5r.contest_winner([22, 19, 19], raises=[1, 0, 0]) is None  # the rest tie at the top
    with pytest.raises(RulesError):
        l5r.contest_winner([12])
    with pytest.raises(RulesError):
        l5r.contest_winner([12, 10], raises=[1])


def test_second_attempts():
    assert l5r.second_attempt_tn(15) == 25
    with pytest.raises(RulesError):
        l5r.second_attempt_tn(15, attack=True)
    assert l5r.second_attempt_needs_new_situation("Perception")
    assert not l5r.second_attempt_needs_new_situation("agility")


def test_cooperative_rolls():
    assert l5r.group_effort_bonus([2, 3, 1]) == 6
    # roped climbers: the best has Athletics 4, everyone else gets +4
    assert l5r.roped_team_bonuses([2, 4, 1]) == (4, 0, 4)
    assert l5r.roped_team_bonuses([4, 4]) == (0, 4)


def test_cumulative_sculpture_example():
    progress = l5r.cumulative(60, [24])
    assert progress.remaining == 36 and not progress.done
    progress = l5r.cumulative(60, [24, 12, 30, 9], minimum=15)
    assert progress.counted == (True, False, True, False)
    assert progress.remaining == 6
    assert l5r.cumulative(60, [24, 40]).done


# --------------------------------------------------------------------------- exact odds


def test_single_die_odds_by_hand():
    assert l5r.chance(1, 1, 10) == Fraction(1, 10)
    assert l5r.chance(1, 1, 11) == Fraction(1, 10)
    assert l5r.chance(1, 1, 15) == Fraction(6, 100)
    assert l5r.chance(1, 1, 20) == Fraction(1, 100)  # a die can never total exactly 20
    assert l5r.chance(1, 1, 21) == Fraction(1, 100)
    assert l5r.chance(1, 1, 10, explode=False) == Fraction(1, 10)
    assert l5r.chance(1, 1, 11, explode=False) == 0
    assert l5r.chance(2, 1, 10) == 1 - Fraction(81, 100)
    assert l5r.chance(3, 3, 3) == 1
    assert l5r.chance(3, 2, 5, bonus=3) == 1


@pytest.mark.parametrize(
    ("n", "k", "tn", "explode", "bonus"),
    [
        (7, 3, 20, True, 0),
        (3, 2, 15, True, 0),
        (5, 5, 31, True, 0),
        (4, 1, 25, True, 0),
        (6, 2, 30, True, 4),
        (10, 5, 40, True, 0),
        (5, 3, 20, False, 0),
        (8, 4, 33, False, 2),
        (2, 2, 3, True, 0),
    ],
)
def test_matches_icepool(n, k, tn, explode, bonus):
    assert l5r.chance(n, k, tn, explode=explode, bonus=bonus) == icepool_chance(
        n, k, tn, explode=explode, bonus=bonus
    )


# --------------------------------------------------------------------------- emphases: 1s re-rolled once
# L5R 4th edition, Emphases (not in the seed; docs/rules.md): each die whose first face is a 1 is rolled
# again, once, and the new die stands whatever it shows.


def icepool_emphasis_chance(n, k, tn, *, explode=True, bonus=0):
    """icepool's answer with the emphasis: the whole (exploding) die, its outcome 1 rolled again once."""
    target = tn - bonus
    die = icepool.d10.explode(depth=max(0, -(-target // 10) - 1)) if explode else icepool.d10
    return Fraction(die.reroll([1], depth=1).pool(n).highest(k).sum().probability(">=", target))


def enumerated_emphasis_chance(n, k, tn):
    """Every way n dice that never explode can fall, a first 1 replaced by a second face: counted out."""
    one_die = [(face, Fraction(1, 10)) for face in range(2, 11)]
    one_die += [(face, Fraction(1, 100)) for face in range(1, 11)]  # first a 1, then this face
    total = Fraction(0)
    for outcome in itertools.product(one_die, repeat=n):
        faces = sorted((face for face, _ in outcome), reverse=True)
        if sum(faces[:k]) >= tn:
            total += math.prod((p for _, p in outcome), start=Fraction(1))
    return total


@pytest.mark.parametrize(
    ("n", "k", "tn", "explode", "bonus"),
    [(1, 1, 2, True, 0), (2, 1, 12, True, 0), (6, 3, 25, True, 0), (5, 2, 30, True, 3), (4, 4, 22, False, 0),
     (7, 3, 20, True, 0), (3, 3, 31, True, 0)],
)
def test_emphasis_odds_match_icepool(n, k, tn, explode, bonus):
    ours = l5r.chance(n, k, tn, explode=explode, bonus=bonus, reroll_ones=True)
    assert ours == icepool_emphasis_chance(n, k, tn, explode=explode, bonus=bonus)
    if tn - bonus > k:  # below that every roll succeeds either way
        assert ours > l5r.chance(n, k, tn, explode=explode, bonus=bonus)


@pytest.mark.parametrize(("n", "k", "tn"), [(1, 1, 2), (2, 1, 9), (3, 2, 12), (4, 2, 17), (3, 3, 20)])
def test_emphasis_odds_match_a_full_enumeration(n, k, tn):
    assert l5r.chance(n, k, tn, explode=False, reroll_ones=True) == enumerated_emphasis_chance(n, k, tn)


def test_one_die_with_an_emphasis_shows_a_one_a_hundredth_of_the_time():
    curve = l5r.total_curve(1, 1, reroll_ones=True, high=12)
    assert curve[1] == 1 and 1 - curve[2] == Fraction(1, 100)  # a 1, then a 1 again
    assert curve[2] - curve[3] == Fraction(11, 100)  # a 2 at once, or after a 1
    assert curve[11] - curve[12] == Fraction(11, 1000)  # 10 then 1: the explosion's 1 is not re-rolled
    assert l5r.Pool(6, 3).with_emphasis().chance(25) == l5r.chance(6, 3, 25, reroll_ones=True)


def test_an_emphasis_rolls_each_one_again_once_after_the_pool():
    # 4k2: 1, 7, 1, 10+4; die 1 again shows 10 then 2, die 3 again shows 1, which stands.
    result = l5r.roll(Roller(FixedFaces([1, 7, 1, 10, 4, 10, 2, 1])), 4, 2, tn=20, reroll_ones=True)
    assert result.chains == ((10, 2), (7,), (1,), (10, 4))
    assert result.rerolled == (0, 2)
    assert result.total == 26 and result.success
    plain = l5r.roll(Roller(FixedFaces([1, 7, 1, 10, 4])), 4, 2, tn=20)
    assert plain.rerolled == () and plain.total == 21
    assert l5r.rekeep(result, [1, 2]).rerolled == (0, 2)
    # An unskilled pool's dice do not explode, re-rolled or not: 1 then 5, and a 10 that stays 10.
    unskilled = l5r.roll_pool(Roller(FixedFaces([1, 10, 5])), l5r.skill_pool(2, 0).with_emphasis())
    assert unskilled.chains == ((5,), (10,)) and unskilled.rerolled == (0,)


def test_resolve_refuses_a_re_rolled_die_the_roll_does_not_have():
    with pytest.raises(RulesError, match="must be one of the roll's dice"):
        l5r.resolve([[3], [5]], 1, rerolled=[2])


def test_ten_dice_rule_feeds_the_odds():
    assert l5r.chance(13, 9, 40) == l5r.chance(10, 10, 38)
    assert l5r.chance(11, 4, 25, odd_die_bonus=True) == l5r.chance(10, 4, 23)
    assert l5r.chance(11, 4, 25) == l5r.chance(10, 4, 25)


def test_curve_matches_chance_and_is_a_distribution():
    curve = l5r.total_curve(5, 3, bonus=2, high=45)
    assert min(curve) == 5 and curve[5] == 1
    for t in (5, 12, 20, 31, 45):
        assert curve[t] == l5r.chance(5, 3, t, bonus=2)
    dist = exactly(l5r.total_curve(4, 2, high=40))
    assert sum(dist.values()) == 1
    assert all(isinstance(p, Fraction) and p >= 0 for p in dist.values())
    # totals 2 and 3 on 4k2: all four dice ones, or three ones and a two
    assert dist[2] == Fraction(1, 10**4) and dist[3] == Fraction(4, 10**4)
    unskilled = exactly(l5r.total_curve(3, 3, explode=False, high=31))
    assert sum(unskilled.values()) == 1 and unskilled[31] == 0 and unskilled[30] == Fraction(1, 1000)


def exactly(curve):
    """P(total == t) from a curve of P(total >= t); the last entry keeps everything at or above it."""
    totals = sorted(curve)
    dist = {t: curve[t] - curve[t + 1] for t in totals[:-1]}
    dist[totals[-1]] = curve[totals[-1]]
    return dist


pools = st.tuples(st.integers(1, 12), st.integers(1, 10), st.booleans(), st.integers(-5, 5))


@settings(max_examples=60, deadline=None)
@given(pools, st.integers(0, 60))
def test_more_never_lowers_the_chance(pool, tn):
    n, k, explode, bonus = pool
    p = l5r.chance(n, k, tn, explode=explode, bonus=bonus)
    assert 0 <= p <= 1
    assert l5r.chance(n, k, tn + 1, explode=explode, bonus=bonus) <= p
    assert l5r.chance(n + 1, k, tn, explode=explode, bonus=bonus) >= p
    assert l5r.chance(n, k, tn, explode=explode, bonus=bonus + 1) >= p
    if k < n:
        assert l5r.chance(n, k + 1, tn, explode=explode, bonus=bonus) >= p
    assert l5r.chance(n, k, tn, explode=True, bonus=bonus) >= l5r.chance(n, k, tn, explode=False, bonus=bonus)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.booleans())
def test_curve_differences_sum_to_one(n, k, explode):
    dist = exactly(l5r.total_curve(n, k, explode=explode, high=35))
    assert sum(dist.values()) == 1 and min(dist.values()) >= 0


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7), st.integers(1, 45), st.booleans())
def test_agrees_with_icepool(n, k, tn, explode):
    k = min(k, n)
    assert l5r.chance(n, k, tn, explode=explode) == icepool_chance(n, k, tn, explode=explode)


@pytest.mark.parametrize(
    ("n", "k", "tn", "explode"), [(5, 3, 20, True), (7, 2, 25, True), (4, 4, 22, False), (10, 10, 60, True)]
)
def test_real_roller_frequencies_agree(n, k, tn, explode):
    rng = random.Random(f"l5r-{n}k{k}-{tn}")
    trials = 3000
    hits = sum(l5r.roll(Roller(rng), n, k, explode=explode, tn=tn).success for _ in range(trials))
    p = float(l5r.chance(n, k, tn, explode=explode))
    sigma = math.sqrt(p * (1 - p) / trials)
    assert abs(hits / trials - p) <= 5 * sigma + 1 / trials


def test_real_roller_totals_follow_the_curve():
    rng = random.Random(1999)
    trials = 3000
    totals = [l5r.roll(Roller(rng), 6, 3).total for _ in range(trials)]
    curve = l5r.total_curve(6, 3, high=40)
    for t in (10, 15, 20, 25, 30, 40):
        p = float(curve[t])
        seen = sum(total >= t for total in totals) / trials
        assert abs(seen - p) <= 5 * math.sqrt(p * (1 - p) / trials) + 1 / trials


def test_largest_pool_is_fast_cold():
    l5r.cache_clear()
    start = time.perf_counter()
    l5r.chance(10, 10, 100)
    l5r.chance(14, 12, 100, bonus=3)
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0  # the benchmark aims at 200 ms; generous here because CI shares its cores


def test_odds_reject_bad_input():
    with pytest.raises(RulesError):
        l5r.chance(0, 1, 10)
    with pytest.raises(RulesError):
        l5r.chance(3, 2, "20")
    with pytest.raises(RulesError):
        l5r.chance(3, 2, 10**6)
    with pytest.raises(RulesError):
        l5r.chance(10, 10, l5r.MAX_ODDS_TARGET + 1)
    assert l5r.chance(10, 10, l5r.MAX_ODDS_TARGET + 1, bonus=1) > 0
    with pytest.raises(RulesError):
        l5r.total_curve(3, 2, high=l5r.MAX_ODDS_TARGET + 1)
    with pytest.raises(RulesError):
        l5r.total_curve(3, 2, low=50, high=10)


def test_rules_package_never_imports_django():
    for module in pathlib.Path(l5r.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                assert not any(name.split(".")[0] == "django" for name in names)


# --------------------------------------------------------------------------- the skirmish (4th edition)
# The seed stops before combat ("Maneuvers in combat (described later in this chapter)", l.26); each
# test names the 4th-edition rule it plays (Book of Earth, Skirmishes).


def test_rule_armor_reduction_off_every_damage_roll():
    """4th edition, Armor: light armor +5 to the Armor TN with Reduction 3, heavy +10 with Reduction 5;
    Reduction is subtracted from every damage roll. A katana (3k2) with Strength 2 rolls 5k2: 9 + 7 = 16,
    and heavy armor lets 11 wounds through."""
    assert [(a.name, a.bonus, a.reduction) for a in l5r.ARMORS] == [
        ("None", 0, 0),
        ("Light armor", 5, 3),
        ("Heavy armor", 10, 5),
    ]
    damage = l5r.roll_pool(Roller(FixedFaces([9, 7, 3, 2, 1])), l5r.damage_pool(l5r.WEAPONS[2], 2))
    assert (damage.notation, damage.total) == ("5k2", 16)
    assert l5r.reduced_damage(damage.total, 5) == 11
    assert l5r.reduced_damage(4, 5) == 0  # all absorbed, never negative
    assert l5r.armor_tn(3, armor=10) == 30
    with pytest.raises(RulesError):
        l5r.reduced_damage(10, -1)


def _refusal(kind, *, spent=0, stance=l5r.Stance.ATTACK, wounds=0, attack=False, void_left=2):
    level = l5r.wound_rank(wounds, 2)
    return l5r.action_refusal(
        kind, spent=spent, stance=stance, level=level, attack=attack, void_left=void_left
    )


def test_rule_one_complex_or_two_simple_actions_a_turn():
    """4th edition, Actions: a character may take "One Complex Action + Free Actions" or "Two Simple
    Actions + Free Actions" on its Turn."""
    simple, complex_, free = l5r.ActionKind.SIMPLE, l5r.ActionKind.COMPLEX, l5r.ActionKind.FREE
    assert _refusal(complex_) == "" and _refusal(simple, spent=1) == ""
    assert "one Simple Action left" in _refusal(complex_, spent=1)
    assert "nothing but Free Actions left" in _refusal(simple, spent=2)
    assert _refusal(free, spent=2) == ""


def test_rule_down_takes_free_actions_paid_with_void_and_out_none():
    """4th edition, Wounds: Down "may only potentially take Free Actions ... and must spend a Void Point in
    order to be able to do so"; Out is "immobile, unconscious"."""
    simple, complex_, free = l5r.ActionKind.SIMPLE, l5r.ActionKind.COMPLEX, l5r.ActionKind.FREE
    down, out = 33, 36  # Earth 2: Down holds 31-34, Out 35-38
    assert "Free Actions only" in _refusal(complex_, wounds=down, attack=True)
    assert "Free Actions only" in _refusal(simple, wounds=down)
    assert _refusal(free, wounds=down, void_left=1) == ""
    assert "none is left" in _refusal(free, wounds=down, void_left=0)
    assert "no actions at all" in _refusal(free, wounds=out)
    assert "no actions at all" in _refusal(free, wounds=40)  # Dead


def test_rule_stances_limit_actions():
    """4th edition, Stances: Full Attack takes "no Simple or Complex Actions other than those used to make
    attacks"; Defense may not attack; Full Defense's roll "is considered a Complex Action, so ... only Free
    Actions"; Center "forfeits all Actions"; a prone character "may only adopt the Defense or Attack"."""
    simple, complex_ = l5r.ActionKind.SIMPLE, l5r.ActionKind.COMPLEX
    full_attack, defense = l5r.Stance.FULL_ATTACK, l5r.Stance.DEFENSE
    assert _refusal(complex_, stance=full_attack, attack=True) == ""
    assert "attacks" in _refusal(simple, stance=full_attack)
    assert "no attacks" in _refusal(complex_, stance=defense, attack=True)
    assert _refusal(complex_, stance=defense) == ""
    assert "Free Actions only" in _refusal(simple, stance=l5r.Stance.FULL_DEFENSE)
    assert "forfeit" in _refusal(simple, stance=l5r.Stance.CENTER)
    assert "Prone" in l5r.stance_refusal(full_attack, prone=True)
    assert l5r.stance_refusal(defense, prone=True) == "" and l5r.stance_refusal(full_attack) == ""


def test_rule_stances_on_attacks_and_the_armor_tn():
    """4th edition, Stances: Full Attack "+2k1 to attack rolls" and "Armor TN is reduced by 10", never a
    ranged attack; Defense adds "their Air Ring plus their Defense Skill Rank"; Full Defense makes "a
    Defense / Reflexes roll and adds half of the total (rounding up)"; Center gives next round "1k1 plus his
    Void Ring on any one roll" (reading: +1k1 and +Void to the total)."""
    pool = l5r.skill_pool(3, 2, attack=True)  # Kenjutsu 2 + Agility 3
    assert l5r.stance_attack_pool(pool, l5r.Stance.FULL_ATTACK, ranged=False).notation == "7k4"
    assert l5r.stance_attack_pool(pool, l5r.Stance.ATTACK, ranged=True) == pool
    with pytest.raises(RulesError, match="ranged"):
        l5r.stance_attack_pool(pool, l5r.Stance.FULL_ATTACK, ranged=True)
    with pytest.raises(RulesError, match="No attacks"):
        l5r.stance_attack_pool(pool, l5r.Stance.DEFENSE, ranged=False)
    assert l5r.stance_armor_bonus(l5r.Stance.FULL_ATTACK) == -10
    assert l5r.stance_armor_bonus(l5r.Stance.DEFENSE, air=3, defense=1) == 4
    assert l5r.stance_armor_bonus(l5r.Stance.ATTACK, air=3, defense=1) == 0
    # Defense 1 + Reflexes 3 = 4k3: 9 + 8 + 6 = 23, half rounded up is 12.
    defence = l5r.roll_pool(Roller(FixedFaces([9, 8, 6, 2])), l5r.full_defense_pool(3, 1))
    assert defence.total == 23 and l5r.full_defense_bonus(defence.total) == 12
    assert l5r.stance_armor_bonus(l5r.Stance.FULL_DEFENSE, full_defense=12) == 12
    assert l5r.center_pool(pool, 2).notation == "6k4+2"
    assert l5r.prone_attack_pool(pool).notation == "3k3"  # -2k0, never more kept than rolled


def test_rule_maneuvers_by_raises():
    """4th edition, Maneuvers: Called Shot 1-4 Raises (limb, hand or foot, head, eye), Disarm 3 (only
    2k1 damage, no Strength), Extra Attack 5, Feint 2 ("half the amount by which the ... attack roll
    exceeded the target's Armor TN (taking the 2 Raises ... into account) is added to the damage roll ...
    to a maximum ... five times the character's Insight Rank"), Knockdown 2; Increased Damage +1k0 each."""
    assert {m.key: m.raises for m in l5r.MANEUVERS} == {
        "called_limb": 1,
        "called_hand": 2,
        "called_head": 3,
        "called_eye": 4,
        "disarm": 3,
        "extra_attack": 5,
        "feint": 2,
        "knockdown": 2,
    }
    assert l5r.maneuver_raises("feint", 1) == 3 and l5r.maneuver_raises("", 2) == 2
    with pytest.raises(RulesError, match="2k1"):
        l5r.maneuver_raises("disarm", 1)
    with pytest.raises(RulesError, match="not a maneuver"):
        l5r.maneuver_raises("backflip")
    assert l5r.DISARM_DAMAGE.notation == "2k1"
    # TN 20 + 10 for the Feint's raises = 30; a roll of 37 beats it by 7: +3 (rounded down).
    assert l5r.feint_bonus(37, 30, 1) == 3
    assert l5r.feint_bonus(60, 30, 1) == 5  # capped at 5 x Insight Rank 1
    assert l5r.feint_bonus(29, 30, 2) == 0
