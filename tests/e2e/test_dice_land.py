"""Dice that land (static/js/dice.js), in Debian's chromium with three browsers at once: a roll that
arrives tumbles into place, its real faces for whoever may see it whole, blank ghost dice for a blind
roll's roller, and nothing at all for whoever may see nothing. For every visibility the pages that may
not see the roll never hold its face: not in a socket frame, not in the DOM on any animation frame
while the dice tumble, not after they land. The roller's own roll lands from the socket frame like
everyone else's; what the page was drawn with, and a page of older entries, never tumbles; the
"Animate dice" switch and prefers-reduced-motion turn it off."""

import re
import secrets

import pytest
from playwright.sync_api import expect

from campaigns import services
from campaigns.models import FeedEntry
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD, wire

from .conftest import log_in
from .session import expect_live, shoot, table_url
from .test_blind import BARRIER, say_barrier

pytestmark = pytest.mark.e2e

# One die whose face cannot be mistaken for anything else on the page or the wire: no id, time or count
# reaches 987 in a test, and a cursor (hex) around the digits is not the number.
FACE = 987
LINE = "1d1000"
SECRET = re.compile(rf"(?<![0-9A-Za-z]){FACE}(?![0-9A-Za-z])")

# Put in every page before its own scripts run: what dice.js does, as the page saw it. Each time an entry
# gets or loses data-landing, what it held then; on every animation frame while one lands, the same again;
# after every change to the page and on every such frame, whether the face is anywhere in its markup.
RECORDER = """
window.__dice = {landed: [], cleared: [], frames: [], leaks: [], watching: false};
(function () {
  var log = window.__dice;
  var secret = new RegExp("(?<![0-9A-Za-z])FACE(?![0-9A-Za-z])");
  function look(entry) {
    return {cursor: entry.getAttribute("data-cursor"), dice: entry.querySelectorAll(".die").length,
            ghosts: entry.querySelectorAll(".ghost-die").length, text: entry.textContent,
            animations: entry.getAnimations({subtree: true}).length};
  }
  function leaked(when) {
    if (secret.test(document.documentElement.outerHTML)) { log.leaks.push(when); }
  }
  function everyFrame() {
    var landing = document.querySelectorAll(".feed-entry[data-landing]");
    landing.forEach(function (entry) { log.frames.push(look(entry)); });
    leaked("frame");
    if (landing.length) { requestAnimationFrame(everyFrame); } else { log.watching = false; }
  }
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      if (record.type !== "attributes") { return; }
      var entry = record.target;
      (entry.hasAttribute("data-landing") ? log.landed : log.cleared).push(look(entry));
    });
    leaked("change");
    if (!log.watching && document.querySelector(".feed-entry[data-landing]")) {
      log.watching = true;
      requestAnimationFrame(everyFrame);
    }
  }).observe(document, {subtree: true, childList: true, characterData: true, attributes: true,
                        attributeFilter: ["data-landing"]});
})();
""".replace("FACE", str(FACE))


def seat(new_page, user, url, *, reduced_motion=False):
    """A browser of its own on ``url`` with the recorder in place; returns (page, its sockets' frames)."""
    page = new_page()
    page.context.add_init_script(RECORDER)
    if reduced_motion:
        page.emulate_media(reduced_motion="reduce")
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
    log_in(page, user.username, PASSWORD)
    page.goto(url)
    expect_live(page)
    return page, frames


def shown(page, cursor: str):
    """The entry with this cursor in the page's feed."""
    return page.locator(f'.feed-entry[data-cursor="{cursor}"]')


def moving(entry) -> int:
    """How many animations run in the entry now."""
    return entry.evaluate("e => e.getAnimations({subtree: true}).length")


def record(page, what: str, cursor: str) -> list[dict]:
    return page.evaluate(
        "([what, cursor]) => window.__dice[what].filter(e => e.cursor === cursor)", [what, cursor]
    )


def landed(page, cursor: str) -> tuple[dict, list[dict]]:
    """Once the entry's dice are down: what it held as the flag was set, and on each frame after."""
    page.wait_for_function("cursor => window.__dice.cleared.some(e => e.cursor === cursor)", arg=cursor)
    expect(shown(page, cursor)).not_to_have_attribute("data-landing", re.compile(".*"))
    start = record(page, "landed", cursor)
    assert len(start) == 1, start  # it landed once
    return start[0], record(page, "frames", cursor)


def roll(page, line: str, visibility: str) -> FeedEntry:
    """Roll ``line`` from the page's dice box; the answer is the box alone, never the entry."""
    page.locator("#dice-visibility").select_option(visibility)
    page.locator("#id_notation").fill(line)
    with page.expect_response(lambda response: response.request.method == "POST") as answer:
        page.get_by_role("button", name="Roll").click()
    expect(page.locator("#id_notation")).to_have_value("")
    entry = FeedEntry.objects.latest("seq")
    assert entry.cursor not in answer.value.text()  # the roller's page gets the entry from its socket
    return entry


def assert_never_shown(page, frames):
    """Nothing of the face on this page: its sockets' frames, its markup at every change and frame, now."""
    assert SECRET.search(wire(page.content())) is None
    assert page.evaluate("window.__dice.leaks") == []
    for frame in frames:
        assert SECRET.search(wire(frame)) is None, frame


@pytest.fixture
def fixed_face(monkeypatch):
    # The dice box rolls from secrets.SystemRandom (campaigns/services.py): scripted as in
    # tests/sheets/test_hidden_rolls.py.
    monkeypatch.setattr(secrets, "SystemRandom", lambda: FixedFaces([FACE]))


# (the dice box's "Who sees it", the line's command) and who sees what: the roller is the player, the
# third seat the other player. A whisper names the GM alone.
MODES = {
    "public": ("public", "", {"gm", "roller", "other"}, set()),
    "gm": ("gm", "", {"gm", "roller"}, set()),
    "self": ("self", "", {"roller"}, set()),
    "blind": ("blind", "", {"gm"}, {"roller"}),
    "whisper": ("public", "/w gm ", {"gm", "roller"}, set()),
}


@pytest.mark.parametrize("mode", MODES)
def test_a_roll_lands_as_each_page_may_see_it_and_never_shows_a_face_it_may_not(
    mode, new_page, campaign, gm, player, other_player, fixed_face
):
    visibility, command, whole, notice = MODES[mode]
    url = table_url(campaign)
    seats = {
        "gm": seat(new_page, gm, url),
        "roller": seat(new_page, player, url),
        "other": seat(new_page, other_player, url),
    }
    entry = roll(seats["roller"][0], command + LINE, visibility)
    assert entry.visibility == ("whisper" if command else visibility)
    assert entry.result["terms"][0]["dice"][0]["faces"] == [FACE]

    for name in whole:
        page, _ = seats[name]
        start, frames = landed(page, entry.cursor)
        # As it arrived: the real die, tumbling; landed, its face shows and nothing moves any more.
        assert start["dice"] == 1 and start["ghosts"] == 0 and start["animations"] > 0, (name, start)
        die = shown(page, entry.cursor).locator(".die")
        expect(die).to_have_count(1)
        expect(die).to_contain_text(str(FACE))
        assert moving(shown(page, entry.cursor)) == 0

    for name in notice:
        page, _ = seats[name]
        start, frames = landed(page, entry.cursor)
        # Ghost dice tumble and land blank: no die, no face, on the first frame and every one after.
        assert start["dice"] == 0 and start["ghosts"] == 2 and start["animations"] > 0, (name, start)
        assert frames and all(f["dice"] == 0 and not SECRET.search(f["text"]) for f in frames), frames
        ghost = shown(page, entry.cursor)
        expect(ghost.locator(".ghost-die")).to_have_count(2)
        expect(ghost.locator(".die")).to_have_count(0)
        expect(ghost).to_contain_text("A blind roll was made")

    say_barrier(seats["gm"][0])
    for name, (page, frames) in seats.items():
        expect(page.locator("#feed .feed-entry").first).to_contain_text(BARRIER)
        if name in whole:
            continue
        # By now every frame sent before the barrier is in: none carried the face, nor did the page.
        assert_never_shown(page, frames)
        if name not in notice:
            expect(shown(page, entry.cursor)).to_have_count(0)
            assert record(page, "landed", entry.cursor) == []


def test_what_the_page_was_drawn_with_and_older_pages_never_tumble(new_page, campaign, gm, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (100, 10)}
    # More than a page of the feed (selectors.FEED_PAGE_SIZE, 30): the older ones load on scroll.
    for n in range(33):
        services.table_roll_create(
            campaign=campaign, author=gm, notation_text="2d6", roller=Roller(FixedFaces([n % 6 + 1, 4]))
        )
    gm_page, _ = seat(new_page, gm, table_url(campaign))
    page, _ = seat(new_page, player, table_url(campaign))
    expect(page.locator("#feed .feed-entry")).to_have_count(30)
    page.locator(".feed-more").scroll_into_view_if_needed()
    expect(page.locator("#feed .feed-entry")).to_have_count(33)
    assert page.evaluate("window.__dice.landed") == []
    assert page.evaluate("document.getAnimations().length") == 0
    # What arrives from now on does.
    entry = roll(gm_page, "2d6", "public")
    landed(page, entry.cursor)


def test_the_switch_turns_it_off_for_this_browser(new_page, campaign, gm, player, fixed_face):
    url = table_url(campaign)
    gm_page, _ = seat(new_page, gm, url)
    page, _ = seat(new_page, player, url)
    switch = page.get_by_role("switch", name="Animate dice")
    expect(switch).to_be_checked()
    switch.uncheck()
    page.reload()
    expect_live(page)
    expect(switch).not_to_be_checked()  # remembered

    entry = roll(gm_page, LINE, "public")
    landed(gm_page, entry.cursor)  # the roll tumbles where the switch is on
    expect(shown(page, entry.cursor).locator(".die")).to_contain_text(str(FACE))
    # dice.js decides in the task that inserts the entry: by the time it shows, it would be landing.
    assert record(page, "landed", entry.cursor) == []
    assert moving(shown(page, entry.cursor)) == 0

    switch.check()
    entry = roll(gm_page, LINE, "public")
    landed(page, entry.cursor)


def test_reduced_motion_turns_it_off_and_the_switch_says_so(new_page, campaign, gm, player, fixed_face):
    url = table_url(campaign)
    gm_page, _ = seat(new_page, gm, url)
    page, _ = seat(new_page, player, url, reduced_motion=True)
    switch = page.get_by_role("switch", name="Animate dice")
    expect(switch).to_be_disabled()
    expect(switch).not_to_be_checked()
    expect(switch).to_have_attribute("title", re.compile("reduced motion"))

    entry = roll(gm_page, LINE, "blind")  # the GM's own blind roll: the GM sees it whole
    landed(gm_page, entry.cursor)
    entry = roll(gm_page, LINE, "public")
    expect(shown(page, entry.cursor).locator(".die")).to_contain_text(str(FACE))
    assert page.evaluate("window.__dice.landed") == []
    assert page.evaluate("document.getAnimations().length") == 0


def test_a_sheet_roll_lands_in_its_result_as_on_the_table_in_the_systems_dice(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(owner=player)
    gm_page, _ = seat(new_page, gm, table_url(campaign))
    sheet, _ = seat(new_page, player, larry.get_absolute_url())
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([3, 5]))

    # The sheet has no feed: its roll's entry comes in the click's answer, and lands from there.
    sheet.locator(".roll-button", has_text="Amateur Chef").click()
    expect(sheet.locator("#roll-result .feed-entry")).to_have_count(1)
    entry = FeedEntry.objects.latest("seq")
    for page in (sheet, gm_page):
        start, _ = landed(page, entry.cursor)
        assert start["dice"] == 2 and start["animations"] > 0
        # Five by Five throws a pair of d6s.
        dice = shown(page, entry.cursor).locator(".die.die-d6")
        expect(dice).to_have_count(2)
        expect(dice).to_have_text(["3", "5"])


def test_each_kind_of_die_lands_in_its_own_shape(new_page, make_campaign, gm, player, monkeypatch):
    campaign = make_campaign("l5r", players=[player])
    gm_page, _ = seat(new_page, gm, table_url(campaign))
    page, _ = seat(new_page, player, table_url(campaign))
    # Five dice, the first exploding 10 into 6; a pair; three d20s keeping the best; one blind for the GM.
    lines = [
        ("2d6", "public", [4, 4]),
        ("3d20kh1", "public", [7, 18, 11]),
        ("5k3", "public", [10, 6, 8, 3, 2, 1]),
        (LINE, "blind", [FACE]),
    ]
    for line, visibility, faces in lines:
        monkeypatch.setattr(secrets, "SystemRandom", lambda faces=faces: FixedFaces(faces))
        entry = roll(page, line, visibility)
        landed(page, entry.cursor)
        landed(gm_page, entry.cursor)

    feed = page.locator("#feed")
    expect(feed.locator(".die-d6")).to_have_count(2)
    expect(feed.locator(".die-d20")).to_have_count(3)
    expect(feed.locator(".die-d20.die-dropped")).to_have_count(2)
    expect(feed.locator(".die-d10")).to_have_count(5)
    expect(feed.locator(".die-d10.die-exploded")).to_contain_text("10+6")
    expect(feed.locator(".feed-notice .ghost-die")).to_have_count(2)
    assert SECRET.search(wire(page.content())) is None
    shoot(feed, "dice-landed")
    shoot(gm_page.locator("#feed"), "dice-landed-gm")
