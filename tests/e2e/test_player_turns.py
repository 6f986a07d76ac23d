"""Three browsers at one table: the GM runs a Triad fight, alice takes her own turn from her sheet,
bob watches from the table. "Your turn" reaches alice live; the result reaches the GM and bob live."""


import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.registry import combat_for
from tests.campaigns.encounter import show_npc_numbers
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import crypt_fight, current_name, next_turn, shoot
from .test_accessibility import audit
from .test_reinforcements import fill_npc

pytestmark = pytest.mark.e2e

@pytest.fixture
def fight(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    # Her attack's odds against the Ghoul tell its Difficulty: players see them when the table shows NPC
    # numbers (off, the default, hides both: tests/campaigns/test_npc_numbers.py).
    show_npc_numbers(campaign)
    encounter = crypt_fight(campaign, [player, other_player])
    return campaign, encounter


def test_a_player_takes_her_own_turn_and_everyone_sees_it(
    new_page, fight, gm, player, other_player, monkeypatch
):
    campaign, encounter = fight
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    helsing = campaign.characters.get(owner=player)

    alice = new_page()
    log_in(alice, player.username, PASSWORD)
    alice.goto(helsing.get_absolute_url())
    expect(alice.locator("[data-ws-path]")).to_have_attribute("data-status", "live")

    bob = new_page(width=390, height=844)
    log_in(bob, other_player.username, PASSWORD)
    bob.goto(f"/campaigns/{campaign.pk}/table/")
    expect(bob.locator("[data-ws-path]")).to_have_attribute("data-status", "live")

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(encounter.get_absolute_url())
    faces[:] = [3] * 6  # every initiative die a 3: each character's best ability counts
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.locator(".encounter-round")).to_have_text("1")
    while current_name(encounter) != helsing.name:
        now = current_name(encounter)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_be_visible()
        next_turn(gm_page)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_have_count(0)

    # Alice's sheet says so at once, in its live region, with the forms of her turn and their odds.
    status = alice.get_by_role("status").filter(has_text="Your turn")
    expect(status).to_have_text(f"Your turn: {helsing.name}")
    panel = alice.locator("#turn-panel")
    expect(panel).to_contain_text("Crypt · round 1")
    attack = panel.locator("form.encounter-action", has_text="Attack").first
    expect(attack.locator(".roll-chance")).to_contain_text("%")
    expect(alice.locator("#turn-panel.is-your-turn")).to_be_visible()

    # Bob's table says whose turn it is and offers him nothing to press.
    bob_panel = bob.locator("#turn-panel")
    expect(bob_panel).to_contain_text(f"Now: {helsing.name}'s turn")
    expect(bob_panel.locator("form")).to_have_count(0)
    expect(bob.get_by_role("status").filter(has_text="Your turn")).to_have_count(0)

    alice.set_viewport_size({"width": 1280, "height": 900})
    shoot(alice, "alice-sheet-1280", top=True)
    assert audit(alice, helsing.get_absolute_url()) == []

    # Changing her inputs prices the attack again (the score it rolls is the GM's call, not on her form).
    expect(attack.get_by_label("Ability (the GM's call)")).to_have_count(0)
    before = attack.locator(".roll-chance").inner_text()
    attack.get_by_label("A related (Adv.) trait").select_option(label="Occult")
    expect(attack.locator(".roll-chance")).not_to_have_text(before)
    attack.get_by_label("A related (Adv.) trait").select_option(label="None")
    expect(attack.locator(".roll-chance")).to_have_text(before)

    faces[:] = [17]  # a critical on Body: the Ghoul's Difficulty drops
    attack.get_by_role("button", name="Attack").click()
    line = f"Crypt: {helsing.name} attacks Ghoul"
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text(line)
    # Focus stays with her turn (the Attack button again, or the panel that shows the result), never
    # dropped on <body>.
    expect(alice.locator("#turn-panel:focus-within")).to_have_count(1)
    expect(gm_page.locator("#encounter-log")).to_contain_text(line)
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).not_to_have_text(
        "Difficulty 10/10"
    )
    expect(bob.locator("#feed")).to_contain_text(line)
    expect(bob.locator("#encounter-panel [data-combatant='Ghoul'] .combatant-summary")).to_contain_text(
        "Difficulty"
    )

    # The GM moves on: alice's "Your turn" goes away live.
    next_turn(gm_page)
    expect(status).to_have_count(0)
    expect(panel).to_contain_text("Your actions appear here on your turn")

    # Screenshots of the panel at both widths, on the sheet and at the table, on her turn again.
    while current_name(encounter) != helsing.name:
        now = current_name(encounter)
        next_turn(gm_page)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_have_count(0)
    expect(status).to_have_count(1)
    alice.goto(f"/campaigns/{campaign.pk}/table/")
    expect(alice.get_by_role("status").filter(has_text="Your turn")).to_be_visible()
    shoot(alice, "alice-table-1280", top=True)
    assert audit(alice, f"/campaigns/{campaign.pk}/table/") == []
    alice.set_viewport_size({"width": 390, "height": 844})
    # On a phone her turn comes above the dice box and the feed: on the first screen, no scrolling.
    panel_top = alice.locator("#turn-panel").bounding_box()["y"]
    assert panel_top < alice.locator("#dice-box").bounding_box()["y"]
    assert panel_top < 844
    shoot(alice, "alice-table-390", top=True)
    alice.goto(helsing.get_absolute_url())
    shoot(alice, "alice-sheet-390", top=True)
    assert audit(alice, helsing.get_absolute_url()) == []



def test_a_choice_on_her_turn_outlives_a_refresh_of_the_panel(new_page, fight, gm, player, monkeypatch):
    # Alice, at the table, ticks Extra effort for her attack; before she presses Attack the GM brings in
    # a second ghoul and her turn panel is fetched again: it is morphed in, so the new target arrives
    # and her tick, not yet sent, stays.
    campaign, encounter = fight
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces([3] * 6))
    helsing = campaign.characters.get(owner=player)
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(encounter.get_absolute_url())
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.locator(".encounter-round")).to_have_text("1")
    while current_name(encounter) != helsing.name:
        now = current_name(encounter)
        next_turn(gm_page)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_have_count(0)

    alice = new_page()
    log_in(alice, player.username, PASSWORD)
    alice.goto(f"/campaigns/{campaign.pk}/table/")
    expect(alice.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    attack = alice.locator("#turn-panel form.encounter-action", has_text="Attack").first
    effort = attack.get_by_label("Extra effort", exact=False)
    effort.check()

    reinforcements = gm_page.locator("section.reinforcements")
    reinforcements.get_by_label("NPC name").fill("Second ghoul")
    fill_npc(gm_page, combat_for(campaign).sample_npc())
    reinforcements.get_by_role("button", name="NPC joins the fight").click()

    expect(attack.get_by_label("Target").locator("option", has_text="Second ghoul")).to_have_count(1)
    expect(effort).to_be_checked()
    status = alice.get_by_role("status").filter(has_text="Your turn")
    expect(status).to_have_text(f"Your turn: {helsing.name}")
