"""Blind means the same on every path, in Debian's chromium with three browsers at once: a blind roll
from a sheet button or from a GM's roll request shows its roller that it was made and nothing of it,
in the htmx answer, the roll panel, the page's markup and the socket's raw frames; and no frame or
page a player gets carries a counter from which the hidden entries could be counted."""

import json
import re

import pytest
from playwright.sync_api import expect

from campaigns.models import FeedEntry
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e

DICE_MARKS = ('class="die', "feed-total", "feed-outcome", "data-outcome", "feed-change", "feed-chance")


def browser_for(new_page, user, url):
    """A browser of its own on ``url``; returns (page, every frame its sockets received)."""
    page = new_page()
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    log_in(page, user.username, PASSWORD)
    page.goto(url)
    expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    return page, frames


BARRIER = "Onward, then."


def say_barrier(gm_table):
    """A public chat line from the GM: a page that shows it has heard everything sent before it."""
    gm_table.locator("#chat-box [name=text]").fill(BARRIER)
    gm_table.locator("#chat-box button[type=submit]").click()


def assert_no_counter(frames, page):
    for frame in frames:
        data = json.loads(frame)
        assert "seq" not in data and "last_seq" not in data, data
        assert "data-seq" not in data.get("html", "")
    markup = page.content()
    assert "data-seq" not in markup and "data-last-seq" not in markup
    assert all(re.fullmatch(r"[0-9a-f]{16}", c) for c in re.findall(r'data-cursor="([^"]+)"', markup))


# Two systems: the hidden-roll test below the browser (tests/sheets/test_hidden_rolls.py) covers every
# button of every system; here the raw frames and markup of a real browser.
@pytest.mark.parametrize("system", ["triad", "l5r"])
def test_a_blind_roll_from_a_sheet_button_tells_the_roller_only_that_it_was_made(
    system, new_page, make_campaign, gm, player, other_player
):
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    sheet = campaign.characters.get(owner=player)
    table_url = f"/campaigns/{campaign.pk}/table/"
    roller, roller_frames = browser_for(new_page, player, sheet.get_absolute_url())
    roller_table = roller.context.new_page()
    roller_table_frames = []
    roller_table.on("websocket", lambda ws: ws.on("framereceived", lambda p: roller_table_frames.append(p)))
    roller_table.goto(table_url)
    expect(roller_table.locator("#table-status")).to_have_text("Live")
    gm_table, gm_frames = browser_for(new_page, gm, table_url)
    other, other_frames = browser_for(new_page, other_player, table_url)

    roller.bring_to_front()  # back from the table's tab, which opened in front of the sheet
    roller.locator("#roll-options-panel summary").click()
    # Who sees it changes no chance: choosing it asks for no redrawn buttons (a click landing while they
    # were redrawn was lost), and the roll still carries it (hx-include).
    repriced = []
    roller.on("request", lambda request: "/buttons/" in request.url and repriced.append(request.url))
    roller.get_by_label("Who sees the roll").select_option("blind")
    with roller.expect_response(re.compile(r"/roll/")) as answer:
        roller.locator(".roll-button").first.click()
    assert repriced == []
    body = answer.value.text()
    assert answer.value.status == 200
    assert "A blind roll was made" in body
    for mark in DICE_MARKS:
        assert mark not in body, mark
    entry = FeedEntry.objects.get(campaign=campaign)
    assert entry.visibility == "blind" and entry.summary and entry.summary not in body

    result = roller.locator("#roll-result")
    expect(result).to_contain_text("A blind roll was made")
    assert entry.summary not in roller.content()
    expect(result.locator(".die")).to_have_count(0)

    # The GM's table has the whole roll; the roller's table only the notice; the other player nothing.
    expect(gm_table.locator("#feed .feed-entry").first).to_contain_text(entry.label)
    expect(gm_table.locator("#feed .feed-entry").first.locator(".feed-body")).not_to_contain_text(
        "blind roll was made"
    )
    expect(roller_table.locator("#feed .feed-entry").first).to_contain_text("A blind roll was made")
    assert entry.summary not in roller_table.content()
    say_barrier(gm_table)
    # The GM's line arrives after the blind roll's frame would have: by then nothing else came.
    expect(other.locator("#feed .feed-entry")).to_have_count(1)
    expect(other.locator("#feed .feed-entry").first).to_contain_text(BARRIER)
    for frame in [*roller_frames, *roller_table_frames, *other_frames]:
        for mark in DICE_MARKS:
            assert mark not in frame, (mark, frame)
        assert entry.summary not in frame
    assert any(entry.summary in frame or "feed-body" in frame for frame in gm_frames)
    for page, frames in ((roller, roller_frames), (roller_table, roller_table_frames), (other, other_frames)):
        assert_no_counter(frames, page)


def test_a_blind_request_answer_shows_the_notice_and_hidden_rolls_leave_no_gap(
    new_page, make_campaign, gm, player, other_player
):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    sheet = campaign.characters.get(owner=player)
    table_url = f"/campaigns/{campaign.pk}/table/"
    gm_table, _ = browser_for(new_page, gm, table_url)
    roller, roller_frames = browser_for(new_page, player, sheet.get_absolute_url())
    other, other_frames = browser_for(new_page, other_player, table_url)

    # Some public rolls, and GM-only ones between them that the other player must not be able to count.
    for notation, visibility in (("d6", "public"), ("d8", "gm"), ("d10", "gm"), ("d12", "public")):
        gm_table.locator("#dice-box").get_by_label("Who sees it").select_option(visibility)
        gm_table.locator("#id_notation").fill(notation)
        gm_table.get_by_role("button", name="Roll").click()
        expect(gm_table.locator("#id_notation")).to_have_value("")
    expect(other.locator("#feed .feed-entry")).to_have_count(2)

    requests = gm_table.locator("#requests-gm")
    requests.locator("summary").click()
    requests.locator("[name=label]").fill("Spot the ambush")
    requests.locator(f"[name=characters][value='{sheet.pk}']").check()
    requests.locator("[name=visibility]").select_option("blind")
    requests.get_by_role("button", name="Ask").click()
    prompt = roller.locator(".roll-prompt")
    expect(prompt).to_contain_text("Spot the ambush")

    with roller.expect_response(re.compile(r"/requests/")) as answer:
        prompt.locator(".roll-button").first.click()
    body = answer.value.text()
    assert "A blind roll was made" in body
    for mark in DICE_MARKS:
        assert mark not in body, mark
    expect(roller.locator("#sheet-requests")).to_contain_text("A blind roll was made")
    entry = FeedEntry.objects.filter(campaign=campaign).latest("seq")
    assert entry.visibility == "blind"
    expect(gm_table.locator("#requests-gm")).to_contain_text(entry.summary)
    assert entry.summary not in roller.content()

    say_barrier(gm_table)
    expect(other.locator("#feed .feed-entry")).to_have_count(3)
    expect(other.locator("#feed .feed-entry").first).to_contain_text(BARRIER)
    assert_no_counter(roller_frames, roller)
    assert_no_counter(other_frames, other)
    # The two cursors the other player holds say nothing of the two hidden entries between them.
    shown = other.locator("#feed .feed-entry").evaluate_all("nodes => nodes.map(n => n.dataset.cursor)")
    assert len(set(shown)) == 3 and all(re.fullmatch(r"[0-9a-f]{16}", c) for c in shown)
