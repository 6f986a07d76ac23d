"""Saved rolls in a real browser: a player saves a line on their sheet and rolls it with one click; the
GM at the table sees the entry arrive live, and the saved roll is on the player's table page too."""

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import shoot
from .test_accessibility import audit

pytestmark = pytest.mark.e2e


@pytest.mark.long
def test_a_player_saves_a_line_on_the_sheet_and_the_gm_sees_it_rolled_live(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(owner=player)
    monkeypatch.setattr("play.saved_roll_views.system_random", lambda: FixedFaces([6, 5, 4]))

    table = new_page()
    log_in(table, gm.username, PASSWORD)
    table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(table.locator("#table-status")).to_have_text("Live")

    sheet = new_page(width=390, height=844)
    log_in(sheet, player.username, PASSWORD)
    sheet.goto(helsing.get_absolute_url())
    panel = sheet.locator("#saved-rolls")
    panel.locator("summary").click()
    # A line the dice box cannot read comes back on its field, what was typed kept.
    panel.get_by_label("Name").fill("Stake")
    panel.get_by_label("Dice").fill("3d6+q")
    panel.get_by_role("button", name="Save").click()
    expect(panel.locator("#id_saved-line-error")).to_contain_text("at position 5")
    expect(panel.get_by_label("Name")).to_have_value("Stake")
    expect(panel.get_by_label("Dice")).to_have_value("3d6+q")
    shoot(sheet, "saved-rolls-sheet-error-phone")

    panel.get_by_label("Dice").fill("3d6+2 vs 14")
    panel.get_by_role("button", name="Save").click()
    expect(panel).to_contain_text("Saved “Stake”.")
    stake = panel.get_by_role("button", name="Stake 3d6+2 vs 14")
    expect(stake).to_contain_text("37.5%")  # its odds, as the dice box prices the line
    stake.click()

    # The roller sees the result where sheet rolls show theirs, and in the sheet's recent rolls; focus
    # is back on the button that rolled, ready for the next.
    expect(sheet.locator("#roll-result")).to_contain_text("= 17")
    expect(stake).to_be_focused()
    expect(sheet.locator("#recent-rolls")).to_contain_text("3d6+2 vs 14")
    shoot(sheet, "saved-rolls-sheet-phone")

    # The GM's table hears it without a reload, as the character's roll.
    entry = table.locator("#feed .feed-entry").first
    expect(entry).to_contain_text("Abraham Van Helsing")
    expect(entry).to_contain_text("3d6+2 vs 14")
    expect(entry).to_contain_text("= 17")
    # The GM's own saved rolls are their own: the player's is not on the GM's table.
    expect(table.locator("#saved-rolls")).not_to_contain_text("Stake")
    shoot(table, "saved-rolls-table-gm")

    # The saved roll is on the player's table page too, under its character, and rolls from there.
    own_table = new_page()
    log_in(own_table, player.username, PASSWORD)
    own_table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(own_table.locator("#table-status")).to_have_text("Live")
    saved = own_table.locator("#saved-rolls")
    expect(saved).to_contain_text("Abraham Van Helsing")
    saved.get_by_role("button", name="Stake 3d6+2 vs 14").click()
    expect(saved).to_contain_text("Rolled “Stake”.")
    expect(saved.get_by_role("button", name="Stake 3d6+2 vs 14")).to_be_focused()  # the button stayed
    expect(own_table.locator("#feed .feed-entry")).to_have_count(2)
    expect(table.locator("#feed .feed-entry")).to_have_count(2)
    # The answer (its message is in, and the key came with it) put a fresh key on the button: clicked
    # again, it rolls again.
    saved.get_by_role("button", name="Stake 3d6+2 vs 14").click()
    expect(own_table.locator("#feed .feed-entry")).to_have_count(3)
    expect(table.locator("#feed .feed-entry")).to_have_count(3)
    shoot(own_table, "saved-rolls-table-desktop")
    sheet.set_viewport_size({"width": 1280, "height": 900})
    sheet.reload()
    expect(sheet.locator("#recent-rolls li")).to_have_count(3)
    shoot(sheet, "saved-rolls-sheet-desktop")

    # The pages with the panels filled pass the audit at both widths.
    for page, url in ((sheet, helsing.get_absolute_url()), (own_table, f"/campaigns/{campaign.pk}/table/")):
        for width, height in ((1280, 900), (390, 844)):
            page.set_viewport_size({"width": width, "height": height})
            assert audit(page, url) == []
    own_table.set_viewport_size({"width": 390, "height": 844})
    own_table.goto(f"/campaigns/{campaign.pk}/table/")
    shoot(own_table, "saved-rolls-table-phone")


def test_without_javascript_a_saved_roll_is_a_plain_form(new_page, make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    page = new_page()
    page.context.route("**/*.js", lambda route: route.abort())  # no htmx, no socket
    log_in(page, player.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    panel = page.locator("#saved-rolls")
    panel.locator("summary").click()
    panel.get_by_label("Name").fill("Initiative")
    panel.get_by_label("Dice").fill("1d20+2")
    panel.get_by_role("button", name="Save").click()
    expect(page.locator("#saved-rolls")).to_contain_text("Initiative")
    page.locator("#saved-rolls").get_by_role("button", name="Initiative 1d20+2").click()
    expect(page.locator("#feed .feed-entry").first).to_contain_text("1d20+2")
    page.locator("#saved-rolls").get_by_role("button", name="Delete the saved roll Initiative").click()
    expect(page.locator("#saved-rolls")).not_to_contain_text("1d20+2")
