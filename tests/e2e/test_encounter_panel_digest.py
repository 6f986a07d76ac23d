"""A player's table page fetches the encounter panel again only when what players see of it changed: the
"encounter" refresh frame carries the digest of the players' view (campaigns.realtime.shows) and a panel
already showing it is left alone (static/js/table.js). The GM's page, the same with the GM's own view.
The page says when each refresh round is in ("tabletop:refreshed", with how many panels it fetched), so
the test waits on that, never on a clock."""

import threading

import pytest
from django.db import connection
from playwright.sync_api import expect

from campaigns import realtime
from play import encounters as services
from tests.conftest import PASSWORD
from tests.npcs import sample_npc

from .conftest import log_in

pytestmark = pytest.mark.e2e

ROUNDS = """() => {
  window.encounterRounds = [];
  document.addEventListener("tabletop:refreshed", (event) => {
    if (event.detail.panel === "encounter") { window.encounterRounds.push(event.detail.fetched); }
  });
}"""


def set_hp(bandit, value: int) -> None:
    """The bandit's HP moved behind the panel (the GM's numbers), announced as any change is: on a thread
    of its own, as a request's code runs (Playwright's sync API holds this one's event loop)."""

    def change():
        bandit.stats = {**bandit.stats, "hp": value}
        bandit.save(update_fields=["stats"])
        realtime.panel_changed(campaign_id=bandit.encounter.campaign_id, panel="encounter")
        connection.close()

    worker = threading.Thread(target=change)
    worker.start()
    worker.join()


def test_a_players_table_fetches_the_encounter_panel_only_when_what_they_see_changed(
    new_page, make_campaign, gm, player
):
    campaign = make_campaign("fivebyfive", players=[player], name="Salt Road")
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    npc = sample_npc("fivebyfive")
    bandit = services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=npc)
    most = bandit.stats["hp_max"]

    page, gm_page = new_page(), new_page()
    log_in(page, player.username, PASSWORD)
    log_in(gm_page, gm.username, PASSWORD)
    fetched = []
    page.on("request", lambda request: "/encounters/panel/" in request.url and fetched.append(request.url))
    for each in (page, gm_page):
        each.goto(f"/campaigns/{campaign.pk}/table/")
        expect(each.locator("#table-status")).to_have_text("Live")
        each.evaluate(ROUNDS)
    summary = page.locator("#encounter-panel [data-combatant='Bandit'] .combatant-summary")
    expect(summary).to_have_text("")

    set_hp(bandit, most - 1)  # players now see "hurt": the panel is fetched
    expect(summary).to_have_text("hurt")
    page.wait_for_function("() => window.encounterRounds.length === 1")
    set_hp(bandit, most - 2)  # still "hurt" to players: the page already shows it, and fetches nothing
    page.wait_for_function("() => window.encounterRounds.length === 2")
    set_hp(bandit, most - 2)  # announced, and nothing anyone sees moved
    for each in (page, gm_page):
        each.wait_for_function("() => window.encounterRounds.length === 3")
    assert page.evaluate("() => window.encounterRounds") == [1, 0, 0]
    # The GM sees the number: each move is fetched, the change that moved nothing is not.
    assert gm_page.evaluate("() => window.encounterRounds") == [1, 1, 0]
    gm_row = gm_page.locator("#encounter-panel [data-combatant='Bandit']")
    expect(gm_row).to_contain_text(f"{most - 2}/{most}")
    assert len(fetched) == 1
    expect(summary).to_have_text("hurt")
    row = page.locator("#encounter-panel [data-combatant='Bandit']")
    assert str(most - 2) not in row.inner_text()  # the number behind the word never reached the row


HEARD = """() => {
  window.heard = [];
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const socket = new Native(...args);
    socket.addEventListener("message", (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === "refresh" && frame.panel === "encounter") { window.heard.push(performance.now()); }
    });
    return socket;
  };
  Object.assign(window.WebSocket, Native);
  window.WebSocket.prototype = Native.prototype;
}"""


def test_a_frame_heard_while_the_panel_is_fetched_is_weighed_once_that_fetch_is_in(
    new_page, make_campaign, gm, player
):
    """The GM's panel is being fetched (held here) when a second change comes that the GM sees no
    differently: once the fetch is in, the page already shows what that frame announces and fetches
    nothing more (static/js/table.js keeps a frame heard during a round, digest and all). Seen on a loaded
    machine as one fetch too many, when the frame came before the first fetch was in."""
    campaign = make_campaign("fivebyfive", players=[player], name="Salt Road")
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    bandit = services.combatant_add_npc(
        encounter=encounter, name="Bandit", cleaned_data=sample_npc("fivebyfive")
    )
    most = bandit.stats["hp_max"]

    page = new_page()
    page.context.add_init_script(HEARD.join(("(", ")()")))
    log_in(page, gm.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/table/")
    expect(page.locator("#table-status")).to_have_text("Live")
    page.evaluate(ROUNDS)
    held, fetched = [], []

    def hold_the_first(route):
        fetched.append(route.request.url)
        if len(fetched) == 1:
            held.append(route)
        else:
            route.continue_()

    page.route("**/encounters/panel/**", hold_the_first)

    with page.expect_request(lambda request: "/encounters/panel/" in request.url):
        set_hp(bandit, most - 1)
    set_hp(bandit, most - 1)  # announced again while the fetch is held: the GM will see nothing new in it
    page.wait_for_function("() => window.heard.length === 2")
    assert len(held) == 1 and page.evaluate("() => window.encounterRounds") == []
    held.pop().continue_()
    page.wait_for_function("() => window.encounterRounds.length === 2")
    assert page.evaluate("() => window.encounterRounds") == [1, 0]
    assert len(fetched) == 1
    expect(page.locator("#encounter-panel [data-combatant='Bandit']")).to_contain_text(f"{most - 1}/{most}")
