"""Notices (static/js/notices.js): while a page is hidden, what is addressed to its viewer (a whisper to
them, a roll request, their turn) counts in the tab's title and on the table's feed badge, once each; the
viewer's own lines and what is not addressed to them never count; back in view, the count clears. The
browser notification and the tone are opt-in, asked for on a click only, and never carry a whisper's text.

Hidden is simulated in the page (document.hidden and visibilityState, then a visibilitychange event)."""

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import PHONE, crypt_fight, current_name, next_turn, shoot
from .test_table import open_table, roll_in_dice_box
from .test_whispers import say

pytestmark = pytest.mark.e2e


SET_HIDDEN = """(hidden) => {
  Object.defineProperty(document, "hidden", {value: hidden, configurable: true});
  const state = hidden ? "hidden" : "visible";
  Object.defineProperty(document, "visibilityState", {value: state, configurable: true});
  document.dispatchEvent(new Event("visibilitychange"));
}"""

# A Notification and an AudioContext that record what the page does with them. The permission the
# "user" gives is kept in localStorage, as a browser would keep it across a reload.
RECORDERS = """
window.__notices = {notifications: [], asked: 0, tones: 0};
(function () {
  function Recorded(title, options) {
    window.__notices.notifications.push({title: title, body: (options && options.body) || ""});
    this.close = function () {};
  }
  Object.defineProperty(Recorded, "permission", {
    get: function () { return localStorage.getItem("test-permission") || "default"; }
  });
  Recorded.requestPermission = function () {
    window.__notices.asked += 1;
    localStorage.setItem("test-permission", "granted");
    return Promise.resolve("granted");
  };
  window.Notification = Recorded;
  function Audio() { this.state = "running"; this.currentTime = 0; this.destination = {}; }
  var param = {setValueAtTime: function () {}, exponentialRampToValueAtTime: function () {}};
  Audio.prototype.resume = function () { return Promise.resolve(); };
  Audio.prototype.createGain = function () { return {gain: param, connect: function () {}}; };
  Audio.prototype.createOscillator = function () {
    return {frequency: param, connect: function () {}, stop: function () {},
            start: function () { window.__notices.tones += 1; }};
  };
  window.AudioContext = Audio;
})();
"""


def set_hidden(page, hidden: bool) -> None:
    page.evaluate(SET_HIDDEN, hidden)


def table_title(campaign) -> str:
    return f"Table · {campaign.name} · Tabletop"


def expect_unread(page, campaign, count: int) -> None:
    expect(page).to_have_title(f"({count}) {table_title(campaign)}" if count else table_title(campaign))
    badge = page.locator("#feed-unread")
    expect(badge).to_have_attribute("data-count", str(count))
    if count:
        expect(badge).to_have_text(f"{count} new for you")
        expect(badge).to_be_visible()
    else:
        expect(badge).to_have_text("")
        expect(badge).to_be_hidden()


def test_whispers_to_the_viewer_count_while_hidden_and_nothing_else_does(
    new_page, campaign, gm, player, other_player
):
    gm_page = open_table(new_page, gm, campaign)
    player_page = open_table(new_page, player, campaign)
    other_page = open_table(new_page, other_player, campaign, **PHONE)
    expect_unread(player_page, campaign, 0)

    # In view, a whisper is simply read: it never counts, now or later.
    say(gm_page, "/w player welcome back")
    expect(player_page.locator("#feed .feed-chat").filter(has_text="welcome back")).to_have_count(1)

    set_hidden(player_page, True)
    set_hidden(gm_page, True)
    say(gm_page, "/w player the idol is fake")
    expect(player_page.locator("#feed .feed-chat").filter(has_text="the idol is fake")).to_have_count(1)
    expect_unread(player_page, campaign, 1)
    expect_unread(gm_page, campaign, 0)  # the GM's own whisper is no notice to the GM

    # None of these is for the player: their own whispers, a public roll, a whisper between others.
    say(player_page, "/w gm I pocket it")
    say(player_page, "/w other meet me outside")  # the GM sees every whisper: this one is not to them
    roll_in_dice_box(other_page, "3d6")
    say(other_page, "/w gm I saw that")
    expect(gm_page.locator("#feed .feed-chat").filter(has_text="I saw that")).to_have_count(1)
    # The GM was whispered to twice (never by themselves; the whisper between players is not theirs).
    expect(gm_page.locator("#feed .feed-chat").filter(has_text="meet me outside")).to_have_count(1)
    expect_unread(gm_page, campaign, 2)

    # Entries arrive in order: once this one is in, the three before it were looked at, and not counted.
    say(gm_page, "/w player, other the floor gives")
    expect(player_page.locator("#feed .feed-chat").filter(has_text="the floor gives")).to_have_count(1)
    expect(player_page.locator("#feed .feed-roll").filter(has_text="3d6")).to_have_count(1)
    expect_unread(player_page, campaign, 2)
    expect(other_page).to_have_title(table_title(campaign))  # other's page was in view throughout

    # Back in view: cleared; hidden again, only what is new counts.
    set_hidden(player_page, False)
    expect_unread(player_page, campaign, 0)
    set_hidden(player_page, True)
    say(gm_page, "/w player one more")
    expect_unread(player_page, campaign, 1)
    shoot(player_page, "notices-desktop", whole=False)
    set_hidden(player_page, False)
    set_hidden(gm_page, False)
    expect_unread(player_page, campaign, 0)
    expect_unread(gm_page, campaign, 0)


def test_the_badge_on_a_phone(new_page, campaign, gm, player):
    gm_page = open_table(new_page, gm, campaign)
    phone = open_table(new_page, player, campaign, **PHONE)
    set_hidden(phone, True)
    say(gm_page, "/w player look behind you")
    expect_unread(phone, campaign, 1)
    phone.locator("#feed-unread").scroll_into_view_if_needed()
    shoot(phone, "notices-phone", whole=False)


REFRESH_PANELS = """(selector) => Promise.all(Array.from(document.querySelectorAll(selector)).map((panel) =>
  htmx.ajax("GET", panel.getAttribute("data-refresh-url"),
            {source: panel, target: panel, swap: "outerHTML", headers: {"X-Live-Refresh": "1"}})))"""


def test_a_roll_request_counts_once_however_often_its_panel_is_fetched(
    new_page, make_campaign, gm, player, other_player
):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    player_page = open_table(new_page, player, campaign)
    gm_page = open_table(new_page, gm, campaign)
    set_hidden(player_page, True)
    set_hidden(gm_page, True)

    panel = gm_page.locator("#requests-gm")
    panel.locator("summary").click()
    panel.locator("input[name=characters]").first.check()
    panel.locator("#id_label").fill("Read the ancient text")
    panel.locator("#id_roll_key").select_option("ability:mind")
    panel.locator("#id_difficulty").fill("16")
    panel.get_by_role("button", name="Ask").click()

    prompt = player_page.locator(".roll-prompt")
    expect(prompt).to_contain_text("Read the ancient text")
    expect_unread(player_page, campaign, 1)
    # Fetched again (as every reconnect and every change to requests does), morphed in: still one.
    for _ in range(2):
        player_page.evaluate(REFRESH_PANELS, "[data-live-panel=requests]")
    expect(prompt).to_have_count(1)
    expect_unread(player_page, campaign, 1)
    expect_unread(gm_page, campaign, 0)  # the GM's own request

    set_hidden(player_page, False)
    expect_unread(player_page, campaign, 0)
    player_page.evaluate(REFRESH_PANELS, "[data-live-panel=requests]")
    set_hidden(player_page, True)
    player_page.evaluate(REFRESH_PANELS, "[data-live-panel=requests]")
    expect(prompt).to_have_count(1)
    expect_unread(player_page, campaign, 0)


def test_your_turn_counts_once_per_turn(new_page, make_campaign, gm, player, other_player, monkeypatch):
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    encounter = crypt_fight(campaign, [player, other_player])
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    helsing = campaign.characters.get(owner=player)
    player_page = open_table(new_page, player, campaign)
    set_hidden(player_page, True)

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(encounter.get_absolute_url())
    faces[:] = [3] * 6
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.locator(".encounter-round")).to_have_text("1")
    while current_name(encounter) != helsing.name:
        now = current_name(encounter)
        next_turn(gm_page)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_have_count(0)

    expect(player_page.locator("#turn-panel.is-your-turn")).to_be_visible()
    expect(player_page.locator("#turn-panel")).to_have_attribute("data-notice", "turn")
    expect_unread(player_page, campaign, 1)
    for _ in range(2):
        player_page.evaluate(REFRESH_PANELS, "#turn-panel")
    expect(player_page.locator("#turn-panel.is-your-turn")).to_be_visible()
    expect_unread(player_page, campaign, 1)
    set_hidden(player_page, False)
    expect_unread(player_page, campaign, 0)


def test_notify_me_asks_on_its_click_only_and_says_nothing_of_the_whisper(new_page, campaign, gm, player):
    gm_page = open_table(new_page, gm, campaign)
    page = new_page()
    page.context.add_init_script(RECORDERS)
    log_in(page, player.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    expect(page.locator("#table-status")).to_have_text("Live")
    notices = "() => window.__notices"

    # Off by default: a hidden page counts, but rings and notifies nothing, and nothing was asked on load.
    expect(page.get_by_label("Sound")).not_to_be_checked()
    expect(page.get_by_label("Notify me")).not_to_be_checked()
    set_hidden(page, True)
    say(gm_page, "/w player first secret")
    expect_unread(page, campaign, 1)
    assert page.evaluate(notices) == {"notifications": [], "asked": 0, "tones": 0}

    set_hidden(page, False)
    page.get_by_label("Notify me").check()  # a click: the one moment the page asks
    expect(page.get_by_label("Notify me")).to_be_checked()
    page.get_by_label("Sound").focus()
    page.keyboard.press("Space")  # keyboard works as well as a click
    expect(page.get_by_label("Sound")).to_be_checked()
    assert page.evaluate(notices)["asked"] == 1

    # In view: nothing.
    say(gm_page, "/w player in plain sight")
    expect(page.locator("#feed .feed-chat").filter(has_text="in plain sight")).to_have_count(1)
    assert page.evaluate(notices)["notifications"] == []

    set_hidden(page, True)
    say(gm_page, "/w player the password is xyzzy")
    expect_unread(page, campaign, 1)
    recorded = page.evaluate(notices)
    assert recorded["notifications"] == [{"title": "A whisper for you", "body": table_title(campaign)}]
    assert recorded["tones"] == 1
    assert "xyzzy" not in str(recorded)

    # Remembered by this browser; the reload asks nothing.
    page.reload()
    expect(page.locator("#table-status")).to_have_text("Live")
    expect(page.get_by_label("Notify me")).to_be_checked()
    expect(page.get_by_label("Sound")).to_be_checked()
    assert page.evaluate(notices)["asked"] == 0
    # Turned off: no more notifications.
    page.get_by_label("Notify me").uncheck()
    page.get_by_label("Sound").uncheck()
    set_hidden(page, True)
    say(gm_page, "/w player last one")
    expect_unread(page, campaign, 1)
    assert page.evaluate(notices) == {"notifications": [], "asked": 0, "tones": 0}
