"""Whispers in Debian's chromium, three players' browsers at one table: the GM's page shows alice's
whisper live, bob's page never does (checked once a later public line has reached it: entries arrive
in order, so the whisper would have come first)."""

import os

import pytest
from playwright.sync_api import expect

from tests.e2e.test_table import open_table

pytestmark = pytest.mark.e2e

SHOTS = os.environ.get("SCREENSHOT_DIR")


@pytest.fixture(autouse=True)
def fresh_rate_limits():
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def alice(make_user):
    return make_user("alice")


@pytest.fixture
def bob(make_user):
    return make_user("bob")


@pytest.fixture
def table(make_campaign, alice, bob):
    return make_campaign("triad", players=[alice, bob])


def say(page, text: str) -> None:
    page.locator("#id_text").fill(text)
    page.get_by_role("button", name="Send").click()
    expect(page.locator("#id_text")).to_have_value("")  # the chat box comes back empty once saved


def test_a_whisper_to_the_gm_shows_live_on_the_gms_page_and_never_on_bobs(new_page, table, gm, alice, bob):
    gm_page = open_table(new_page, gm, table)
    alice_page = open_table(new_page, alice, table)
    bob_page = open_table(new_page, bob, table, width=390, height=844)

    say(alice_page, "/w gm the idol is fake [[1d20+3]]")
    whisper = gm_page.locator("#feed .feed-chat").filter(has_text="the idol is fake")
    expect(whisper).to_have_count(1)
    expect(whisper.locator(".feed-vis")).to_have_text("whisper")
    expect(whisper.locator(".feed-to")).to_have_text("to gm")
    expect(gm_page.locator("#feed .feed-entry")).to_have_count(2)  # the line and its roll
    expect(alice_page.locator("#feed .feed-chat").filter(has_text="the idol is fake")).to_have_count(1)

    # The dice box: tick bob's name; the GM sees it too, as every whisper.
    alice_page.get_by_label("bob").check()
    alice_page.locator("#id_notation").fill("2d6+1")
    alice_page.get_by_role("button", name="Roll").click()
    expect(alice_page.locator("#id_notation")).to_have_value("")
    expect(alice_page.get_by_label("bob")).to_be_checked()  # the choice sticks for the next roll
    expect(gm_page.locator("#feed .feed-roll").filter(has_text="2d6+1").locator(".feed-to")).to_have_text(
        "to bob"
    )
    expect(bob_page.locator("#feed .feed-roll").filter(has_text="2d6+1")).to_have_count(1)

    say(alice_page, "the door opens")
    expect(bob_page.locator("#feed .feed-chat").filter(has_text="the door opens")).to_have_count(1)
    expect(gm_page.locator("#feed .feed-chat").filter(has_text="the door opens")).to_have_count(1)
    # Bob got the public line, after the whisper to the GM: that whisper never reached his page.
    expect(bob_page.locator("#feed .feed-entry")).to_have_count(2)
    assert "the idol is fake" not in bob_page.content()
    bob_page.reload()
    expect(bob_page.locator("#table-status")).to_have_text("Live")
    expect(bob_page.locator("#feed .feed-entry")).to_have_count(2)
    assert "the idol is fake" not in bob_page.content()
    if SHOTS:
        gm_page.screenshot(path=os.path.join(SHOTS, "table-whispers-gm.png"), full_page=True)
        bob_page.screenshot(path=os.path.join(SHOTS, "table-whispers-bob.png"), full_page=True)


def test_a_whisper_to_nobody_at_the_table_keeps_the_line_and_says_why(new_page, table, alice):
    page = open_table(new_page, alice, table)
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
