"""Every page a player or GM uses, at desktop or phone width: axe-core finds nothing serious or
critical, no id is used twice, and the console has no Content-Security-Policy violation.

One width per run, the slowest test in the suite otherwise: ``AUDIT_VIEWPORT=phone`` (or ``desktop``,
the default, or ``all``); CI audits the desktop on its first pass and the phone on its second.

axe-core's JavaScript comes from the installed axe-playwright-python package (no network).
"""

import os
import re
import threading
from io import StringIO

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.db import connections
from django.urls import reverse
from playwright.sync_api import expect

from campaigns.models import Campaign
from play import encounters
from sheets.management.commands.demo import DEMO_GM, DEMO_PASSWORD, DEMO_PLAYERS
from tests.sheets.test_write_policy import players_adjust_play_state

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e

AXE = Axe()
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}
AUDITED = os.environ.get("AUDIT_VIEWPORT", "desktop")
DUPLICATE_IDS = """() => {
  const seen = {}, twice = [];
  for (const el of document.querySelectorAll('[id]')) {
    if (seen[el.id] && !twice.includes(el.id)) { twice.push(el.id); }
    seen[el.id] = true;
  }
  return twice;
}"""


@pytest.fixture
def demo_table(asgi_server):
    def load():
        call_command("demo", stdout=StringIO())
        for campaign in Campaign.objects.all():
            encounter = encounters.encounter_create(campaign=campaign, name="Ambush")
            encounters.combatant_add_character(encounter=encounter, character=campaign.characters.first())
        connections.close_all()

    # Off the test thread, where Playwright's event loop runs: the demo's broadcasts need a thread of
    # their own to reach the channel layer.
    loader = threading.Thread(target=load)
    loader.start()
    loader.join()
    return Campaign.objects.order_by("pk")


# The audit in parts, so that the suite's cores share it: the pages outside any campaign (signed out,
# and the GM's and a player's own), then each system's campaign as its GM and as a player see it.
PARTS = ["account", "fivebyfive", "freefall", "triad", "l5r"]


def gm_pages(campaign):
    yield reverse("campaign_detail", args=[campaign.pk])
    yield reverse("campaign_edit", args=[campaign.pk])
    yield reverse("table", args=[campaign.pk])
    yield reverse("encounters", args=[campaign.pk])
    yield campaign.encounters.first().get_absolute_url()
    yield reverse("character_new", args=[campaign.pk])
    for character in campaign.characters.order_by("pk")[:2]:
        yield reverse("sheet", args=[character.pk])
        yield reverse("sheet_history", args=[character.pk])


def player_pages(campaign):
    yield reverse("table", args=[campaign.pk])
    yield reverse("campaign_detail", args=[campaign.pk])
    yield reverse("character_new", args=[campaign.pk])
    character = campaign.characters.filter(owner__username=DEMO_PLAYERS[0]).first()
    yield reverse("table_saved_rolls", args=[campaign.pk])  # the saved rolls without JavaScript
    if character is not None:
        yield reverse("sheet", args=[character.pk])
        yield reverse("sheet_saved_rolls", args=[character.pk])


def audit(page, url: str, status: int = 200) -> list[str]:
    """What is wrong on one page, each as one line (empty when the page passes and answers ``status``).

    The page is audited once it has loaded and, where it keeps a socket to the table, once that socket
    is live (the page's own signal: nothing it draws waits on anything later).
    """
    csp = []
    listener = lambda message: (  # noqa: E731
        csp.append(message.text) if "Content Security Policy" in message.text else None
    )
    page.on("console", listener)
    try:
        response = page.goto(url)
        live = page.locator("[data-ws-path]")
        if live.count():
            expect(live).to_have_attribute("data-status", "live")
        answered = response.status if response is not None else None
        problems = [] if answered == status else [f"{url}: status {answered}"]
        results = AXE.run(page)
        for violation in results.response["violations"]:
            if violation["impact"] in {"serious", "critical"}:
                where = "; ".join(node["target"][0] for node in violation["nodes"][:3])
                problems.append(
                    f"{url}: {violation['impact']} {violation['id']}: {violation['help']} at {where}"
                )
        # app.js sends again what was typed before htmx arrived; here nobody typed.
        page.wait_for_function("() => Array.isArray((window.tabletop || {}).resentAtLoad)")
        for field in page.evaluate("window.tabletop.resentAtLoad"):
            problems.append(f"{url}: {field!r} looked typed into before the page's scripts ran")
        for element_id in page.evaluate(DUPLICATE_IDS):
            problems.append(f"{url}: the id {element_id!r} is used more than once")
        problems += [f"{url}: CSP: {text}" for text in csp]
    finally:
        page.remove_listener("console", listener)
    return problems


@pytest.mark.long
@pytest.mark.parametrize("part", PARTS)
@pytest.mark.parametrize("viewport", [name for name in VIEWPORTS if AUDITED in (name, "all")])
def test_every_page_passes_the_audit(new_page, demo_table, viewport, part):
    width, height = VIEWPORTS[viewport]
    campaigns = list(demo_table)
    problems = []
    gm = new_page(width=width, height=height)
    log_in(gm, DEMO_GM, DEMO_PASSWORD)
    player = new_page(width=width, height=height)
    log_in(player, DEMO_PLAYERS[0], DEMO_PASSWORD)

    if part == "account":
        anonymous = new_page(width=width, height=height)
        for url in (
            reverse("landing"),
            reverse("login"),
            reverse("signup"),
            reverse("campaign_join", args=[campaigns[0].invite_token]),
        ):
            problems += audit(anonymous, url)
        problems += audit(anonymous, reverse("campaign_join", args=["no-such-invite"]), status=404)
        for url in (reverse("dashboard"), reverse("campaign_create"), reverse("password_change")):
            problems += audit(gm, url)
        problems += audit(player, reverse("dashboard"))
    else:
        campaign = next(campaign for campaign in campaigns if campaign.system == part)
        for url in gm_pages(campaign):
            problems += audit(gm, url)
        for url in player_pages(campaign):
            problems += audit(player, url)

    assert not problems, "\n".join(problems)


# ----- keyboard and phone ------------------------------------------------------------------------


def player_sheet(demo_table, system: str = "triad"):
    campaign = next(c for c in demo_table if c.system == system)
    return campaign, campaign.characters.filter(owner__username=DEMO_PLAYERS[0]).first()


def test_focus_stays_on_the_roll_button_and_returns_to_the_saved_value(new_page, demo_table):
    campaign, character = player_sheet(demo_table)
    players_adjust_play_state(campaign)  # so the player has numbers to type (sheets/policy.py)
    page = new_page()
    log_in(page, DEMO_PLAYERS[0], DEMO_PASSWORD)
    page.goto(reverse("sheet", args=[character.pk]))

    button = page.locator(".roll-button[data-roll-key]").first
    key = button.get_attribute("data-roll-key")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator("#roll-result .feed-entry")).to_be_visible()
    expect(page.locator(f'.roll-button[data-roll-key="{key}"]')).to_be_focused()
    page.keyboard.press("Enter")  # a second roll from the keyboard, without reaching for the mouse
    expect(page.locator("#roll-result .feed-entry")).to_have_count(1)
    expect(page.locator(f'.roll-button[data-roll-key="{key}"]')).to_be_focused()

    # A text value opens with the caret at its end: typing adds to it.
    name = page.locator(".sheet-name .editable-value").first
    before = character.name
    name.focus()
    page.keyboard.press("Enter")
    field = page.locator("form[data-inline-edit] input[name='value']")
    expect(field).to_be_focused()
    assert field.evaluate("e => [e.selectionStart, e.selectionEnd]") == [len(before), len(before)]
    page.keyboard.type(" II")
    page.keyboard.press("Enter")
    saved = page.locator(".sheet-name .editable-value").first
    expect(saved).to_contain_text(f"{before} II")
    expect(saved).to_be_focused()

    # A number opens the same way: a digit typed goes after the value there.
    editors = page.locator(".editable[data-path] button.editable-value")
    number = editors.filter(has_text=re.compile(r"^\s*\d+\s*$")).first
    path = number.evaluate("e => e.closest('.editable').dataset.path")
    value = number.inner_text().strip()
    number.focus()
    page.keyboard.press("Enter")
    field = page.locator(f'form[data-inline-edit][data-path="{path}"] input[name="value"]')
    expect(field).to_be_focused()
    page.keyboard.press("Backspace")  # rubs out the last digit: the caret was at the end
    expect(field).to_have_value(value[:-1])
    page.keyboard.press("Escape")
    expect(page.locator(f'.editable[data-path="{path}"] .editable-value')).to_be_focused()


def test_on_a_phone_the_roller_sees_their_result_without_scrolling(new_page, demo_table):
    campaign, _ = player_sheet(demo_table)
    page = new_page(width=390, height=844)
    log_in(page, DEMO_PLAYERS[0], DEMO_PASSWORD)
    page.goto(reverse("table", args=[campaign.pk]))
    expect(page.locator("#table-status")).to_have_text(re.compile("Live|Connected", re.I))
    page.locator("#id_notation").fill("3d6")
    page.locator("#dice-box button[type=submit]").click()
    newest = page.locator("#feed .feed-entry").first
    expect(newest).to_contain_text("3d6")
    assert page.evaluate("() => window.scrollY") == 0
    box = newest.bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, box
    shoot(page, "table-phone", whole=False)


def test_a_refused_quick_npc_keeps_what_was_typed(new_page, demo_table):
    campaign = next(c for c in demo_table if c.system == "triad")
    encounter = campaign.encounters.first()
    page = new_page(width=390, height=844)
    log_in(page, DEMO_GM, DEMO_PASSWORD)
    page.goto(encounter.get_absolute_url())
    page.locator("#id_name").fill("Ghast of the crypt")
    page.locator("#id_npc-difficulty").fill("99")  # the form allows 1 to 30
    page.get_by_role("button", name="Add NPC").click()
    expect(page.locator("#id_name")).to_have_value("Ghast of the crypt")
    expect(page.locator("#id_npc-difficulty")).to_have_value("99")
    expect(page.locator("#id_npc-difficulty")).to_have_class(re.compile("is-invalid"))
    expect(page.locator("#id_npc-difficulty-error")).to_be_visible()
    assert not encounter.combatants.filter(name="Ghast of the crypt").exists()
