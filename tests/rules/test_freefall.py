"""FREE/FALL A5: every rule in the seed, the exact odds, and the harm protocol."""

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import freefall
from rules.dice import FixedFaces, Roller, RulesError

TNS = st.integers(min_value=1, max_value=30)
BONUSES = st.sampled_from([0, 5, 10, 15])
NDICE = st.integers(min_value=1, max_value=5)


# --- pool ------------------------------------------------------------------


def test_pool_is_five_less_one_per_filled_slot_never_under_two():
    assert [freefall.pool(n) for n in range(4)] == [5, 4, 3, 2]
    assert freefall.BASE_POOL == 5 and freefall.MIN_POOL == 2 and freefall.HARM_SLOTS == 3


@pytest.mark.parametrize("bad", [-1, 4, 1.5, True, "2"])
def test_pool_rejects_impossible_slot_counts(bad):
    with pytest.raises(ValueError):
        freefall.pool(bad)


def test_harm_track_pool_counts_temp_and_perm():
    temp = freefall.HarmSlot(freefall.SlotState.TEMP, freefall.HarmKind.PHYSICAL)
    perm = freefall.HarmSlot(freefall.SlotState.PERM, freefall.HarmKind.PSYCHIC)
    assert freefall.HarmTrack().pool == 5
    assert freefall.HarmTrack((temp, freefall.EMPTY_SLOT, freefall.EMPTY_SLOT)).pool == 4
    assert freefall.HarmTrack((temp, perm, freefall.EMPTY_SLOT)).pool == 3
    assert freefall.HarmTrack((temp, perm, temp)).pool == 2


# --- target numbers and the check -------------------------------------------


def test_tn_tiers():
    assert freefall.Difficulty.CHALLENGING.tn == 11
    assert freefall.Difficulty.HARD.tn == 16
    assert freefall.Difficulty.NEAR_IMPOSSIBLE.tn == 21


def test_zero_successes_is_failure_with_complication():
    r = freefall.check([3, 10], 11)
    assert (r.successes, r.outcome, r.complication, r.crit) == (0, "failure", True, False)


def test_one_success_is_basic_success():
    r = freefall.check([11, 10], 11)
    assert (r.successes, r.outcome, r.complication) == (1, "success", False)


def test_two_successes_is_greater():
    r = freefall.check([11, 19, 2], 11)
    assert (r.successes, r.outcome) == (2, "greater")


def test_natural_20_always_succeeds_and_crits():
    r = freefall.check([20], 21)
    assert (r.successes, r.outcome, r.crit) == (1, "success", True)
    assert freefall.check([20, 20], 40).outcome == "greater"
    # a 19 can never make TN 21 unaided
    assert freefall.check([19], 21).outcome == "failure"


def test_natural_1_complicates_in_conflict_only():
    r = freefall.check([1, 18], 16)
    assert r.outcome == "success" and r.complication
    assert not freefall.check([1, 18], 16, conflict=False).complication
    # failure complicates regardless
    assert freefall.check([1, 2], 16, conflict=False).complication


def test_bonus_adds_to_every_die():
    assert freefall.check([6, 6], 21, bonus=15).successes == 2
    assert freefall.check([5], 21, bonus=15).successes == 0
    # a 1 can succeed with a big enough bonus but still complicates
    r = freefall.check([1], 11, bonus=10)
    assert r.successes == 1 and r.complication


@pytest.mark.parametrize(
    "dice, tn, bonus",
    [([], 11, 0), ([1] * 6, 11, 0), ([0], 11, 0), ([21], 11, 0), ([5], 0, 0), ([5], 11, -1), ([5], 11.0, 0)],
)
def test_check_rejects_bad_arguments(dice, tn, bonus):
    with pytest.raises(RulesError):
        freefall.check(dice, tn, bonus=bonus)


def test_roll_check_replays_through_check():
    r = freefall.roll_check(Roller(FixedFaces([20, 1, 12])), dice=3, tn=16)
    assert r.faces == (20, 1, 12)
    assert r == freefall.check(r.faces, 16)
    assert r.highest == 20 and r.natural_ones == 1


def test_roll_check_refuses_more_than_five_dice():
    with pytest.raises(RulesError):
        freefall.roll_check(Roller(random.Random(1)), dice=6, tn=11)


# --- exact odds -------------------------------------------------------------


def test_die_chance_values():
    assert freefall.die_chance(11) == Fraction(1, 2)
    assert freefall.die_chance(16) == Fraction(1, 4)
    assert freefall.die_chance(21) == Fraction(1, 20)  # only the natural 20
    assert freefall.die_chance(21, bonus=15) == Fraction(3, 4)
    assert freefall.die_chance(1) == 1
    assert freefall.die_chance(99) == Fraction(1, 20)


def test_chance_matches_hand_figures():
    assert freefall.chance(1, 11) == {"failure": Fraction(1, 2), "success": Fraction(1, 2), "greater": 0}
    quarter, half = Fraction(1, 4), Fraction(1, 2)
    assert freefall.chance(2, 11) == {"failure": quarter, "success": half, "greater": quarter}
    assert freefall.chance(5, 21)["failure"] == Fraction(19, 20) ** 5


def _brute(n, tn, bonus, conflict=True):
    counts = {"failure": 0, "success": 0, "greater": 0}
    crit = comp = one = 0
    for faces in itertools.product(range(1, 21), repeat=n):
        r = freefall.check(faces, tn, bonus=bonus, conflict=conflict)
        counts[r.outcome] += 1
        crit += r.crit
        comp += r.complication
        one += 1 in faces
    total = 20**n
    return (
        {k: Fraction(v, total) for k, v in counts.items()},
        Fraction(crit, total),
        Fraction(comp, total),
        Fraction(one, total),
    )


@pytest.mark.parametrize(
    "n, tn, bonus", [(1, 11, 0), (2, 16, 0), (2, 21, 5), (3, 11, 10), (3, 21, 0), (2, 5, 0)]
)
@pytest.mark.parametrize("conflict", [True, False])
def test_odds_agree_with_enumerating_every_roll(n, tn, bonus, conflict):
    o = freefall.odds(n, tn, bonus=bonus, conflict=conflict)
    outcomes, crit, comp, one = _brute(n, tn, bonus, conflict)
    assert o.outcomes == outcomes
    assert (o.crit, o.complication, o.natural_one) == (crit, comp, one)


@settings(max_examples=150, deadline=None)
@given(NDICE, TNS, BONUSES)
def test_outcome_odds_sum_to_one(n, tn, bonus):
    c = freefall.chance(n, tn, bonus=bonus)
    assert set(c) == set(freefall.OUTCOMES)
    assert sum(c.values()) == 1
    assert all(0 <= v <= 1 for v in c.values())
    assert sum(freefall.successes_distribution(n, tn, bonus=bonus).values()) == 1


@settings(max_examples=150, deadline=None)
@given(NDICE, TNS, BONUSES)
def test_better_numbers_never_lower_the_chance(n, tn, bonus):
    base = freefall.odds(n, tn, bonus=bonus)
    easier = freefall.odds(n, tn - 1, bonus=bonus) if tn > 1 else base
    stronger = freefall.odds(n, tn, bonus=bonus + 5)
    for better in (easier, stronger):
        assert better.at_least_success >= base.at_least_success
        assert better.outcomes["greater"] >= base.outcomes["greater"]
    if n < 5:
        more = freefall.odds(n + 1, tn, bonus=bonus)
        assert more.at_least_success >= base.at_least_success
        assert more.outcomes["greater"] >= base.outcomes["greater"]  # focus pays


def test_frequencies_of_the_real_roller_match_exact_odds():
    rng = random.Random(20240501)
    roller_trials = 4000
    for n, tn, bonus in [(1, 11, 0), (3, 16, 0), (5, 21, 5)]:
        exact = freefall.chance(n, tn, bonus=bonus)
        seen = {k: 0 for k in freefall.OUTCOMES}
        for _ in range(roller_trials):
            seen[freefall.roll_check(Roller(rng), dice=n, tn=tn, bonus=bonus).outcome] += 1
        for k, p in exact.items():
            sigma = math.sqrt(roller_trials * p * (1 - p)) or 1
            assert abs(seen[k] - roller_trials * p) <= 5 * sigma, (n, tn, bonus, k)


# --- attributes --------------------------------------------------------------


def test_attributes_and_spending():
    cur = freefall.Attributes(body=2, mind=1, ghost=0)
    assert freefall.spend(cur, "body") == freefall.Attributes(1, 1, 0)
    assert freefall.spend(cur, freefall.Attribute.MIND, 1).mind == 0
    with pytest.raises(freefall.FreeFallError) as e:
        freefall.spend(cur, "ghost")
    assert e.value.field == "ghost"
    with pytest.raises(RulesError):
        freefall.spend(cur, "luck")


# --- programs and gear --------------------------------------------------------


def test_program_tiers_bonus_and_binding():
    table = {t: (t.bonus, t.binding) for t in freefall.ProgramTier}
    assert table == {
        freefall.ProgramTier.RED: (0, 1),
        freefall.ProgramTier.STEEL: (5, 2),
        freefall.ProgramTier.CHROME: (10, 3),
        freefall.ProgramTier.BLACK: (15, 4),
    }


@pytest.mark.parametrize("ptype, mult", [("spike", 1), ("blast", 1), ("counter", 2), ("pwn", 2)])
def test_counter_and_pwn_bind_double(ptype, mult):
    for tier in freefall.ProgramTier:
        assert freefall.program_binding(ptype, tier) == tier.binding * mult
        assert freefall.Program("p", ptype, tier).binding == tier.binding * mult


def test_programs_bind_mind():
    progs = [freefall.Program("Needle", "spike", "chrome"), freefall.Program("Wall", "counter", "red")]
    assert freefall.binding((), progs) == freefall.Attributes(0, 5, 0)


def test_hardened_gear_goes_faulty_before_broken_and_binding_remains():
    vest = freefall.Gear("Vest", binding=1, binds="body", av=2, hardened=True)
    faulty = freefall.break_gear(vest)
    assert faulty.condition is freefall.GearCondition.FAULTY and faulty.usable
    broken = freefall.break_gear(faulty)
    assert broken.condition is freefall.GearCondition.BROKEN and not broken.usable
    assert freefall.binding([broken]) == freefall.binding([vest]) == freefall.Attributes(1, 0, 0)
    assert (
        freefall.break_gear(freefall.Gear("Knife", binding=1, binds="body")).condition
        is freefall.GearCondition.BROKEN
    )
    with pytest.raises(RulesError):
        freefall.break_gear(broken)


def test_repair_gear_refuses_an_intact_item():
    """FREE/FALL l.126: only a broken (or faulty) item has anything to repair."""
    vest = freefall.Gear("Vest", binding=1, binds="body", av=2, hardened=True)
    assert freefall.repair_gear(freefall.break_gear(freefall.break_gear(vest))) == vest
    assert freefall.repair_gear(freefall.break_gear(vest)).condition is freefall.GearCondition.INTACT
    with pytest.raises(RulesError, match="nothing to repair"):
        freefall.repair_gear(vest)


def test_load_bearing_negates_binding_of_attached_items():
    rig = freefall.Gear("Rig", binding=1, binds="body", load_bearing=2)
    gun = freefall.Gear("Gun", binding=1, binds="body", attached_to="rig")
    scope = freefall.Gear("Scope", binding=2, binds="mind", attached_to="Rig")
    loose = freefall.Gear("Drone", binding=1, binds="mind")
    # relief 2: gun 1 -> 0, scope 2 -> 1; the rig's own binding and the loose drone still count
    assert freefall.binding([rig, gun, scope, loose]) == freefall.Attributes(body=1, mind=2, ghost=0)


def test_gear_tags_and_armor_value():
    g = freefall.Gear("Maul", binding=2, binds="body", dv=3, high_impact=True, piercing=True, hardened=True)
    assert g.tags == (
        freefall.GearTag.ATTRIBUTE_BINDING,
        freefall.GearTag.HIGH_IMPACT,
        freefall.GearTag.PIERCING,
        freefall.GearTag.HARDENED,
    )
    assert set(freefall.GEAR_TAGS) == set(freefall.GearTag)
    coat = freefall.Gear("Coat", av=1)
    plate = freefall.Gear("Plate", av=3, condition="broken")
    assert freefall.armor_value([coat, plate]) == 1
    assert freefall.armor_value([]) == 0


# --- builder -----------------------------------------------------------------


def _build(**kw):
    args = dict(
        permanent={"body": 3, "mind": 4, "ghost": 2}, character_class="Ghostrunner", specialty="Infiltration"
    )
    args.update(kw)
    return freefall.validate_build(**args)


def test_build_current_max_is_permanent_less_binding():
    b = _build(
        gear=[freefall.Gear("Mag-picks", binding=1, binds="ghost")],
        programs=[freefall.Program("Lockjaw", "pwn", "red")],
    )
    assert b.binding == freefall.Attributes(0, 2, 1)
    assert b.current_max == freefall.Attributes(3, 2, 1)
    assert b.current_max == freefall.current_max(b.permanent, b.gear, b.programs)


def test_build_may_bind_an_attribute_down_to_zero_but_not_below():
    assert _build(programs=[freefall.Program("Ice", "counter", "steel")]).current_max.mind == 0
    with pytest.raises(RulesError) as e:
        _build(
            programs=[freefall.Program("Ice", "counter", "steel"), freefall.Program("Pin", "spike", "red")]
        )
    assert e.value.field == "mind"
    with pytest.raises(RulesError) as e:
        _build(gear=[freefall.Gear("Exo", binding=4, binds="body")])
    assert e.value.field == "body"


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"permanent": {"body": 3, "mind": 4}}, "ghost"),
        ({"permanent": {"body": -1, "mind": 4, "ghost": 2}}, "body"),
        ({"permanent": {"body": 3, "mind": 4, "ghost": 2, "luck": 1}}, "luck"),
        ({"character_class": " "}, "character_class"),
        ({"specialty": ""}, "specialty"),
        ({"gear": [freefall.Gear("Rope", binding=1)]}, "gear"),
        ({"gear": [freefall.Gear("Gun", attached_to="Rig")]}, "gear"),
        ({"gear": [freefall.Gear("Gun"), freefall.Gear("gun")]}, "gear"),
        ({"gear": [freefall.Gear("Gun", av=-1)]}, "gear"),
        ({"programs": ["Needle"]}, "programs"),
    ],
)
def test_build_errors_name_the_field(kw, field):
    with pytest.raises(freefall.FreeFallError) as e:
        _build(**kw)
    assert e.value.field == field


def test_bad_program_type_is_refused_with_field():
    with pytest.raises(freefall.FreeFallError) as e:
        freefall.Program("x", "virus", "red")
    assert e.value.field == "programs"


# --- declaration, prerequisites and order ----------------------------------------


def test_declaration_assigns_at_least_one_die_and_never_more_than_pool():
    acts = [freefall.Action("Talk", 2, specialized=False), freefall.Action("Walk", 2, specialized=False)]
    d = freefall.validate_declaration(acts, pool=5)
    assert d.dice_assigned == 4
    with pytest.raises(freefall.FreeFallError) as e:
        freefall.validate_declaration(acts, pool=3)
    assert e.value.field == "actions"
    with pytest.raises(freefall.FreeFallError) as e:
        freefall.validate_declaration([freefall.Action("Talk", 0, specialized=False)], pool=5)
    assert e.value.field == "actions[0]"
    with pytest.raises(freefall.FreeFallError):
        freefall.validate_declaration([], pool=5)


def test_specialized_actions_need_one_of_four_prerequisites():
    gear = [freefall.Gear("Mag-picks"), freefall.Gear("Cutter", condition="broken")]
    cur = freefall.Attributes(1, 0, 0)
    kw = dict(pool=5, current=cur, gear=gear, specialty="Infiltration")
    with pytest.raises(freefall.FreeFallError, match="gear, the specialty"):
        freefall.validate_declaration([freefall.Action("Pick lock", 1)], **kw)
    ok = [
        freefall.Action("Pick lock", 1, prerequisite="gear", gear="mag-picks"),
        freefall.Action("Sneak", 1, prerequisite="specialty"),
        freefall.Action("Lift", 1, prerequisite="spend_attribute", attribute="body"),
        freefall.Action("Sprint", 1, prerequisite="take_harm", harm_kind="physical"),
    ]
    d = freefall.validate_declaration(ok, **kw)
    assert d.spent == freefall.Attributes(1, 0, 0)
    assert d.harm == (freefall.HarmKind.PHYSICAL,)
    assert [a.name for a in d.resolution_order] == ["Sprint", "Lift", "Sneak", "Pick lock"]
    bad = [
        freefall.Action("Cut", 1, prerequisite="gear", gear="Cutter"),  # broken
        freefall.Action("Cut", 1, prerequisite="gear"),
        freefall.Action("Hack", 1, prerequisite="spend_attribute", attribute="mind"),  # no mind left
        freefall.Action("Lift", 1, prerequisite="spend_attribute"),
        freefall.Action("Run", 1, prerequisite="take_harm"),
    ]
    for act in bad:
        with pytest.raises(freefall.FreeFallError):
            freefall.validate_declaration([act], **kw)
    # two forced actions need two points
    with pytest.raises(freefall.FreeFallError):
        freefall.validate_declaration([ok[2], ok[2]], **kw)


def test_hacking_needs_active_program_or_specialty():
    progs = [
        freefall.Program("Spike", "spike", "steel"),
        freefall.Program("Old", "blast", "red", compromised=True),
    ]
    kw = dict(pool=5, programs=progs, specialty="Netrunning")
    freefall.validate_declaration([freefall.Action("Hack door", 2, hacking=True, program="spike")], **kw)
    freefall.validate_declaration(
        [freefall.Action("Hack door", 2, hacking=True, prerequisite="specialty")], **kw
    )
    for act in [
        freefall.Action("Hack", 1, hacking=True, program="Old"),
        freefall.Action("Hack", 1, hacking=True),
        freefall.Action("Hack", 1, hacking=True, prerequisite="spend_attribute", attribute="mind"),
        freefall.Action("Hack", 1, hacking=True, prerequisite="take_harm", harm_kind="psychic"),
    ]:
        with pytest.raises(freefall.FreeFallError):
            freefall.validate_declaration([act], **kw)


def test_resolution_is_reverse_declaration_order_and_clashes_go_by_highest_die():
    a, b, c, d = (
        freefall.Turn("A"),
        freefall.Turn("B", highest=18, clash="x"),
        freefall.Turn("C"),
        freefall.Turn("D", highest=12, clash="x"),
    )
    assert [t.label for t in freefall.resolution_order([a, freefall.Turn("B"), c, freefall.Turn("D")])] == [
        "D",
        "C",
        "B",
        "A",
    ]
    # B and D clash; B's 18 beats D's 12, so B takes D's earlier place
    assert [t.label for t in freefall.resolution_order([a, b, c, d])] == ["B", "C", "D", "A"]
    # tie: reverse order stands
    tie = freefall.Turn("B", highest=12, clash="x")
    assert [t.label for t in freefall.resolution_order([a, tie, c, d])] == ["D", "C", "B", "A"]
    with pytest.raises(RulesError):
        freefall.resolution_order([freefall.Turn("E", clash="y")])


# --- hacking ------------------------------------------------------------------


def test_hack_adds_tier_bonus_and_a_one_compromises_the_program():
    prog = freefall.Program("Needle", "spike", "chrome")
    h = freefall.hack([1, 6], 16, program=prog)
    assert h.check.successes == 1 and h.compromised
    assert h.program_after.compromised and not h.program_after.active
    clean = freefall.hack([6, 7], 16, program=prog)
    assert clean.check.outcome == "greater" and not clean.compromised
    # with the specialty and no program there is nothing to lose
    assert not freefall.hack([1], 11).compromised
    with pytest.raises(freefall.FreeFallError):
        freefall.hack([10], 11, program=h.program_after)


def test_roll_hack_and_its_odds():
    prog = freefall.Program("Lock", "pwn", "black")
    h = freefall.roll_hack(Roller(FixedFaces([1, 6, 20])), dice=3, tn=21, program=prog)
    assert h.check.faces == (1, 6, 20) and h.check.successes == 2 and h.compromised
    assert h == freefall.hack(h.check.faces, 21, program=prog)
    o = freefall.hack_odds(2, 21, program=prog)
    assert o == freefall.odds(2, 21, bonus=15)
    assert o.natural_one == 1 - Fraction(19, 20) ** 2


# --- harm protocol -------------------------------------------------------------


def test_armor_leaves_at_least_one_level_and_tags_modify():
    assert freefall.levels_after_armor(3, av=1) == 2
    assert freefall.levels_after_armor(2, av=5) == 1
    assert freefall.levels_after_armor(0, av=0) == 0
    assert freefall.levels_after_armor(3, av=2, piercing=True) == 2
    assert freefall.levels_after_armor(1, av=3, high_impact=True) == 2
    assert freefall.levels_after_armor(2, av=1, crit=True) == 3
    with pytest.raises(RulesError):
        freefall.levels_after_armor(-1)


def _slot(state, kind="physical"):
    return freefall.HarmSlot(state, kind)


def test_full_protocol_armor_mitigate_resolve():
    track = freefall.HarmTrack()
    vest = freefall.Gear("Vest", binding=1, binds="body", av=1, hardened=True)
    inc = freefall.take_hit(
        dv=5,
        kind="physical",
        track=track,
        current=freefall.Attributes(2, 3, 1),
        gear=[vest],
        av=freefall.armor_value([vest]),
    )
    assert inc.stage is freefall.Stage.MITIGATE and inc.remaining == 4
    inc = freefall.mitigate(inc, 1)
    assert inc.current == freefall.Attributes(1, 3, 1) and inc.remaining == 3
    assert inc.options == {freefall.Resolve.TEMP, freefall.Resolve.BREAK_GEAR}
    inc = freefall.resolve(inc, "temp")
    assert inc.options == {freefall.Resolve.TEMP, freefall.Resolve.PERM, freefall.Resolve.BREAK_GEAR}
    inc = freefall.resolve(inc, "perm")
    inc = freefall.resolve(inc, "break_gear", gear="vest")
    assert inc.stage is freefall.Stage.DONE and inc.remaining == 0
    assert inc.track.slots[0] == _slot("perm")
    assert inc.track.pool == 4
    assert inc.gear[0].condition is freefall.GearCondition.FAULTY
    with pytest.raises(freefall.FreeFallError):
        freefall.resolve(inc, "temp")


def test_mitigation_uses_the_matching_attribute_once():
    inc = freefall.take_hit(
        dv=2, kind="psychic", track=freefall.HarmTrack(), current=freefall.Attributes(5, 1, 5)
    )
    with pytest.raises(freefall.FreeFallError):
        freefall.mitigate(inc, 2)  # only 1 Mind
    done = freefall.mitigate(inc, 1)
    assert done.current.mind == 0 and done.remaining == 1
    with pytest.raises(freefall.FreeFallError):
        freefall.mitigate(done, 0)
    gone = freefall.mitigate(
        freefall.take_hit(
            dv=1, kind="compromise", track=freefall.HarmTrack(), current=freefall.Attributes(0, 0, 1)
        ),
        1,
    )
    assert gone.stage is freefall.Stage.DONE and gone.track == freefall.HarmTrack()


def test_forced_choice_when_all_slots_hold_temp_harm():
    track = freefall.HarmTrack((_slot("temp"),) * 3)
    knife = freefall.Gear("Knife", binding=1, binds="body")
    inc = freefall.mitigate(
        freefall.take_hit(dv=1, kind="physical", track=track, current=freefall.Attributes(), gear=[knife])
    )
    assert inc.options == {freefall.Resolve.PERM, freefall.Resolve.BREAK_GEAR}
    with pytest.raises(freefall.FreeFallError, match="permanent or break gear"):
        freefall.resolve(inc, "temp")
    after = freefall.resolve(inc, "perm", slot=2)
    assert after.track.slots[2].state is freefall.SlotState.PERM


def test_unbound_or_broken_gear_cannot_be_sacrificed_and_overwhelm():
    track = freefall.HarmTrack((_slot("perm"),) * 3)
    gear = [freefall.Gear("Coat", av=1), freefall.Gear("Knife", binding=1, binds="body", condition="broken")]
    inc = freefall.mitigate(
        freefall.take_hit(dv=2, kind="physical", track=track, current=freefall.Attributes(), gear=gear)
    )
    assert inc.options == frozenset() and inc.overwhelmed
    end = freefall.overwhelm(inc)
    assert end.unabsorbed == 2 and end.stage is freefall.Stage.DONE
    fresh = freefall.mitigate(
        freefall.take_hit(dv=1, kind="physical", track=freefall.HarmTrack(), current=freefall.Attributes())
    )
    with pytest.raises(freefall.FreeFallError):
        freefall.overwhelm(fresh)


def test_rest_clears_temp_only():
    track = freefall.HarmTrack((_slot("temp"), _slot("perm", "psychic"), _slot("temp", "compromise")))
    rested = freefall.rest(track)
    assert rested.slots == (freefall.EMPTY_SLOT, _slot("perm", "psychic"), freefall.EMPTY_SLOT)


def test_harm_slot_values_are_checked():
    with pytest.raises(freefall.FreeFallError):
        freefall.HarmSlot(freefall.SlotState.TEMP)
    with pytest.raises(freefall.FreeFallError):
        freefall.HarmSlot(freefall.SlotState.EMPTY, "physical")
    with pytest.raises(freefall.FreeFallError):
        freefall.HarmTrack((freefall.EMPTY_SLOT,) * 2)
    with pytest.raises(freefall.FreeFallError):
        freefall.HarmSlot("bruised", "physical")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["empty", "temp", "perm"]), min_size=3, max_size=3),
    st.integers(min_value=0, max_value=6),
    st.lists(st.sampled_from(["temp", "perm", "break_gear"]), max_size=8),
)
def test_protocol_never_leaves_a_bad_state(states, dv, choices):
    track = freefall.HarmTrack(
        tuple(freefall.HarmSlot(s, None if s == "empty" else "physical") for s in states)
    )
    gear = [freefall.Gear("Vest", binding=1, binds="body", hardened=True)]
    inc = freefall.take_hit(dv=dv, kind="physical", track=track, current=freefall.Attributes(), gear=gear)
    if inc.stage is freefall.Stage.MITIGATE:
        inc = freefall.mitigate(inc)
    for choice in choices:
        if inc.stage is not freefall.Stage.RESOLVE:
            break
        if inc.overwhelmed:
            inc = freefall.overwhelm(inc)
            break
        if choice in inc.options:
            before = inc.track.filled
            inc = freefall.resolve(inc, choice)
            assert inc.track.filled >= before  # harm never heals itself
        else:
            with pytest.raises(freefall.FreeFallError):
                freefall.resolve(inc, choice)
    assert 2 <= inc.track.pool <= 5
    assert inc.remaining >= 0
    if inc.track.count(freefall.SlotState.TEMP) == 3 and inc.stage is freefall.Stage.RESOLVE:
        assert freefall.Resolve.TEMP not in inc.options


def test_rules_freefall_imports_no_django():
    import subprocess
    import sys

    code = "import sys, rules.freefall; print(any(m.split('.')[0] == 'django' for m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(freefall.__file__).parents[2]),
    )
    assert out.stdout.strip() == "False"


def test_mitigation_may_spend_any_current_attribute():
    """FREE/FALL l.73 "MITIGATE: Spend Current Attributes (1-for-1)": any attribute pays, mixed freely."""
    inc = freefall.take_hit(
        dv=3, kind="physical", track=freefall.HarmTrack(), current=freefall.Attributes(1, 0, 2)
    )
    done = freefall.mitigate(inc, spend_from={"body": 1, "ghost": 2})
    assert done.current == freefall.Attributes(0, 0, 0) and done.stage is freefall.Stage.DONE
    assert done.steps[-1] == "spent 1 BODY + 2 GHOST to negate 3 level(s)"
    with pytest.raises(freefall.FreeFallError, match="MIND has only 0"):
        freefall.mitigate(inc, spend_from={"mind": 1})
    with pytest.raises(freefall.FreeFallError, match="cannot be above 3"):
        freefall.mitigate(
            freefall.take_hit(
                dv=3, kind="psychic", track=freefall.HarmTrack(), current=freefall.Attributes(5, 5, 5)
            ),
            spend_from={"body": 2, "ghost": 2},
        )
    with pytest.raises(freefall.FreeFallError, match="not both"):
        freefall.mitigate(inc, 1, spend_from={"ghost": 1})


def test_each_die_of_a_check_is_read_on_its_own():
    # FREE/FALL l.29 and l.45: every assigned die against the TN, a natural 20 always a success.
    result = freefall.check([20, 15, 16, 3], 16, bonus=0)
    assert result.made == (True, False, True, False) and result.successes == 2
    assert freefall.check([12], 16, bonus=4).made == (True,)
