"""Open pages show the truth, live, and no edit is silently overwritten: two and three browsers at once
on one sheet, in Debian's chromium, reading the raw websocket frames as well as the page."""

import json
import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets import history
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def table(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    load_demo_characters(campaign, players=[player, other_player])
    players_adjust_play_state(campaign)  # the player types Body and Mind (sheets/policy.py)
    return campaign


def open_sheet(new_page, user, character):
    """A browser of its own, logged in as ``user``, on the sheet; returns (page, its socket frames)."""
    page = new_page()
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    log_in(page, user.username, PASSWORD)
    page.goto(character.get_absolute_url())
    expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    return page, frames


def body_of(character) -> int:
    character.triad.refresh_from_db()
    return character.triad.body


def edit_button(page, label):
    return page.get_by_role("button", name=re.compile(rf"^Edit {label}: "))


def test_a_gm_edit_reaches_the_open_sheet_and_a_stale_save_is_refused_with_the_text_kept(
    new_page, table, gm, player
):
    sheet = table.characters.get(owner=player)
    player_page, player_frames = open_sheet(new_page, player, sheet)
    gm_page, _ = open_sheet(new_page, gm, sheet)
    body_before = body_of(sheet)

    # The player starts typing a new Body; meanwhile the GM changes Body and Mind in place.
    edit_button(player_page, "Body").click()
    player_input = player_page.get_by_label("Body", exact=True)
    player_input.fill("7")

    edit_button(gm_page, "Mind").click()
    gm_mind = gm_page.get_by_label("Mind", exact=True)
    new_mind = str(int(gm_mind.input_value()) - 1)
    gm_mind.fill(new_mind)
    gm_mind.press("Enter")
    expect(edit_button(gm_page, "Mind")).to_have_text(new_mind)
    edit_button(gm_page, "Body").click()
    gm_body = gm_page.get_by_label("Body", exact=True)
    gm_body.fill(str(body_before - 1))
    gm_body.press("Enter")
    expect(edit_button(gm_page, "Body")).to_have_text(str(body_before - 1))

    # Within a second the player's page shows the GM's Mind, on the value and on the roll button's
    # odds, while the open Body edit keeps what the player typed.
    expect(edit_button(player_page, "Mind")).to_have_text(new_mind)
    mind_button = player_page.locator("[data-roll-key='ability:mind']")
    expect(mind_button).to_contain_text(f"Mind {new_mind}")
    expect(player_input).to_have_value("7")
    # The socket said only "this sheet changed": no values, no version, no seq.
    refreshes = [json.loads(f) for f in player_frames if '"refresh"' in f]
    assert {"type": "refresh", "panel": f"sheet:{sheet.pk}"} in refreshes
    assert all("seq" not in json.loads(f) and "version" not in json.loads(f) for f in player_frames)

    # The player saves Body, which the GM changed since the editor opened: refused, the current value
    # is shown, the typed text is kept, nothing of hers is saved. (A change to another value merges:
    # tests/e2e/test_edit_conflicts.py.)
    with player_page.expect_response(re.compile(r"/field/")) as answer:
        player_input.press("Enter")
    assert answer.value.status == 409
    alert = player_page.get_by_role("alert").filter(has_text="Someone changed this sheet")
    expect(alert).to_be_visible()
    expect(player_page.get_by_label("Body", exact=True)).to_have_value("7")
    assert body_of(sheet) == body_before - 1

    # Saving again now replaces it: the page has seen the change.
    player_page.get_by_label("Body", exact=True).press("Enter")
    expect(edit_button(player_page, "Body")).to_have_text("7")
    # And the GM's open page follows the player's save in turn.
    expect(edit_button(gm_page, "Body")).to_have_text("7")


def test_a_choice_made_and_not_yet_sent_survives_a_change_from_elsewhere(new_page, table, gm, player):
    # Hours of rest typed, focus already on the form's button (a click's press), when the GM's edit
    # makes the page fetch itself again: the typed hours stay, the GM's value still arrives, and the
    # rest is taken. (A four-device session once lost a picked trait to a refresh landing between the
    # two; traits after creation are the GM's now, a rest the player's where the table allows.)
    sheet = table.characters.get(owner=player)
    player_page, _ = open_sheet(new_page, player, sheet)
    gm_page, _ = open_sheet(new_page, gm, sheet)
    player_page.get_by_label("Hours of rest").fill("3")
    player_page.get_by_role("button", name="Rest", exact=True).focus()

    edit_button(gm_page, "Mind").click()
    gm_mind = gm_page.get_by_label("Mind", exact=True)
    new_mind = str(int(gm_mind.input_value()) - 4)
    gm_mind.fill(new_mind)
    gm_mind.press("Enter")

    expect(edit_button(player_page, "Mind")).to_have_text(new_mind)
    expect(player_page.get_by_label("Hours of rest")).to_have_value("3")
    player_page.get_by_role("button", name="Rest", exact=True).click()
    expect(player_page.locator("#messages")).to_contain_text("Rested:")
    assert sheet.changes.filter(reason__startswith="Rested 3 h").exists()


def test_an_undo_and_a_change_from_elsewhere_reach_every_open_page(new_page, table, gm, player, other_player):
    sheet = table.characters.get(owner=player)
    owner_page, _ = open_sheet(new_page, player, sheet)
    gm_page, _ = open_sheet(new_page, gm, sheet)
    onlooker_page, onlooker_frames = open_sheet(new_page, other_player, sheet)  # read-only viewer

    edit_button(owner_page, "Notes").click()
    notes_input = owner_page.locator(".sheet-notes textarea[name=value]")
    notes_input.fill("Garlic, stakes,\na mallet")  # notes run to several lines
    notes_input.press("Control+Enter")
    expect(owner_page.locator(".sheet-notes .editable-value")).to_have_text("Garlic, stakes,\na mallet")
    for page in (gm_page, onlooker_page):
        expect(page.locator(".sheet-notes")).to_contain_text("a mallet")

    # The GM undoes it from the history page, in another tab (a path that is no sheet page at all).
    history_tab = gm_page.context.new_page()
    history_tab.goto(f"{sheet.get_absolute_url()}history/")
    history_tab.get_by_role("button", name=re.compile("^Undo")).first.click()
    expect(history_tab.locator("#messages")).to_contain_text("Undone")
    for page in (owner_page, gm_page, onlooker_page):
        expect(page.locator(".sheet-notes")).not_to_contain_text("Garlic")
    # The read-only viewer's page carries no version counter to read the sheet's changes from.
    expect(onlooker_page.locator("#sheet-version")).to_have_count(0)
    assert not any("seq" in json.loads(f) for f in onlooker_frames)


def test_a_reconnecting_sheet_catches_up_on_what_changed_while_it_was_away(
    new_page, asgi_server, table, gm, player
):
    sheet = table.characters.get(owner=player)
    page, _ = open_sheet(new_page, player, sheet)
    live = page.locator("[data-ws-path]")
    asgi_server.stop()
    expect(live).to_have_attribute("data-status", "offline")
    with history.recorded(sheet, author=gm, reason="GM edit"):  # its refresh reaches no one
        sheet.notes = "Written while the player was away"
        sheet.save(update_fields=["notes"])
    asgi_server.start()
    expect(live).to_have_attribute("data-status", "live", timeout=20_000)
    expect(page.locator(".sheet-notes")).to_contain_text("Written while the player was away")


def test_the_encounter_page_shows_each_actions_dice_and_outcome_as_it_happens(
    new_page, table, gm, player, monkeypatch
):
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(table.get_absolute_url())
    gm_page.get_by_role("link", name="Encounters").click()
    gm_page.locator("#id_name").fill("Crypt")
    gm_page.get_by_role("button", name="Create encounter").click()
    encounter_url = gm_page.url
    gm_page.get_by_label("Character").select_option(label="Abraham Van Helsing")
    gm_page.get_by_role("button", name="Add", exact=True).click()
    gm_page.get_by_label("NPC name").fill("Ghoul")
    gm_page.locator("#id_npc-difficulty").fill("10")
    gm_page.get_by_role("button", name="Add NPC").click()
    log = gm_page.locator("#encounter-log")
    expect(log).to_contain_text("Nothing rolled yet")

    # A second GM tab (another device) runs the fight; the first follows it without a reload.
    other_tab = gm_page.context.new_page()
    other_tab.goto(encounter_url)
    faces[:] = [3]
    other_tab.get_by_role("button", name="Roll initiative and start").click()
    expect(log.locator(".feed-entry").first).to_contain_text("initiative", ignore_case=True)
    faces[:] = [17]
    other_tab.locator("form.encounter-action", has_text="Attack").get_by_role("button", name="Attack").click()
    newest = log.locator(".feed-entry").first
    expect(newest).to_contain_text("Ghoul")
    expect(newest.locator(".die")).to_have_count(1)
    expect(newest.locator(".feed-outcome")).not_to_be_empty()


def test_a_gm_roll_made_as_a_character_shows_in_its_players_open_recent_rolls_without_reload(
    new_page, table, gm, player, other_player
):
    sheet = table.characters.get(owner=player)
    player_page, player_frames = open_sheet(new_page, player, sheet)
    other_page, other_frames = open_sheet(new_page, other_player, sheet)
    recent = player_page.locator("#recent-rolls")
    expect(recent).to_contain_text("No rolls yet.")

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(f"/campaigns/{table.pk}/table/")
    expect(gm_page.locator("#table-status")).to_have_text("Live")
    box = gm_page.locator("#dice-box")
    box.locator("#id_character").select_option(label=sheet.name)
    box.locator("#dice-visibility").select_option("gm")
    box.locator("#id_notation").fill("1d1000 # a secret look")
    box.get_by_role("button", name="Roll").click()
    expect(gm_page.locator("#feed")).to_contain_text("1d1000")
    box.locator("#dice-visibility").select_option("public")
    box.locator("#id_notation").fill("3d6")
    box.get_by_role("button", name="Roll").click()

    # The public roll arrives on both open sheets, no reload; the GM-only one reaches neither.
    for page in (player_page, other_page):
        expect(page.locator("#recent-rolls")).to_contain_text("3d6")
        expect(page.locator("#recent-rolls")).not_to_contain_text("1d1000")
    for page, frames in ((player_page, player_frames), (other_page, other_frames)):
        refreshes = [frame for frame in frames if f'"recent:{sheet.pk}"' in frame]
        assert len(refreshes) == 1, refreshes  # one signal, for the public roll, and nothing else in it
        shown = page.locator("#recent-rolls .recent-roll", has_text="3d6").get_attribute("data-entry")
        assert json.loads(refreshes[0]) == {"type": "refresh", "panel": f"recent:{sheet.pk}", "entry": shown}
    shoot(player_page, "recent-rolls-live")


def change_mind(gm_page, by: int) -> str:
    """The GM changes Mind in place on their own open copy of the sheet; returns the new value."""
    edit_button(gm_page, "Mind").click()
    gm_mind = gm_page.get_by_label("Mind", exact=True)
    new_mind = str(int(gm_mind.input_value()) + by)
    gm_mind.fill(new_mind)
    gm_mind.press("Enter")
    expect(edit_button(gm_page, "Mind")).to_have_text(new_mind)
    return new_mind


def test_a_refresh_landing_while_an_editor_is_fetched_never_loses_the_click(new_page, table, gm, player):
    # The player clicks Notes; the editor's GET is held in the browser until the GM's change has been
    # morphed into the page, then let go: the editor the click asked for opens all the same, and what
    # the player types in it outlives the next refresh.
    sheet = table.characters.get(owner=player)
    player_page, _ = open_sheet(new_page, player, sheet)
    gm_page, _ = open_sheet(new_page, gm, sheet)
    live = player_page.locator("#sheet-live")
    held = []
    editor_url = re.compile(r"/field/notes/\?edit=1$")

    def hold(route):
        held.append(route)

    player_page.route(editor_url, hold)

    with player_page.expect_request(editor_url):
        edit_button(player_page, "Notes").click()
    new_mind = change_mind(gm_page, -1)
    expect(edit_button(player_page, "Mind")).to_have_text(new_mind)  # the refresh is in
    expect(live).to_have_attribute("data-refreshed", re.compile(r"\d"))
    assert len(held) == 1  # and the editor's answer is not
    held[0].continue_()

    notes = player_page.locator(".sheet-notes [name=value]")
    expect(notes).to_be_focused()
    notes.fill("Ask the innkeeper about the crypt")
    refreshed = live.get_attribute("data-refreshed")
    newer_mind = change_mind(gm_page, -1)
    expect(edit_button(player_page, "Mind")).to_have_text(newer_mind)
    expect(live).not_to_have_attribute("data-refreshed", refreshed)
    expect(notes).to_have_value("Ask the innkeeper about the crypt")
    expect(notes).to_be_focused()


def test_a_change_from_elsewhere_prices_the_buttons_with_the_sheet_and_asks_again_only_for_chosen_options(
    new_page, table, gm, player
):
    # The roll buttons are the page's own, priced with its options. A GM's edit makes the sheet fetch
    # itself again: with the options untouched, the fresh page's buttons are the right ones and no
    # second request is made for them; once the player has chosen an option, they are priced again.
    sheet = table.characters.get(owner=player)
    player_page, _ = open_sheet(new_page, player, sheet)
    gm_page, _ = open_sheet(new_page, gm, sheet)
    pricing = []
    player_page.on("request", lambda request: "/buttons/" in request.url and pricing.append(request.url))
    mind_button = player_page.locator('[data-roll-key="ability:mind"]')
    before = mind_button.inner_text()

    def gm_lowers_mind(by):
        edit_button(gm_page, "Mind").click()
        gm_mind = gm_page.get_by_label("Mind", exact=True)
        new_mind = str(int(gm_mind.input_value()) - by)
        gm_mind.fill(new_mind)
        gm_mind.press("Enter")
        expect(edit_button(player_page, "Mind")).to_have_text(new_mind)
        return new_mind

    new_mind = gm_lowers_mind(4)
    expect(mind_button).to_contain_text(f"Mind {new_mind}")
    assert mind_button.inner_text() != before
    assert pricing == []

    # An option chosen: the page prices its buttons for it, and again after the next change.
    with player_page.expect_response(lambda response: "/buttons/" in response.url):
        player_page.locator("#roll-options-panel summary").click()
        player_page.get_by_label("Advantage sources", exact=True).fill("1")
    assert len(pricing) == 1
    with player_page.expect_response(lambda response: "/buttons/" in response.url):
        new_mind = gm_lowers_mind(1)
    expect(mind_button).to_contain_text(f"Mind {new_mind}")
    assert len(pricing) == 2


# Each refresh frame the page's socket hears, with when (the page's own clock), and each refresh round.
HEARD = """() => {
  window.heard = [];
  window.rounds = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener("message", (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === "refresh") { window.heard.push([frame.panel, performance.now()]); }
    });
    return socket;
  };
  Object.assign(window.WebSocket, Native);
  window.WebSocket.prototype = Native.prototype;
  document.addEventListener("tabletop:refreshed", (event) => { window.rounds.push(event.detail); });
}"""


# How long the page gathers a burst of refresh frames (static/js/table.js), read from the script it runs.
GATHER_MS = int(
    re.search(
        r"var REFRESH_GATHER_MS = (\d+);", (settings.BASE_DIR / "static" / "js" / "table.js").read_text()
    ).group(1)
)


def larrys_sheet(new_page, make_campaign, player, script: str):
    """Larry's sheet (Five by Five's demo, ``player``'s) open and live with ``script`` run first, and the
    list of its recent rolls' own fetches."""
    campaign = make_campaign("fivebyfive", players=[player])
    load_demo_characters(campaign, players=[player])
    larry = campaign.characters.get(owner=player)
    page = new_page()
    page.context.add_init_script(script.join(("(", ")()")))
    fetched = []
    page.on("request", lambda request: "/recent/" in request.url and fetched.append(request.url))
    log_in(page, player.username, PASSWORD)
    page.goto(larry.get_absolute_url())
    expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    expect(page.locator("#recent-rolls")).to_contain_text("No rolls yet.")
    return page, larry, fetched


def test_a_roll_that_changes_the_sheet_brings_its_recent_rolls_with_the_sheet(
    new_page, make_campaign, player, fixed_dice
):
    """Doubles earn Larry a token (Five by Five, l.260): the roll changes the sheet and makes an entry, so
    its page hears "sheet:" and "recent:" together. The merged sheet holds its recent rolls, so fetching
    them apart would bring nothing new (static/js/table.js comesWithMerge)."""
    page, larry, fetched = larrys_sheet(new_page, make_campaign, player, HEARD)
    recent = page.locator("#recent-rolls")

    fixed_dice(3, 3)
    page.locator(".roll-button", has_text="Amateur Chef").click()
    expect(page.locator("#roll-result .feed-entry")).to_contain_text("doubles token earned")
    expect(recent).to_contain_text("Amateur Chef")  # it came with the merged sheet
    names = {f"sheet:{larry.pk}", f"recent:{larry.pk}"}
    page.wait_for_function(
        "(names) => names.every((name) => window.rounds.some((round) => round.panel === name))",
        arg=sorted(names),
    )
    rounds = {round["panel"]: round["fetched"] for round in page.evaluate("() => window.rounds")}
    assert rounds[f"sheet:{larry.pk}"] == 1
    heard = {panel: at for panel, at in page.evaluate("() => window.heard")}
    # Heard within one gathering or after, the recent rolls come with the sheet (the two tests below hold
    # the frame back). Heard well before, the page could not know a merge was coming, and fetching them
    # showed the roll.
    if heard[f"recent:{larry.pk}"] > heard[f"sheet:{larry.pk}"] - GATHER_MS:
        assert rounds[f"recent:{larry.pk}"] == 0 and fetched == []


# HEARD, and the recent rolls' frames held back until the test lets them through (window.letRecentIn):
# as the in-memory layer can deliver one well after the sheet's, once the sheet's merge is out or in.
HOLD_RECENT = """() => {
  window.heard = [];
  window.rounds = [];
  window.held = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener("message", (event) => {
      if (event.letIn) { return; }
      const frame = JSON.parse(event.data);
      if (frame.type !== "refresh") { return; }
      if (String(frame.panel).startsWith("recent:")) {
        event.stopImmediatePropagation();
        window.held.push(() => {
          window.heard.push([frame.panel, performance.now()]);
          const again = new MessageEvent("message", { data: event.data });
          again.letIn = true;
          socket.dispatchEvent(again);
        });
        return;
      }
      window.heard.push([frame.panel, performance.now()]);
    });
    return socket;
  };
  Object.assign(window.WebSocket, Native);
  window.WebSocket.prototype = Native.prototype;
  window.letRecentIn = () => { window.held.splice(0).forEach((go) => go()); };
  document.addEventListener("tabletop:refreshed", (event) => { window.rounds.push(event.detail); });
}"""


def test_recent_rolls_the_merged_sheet_already_brought_are_not_fetched_again(
    new_page, make_campaign, player, fixed_dice
):
    """Doubles earn Larry a token (Five by Five, l.260), so the roll sends "sheet:" and "recent:". Here
    the recent frame comes only once the sheet's merge is in: the merged sheet already shows the entry
    the frame names (its cursor, data-entry), so the recent rolls are not fetched again."""
    page, larry, fetched = larrys_sheet(new_page, make_campaign, player, HOLD_RECENT)
    recent = page.locator("#recent-rolls")

    fixed_dice(3, 3)
    page.locator(".roll-button", has_text="Amateur Chef").click()
    page.wait_for_function(f"() => window.rounds.some((round) => round.panel === 'sheet:{larry.pk}')")
    expect(recent).to_contain_text("Amateur Chef")  # the merged sheet brought it
    page.wait_for_function("() => window.held.length === 1")
    page.evaluate("() => window.letRecentIn()")
    page.wait_for_function(f"() => window.rounds.some((round) => round.panel === 'recent:{larry.pk}')")
    rounds = {round["panel"]: round["fetched"] for round in page.evaluate("() => window.rounds")}
    assert rounds == {f"sheet:{larry.pk}": 1, f"recent:{larry.pk}": 0} and fetched == []
    expect(recent.locator(".recent-roll")).to_have_count(1)


def test_recent_rolls_heard_while_the_sheets_merge_is_out_wait_for_it(
    new_page, make_campaign, player, fixed_dice
):
    """As above, but the recent frame comes while the sheet's merge is still on its way (held here): the
    recent rolls wait for the merge and, as it brings the entry, are not fetched at all."""
    page, larry, fetched = larrys_sheet(new_page, make_campaign, player, HOLD_RECENT)
    recent = page.locator("#recent-rolls")
    merges = []
    sheet_url = larry.get_absolute_url()
    page.route(
        lambda url: url.endswith(sheet_url),
        lambda route: merges.append(route) if route.request.resource_type == "fetch" else route.continue_(),
    )

    fixed_dice(3, 3)
    with page.expect_request(lambda request: request.url.endswith(sheet_url)):
        page.locator(".roll-button", has_text="Amateur Chef").click()
    page.wait_for_function("() => window.held.length === 1")
    page.evaluate("() => window.letRecentIn()")
    # Past the recent frame's gathering on the page's own clock, so it is decided while the merge is
    # held; decided after it, it must fetch nothing all the same.
    page.wait_for_function(
        "(gather) => performance.now() - window.heard.at(-1)[1] > gather + 60", arg=GATHER_MS
    )
    assert len(merges) == 1
    merges.pop().continue_()
    page.wait_for_function(f"() => window.rounds.some((round) => round.panel === 'recent:{larry.pk}')")
    rounds = {round["panel"]: round["fetched"] for round in page.evaluate("() => window.rounds")}
    assert rounds == {f"sheet:{larry.pk}": 1, f"recent:{larry.pk}": 0} and fetched == []
    expect(recent.locator(".recent-roll")).to_have_count(1)
    expect(recent).to_contain_text("Amateur Chef")
