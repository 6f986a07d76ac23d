"""One result type: a typed outcome from the engine to the feed, and JSON checked when written."""

import math
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns import services
from campaigns.models import FeedEntry
from campaigns.rendering import OUTCOME_TONES, OUTCOME_WORDS, entry_display
from campaigns.validators import MAX_RESULT_CHARS, validate_feed_result
from play import encounters
from play.models import Combatant
from rules.dice import FixedFaces, Outcome, Roller
from sheets.combat import EncounterError
from sheets.contract import Die, RollResult
from sheets.demo import load_demo_characters
from sheets.registry import combat_for, system_for
from sheets.services import character_roll

GOOD = {"dice": [{"face": 4}], "outcome": "success", "outcome_label": "", "total": 4, "changes": []}


# -- the tone comes from the enum ----------------------------------------------------------------------


def test_every_outcome_has_a_tone_the_stylesheet_draws_and_words():
    css = (Path(settings.BASE_DIR) / "static/css/app.css").read_text()
    drawn = set(re.findall(r"\.outcome-([a-z]+)\s*\{", css))
    assert set(OUTCOME_TONES) == set(Outcome) == set(OUTCOME_WORDS)
    assert set(OUTCOME_TONES.values()) <= drawn
    assert all(OUTCOME_WORDS[o] for o in Outcome if o is not Outcome.NONE)


@pytest.mark.parametrize(
    ("outcome", "tone"),
    [
        ("success", "success"),
        ("critical", "success"),
        ("greater", "success"),
        ("failure", "failure"),
        ("fumble", "failure"),
        ("trump", "trump"),
        ("mixed", "mixed"),
        ("none", "plain"),
    ],
)
def test_tone_is_looked_up_from_the_outcome_value(outcome, tone):
    display = entry_display({**GOOD, "outcome": outcome})
    assert (display["tone"], display["outcome_value"]) == (tone, outcome)


def test_a_systems_wording_is_shown_but_never_read_for_colour():
    # "missed the failure" would have been coloured as a failure by a word search; the enum says success.
    display = entry_display({**GOOD, "outcome": "success", "outcome_label": "missed the failure"})
    assert (display["outcome"], display["tone"]) == ("missed the failure", "success")
    assert entry_display({**GOOD, "outcome": "none"})["outcome"] == ""  # a plain sum says nothing


def test_an_entry_stored_with_free_text_is_shown_uncoloured():
    display = entry_display({"dice": [{"face": 6}], "outcome": "Critical success!", "total": 6})
    assert (display["outcome"], display["tone"], display["outcome_value"]) == (
        "Critical success!",
        "plain",
        "",
    )


def test_dice_box_stores_and_draws_the_outcome(make_campaign, gm, client_for):
    campaign = make_campaign("fivebyfive")
    entry, _ = services.table_roll_create(
        campaign=campaign, author=gm, notation_text="5x5 vs 6", roller=Roller(FixedFaces([6, 2]))
    )
    assert entry.result["outcome"] == Outcome.TRUMP
    assert (entry.display["tone"], entry.display["outcome"]) == ("trump", "trump!")
    plain, _ = services.table_roll_create(
        campaign=campaign, author=gm, notation_text="2d6", roller=Roller(FixedFaces([3, 4]))
    )
    assert plain.result["outcome"] == Outcome.NONE and plain.display["tone"] == "plain"
    page = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    assert 'data-outcome="trump"' in page


# -- one result type -------------------------------------------------------------------------------


def test_roll_result_takes_only_an_outcome_member():
    with pytest.raises(TypeError, match="must be an Outcome"):
        RollResult(label="Body", summary="12", outcome="success")
    stored = RollResult(
        label="Body",
        summary="12 vs 10",
        dice=(Die(12, sides=20),),
        outcome=Outcome.CRITICAL,
        total=12,
        extra={"outcome": "bogus", "tn": 10},
    ).result()
    # The system's extra facts are kept, but cannot overwrite the outcome the engine gave.
    assert stored["outcome"] == "critical" and stored["tn"] == 10 and stored["outcome_label"] == ""
    validate_feed_result(stored)


# -- FeedEntry.result is checked when written ------------------------------------------------------


@pytest.mark.parametrize(
    ("result", "message"),
    [
        ([1, 2], "must be a JSON object"),
        ({**GOOD, "total": math.nan}, "finite numbers"),
        ({**GOOD, "spread": math.inf}, "finite numbers"),
        ({**GOOD, "spread": [1, {"deep": -math.inf}]}, "finite numbers"),
        ({**GOOD, "outcome": "Success"}, "is not one of"),
        ({**GOOD, "outcome": ["success"]}, "is not one of"),
        ({k: v for k, v in GOOD.items() if k != "outcome"}, "is not one of"),
        ({"outcome": "success", "total": 3}, "must list its dice"),
        ({**GOOD, 7: "x"}, "keys must be text"),
        ({**GOOD, "when": object()}, "JSON cannot store"),
        ({**GOOD, "total": "4"}, "whole number"),
        ({**GOOD, "outcome_label": "x" * 81}, "at most 80"),
        ({**GOOD, "changes": "hp lost"}, "lines of text"),
        ({**GOOD, "dice": [{"face": 6}] * (MAX_RESULT_CHARS // 10)}, "at most"),
    ],
)
def test_bad_results_are_refused(result, message):
    with pytest.raises(ValidationError, match=message):
        validate_feed_result(result)


def test_feed_entry_create_refuses_a_bad_result_and_saves_nothing(campaign, gm):
    with pytest.raises(ValidationError, match="finite numbers"):
        services.feed_entry_create(campaign=campaign, author=gm, label="x", result={**GOOD, "odds": math.nan})
    campaign.refresh_from_db()
    assert not FeedEntry.objects.exists() and campaign.last_seq == 0
    chat, _ = services.feed_entry_create(campaign=campaign, author=gm, label="hello", kind="chat")
    assert chat.result == {}


def test_a_system_whose_roll_writes_nan_gets_an_error(demo_character, player, monkeypatch):
    character = demo_character("triad")
    system = system_for(character.campaign)

    def bad_roll(self, character, key, options, roller):
        return RollResult(
            label="Body",
            summary="?",
            dice=(Die(3, sides=20),),
            outcome=Outcome.SUCCESS,
            extra={"odds": math.nan},
        )

    monkeypatch.setattr(type(system), "roll", bad_roll)
    version = character.version
    with pytest.raises(ValidationError, match="finite numbers"):
        character_roll(
            character=character,
            key="ability:body",
            options={},
            roller=Roller(FixedFaces([3])),
            author=player,
            visibility="public",
        )
    character.refresh_from_db()
    assert not FeedEntry.objects.exists() and character.version == version


# -- Campaign.options -----------------------------------------------------------------------------


def test_campaign_options_must_be_the_systems_switches(make_campaign):
    campaign = make_campaign("l5r")
    services.campaign_update(
        campaign=campaign, name="Table", description="", options={"l5r_odd_die_bonus": True}
    )
    campaign.refresh_from_db()
    assert campaign.options == {"l5r_odd_die_bonus": True}
    with pytest.raises(ValidationError, match="no optional rule called 'fbf_advanced'"):
        services.campaign_update(
            campaign=campaign, name="Table", description="", options={"fbf_advanced": True}
        )
    with pytest.raises(ValidationError, match="on or off"):
        services.campaign_update(
            campaign=campaign, name="Table", description="", options={"l5r_odd_die_bonus": 1}
        )
    campaign.refresh_from_db()
    assert campaign.options == {"l5r_odd_die_bonus": True}


# -- Combatant.stats and state ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", [{"difficulty": math.nan}, {"hp": math.inf}, {1: "one"}, {"big": "x" * 20_001}]
)
def test_a_combatants_json_is_checked(bad):
    combatant = Combatant(name="Ghoul", side=Combatant.Side.GM, stats=bad)
    with pytest.raises(ValidationError) as raised:
        combatant.full_clean(exclude=["encounter", "character"])
    assert "stats" in raised.value.message_dict
    combatant = Combatant(name="Ghoul", side=Combatant.Side.GM, state=bad)
    with pytest.raises(ValidationError) as raised:
        combatant.full_clean(exclude=["encounter", "character"])
    assert "state" in raised.value.message_dict


def test_a_system_writing_bad_npc_stats_gets_an_error(make_campaign, monkeypatch):
    campaign = make_campaign("triad")
    encounter = encounters.encounter_create(campaign=campaign, name="Crypt")
    rules = combat_for(campaign)
    monkeypatch.setattr(type(rules), "npc_stats", lambda self, data: {"difficulty": math.inf})
    with pytest.raises(EncounterError, match="Ghoul could not be saved: .*finite numbers"):
        encounters.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data={})
    assert not encounter.combatants.exists()


def test_a_system_writing_bad_state_in_a_turn_gets_an_error(make_campaign, player, gm, monkeypatch):
    campaign = make_campaign("triad", players=[player])
    load_demo_characters(campaign, players=[player])
    encounter = encounters.encounter_create(campaign=campaign, name="Crypt")
    encounters.combatant_add_character(encounter=encounter, character=campaign.characters.get())
    encounters.combatant_add_npc(
        encounter=encounter,
        name="Ghoul",
        cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "light"},
    )
    rules = combat_for(campaign)
    real_start = type(rules).start

    def start(self, encounter, combatants, roller):
        lines = real_start(self, encounter, combatants, roller)
        for combatant in combatants:  # the first turn may reset state; stats stay as the rules left them
            combatant.stats = {**combatant.stats, "reach": math.nan}
        return lines

    monkeypatch.setattr(type(rules), "start", start)
    with pytest.raises(EncounterError, match="could not be saved"):
        encounters.encounter_start(
            encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([3])), author=gm
        )
    encounter.refresh_from_db()
    assert encounter.status == "setup" and not FeedEntry.objects.exists()
    assert not any("reach" in c.stats for c in encounter.combatants.all())
