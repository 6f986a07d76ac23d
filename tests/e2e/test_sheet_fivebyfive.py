"""A player ranks a Five by Five character by keyboard and by dragging, then edits, sets options and rolls."""

import re

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.models import Character
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e

NAMES = ["Amateur Chef", "Street Smarts", "Brawler", "Uncanny Reflexes", "Stage Fright"]


def badges(page) -> list[str]:
    return [text.strip() for text in page.locator("#fbf-ranking .fbf-rank-value").all_inner_texts()]


def slots(page) -> list[str]:
    return page.locator("#fbf-ranking .fbf-rank-row").evaluate_all("rows => rows.map(r => r.dataset.slot)")


def test_build_rank_edit_and_roll(new_page, make_campaign, player, monkeypatch):
    campaign = make_campaign("fivebyfive", players=[player], name="Salt Road")
    page = new_page(width=1280, height=900)
    log_in(page, "player", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/characters/new/")
    page.get_by_label("Character name").fill("Larry")
    for slot, name in enumerate(NAMES, start=1):
        page.locator(f"#id_descriptor_{slot}").fill(name)
    assert badges(page) == ["6", "4", "4", "2", "2", "5 HP"]

    # Keyboard: HP climbs to the top with its arrow button, the focus staying on it.
    hp_up = page.get_by_role("button", name="Move HP up")
    hp_up.focus()
    for _ in range(5):
        page.keyboard.press("Enter")
    assert slots(page) == ["hp", "1", "2", "3", "4", "5"]
    assert badges(page)[0] == "16 HP"
    expect(page.locator("#fbf-ranking-status")).to_contain_text("HP is now number 1")

    # Dragging: Amateur Chef's row is dropped below Street Smarts.
    target = page.locator('#fbf-ranking [data-slot="2"]')
    box = target.bounding_box()
    page.locator('#fbf-ranking [data-slot="1"] .fbf-handle').drag_to(
        target, target_position={"x": box["width"] / 2, "y": box["height"] - 4}
    )
    assert slots(page) == ["hp", "2", "1", "3", "4", "5"]
    page.locator("#id_exclusive_3").select_option("attack")
    # Enter in a text field creates the character (the arrows are submit buttons too, but not the default).
    page.get_by_label("Character name").press("Enter")

    # The sheet: Amateur Chef landed third, worth 4; HP first, 16.
    page.wait_for_url(re.compile(r"/characters/\d+/$"))
    character = Character.objects.get(name="Larry")
    assert character.fivebyfive.hp == 16
    assert character.descriptors.get(name="Amateur Chef").value == 4
    chef_button = page.locator(".roll-button", has_text="Amateur Chef")
    expect(chef_button).to_contain_text("Amateur Chef 4 - 52.8%")

    # Edit in place: click the XP, type, Enter.
    page.get_by_role("button", name="Edit XP: 0").click()
    xp_input = page.get_by_label("XP", exact=True)
    xp_input.fill("3")
    xp_input.press("Enter")
    expect(page.get_by_role("button", name="Edit XP: 3")).to_be_visible()
    character.fivebyfive.refresh_from_db()
    assert character.fivebyfive.xp == 3

    # Options: one rank up turns the 4 into a 6.
    page.locator("#roll-options-panel summary").click()
    page.get_by_label("Rank shift").select_option("1")
    expect(chef_button).to_contain_text("Amateur Chef 4 - 63.9%")
    page.get_by_label("Rank shift").select_option("0")
    expect(chef_button).to_contain_text("Amateur Chef 4 - 52.8%")

    # Roll: the result shows its dice. The faces are fixed (the live server runs in this process), so
    # a chance doubles cannot earn the token before the part of the test that looks for it.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([2, 3]))
    chef_button.click()
    result = page.locator("#roll-result")
    expect(result).to_contain_text("Larry: Amateur Chef 4")
    expect(result).to_contain_text("2 × 3 = 6 vs 4, failure")
    expect(result.locator(".die")).to_have_count(2)

    # Doubles earn the token: the sheet shows it held without a reload.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([3, 3]))
    chef_button.click()
    expect(result).to_contain_text("3 × 3 = 9 vs 4, failure · doubles!")
    expect(result).to_contain_text("doubles token earned")
    expect(page.get_by_role("button", name="Edit Doubles token: held")).to_be_visible()

    # Spending it makes a 5 trump; afterwards the option unticks itself and the token shows none.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([5, 1]))
    page.get_by_label("Spend the doubles token").check()
    expect(chef_button).to_contain_text("Amateur Chef 4 - 77.8%")
    chef_button.click()
    expect(result).to_contain_text("doubles token spent")
    expect(result.locator(".die-trump")).to_have_count(1)
    expect(page.get_by_role("button", name="Edit Doubles token: none")).to_be_visible()
    expect(page.get_by_label("Spend the doubles token")).not_to_be_checked()
    expect(chef_button).to_contain_text("Amateur Chef 4 - 52.8%")
    character.fivebyfive.refresh_from_db()
    assert not character.fivebyfive.doubles_token
