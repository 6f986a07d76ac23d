"""The dice box in Debian's chromium: the exact odds of the line appear and change as it is typed."""

import pytest
from playwright.sync_api import expect

from tests.conftest import PASSWORD
from tests.e2e.conftest import log_in
from tests.e2e.session import shoot

pytestmark = pytest.mark.e2e


def open_table(new_page, user, campaign):
    page = new_page()
    violations = []
    page.on(
        "console",
        lambda message: violations.append(message.text) if "Content Security" in message.text else None,
    )
    log_in(page, user.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    expect(page.locator("#table-status")).to_have_text("Live")
    return page, violations


def test_typing_2d6_draws_its_distribution_and_it_follows_the_line(new_page, campaign, player):
    page, violations = open_table(new_page, player, campaign)
    odds = page.locator("#dice-odds")
    expect(odds).to_contain_text("Type a line")

    page.locator("#id_notation").press_sequentially("2d6", delay=60)
    chart = odds.get_by_role("img", name="Chance of each total of 2d6")
    expect(chart).to_be_visible()
    expect(odds.locator("rect.dist-bar")).to_have_count(11)
    expect(odds.locator("figcaption")).to_have_text("Totals 2 to 12, mean 7; most likely 7 (16.7%).")

    # Every total, exactly, behind a disclosure for anyone who wants the figures.
    odds.get_by_text("Every total").click()
    expect(odds.get_by_role("row", name="7 16.7% 1/6")).to_be_visible()

    # Keep typing: the picture becomes that of the new line, with its chance against the target.
    page.locator("#id_notation").press("End")
    page.locator("#id_notation").press_sequentially("+1 vs 9", delay=40)
    expect(odds.get_by_role("img", name="Chance of each total of 2d6+1 vs 9")).to_be_visible()
    expect(odds.locator("figcaption")).to_contain_text("Chance of 9 or more: 41.7% (5/12).")
    expect(odds.locator("rect.dist-bar-hit")).to_have_count(5)  # 9 to 13

    # A mistake shows where it is, and a roll leaves the box (and its picture) fresh.
    page.locator("#id_notation").fill("2d6+")
    expect(odds).to_contain_text("at position 5")
    page.locator("#id_notation").fill("2d6")
    expect(odds.locator("rect.dist-bar")).to_have_count(11)
    page.get_by_role("button", name="Roll").click()
    expect(page.locator("#id_notation")).to_have_value("")
    expect(odds).to_contain_text("Type a line")
    expect(page.locator("#feed .feed-entry").first).to_contain_text("2d6")
    assert violations == []


def test_a_roll_inside_a_chat_line_shows_in_the_line_on_another_table(new_page, campaign, gm, player):
    gm_page, _ = open_table(new_page, gm, campaign)
    player_page, violations = open_table(new_page, player, campaign)
    player_page.locator("#id_text").fill("I attack [[1d20+5]]")
    player_page.get_by_role("button", name="Send").click()

    line = gm_page.locator("#feed .feed-chat").first
    expect(line).to_contain_text("I attack")
    inline = line.locator("a.inline-roll")
    expect(inline).to_have_count(1)
    total = int(inline.inner_text().split()[-1])
    assert 6 <= total <= 25
    # The roll is an entry of its own, with its die, and the line links to it.
    roll = gm_page.locator("#feed .feed-roll").first
    expect(roll).to_contain_text("1d20+5")
    expect(roll.locator(".die")).to_have_count(1)
    assert inline.get_attribute("href") == "#" + roll.get_attribute("id")
    expect(inline).to_have_attribute("title", f"1d20 [{total - 5}] + 5 = {total}")
    assert violations == []


def test_a_line_whose_exact_chance_is_out_of_reach_is_refused_on_the_field(new_page, campaign, player):
    page, violations = open_table(new_page, player, campaign)
    page.locator("#id_notation").fill("10k10 vs 150")
    expect(page.locator("#dice-odds")).to_contain_text("A TN past 134 for 10k10")  # while typed
    page.locator("#dice-box").get_by_role("button", name="Roll").click()
    expect(page.locator("#notation-error")).to_contain_text("A TN past 134 for 10k10 at position 7")
    expect(page.locator("#id_notation")).to_have_value("10k10 vs 150")
    expect(page.locator("#feed li")).to_have_count(0)
    assert not violations


def test_roll20_commands_roll_preview_and_are_listed_in_the_help(new_page, campaign, gm, player):
    gm_page, _ = open_table(new_page, gm, campaign)
    page, violations = open_table(new_page, player, campaign)
    page.locator("#dice-commands summary").click()
    help_list = page.locator("#dice-commands")
    for command in (
        "/r 1d20+5",
        "/gr 1d20",
        "/broll 1d20",
        "/sr 1d20",
        "/em draws her sword",
        "/w alice 2d6",
    ):
        expect(help_list).to_contain_text(command)

    page.locator("#id_notation").press_sequentially("/r 2d6", delay=40)
    odds = page.locator("#dice-odds")
    expect(odds.get_by_role("img", name="Chance of each total of 2d6")).to_be_visible()
    expect(odds.locator("rect.dist-bar")).to_have_count(11)

    page.locator("#id_notation").fill("/r 1d20 # attack")
    page.get_by_role("button", name="Roll").click()
    expect(page.locator("#id_notation")).to_have_value("")
    expect(gm_page.locator("#feed .feed-roll").filter(has_text="attack")).to_have_count(1)

    page.locator("#id_notation").fill("/gr 1d20 # secret door")
    page.get_by_role("button", name="Roll").click()
    expect(
        gm_page.locator("#feed .feed-roll").filter(has_text="secret door").locator(".feed-vis")
    ).to_have_text("GM only")
    expect(page.locator("#dice-visibility")).to_have_value("public")  # /gr was for its line only

    page.locator("#id_notation").fill("/me draws her sword")
    page.get_by_role("button", name="Roll").click()
    expect(gm_page.locator("#feed .feed-emote")).to_have_text("player draws her sword")
    assert violations == []


def test_line_after_line_the_box_stays_as_the_player_set_it(new_page, campaign, player):
    """A roll's answer swaps in a fresh key and an empty line, nothing else (campaigns.views.table_roll):
    the choices, the open Commands list and the cursor stay; a box showing an error is drawn whole."""
    page, violations = open_table(new_page, player, campaign)
    page.locator("#dice-commands summary").click()
    page.locator("#dice-visibility").select_option("gm")
    line = page.locator("#id_notation")
    feed = page.locator("#feed .feed-roll")
    for number, text in enumerate(["2d6 # first", "1d20 # second"], start=1):
        line.fill(text)
        with page.expect_response(lambda response: response.url.endswith("/table/roll/")) as answer:
            line.press("Enter")
        assert answer.value.headers.get("hx-reswap") == "none"  # the box itself was not sent again
        expect(feed).to_have_count(number)
        expect(line).to_have_value("")
        expect(line).to_be_focused()
    expect(page.locator("#dice-commands")).to_have_attribute("open", "")
    expect(page.locator("#dice-visibility")).to_have_value("gm")
    expect(feed.first.locator(".feed-vis")).to_have_text("GM only")

    # The odds of a line still on their way when its roll is answered land nowhere: the box stays reset.
    held = []
    page.route("**/table/odds/**", lambda route: held.append(route))
    with page.expect_request("**/table/odds/**"):
        line.fill("3d6")
    line.press("Enter")
    expect(feed).to_have_count(3)
    expect(line).to_have_value("")
    with page.expect_response("**/table/odds/**"):
        held[0].continue_()
    page.unroute("**/table/odds/**")
    odds = page.locator("#dice-odds")
    expect(odds).to_contain_text("Type a line")
    expect(odds.get_by_role("img")).to_have_count(0)

    # A mistake comes back as the whole box with its message; the next good line clears it.
    line.fill("2d6+")
    line.press("Enter")
    expect(page.locator("#notation-error")).to_contain_text("position 5")
    line.fill("2d6 # fourth")
    line.press("Enter")
    expect(feed).to_have_count(4)
    expect(page.locator("#notation-error")).to_have_count(0)
    expect(line).to_have_value("")
    assert violations == []
    shoot(page, "dice-box-line-after-line", top=True)  # last: Playwright's own style for the shot trips CSP
