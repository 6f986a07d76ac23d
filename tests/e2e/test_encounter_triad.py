"""The GM runs two rounds of a Triad fight; a player's browser follows the turn and the damage live."""

import pytest
from playwright.sync_api import expect

from play import encounters as services
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import next_turn, shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def table(make_campaign, player, other_player):
    campaign = make_campaign("triad", players=[player, other_player], name="Crypt Night")
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


def test_gm_runs_a_triad_fight_and_the_player_follows_live(new_page, table, gm, player, monkeypatch):
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))

    player_page = new_page(width=390, height=844)
    log_in(player_page, player.username, PASSWORD)
    player_page.goto(f"/campaigns/{table.pk}/table/")
    panel = player_page.locator("#encounter-panel")
    expect(panel).to_contain_text("No fight going on")

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(table.get_absolute_url())
    gm_page.get_by_role("link", name="Encounters").click()
    gm_page.locator("#id_name").fill("Crypt")
    gm_page.get_by_role("button", name="Create encounter").click()
    gm_page.get_by_label("Character").select_option(label="Abraham Van Helsing")
    gm_page.get_by_role("button", name="Add", exact=True).click()
    gm_page.get_by_label("NPC name").fill("Ghoul")
    gm_page.locator("#id_npc-difficulty").fill("10")
    gm_page.locator("#id_npc-weapon").select_option("medium")
    gm_page.locator("#id_npc-armor").select_option("light")
    gm_page.get_by_role("button", name="Add NPC").click()
    expect(panel).to_contain_text("Ghoul")  # the player's panel follows the setup live

    # Round 1: Van Helsing's initiative die shows 3 (Mind 15 counts), he goes first on the tie.
    faces[:] = [3]
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.get_by_role("heading", name="Abraham Van Helsing's turn")).to_be_visible()
    expect(panel).to_contain_text("now: Abraham Van Helsing")
    expect(panel).to_contain_text("round 1")

    faces[:] = [17]  # a critical: 3 x 2 - 2 armor = 4
    gm_page.locator("form.encounter-action", has_text="Attack").get_by_role("button", name="Attack").click()
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("Difficulty 6/10")
    expect(panel.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("hurt")

    next_turn(gm_page)
    expect(panel).to_contain_text("now: Ghoul")

    faces[:] = [1]  # Van Helsing fumbles his defence: 6 damage, stunned
    ghoul_attack = gm_page.locator("form.encounter-action", has_text="Attack")
    ghoul_attack.get_by_label("Resolve at once").check()  # the GM rolls the defence here
    ghoul_attack.get_by_role("button", name="Attack").click()
    helsing = panel.locator("[data-combatant='Abraham Van Helsing'] .combatant-summary")
    expect(helsing).to_contain_text("Body 2/8")
    expect(helsing).to_contain_text("stunned")

    # Round 2.
    next_turn(gm_page)
    expect(panel).to_contain_text("round 2")
    expect(panel).to_contain_text("now: Abraham Van Helsing")
    faces[:] = [20, 19]  # stunned: disadvantage keeps 19, a critical: Difficulty 6 -> 2
    gm_page.locator("form.encounter-action", has_text="Attack").get_by_role("button", name="Attack").click()
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("Difficulty 2/10")

    # The hits are in the table's feed too, live.
    feed = player_page.locator("#feed")
    expect(feed).to_contain_text("Crypt: Ghoul attacks Abraham Van Helsing")
    expect(feed).to_contain_text("Abraham Van Helsing: Body 8 -> 2 (6 damage)")


def test_gm_picks_an_adv_trait_and_a_psychic_blow_hits_spirit(new_page, table, gm, monkeypatch):
    """Triad l.35 and l.62 (an (Adv.) trait wins a tie) and l.109 (emotional or psychic attacks hurt
    Spirit), as the GM plays them on the encounter page."""
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    helsing = table.characters.get(name="Abraham Van Helsing")
    encounter = services.encounter_create(campaign=table, name="Crypt")
    services.combatant_add_character(encounter=encounter, character=helsing)
    services.combatant_add_npc(
        encounter=encounter,
        name="Wraith",
        cleaned_data={"difficulty": 15, "weapon": "medium", "armor": "none", "kind": "spirit"},
    )
    # Van Helsing's 17 beats nothing: the wraith (20) acts first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([17])), author=gm
    )
    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(encounter.get_absolute_url())
    expect(page.get_by_role("heading", name="Wraith's turn")).to_be_visible()
    wraith_attack = page.locator("form.encounter-action", has_text="Attack")
    expect(wraith_attack.get_by_label("This attack is")).to_have_value("")
    faces[:] = [2]  # Spirit 13 vs 15: a failure; 6 points off Spirit, armor or not
    wraith_attack.get_by_label("Resolve at once").check()  # the GM rolls the defence here
    wraith_attack.get_by_role("button", name="Attack").click()
    row = page.locator("[data-combatant='Abraham Van Helsing'] .combatant-summary")
    expect(row).to_contain_text("Spirit 7/13")
    expect(row).to_contain_text("Body 8/8")

    next_turn(page)
    expect(page.get_by_role("heading", name="Abraham Van Helsing's turn")).to_be_visible()
    attack = page.locator("form.encounter-action", has_text="Attack").first
    attack.get_by_label("Ability").select_option("mind")
    attack.get_by_label("A related (Adv.) trait").select_option(label="Occult")
    faces[:] = [3, 4]  # Mind 15 vs 15 with Occult: the tie is a success, no blow back
    attack.get_by_role("button", name="Attack").click()
    expect(page.locator("[data-combatant='Wraith'] .combatant-summary")).to_have_text("Difficulty 12/15")
    expect(row).to_contain_text("Body 8/8")


def test_gm_plays_an_opposed_roll_a_team_task_and_extra_effort(new_page, table, gm, monkeypatch):
    """Triad l.45-48 (opposed rolls), l.50 (teamwork) and l.57 (extra effort) from the encounter page."""
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    helsing = table.characters.get(name="Abraham Van Helsing")
    zheng = table.characters.get(name="Zheng Yi Sao")
    encounter = services.encounter_create(campaign=table, name="Tower")
    services.combatant_add_character(encounter=encounter, character=helsing)
    services.combatant_add_character(encounter=encounter, character=zheng)
    ghoul = {"difficulty": 5, "weapon": "medium", "armor": "none"}
    services.combatant_add_npc(encounter=encounter, name="Ghoul", cleaned_data=ghoul)
    initiative = Roller(FixedFaces([3, 2]))  # Van Helsing 15, Zheng Yi Sao 13, the ghoul 10
    services.encounter_start(encounter=encounter, version=encounter.version, roller=initiative, author=gm)
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(f"/campaigns/{table.pk}/encounters/{encounter.pk}/")
    expect(gm_page.get_by_role("heading", name="Abraham Van Helsing's turn")).to_be_visible()

    shoot(gm_page, "triad-encounter")
    opposed = gm_page.locator("form.encounter-action", has=gm_page.get_by_role("button", name="Opposed roll"))
    opposed.get_by_label("Actor rolls").select_option("mind")
    opposed.get_by_label("Opponent rolls").select_option("spirit")
    faces[:] = [4, 18]
    opposed.get_by_role("button", name="Opposed roll").click()
    log = gm_page.locator("#encounter-log")
    expect(log).to_contain_text("Zheng Yi Sao wins by 3")
    expect(log).to_contain_text("Odds for Abraham Van Helsing: win")

    team = gm_page.locator("form.encounter-action", has=gm_page.get_by_role("button", name="Team task"))
    team.get_by_label("Ability").select_option("mind")
    team.get_by_label("Difficulty").fill("18")
    team.get_by_label("Working with").select_option(label="Zheng Yi Sao")
    faces[:] = [5, 19]
    team.get_by_role("button", name="Team task").click()
    expect(log).to_contain_text("best 19, success")

    # Both actions are spent; next round Van Helsing attacks with extra effort.
    next_turn(gm_page)
    next_turn(gm_page)
    next_turn(gm_page)
    expect(gm_page.get_by_role("heading", name="Abraham Van Helsing's turn")).to_be_visible()
    attack = gm_page.locator("form.encounter-action", has=gm_page.get_by_role("button", name="Attack"))
    attack.get_by_label("Extra effort (costs 1 point, gives advantage)").check()
    faces[:] = [2, 3]
    attack.get_by_role("button", name="Attack").click()
    expect(log).to_contain_text("Body 8 -> 7 (extra effort)")
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 7


def test_a_player_trips_the_foe_instead_of_hurting_it(new_page, table, gm, player, monkeypatch):
    """Triad l.125 ("tripping (causing a target to fall prone)", declared before the roll) from the player's
    turn panel; the score the attack rolls is the GM's call (l.22, l.33), so her form does not offer it."""
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    helsing = table.characters.get(owner=player)
    encounter = services.encounter_create(campaign=table, name="Crypt")
    services.combatant_add_character(encounter=encounter, character=helsing)
    services.combatant_add_npc(
        encounter=encounter,
        name="Ghoul",
        cleaned_data={"difficulty": 10, "weapon": "medium", "armor": "light", "kind": "body"},
    )
    # His 3 and best ability 15 tie the ghoul's 15; the die breaks it: he acts first.
    services.encounter_start(
        encounter=encounter, version=encounter.version, roller=Roller(FixedFaces([3])), author=gm
    )

    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(helsing.get_absolute_url())
    panel = page.locator("#turn-panel")
    attack = panel.locator("form.encounter-action", has_text="Attack").first
    expect(attack.get_by_label("Instead of damage")).to_be_visible()
    expect(attack.get_by_label("Ability (the GM's call)")).to_have_count(0)
    attack.get_by_label("Instead of damage").select_option("trip")
    faces[:] = [17]
    attack.get_by_role("button", name="Attack").click()
    expect(panel.locator(".turn-latest")).to_contain_text("Ghoul is knocked prone")

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(encounter.get_absolute_url())
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text(
        "Difficulty 10/10 · prone"
    )
    next_turn(gm_page)
    expect(gm_page.get_by_role("heading", name="Ghoul's turn")).to_be_visible()
    gm_page.get_by_role("button", name="Stand up").click()
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("Difficulty 10/10")
