"""Live and private, in Debian's chromium: a rate-limited roll says so in the dice box (a sheet's roll
beside its button), and logging out in another tab closes the table's socket at once and sends the
next click to a whole login page."""

import pytest
from playwright.sync_api import expect

from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD
from tests.e2e.test_table import open_table, roll_in_dice_box

from .conftest import log_in

pytestmark = pytest.mark.e2e


def test_a_rate_limited_roll_shows_the_message_in_the_dice_box(new_page, campaign, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (1, 60)}
    page = open_table(new_page, player, campaign)
    roll_in_dice_box(page, "d6")
    page.locator("#id_notation").fill("d8")
    page.get_by_role("button", name="Roll").click()
    expect(page.locator("#dice-box")).to_contain_text("Slow down: at most 1 rolls every 60 seconds")
    expect(page.locator("#id_notation")).to_have_value("d8")  # kept, to send again once allowed
    expect(page.locator("#feed .feed-entry")).to_have_count(1)


def test_logging_out_in_another_tab_ends_the_table_and_the_next_click_loads_the_login_page(
    new_page, campaign, player
):
    table = open_table(new_page, player, campaign)
    other_tab = table.context.new_page()
    other_tab.goto("/dashboard/")
    other_tab.get_by_role("button", name="Log out").click()
    other_tab.wait_for_url("**/")

    expect(table.locator("#table-status")).to_have_text("Signed out")
    expect(table.locator("#messages")).to_contain_text("Your session ended")

    # The player comes back to the table's tab (a tab in the background is throttled: on a busy
    # machine its click could wait out the timeout).
    table.bring_to_front()
    # The value set without typing: typed, it asks for the dice's picture, and that request (sent on its
    # own timer) would be the one to find the session gone and lead to the login page before the click.
    table.locator("#id_notation").evaluate("input => { input.value = 'd6'; }")
    table.get_by_role("button", name="Roll").click()
    table.wait_for_url(f"**/accounts/login/?next=/campaigns/{campaign.pk}/table/")
    # A whole login page, not a login form inside the dice box.
    expect(table.locator("#dice-box")).to_have_count(0)
    expect(table.get_by_role("button", name="Log in")).to_be_visible()


def test_a_rate_limited_sheet_roll_says_so_beside_its_button(
    new_page, campaign, player, other_player, settings
):
    # The limiter's own 429 (campaigns/middleware.py) swaps nothing; app.js puts its message by the control.
    load_demo_characters(campaign, players=[player, other_player])
    settings.TABLE_RATE_LIMITS = {"roll_button": (1, 60)}
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(campaign.characters.get(owner=player).get_absolute_url())
    body = page.locator("[data-roll-key='ability:body']")
    body.click()
    expect(page.locator("#roll-result .feed-entry")).to_be_visible()
    with page.expect_response(lambda response: response.status == 429):
        body.click()
    note = page.locator(".rate-limited[role='alert']")
    expect(note).to_contain_text("Slow down: at most 1 rolls every 60 seconds")
    expect(page.locator("#roll-result .feed-entry")).to_have_count(1)  # the first roll's result stays
