"""Reinforcements: mid-fight the GM adds a quick NPC and a character from the encounter page; the system
places each in its order while the turn stays where it was, the player's table follows live, and each
newcomer gets its turn. Then the GM's side falls and the page offers to end the fight."""

import pytest
from playwright.sync_api import expect

from play import encounters as services
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from sheets.registry import combat_for
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import next_turn

pytestmark = pytest.mark.e2e


def fill_npc(page, data: dict) -> None:
    """The quick-NPC form filled with ``data`` (the system's sample foe), each field as its input takes it."""
    for name, value in data.items():
        field = page.locator(f"#id_npc-{name}")
        if field.get_attribute("type") == "checkbox":
            field.set_checked(bool(value))
        elif field.evaluate("element => element.tagName") == "SELECT":
            field.select_option(str(value))
        else:
            field.fill(str(value))


def test_gm_adds_reinforcements_mid_fight_and_the_player_follows(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    faces = [2] * 40
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    load_demo_characters(campaign, players=[player, other_player])
    combat = combat_for(campaign)
    stats = combat.npc_form_class(combat.sample_npc())
    assert stats.is_valid()
    mine = campaign.characters.get(owner=player)
    theirs = campaign.characters.get(owner=other_player)
    encounter = services.encounter_create(campaign=campaign, name="Crypt")
    services.combatant_add_character(encounter=encounter, character=mine)
    services.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data=stats.cleaned_data)
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([2] * 10)), author=gm
    )

    player_page = new_page(width=390, height=844)
    log_in(player_page, player.username, PASSWORD)
    player_page.goto(f"/campaigns/{campaign.pk}/table/")
    panel = player_page.locator("#encounter-panel")
    expect(panel).to_contain_text("round 1")

    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(encounter.get_absolute_url())
    next_turn(page)  # mid-round: the second turn
    turn = page.locator("h2", has_text="'s turn")
    expect(turn).to_be_visible()
    now = turn.inner_text()

    reinforcements = page.locator("section.reinforcements")
    expect(reinforcements.get_by_role("heading", name="Reinforcements")).to_be_visible()
    reinforcements.get_by_label("NPC name").fill("Second ghoul")
    fill_npc(page, combat.sample_npc())
    reinforcements.get_by_role("button", name="NPC joins the fight").click()
    expect(page.locator("[data-combatant='Second ghoul']")).to_be_visible()
    expect(panel.locator("[data-combatant='Second ghoul']")).to_be_visible()  # live at the table
    expect(page.locator("h2", has_text="'s turn")).to_have_text(now)  # the turn stayed where it was

    reinforcements = page.locator("section.reinforcements")
    reinforcements.get_by_label("Character").select_option(label=theirs.name)
    reinforcements.get_by_role("button", name="Join the fight").click()
    expect(panel.locator(f"[data-combatant='{theirs.name}']")).to_be_visible()
    expect(page.locator("h2", has_text="'s turn")).to_have_text(now)
    feed = player_page.locator("#feed")
    expect(feed).to_contain_text(f"Crypt: {theirs.name}")  # the newcomer's line, public

    # Each newcomer gets its turn within the next round.
    had = set()
    for _ in range(8):
        next_turn(page)
        expect(page.locator("h2", has_text="'s turn")).to_be_visible()
        had.add(page.locator("h2", has_text="'s turn").inner_text())
        if {"Second ghoul's turn", f"{theirs.name}'s turn"} <= had:
            break
    assert {"Second ghoul's turn", f"{theirs.name}'s turn"} <= had

    # The GM's side falls (knocked out on the quick NPCs' rows, as a hit would): the page says so and
    # offers the end.
    encounter.combatants.filter(character=None).update(out=True)
    next_turn(page)
    notice = page.locator(".side-out")
    expect(notice).to_contain_text("No one is left standing on the GM's side.")
    expect(player_page.locator("#feed")).to_contain_text("Everyone on the GM's side is out")
    notice.get_by_role("button", name="End the encounter").click()
    expect(page.get_by_text("This encounter is over.")).to_be_visible()
    expect(panel).to_contain_text("No fight going on")
