"""The dice box's notation: parse -> tree -> roll -> render, bounds, and refusal of abusive input."""

import itertools
import math
import random
import time
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import fivebyfive, notation
from rules.dice import DiceLimitError, FixedFaces, Roller, RulesError
from rules.notation import (
    Constant,
    Dice,
    Expression,
    FiveByFive,
    Keep,
    NotationError,
    NotationLimitError,
    RollKeep,
    Term,
    bounds,
    parse,
    render_data,
    render_text,
    roll,
    roll_notation,
    to_notation,
)


def fixed(*faces: int) -> Roller:
    return Roller(FixedFaces(faces))


def plus(node) -> Term:
    return Term(1, node)


def minus(node) -> Term:
    return Term(-1, node)


# ------------------------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("2d6", Expression((plus(Dice(2, 6)),))),
        ("d20", Expression((plus(Dice(1, 20)),))),
        ("D20", Expression((plus(Dice(1, 20)),))),
        ("d%", Expression((plus(Dice(1, 100)),))),
        ("3d%", Expression((plus(Dice(3, 100)),))),
        (
            "2d6+1d4-2",
            Expression((plus(Dice(2, 6)), plus(Dice(1, 4)), minus(Constant(2)))),
        ),
        (" 2d6 + 1d4 - 2 ", Expression((plus(Dice(2, 6)), plus(Dice(1, 4)), minus(Constant(2))))),
        ("-1+d6", Expression((minus(Constant(1)), plus(Dice(1, 6))))),
        ("4d6kh3", Expression((plus(Dice(4, 6, keep=Keep.HIGHEST, keep_count=3)),))),
        ("4d6k3", Expression((plus(Dice(4, 6, keep=Keep.HIGHEST, keep_count=3)),))),
        ("4d6kl1", Expression((plus(Dice(4, 6, keep=Keep.LOWEST, keep_count=1)),))),
        # drops are stored as the matching keep
        ("4d6dl1", Expression((plus(Dice(4, 6, keep=Keep.HIGHEST, keep_count=3)),))),
        ("4d6d1", Expression((plus(Dice(4, 6, keep=Keep.HIGHEST, keep_count=3)),))),
        ("4d6dh1", Expression((plus(Dice(4, 6, keep=Keep.LOWEST, keep_count=3)),))),
        ("d10!", Expression((plus(Dice(1, 10, explode=True)),))),
        ("3d6!kh2", Expression((plus(Dice(3, 6, explode=True, keep=Keep.HIGHEST, keep_count=2)),))),
        ("3d6kh2!", Expression((plus(Dice(3, 6, explode=True, keep=Keep.HIGHEST, keep_count=2)),))),
        ("7k3", Expression((plus(RollKeep(7, 3)),))),
        ("7K3+5", Expression((plus(RollKeep(7, 3)), plus(Constant(5))))),
        ("u5k2", Expression((plus(RollKeep(5, 2, unskilled=True)),))),
        ("10k12", Expression((plus(RollKeep(10, 12)),))),
        ("12k4 vs 25", Expression((plus(RollKeep(12, 4)),), target=25)),
        ("d20+5 vs 15", Expression((plus(Dice(1, 20)), plus(Constant(5))), target=15)),
        ("d20 vs -3", Expression((plus(Dice(1, 20)),), target=-3)),
        ("d20 adv", Expression((plus(Dice(2, 20, keep=Keep.HIGHEST, keep_count=1)),))),
        ("d20adv", Expression((plus(Dice(2, 20, keep=Keep.HIGHEST, keep_count=1)),))),
        ("2d20 advantage", Expression((plus(Dice(2, 20, keep=Keep.HIGHEST, keep_count=1)),))),
        ("3d20 adv", Expression((plus(Dice(3, 20, keep=Keep.HIGHEST, keep_count=1)),))),
        ("d20 dis", Expression((plus(Dice(2, 20, keep=Keep.LOWEST, keep_count=1)),))),
        ("2d20 Disadvantage", Expression((plus(Dice(2, 20, keep=Keep.LOWEST, keep_count=1)),))),
        (
            "d20 adv + 5 vs 15",
            Expression((plus(Dice(2, 20, keep=Keep.HIGHEST, keep_count=1)), plus(Constant(5))), target=15),
        ),
        (
            "d20+5 dis vs 15",
            Expression((plus(Dice(2, 20, keep=Keep.LOWEST, keep_count=1)), plus(Constant(5))), target=15),
        ),
        ("5x5 vs 6", FiveByFive(6)),
        ("5x5 6", FiveByFive(6)),
        ("5X5 VS 16", FiveByFive(16)),
        ("5x5 vs -5", FiveByFive(-5)),
        ("5x5 vs 0 token", FiveByFive(0, doubles_token=True)),
        ("5x5 25", FiveByFive(25)),
    ],
)
def test_parse(text, tree):
    assert parse(text) == tree


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("d20", "1d20"),
        ("d%", "1d100"),
        ("4d6dl1", "4d6kh3"),
        ("3d6kh2!", "3d6!kh2"),
        ("d20 adv +5", "2d20kh1+5"),
        ("-1 + u5k2 vs 10", "-1+u5k2 vs 10"),
        ("5x5 9", "5x5 vs 9"),
        ("5x5 vs 9 TOKEN", "5x5 vs 9 token"),
    ],
)
def test_canonical_notation_reparses_to_the_same_tree(text, canonical):
    assert to_notation(parse(text)) == canonical
    assert parse(canonical) == parse(text)


# ------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("3d6+x", 5, 'Unexpected "x" at position 5: 3d6+x'),
        ("3d6+xyz", 5, 'Unexpected "xyz" at position 5'),
        ("2d6 3", 5, 'Unexpected "3" at position 5'),
        ("2d6 + ", 7, "Unexpected end at position 7"),
        ("", 1, "Empty"),
        ("   ", 4, "Empty"),
        ("0d6", 1, "at least 1"),
        ("d0", 2, "at least 1"),
        ("d1!", 3, "explode forever"),
        ("3d1!", 4, "explode forever"),
        ("4d6kh5", 6, "Cannot keep 5 of 4 dice"),
        ("4d6kh0", 6, "at least 1"),
        ("4d6dl4", 6, "Cannot drop 4 of 4 dice"),
        ("4d6kh3kl1", 7, "once per group"),
        ("4d6kh", 4, 'Unexpected "kh"'),
        ("d6!!", 4, "already explode"),
        ("3k5", 3, "Cannot keep 5 of 3 dice"),
        ("u3", 3, "u5k2"),
        ("7k3!", 4, "tens explode"),
        ("41k3", 1, "at most 40"),
        ("d20 adv dis", 9, 'A second "dis"'),
        ("2d6+1d4 adv", 9, "exactly one group"),
        ("7k3 adv", 5, "exactly one group"),
        ("4d6kh3 adv", 8, "already keep"),
        ("d20 vs 10 vs 12", 11, 'second "vs"'),
        ("d20 vs 10 + 2", 11, "target last"),
        ("d20 vs", 7, "Unexpected end"),
        ("5x5", 4, "Unexpected end"),
        ("5x5 vs 7", 8, "not a Five by Five value"),
        ("5x5 vs 6 luck", 10, '"luck"'),
        ("5x56", 4, "space after 5x5"),
        ("2d6+5x5 vs 6", 5, "stands alone"),
        ("d6 d6", 4, 'Unexpected "d"'),
        ("2d6+é", 5, 'Unexpected "é"'),
        ("2d6+\x00", 5, "Unexpected '\\x00'"),
        ("３d6", 1, "Unexpected"),  # a full-width digit is not a number here
        ("1001d6", 1, "at most 1000"),
        ("d1001", 2, "at most 1000"),
        ("d20+100001", 5, "at most 100000"),
        ("1000d6+1d6", 8, "Too many dice"),
    ],
)
def test_errors_point_at_the_bad_character(text, position, fragment):
    with pytest.raises(NotationError) as caught:
        parse(text)
    error = caught.value
    assert isinstance(error, RulesError)
    assert isinstance(error, ValueError)
    assert error.position == position
    assert error.index == position - 1
    assert fragment in str(error)
    assert f"at position {position}" in str(error)


def test_long_input_is_shown_as_a_window_around_the_fault():
    text = "1+" * 60 + "x"
    with pytest.raises(NotationError) as caught:
        parse(text[:199])  # under the length limit, over the term limit
    assert caught.value.position <= 199
    assert len(str(caught.value)) < 200


def test_limit_errors_are_dice_limit_errors_too():
    with pytest.raises(DiceLimitError):
        parse("1000d1000!")
    assert issubclass(NotationLimitError, NotationError)
    assert issubclass(NotationLimitError, DiceLimitError)


ABUSIVE = [
    "1000d1000!",
    "1000d6+1000d6",
    "334d6!",  # 334 exploding dice book 1,002 against the cap
    "500d1000!",
    "d1!",
    "10d1!",
    "99999999999d6",
    "d99999999999",
    "9" * 150 + "d6",
    "d" + "9" * 150,
    "1d6+" + "9" * 190,
    "4d6kh99999999999",
    "2d6+99999999999",
    "d20 vs 99999999999",
    "5x5 vs 99999999999",
    "1001d6",
    "1d1001",
    "1000k1000",
    "41k3",
    "+".join(["d6"] * 60),
    "+".join(["1"] * 90),
    "d6" * 100,
    "d20 " + "adv " * 45,
    "d6" + "!" * 150,
    "x" * 10_000,
    "1" * 10_000,
    "1d6+" * 2_500,
    "(" * 5_000,
    "d%" * 100,
    "\x00" * 300,
    "9" * 100_000,
]


@pytest.mark.parametrize("text", ABUSIVE, ids=lambda text: repr(text[:20]) + f"..{len(text)}")
def test_abusive_input_is_refused_fast(text):
    started = time.perf_counter()
    with pytest.raises((NotationError, DiceLimitError)):
        roll_notation(text, Roller(random.Random(0)))
    # an upper bound far above the real cost (microseconds), only to catch runaway work
    assert time.perf_counter() - started < 0.5


def test_length_limit_is_checked_before_anything_else():
    with pytest.raises(NotationLimitError, match="Too long"):
        parse("2d6" + " " * 300)
    assert parse("2d6" + " " * 190) == parse("2d6")


def test_roller_cap_still_holds_at_roll_time():
    with pytest.raises(DiceLimitError):
        roll(parse("10d6"), Roller(random.Random(0), max_dice=5))


def test_non_text_is_refused():
    with pytest.raises(RulesError):
        parse(20)


# ------------------------------------------------------------------------------------------- rolling


def test_sum_of_terms_with_fixed_faces():
    result = roll(parse("2d6+1d4-2"), fixed(3, 5, 2))
    assert result.total == 8
    assert [term.value for term in result.terms] == [8, 2, -2]
    assert result.success is None


def test_leading_negative_dice():
    assert roll(parse("-d6+10"), fixed(4)).total == 6


@pytest.mark.parametrize(
    ("text", "faces", "total", "kept"),
    [
        ("4d6kh3", (1, 6, 3, 6), 15, (False, True, True, True)),
        ("4d6k3", (1, 6, 3, 6), 15, (False, True, True, True)),
        ("4d6dl1", (1, 6, 3, 6), 15, (False, True, True, True)),
        ("4d6kl1", (4, 6, 3, 6), 3, (False, False, True, False)),
        ("4d6dh1", (4, 6, 3, 5), 12, (True, False, True, True)),
        # ties: the earlier die is kept, so a replay marks the same dice
        ("4d6kh1", (6, 2, 6, 1), 6, (True, False, False, False)),
        ("4d6kl2", (1, 2, 1, 1), 2, (True, False, True, False)),
        ("2d20 adv", (7, 15), 15, (False, True)),
        ("d20 dis", (7, 15), 7, (True, False)),
    ],
)
def test_keep_and_drop(text, faces, total, kept):
    result = roll(parse(text), fixed(*faces))
    assert result.total == total
    assert tuple(die.kept for die in result.terms[0].dice) == kept
    assert tuple(die.faces[0] for die in result.terms[0].dice) == faces


def test_exploding_die_adds_its_chain():
    result = roll(parse("d10!"), fixed(10, 10, 3))
    (die,) = result.terms[0].dice
    assert die.faces == (10, 10, 3)
    assert die.exploded
    assert result.total == 23


def test_explosions_happen_per_die_and_keep_acts_on_die_totals():
    result = roll(parse("3d6!kh2"), fixed(6, 2, 1, 5))
    assert [die.faces for die in result.terms[0].dice] == [(6, 2), (1,), (5,)]
    assert [die.kept for die in result.terms[0].dice] == [True, False, True]
    assert result.total == 13


def test_only_the_top_face_explodes():
    result = roll(parse("2d6!"), fixed(5, 1))
    assert [die.faces for die in result.terms[0].dice] == [(5,), (1,)]


def test_an_exploding_chain_is_bounded():
    # a d2 showing 2 a hundred times stops there: FixedFaces would fail on a 101st throw
    result = roll(parse("d2!"), fixed(*[2] * notation.MAX_CHAIN))
    assert result.total == 2 * notation.MAX_CHAIN
    assert bounds(parse("d2!")) == (1, 2 * notation.MAX_CHAIN)


def test_target_meets_or_beats():
    assert roll(parse("d20+5 vs 15"), fixed(10)).success is True
    assert roll(parse("d20+5 vs 15"), fixed(9)).success is False


# ------------------------------------------------------------------------------------------- L5R


def test_seed_example_4k2():
    # "if the player rolled a 3, 6, 7, and 9 ... keep the 7 and 9 for a total of 16"
    result = roll(parse("4k2"), fixed(3, 6, 7, 9))
    assert result.total == 16
    assert [die.kept for die in result.terms[0].dice] == [False, False, True, True]


@pytest.mark.parametrize(("faces", "total"), [((10, 3), 13), ((10, 10, 7), 27)])
def test_seed_examples_exploding_tens(faces, total):
    # "A die rolls a 10 and then a 3 ... 13"; "a 10, a 10, and a 7 ... 27"
    result = roll(parse("1k1"), fixed(*faces))
    assert result.total == total
    assert result.terms[0].dice[0].faces == faces


def test_tens_explode_into_the_same_die_before_keeping():
    # 3k2: 10+3 is one die worth 13; it is kept with the 7
    result = roll(parse("3k2"), fixed(10, 3, 7, 2))
    assert [die.total for die in result.terms[0].dice] == [13, 7, 2]
    assert result.total == 20


def test_unskilled_tens_do_not_explode():
    # "Dice never explode on an Unskilled Roll": the 10 stays a 10 and no fourth face is thrown
    result = roll(parse("u3k2"), fixed(10, 5, 3))
    assert [die.faces for die in result.terms[0].dice] == [(10,), (5,), (3,)]
    assert result.total == 15


def test_bonus_after_roll_and_keep():
    assert roll(parse("2k1+5"), fixed(4, 8)).total == 13


@pytest.mark.parametrize(
    ("text", "rolled", "kept", "bonus"),
    [
        ("12k4", 10, 5, 0),  # "12k4 would become 10k5"
        ("13k9", 10, 10, 2),  # "13k9 would become 10k10 + 2"
        ("10k12", 10, 10, 4),  # "10k12 would become 10k10 + 4"
        ("14k12", 10, 10, 12),  # "14k12 would become 10k10 +12"
        ("11k4", 10, 4, 0),
    ],
)
def test_ten_dice_rule(text, rolled, kept, bonus):
    faces = [1] * rolled  # all ones: the total is the kept dice plus the bonus
    result = roll(parse(text), fixed(*faces))
    term = result.terms[0]
    assert (term.rolled, term.kept, term.bonus) == (rolled, kept, bonus)
    assert len(term.dice) == rolled
    assert sum(die.kept for die in term.dice) == kept
    assert result.total == kept + bonus
    assert f"{text} as {rolled}k{kept}" in render_text(result)


def test_ten_dice_rule_odd_die_house_rule():
    tree = parse("11k4")
    assert roll(tree, fixed(*[1] * 10)).total == 4
    assert roll(tree, fixed(*[1] * 10), odd_die_bonus=True).total == 6
    assert bounds(tree, odd_die_bonus=True)[0] == 6


def test_roll_and_keep_against_a_tn():
    result = roll(parse("5k2 vs 20"), fixed(10, 4, 9, 1, 2, 3))
    assert result.total == 23
    assert result.success is True


# ------------------------------------------------------------------------------------------- 5x5


def test_five_by_five_larry_is_trumped_into_success():
    # Larry rolls against 4 and gets a 2 and a 6: 12 is too high, but the 6 is trump
    result = roll(parse("5x5 vs 4"), fixed(2, 6))
    assert (result.success, result.trump, result.doubles) == (True, True, False)
    assert result.dice == (2, 6)
    assert render_text(result) == "5x5 vs 4: [2, 6] trump, success"


def test_five_by_five_product_against_the_value():
    # "a roll of [2] and [5] on two dice will produce a result of 10"
    assert roll(parse("5x5 vs 9"), fixed(2, 5)).success is False
    result = roll(parse("5x5 vs 12"), fixed(2, 5))
    assert result.success is True
    assert result.total == 10
    assert render_text(result) == "5x5 vs 12: [2, 5] = 10, success"


def test_five_by_five_doubles_and_token():
    result = roll(parse("5x5 vs 9"), fixed(3, 3))
    assert (result.success, result.doubles) == (True, True)
    assert render_text(result) == "5x5 vs 9: [3, 3] = 9, success, doubles"
    assert roll(parse("5x5 vs 0"), fixed(5, 1)).success is False
    assert roll(parse("5x5 vs 0 token"), fixed(5, 1)).trump is True


def test_five_by_five_poor_rolls_one_die():
    assert roll(parse("5x5 vs -5"), fixed(6)).success is True
    result = roll(parse("5x5 vs -5"), fixed(1))
    assert result.dice == (1,)
    assert result.success is False


def test_five_by_five_uses_the_engine_check():
    for a, b in itertools.product(range(1, 7), repeat=2):
        for value in (0, 2, 4, 6, 9, 12, 16, 20, 25):
            mine = roll(FiveByFive(value), fixed(a, b))
            theirs = fivebyfive.check(value, (a, b))
            assert (mine.success, mine.trump, mine.doubles) == (theirs.success, theirs.trump, theirs.doubles)


# ------------------------------------------------------------------------------------------- render


def test_render_text():
    assert render_text(roll(parse("2d6+1d4-2"), fixed(3, 5, 2))) == "2d6 [3, 5] + 1d4 [2] - 2 = 8"
    assert render_text(roll(parse("4d6kh3"), fixed(1, 6, 3, 6))) == "4d6kh3 [(1), 6, 3, 6] = 15"
    assert render_text(roll(parse("d10!"), fixed(10, 10, 3))) == "1d10! [10+10+3] = 23"
    assert render_text(roll(parse("-2+d6"), fixed(4))) == "-2 + 1d6 [4] = 2"
    assert render_text(roll(parse("d20+5 vs 15"), fixed(9))) == "1d20 [9] + 5 = 14 vs 15: failure"
    assert render_text(roll(parse("13k9"), fixed(*[2] * 10))) == (
        "13k9 as 10k10+2 [2, 2, 2, 2, 2, 2, 2, 2, 2, 2] = 22"
    )
    assert render_text(roll(parse("3k2"), fixed(10, 3, 7, 2))) == "3k2 [10+3, 7, (2)] = 20"


def test_render_data_expression():
    data = render_data(roll(parse("3d6!kh2+1 vs 10"), fixed(6, 2, 1, 5)))
    assert data == {
        "kind": "expression",
        "notation": "3d6!kh2+1 vs 10",
        "terms": [
            {
                "kind": "dice",
                "notation": "3d6!kh2",
                "sign": 1,
                "dice": [
                    {"faces": [6, 2], "total": 8, "kept": True, "exploded": True},
                    {"faces": [1], "total": 1, "kept": False, "exploded": False},
                    {"faces": [5], "total": 5, "kept": True, "exploded": False},
                ],
                "bonus": 0,
                "value": 13,
            },
            {"kind": "constant", "notation": "1", "sign": 1, "dice": [], "bonus": 1, "value": 1},
        ],
        "total": 14,
        "target": 10,
        "success": True,
    }


def test_render_data_roll_and_keep_and_five_by_five():
    data = render_data(roll(parse("u12k4"), fixed(*[10] * 10)))
    term = data["terms"][0]
    assert (term["kind"], term["rolled"], term["kept"], term["unskilled"]) == ("roll_keep", 10, 5, True)
    assert data["total"] == 50

    data = render_data(roll(parse("5x5 vs 6 token"), fixed(5, 5)))
    assert data["kind"] == "five_by_five"
    assert (data["success"], data["trump"], data["doubles"], data["doubles_token"]) == (
        True,
        True,
        True,
        True,
    )
    assert data["terms"][0]["dice"] == [
        {"faces": [5], "total": 5, "kept": True, "exploded": False},
        {"faces": [5], "total": 5, "kept": True, "exploded": False},
    ]
    assert data["total"] == 25


# ------------------------------------------------------------------------------------------- properties


@st.composite
def dice_nodes(draw):
    count = draw(st.integers(1, 8))
    sides = draw(st.integers(1, 20))
    explode = sides >= 2 and draw(st.booleans())
    if draw(st.booleans()):
        return Dice(count, sides, explode, draw(st.sampled_from(Keep)), draw(st.integers(1, count)))
    return Dice(count, sides, explode)


@st.composite
def roll_keep_nodes(draw):
    rolled = draw(st.integers(1, 16))
    kept = draw(st.integers(1, rolled if rolled < 10 else 14))
    return RollKeep(rolled, kept, unskilled=draw(st.booleans()))


nodes = st.one_of(dice_nodes(), roll_keep_nodes(), st.builds(Constant, st.integers(0, 50)))
expressions = st.builds(
    Expression,
    st.lists(st.builds(Term, st.sampled_from([1, -1]), nodes), min_size=1, max_size=5).map(tuple),
    st.one_of(st.none(), st.integers(-20, 100)),
)


@settings(max_examples=150, deadline=None)
@given(tree=expressions, seed=st.integers(0, 2**32), odd=st.booleans())
def test_random_expressions_round_trip_and_stay_within_bounds(tree, seed, odd):
    assert parse(to_notation(tree)) == tree
    result = roll(tree, Roller(random.Random(seed)), odd_die_bonus=odd)
    low, high = bounds(tree, odd_die_bonus=odd)
    assert low <= result.total <= high
    assert result.success == (None if tree.target is None else result.total >= tree.target)
    for term in result.terms:
        node = term.term.node
        if isinstance(node, Dice):
            assert len(term.dice) == node.count
            assert sum(die.kept for die in term.dice) == node.kept
            assert all(1 <= face <= node.sides for die in term.dice for face in die.faces)
            assert all(die.exploded == (len(die.faces) > 1) for die in term.dice)
            if not node.explode:
                assert not any(die.exploded for die in term.dice)
        elif isinstance(node, RollKeep):
            assert len(term.dice) == term.rolled <= 10
            assert sum(die.kept for die in term.dice) == term.kept
            if node.unskilled:
                assert not any(die.exploded for die in term.dice)
            # kept dice are never lower than dropped ones
            kept = [die.total for die in term.dice if die.kept]
            dropped = [die.total for die in term.dice if not die.kept]
            assert not dropped or min(kept) >= max(dropped)
    data = render_data(result)
    assert data["total"] == result.total
    assert sum(term["value"] for term in data["terms"]) == result.total
    assert render_text(result).split(" = ")[-1].startswith(str(result.total))


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="0123456789dDkKhHlL!%+- xvsuadtoken5", max_size=30))
def test_any_text_parses_or_raises_a_notation_error(text):
    try:
        tree = parse(text)
    except NotationError as error:
        assert 1 <= error.position <= len(text) + 1
        return
    result = roll(tree, Roller(random.Random(0)))
    low, high = bounds(tree)
    assert low <= result.total <= high


def _exact_4d6kh3() -> dict[int, Fraction]:
    counts = Counter(sum(sorted(faces)[1:]) for faces in itertools.product(range(1, 7), repeat=4))
    return {total: Fraction(n, 6**4) for total, n in counts.items()}


def test_frequencies_of_4d6kh3_match_exact_odds():
    odds = _exact_4d6kh3()
    assert sum(odds.values()) == 1
    n = 20_000
    rng = random.Random(424242)
    tree = parse("4d6kh3")
    seen = Counter(roll(tree, Roller(rng)).total for _ in range(n))
    for total, p in odds.items():
        sigma = math.sqrt(n * p * (1 - p))
        assert abs(seen[total] - n * p) < 5 * sigma + 1, total


def test_frequencies_of_five_by_five_match_the_engine_chance():
    n = 20_000
    rng = random.Random(5_5)
    tree = parse("5x5 vs 6")
    wins = sum(roll(tree, Roller(rng)).success for _ in range(n))
    p = fivebyfive.chance(6)
    assert p == Fraction(23, 36)  # the seed: "6 (skilled) ... 23 in 36 chance"
    assert abs(wins - n * p) < 5 * math.sqrt(n * p * (1 - p))


def test_chance_of_a_line_with_a_target():
    # 4d6 keep the best 3 against 13: count every one of the 1,296 outcomes by hand.
    import itertools
    from fractions import Fraction

    from rules import fivebyfive, l5r, notation

    hits = sum(1 for faces in itertools.product(range(1, 7), repeat=4) if sum(sorted(faces)[1:]) >= 13)
    assert notation.chance(notation.parse("4d6kh3 vs 13")) == Fraction(hits, 1296)
    assert notation.chance(notation.parse("2d6+1 vs 8")) == Fraction(21, 36)
    assert notation.chance(notation.parse("7k3 vs 20")) == l5r.chance(7, 3, 20)
    assert notation.chance(notation.parse("5x5 vs 4")) == fivebyfive.chance(4)
    assert notation.chance(notation.parse("3d6")) is None  # no target, no chance
    assert notation.chance(notation.parse("d10! vs 15")) is None  # exploding outside roll and keep
