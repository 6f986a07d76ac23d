"""The live table in Debian's chromium: rolls appear without a reload, blind rolls stay with the GM,
and a page rides out a server restart without losing a roll."""

import pytest
from playwright.sync_api import expect

from campaigns import services
from rules.dice import FixedFaces, Roller
from tests.conftest import PASSWORD
from tests.e2e.conftest import log_in

pytestmark = pytest.mark.e2e


def open_table(new_page, user, campaign, **size):
    page = new_page(**size)
    log_in(page, user.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    expect(page.locator("#table-status")).to_have_text("Live")
    return page


def roll_in_dice_box(page, notation: str, visibility: str = "public") -> None:
    page.get_by_label("Who sees it").select_option(visibility)
    page.locator("#id_notation").fill(notation)
    page.get_by_role("button", name="Roll").click()
    # The dice box comes back empty once the server has rolled.
    expect(page.locator("#id_notation")).to_have_value("")


def test_a_roll_shows_on_another_players_table_without_reload(new_page, campaign, gm, player):
    gm_page = open_table(new_page, gm, campaign)
    player_page = open_table(new_page, player, campaign, width=390, height=844)

    roll_in_dice_box(player_page, "4d6kh3 vs 10")

    entry = gm_page.locator("#feed .feed-entry").first
    expect(entry).to_contain_text("4d6kh3 vs 10")
    expect(entry).to_contain_text("player")
    expect(entry.locator(".die")).to_have_count(4)
    expect(entry.locator(".die-dropped")).to_have_count(1)
    expect(entry).to_contain_text("chance")
    expect(player_page.locator("#feed .feed-entry").first).to_contain_text("4d6kh3 vs 10")


def test_bad_notation_shows_where_it_went_wrong(new_page, campaign, player):
    page = open_table(new_page, player, campaign)
    page.locator("#id_notation").fill("2d6+x")
    page.get_by_role("button", name="Roll").click()
    expect(page.locator("#notation-error")).to_contain_text("position 5")
    expect(page.locator("#feed .feed-entry")).to_have_count(0)


def test_a_blind_roll_shows_only_to_the_gm(new_page, campaign, gm, player, other_player):
    gm_page = open_table(new_page, gm, campaign)
    roller_page = open_table(new_page, player, campaign)
    other_page = open_table(new_page, other_player, campaign, width=390, height=844)

    roll_in_dice_box(roller_page, "1d1000", "blind")
    expect(gm_page.locator("#feed .feed-entry").first).to_contain_text("1d1000")
    expect(gm_page.locator("#feed .feed-entry .die")).to_have_count(1)
    expect(roller_page.locator("#feed .feed-entry").first).to_contain_text("A blind roll was made")
    expect(roller_page.locator("#feed .feed-entry .die")).to_have_count(0)

    # A public roll after it proves the other player's feed is live and got nothing of the blind one.
    roll_in_dice_box(roller_page, "2d6", "public")
    expect(other_page.locator("#feed .feed-entry").first).to_contain_text("2d6")
    expect(other_page.locator("#feed .feed-entry")).to_have_count(1)
    expect(other_page.locator("#feed")).not_to_contain_text("1d1000")


def test_after_a_server_restart_the_page_reconnects_and_shows_missed_rolls(
    new_page, asgi_server, campaign, gm, player
):
    page = open_table(new_page, player, campaign)
    roll_in_dice_box(page, "d20")
    expect(page.locator("#feed .feed-entry")).to_have_count(1)

    asgi_server.stop()
    expect(page.locator("#table-status")).to_have_text("Reconnecting…")
    for faces, visibility in (((17,), "public"), ((3,), "gm"), ((11,), "public")):
        services.table_roll_create(
            campaign=campaign,
            author=gm,
            notation_text="1d20",
            visibility=visibility,
            roller=Roller(FixedFaces(faces)),
        )
    asgi_server.start()

    expect(page.locator("#table-status")).to_have_text("Live", timeout=20_000)
    feed = page.locator("#feed .feed-entry")
    expect(feed).to_have_count(3)  # the GM-only roll is not for this player
    expect(feed.nth(0).locator(".die")).to_have_text("11")
    expect(feed.nth(1).locator(".die")).to_have_text("17")

    # And it is live again, not just caught up.
    roll_in_dice_box(page, "d6")
    expect(feed).to_have_count(4)
