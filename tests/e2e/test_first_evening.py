"""What a first evening at the table notices in the browser: odds that follow the typing, a phone that
reaches every field, and no console errors while the dice box prices a line."""

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD

from .conftest import log_in
from .session import next_turn, shoot
from .test_encounter_freefall import netrun  # noqa: F401 - the fixture

pytestmark = pytest.mark.e2e


def test_the_declare_odds_follow_the_dice_as_they_are_typed(new_page, netrun, gm):  # noqa: F811
    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(netrun.get_absolute_url())
    page.get_by_role("button", name="Roll initiative and start").click()
    while not page.get_by_role("heading", name="Osei Marr's turn").is_visible():
        heading = page.locator("h2", has_text="'s turn").first.inner_text()
        next_turn(page)
        expect(page.get_by_role("heading", name=heading)).to_have_count(0)
    hack = page.locator("form.encounter-action", has=page.get_by_role("button", name="Declare a hack"))
    odds = hack.locator(".action-odds")
    one_die = odds.inner_text()
    dice = hack.get_by_label("Dice")
    dice.fill("3")  # typed, focus still in the field: no change event yet
    expect(odds).not_to_have_text(one_die)
    expect(dice).to_be_focused()
    typed = odds.inner_text()
    dice.blur()  # the change the field fires on leaving it prices the same line
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    expect(odds).to_have_text(typed)
    for width, height in ((1280, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        hack.scroll_into_view_if_needed()
        shoot(page, f"declare-odds-{width}", whole=False)


def test_the_dice_box_prices_a_line_without_htmx_errors(new_page, campaign, player):
    page = new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    log_in(page, player.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    expect(page.locator("#table-status")).to_have_text("Live")
    page.locator("#id_notation").fill("1d20+5")
    caption = page.locator("#dice-odds figcaption")
    expect(caption).to_have_text("Totals 6 to 25, mean 15.5 (31/2).")  # flat: no "most likely"
    page.locator("#id_notation").fill("2d6")
    expect(caption).to_contain_text("most likely 7")
    # htmx's own complaints (an inherited hx-disabled-elt="find button" on the odds input, once).
    assert [error for error in errors if "hx-" in error or "htmx" in error.lower()] == []


def test_the_l5r_builder_fits_a_phone(new_page, make_campaign, player):
    campaign = make_campaign("l5r", players=[player], name="Winter Court")
    page = new_page(width=390, height=844)
    log_in(page, player.username, PASSWORD)
    page.goto(campaign.get_absolute_url())
    page.get_by_role("link", name="New character").click()
    table = page.locator(".l5r-skill-table")
    expect(table).to_be_visible()
    # Every column on the screen: nothing to swipe sideways to, Emphasis included.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    scroller = page.locator(".l5r-builder-live .table-responsive")
    assert scroller.evaluate("el => el.scrollWidth <= el.clientWidth")
    emphasis = page.get_by_label("Kenjutsu emphasis")
    box = emphasis.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["width"] >= 60
    emphasis.fill("Katana")
    expect(emphasis).to_have_value("Katana")
    emphasis.scroll_into_view_if_needed()
    shoot(page, "l5r-builder-390", whole=False)  # the screen the player sees
    page.set_viewport_size({"width": 1280, "height": 900})
    emphasis.scroll_into_view_if_needed()
    shoot(page, "l5r-builder-1280", whole=False)
