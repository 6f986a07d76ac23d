"""The GM asks for a roll at the table; the prompt shows live on the sheet, the answer on the GM's."""

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e


def test_gm_asks_player_answers_live(new_page, make_campaign, gm, player, other_player, monkeypatch):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(owner=player)
    monkeypatch.setattr("play.request_views.system_random", lambda: FixedFaces([14]))

    sheet = new_page(width=390, height=844)
    log_in(sheet, player.username, PASSWORD)
    sheet.goto(helsing.get_absolute_url())
    expect(sheet.get_by_role("heading", name="Abraham Van Helsing")).to_be_visible()

    table = new_page()
    log_in(table, gm.username, PASSWORD)
    table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(table.locator("#table-status")).to_have_text("Live")
    table.locator("#requests-gm summary").click()
    table.locator("#requests-gm input[name=characters]").first.check()
    table.locator("#requests-gm #id_label").fill("Read the ancient text")
    table.locator("#requests-gm #id_roll_key").select_option("ability:mind")
    table.locator("#requests-gm #id_difficulty").fill("16")
    table.locator("#requests-gm").get_by_role("button", name="Ask").click()
    expect(table.locator(".request-answer", has_text="Abraham Van Helsing")).to_contain_text("waiting")

    # No reload: the prompt arrives over the table's socket.
    prompt = sheet.locator(".roll-prompt")
    expect(prompt).to_contain_text("The GM asks: Read the ancient text")
    prompt.get_by_role("button", name="Mind 15").click()
    expect(prompt).to_have_count(0)

    # 14 is below Mind 15, so the total is 15 against 16: a failure. The GM sees the answer arrive.
    answer = table.locator(".request-answer", has_text="Abraham Van Helsing")
    expect(answer).to_contain_text("15 (floored by the ability) vs 16: failure")
    expect(table.locator("#feed")).to_contain_text("Abraham Van Helsing: Mind (Mind 15)")
