"""A player takes a played character from one campaign to another: export from the sheet, import there."""

import os

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from sheets.demo import load_demo_characters
from sheets.models import Character
from sheets.registry import system_for
from sheets.services import character_edit
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e


@pytest.fixture
def larry(make_campaign, gm, player, other_player):
    """Larry Booker after some play: 12 XP awarded, one rank bought with it, hit down to 4 HP."""
    campaign = make_campaign("fivebyfive", players=[player, other_player], name="The Salt Road")
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(owner=player)
    system = system_for(campaign)
    system.xp_award(character=larry, amount=12, author=gm)
    offer = next(o for o in system.xp_spends(larry) if o.cost and o.key.startswith("raise:"))
    system.xp_spend(character=larry, key=offer.key, expected=offer.seen, author=player)
    larry = Character.objects.get(pk=larry.pk)
    character_edit(character=larry, path="hp", raw="4", version=larry.version, author=gm)
    return Character.objects.get(pk=larry.pk)


def test_a_played_character_moves_to_another_campaign(new_page, larry, make_campaign, player, tmp_path):
    second = make_campaign("fivebyfive", name="The Glass Coast")
    Membership.objects.create(campaign=second, user=player)
    xp_left = larry.fivebyfive.xp
    assert xp_left > 0
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(larry.get_absolute_url())
    expect(page.get_by_text(f"Spend XP ({xp_left} XP to spend)")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Export").click()
    saved = tmp_path / "larry.json"
    download.value.save_as(saved)

    page.goto(f"/campaigns/{second.pk}/characters/new/")
    expect(page.get_by_text("brings the character whole")).to_be_visible()
    page.get_by_label("Character file").set_input_files(str(saved))
    if shots := os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=os.path.join(shots, "import-page.png"), full_page=True)
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported Larry Booker with its play state")).to_be_visible()
    copy = second.characters.get()
    page.wait_for_url(f"**{copy.get_absolute_url()}")
    # The same XP to spend and the same hit points as at the first table.
    expect(page.get_by_text(f"Spend XP ({xp_left} XP to spend)")).to_be_visible()
    expect(page.locator('[data-path="hp"]')).to_have_text("4")
    assert (copy.fivebyfive.xp, copy.fivebyfive.hp) == (xp_left, 4)

    page.get_by_role("link", name="History").click()
    change = page.locator(".history-list li", has_text="Imported from file with its play state")
    expect(change).to_contain_text(player.username)
    expect(change.get_by_role("row", name="hp 12 4")).to_be_visible()
    with page.expect_download() as history_download:
        page.get_by_role("link", name="JSON").click()
    assert history_download.value.suggested_filename == "larry-booker-history.json"
    if shots := os.environ.get("SCREENSHOT_DIR"):
        page.screenshot(path=os.path.join(shots, "history-page.png"), full_page=True)
