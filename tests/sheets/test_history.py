"""Every sheet change is recorded with who, when, before and after, and can be undone."""

import pytest
from django.urls import reverse

from campaigns.systems import PLAYERS_ADJUST_PLAY_STATE
from sheets.models import SheetChange

from .conftest import HTMX


def edit(client, character, path, value):
    character.refresh_from_db()
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version},
        **HTMX,
    )


@pytest.fixture
def character(demo_character):
    character = demo_character("triad")
    # The table lets players type their own Body (sheets/policy.py), which these tests edit and undo.
    campaign = character.campaign
    campaign.options = {**campaign.options, PLAYERS_ADJUST_PLAY_STATE: True}
    campaign.save(update_fields=["options"])
    return character


def test_refused_edits_record_nothing(character, player, client_for):
    edit(client_for(player), character, "body", "99")
    assert not SheetChange.objects.exists()


def test_rolls_that_change_the_sheet_are_recorded(character, player, client_for, fixed_dice):
    fixed_dice(5, 12)
    client_for(player).post(
        reverse("sheet_roll", args=[character.pk, "ability:mind"]),
        {"difficulty": 10, "advantages": 0, "disadvantages": 0, "extra_effort": "on", "visibility": "public"},
        **HTMX,
    )
    change = SheetChange.objects.get()
    assert change.reason.startswith("Roll: Mind")
    assert list(change.before.values()) == [15] and list(change.after.values()) == [14]


def test_undo_refuses_when_the_value_moved_on(character, player, client_for):
    client = client_for(player)
    edit(client, character, "body", "5")
    first = SheetChange.objects.get()
    edit(client, character, "body", "3")
    response = client.post(reverse("sheet_undo", args=[character.pk, first.pk]), follow=True)
    assert "changed again since" in response.content.decode()
    character.triad.refresh_from_db()
    assert character.triad.body == 3


def test_undo_twice_is_refused(character, player, client_for):
    client = client_for(player)
    edit(client, character, "body", "5")
    change = SheetChange.objects.get()
    client.post(reverse("sheet_undo", args=[character.pk, change.pk]))
    response = client.post(reverse("sheet_undo", args=[character.pk, change.pk]), follow=True)
    assert "already undone" in response.content.decode()


@pytest.mark.parametrize(
    ("who", "status"), [("owner", 200), ("gm", 200), ("other_player", 403), ("outsider", 404)]
)
def test_history_is_for_the_owner_and_the_gm(
    character, player, gm, other_player, outsider, client_for, who, status
):
    user = {"owner": player, "gm": gm, "other_player": other_player, "outsider": outsider}[who]
    edit(client_for(player), character, "body", "5")
    assert client_for(user).get(reverse("sheet_history", args=[character.pk])).status_code == status
    change = SheetChange.objects.get()
    if status != 200:
        client_for(user).post(reverse("sheet_undo", args=[character.pk, change.pk]))
        character.triad.refresh_from_db()
        assert character.triad.body == 5 and SheetChange.objects.count() == 1
