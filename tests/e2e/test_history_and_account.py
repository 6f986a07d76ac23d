"""A player undoes an edit and an added trait from the sheet's history, exports and imports a character,
changes password."""

import pytest
from playwright.sync_api import expect

from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def helsing(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    load_demo_characters(campaign, players=[player, other_player])
    players_adjust_play_state(campaign)  # the player types Mind (sheets/policy.py)
    return campaign.characters.get(owner=player)


def test_edit_then_undo_from_the_history(new_page, helsing, player):
    page = new_page(width=390, height=844)
    log_in(page, player.username, PASSWORD)
    page.goto(helsing.get_absolute_url())
    page.get_by_role("button", name="Edit Mind: 15").click()
    page.get_by_label("Mind", exact=True).fill("11")
    page.get_by_label("Mind", exact=True).press("Enter")
    expect(page.get_by_role("button", name="Edit Mind: 11")).to_be_visible()

    page.get_by_role("link", name="History").click()
    change = page.locator(".history-list li", has_text="Edited Mind")
    expect(change).to_contain_text(player.username)
    expect(change.get_by_role("row", name="mind 15 11")).to_be_visible()
    change.get_by_role("button", name="Undo Edited Mind").click()
    expect(page.get_by_text("Undone: Edited Mind.")).to_be_visible()
    expect(page.locator(".history-list li", has_text="Undo: Edited Mind")).to_be_visible()

    page.get_by_role("link", name="Abraham Van Helsing").click()
    expect(page.get_by_role("button", name="Edit Mind: 15")).to_be_visible()


def test_undo_of_an_added_trait_takes_the_row_off(new_page, helsing, gm):
    page = new_page()
    log_in(page, gm.username, PASSWORD)  # traits after creation are the GM's (sheets/policy.py)
    page.goto(helsing.get_absolute_url())
    page.get_by_label("Trait from the list").select_option("Deadly")
    page.get_by_role("button", name="Add trait").click()
    expect(page.locator("#traits-heading + ul")).to_contain_text("Deadly")

    page.get_by_role("link", name="History").click()
    change = page.locator(".history-list li", has_text="Added trait Deadly")
    expect(change.get_by_role("row", name="name - Deadly")).to_be_visible()
    change.get_by_role("button", name="Undo Added trait Deadly").click()
    expect(page.get_by_text("Undone: Added trait Deadly.")).to_be_visible()
    undone = page.locator(".history-list li", has_text="Undo: Added trait Deadly")
    expect(undone.get_by_role("row", name="name Deadly -")).to_be_visible()
    shoot(page, "history-undo-added-row")

    page.get_by_role("link", name="Abraham Van Helsing").click()
    expect(page.locator("#traits-heading + ul")).not_to_contain_text("Deadly")
    assert not helsing.triad_traits.filter(name="Deadly").exists()


def test_export_and_import_a_character(new_page, helsing, player, tmp_path):
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(helsing.get_absolute_url())
    with page.expect_download() as download:
        page.get_by_role("link", name="Export").click()
    saved = tmp_path / "helsing.json"
    download.value.save_as(saved)

    page.goto(f"/campaigns/{helsing.campaign_id}/characters/new/")
    page.get_by_label("Character file").set_input_files(str(saved))
    page.get_by_role("button", name="Import").click()
    # Van Helsing sits outside the tiers and this campaign does not allow that: a clear refusal.
    expect(page.get_by_role("alert")).to_contain_text("breaks this campaign's rules")
    assert helsing.campaign.characters.filter(name="Abraham Van Helsing").count() == 1


def test_change_password_and_log_back_in(new_page, player):
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.get_by_role("link", name="Password").click()
    page.locator("#id_old_password").fill(PASSWORD)
    page.locator("#id_new_password1").fill("another-long-phrase-77")
    page.locator("#id_new_password2").fill("another-long-phrase-77")
    page.get_by_role("button", name="Change password").click()
    expect(page.get_by_role("heading", name="Password changed")).to_be_visible()
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in").first).to_be_visible()
    log_in(page, player.username, "another-long-phrase-77")
    expect(page.get_by_role("heading", name="Your campaigns")).to_be_visible()
