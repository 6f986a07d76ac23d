"""A conflict refuses only what conflicts: an in-place edit made from a page that missed other changes
merges with them, unless its own value moved since the editor opened (then 409, the current value shown
and the typed text kept)."""

import pytest
from django.urls import reverse

from sheets.edit import editable_field
from sheets.models import Character, SheetChange

from .conftest import HTMX

pytestmark = pytest.mark.django_db


def open_editor(client, character, path):
    """What the player's page holds once the editor is open: the version and the value it was opened on."""
    fresh = Character.objects.select_related("campaign").get(pk=character.pk)
    return {"version": fresh.version, "seen": editable_field(fresh, path).as_seen}


def save(client, character, path, value, opened):
    return client.post(reverse("sheet_field", args=[character.pk, path]), {"value": value, **opened}, **HTMX)


def test_the_gm_moving_hp_and_awarding_xp_does_not_refuse_the_players_notes(
    demo_character, gm, player, client_for
):
    character = demo_character("fivebyfive")
    alice, the_gm = client_for(player), client_for(gm)
    opened = open_editor(alice, character, "notes")  # alice starts typing in Notes
    assert save(the_gm, character, "hp", "4", open_editor(the_gm, character, "hp")).status_code == 200
    the_gm.post(reverse("xp_award", args=[character.pk]), {"amount": "3"})
    response = save(alice, character, "notes", "Owes Bram a favour", opened)
    assert response.status_code == 200, response.content.decode()
    saved = Character.objects.select_related("campaign").get(pk=character.pk)
    assert saved.notes == "Owes Bram a favour"
    assert editable_field(saved, "hp").value == 4  # the GM's change stands
    assert saved.fivebyfive.xp == 3
    # Her edit is its own change in the history, holding only the notes.
    latest = SheetChange.objects.filter(character=saved).latest("pk")
    assert latest.after == {f"character:{saved.pk}:notes": "Owes Bram a favour"}


def test_an_edit_whose_own_value_moved_is_refused_with_the_current_value(
    demo_character, gm, player, client_for
):
    character = demo_character("triad")
    alice, the_gm = client_for(player), client_for(gm)
    opened = open_editor(alice, character, "notes")
    assert (
        save(
            the_gm, character, "notes", "Bitten at the mill", open_editor(the_gm, character, "notes")
        ).status_code
        == 200
    )
    response = save(alice, character, "notes", "Fine and well", opened)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Bitten at the mill" in body and "Fine and well" in body  # the current value, and her text kept
    assert Character.objects.get(pk=character.pk).notes == "Bitten at the mill"


def test_line_breaks_as_a_browser_sends_them_are_the_same_value(demo_character, gm, player, client_for):
    character = demo_character("triad")
    alice = client_for(player)
    assert (
        save(alice, character, "notes", "Garlic\nStakes", open_editor(alice, character, "notes")).status_code
        == 200
    )
    opened = open_editor(alice, character, "notes")
    opened["seen"] = opened["seen"].replace("\n", "\r\n")  # a form sends CRLF
    the_gm = client_for(gm)
    assert save(the_gm, character, "name", "Mina", open_editor(the_gm, character, "name")).status_code == 200
    assert save(alice, character, "notes", "Garlic\nStakes\nMallet", opened).status_code == 200


def test_an_editor_that_says_nothing_of_what_it_saw_is_refused_when_anything_moved(
    demo_character, gm, player, client_for
):
    character = demo_character("triad")
    alice, the_gm = client_for(player), client_for(gm)
    version = open_editor(alice, character, "notes")["version"]
    assert save(the_gm, character, "name", "Mina", open_editor(the_gm, character, "name")).status_code == 200
    assert save(alice, character, "notes", "Fine", {"version": version}).status_code == 409


def test_the_editor_carries_the_value_it_was_opened_on(demo_character, player, client_for):
    character = demo_character("triad")
    character.notes = 'Says "no" & means it'
    character.save()
    body = (
        client_for(player)
        .get(reverse("sheet_field", args=[character.pk, "notes"]) + "?edit=1", **HTMX)
        .content.decode()
    )
    assert 'name="seen" value="Says &quot;no&quot; &amp; means it"' in body
