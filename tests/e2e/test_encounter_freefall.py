"""The GM sets the FREE/FALL declaration order on the encounter page and runs a hack in the browser."""

import pytest
from playwright.sync_api import expect

from play import encounters as services
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import next_turn
from .test_reinforcements import fill_npc

pytestmark = pytest.mark.e2e


@pytest.fixture
def netrun(make_campaign, gm, player, other_player):
    campaign = make_campaign("freefall", players=[player, other_player], name="Neon Drop")
    load_demo_characters(campaign, players=[player, other_player])
    encounter = services.encounter_create(campaign=campaign, name="Server farm")
    services.combatant_add_character(encounter=encounter, character=campaign.characters.get(name="Osei Marr"))
    services.combatant_add_npc(
        encounter=encounter, name="Sentry", cleaned_data={"body": 3, "mind": 2, "ghost": 2, "av": 0, "dv": 2}
    )
    return encounter


def test_gm_orders_the_declarations_and_a_hack_compromises_its_program(new_page, netrun, gm, monkeypatch):
    """FREE/FALL l.51 (last declared acts first, the GM sets the order) and l.134 (a 1 compromises)."""
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(netrun.get_absolute_url())
    page.get_by_role("button", name="Move Sentry up").click()
    order = page.locator("#encounter-controls .encounter-order li")
    expect(order.first).to_contain_text("Sentry")
    page.get_by_role("button", name="Roll initiative and start").click()
    expect(page.get_by_role("heading", name="Sentry's turn")).to_be_visible()
    next_turn(page)
    expect(page.get_by_role("heading", name="Osei Marr's turn")).to_be_visible()
    hack = page.locator("form.encounter-action", has=page.get_by_role("button", name="Declare a hack"))
    hack.get_by_label("Dice").fill("2")
    hack.get_by_label("TN").select_option("hard")
    hack.get_by_label("Program").select_option("Icebreaker")
    hack.get_by_role("button", name="Declare a hack").click()
    page.get_by_role("button", name="Lock in: Hack with Icebreaker 2d20+10 vs TN 16").click()
    faces[:] = [1, 9]
    page.get_by_role("button", name="Roll: Hack with Icebreaker 2d20+10 vs TN 16").click()
    expect(page.get_by_text("Icebreaker compromised (a natural 1)").first).to_be_visible()
    osei = netrun.campaign.characters.get(name="Osei Marr")
    assert osei.ff_programs.get(name="Icebreaker").compromised


def test_a_choice_whose_odds_were_asked_survives_a_refresh_before_it_is_declared(new_page, netrun, gm):
    """A player picks a program for a hack on their turn; the pick asks for the odds (a GET), and then
    a newcomer joins the fight, refreshing every page's encounter panels before the player clicks. The
    pick is still only on the player's page, so the refresh must leave it: the odds request is no
    sending of the form (static/js/table.js). A four-device session lost the pick this way."""
    osei = netrun.campaign.characters.get(name="Osei Marr")
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(netrun.get_absolute_url())
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.get_by_role("heading", name="Osei Marr's turn")).to_be_visible()

    page = new_page()
    log_in(page, osei.owner.username, PASSWORD)
    page.goto(osei.get_absolute_url())
    expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    hack = page.locator(
        "#turn-panel form.encounter-action", has=page.get_by_role("button", name="Declare a hack")
    )
    program = hack.get_by_label("Program")
    program.select_option("Icebreaker")
    page.wait_for_function("() => !document.querySelector('.htmx-request')")  # the odds are in
    hack.get_by_role("button", name="Declare a hack").focus()

    reinforcements = gm_page.locator("section.reinforcements")
    reinforcements.get_by_label("NPC name").fill("Drone")
    fill_npc(gm_page, {"body": 2, "mind": 1, "ghost": 1, "av": 0, "dv": 1})
    reinforcements.get_by_role("button", name="NPC joins the fight").click()
    expect(page.locator("#turn-panel .turn-latest")).to_contain_text("Drone")  # the refresh is in

    expect(program).to_have_value("Icebreaker")
    hack.get_by_role("button", name="Declare a hack").click()
    expect(page.get_by_role("button", name="Lock in: Hack with Icebreaker 1d20+10 vs TN 11")).to_be_visible()
