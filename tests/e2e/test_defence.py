"""The defender's choice in a real browser: the GM's bandit hits alice's Five by Five character, her
sheet says "Defend" live (Five by Five l.500-503: the player declares the dodge after being hit), she
picks the dodge and the result reaches the GM's page live."""


import pytest
from playwright.sync_api import expect

from play import encounters as services
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import shoot
from .test_accessibility import audit

pytestmark = pytest.mark.e2e

def test_the_hit_player_chooses_the_dodge_and_the_gm_sees_it(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    campaign = make_campaign("fivebyfive", players=[player, other_player], name="Salt Road")
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    services.combatant_add_character(encounter=encounter, character=mine)
    bandit = services.combatant_add_npc(
        encounter=encounter,
        name="Bandit",
        cleaned_data={
            "descriptors": {"Brute": 6}, "hp": 12, "weapon_db": 3, "armor_av": -1, "shield": False,
        },
    )
    # 4 x 5 = 20: nobody steals initiative, so the GM's side goes first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([4, 5] * 4)), author=gm
    )
    encounter.refresh_from_db()
    assert services.current_actor(encounter, services.combatants_of(encounter)).pk == bandit.pk
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))

    alice = new_page()
    log_in(alice, player.username, PASSWORD)
    alice.goto(mine.get_absolute_url())
    expect(alice.locator("[data-ws-path]")).to_have_attribute("data-status", "live")
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(encounter.get_absolute_url())

    # The bandit hits (2 x 3 = 6 against Brute 6): the attack waits for alice.
    faces[:] = [2, 3]
    gm_page.locator("form.encounter-action", has_text="Attack").get_by_role("button", name="Attack").click()
    expect(gm_page.get_by_role("heading", name=f"Waiting for {mine.name}'s defence")).to_be_visible()
    expect(gm_page.get_by_role("button", name="Resolve without waiting")).to_be_visible()
    shoot(gm_page, "defence-gm-1280", top=True)

    status = alice.get_by_role("status").filter(has_text="Defend")
    expect(status).to_have_text(f"Defend: Bandit attacks {mine.name}")
    prompt = alice.locator("#turn-panel form.encounter-defence")
    expect(prompt).to_contain_text(f"Bandit hits {mine.name}: dodge, or take the damage?")
    expect(prompt.locator(".defence-odds .roll-chance").first).to_contain_text("%")
    button = prompt.get_by_role("button", name="Defend")
    expect(button.locator(".roll-chance")).to_contain_text("%")
    # Choosing no dodge takes the odds off the button; the dodge puts them back.
    defence = prompt.get_by_label("Defence", exact=True)
    auto = defence.input_value()
    defence.select_option("none")
    expect(button.locator(".roll-chance")).to_have_count(0)
    defence.select_option(auto)
    expect(button.locator(".roll-chance")).to_contain_text("%")

    shoot(alice, "defence-sheet-1280", top=True)
    assert audit(alice, mine.get_absolute_url()) == []
    alice.set_viewport_size({"width": 390, "height": 844})
    shoot(alice, "defence-sheet-390", top=True)
    alice.goto(f"/campaigns/{campaign.pk}/table/")
    expect(alice.get_by_role("status").filter(has_text="Defend")).to_be_visible()
    shoot(alice, "defence-table-390", top=True)
    alice.set_viewport_size({"width": 1280, "height": 900})
    alice.goto(mine.get_absolute_url())

    # She dodges: 1 x 2 = 2 on her dodge. The result reaches the GM's page, the prompt goes away.
    faces[:] = [1, 2]
    alice.locator("#turn-panel form.encounter-defence").get_by_role("button", name="Defend").click()
    expect(alice.get_by_role("status").filter(has_text="Defend")).to_have_count(0)
    expect(gm_page.locator("#encounter-log")).to_contain_text(f"Ambush: {mine.name} dodges")
    expect(gm_page.get_by_role("button", name="Resolve without waiting")).to_have_count(0)
    expect(gm_page.get_by_role("heading", name="Bandit's turn")).to_be_visible()
