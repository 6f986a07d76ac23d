"""The GM runs L5R's contested, cooperative and cumulative rolls from the encounter page."""

import pytest
from playwright.sync_api import expect

from campaigns.models import FeedEntry
from play import encounters as services
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD
from tests.npcs import L5R_BANDIT

from .conftest import log_in
from .session import next_turn, shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def road(make_campaign, gm, player, other_player):
    campaign = make_campaign("l5r", players=[player, other_player], name="Winter Court")
    load_demo_characters(campaign, players=[player, other_player])
    encounter = services.encounter_create(campaign=campaign, name="Road")
    for name in ("Bayushi Shinai", "Isawa Tishi"):
        services.combatant_add_character(encounter=encounter, character=campaign.characters.get(name=name))
    services.combatant_add_npc(encounter=encounter, name="Bandit", cleaned_data=L5R_BANDIT)
    return encounter


def test_contest_and_a_cumulative_group_effort(new_page, road, gm, monkeypatch):
    """L5R, Cumulative Rolls with a Cooperative one (the group effort's total comes off the task's TN) and
    Contested Rolls (the higher total wins); each roll is its turn's Complex Action (4th edition,
    Actions), so the contest waits for the next round, where the Stance is chosen first (Stances)."""
    faces = []
    monkeypatch.setattr("play.encounter_views.system_random", lambda: FixedFaces(faces))
    page = new_page()
    log_in(page, gm.username, PASSWORD)
    page.goto(road.get_absolute_url())
    # Shinai 4k3 = 15, Tishi 3k2 = 2, the bandit 3k2 = 13: Shinai acts first.
    faces[:] = [7, 5, 3, 2, 1, 1, 1, 9, 4, 1]
    page.get_by_role("button", name="Roll initiative and start").click()
    expect(page.get_by_role("heading", name="Bayushi Shinai's turn")).to_be_visible()

    task = page.locator("form.encounter-action", has=page.get_by_role("button", name="Set a cumulative task"))
    task.get_by_label("Task").fill("Sculpture")
    task.get_by_label("Cumulative TN").fill("60")
    task.get_by_label("Each roll must reach").fill("15")
    task.get_by_role("button", name="Set a cumulative task").click()
    expect(
        page.get_by_text("TN 60, reached over several skill rolls; each roll must reach 15 to count").first
    ).to_be_visible()

    skill = page.locator("form.encounter-action", has=page.get_by_role("button", name="Skill roll"))
    skill.get_by_label("Skill", exact=True).select_option("Lore")
    skill.get_by_label("With others").select_option("group")
    skill.get_by_label("Isawa Tishi").check()
    skill.get_by_label("Counts toward").select_option(label="Sculpture (60 of 60 to go)")
    faces[:] = [9, 8]  # Shinai's unskilled Lore 2k2: 17 + Tishi's 2 ranks = 19
    skill.get_by_role("button", name="Skill roll").click()
    expect(page.get_by_text("19 counts: 41 of 60 to go").first).to_be_visible()
    # The skill roll was the turn's Complex Action: no contest is offered until Shinai's next turn.
    expect(page.get_by_role("button", name="Contested roll")).to_have_count(0)
    road.refresh_from_db()
    assert road.state["l5r_tasks"][0]["remaining"] == 41
    assert FeedEntry.objects.filter(label__endswith="Bayushi Shinai: Lore toward Sculpture").exists()

    for name in ("Bandit", "Isawa Tishi", "Bayushi Shinai"):
        next_turn(page)
        expect(page.get_by_role("heading", name=f"{name}'s turn")).to_be_visible()
    stance = page.locator("form.encounter-action", has=page.get_by_role("button", name="Stance"))
    stance.get_by_label("Stance").select_option("defense")
    stance.get_by_role("button", name="Stance").click()
    expect(page.get_by_text("Armor TN + Air + Defense, no attacks").first).to_be_visible()
    expect(page.get_by_role("button", name="Attack")).to_have_count(0)

    contest = page.locator("form.encounter-action", has=page.get_by_role("button", name="Contested roll"))
    contest.get_by_label("All roll").select_option("trait:agility")
    contest.locator("select[name='target']").select_option(label="Bandit")
    faces[:] = [9, 9, 1, 4, 4, 4]  # 19 to 12
    contest.get_by_role("button", name="Contested roll").click()
    expect(page.get_by_text("19 to 12: Bayushi Shinai wins").first).to_be_visible()
    shoot(page, "encounter-l5r")
