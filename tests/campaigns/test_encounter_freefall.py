"""A scripted FREE/FALL fight through the services, with fixed dice, checking every number at every step."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from rules.dice import FixedFaces, Roller
from sheets.combat import EncounterError
from sheets.demo import load_demo_characters
from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.freefall.combat import combat as freefall_combat
from sheets.systems.freefall.sheet import system as freefall_sheet

from .encounter import reload


@pytest.fixture
def fight(make_campaign, gm, player, other_player):
    campaign = make_campaign("freefall", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    # Vesna Kade: BODY 5 MIND 4 GHOST 6, less binding: current 3 / 2 / 5. Carbon weave vest AV 2
    # (Hardened, binds BODY 1), Rail pistol DV 3 (Piercing), Mag-picks (binds GHOST 1). Pool 5.
    vesna = campaign.characters.get(name="Vesna Kade")
    encounter = services.encounter_create(campaign=campaign, name="Loading dock")
    services.combatant_add_character(encounter=encounter, character=vesna)
    ganger = services.combatant_add_npc(
        encounter=encounter,
        name="Ganger",
        cleaned_data={"body": 3, "mind": 2, "ghost": 2, "av": 1, "dv": 5},
    )
    return encounter, vesna, ganger


def act(encounter, gm, actor, action, *, target=None, data=None, faces=()):
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=actor.pk,
        action=action,
        target_id=target.pk if target is not None else None,
        data={f"{action}-{name}": value for name, value in (data or {}).items()},  # as the page posts it
        prefix=action,
        roller=Roller(FixedFaces(faces)),
        author=gm,
    )
    return reload(encounter)


def now(encounter):
    return services.current_actor(encounter, services.combatants_of(encounter)).name


def sheet_numbers(vesna):
    state = freefall_sheet.state(vesna)
    slots = [(s.state.value, s.kind.value if s.kind else None) for s in state.track.slots]
    return state.current.as_dict(), slots, state.pool


def feed(label):
    return FeedEntry.objects.filter(label__endswith=label).order_by("-pk").first()


def test_a_short_freefall_fight(fight, gm):
    encounter, vesna, ganger = fight
    before_fight = snapshot(vesna)

    # Round 1 opens on declarations, in the encounter's order: Vesna first, then the ganger.
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    assert (encounter.round, encounter.turn, encounter.state["phase"]) == (1, 0, "declare")
    assert now(encounter) == "Vesna Kade"
    assert feed("Round 1: declare").summary == "Everyone declares. Pools: Vesna Kade 5d20."

    # Vesna shoots the ganger with 3 of her 5 dice (the pistol is the gear that earns the roll).
    shoot = {"name": "Shoot", "dice": 3, "difficulty": "challenging", "gear": "Rail pistol"}
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "attack", target=ganger,
        data={**shoot, "prerequisite": "gear", "kind": "physical"},
    )  # fmt: skip
    assert encounter.turn == 0 and len(by["Vesna Kade"].state["declaring"]) == 1
    # 3 more dice would make 6: more than the pool.
    with pytest.raises(EncounterError, match="assigned 6 dice but your pool is only 5"):
        act(encounter, gm, by["Vesna Kade"], "task", data={"name": "Dash", "dice": 3, "difficulty": "hard"})
    encounter.refresh_from_db()
    # A plain action (anyone can run) needs no prerequisite; this fills the pool.
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "task",
        data={"name": "Dash for cover", "dice": 2, "difficulty": "challenging", "prerequisite": "plain"},
    )  # fmt: skip
    with pytest.raises(EncounterError, match="not open"):
        act(encounter, gm, by["Vesna Kade"], "task", data={"name": "Wave", "dice": 1})
    encounter.refresh_from_db()
    # The turn cannot move on with a declaration half made.
    with pytest.raises(EncounterError, match="Lock in or clear Vesna Kade's declaration"):
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter.refresh_from_db()
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare")
    assert feed("Vesna Kade declares").summary == (
        "Shoot at Ganger 3d20 vs TN 11 (gear: Rail pistol); Dash for cover 2d20 vs TN 11 "
        "(plain: no prerequisite) (5 of 5 dice)"
    )
    # Locking in moves on by itself: the ganger declares, 5 dice on its knife.
    assert (encounter.turn, now(encounter)) == (1, "Ganger")
    encounter, by = act(
        encounter, gm, by["Ganger"], "attack", target=by["Vesna Kade"],
        data={"name": "Knife", "dice": 5, "difficulty": "challenging", "kind": "physical"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Ganger"], "declare")
    assert feed("Ganger declares").visibility == "gm"  # the GM's declarations stay secret

    # Resolution: last declared first. The knife and the shot aim at each other: a clash.
    assert (encounter.turn, encounter.state["phase"]) == (2, "resolve")
    assert [(q["name"], q["clash"] is not None) for q in encounter.state["queue"]] == [
        ("Knife", True),
        ("Dash for cover", False),
        ("Shoot", True),
    ]
    assert now(encounter) == "Ganger"
    # Both clashing actions roll together: knife 16 3 17 1 9 (highest 17), shot 19 5 12 (highest 19).
    # Vesna's 19 beats 17: her shot takes the knife's place and resolves first.
    encounter, by = act(
        encounter, gm, by["Ganger"], "roll", target=by["Vesna Kade"], faces=(16, 3, 17, 1, 9, 19, 5, 12)
    )
    assert [q["name"] for q in encounter.state["queue"]] == ["Shoot", "Dash for cover", "Knife"]
    assert (
        feed("Clash").summary
        == "Highest single die acts first: Shoot at Ganger (19), then Knife at Vesna Kade (17)"
    )
    # Shot vs TN 11: 19 and 12 succeed: 2 successes, a greater success. DV 3 against AV 1, which the
    # Piercing pistol lowers to 0: 3 levels of physical harm.
    shot = feed("Vesna Kade: Shoot at Ganger")
    assert shot.result["outcome"] == "greater"
    assert shot.summary == "3d20 vs TN 11: 2 successes, greater success"
    assert [d["face"] for d in shot.result["dice"]] == [19, 5, 12]
    assert shot.result["changes"] == [
        "Ganger is hit: DV 3 against AV 1 less 1 (Piercing): 3 level(s) of physical harm"
    ]
    # Harm holds the turn: the ganger must settle it before anything else.
    assert encounter.state["pending_harm"][0]["remaining"] == 3 and now(encounter) == "Ganger"
    with pytest.raises(EncounterError, match="Ganger must take the harm first"):
        services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter.refresh_from_db()
    # It spends 1 BODY (3 -> 2) to negate a level, then takes the other two as temporary harm.
    encounter, by = act(encounter, gm, by["Ganger"], "mitigate", data={"body": 1})
    assert by["Ganger"].stats["body"] == 2 and encounter.state["pending_harm"][0]["remaining"] == 2
    encounter, by = act(encounter, gm, by["Ganger"], "resolve", data={"option": "temp"})
    encounter, by = act(encounter, gm, by["Ganger"], "resolve", data={"option": "temp"})
    assert by["Ganger"].stats["harm"] == [["temp", "physical"], ["temp", "physical"], ["empty", None]]
    assert encounter.state["pending_harm"] == []

    # The harm settled, the next action comes up: Vesna's dash, 11 and 2 against TN 11: one success.
    assert (encounter.turn, now(encounter)) == (3, "Vesna Kade")
    encounter, by = act(encounter, gm, by["Vesna Kade"], "roll", faces=(11, 2))
    dash = feed("Vesna Kade: Dash for cover")
    assert (dash.result["outcome"], dash.summary) == ("success", "2d20 vs TN 11: 1 success, success")

    # Then the knife, already rolled in the clash (no new dice): 16 and 17 succeed, greater; the 1 is a
    # complication. The ganger was hurt, but its dice were assigned before: it still rolls all 5.
    # DV 5 against the vest's AV 2: 3 levels.
    assert (encounter.turn, now(encounter)) == (4, "Ganger")
    encounter, by = act(encounter, gm, by["Ganger"], "roll", target=by["Vesna Kade"])
    knife = feed("Ganger: Knife at Vesna Kade")
    assert knife.summary == "5d20 vs TN 11: 2 successes, greater success (complication)"
    assert knife.result["changes"] == ["Vesna Kade is hit: DV 5 against AV 2: 3 level(s) of physical harm"]
    assert now(encounter) == "Vesna Kade"
    # Vesna spends 1 BODY (3 -> 2) and takes two temporary harms; each step lands on her sheet.
    encounter, by = act(encounter, gm, by["Vesna Kade"], "mitigate", data={"body": 1})
    vesna.refresh_from_db()
    assert vesna.freefall.body_spent == 1
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp"})
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp", "slot": "2"})
    vesna.refresh_from_db()
    current, slots, pool = sheet_numbers(vesna)
    assert current == {"body": 2, "mind": 2, "ghost": 5}
    assert slots == [("temp", "physical"), ("temp", "physical"), ("empty", None)]
    assert pool == 3
    assert list(
        SheetChange.objects.filter(character=vesna).values_list("reason", flat=True).order_by("pk")
    ) == [
        "Mitigated 1 harm from Knife",
        "Harm from Knife: temporary physical harm in slot 1",
        "Harm from Knife: temporary physical harm in slot 2",
    ]

    # Every action resolved: round 2, declarations again, and the pools have shrunk with the harm.
    assert (encounter.round, encounter.turn, encounter.state["phase"]) == (2, 0, "declare")
    assert feed("Round 2: declare").summary == "Everyone declares. Pools: Vesna Kade 3d20."
    with pytest.raises(EncounterError, match="assigned 4 dice but your pool is only 3"):
        act(
            encounter, gm, by["Vesna Kade"], "attack", target=ganger,
            data={**shoot, "dice": 4, "prerequisite": "gear", "kind": "physical"},
        )  # fmt: skip
    encounter.refresh_from_db()
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "attack", target=ganger,
        data={**shoot, "prerequisite": "gear", "kind": "physical"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare")
    # The ganger has two harms too: 3 dice.
    with pytest.raises(EncounterError, match="assigned 4 dice but your pool is only 3"):
        act(
            encounter, gm, by["Ganger"], "attack", target=by["Vesna Kade"],
            data={"name": "Knife", "dice": 4, "difficulty": "challenging", "kind": "physical"},
        )  # fmt: skip
    encounter.refresh_from_db()
    encounter, by = act(
        encounter, gm, by["Ganger"], "attack", target=by["Vesna Kade"],
        data={"name": "Knife", "dice": 3, "difficulty": "challenging", "kind": "physical"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Ganger"], "declare")

    # The clash again: knife 18 4 6 (highest 18) against the shot's 7 9 10 (highest 10): the knife,
    # declared last, keeps its place. 18 succeeds: DV 5 - AV 2 = 3 levels on Vesna.
    encounter, by = act(
        encounter, gm, by["Ganger"], "roll", target=by["Vesna Kade"], faces=(18, 4, 6, 7, 9, 10)
    )
    assert [q["name"] for q in encounter.state["queue"]] == ["Knife", "Shoot"]
    assert feed("Ganger: Knife at Vesna Kade").summary == "3d20 vs TN 11: 1 success, success"
    # She has only 2 BODY left: 3 cannot be spent. She keeps her BODY and takes all three levels.
    with pytest.raises(EncounterError, match=r"BODY \(2 left\)"):
        act(encounter, gm, by["Vesna Kade"], "mitigate", data={"body": 3})
    encounter.refresh_from_db()
    encounter, by = act(encounter, gm, by["Vesna Kade"], "mitigate", data={"body": 0})
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp"})
    # Every slot holds temporary harm: the forced choice. Temporary harm is refused...
    with pytest.raises(
        EncounterError, match="Every slot holds temporary harm: make one permanent or break gear"
    ):
        act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp"})
    encounter.refresh_from_db()
    # ... so she sacrifices the Hardened vest (it turns Faulty, not Broken) and makes slot 1 permanent.
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "resolve", data={"option": "break_gear", "gear": "Carbon weave vest"}
    )
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "perm", "slot": "1"})
    vesna.refresh_from_db()
    current, slots, pool = sheet_numbers(vesna)
    assert current == {"body": 2, "mind": 2, "ghost": 5}
    assert slots == [("perm", "physical"), ("temp", "physical"), ("temp", "physical")]
    assert pool == 2
    assert vesna.ff_gear.get(name="Carbon weave vest").condition == "faulty"
    assert freefall_sheet.state(vesna).armor == 2  # faulty armor still works

    # Her shot, rolled in the clash: 7, 9, 10 against 11: a failure (always a complication).
    assert now(encounter) == "Vesna Kade"
    encounter, by = act(encounter, gm, by["Vesna Kade"], "roll", target=ganger)
    miss = feed("Vesna Kade: Shoot at Ganger")
    assert (miss.result["outcome"], miss.result["changes"]) == ("failure", [])
    assert miss.summary == "3d20 vs TN 11: 0 successes, failure (complication)"

    # Round 3: three harms leave her the minimum pool of 2.
    assert (encounter.round, encounter.turn) == (3, 0)
    assert feed("Round 3: declare").summary == "Everyone declares. Pools: Vesna Kade 2d20."

    # Every change to the sheet is traced, and undoing them in reverse restores the sheet exactly.
    assert SheetChange.objects.filter(character=vesna).count() == 6
    for change in SheetChange.objects.filter(character=vesna).order_by("-pk"):
        change_undo(change=change, author=gm)
    vesna.refresh_from_db()
    assert snapshot(vesna) == before_fight


def test_pushing_limits_and_being_taken_out(fight, gm):
    encounter, vesna, ganger = fight
    # A ganger already carrying three permanent harms: nothing is left to absorb another level.
    ganger.stats = {**ganger.stats, "harm": [["perm", "physical"]] * 3}
    ganger.save()
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    # Vesna forces a lock with no gear for it by taking 1 level of psychic harm (the TAKE HARM
    # prerequisite): it lands as soon as the declaration is locked in, straight at the resolve step.
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "task",
        data={"name": "Crack the lock", "dice": 2, "difficulty": "hard", "prerequisite": "harm:psychic"},
    )  # fmt: skip
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "attack", target=ganger,
        data={"name": "Shoot", "dice": 3, "difficulty": "challenging", "gear": "Rail pistol",
              "prerequisite": "gear", "kind": "physical"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare")
    assert encounter.turn == 0 and encounter.state["pending_harm"][0]["stage"] == "resolve"
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp"})
    vesna.refresh_from_db()
    assert (vesna.freefall.harm1_state, vesna.freefall.harm1_kind) == ("temp", "psychic")
    assert encounter.turn == 1  # the ganger, with 2 dice (three harms), passes
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by = reload(encounter)
    # Last declared first: the shot (20 crits: DV 6 against AV 0 after Piercing), then the lock.
    assert [q["name"] for q in encounter.state["queue"]] == ["Shoot", "Crack the lock"]
    encounter, by = act(encounter, gm, by["Vesna Kade"], "roll", target=by["Ganger"], faces=(20, 2, 3))
    assert feed("Vesna Kade: Shoot at Ganger").result["changes"] == [
        "Ganger is hit: DV 3 doubled by the natural 20 against AV 1 less 1 (Piercing): "
        "6 level(s) of physical harm"
    ]
    encounter, by = act(encounter, gm, by["Ganger"], "mitigate", data={"body": 3})
    # 3 levels remain, and no slot or gear can take them: the ganger is out.
    assert by["Ganger"].out and by["Ganger"].stats["body"] == 0
    assert feed("Ganger is taken out").summary.startswith("3 level(s) of physical harm could not be absorbed")
    # Vesna's lock: 16 and 4 against TN 16: one success.
    assert now(encounter) == "Vesna Kade"
    encounter, by = act(encounter, gm, by["Vesna Kade"], "roll", faces=(16, 4))
    assert feed("Vesna Kade: Crack the lock").result["outcome"] == "success"
    assert (encounter.round, encounter.turn) == (2, 0)


def test_players_see_the_panel_but_not_npc_numbers(fight, gm, player, client_for):
    encounter, _, _ = fight
    url = reverse("encounter_panel", args=[encounter.campaign_id])
    gm_panel = client_for(gm).get(url).content.decode()
    player_panel = client_for(player).get(url).content.decode()
    assert "AV 1 · DV 5" in gm_panel and "Pool 5 · harm - / - / -" in gm_panel
    assert "Ganger" in player_panel and "DV 5" not in player_panel


# ----- the rules of the issue, each played through the encounter ---------------------------------


def as_shown(action, actor, combatants, encounter, *, for_player=False):
    """What the browser posts for ``action`` untouched: each initial value; with none, a list's blank
    option (Django marks it selected), else its first. The GM's calls are not on a player's form."""
    offered = {a.key: a for a in freefall_combat.actions(encounter, actor, combatants)}[action]
    form = offered.form_class(prefix=action)
    data = {}
    for field in form:
        if for_player and field.name in offered.gm_fields:
            continue
        value = field.value()
        if value is None and getattr(field.field, "choices", None):
            values = [choice for choice, _ in field.field.choices]
            value = "" if "" in values else values[0]
        if value not in (None, False):
            data[field.name] = value
    return {name.removeprefix(f"{action}-"): value for name, value in data.items()}


def test_default_encounter_forms_are_accepted_as_first_shown(fight, gm):
    """Issue, Play together 4: the attack and "Temporary harm" forms as first shown are valid (l.130:
    with every slot holding temporary harm, the form offers only B or C)."""
    encounter, vesna, ganger = fight
    vesna.ff_gear.filter(name="Rail pistol").delete()  # bare hands: no gear earns the roll
    sheet = vesna.freefall
    sheet.harm1_state = sheet.harm2_state = sheet.harm3_state = "temp"
    sheet.harm1_kind = sheet.harm2_kind = sheet.harm3_kind = "physical"
    sheet.save()
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    combatants = services.combatants_of(encounter)
    shown = as_shown("attack", by["Vesna Kade"], combatants, encounter)
    assert shown["prerequisite"] == "specialty" and shown["gear"] == ""
    encounter, by = act(encounter, gm, by["Vesna Kade"], "attack", target=ganger, data=shown)
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare")
    combatants = services.combatants_of(encounter)
    encounter, by = act(
        encounter, gm, by["Ganger"], "attack", target=by["Vesna Kade"],
        data=as_shown("attack", by["Ganger"], combatants, encounter),
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Ganger"], "declare")
    # The knife (DV 5 against AV 2) hits: 3 levels on a sheet whose three slots hold temporary harm.
    encounter, by = act(encounter, gm, by["Ganger"], "roll", target=by["Vesna Kade"], faces=(15, 3))
    combatants = services.combatants_of(encounter)
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "mitigate",
        data=as_shown("mitigate", by["Vesna Kade"], combatants, encounter),
    )  # fmt: skip
    combatants = services.combatants_of(encounter)
    shown = as_shown("resolve", by["Vesna Kade"], combatants, encounter)
    assert shown["option"] == "perm"
    # Asked for anyway (a stale page), temporary harm is refused with the rule's reason.
    with pytest.raises(EncounterError, match="Every slot holds temporary harm: make one permanent"):
        act(encounter, gm, by["Vesna Kade"], "resolve", data={"option": "temp"})
    encounter.refresh_from_db()
    encounter, by = act(encounter, gm, by["Vesna Kade"], "resolve", data=shown)
    vesna.refresh_from_db()
    assert vesna.freefall.harm1_state == "perm"


def test_rule_have_the_gear_a_weapon_attack_is_accepted_as_first_shown(fight, gm, player):
    """FREE/FALL l.19, "HAVE THE GEAR: The tool is the skill": a player's attack form, as first shown to a
    character with a weapon, names that weapon beside the "gear" prerequisite, so declaring it untouched
    is accepted (it was refused with "name the gear" while bare hands showed chosen)."""
    encounter, vesna, ganger = fight
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    shown = as_shown(
        "attack", by["Vesna Kade"], services.combatants_of(encounter), encounter, for_player=True
    )
    assert (shown["gear"], shown["prerequisite"]) == ("Rail pistol", "gear")
    services.encounter_act(
        encounter=encounter,
        version=encounter.version,
        actor_id=by["Vesna Kade"].pk,
        action="attack",
        target_id=ganger.pk,
        data={f"attack-{name}": value for name, value in shown.items()},
        prefix="attack",
        roller=Roller(FixedFaces(())),
        author=player,
    )
    encounter, by = reload(encounter)
    declaring = by["Vesna Kade"].state["declaring"]
    assert [(row["gear"], row["dv"], row["piercing"]) for row in declaring] == [("Rail pistol", 3, True)]


@pytest.fixture
def netrun(make_campaign, gm, player, other_player):
    campaign = make_campaign("freefall", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    # Osei Marr: Icebreaker (SPIKE CHROME, +10), Firewall (COUNTER RED), Puppeteer (PWN RED).
    osei = campaign.characters.get(name="Osei Marr")
    encounter = services.encounter_create(campaign=campaign, name="Server farm")
    services.combatant_add_character(encounter=encounter, character=osei)
    services.combatant_add_npc(
        encounter=encounter, name="Sentry", cleaned_data={"body": 3, "mind": 2, "ghost": 2, "av": 0, "dv": 2}
    )
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    return encounter, osei


def test_hacking_uses_the_program_its_tier_bonus_and_a_natural_1_compromises_it(netrun, gm):
    """FREE/FALL l.134: "REQ: Active Program (Binds Mind) OR Specialty. RISK: Rolling a 1 on a hacking
    die = Program Compromised (Lost for mission)"; l.152: CHROME +10."""
    encounter, osei = netrun
    encounter, by = reload(encounter)
    encounter, by = act(
        encounter, gm, by["Osei Marr"], "hack",
        data={"name": "Crack the door", "dice": 2, "difficulty": "hard", "program": "Icebreaker"},
    )  # fmt: skip
    encounter, by = act(
        encounter, gm, by["Osei Marr"], "hack",
        data={"name": "Ghost the cameras", "dice": 1, "difficulty": "challenging", "program": ""},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Osei Marr"], "declare")
    assert feed("Osei Marr declares").summary == (
        "Crack the door with Icebreaker 2d20+10 vs TN 16; Ghost the cameras by specialty 1d20 vs TN 11 "
        "(3 of 5 dice)"
    )
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)  # sentry passes
    encounter, by = reload(encounter)
    # Last declared first: the specialty hack, no bonus, 12 against 11.
    encounter, by = act(encounter, gm, by["Osei Marr"], "roll", faces=(12,))
    cameras = feed("Osei Marr: Ghost the cameras by specialty")
    assert cameras.summary == "1d20 vs TN 11: 1 success, success"
    # Icebreaker: 1 + 10 = 11 misses TN 16, 7 + 10 = 17 succeeds; the natural 1 compromises it.
    encounter, by = act(encounter, gm, by["Osei Marr"], "roll", faces=(1, 7))
    door = feed("Osei Marr: Crack the door with Icebreaker")
    assert door.summary == "2d20+10 vs TN 16: 1 success, success (complication)"
    assert door.result["changes"] == ["Icebreaker compromised (a natural 1): out for the rest of the mission"]
    assert osei.ff_programs.get(name="Icebreaker").compromised
    assert SheetChange.objects.filter(character=osei, reason="Icebreaker compromised (a natural 1)").exists()
    # Round 2: Icebreaker is lost for the mission: no longer offered, and refused if asked for.
    encounter, by = reload(encounter)
    assert encounter.round == 2
    hack = next(
        a for a in freefall_combat.actions(encounter, by["Osei Marr"], services.combatants_of(encounter))
        if a.key == "hack"
    )  # fmt: skip
    assert "Icebreaker" not in dict(hack.form_class().fields["program"].choices)
    with pytest.raises(EncounterError, match="Program: Select a valid choice"):
        act(
            encounter, gm, by["Osei Marr"], "hack",
            data={"name": "Again", "dice": 1, "difficulty": "hard", "program": "Icebreaker"},
        )  # fmt: skip


def test_rule_active_program_a_hack_shows_the_first_running_program(netrun, gm):
    """FREE/FALL l.134, "REQ: Active Program ... OR Specialty": the hack form as first shown uses the first
    running program (its tier bonus), not the specialty; a compromised one is not offered."""
    encounter, osei = netrun
    osei.ff_programs.filter(name="Firewall").update(compromised=True)
    encounter, by = reload(encounter)
    shown = as_shown("hack", by["Osei Marr"], services.combatants_of(encounter), encounter)
    first_running = next(p.name for p in osei.ff_programs.all() if not p.compromised)
    assert shown["program"] == first_running != "Firewall"


def test_a_program_compromised_earlier_in_the_round_cannot_run_its_second_hack(netrun, gm):
    """FREE/FALL l.134: a compromised program is "Lost for mission", even for a hack already declared."""
    encounter, osei = netrun
    encounter, by = reload(encounter)
    for name in ("First probe", "Second probe"):
        encounter, by = act(
            encounter, gm, by["Osei Marr"], "hack",
            data={"name": name, "dice": 1, "difficulty": "challenging", "program": "Firewall"},
        )  # fmt: skip
    encounter, by = act(encounter, gm, by["Osei Marr"], "declare")
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by = reload(encounter)
    encounter, by = act(encounter, gm, by["Osei Marr"], "roll", faces=(1,))  # the second probe, first
    assert osei.ff_programs.get(name="Firewall").compromised
    encounter, by = act(encounter, gm, by["Osei Marr"], "roll", faces=(20,))
    assert feed("Osei Marr: First probe").summary == "Firewall is compromised or gone: the hack cannot run."


def test_resolution_follows_the_declared_order_the_gm_sets(fight, gm):
    """FREE/FALL l.9 "Everyone declares actions simultaneously", l.51 "Actions resolve in Reverse Order
    of Declaration (Last declared acts first)": the GM sets who declares first, not the order of adding."""
    encounter, vesna, ganger = fight
    # Vesna was added first; the GM moves the ganger up before the fight.
    services.combatant_move(
        encounter=encounter, version=encounter.version, combatant_id=ganger.pk, direction="up", author=gm
    )
    encounter.refresh_from_db()
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    assert now(encounter) == "Ganger"
    encounter, by = act(
        encounter,
        gm,
        by["Ganger"],
        "task",
        data={"name": "Shout for help", "dice": 2, "difficulty": "challenging"},
    )
    encounter, by = act(encounter, gm, by["Ganger"], "declare")
    encounter, by = act(
        encounter, gm, by["Vesna Kade"], "task",
        data={"name": "Run", "dice": 2, "difficulty": "challenging", "prerequisite": "plain"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Vesna Kade"], "declare")
    # Vesna declared last, so she resolves first.
    assert [q["name"] for q in encounter.state["queue"]] == ["Run", "Shout for help"]
    # Mid-round the order is fixed.
    with pytest.raises(EncounterError, match="cannot be changed now"):
        services.combatant_move(
            encounter=encounter,
            version=encounter.version,
            combatant_id=ganger.pk,
            direction="down",
            author=gm,
        )
    encounter.refresh_from_db()
    encounter, by = act(encounter, gm, by["Vesna Kade"], "roll", faces=(3, 4))
    encounter, by = act(encounter, gm, by["Ganger"], "roll", faces=(3, 4))
    # As round 2 opens, before anyone declares, the GM puts the ganger last: it now declares last.
    assert (encounter.round, now(encounter)) == (2, "Ganger")
    services.combatant_move(
        encounter=encounter, version=encounter.version, combatant_id=ganger.pk, direction="down", author=gm
    )
    encounter, by = reload(encounter)
    assert now(encounter) == "Vesna Kade"
    assert feed("Round 2: declaration order").summary == (
        "Vesna Kade then Ganger (the last to declare resolves first)."
    )
    with pytest.raises(EncounterError, match="Ganger is already last"):
        services.combatant_move(
            encounter=encounter,
            version=encounter.version,
            combatant_id=ganger.pk,
            direction="down",
            author=gm,
        )


def test_the_gm_moves_a_combatant_from_the_encounter_page(fight, gm, client_for):
    """FREE/FALL l.51: the declaration order is set on the encounter page, with plain forms (no script)."""
    encounter, vesna, ganger = fight
    client = client_for(gm)
    page = client.get(encounter.get_absolute_url()).content.decode()
    assert f'aria-label="Move {ganger.name} up"' in page
    url = reverse("encounter_action", args=[encounter.campaign_id, encounter.pk, "move"])
    client.post(url, {"version": encounter.version, "combatant": ganger.pk, "direction": "up"})
    assert [c.name for c in services.combatants_of(encounter)] == ["Ganger", "Vesna Kade"]
    response = client.post(
        url, {"version": encounter.version + 1, "combatant": ganger.pk, "direction": "sideways"}, follow=True
    )
    assert "Direction: Select a valid choice" in response.content.decode()
    assert [c.name for c in services.combatants_of(encounter)] == ["Ganger", "Vesna Kade"]
    # Running: the arrows stay while the round opens, beside the hack form; once a declaration starts
    # they are gone.
    encounter.refresh_from_db()
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    page = client.get(encounter.get_absolute_url()).content.decode()
    assert "Move Ganger down" in page and "Declare an attack" in page
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by = reload(encounter)
    page = client.get(encounter.get_absolute_url()).content.decode()
    assert "Declare a hack" in page and 'name="hack-program"' in page
    act(
        encounter,
        gm,
        by["Vesna Kade"],
        "task",
        data={"name": "Run", "dice": 1, "difficulty": "hard", "prerequisite": "plain"},
    )
    assert "Move Ganger down" not in client.get(encounter.get_absolute_url()).content.decode()


def test_mitigation_spends_any_current_attribute(fight, gm):
    """FREE/FALL l.73 "MITIGATE: Spend Current Attributes (1-for-1) to negate remaining levels": any
    current attribute pays, mixed freely (docs/rules.md gives the reading)."""
    encounter, vesna, ganger = fight
    services.encounter_start(encounter=encounter, version=encounter.version, roller=Roller(), author=gm)
    encounter, by = reload(encounter)
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    encounter, by = reload(encounter)
    encounter, by = act(
        encounter, gm, by["Ganger"], "attack", target=by["Vesna Kade"],
        data={"name": "Knife", "dice": 2, "difficulty": "challenging", "kind": "physical"},
    )  # fmt: skip
    encounter, by = act(encounter, gm, by["Ganger"], "declare")
    # DV 5 against AV 2: 3 levels of physical harm. Vesna pays 1 BODY and 2 GHOST.
    encounter, by = act(encounter, gm, by["Ganger"], "roll", target=by["Vesna Kade"], faces=(14, 2))
    encounter, by = act(encounter, gm, by["Vesna Kade"], "mitigate", data={"body": 1, "ghost": 2})
    assert (
        feed("Vesna Kade mitigates").summary == "Spends 1 BODY + 2 GHOST against 3 level(s) of physical harm."
    )
    vesna.refresh_from_db()
    current, slots, _ = sheet_numbers(vesna)
    assert current == {"body": 2, "mind": 2, "ghost": 3} and slots[0] == ("empty", None)
    assert encounter.state["pending_harm"] == []
