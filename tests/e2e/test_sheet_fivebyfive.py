"""A player ranks a Five by Five character by keyboard and by dragging, then edits, sets options and rolls."""

import re

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.models import Character
from sheets.systems.fivebyfive.models import FiveByFiveSheet
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e

NAMES = ["Amateur Chef", "Street Smarts", "Brawler", "Uncanny Reflexes", "Stage Fright"]


def badges(page) -> list[str]:
    return [text.strip() for text in page.locator("#fbf-ranking .fbf-rank-value").all_inner_texts()]


def slots(page) -> list[str]:
    return page.locator("#fbf-ranking .fbf-rank-row").evaluate_all("rows => rows.map(r => r.dataset.slot)")


def test_build_rank_edit_and_roll(new_page, make_campaign, player, monkeypatch):
    campaign = make_campaign("fivebyfive", players=[player], name="Salt Road")
    players_adjust_play_state(campaign)  # the player types current HP (sheets/policy.py)
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

    # Edit in place: click the current HP, type, Enter. XP is shown but not the player's to type.
    expect(page.get_by_role("button", name="Edit XP: 0")).to_have_count(0)
    page.get_by_role("button", name="Edit HP: 16").click()
    hp_input = page.get_by_label("HP", exact=True)
    hp_input.fill("13")
    hp_input.press("Enter")
    expect(page.get_by_role("button", name="Edit HP: 13")).to_be_visible()
    character.fivebyfive.refresh_from_db()
    assert character.fivebyfive.hp == 13

    # Options: one rank up turns the 4 into a 6.
    page.locator("#roll-options-panel summary").click()
    page.get_by_label("Rank shift").select_option("1")
    expect(chef_button).to_contain_text("Amateur Chef 4 - 63.9%")
    page.get_by_label("Rank shift").select_option("0")
    expect(chef_button).to_contain_text("Amateur Chef 4 - 52.8%")

    # Roll: the result shows its dice. The faces are fixed (the live server runs in this process), so
    # a chance doubles cannot earn the token before the part of the test that looks for it.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([2, 3]))
    page.locator("#roll-buttons").evaluate("buttons => { buttons.dataset.drawnBefore = 'yes'; }")
    chef_button.click()
    result = page.locator("#roll-result")
    expect(result).to_contain_text("Larry: Amateur Chef 4")
    expect(result).to_contain_text("2 × 3 = 6 vs 4, failure")
    expect(result.locator(".die")).to_have_count(2)
    # The roll changed nothing on the sheet: its answer (swapped in whole by now) left the buttons be.
    expect(page.locator("#roll-buttons")).to_have_attribute("data-drawn-before", "yes")
    shoot(page, "fivebyfive-sheet-after-a-quiet-roll", top=True)

    # Doubles earn the token: the sheet shows it held without a reload.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([3, 3]))
    chef_button.click()
    expect(result).to_contain_text("3 × 3 = 9 vs 4, failure · doubles!")
    expect(result).to_contain_text("doubles token earned")
    expect(page.locator("#fbf-token")).to_have_text("held")
    # The token is on the sheet now: the answer drew the buttons afresh (the spend option prices it).
    expect(page.locator("#roll-buttons")).not_to_have_attribute("data-drawn-before", "yes")

    # Spending it makes a 5 trump; afterwards the option unticks itself and the token shows none.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([5, 1]))
    page.get_by_label("Spend the doubles token").check()
    expect(chef_button).to_contain_text("Amateur Chef 4 - 77.8%")
    chef_button.click()
    expect(result).to_contain_text("doubles token spent")
    expect(result.locator(".die-trump")).to_have_count(1)
    expect(page.locator("#fbf-token")).to_have_text("none")
    expect(page.get_by_label("Spend the doubles token")).not_to_be_checked()
    expect(chef_button).to_contain_text("Amateur Chef 4 - 52.8%")
    character.fivebyfive.refresh_from_db()
    assert not character.fivebyfive.doubles_token


def test_gm_awards_xp_and_the_player_buys_a_new_descriptor(new_page, make_campaign, gm, player, other_player):
    """Five by Five l.288-308: the GM awards XP on the sheet; the player spends 2 of it on a new descriptor
    at 2, named in the experience panel."""
    campaign = make_campaign("fivebyfive", players=[player, other_player], name="Salt Road")
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(owner=player)
    page = new_page(width=1280, height=900)
    log_in(page, "gm", PASSWORD)
    page.goto(f"/characters/{larry.pk}/")
    page.get_by_label("Award XP").fill("3")
    page.get_by_role("button", name="Award XP").click()
    expect(page.locator("#messages")).to_contain_text("Larry Booker gains 3 XP.")

    page.context.clear_cookies()
    log_in(page, "player", PASSWORD)
    page.goto(f"/characters/{larry.pk}/")
    expect(page.get_by_role("button", name="Award XP")).to_have_count(0)
    page.get_by_label("Spend XP (3 XP to spend)").select_option(
        label="New descriptor for healing at 2, named below (2 XP)"
    )
    page.get_by_label("Name (for what is new)").fill("Camp Cook")
    page.get_by_role("button", name="Spend XP").click()
    expect(page.locator("#messages")).to_contain_text("Spent 2 XP.")
    expect(page.locator(".fbf-descriptors")).to_contain_text("Camp Cook")
    expect(page.locator(".roll-button", has_text="Camp Cook 2")).to_be_visible()
    row = larry.descriptors.get(name="Camp Cook")
    assert (row.value, row.exclusive_action) == (2, "healing")


def test_gm_lets_time_pass_for_a_dying_character_and_the_player_rests(
    new_page, make_campaign, gm, player, other_player
):
    """Five by Five l.399-401 (a dying character loses 1 HP every 10 + HP minutes) and l.458-459 (1 HP a day
    of natural recovery), in the browser."""
    campaign = make_campaign("fivebyfive", players=[player, other_player], name="Salt Flats")
    players_adjust_play_state(campaign)  # the player rests (sheets/policy.py)
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(name="Larry Booker")
    FiveByFiveSheet.objects.filter(character=larry).update(hp=-1)
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(larry.get_absolute_url())
    banner = gm_page.locator(".fbf-dying")
    expect(banner).to_contain_text("the next HP goes in 9 minutes and death comes in 45 minutes")
    gm_page.get_by_label("Minutes pass").fill("10")
    gm_page.get_by_role("button", name="Time passes").click()
    expect(gm_page.locator("#messages")).to_contain_text("HP -1 -> -2.")
    expect(banner).to_contain_text("the next HP goes in 7 minutes and death comes in 35 minutes")
    shoot(gm_page, "fivebyfive-dying")

    # Healed to 5 by hand, the player rests three days: 8 HP; the "time passes" form is the GM's alone.
    FiveByFiveSheet.objects.filter(character=larry).update(hp=5)
    page = new_page(width=390, height=844)
    log_in(page, player.username, PASSWORD)
    page.goto(larry.get_absolute_url())
    expect(page.get_by_role("button", name="Time passes")).to_have_count(0)
    page.get_by_label("Days of rest").fill("3")
    page.get_by_role("button", name="Rest", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("HP 5 -> 8.")
    expect(page.get_by_role("button", name="Edit HP: 8")).to_be_visible()
    shoot(page, "fivebyfive-rest-390")
