"""Undoing a change that added or removed a row: the row comes off (or back, with its id and values),
the XP the change spent comes back with it, and the sheet is exactly as it was before; a row changed
since is named in the refusal, and nothing is undone then."""

import html

import pytest
from django.urls import reverse

from sheets.history import snapshot
from sheets.models import Character, SheetChange
from sheets.systems.fivebyfive.sheet import system as fivebyfive
from sheets.systems.l5r.sheet import system as l5r
from sheets.systems.triad.models import TriadTrait

from .conftest import HTMX, page_text
from .test_freefall import build_data, kit_data, kit_url, new_url, saved_gear, saved_programs
from .test_l5r_advancement import kuroda, spend
from .test_triad_play import add_trait


def undo(client, character, change):
    """Undo from the history page, as its button posts; the history page's text after the redirect."""
    return html.unescape(
        page_text(client.post(reverse("sheet_undo", args=[character.pk, change.pk]), follow=True))
    )


def latest(character):
    return SheetChange.objects.filter(character=character).latest("pk")


def as_saved(character):
    """Every row and value the character owns, by row id (the history's own snapshot), and its XP."""
    character = Character.objects.get(pk=character.pk)
    system = {"fivebyfive": fivebyfive, "l5r": l5r}.get(character.campaign.system)
    return snapshot(character), system.xp(character) if system else None


# ----- Five by Five: a new descriptor bought with XP --------------------------------------------------


@pytest.fixture
def larry(demo_character, gm, client_for):
    larry = demo_character("fivebyfive")
    client_for(gm).post(reverse("xp_award", args=[larry.pk]), {"amount": "6"})
    return larry


def buy_descriptor(client, character, name):
    seen = character.descriptors.count()
    return client.post(
        reverse("xp_spend", args=[character.pk]), {"offer": f"add@{seen}", "name": name}, follow=True
    )


def test_undoing_a_new_fivebyfive_descriptor_takes_it_off_and_gives_the_xp_back(
    larry, player, gm, client_for
):
    client = client_for(player)
    before = as_saved(larry)
    assert "Spent 2 XP." in page_text(buy_descriptor(client, larry, "Juggler"))
    assert larry.descriptors.filter(name="Juggler").exists() and as_saved(larry)[1] == 4
    # A purchase is undone by the GM: the player's own undo is refused (test_write_policy.py).
    page = undo(client_for(gm), larry, latest(larry))
    assert "Undone: Spent 2 XP: new descriptor Juggler 2." in page
    assert as_saved(larry) == before
    assert latest(larry).reason == "Undo: Spent 2 XP: new descriptor Juggler 2"


def test_a_new_fivebyfive_descriptor_raised_since_is_not_undone(larry, player, gm, client_for):
    client = client_for(player)
    buy_descriptor(client, larry, "Juggler")
    added = latest(larry)
    juggler = larry.descriptors.get(name="Juggler")
    assert "Spent 4 XP." in page_text(spend(client, larry, f"raise:{juggler.pk}@2"))
    saved = as_saved(larry)
    page = undo(client_for(gm), larry, added)
    assert (
        "Juggler's value changed again since (2 then, 4 now) and xp changed again since (4 then, 0 now); "
        "undo the later change first." in page
    )
    assert as_saved(larry) == saved


# ----- L5R: a new skill bought with XP ----------------------------------------------------------------


@pytest.fixture
def hida(make_campaign, player, client_for):
    """Hida Kuroda with 4 XP left of the starting budget."""
    return kuroda(client_for(player), make_campaign("l5r", players=[player]))


def test_undoing_a_new_l5r_skill_takes_it_off_and_gives_the_xp_back(hida, player, gm, client_for):
    client = client_for(player)
    before = as_saved(hida)
    assert "Spent 1 XP." in page_text(spend(client, hida, "skill:skill_stealth@0"))
    assert hida.l5r_skills.filter(name="Stealth").exists() and as_saved(hida)[1] == 3
    assert "Undone: Spent 1 XP: Stealth raised to 1." in undo(client_for(gm), hida, latest(hida))
    assert as_saved(hida) == before


def test_a_new_l5r_skill_raised_since_is_not_undone(hida, player, gm, client_for):
    client = client_for(player)
    spend(client, hida, "skill:skill_stealth@0")
    added = latest(hida)
    spend(client, hida, "skill:skill_stealth@1")
    saved = as_saved(hida)
    page = undo(client_for(gm), hida, added)
    assert "Stealth's rank changed again since (1 then, 2 now); undo the later change first." in page
    assert as_saved(hida) == saved
    # Undone in order, both go: the sheet is as it was built.
    undo(client_for(gm), hida, latest(hida))
    undo(client_for(gm), hida, added)
    assert not hida.l5r_skills.filter(name="Stealth").exists() and as_saved(hida)[1] == 4


# ----- Triad: a trait added, a trait removed ----------------------------------------------------------


@pytest.fixture
def helsing(demo_character):
    return demo_character("triad")


def test_undoing_an_added_triad_trait_takes_it_off(helsing, gm, client_for):
    client = client_for(gm)  # traits after creation are the GM's (sheets/policy.py)
    before = as_saved(helsing)
    add_trait(client, helsing, listed="Deadly")
    with_deadly = as_saved(helsing)
    assert "Undone: Added trait Deadly." in undo(client, helsing, latest(helsing))
    assert as_saved(helsing) == before
    # The undo is a change like any other: undoing it puts the same row back.
    assert "Undone: Undo: Added trait Deadly." in undo(client, helsing, latest(helsing))
    assert as_saved(helsing) == with_deadly


def test_undoing_a_removed_triad_trait_puts_it_back_as_it_was(helsing, gm, client_for):
    client = client_for(gm)
    occult = helsing.triad_traits.get(name="Occult")
    before = as_saved(helsing)
    client.post(reverse("triad_trait_remove", args=[helsing.pk]), {"trait": occult.pk})
    assert not helsing.triad_traits.filter(pk=occult.pk).exists()
    assert "Undone: Removed Occult." in undo(client, helsing, latest(helsing))
    assert as_saved(helsing) == before  # the same row id, description and flags
    assert TriadTrait.objects.get(pk=occult.pk).character_id == helsing.pk


def test_a_triad_trait_changed_since_is_named_and_nothing_is_undone(helsing, gm, client_for):
    client = client_for(gm)
    add_trait(client, helsing, listed="Deadly")
    added = latest(helsing)
    deadly = helsing.triad_traits.get(name="Deadly")
    client.post(reverse("triad_trait_remove", args=[helsing.pk]), {"trait": deadly.pk})
    saved = as_saved(helsing)
    assert "Deadly is no longer on the sheet; undo the later change first." in undo(client, helsing, added)
    assert as_saved(helsing) == saved
    # A removed trait whose name is back on the sheet (added again since) cannot come back beside it.
    removed = latest(helsing)
    add_trait(client, helsing, listed="Deadly")
    saved = as_saved(helsing)
    page = undo(client, helsing, removed)
    assert "Deadly, which this change removed, cannot come back as it was" in page
    assert as_saved(helsing) == saved and not SheetChange.objects.filter(undoes=removed).exists()


# ----- FREE/FALL: gear added and removed on the kit page ----------------------------------------------


@pytest.fixture
def ff_character(make_campaign, player, client_for):
    """Vesna Kade: Mag-picks, Carbon vest, Rig harness, and a Rail pistol attached to the harness."""
    campaign = make_campaign("freefall", players=[player])
    assert client_for(player).post(new_url(campaign), build_data()).status_code == 302
    return Character.objects.get(campaign=campaign, owner=player)


SPARE_HARNESS = {"name": "Spare harness", "binds": "body", "binding": 1, "load_bearing": 1}


def post_kit(client, character, gear):
    response = client.post(kit_url(character), kit_data(character, gear, saved_programs(character)))
    assert response.status_code == 302
    return latest(character)


def test_undoing_added_and_removed_freefall_gear_brings_the_kit_back(ff_character, player, client_for):
    client = client_for(player)
    before = as_saved(ff_character)
    gear = [row for row in saved_gear(ff_character) if row["name"] != "Mag-picks"]
    change = post_kit(client, ff_character, gear + [{"name": "Monowire", "binds": "body", "binding": 1}])
    assert set(ff_character.ff_gear.values_list("name", flat=True)) == {
        "Carbon vest", "Rig harness", "Rail pistol", "Monowire"
    }
    assert "Undone: Gear and programs changed." in undo(client, ff_character, change)
    assert as_saved(ff_character) == before


def test_freefall_gear_changed_since_is_named_and_nothing_is_undone(ff_character, player, gm, client_for):
    client = client_for(player)
    added = post_kit(client, ff_character, saved_gear(ff_character) + [SPARE_HARNESS])
    spare = ff_character.ff_gear.get(name="Spare harness")
    response = client_for(gm).post(  # the GM's in-place edit of its condition
        reverse("sheet_field", args=[ff_character.pk, f"gear:{spare.pk}:condition"]),
        {"value": "faulty", "version": Character.objects.get(pk=ff_character.pk).version},
        **HTMX,
    )
    assert response.status_code == 200
    saved = as_saved(ff_character)
    page = undo(client, ff_character, added)
    assert "Spare harness's condition changed again since (ok then, faulty now)" in page
    assert as_saved(ff_character) == saved


def test_taking_off_gear_that_something_is_attached_to_since_is_refused(ff_character, player, client_for):
    client = client_for(player)
    added = post_kit(client, ff_character, saved_gear(ff_character) + [SPARE_HARNESS])
    gear = saved_gear(ff_character)
    next(row for row in gear if row["name"] == "Rail pistol")["attached_to"] = "Spare harness"
    post_kit(client, ff_character, gear)
    saved = as_saved(ff_character)
    page = undo(client, ff_character, added)
    assert "Undoing this would also change Rail pistol's attached to; undo the later change first." in page
    assert as_saved(ff_character) == saved
