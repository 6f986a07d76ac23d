"""The dice core: error root, injected random sources, the 1,000-dice cap, face validation."""

import math
import random
import secrets

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import fivebyfive, freefall, l5r, triad
from rules.dice import (
    MAX_DICE,
    DiceLimitError,
    FixedFaces,
    Outcome,
    Roller,
    RulesError,
    check_faces,
    system_random,
)


def test_error_root_is_a_value_error():
    assert issubclass(RulesError, ValueError)
    assert issubclass(DiceLimitError, RulesError)


def test_production_source_is_the_system_csprng():
    assert isinstance(system_random(), secrets.SystemRandom)
    assert isinstance(Roller().source, secrets.SystemRandom)


def test_fixed_faces_come_back_in_order():
    source = FixedFaces([3, 1, 6])
    assert [source.randint(1, 6) for _ in range(3)] == [3, 1, 6]


def test_fixed_faces_running_out_is_a_rules_error():
    source = FixedFaces([2])
    source.randint(1, 6)
    with pytest.raises(RulesError, match="ran out"):
        source.randint(1, 6)


def test_fixed_face_outside_the_die_is_refused():
    with pytest.raises(RulesError, match="d6 cannot show 7"):
        FixedFaces([7]).randint(1, 6)


def test_roller_counts_every_die_thrown():
    roller = Roller(FixedFaces([1, 2, 3, 4]))
    assert roller.die(6) == 1
    assert roller.dice(3, 6) == [2, 3, 4]
    assert roller.thrown == 4


def test_a_die_needs_a_side():
    with pytest.raises(RulesError):
        Roller(FixedFaces([1])).die(0)


def test_cap_on_single_dice():
    roller = Roller(FixedFaces([1] * 10), max_dice=3)
    roller.die(6)
    roller.die(6)
    roller.die(6)
    with pytest.raises(DiceLimitError):
        roller.die(6)


def test_cap_on_a_handful_is_checked_before_throwing():
    roller = Roller(random.Random(1))
    with pytest.raises(DiceLimitError, match=str(MAX_DICE)):
        roller.dice(MAX_DICE + 1, 6)
    assert roller.thrown == 0
    assert len(roller.dice(MAX_DICE, 6)) == MAX_DICE
    with pytest.raises(DiceLimitError):
        roller.die(6)


def test_default_cap_is_one_thousand():
    assert MAX_DICE == 1000
    assert Roller(random.Random(0)).max_dice == 1000


def test_chain_without_explosion_is_one_face():
    assert Roller(FixedFaces([10, 4])).chain(10) == [10]


def test_chain_explodes_while_it_shows_the_trigger():
    # the L5R examples: 10 then 3 is 13; 10, 10, 7 is 27
    assert Roller(FixedFaces([10, 3])).chain(10, explode_on=10) == [10, 3]
    assert sum(Roller(FixedFaces([10, 10, 7])).chain(10, explode_on=10)) == 27


def test_a_chain_that_never_ends_hits_the_cap():
    roller = Roller(FixedFaces([1] * 2000), max_dice=50)
    with pytest.raises(DiceLimitError):
        roller.chain(1, explode_on=1)


def test_check_faces_accepts_good_faces():
    assert check_faces([1, 6], sides=6, count=2) == (1, 6)
    assert check_faces(iter([3]), sides=6) == (3,)


@pytest.mark.parametrize(
    ("faces", "count", "match"),
    [
        ([1, 2, 3], 2, "takes 2 dice, not 3"),
        ([], 1, "takes 1 die, not 0"),
        ([0], None, "cannot show 0"),
        ([7], None, "cannot show 7"),
        ([True], None, "cannot show True"),
        ([2.0], None, "cannot show 2.0"),
        (["3"], None, "cannot show '3'"),
    ],
)
def test_check_faces_refuses_bad_faces(faces, count, match):
    with pytest.raises(RulesError, match=match):
        check_faces(faces, sides=6, count=count)


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), sides=st.integers(1, 1000), count=st.integers(0, 50))
def test_seeded_rolls_replay_and_stay_on_the_die(seed, sides, count):
    first = Roller(random.Random(seed)).dice(count, sides)
    assert first == Roller(random.Random(seed)).dice(count, sides)
    assert all(1 <= face <= sides for face in first)
    # a roll log replays through FixedFaces and passes validation
    assert Roller(FixedFaces(first)).dice(count, sides) == first
    assert check_faces(first, sides=sides, count=count) == tuple(first)


def test_frequencies_of_a_d6_match_one_in_six():
    n = 60_000
    roller = Roller(random.Random(20240601), max_dice=n)
    counts = [0] * 7
    for face in roller.dice(n, 6):
        counts[face] += 1
    expected = n / 6
    sigma = math.sqrt(n * (1 / 6) * (5 / 6))
    for face in range(1, 7):
        assert abs(counts[face] - expected) < 5 * sigma


def test_outcome_of_pass_fail_and_trump():
    assert Outcome.of(True) is Outcome.SUCCESS
    assert Outcome.of(False) is Outcome.FAILURE
    assert Outcome.of(None) is Outcome.NONE
    assert Outcome.of(False, trump=True) is Outcome.TRUMP


def test_every_engine_reports_an_outcome_member():
    assert all(isinstance(o, Outcome) for o in triad.OUTCOMES + freefall.OUTCOMES)
    assert triad.check(5, 10, [15]).outcome is Outcome.CRITICAL
    assert triad.check(5, 10, [1]).outcome is Outcome.FUMBLE
    assert triad.attack("mixed", weapon=3).outcome is Outcome.MIXED
    assert freefall.check([20, 15], 11).outcome is Outcome.GREATER
    assert fivebyfive.check(12, [6, 1]).outcome is Outcome.TRUMP
    assert fivebyfive.check(12, [4, 4]).outcome is Outcome.FAILURE
    assert l5r.resolve([[5], [3]], 1, tn=5).outcome is Outcome.SUCCESS
    assert l5r.resolve([[5], [3]], 1).outcome is Outcome.NONE
