"""Setup shared by the four-device session tests (tests/e2e/test_session_*.py) and the other browser tests
of a fight: the GM and the players, each logged in on their own browser context, with the server's dice
fixed."""

import os

from playwright.sync_api import Page, expect

from play import encounters
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.registry import system_for
from sheets.services import character_create
from tests.conftest import PASSWORD

from .conftest import log_in

PHONE = {"width": 390, "height": 844}

# Set to a folder to keep screenshots of the pages the browser tests pass through, for a look
# (`SCREENSHOT_DIR=screenshots make test-browser`). Unset, none is taken: each costs the browser a
# render and a PNG, on every run, for nobody.
SHOTS = os.environ.get("SCREENSHOT_DIR")


def shoot(target, name: str, *, top: bool = False, whole: bool = True) -> None:
    """``name``.png in SCREENSHOT_DIR, if set: a page whole (``whole=False``: the screen it shows), with
    ``top`` its first screen too (what a phone shows before scrolling); or one part of a page."""
    if not SHOTS:
        return
    os.makedirs(SHOTS, exist_ok=True)
    if not isinstance(target, Page):
        target.screenshot(path=os.path.join(SHOTS, f"{name}.png"))
        return
    target.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=whole)
    if top:
        target.screenshot(path=os.path.join(SHOTS, f"{name}-top.png"))


def encounter_with(campaign, name: str, characters, npc: str, npc_stats: dict):
    """An encounter of ``characters`` (in that order: FREE/FALL declares in it) and one quick NPC."""
    encounter = encounters.encounter_create(campaign=campaign, name=name)
    for character in characters:
        encounters.combatant_add_character(encounter=encounter, character=character)
    encounters.combatant_add_npc(encounter=encounter, name=npc, cleaned_data=npc_stats)
    return encounter


def crypt_fight(campaign, players):
    """The Triad demo party of ``players`` against a Ghoul (Difficulty 10, medium weapon, light armor),
    not started."""
    load_demo_characters(campaign, players=players)
    return encounter_with(
        campaign,
        "Crypt",
        campaign.characters.order_by("pk"),
        "Ghoul",
        {"difficulty": 10, "weapon": "medium", "armor": "light"},
    )


def current_name(encounter) -> str:
    """Whose turn it is, read from the database."""
    encounter.refresh_from_db()
    return encounters.current_actor(encounter, encounters.combatants_of(encounter)).name


def built_character(campaign, owner, data: dict, *, trusted: bool = False):
    """A character made through the system's builder form, as a player would."""
    form = system_for(campaign).builder_form(campaign=campaign, data=data, trusted=trusted)
    assert form.is_valid(), form.errors
    return character_create(campaign=campaign, owner=owner, cleaned_data=form.cleaned_data)


def demo_character_again(campaign, owner, name: str):
    """The system's first demo character again under another name, through the builder."""
    data = {**system_for(campaign).demo_form_data()[0], "name": name}
    return built_character(campaign, owner, data, trusted=True)


def fixed_dice(monkeypatch) -> list[int]:
    """The faces the encounter and roll-request views roll next; the test refills the list."""
    faces: list[int] = []
    for view in ("play.encounter_views", "play.request_views"):
        monkeypatch.setattr(f"{view}.system_random", lambda: FixedFaces(faces))
    return faces


def logged_in_page(new_page, user, url: str, *, phone: bool = False):
    """A fresh browser context logged in as ``user`` (on a phone-sized viewport if asked), opened at url."""
    page = new_page(**PHONE) if phone else new_page()
    log_in(page, user.username, PASSWORD)
    page.goto(url)
    return page


def next_turn(page) -> None:
    """The GM's "Next turn": a plain form post, so done once the page it leads to has loaded. Until then
    the old page is still live, and its own refresh can already show the next turn: a choice made on it
    then would go with it."""
    with page.expect_navigation():
        page.get_by_role("button", name="Next turn").click()


def expect_live(*pages) -> None:
    for page in pages:
        expect(page.locator("[data-ws-path]")).to_have_attribute("data-status", "live")


def table_url(campaign) -> str:
    return f"/campaigns/{campaign.pk}/table/"


def request_form_for_everyone(table):
    """The GM's roll-request panel on the table page, opened, with every character ticked."""
    panel = table.locator("#requests-gm")
    panel.locator("summary").click()
    for box in panel.locator("input[name=characters]").all():
        box.check()
    return panel
