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
from sheets.systems.freefall.sheet import system as freefall_sheet


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


def reload(encounter):
    encounter.refresh_from_db()
    return encounter, {c.name: c for c in encounter.combatants.all()}


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
        "Shoot at Ganger 3d20 vs TN 11; Dash for cover 2d20 vs TN 11 (5 of 5 dice)"
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
    encounter, by = act(encounter, gm, by["Ganger"], "mitigate", data={"points": 1})
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
    encounter, by = act(encounter, gm, by["Vesna Kade"], "mitigate", data={"points": 1})
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
    with pytest.raises(EncounterError, match="BODY has only 2 current point"):
        act(encounter, gm, by["Vesna Kade"], "mitigate", data={"points": 3})
    encounter.refresh_from_db()
    encounter, by = act(encounter, gm, by["Vesna Kade"], "mitigate", data={"points": 0})
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
    encounter, by = act(encounter, gm, by["Ganger"], "mitigate", data={"points": 3})
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
