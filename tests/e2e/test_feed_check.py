"""The GM's feed check in Debian's chromium: intact, then a change made behind the app's back is named."""

import pytest
from playwright.sync_api import expect

from campaigns import services
from campaigns.models import FeedEntry
from rules.dice import FixedFaces, Roller
from tests.conftest import PASSWORD
from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e


def test_the_gm_checks_the_feed_and_sees_which_entry_was_changed(new_page, campaign, gm, player):
    entry, _ = services.table_roll_create(
        campaign=campaign, author=player, notation_text="1d20+5 vs 15", roller=Roller(FixedFaces((4,)))
    )
    services.chat_line_create(campaign=campaign, author=player, text="Missed!")
    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.get_by_role("button", name="Check the feed").click()
    result = page.locator("#feed-check-result")
    expect(result).to_contain_text("Chain intact.")

    # Someone with the database turns the miss into a hit.
    result_data = {**entry.result, "total": 25, "success": True, "outcome": "success"}
    FeedEntry.objects.filter(pk=entry.pk).update(result=result_data)
    page.get_by_role("button", name="Check the feed").click()
    expect(result).to_contain_text("Chain broken.")
    expect(result).to_contain_text("by player (1d20+5 vs 15) was changed in the database")
