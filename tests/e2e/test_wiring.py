"""A click that lands before htmx has wired the page waits for it (templates/base.html, data-wiring).

A CI run clicked "Edit Body" the moment a new sheet's heading showed: htmx had not yet processed the
page, the click did nothing, and the edit box never came. A player on a slow phone taps the same way."""

import re

import pytest
from playwright.sync_api import expect

from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in

pytestmark = pytest.mark.e2e


def test_htmx_controls_take_no_click_until_htmx_has_wired_the_page(new_page, make_campaign, player):
    campaign = make_campaign("triad", players=[player])
    load_demo_characters(campaign, players=[player])
    players_adjust_play_state(campaign)
    character = campaign.characters.get(owner=player)
    page = new_page()
    log_in(page, player.username, PASSWORD)

    held = []  # htmx's script, held back until the page has been looked at without it
    page.route("**/django_htmx/htmx*.js", lambda route: held.append(route))
    page.goto(character.get_absolute_url(), wait_until="commit")
    edit = page.get_by_role("button", name=re.compile(r"^Edit Body: \d+$"))
    expect(edit).to_be_visible()
    assert held, "the page asked for htmx"
    expect(page.locator("html")).to_have_attribute("data-wiring", "")
    assert edit.evaluate("button => getComputedStyle(button).pointerEvents") == "none"

    held[0].continue_()
    expect(page.locator("html")).not_to_have_attribute("data-wiring", "")
    assert edit.evaluate("button => getComputedStyle(button).pointerEvents") == "auto"
    edit.click()
    expect(page.get_by_label("Body", exact=True)).to_be_visible()

