"""In a real browser: the GM moves HP and awards XP while a player writes Notes, and the player's Enter
saves (the page had missed those changes, which were not to Notes)."""

import re

import pytest
from playwright.sync_api import expect

from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e


def open_sheet(new_page, user, character):
    page = new_page()
    log_in(page, user.username, PASSWORD)
    page.goto(character.get_absolute_url())
    expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    return page


def edit_button(page, label):
    return page.get_by_role("button", name=re.compile(rf"^Edit {label}: "))


def test_the_gms_edits_elsewhere_on_the_sheet_do_not_refuse_the_players_notes(
    new_page, make_campaign, gm, player
):
    campaign = make_campaign("fivebyfive", players=[player])
    load_demo_characters(campaign, players=[player])
    sheet = campaign.characters.get(owner=player)
    alice = open_sheet(new_page, player, sheet)
    the_gm = open_sheet(new_page, gm, sheet)

    edit_button(alice, "Notes").click()
    notes = alice.get_by_role("textbox", name="Notes")
    notes.fill("Owes Bram a favour")

    edit_button(the_gm, "HP").click()
    hp = the_gm.get_by_label("HP", exact=True)
    hp.fill("4")
    hp.press("Enter")
    expect(edit_button(the_gm, "HP")).to_have_text("4")
    the_gm.get_by_label("Award XP").fill("3")
    the_gm.get_by_role("button", name="Award").click()
    expect(the_gm.get_by_text(re.compile(r"gains 3 XP"))).to_be_visible()

    # Her page shows both live, and keeps her open Notes as typed.
    expect(alice.locator(".editable[data-path='hp']")).to_have_text("4")
    expect(notes).to_have_value("Owes Bram a favour")
    with alice.expect_response(re.compile(r"/field/notes/")) as answer:
        notes.press("Control+Enter")
    assert answer.value.status == 200
    expect(alice.locator(".sheet-notes")).to_contain_text("Owes Bram a favour")
    sheet.refresh_from_db()
    sheet.fivebyfive.refresh_from_db()
    assert sheet.notes == "Owes Bram a favour" and sheet.fivebyfive.hp == 4 and sheet.fivebyfive.xp == 3
