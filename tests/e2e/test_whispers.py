"""Whispers in Debian's chromium, three browsers at one table (conftest's campaign: the GM, "player" and
"other"): the GM's page shows player's whisper live, other's page never does (checked once a later
public line has reached it: entries arrive in order, so the whisper would have come first)."""

import pytest
from playwright.sync_api import expect

from tests.e2e.test_table import open_table

from .session import shoot

pytestmark = pytest.mark.e2e


def say(page, text: str) -> None:
    page.locator("#id_text").fill(text)
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#id_text")).to_have_value("")  # the chat box comes back empty once saved


def test_a_whisper_to_the_gm_shows_live_on_the_gms_page_and_never_on_the_others(
    new_page, campaign, gm, player, other_player
):
    gm_page = open_table(new_page, gm, campaign)
    player_page = open_table(new_page, player, campaign)
    other_page = open_table(new_page, other_player, campaign, width=390, height=844)

    say(player_page, "/w gm the idol is fake [[1d20+3]]")
    whisper = gm_page.locator("#feed .feed-chat").filter(has_text="the idol is fake")
    expect(whisper).to_have_count(1)
    expect(whisper.locator(".feed-vis")).to_have_text("whisper")
    expect(whisper.locator(".feed-to")).to_have_text("to gm")
    expect(gm_page.locator("#feed .feed-entry")).to_have_count(2)  # the line and its roll
    expect(player_page.locator("#feed .feed-chat").filter(has_text="the idol is fake")).to_have_count(1)

    # The dice box: tick other's name; the GM sees it too, as every whisper.
    player_page.get_by_label("other", exact=True).check()
    player_page.locator("#id_notation").fill("2d6+1")
    player_page.get_by_role("button", name="Roll").click()
    expect(player_page.locator("#id_notation")).to_have_value("")
    # The choice sticks for the next roll.
    expect(player_page.get_by_label("other", exact=True)).to_be_checked()
    expect(gm_page.locator("#feed .feed-roll").filter(has_text="2d6+1").locator(".feed-to")).to_have_text(
        "to other"
    )
    expect(other_page.locator("#feed .feed-roll").filter(has_text="2d6+1")).to_have_count(1)

    say(player_page, "the door opens")
    expect(other_page.locator("#feed .feed-chat").filter(has_text="the door opens")).to_have_count(1)
    expect(gm_page.locator("#feed .feed-chat").filter(has_text="the door opens")).to_have_count(1)
    # Other got the public line, after the whisper to the GM: that whisper never reached their page.
    expect(other_page.locator("#feed .feed-entry")).to_have_count(2)
    assert "the idol is fake" not in other_page.content()
    other_page.reload()
    expect(other_page.locator("#table-status")).to_have_text("Live")
    expect(other_page.locator("#feed .feed-entry")).to_have_count(2)
    assert "the idol is fake" not in other_page.content()
    shoot(gm_page, "table-whispers-gm")
    shoot(other_page, "table-whispers-other")


def test_a_whisper_to_nobody_at_the_table_keeps_the_line_and_says_why(new_page, campaign, player):
    page = open_table(new_page, player, campaign)
    page.locator("#id_text").fill("/w zed meet me at dawn")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#chat-error")).to_have_text("Nobody called “zed” sits at this table.")
    expect(page.locator("#id_text")).to_have_value("/w zed meet me at dawn")
    expect(page.locator("#id_text")).to_have_attribute("aria-describedby", "chat-error")
    page.locator("#dice-visibility").select_option("whisper")
    page.locator("#id_notation").fill("d20")
    page.get_by_role("button", name="Roll").click()
    expect(page.locator("#whisper-error")).to_have_text("Choose who to whisper to.")
    expect(page.locator("#id_notation")).to_have_value("d20")
    expect(page.locator("#feed .feed-entry")).to_have_count(0)


def roll(page, line: str) -> None:
    page.locator("#id_notation").fill(line)
    page.locator("#dice-box").get_by_role("button", name="Roll").click()
    expect(page.locator("#id_notation")).to_have_value("")  # the box comes back empty once rolled


def test_a_w_line_whispers_once_and_the_box_returns_to_its_own_choice(
    new_page, campaign, gm, player, other_player
):
    gm_page = open_table(new_page, gm, campaign)
    player_page = open_table(new_page, player, campaign)
    other_page = open_table(new_page, other_player, campaign)

    roll(player_page, "/w other 1d6")
    expect(other_page.locator("#feed .feed-roll").filter(has_text="1d6").locator(".feed-to")).to_have_text(
        "to other"
    )
    # The box is back to what the player chose: "Everyone", nobody ticked.
    expect(player_page.locator("#dice-visibility")).to_have_value("public")
    expect(player_page.get_by_label("other", exact=True)).not_to_be_checked()

    roll(player_page, "/w gm 1d20 # the plan")
    plan = gm_page.locator("#feed .feed-roll").filter(has_text="the plan")
    expect(plan.locator(".feed-to")).to_have_text("to gm")

    roll(player_page, "3d4")  # a plain line: public again
    expect(other_page.locator("#feed .feed-roll").filter(has_text="3d4")).to_have_count(1)
    expect(other_page.locator("#feed .feed-roll").filter(has_text="3d4").locator(".feed-vis")).to_have_count(
        0
    )
    expect(other_page.locator("#feed .feed-entry")).to_have_count(2)  # the 1d6 whisper and the 3d4
    assert "the plan" not in other_page.content()


def test_a_near_miss_whisper_is_refused_on_the_box_and_never_posted(new_page, campaign, player, other_player):
    page = open_table(new_page, player, campaign)
    other_page = open_table(new_page, other_player, campaign)
    page.locator("#id_notation").fill("/wother 1d20")
    expect(page.locator("#dice-odds-error")).to_contain_text("Did you mean “/w other 1d20”")  # while typed
    page.locator("#dice-box").get_by_role("button", name="Roll").click()
    expect(page.locator("#notation-field-error")).to_contain_text(
        "Did you mean “/w other 1d20”, with a space?"
    )
    expect(page.locator("#id_notation")).to_have_value("/wother 1d20")
    page.locator("#id_text").fill("/w\u200bother we go at dawn")
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#chat-error")).to_contain_text("U+200B ZERO WIDTH SPACE")
    say(page, "/w other, we go at dawn")
    expect(other_page.locator("#feed .feed-chat .feed-body")).to_have_text("we go at dawn")
    expect(page.locator("#feed .feed-entry")).to_have_count(1)
