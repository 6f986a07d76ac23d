"""FREE/FALL A5: every rule in the seed, the exact odds, and the harm protocol."""

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import freefall as ff
from rules.dice import FixedFaces, Roller, RulesError

TNS = st.integers(min_value=1, max_value=30)
BONUSES = st.sampled_from([0, 5, 10, 15])
NDICE = st.integers(min_value=1, max_value=5)


# --- pool ------------------------------------------------------------------


def test_pool_is_five_less_one_per_filled_slot_never_under_two():
    assert [ff.pool(n) for n in range(4)] == [5, 4, 3, 2]
    assert ff.BASE_POOL == 5 and ff.MIN_POOL == 2 and ff.HARM_SLOTS == 3


@pytest.mark.parametrize("bad", [-1, 4, 1.5, True, "2"])
def test_pool_rejects_impossible_slot_counts(bad):
    with pytest.raises(ValueError):
        ff.pool(bad)


def test_harm_track_pool_counts_temp_and_perm():
    temp = ff.HarmSlot(ff.SlotState.TEMP, ff.HarmKind.PHYSICAL)
    perm = ff.HarmSlot(ff.SlotState.PERM, ff.HarmKind.PSYCHIC)
    assert ff.HarmTrack().pool == 5
    assert ff.HarmTrack((temp, ff.EMPTY_SLOT, ff.EMPTY_SLOT)).pool == 4
    assert ff.HarmTrack((temp, perm, ff.EMPTY_SLOT)).pool == 3
    assert ff.HarmTrack((temp, perm, temp)).pool == 2


# --- target numbers and the check -------------------------------------------


def test_tn_tiers():
    assert ff.Difficulty.CHALLENGING.tn == 11
    assert ff.Difficulty.HARD.tn == 16
    assert ff.Difficulty.NEAR_IMPOSSIBLE.tn == 21


def test_zero_successes_is_failure_with_complication():
    r = ff.check([3, 10], 11)
    assert (r.successes, r.outcome, r.complication, r.crit) == (0, "failure", True, False)


def test_one_success_is_basic_success():
    r = ff.check([11, 10], 11)
    assert (r.successes, r.outcome, r.complication) == (1, "success", False)


def test_two_successes_is_greater():
    r = ff.check([11, 19, 2], 11)
    assert (r.successes, r.outcome) == (2, "greater")


def test_natural_20_always_succeeds_and_crits():
    r = ff.check([20], 21)
    assert (r.successes, r.outcome, r.crit) == (1, "success", True)
    assert ff.check([20, 20], 40).outcome == "greater"
    # a 19 can never make TN 21 unaided
    assert ff.check([19], 21).outcome == "failure"


def test_natural_1_complicates_in_conflict_only():
    r = ff.check([1, 18], 16)
    assert r.outcome == "success" and r.complication
    assert not ff.check([1, 18], 16, conflict=False).complication
    # failure complicates regardless
    assert ff.check([1, 2], 16, conflict=False).complication


def test_bonus_adds_to_every_die():
    assert ff.check([6, 6], 21, bonus=15).successes == 2
    assert ff.check([5], 21, bonus=15).successes == 0
    # a 1 can succeed with a big enough bonus but still complicates
    r = ff.check([1], 11, bonus=10)
    assert r.successes == 1 and r.complication


@pytest.mark.parametrize(
    "dice, tn, bonus",
    [([], 11, 0), ([1] * 6, 11, 0), ([0], 11, 0), ([21], 11, 0), ([5], 0, 0), ([5], 11, -1), ([5], 11.0, 0)],
)
def test_check_rejects_bad_arguments(dice, tn, bonus):
    with pytest.raises(RulesError):
        ff.check(dice, tn, bonus=bonus)


def test_roll_check_replays_through_check():
    r = ff.roll_check(Roller(FixedFaces([20, 1, 12])), dice=3, tn=16)
    assert r.faces == (20, 1, 12)
    assert r == ff.check(r.faces, 16)
    assert r.highest == 20 and r.natural_ones == 1


def test_roll_check_refuses_more_than_five_dice():
    with pytest.raises(RulesError):
        ff.roll_check(Roller(random.Random(1)), dice=6, tn=11)


# --- exact odds -------------------------------------------------------------


def test_die_chance_values():
    assert ff.die_chance(11) == Fraction(1, 2)
    assert ff.die_chance(16) == Fraction(1, 4)
    assert ff.die_chance(21) == Fraction(1, 20)  # only the natural 20
    assert ff.die_chance(21, bonus=15) == Fraction(3, 4)
    assert ff.die_chance(1) == 1
    assert ff.die_chance(99) == Fraction(1, 20)


def test_chance_matches_hand_figures():
    assert ff.chance(1, 11) == {"failure": Fraction(1, 2), "success": Fraction(1, 2), "greater": 0}
    quarter, half = Fraction(1, 4), Fraction(1, 2)
    assert ff.chance(2, 11) == {"failure": quarter, "success": half, "greater": quarter}
    assert ff.chance(5, 21)["failure"] == Fraction(19, 20) ** 5


def _brute(n, tn, bonus, conflict=True):
    counts = {"failure": 0, "success": 0, "greater": 0}
    crit = comp = one = 0
    for faces in itertools.product(range(1, 21), repeat=n):
        r = ff.check(faces, tn, bonus=bonus, conflict=conflict)
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
    o = ff.odds(n, tn, bonus=bonus, conflict=conflict)
    outcomes, crit, comp, one = _brute(n, tn, bonus, conflict)
    assert o.outcomes == outcomes
    assert (o.crit, o.complication, o.natural_one) == (crit, comp, one)


@settings(max_examples=150, deadline=None)
@given(NDICE, TNS, BONUSES)
def test_outcome_odds_sum_to_one(n, tn, bonus):
    c = ff.chance(n, tn, bonus=bonus)
    assert set(c) == set(ff.OUTCOMES)
    assert sum(c.values()) == 1
    assert all(0 <= v <= 1 for v in c.values())
    assert sum(ff.successes_distribution(n, tn, bonus=bonus).values()) == 1


@settings(max_examples=150, deadline=None)
@given(NDICE, TNS, BONUSES)
def test_better_numbers_never_lower_the_chance(n, tn, bonus):
    base = ff.odds(n, tn, bonus=bonus)
    easier = ff.odds(n, tn - 1, bonus=bonus) if tn > 1 else base
    stronger = ff.odds(n, tn, bonus=bonus + 5)
    for better in (easier, stronger):
        assert better.at_least_success >= base.at_least_success
        assert better.outcomes["greater"] >= base.outcomes["greater"]
    if n < 5:
        more = ff.odds(n + 1, tn, bonus=bonus)
        assert more.at_least_success >= base.at_least_success
        assert more.outcomes["greater"] >= base.outcomes["greater"]  # focus pays


def test_frequencies_of_the_real_roller_match_exact_odds():
    rng = random.Random(20240501)
    roller_trials = 4000
    for n, tn, bonus in [(1, 11, 0), (3, 16, 0), (5, 21, 5)]:
        exact = ff.chance(n, tn, bonus=bonus)
        seen = {k: 0 for k in ff.OUTCOMES}
        for _ in range(roller_trials):
            seen[ff.roll_check(Roller(rng), dice=n, tn=tn, bonus=bonus).outcome] += 1
        for k, p in exact.items():
            sigma = math.sqrt(roller_trials * p * (1 - p)) or 1
            assert abs(seen[k] - roller_trials * p) <= 5 * sigma, (n, tn, bonus, k)


# --- attributes --------------------------------------------------------------


def test_attributes_and_spending():
    cur = ff.Attributes(body=2, mind=1, ghost=0)
    assert ff.spend(cur, "body") == ff.Attributes(1, 1, 0)
    assert ff.spend(cur, ff.Attribute.MIND, 1).mind == 0
    with pytest.raises(ff.FreeFallError) as e:
        ff.spend(cur, "ghost")
    assert e.value.field == "ghost"
    with pytest.raises(RulesError):
        ff.spend(cur, "luck")


# --- programs and gear --------------------------------------------------------


def test_program_tiers_bonus_and_binding():
    table = {t: (t.bonus, t.binding) for t in ff.ProgramTier}
    assert table == {
        ff.ProgramTier.RED: (0, 1),
        ff.ProgramTier.STEEL: (5, 2),
        ff.ProgramTier.CHROME: (10, 3),
        ff.ProgramTier.BLACK: (15, 4),
    }


@pytest.mark.parametrize("ptype, mult", [("spike", 1), ("blast", 1), ("counter", 2), ("pwn", 2)])
def test_counter_and_pwn_bind_double(ptype, mult):
    for tier in ff.ProgramTier:
        assert ff.program_binding(ptype, tier) == tier.binding * mult
        assert ff.Program("p", ptype, tier).binding == tier.binding * mult


def test_programs_bind_mind():
    progs = [ff.Program("Needle", "spike", "chrome"), ff.Program("Wall", "counter", "red")]
    assert ff.binding((), progs) == ff.Attributes(0, 5, 0)


def test_hardened_gear_goes_faulty_before_broken_and_binding_remains():
    vest = ff.Gear("Vest", binding=1, binds="body", av=2, hardened=True)
    faulty = ff.break_gear(vest)
    assert faulty.condition is ff.GearCondition.FAULTY and faulty.usable
    broken = ff.break_gear(faulty)
    assert broken.condition is ff.GearCondition.BROKEN and not broken.usable
    assert ff.binding([broken]) == ff.binding([vest]) == ff.Attributes(1, 0, 0)
    assert ff.break_gear(ff.Gear("Knife", binding=1, binds="body")).condition is ff.GearCondition.BROKEN
    with pytest.raises(RulesError):
        ff.break_gear(broken)


def test_repair_gear_refuses_an_intact_item():
    """FREE/FALL l.126: only a broken (or faulty) item has anything to repair."""
    vest = ff.Gear("Vest", binding=1, binds="body", av=2, hardened=True)
    assert ff.repair_gear(ff.break_gear(ff.break_gear(vest))) == vest
    assert ff.repair_gear(ff.break_gear(vest)).condition is ff.GearCondition.INTACT
    with pytest.raises(RulesError, match="nothing to repair"):
        ff.repair_gear(vest)


def test_load_bearing_negates_binding_of_attached_items():
    rig = ff.Gear("Rig", binding=1, binds="body", load_bearing=2)
    gun = ff.Gear("Gun", binding=1, binds="body", attached_to="rig")
    scope = ff.Gear("Scope", binding=2, binds="mind", attached_to="Rig")
    loose = ff.Gear("Drone", binding=1, binds="mind")
    # relief 2: gun 1 -> 0, scope 2 -> 1; the rig's own binding and the loose drone still count
    assert ff.binding([rig, gun, scope, loose]) == ff.Attributes(body=1, mind=2, ghost=0)


def test_gear_tags_and_armor_value():
    g = ff.Gear("Maul", binding=2, binds="body", dv=3, high_impact=True, piercing=True, hardened=True)
    assert g.tags == (
        ff.GearTag.ATTRIBUTE_BINDING,
        ff.GearTag.HIGH_IMPACT,
        ff.GearTag.PIERCING,
        ff.GearTag.HARDENED,
    )
    assert set(ff.GEAR_TAGS) == set(ff.GearTag)
    coat = ff.Gear("Coat", av=1)
    plate = ff.Gear("Plate", av=3, condition="broken")
    assert ff.armor_value([coat, plate]) == 1
    assert ff.armor_value([]) == 0


# --- builder -----------------------------------------------------------------


def _build(**kw):
    args = dict(
        permanent={"body": 3, "mind": 4, "ghost": 2}, character_class="Ghostrunner", specialty="Infiltration"
    )
    args.update(kw)
    return ff.validate_build(**args)


def test_build_current_max_is_permanent_less_binding():
    b = _build(
        gear=[ff.Gear("Mag-picks", binding=1, binds="ghost")], programs=[ff.Program("Lockjaw", "pwn", "red")]
    )
    assert b.binding == ff.Attributes(0, 2, 1)
    assert b.current_max == ff.Attributes(3, 2, 1)
    assert b.current_max == ff.current_max(b.permanent, b.gear, b.programs)


def test_build_may_bind_an_attribute_down_to_zero_but_not_below():
    assert _build(programs=[ff.Program("Ice", "counter", "steel")]).current_max.mind == 0
    with pytest.raises(RulesError) as e:
        _build(programs=[ff.Program("Ice", "counter", "steel"), ff.Program("Pin", "spike", "red")])
    assert e.value.field == "mind"
    with pytest.raises(RulesError) as e:
        _build(gear=[ff.Gear("Exo", binding=4, binds="body")])
    assert e.value.field == "body"


@pytest.mark.parametrize(
    "kw, field",
    [
        ({"permanent": {"body": 3, "mind": 4}}, "ghost"),
        ({"permanent": {"body": -1, "mind": 4, "ghost": 2}}, "body"),
        ({"permanent": {"body": 3, "mind": 4, "ghost": 2, "luck": 1}}, "luck"),
        ({"character_class": " "}, "character_class"),
        ({"specialty": ""}, "specialty"),
        ({"gear": [ff.Gear("Rope", binding=1)]}, "gear"),
        ({"gear": [ff.Gear("Gun", attached_to="Rig")]}, "gear"),
        ({"gear": [ff.Gear("Gun"), ff.Gear("gun")]}, "gear"),
        ({"gear": [ff.Gear("Gun", av=-1)]}, "gear"),
        ({"programs": ["Needle"]}, "programs"),
    ],
)
def test_build_errors_name_the_field(kw, field):
    with pytest.raises(ff.FreeFallError) as e:
        _build(**kw)
    assert e.value.field == field


def test_bad_program_type_is_refused_with_field():
    with pytest.raises(ff.FreeFallError) as e:
        ff.Program("x", "virus", "red")
    assert e.value.field == "programs"


# --- declaration, prerequisites and order ----------------------------------------


def test_declaration_assigns_at_least_one_die_and_never_more_than_pool():
    acts = [ff.Action("Talk", 2, specialized=False), ff.Action("Walk", 2, specialized=False)]
    d = ff.validate_declaration(acts, pool=5)
    assert d.dice_assigned == 4
    with pytest.raises(ff.FreeFallError) as e:
        ff.validate_declaration(acts, pool=3)
    assert e.value.field == "actions"
    with pytest.raises(ff.FreeFallError) as e:
        ff.validate_declaration([ff.Action("Talk", 0, specialized=False)], pool=5)
    assert e.value.field == "actions[0]"
    with pytest.raises(ff.FreeFallError):
        ff.validate_declaration([], pool=5)


def test_specialized_actions_need_one_of_four_prerequisites():
    gear = [ff.Gear("Mag-picks"), ff.Gear("Cutter", condition="broken")]
    cur = ff.Attributes(1, 0, 0)
    kw = dict(pool=5, current=cur, gear=gear, specialty="Infiltration")
    with pytest.raises(ff.FreeFallError, match="gear, the specialty"):
        ff.validate_declaration([ff.Action("Pick lock", 1)], **kw)
    ok = [
        ff.Action("Pick lock", 1, prerequisite="gear", gear="mag-picks"),
        ff.Action("Sneak", 1, prerequisite="specialty"),
        ff.Action("Lift", 1, prerequisite="spend_attribute", attribute="body"),
        ff.Action("Sprint", 1, prerequisite="take_harm", harm_kind="physical"),
    ]
    d = ff.validate_declaration(ok, **kw)
    assert d.spent == ff.Attributes(1, 0, 0)
    assert d.harm == (ff.HarmKind.PHYSICAL,)
    assert [a.name for a in d.resolution_order] == ["Sprint", "Lift", "Sneak", "Pick lock"]
    bad = [
        ff.Action("Cut", 1, prerequisite="gear", gear="Cutter"),  # broken
        ff.Action("Cut", 1, prerequisite="gear"),
        ff.Action("Hack", 1, prerequisite="spend_attribute", attribute="mind"),  # no mind left
        ff.Action("Lift", 1, prerequisite="spend_attribute"),
        ff.Action("Run", 1, prerequisite="take_harm"),
    ]
    for act in bad:
        with pytest.raises(ff.FreeFallError):
            ff.validate_declaration([act], **kw)
    # two forced actions need two points
    with pytest.raises(ff.FreeFallError):
        ff.validate_declaration([ok[2], ok[2]], **kw)


def test_hacking_needs_active_program_or_specialty():
    progs = [ff.Program("Spike", "spike", "steel"), ff.Program("Old", "blast", "red", compromised=True)]
    kw = dict(pool=5, programs=progs, specialty="Netrunning")
    ff.validate_declaration([ff.Action("Hack door", 2, hacking=True, program="spike")], **kw)
    ff.validate_declaration([ff.Action("Hack door", 2, hacking=True, prerequisite="specialty")], **kw)
    for act in [
        ff.Action("Hack", 1, hacking=True, program="Old"),
        ff.Action("Hack", 1, hacking=True),
        ff.Action("Hack", 1, hacking=True, prerequisite="spend_attribute", attribute="mind"),
        ff.Action("Hack", 1, hacking=True, prerequisite="take_harm", harm_kind="psychic"),
    ]:
        with pytest.raises(ff.FreeFallError):
            ff.validate_declaration([act], **kw)


def test_resolution_is_reverse_declaration_order_and_clashes_go_by_highest_die():
    a, b, c, d = (
        ff.Turn("A"),
        ff.Turn("B", highest=18, clash="x"),
        ff.Turn("C"),
        ff.Turn("D", highest=12, clash="x"),
    )
    assert [t.label for t in ff.resolution_order([a, ff.Turn("B"), c, ff.Turn("D")])] == ["D", "C", "B", "A"]
    # B and D clash; B's 18 beats D's 12, so B takes D's earlier place
    assert [t.label for t in ff.resolution_order([a, b, c, d])] == ["B", "C", "D", "A"]
    # tie: reverse order stands
    tie = ff.Turn("B", highest=12, clash="x")
    assert [t.label for t in ff.resolution_order([a, tie, c, d])] == ["D", "C", "B", "A"]
    with pytest.raises(RulesError):
        ff.resolution_order([ff.Turn("E", clash="y")])


# --- hacking ------------------------------------------------------------------


def test_hack_adds_tier_bonus_and_a_one_compromises_the_program():
    prog = ff.Program("Needle", "spike", "chrome")
    h = ff.hack([1, 6], 16, program=prog)
    assert h.check.successes == 1 and h.compromised
    assert h.program_after.compromised and not h.program_after.active
    clean = ff.hack([6, 7], 16, program=prog)
    assert clean.check.outcome == "greater" and not clean.compromised
    # with the specialty and no program there is nothing to lose
    assert not ff.hack([1], 11).compromised
    with pytest.raises(ff.FreeFallError):
        ff.hack([10], 11, program=h.program_after)


def test_roll_hack_and_its_odds():
    prog = ff.Program("Lock", "pwn", "black")
    h = ff.roll_hack(Roller(FixedFaces([1, 6, 20])), dice=3, tn=21, program=prog)
    assert h.check.faces == (1, 6, 20) and h.check.successes == 2 and h.compromised
    assert h == ff.hack(h.check.faces, 21, program=prog)
    o = ff.hack_odds(2, 21, program=prog)
    assert o == ff.odds(2, 21, bonus=15)
    assert o.natural_one == 1 - Fraction(19, 20) ** 2


# --- harm protocol -------------------------------------------------------------


def test_armor_leaves_at_least_one_level_and_tags_modify():
    assert ff.levels_after_armor(3, av=1) == 2
    assert ff.levels_after_armor(2, av=5) == 1
    assert ff.levels_after_armor(0, av=0) == 0
    assert ff.levels_after_armor(3, av=2, piercing=True) == 2
    assert ff.levels_after_armor(1, av=3, high_impact=True) == 2
    assert ff.levels_after_armor(2, av=1, crit=True) == 3
    with pytest.raises(RulesError):
        ff.levels_after_armor(-1)


def _slot(state, kind="physical"):
    return ff.HarmSlot(state, kind)


def test_full_protocol_armor_mitigate_resolve():
    track = ff.HarmTrack()
    vest = ff.Gear("Vest", binding=1, binds="body", av=1, hardened=True)
    inc = ff.take_hit(
        dv=5,
        kind="physical",
        track=track,
        current=ff.Attributes(2, 3, 1),
        gear=[vest],
        av=ff.armor_value([vest]),
    )
    assert inc.stage is ff.Stage.MITIGATE and inc.remaining == 4
    inc = ff.mitigate(inc, 1)
    assert inc.current == ff.Attributes(1, 3, 1) and inc.remaining == 3
    assert inc.options == {ff.Resolve.TEMP, ff.Resolve.BREAK_GEAR}
    inc = ff.resolve(inc, "temp")
    assert inc.options == {ff.Resolve.TEMP, ff.Resolve.PERM, ff.Resolve.BREAK_GEAR}
    inc = ff.resolve(inc, "perm")
    inc = ff.resolve(inc, "break_gear", gear="vest")
    assert inc.stage is ff.Stage.DONE and inc.remaining == 0
    assert inc.track.slots[0] == _slot("perm")
    assert inc.track.pool == 4
    assert inc.gear[0].condition is ff.GearCondition.FAULTY
    with pytest.raises(ff.FreeFallError):
        ff.resolve(inc, "temp")


def test_mitigation_uses_the_matching_attribute_once():
    inc = ff.take_hit(dv=2, kind="psychic", track=ff.HarmTrack(), current=ff.Attributes(5, 1, 5))
    with pytest.raises(ff.FreeFallError):
        ff.mitigate(inc, 2)  # only 1 Mind
    done = ff.mitigate(inc, 1)
    assert done.current.mind == 0 and done.remaining == 1
    with pytest.raises(ff.FreeFallError):
        ff.mitigate(done, 0)
    gone = ff.mitigate(
        ff.take_hit(dv=1, kind="compromise", track=ff.HarmTrack(), current=ff.Attributes(0, 0, 1)), 1
    )
    assert gone.stage is ff.Stage.DONE and gone.track == ff.HarmTrack()


def test_forced_choice_when_all_slots_hold_temp_harm():
    track = ff.HarmTrack((_slot("temp"),) * 3)
    knife = ff.Gear("Knife", binding=1, binds="body")
    inc = ff.mitigate(ff.take_hit(dv=1, kind="physical", track=track, current=ff.Attributes(), gear=[knife]))
    assert inc.options == {ff.Resolve.PERM, ff.Resolve.BREAK_GEAR}
    with pytest.raises(ff.FreeFallError, match="permanent or break gear"):
        ff.resolve(inc, "temp")
    after = ff.resolve(inc, "perm", slot=2)
    assert after.track.slots[2].state is ff.SlotState.PERM


def test_unbound_or_broken_gear_cannot_be_sacrificed_and_overwhelm():
    track = ff.HarmTrack((_slot("perm"),) * 3)
    gear = [ff.Gear("Coat", av=1), ff.Gear("Knife", binding=1, binds="body", condition="broken")]
    inc = ff.mitigate(ff.take_hit(dv=2, kind="physical", track=track, current=ff.Attributes(), gear=gear))
    assert inc.options == frozenset() and inc.overwhelmed
    end = ff.overwhelm(inc)
    assert end.unabsorbed == 2 and end.stage is ff.Stage.DONE
    fresh = ff.mitigate(ff.take_hit(dv=1, kind="physical", track=ff.HarmTrack(), current=ff.Attributes()))
    with pytest.raises(ff.FreeFallError):
        ff.overwhelm(fresh)


def test_rest_clears_temp_only():
    track = ff.HarmTrack((_slot("temp"), _slot("perm", "psychic"), _slot("temp", "compromise")))
    rested = ff.rest(track)
    assert rested.slots == (ff.EMPTY_SLOT, _slot("perm", "psychic"), ff.EMPTY_SLOT)


def test_harm_slot_values_are_checked():
    with pytest.raises(ff.FreeFallError):
        ff.HarmSlot(ff.SlotState.TEMP)
    with pytest.raises(ff.FreeFallError):
        ff.HarmSlot(ff.SlotState.EMPTY, "physical")
    with pytest.raises(ff.FreeFallError):
        ff.HarmTrack((ff.EMPTY_SLOT,) * 2)
    with pytest.raises(ff.FreeFallError):
        ff.HarmSlot("bruised", "physical")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["empty", "temp", "perm"]), min_size=3, max_size=3),
    st.integers(min_value=0, max_value=6),
    st.lists(st.sampled_from(["temp", "perm", "break_gear"]), max_size=8),
)
def test_protocol_never_leaves_a_bad_state(states, dv, choices):
    track = ff.HarmTrack(tuple(ff.HarmSlot(s, None if s == "empty" else "physical") for s in states))
    gear = [ff.Gear("Vest", binding=1, binds="body", hardened=True)]
    inc = ff.take_hit(dv=dv, kind="physical", track=track, current=ff.Attributes(), gear=gear)
    if inc.stage is ff.Stage.MITIGATE:
        inc = ff.mitigate(inc)
    for choice in choices:
        if inc.stage is not ff.Stage.RESOLVE:
            break
        if inc.overwhelmed:
            inc = ff.overwhelm(inc)
            break
        if choice in inc.options:
            before = inc.track.filled
            inc = ff.resolve(inc, choice)
            assert inc.track.filled >= before  # harm never heals itself
        else:
            with pytest.raises(ff.FreeFallError):
                ff.resolve(inc, choice)
    assert 2 <= inc.track.pool <= 5
    assert inc.remaining >= 0
    if inc.track.count(ff.SlotState.TEMP) == 3 and inc.stage is ff.Stage.RESOLVE:
        assert ff.Resolve.TEMP not in inc.options


def test_rules_freefall_imports_no_django():
    import subprocess
    import sys

    code = "import sys, rules.freefall; print(any(m.split('.')[0] == 'django' for m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(__import__("pathlib").Path(ff.__file__).parents[1]),
    )
    assert out.stdout.strip() == "False"


def test_mitigation_may_spend_any_current_attribute():
    """FREE/FALL l.73 "MITIGATE: Spend Current Attributes (1-for-1)": any attribute pays, mixed freely."""
    inc = ff.take_hit(dv=3, kind="physical", track=ff.HarmTrack(), current=ff.Attributes(1, 0, 2))
    done = ff.mitigate(inc, spend_from={"body": 1, "ghost": 2})
    assert done.current == ff.Attributes(0, 0, 0) and done.stage is ff.Stage.DONE
    assert done.steps[-1] == "spent 1 BODY + 2 GHOST to negate 3 level(s)"
    with pytest.raises(ff.FreeFallError, match="MIND has only 0"):
        ff.mitigate(inc, spend_from={"mind": 1})
    with pytest.raises(ff.FreeFallError, match="cannot be above 3"):
        ff.mitigate(
            ff.take_hit(dv=3, kind="psychic", track=ff.HarmTrack(), current=ff.Attributes(5, 5, 5)),
            spend_from={"body": 2, "ghost": 2},
        )
    with pytest.raises(ff.FreeFallError, match="not both"):
        ff.mitigate(inc, 1, spend_from={"ghost": 1})
