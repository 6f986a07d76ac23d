"""A player builds a FREE/FALL character in the browser, edits it in place and rolls from the sheet."""

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import FeedEntry
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.models import Character
from sheets.systems.freefall.models import FreeFallGear
from tests.conftest import PASSWORD
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e


def editor(page, path: str):
    """The in-place editor for ``path`` once htmx has settled it (a change before that is lost)."""
    form = page.locator(f"form.editable[data-path='{path}']")
    expect(form).to_be_visible()
    expect(form).not_to_have_class(re.compile("htmx-added"))
    return form


@pytest.fixture
def freefall_table(make_campaign, player):
    return make_campaign("freefall", players=[player], name="Neon Drop")


def test_build_edit_and_roll_a_freefall_character(new_page, freefall_table, player, monkeypatch):
    """The player builds; after creation the build and the play state are the GM's to type, with the
    table's option off (docs/rules.md, "Who changes what by hand")."""
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(freefall_table.get_absolute_url())
    page.get_by_role("link", name="New character").click()

    page.locator("#id_name").fill("Vesna Kade")
    page.locator("#id_character_class").fill("Breacher")
    page.locator("#id_specialty").fill("Infiltration")
    page.locator("#id_body").fill("5")
    page.locator("#id_mind").fill("2")
    page.locator("#id_ghost").fill("6")
    page.locator("#id_gear-0-name").fill("Carbon vest")
    page.locator("#id_gear-0-binds").select_option("body")
    page.locator("#id_gear-0-binding").fill("1")
    page.locator("#id_gear-0-av").fill("2")
    page.locator("#id_gear-0-hardened").check()
    page.locator("#id_programs-0-name").fill("Needle")
    page.locator("#id_programs-0-type").select_option("spike")
    page.locator("#id_programs-0-tier").select_option("chrome")
    page.get_by_role("button", name="Create character").click()
    # CHROME binds 3 MIND and there are only 2: refused on MIND, nothing saved, the rows kept.
    expect(page.get_by_text("bind 3 MIND, but you only have 2")).to_be_visible()
    assert not Character.objects.exists()
    expect(page.locator("#id_gear-0-name")).to_have_value("Carbon vest")
    page.locator("#id_programs-0-tier").select_option("steel")
    page.get_by_role("button", name="Create character").click()
    expect(page.get_by_role("heading", name="Vesna Kade")).to_be_visible()
    expect(page.locator("#ff-body-numbers")).to_contain_text("4/ 4")

    # The GM edits the build in place (click, type, Enter): BODY permanent 5 -> 6; below its binding is
    # refused. The player's page offers no editor for it, and follows live.
    expect(page.get_by_role("button", name="Edit BODY permanent: 5")).to_have_count(0)
    gm_page = new_page()
    log_in(gm_page, freefall_table.gm.username, PASSWORD)
    gm_page.goto(page.url)
    gm_page.get_by_role("button", name="Edit BODY permanent: 5").click()
    permanent = editor(gm_page, "body_perm").get_by_label("BODY permanent", exact=True)
    permanent.fill("0")
    permanent.press("Enter")
    expect(gm_page.get_by_role("alert").filter(has_text="cannot go below 1")).to_be_visible()
    gm_page.get_by_label("BODY permanent", exact=True).fill("6")
    gm_page.get_by_label("BODY permanent", exact=True).press("Enter")
    expect(gm_page.get_by_role("button", name="Edit BODY permanent: 6")).to_be_visible()
    expect(page.locator("#ff-body-numbers")).to_contain_text("5/ 5")

    # Spending is play: the Spend button, after that in-place edit (its form sends the newer version).
    for left in (4, 3, 2):
        page.get_by_role("button", name="Spend 1 BODY").click()
        expect(page.get_by_text(f"Vesna Kade spends 1 BODY: {left} left.")).to_be_visible()
    expect(page.locator("#ff-body-numbers")).to_contain_text("2/ 5")
    expect(page.locator(".roll-button", has_text="BODY 2")).to_be_visible()

    # Harm, spent points, gear condition and program status are shown, with no editor for the player.
    play_state = ("BODY spent", "Harm slot 1 state", "Harm slot 1 kind", "Carbon vest condition")
    play_state += ("Needle status",)
    for name in play_state:
        expect(page.get_by_role("button", name=re.compile(f"^Edit {name}"))).to_have_count(0)
    expect(page.locator("#ff-harm1-state .editable-value")).to_have_text("Empty")
    expect(page.locator("#ff-body-spent .editable-value")).to_have_text("3")

    # The GM fills slot 1 with a select; the player's sheet shows it, and the pool shrinks to 4 dice.
    gm_page.get_by_role("button", name="Edit Harm slot 1 state: Empty").click()
    editor(gm_page, "harm1_state").get_by_label("Harm slot 1 state", exact=True).select_option("temp")
    expect(gm_page.get_by_role("button", name="Edit Harm slot 1 state: Temp")).to_be_visible()
    expect(gm_page.locator("#ff-pool")).to_contain_text("4d20")
    expect(page.locator("#ff-pool")).to_contain_text("4d20")  # the player's open sheet follows live
    expect(page.locator("#ff-harm1-kind")).to_contain_text("Physical")
    character = Character.objects.get(name="Vesna Kade")
    assert character.changes.filter(reason="Edited Harm slot 1 state", author=freefall_table.gm).exists()

    # Options change the chance on the button.
    ghost = page.locator("[data-roll-key='attribute:ghost']")
    before = ghost.locator(".roll-chance").inner_text()
    page.locator("#roll-options-panel summary").click()
    page.locator("#id_tn").select_option("hard")
    expect(ghost.locator(".roll-chance")).not_to_have_text(before)
    page.locator("#id_dice").fill("5")
    expect(page.get_by_text("Your pool is 4 dice right now")).to_be_visible()
    page.locator("#id_dice").fill("3")
    expect(ghost).to_contain_text("3d20 vs TN 16")

    # Roll a program: the result with its three dice lands on the sheet; the 1 compromises Needle.
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([1, 14, 3]))
    needle = page.locator(".roll-button", has_text="Needle")
    expect(needle).to_contain_text("3d20+5 vs TN 16")
    needle.click()
    result = page.locator("#roll-result .feed-entry")
    expect(result).to_be_visible()
    expect(result.locator(".die")).to_have_count(3)
    entry = FeedEntry.objects.get()
    assert entry.request["tn"] == 16 and entry.request["dice"] == 3 and entry.request["bonus"] == 5
    assert [die["face"] for die in entry.result["dice"]] == [1, 14, 3]
    expect(result).to_contain_text("3d20+5 vs TN 16: 1 success, success (complication)")
    expect(result).to_contain_text("Needle compromised")
    expect(page.locator(".ff-compromised")).to_contain_text("Compromised")
    expect(page.locator(".roll-button", has_text="Needle (compromised)")).to_be_visible()

    # The roll moved the sheet's version on, out of band even though the dice option's change event
    # refreshed the buttons at the same moment: the next edit (the notes, the player's own) saves
    # instead of reporting a conflict.
    page.get_by_role("button", name=re.compile("^Edit Notes")).click()
    notes = page.locator(".sheet-notes textarea[name=value]")
    notes.fill("Owes Ilya a favour")
    notes.press("Control+Enter")
    expect(page.locator(".sheet-notes")).to_contain_text("Owes Ilya a favour")


def test_rows_as_needed_and_gear_changed_after_creation(new_page, freefall_table, player):
    """The builder's "Add a gear row" and the sheet's gear page work as plain forms in the browser."""
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(freefall_table.get_absolute_url())
    page.get_by_role("link", name="New character").click()
    page.locator("#id_name").fill("Osei Marr")
    page.locator("#id_character_class").fill("Netrunner")
    page.locator("#id_specialty").fill("Intrusion")
    for index, name in enumerate(("Deck", "Baton", "Goggles", "Rope")):
        page.locator(f"#id_gear-{index}-name").fill(name)
    page.get_by_role("button", name="Add a gear row").click()
    expect(page.locator("#id_gear-3-name")).to_have_value("Rope")
    page.locator("#id_gear-4-name").fill("Flare")
    page.locator("#id_gear-4-dv").fill("1")
    page.get_by_role("button", name="Create character").click()
    expect(page.get_by_role("heading", name="Osei Marr")).to_be_visible()
    osei = Character.objects.get(name="Osei Marr")
    assert osei.ff_gear.count() == 5

    page.get_by_role("link", name="Change gear and programs").click()
    page.locator("#id_gear-3-remove").check()  # the rope goes
    page.locator("#id_gear-5-name").fill("Cortex deck")
    page.locator("#id_gear-5-binds").select_option("mind")
    page.locator("#id_gear-5-binding").fill("5")  # MIND is 4: refused
    page.get_by_role("button", name="Save gear and programs").click()
    expect(page.get_by_text("bind 5 MIND, but you only have 4")).to_be_visible()
    assert osei.ff_gear.count() == 5
    page.locator("#id_gear-5-binding").fill("2")
    page.get_by_role("button", name="Save gear and programs").click()
    expect(page.get_by_role("heading", name="Osei Marr")).to_be_visible()
    assert sorted(osei.ff_gear.values_list("name", flat=True)) == [
        "Baton",
        "Cortex deck",
        "Deck",
        "Flare",
        "Goggles",
    ]


def test_repair_a_broken_item_from_the_sheet(new_page, freefall_table, player):
    """The gear list's Repair button (rules.repair_gear) sets a broken item back to intact, in the history:
    the player's, where the table lets players adjust their own play state (sheets/policy.py)."""
    load_demo_characters(freefall_table, players=[player])
    players_adjust_play_state(freefall_table)
    character = freefall_table.characters.filter(owner=player).first()
    item = character.ff_gear.order_by("pk").first()
    item.condition = FreeFallGear.Condition.BROKEN
    item.save()
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(character.get_absolute_url())
    shoot(page, "freefall-repair")
    # An in-place edit first moves the sheet's version on; the Repair form then sends the newer one.
    page.get_by_role("button", name="Edit BODY spent: 0").click()
    editor(page, "body_spent").get_by_label("BODY spent", exact=True).fill("1")
    page.get_by_label("BODY spent", exact=True).press("Enter")
    expect(page.get_by_role("button", name="Edit BODY spent: 1")).to_be_visible()
    button = page.get_by_role("button", name=f"Repair {item.name}")
    expect(button).to_be_visible()
    button.click()
    expect(page.get_by_text(f"{item.name} is repaired: intact again.")).to_be_visible()
    expect(page.get_by_role("button", name=f"Repair {item.name}")).to_have_count(0)
    item.refresh_from_db()
    assert item.condition == FreeFallGear.Condition.OK
    assert character.changes.filter(reason__startswith=f"Repaired {item.name}").exists()
