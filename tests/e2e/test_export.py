"""A played character moves from one campaign to another: export from the sheet, import there (the player's
import a fresh build, the GM's whole)."""

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from sheets.demo import load_demo_characters
from sheets.models import Character
from sheets.registry import system_for
from sheets.services import character_edit
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import shoot

pytestmark = pytest.mark.e2e


@pytest.fixture
def larry(make_campaign, gm, player, other_player):
    """Larry Booker after some play: 12 XP awarded, one rank bought with it, hit down to 4 HP."""
    campaign = make_campaign("fivebyfive", players=[player, other_player], name="The Salt Road")
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(owner=player)
    system = system_for(campaign)
    system.xp_award(character=larry, amount=12, author=gm)
    offer = next(o for o in system.xp_spends(larry) if o.cost and o.key.startswith("raise:"))
    system.xp_spend(character=larry, key=offer.key, expected=offer.seen, author=player)
    larry = Character.objects.get(pk=larry.pk)
    character_edit(character=larry, path="hp", raw="4", version=larry.version, author=gm)
    return Character.objects.get(pk=larry.pk)


def test_a_played_character_moves_to_another_campaign(new_page, larry, make_campaign, gm, player, tmp_path):
    """The player's import is a fresh build that says what it reset; the GM's import of the same file
    brings the character whole (sheets/transfer.py: import is a build, not a backdoor)."""
    second = make_campaign("fivebyfive", name="The Glass Coast")
    Membership.objects.create(campaign=second, user=player)
    xp_left = larry.fivebyfive.xp
    assert xp_left > 0
    page = new_page()
    log_in(page, player.username, PASSWORD)
    page.goto(larry.get_absolute_url())
    expect(page.get_by_text(f"Spend XP ({xp_left} XP to spend)")).to_be_visible()
    with page.expect_download() as download:
        page.get_by_role("link", name="Export").click()
    saved = tmp_path / "larry.json"
    download.value.save_as(saved)

    # The player's own import: the build, checked; XP and damage start fresh, and the page says so.
    page.goto(f"/campaigns/{second.pk}/characters/new/")
    expect(page.locator("#import-help")).to_contain_text("start fresh")
    page.get_by_label("Character file").set_input_files(str(saved))
    shoot(page, "import-page")
    page.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Reset from the file")).to_be_visible()
    fresh = second.characters.get(owner=player)
    page.wait_for_url(f"**{fresh.get_absolute_url()}")
    assert (fresh.fivebyfive.xp, fresh.fivebyfive.hp) == (0, 12)

    # The GM imports the same file whole: the same XP to spend and hit points as at the first table.
    the_gm = new_page()
    log_in(the_gm, gm.username, PASSWORD)
    the_gm.goto(f"/campaigns/{second.pk}/characters/new/")
    expect(the_gm.locator("#import-help")).to_contain_text("brings the character whole")
    the_gm.get_by_label("Character file").set_input_files(str(saved))
    the_gm.get_by_role("button", name="Import").click()
    expect(the_gm.get_by_text("Imported Larry Booker with its play state")).to_be_visible()
    copy = second.characters.exclude(pk=fresh.pk).get()
    the_gm.wait_for_url(f"**{copy.get_absolute_url()}")
    expect(the_gm.locator('[data-path="hp"]')).to_have_text("4")
    assert (copy.fivebyfive.xp, copy.fivebyfive.hp) == (xp_left, 4)

    the_gm.get_by_role("link", name="History").click()
    change = the_gm.locator(".history-list li", has_text="Imported from file with its play state")
    expect(change).to_contain_text(gm.username)
    expect(change.get_by_role("row", name="hp 12 4")).to_be_visible()
    with the_gm.expect_download() as history_download:
        the_gm.get_by_role("link", name="JSON").click()
    assert history_download.value.suggested_filename == "larry-booker-history.json"
    shoot(the_gm, "history-page")
