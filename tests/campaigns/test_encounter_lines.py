"""An encounter's lines (campaigns.selectors.feed_of_encounter): the GM's log on the encounter page and a
sheet's latest lines in its turn panel. A compiled look-up, so these pin what it must still select: this
encounter's lines only, newest first, as many as asked for of those the viewer may see."""

import pytest

from campaigns.models import FeedEntry, Visibility
from campaigns.selectors import feed_of_encounter

pytestmark = pytest.mark.django_db


@pytest.fixture
def lines(campaign, gm, player):
    """Lines of two encounters (ids 7 and 8) in one campaign, a line of no encounter, and one the GM
    alone sees, in seq order: what play.encounters writes is ``request["encounter"]``, the encounter's pk."""
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
            campaign=campaign, seq=seq, author=author, label=label, request=request, visibility=visibility
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
