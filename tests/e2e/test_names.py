"""An 80-character name with no break in it never makes a page wider than a phone's screen."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from play import encounters
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in

pytestmark = pytest.mark.e2e

LONG = "שלום" * 5 + "W" * 60  # right-to-left letters, then the widest Latin letter: 80 in all


def page_fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_long_names_wrap_at_phone_width(new_page, transactional_db):
    users = get_user_model().objects
    gm = users.create_user(username="g" + LONG[:79], password=PASSWORD)
    player = users.create_user(username="p" + LONG[:79], password=PASSWORD)
    campaign = campaign_create(gm=gm, name=LONG, system="fivebyfive")
    Membership.objects.create(campaign=campaign, user=player)
    load_demo_characters(campaign, players=[player])
    character = campaign.characters.get()
    character.name = LONG
    character.save(update_fields=["name"])
    encounter = encounters.encounter_create(campaign=campaign, name=LONG)
    encounters.combatant_add_character(encounter=encounter, character=character)

    page = new_page(width=390, height=844)
    log_in(page, player.username, PASSWORD)
    page.goto(character.get_absolute_url())
    page.locator(".roll-button").first.click()
    expect(page.locator("#roll-result .feed-entry")).to_be_visible()
    assert page_fits(page), "the sheet is wider than the screen"

    for width in (390, 1280):
        gm_page = new_page(width=width, height=844)
        log_in(gm_page, gm.username, PASSWORD)
        for path in (
            f"/campaigns/{campaign.pk}/table/",
            encounter.get_absolute_url(),
            character.get_absolute_url(),
            campaign.get_absolute_url(),
            "/dashboard/",
        ):
            gm_page.goto(path)
            assert page_fits(gm_page), f"{path} is wider than {width}px"
        # The feed shows the roll with the whole name, however it is wrapped.
        gm_page.goto(f"/campaigns/{campaign.pk}/table/")
        expect(gm_page.locator("#feed .feed-who bdi").first).to_have_text(LONG)
    # Where the name is cut short (the navbar), its title holds the whole of it.
    expect(gm_page.locator(".navbar .name-cut")).to_have_attribute("title", gm.username)
