"""A player builds an L5R character in the browser, edits it in place and rolls from the sheet."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from campaigns.models import FeedEntry
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.systems.l5r.models import L5RSheet
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def l5r_table(make_campaign, player):
    campaign = make_campaign("l5r", players=[player], name="Winter Court")
    # Agility 6 and Kenjutsu 7 cost 100 XP: this GM starts characters with 150.
    campaign.options = {"l5r_starting_xp": 150}
    campaign.save()
    return campaign


def test_build_edit_and_roll_an_l5r_character(new_page, l5r_table, gm, player):
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(l5r_table.get_absolute_url())
    page.get_by_role("link", name="New character").click()

    page.locator("#id_name").fill("Hida Kuroda")
    page.locator("#id_school").fill("Hida Bushi School")
    page.locator("#id_agility").fill("6")
    page.locator("#id_skill_kenjutsu").fill("7")
    # The pool is worked out on the server as the player types, after the Ten Dice Rule.
    expect(page.locator("#pool-preview-skill_kenjutsu")).to_have_text("13k6 → 10k7")
    page.locator("#id_void").fill("11")
    page.get_by_role("button", name="Create character").click()
    # Refused with the message on the field at fault, what was typed kept.
    expect(page.get_by_text("Void must be from 1 to 10, not 11.")).to_be_visible()
    expect(page.locator("#id_name")).to_have_value("Hida Kuroda")
    expect(page.locator("#id_skill_kenjutsu")).to_have_value("7")
    assert not L5RSheet.objects.exists()
    page.locator("#id_void").fill("2")
    page.locator("label", has_text="Katana (DR 3k2)").click()
    page.get_by_role("button", name="Create character").click()
    expect(page.get_by_role("heading", name="Hida Kuroda")).to_be_visible()

    # Ranks are bought with XP (4 x the new rank for a trait); the ring the trait belongs to follows.
    expect(page.locator("#ring-rank-fire")).to_have_text("2")
    page.locator("#xp-offer").select_option(label="Intelligence 2 → 3 (12 XP)")
    page.get_by_role("button", name="Spend XP").click()
    expect(page.get_by_text("Spent 12 XP.")).to_be_visible()
    expect(page.locator("#ring-rank-fire")).to_have_text("3")
    assert L5RSheet.objects.get().intelligence == 3

    # Armor is the builder's, then the GM's to type in place (sheets/policy.py): the player's page offers
    # no editor. The GM clicks, types, Enter; the Armor TN follows (5 x Reflexes 2 + 5, + 3).
    expect(page.get_by_role("button", name="Edit Armor TN bonus: 0")).to_have_count(0)
    gm_page = new_page()
    log_in(gm_page, gm.username, PASSWORD)
    gm_page.goto(page.url)
    gm_page.get_by_role("button", name="Edit Armor TN bonus: 0").click()
    field = gm_page.get_by_label("Armor TN bonus", exact=True)
    field.fill("60")
    field.press("Enter")
    expect(gm_page.get_by_role("alert").filter(has_text="Armor TN bonus must be at most 50.")).to_be_visible()
    gm_page.get_by_label("Armor TN bonus", exact=True).fill("3")
    gm_page.get_by_label("Armor TN bonus", exact=True).press("Enter")
    expect(gm_page.get_by_role("button", name="Edit Armor TN bonus: 3")).to_be_visible()
    expect(page.locator("#armor-tn")).to_have_text("18")  # live on the player's page

    # Options change the chance on the button; more raises than Void are refused.
    kenjutsu = page.locator(".roll-button", has_text="Kenjutsu 7")
    before = kenjutsu.locator(".roll-chance").inner_text()
    page.locator("#roll-options-panel summary").click()
    page.locator("#id_tn").fill("35")
    expect(kenjutsu.locator(".roll-chance")).not_to_have_text(before)
    expect(kenjutsu).to_contain_text("10k7 vs TN 35")
    page.locator("#id_raises").fill("3")
    expect(page.get_by_text("With Void 2 you can call at most 2 raises.")).to_be_visible()
    page.locator("#id_raises").fill("1")
    expect(page.locator(".roll-button", has_text="Kenjutsu 7")).to_contain_text("vs TN 40")

    # Roll with a Void point: every die lands on the sheet, kept and dropped marked, total against the TN.
    page.get_by_label("Spend a Void point (+1k1)").check()
    expect(page.locator(".roll-button", has_text="Kenjutsu 7")).to_contain_text("14k7 → 10k9")
    page.locator(".roll-button", has_text="Kenjutsu 7").click()
    result = page.locator("#roll-result .feed-entry")
    expect(result).to_be_visible()
    expect(result.locator(".die")).to_have_count(10)
    expect(result.locator(".die-dropped")).to_have_count(1)
    expect(page.locator("#void-left")).to_have_text("1")
    expect(page.locator("#void-spent")).to_have_text("1")  # play state: shown, the GM's to type
    entry = FeedEntry.objects.get()
    assert entry.request["effective_tn"] == 40 and len(entry.result["chains"]) == 10
    expect(result).to_contain_text("vs TN 40")


def test_keep_other_dice_then_try_again(new_page, make_campaign, player, monkeypatch):
    """Under a roll's result: "Keep these dice" (rules.l5r.rekeep) reads the stored faces again, and a
    failed skill roll offers "Try again" at +10 TN (rules.l5r.second_attempt_tn)."""
    faces = []
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces(faces))
    campaign = make_campaign("l5r", players=[player], name="Winter Court")
    load_demo_characters(campaign, players=[player])
    shinai = campaign.characters.get(name="Bayushi Shinai")
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(shinai.get_absolute_url())
    faces[:] = [9, 8, 7, 2, 1]  # Sincerity 2 + Awareness 3: 5k3 keeps 9 + 8 + 7 = 24 vs TN 15
    page.locator(".roll-button", has_text="Sincerity 2").click()
    expect(page.locator("#roll-result")).to_contain_text("24 vs TN 15")
    rekeep = page.locator("form.l5r-rekeep")
    expect(rekeep).to_contain_text("Keep other dice: choose 3 of 5")
    for position in range(5):  # each die a toggle: the kept three off, the other two on
        page.locator(f"#l5r-keep-{position}").click()
    # Two of three: "Keep these dice" waits for the third.
    expect(page.locator("#l5r-rekeep-status")).to_have_text("2 of 3 chosen: choose 1 more")
    expect(page.get_by_role("button", name="Keep these dice")).to_be_disabled()
    page.locator("#l5r-keep-2").click()
    page.get_by_role("button", name="Keep these dice").click()
    expect(page.locator("#roll-result")).to_contain_text("10 vs TN 15 (5k3), keeping 7, 2, 1: failure")
    shoot(page, "l5r-after-roll")
    faces[:] = [9, 9, 8, 1, 1]
    page.get_by_role("button", name="Try again at TN 25 (+10)").click()
    expect(page.locator("#roll-result")).to_contain_text("Second attempt, TN 15 + 10: 26 vs TN 25")
    last = FeedEntry.objects.latest("seq")
    assert last.result["total"] == 26 and last.result["tn"] == 25


def test_a_pool_typed_before_the_pages_scripts_arrive_is_worked_out_once_they_do(new_page, l5r_table, player):
    """A slow phone: the builder is drawn and typed into while htmx is still on its way, so no preview
    heard the typing. Once htmx has set the page up, the changed fields are sent and the pool follows."""
    page = new_page()
    log_in(page, player.username, PASSWORD)
    held = []  # htmx's script, kept waiting until the typing is done
    page.route("**/django_htmx/htmx-*.js", lambda route: held.append(route))
    page.goto(reverse("character_new", args=[l5r_table.pk]), wait_until="commit")
    page.locator("#id_agility").fill("6")
    page.locator("#id_skill_kenjutsu").fill("7")
    assert len(held) == 1, "the page asked for htmx before its body was drawn"
    preview = page.locator("#pool-preview-skill_kenjutsu")
    expect(preview).to_have_text("2k2 unskilled")  # as drawn: nothing has worked it out yet
    preview_url = reverse("l5r_builder_preview", args=[l5r_table.pk])
    with page.expect_response(lambda response: response.url.endswith(preview_url)):
        held[0].continue_()
    expect(preview).to_have_text("13k6 → 10k7")
