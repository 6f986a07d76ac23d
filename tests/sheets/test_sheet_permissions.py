"""Who may see and change a sheet: owner, GM, another player, outsider, anonymous."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from sheets.models import Character
from sheets.systems.triad.models import TriadSheet

from .conftest import HTMX

ROLES = ["anonymous", "outsider", "other_player", "owner", "gm"]


def snapshot():
    return (
        list(Character.objects.order_by("pk").values()),
        list(TriadSheet.objects.order_by("pk").values()),
        FeedEntry.objects.count(),
    )


@pytest.fixture
def character(demo_character):
    return demo_character("triad")


@pytest.fixture
def actor(request, gm, player, other_player, outsider):
    return {"anonymous": None, "outsider": outsider, "other_player": other_player, "owner": player, "gm": gm}[
        request.param
    ]


def requests_for(character):
    roll_data = {"difficulty": 10, "advantages": 0, "disadvantages": 0, "visibility": "public"}
    return {
        "sheet": ("get", reverse("sheet", args=[character.pk]), {}),
        "field display": ("get", reverse("sheet_field", args=[character.pk, "body"]), {}),
        "field editor": ("get", reverse("sheet_field", args=[character.pk, "body"]) + "?edit=1", {}),
        "buttons": ("get", reverse("sheet_buttons", args=[character.pk]), {"difficulty": 12}),
        "export": ("get", reverse("sheet_export", args=[character.pk]), {}),
        # The notes: the owner's to type; what else the owner may type is the write policy's
        # (tests/sheets/test_write_policy.py).
        "edit": (
            "post",
            reverse("sheet_field", args=[character.pk, "notes"]),
            {"value": "Taken", "version": character.version},
        ),
        "roll": ("post", reverse("sheet_roll", args=[character.pk, "ability:body"]), roll_data),
        "builder": ("get", reverse("character_new", args=[character.campaign_id]), {}),
    }


# Expected status per role: readers see, editors change.
EXPECTED = {
    "sheet": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
    "field display": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
    "field editor": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
    "buttons": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
    "export": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
    "edit": {"outsider": 404, "other_player": 403, "owner": 200, "gm": 200},
    "roll": {"outsider": 404, "other_player": 403, "owner": 200, "gm": 200},
    "builder": {"outsider": 404, "other_player": 200, "owner": 200, "gm": 200},
}


@pytest.mark.parametrize("actor", ROLES, indirect=True)
@pytest.mark.parametrize("name", list(EXPECTED))
def test_sheet_permission_matrix(actor, name, character, client_for, request):
    role = request.node.callspec.params["actor"]
    method, url, data = requests_for(character)[name]
    before = snapshot()
    response = getattr(client_for(actor), method)(url, data, **HTMX)
    if role == "anonymous":
        # An htmx request is sent to the login page as a whole page (HX-Redirect), not a swapped form.
        assert response.status_code == 204 and "/accounts/login/" in response["HX-Redirect"]
        assert snapshot() == before
        return
    assert response.status_code == EXPECTED[name][role], (role, name, response.status_code)
    if response.status_code >= 400 or method == "get":
        assert snapshot() == before


def test_readers_get_no_editor_or_roll_controls(character, other_player, client_for):
    body = client_for(other_player).get(reverse("sheet", args=[character.pk])).content.decode()
    assert "read-only" in body
    assert "hx-post" not in body.split('id="roll-buttons"')[1]
    editor = client_for(other_player).get(
        reverse("sheet_field", args=[character.pk, "body"]) + "?edit=1", **HTMX
    )
    assert "<form" not in editor.content.decode()


def test_npcs_are_listed_only_for_the_gm(character, gm, player, client_for):
    character.is_npc = True
    character.owner = gm
    character.save()
    campaign_url = character.campaign.get_absolute_url()
    assert character.name in client_for(gm).get(campaign_url).content.decode()
    assert character.name not in client_for(player).get(campaign_url).content.decode()
    assert client_for(player).get(character.get_absolute_url()).status_code == 404
    assert client_for(gm).get(character.get_absolute_url()).status_code == 200
