"""An encounter's lines (campaigns.selectors.feed_of_encounter): the GM's log on the encounter page and a
sheet's latest lines in its turn panel. A compiled look-up, so these pin what it must still select: this
encounter's lines only, newest first, as many as asked for of those the viewer may see."""

import importlib

import pytest
from django.apps import apps

from campaigns.models import FeedEntry, Visibility
from campaigns.selectors import feed_of_encounter
from play import encounters
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.npcs import sample_npc

pytestmark = pytest.mark.django_db


@pytest.fixture
def lines(campaign, gm, player):
    """Lines of two encounters (ids 7 and 8) in one campaign, a line of no encounter, and one the GM
    alone sees, in seq order, each written as play.encounters writes them (the id in its column and its
    request)."""
    written = [
        ("7 opens", 7, player, Visibility.PUBLIC),
        ("8 opens", 8, player, Visibility.PUBLIC),
        ("a dice-box roll", None, player, Visibility.PUBLIC),
        ("7 second", 7, player, Visibility.PUBLIC),
        ("7 third", 7, gm, Visibility.PUBLIC),
        ("7 the GM's secret", 7, gm, Visibility.GM),
    ]
    for seq, (label, encounter, author, visibility) in enumerate(written, start=1):
        request = {"notation": "2d6"} if encounter is None else {"encounter": encounter, "round": 1}
        FeedEntry.objects.create(
            campaign=campaign,
            seq=seq,
            author=author,
            label=label,
            encounter_id=encounter,
            request=request,
            visibility=visibility,
        )
    return campaign


def labels(entries) -> list[str]:
    return [entry.label for entry in entries]


def test_the_gm_sees_every_line_of_this_encounter_newest_first_and_no_other(lines, gm):
    assert labels(feed_of_encounter(gm, lines, encounter_id=7)) == [
        "7 the GM's secret",
        "7 third",
        "7 second",
        "7 opens",
    ]
    assert labels(feed_of_encounter(gm, lines, encounter_id=8)) == ["8 opens"]
    assert feed_of_encounter(gm, lines, encounter_id=9) == []


def test_a_player_sees_the_newest_lines_they_may_see_and_a_hidden_one_takes_no_place(lines, player):
    # Asked for three: the GM's secret is newest, yet the player gets three lines they may see.
    newest_three = feed_of_encounter(player, lines, encounter_id=7, limit=3)
    assert labels(newest_three) == ["7 third", "7 second", "7 opens"]
    assert labels(feed_of_encounter(player, lines, encounter_id=7, limit=1)) == ["7 third"]


def test_a_fights_moves_write_its_id_on_each_line(campaign, gm, player):
    encounter = encounters.encounter_create(campaign=campaign, name="Ambush")
    load_demo_characters(campaign, players=[player])
    mine = campaign.characters.get(owner=player)
    encounters.combatant_add_character(encounter=encounter, character=mine)
    encounters.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data=sample_npc(campaign.system))
    roller = Roller(FixedFaces([5] * 20))
    encounters.encounter_start(encounter=encounter, version=encounter.version, roller=roller, author=gm)
    written = FeedEntry.objects.filter(campaign=campaign)
    assert written and {line.encounter_id for line in written} == {encounter.pk}
    assert labels(feed_of_encounter(gm, campaign, encounter_id=encounter.pk)) == [
        line.label for line in written.order_by("-seq")
    ]


def test_the_migration_gives_lines_written_before_it_their_encounter(lines):
    backfill = importlib.import_module("campaigns.migrations.0008_feedentry_encounter_id")
    FeedEntry.objects.update(encounter_id=None)
    FeedEntry.objects.create(
        campaign=lines, seq=7, author=lines.gm, label="odd", request={"encounter": "7"}, visibility="public"
    )
    backfill.encounter_of_existing_lines(apps, None)
    by_label = dict(FeedEntry.objects.values_list("label", "encounter_id"))
    assert by_label == {
        "7 opens": 7,
        "8 opens": 8,
        "a dice-box roll": None,
        "7 second": 7,
        "7 third": 7,
        "7 the GM's secret": 7,
        "odd": None,  # not an id: left out rather than guessed
    }
