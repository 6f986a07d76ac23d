"""Actions taken from a sheet page (rest, a trait added or removed) carry the version the page showed.

"Live and private" item 2: a save made from a page that had not seen the latest change is refused, and
nothing changes. The in-place editor answers 409; these plain form posts answer with a message.
"""

import pytest
from django.urls import reverse

from sheets.forms import STALE_MESSAGE

from .test_write_policy import players_adjust_play_state


def _messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]] if response.context else []


@pytest.fixture
def tired_triad(demo_character):
    character = demo_character("triad")
    players_adjust_play_state(character.campaign)  # the table lets players rest (sheets/policy.py)
    sheet = character.triad
    sheet.body = sheet.body_max - 2
    sheet.save(update_fields=["body"])
    return character


def test_a_rest_from_a_page_that_missed_a_change_is_refused(tired_triad, player, client_for):
    seen = tired_triad.version
    tired_triad.claim_version(seen)  # someone else changed the sheet after the page loaded
    url = reverse("triad_rest", args=[tired_triad.pk])
    response = client_for(player).post(url, {"rest-hours": "2", "version": str(seen)}, follow=True)
    assert STALE_MESSAGE in _messages(response)
    tired_triad.triad.refresh_from_db()
    assert tired_triad.triad.body == tired_triad.triad.body_max - 2


def test_a_rest_from_a_current_page_goes_through(tired_triad, player, client_for):
    url = reverse("triad_rest", args=[tired_triad.pk])
    response = client_for(player).post(
        url, {"rest-hours": "2", "version": str(tired_triad.version)}, follow=True
    )
    assert STALE_MESSAGE not in _messages(response)
    tired_triad.triad.refresh_from_db()
    assert tired_triad.triad.body == tired_triad.triad.body_max


@pytest.mark.parametrize("junk", ["²", "٣", "NaN", "9" * 40])
def test_an_unreadable_version_counts_as_stale(tired_triad, player, client_for, junk):
    url = reverse("triad_rest", args=[tired_triad.pk])
    response = client_for(player).post(url, {"rest-hours": "2", "version": junk}, follow=True)
    assert STALE_MESSAGE in _messages(response)


def test_removing_a_trait_from_a_stale_page_is_refused(demo_character, gm, client_for):
    character = demo_character("triad")
    trait = character.triad_traits.first()
    seen = character.version
    character.claim_version(seen)
    url = reverse("triad_trait_remove", args=[character.pk])
    response = client_for(gm).post(url, {"trait": str(trait.pk), "version": str(seen)}, follow=True)
    assert STALE_MESSAGE in _messages(response)
    assert character.triad_traits.filter(pk=trait.pk).exists()


def test_a_freefall_rest_from_a_stale_page_is_refused(demo_character, player, client_for):
    character = demo_character("freefall")
    players_adjust_play_state(character.campaign)
    sheet = character.freefall
    sheet.body_spent = 1
    sheet.save(update_fields=["body_spent"])
    seen = character.version
    character.claim_version(seen)
    url = reverse("freefall_rest", args=[character.pk])
    response = client_for(player).post(url, {"version": str(seen)}, follow=True)
    assert STALE_MESSAGE in _messages(response)
    sheet.refresh_from_db()
    assert sheet.body_spent == 1
