"""A player builds a Triad character in the browser, edits it in place and rolls from the sheet."""

import pytest
from playwright.sync_api import expect

from campaigns.models import FeedEntry
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.systems.triad.models import TriadSheet
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot
from .test_accessibility import audit

pytestmark = pytest.mark.e2e


@pytest.fixture
def triad_table(make_campaign, player):
    campaign = make_campaign("triad", players=[player], name="Castle Night")
    players_adjust_play_state(campaign)  # the player types Body (sheets/policy.py)
    return campaign


def test_build_edit_and_roll_a_triad_character(new_page, triad_table, player):
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(triad_table.get_absolute_url())
    page.get_by_role("link", name="New character").click()

    page.locator("#id_name").fill("Mina Harker")
    page.locator("#id_tier").select_option("ordinary")
    page.locator("#id_body").fill("8")
    page.locator("#id_mind").fill("12")
    page.locator("#id_spirit").fill("11")
    for trait in ("Occult", "Willpower", "Medical Expert"):
        page.locator(f"input[name=traits][value='{trait}']").check()
    page.get_by_role("button", name="Create character").click()
    # 31 points: refused with a message on the field, nothing saved, what was typed kept.
    expect(page.get_by_text("divide exactly 30 points")).to_be_visible()
    expect(page.locator("#id_name")).to_have_value("Mina Harker")
    page.locator("#id_spirit").fill("10")
    page.get_by_role("button", name="Create character").click()
    expect(page.get_by_role("heading", name="Mina Harker")).to_be_visible()

    # Edit in place: click, type, Enter.
    page.get_by_role("button", name="Edit Body: 8").click()
    body_input = page.get_by_label("Body", exact=True)
    body_input.fill("25")
    body_input.press("Enter")
    expect(page.get_by_role("alert").filter(has_text="Body must be at most 8.")).to_be_visible()
    expect(page.get_by_label("Body", exact=True)).to_have_value("25")
    page.get_by_label("Body", exact=True).press("Escape")
    page.get_by_role("button", name="Edit Body: 8").click()
    page.get_by_label("Body", exact=True).fill("6")
    page.get_by_label("Body", exact=True).press("Enter")
    expect(page.get_by_role("button", name="Edit Body: 6")).to_be_visible()
    expect(page.locator(".roll-button", has_text="Body 6")).to_be_visible()

    # Options change the chance on the button.
    mind_button = page.locator("[data-roll-key='ability:mind']")
    before = mind_button.locator(".roll-chance").inner_text()
    page.locator("#roll-options-panel summary").click()
    page.locator("#id_difficulty").fill("16")
    expect(mind_button.locator(".roll-chance")).not_to_have_text(before)

    # Roll: the result with its die lands on the sheet, made by the server.
    mind_button.click()
    result = page.locator("#roll-result .feed-entry")
    expect(result).to_be_visible()
    expect(result.locator(".die")).to_have_count(1)
    entry = FeedEntry.objects.latest("seq")  # the roll; before it, the GM's line about Body typed by hand
    assert entry.character_name == "Mina Harker" and entry.request["difficulty"] == 16
    expect(result).to_contain_text(entry.summary)


def test_rest_and_a_new_trait_on_an_existing_sheet(new_page, make_campaign, gm, player, other_player):
    """Triad l.103 (rest, the player divides the points) and l.199 (traits: after creation the GM's), in
    the browser."""
    campaign = make_campaign("triad", players=[player, other_player], name="Castle Day")
    load_demo_characters(campaign, players=[player, other_player])
    players_adjust_play_state(campaign)  # the player rests (sheets/policy.py)
    helsing = campaign.characters.get(name="Abraham Van Helsing")
    TriadSheet.objects.filter(character=helsing).update(body=4, mind=10)
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(helsing.get_absolute_url())

    # Asking more points than hours: refused with the reason, nothing saved.
    page.get_by_label("Hours of rest").fill("2")
    page.get_by_label("Points to Mind").fill("3")
    page.get_by_role("button", name="Rest", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("2 hours of rest recover only 2 points")
    page.get_by_label("Hours of rest").fill("3")
    page.get_by_label("Points to Mind").fill("2")
    page.get_by_role("button", name="Rest", exact=True).click()
    expect(page.locator("#messages")).to_contain_text("Body 4 -> 5, Mind 10 -> 12")
    expect(page.get_by_role("button", name="Edit Body: 5")).to_be_visible()
    expect(page.get_by_role("button", name="Add trait")).to_have_count(0)

    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(helsing.get_absolute_url())
    gm_page.get_by_label("Trait from the list").select_option("Deadly")
    gm_page.get_by_role("button", name="Add trait").click()
    expect(gm_page.locator("#messages")).to_contain_text("Added Deadly.")
    expect(page.locator("#traits-heading + ul")).to_contain_text("Deadly")  # live on the player's page


def test_builder_counts_points_and_traits_as_the_player_types(new_page, triad_table, player):
    """Triad, Appendix A (l.199-207): the running count follows every change, before any submit."""
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(triad_table.get_absolute_url())
    page.get_by_role("link", name="New character").click()
    points = page.locator("#triad-tally [data-count='points']")
    traits = page.locator("#triad-tally [data-count='traits']")
    expect(points).to_have_text("30 of 30 spent: exactly right")
    expect(traits).to_have_text("0 of 3 chosen: 3 to go")
    # Each trait is described beside its checkbox.
    expect(page.locator("#id_traits_0_about")).to_contain_text("officials")
    page.locator("#id_name").fill("Lucy Westenra")
    page.locator("#id_tier").select_option("heroic")
    expect(points).to_have_text("30 of 35 spent: 5 left")
    page.locator("#id_body").fill("16")
    expect(points).to_have_text("36 of 35 spent: 1 too many")
    page.locator("input[name=traits][value='Occult']").check()
    page.locator("input[name=traits][value='Charm']").check()
    page.locator("#id_custom_traits").fill("Night Owl")
    expect(traits).to_have_text("3 of 5 chosen: 2 to go")
    page.locator("#id_tier").select_option("street_level_superhero")
    expect(page.locator("#triad-tally [data-count='powers']")).to_have_text("0 of 2 named: 2 to go")
    shoot(page, "triad-builder-1280")
    # After a refused submit the server's count says the same.
    page.get_by_role("button", name="Create character").click()
    expect(page.get_by_text("divide exactly 35 points")).to_be_visible()
    expect(points).to_have_text("36 of 35 spent: 1 too many")
    expect(traits).to_have_text("3 of 3 chosen: exactly right")
    narrow = new_page(width=390, height=844)
    log_in(narrow, player.username, PASSWORD)
    assert audit(narrow, page.url) == []
    shoot(narrow, "triad-builder-390", whole=False)


def test_tool_and_hazard_options_on_a_sheet_roll(new_page, make_campaign, player, other_player,
                                                 monkeypatch):
    """Triad l.59 (an exceptional tool replaces the score) and l.110 (a roll to avoid harm), in a browser."""
    campaign = make_campaign("triad", players=[player, other_player], name="Castle Fire")
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(name="Abraham Van Helsing")
    faces = [4]
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces(faces))
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(helsing.get_absolute_url())
    page.locator("#roll-options-panel summary").click()
    page.locator("#id_difficulty").fill("12")
    page.get_by_label("Hazard: damage on a failure").fill("4")
    page.get_by_label("Hazard: damage when short by 7 or more").fill("8")
    body = page.locator("[data-roll-key='ability:body']")
    page.get_by_label("Exceptional tool's rating").fill("20")
    expect(body).to_contain_text("Body 20")
    page.get_by_label("Exceptional tool's rating").fill("")
    expect(body).to_contain_text("Body 8")
    body.click()  # 4, Body 8 counts: 8 vs 12, short by 4: 4 damage
    expect(page.locator("#roll-result .feed-entry")).to_contain_text("Hazard: Body 8 -> 4 (4 damage)")
    shoot(page, "triad-sheet-hazard")
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 4
