"""A sheet roll's answer draws the roll buttons again only when what they were drawn from moved.

The buttons carry what they were drawn from (the sheet's values, the campaign's options, the roll
options) and every roll button sends it back (sheets/_parts.html). A roll that changed none of it is
answered without them: the page's are still right, and so is every other part of the sheet, so the
system's out-of-band parts stay out too. Anything else (a roll that changed the sheet, an edit made
elsewhere, other options, a house rule switched) brings them back, drawn afresh.
"""

import re

import pytest
from django.urls import reverse

from sheets.forms import as_posted
from sheets.registry import system_for
from sheets.systems.fivebyfive.models import FiveByFiveSheet
from sheets.systems.l5r.base import ODD_DIE_OPTION

from .conftest import HTMX

DRAWN = re.compile(r'<input type="hidden" id="roll-buttons-drawn" name="buttons_drawn" value="([0-9a-f]+)">')
BUTTONS_OOB = 'id="roll-buttons" hx-swap-oob'
TOKEN_OOB = 'id="fbf-token" hx-swap-oob'  # Five by Five's doubles token, beside the sheet's descriptors


def drawn_on(body: str) -> str:
    found = DRAWN.search(body)
    assert found, "no roll buttons drawn here"
    return found.group(1)


def chef(character) -> str:
    return f"descriptor:{character.descriptors.get(name='Amateur Chef').pk}"


def roll(client, character, key, drawn, **options):
    data = {"shift": 0, "visibility": "public", "buttons_drawn": drawn, **options}
    response = client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


@pytest.fixture
def sheet(demo_character, player, client_for):
    """A Five by Five sheet open in the player's browser: (client, character, what its buttons show)."""
    character = demo_character("fivebyfive")
    client = client_for(player)
    return client, character, drawn_on(client.get(character.get_absolute_url()).content.decode())


def test_a_roll_that_changes_nothing_leaves_the_buttons_alone(sheet, fixed_dice):
    client, character, drawn = sheet
    fixed_dice(5, 2)  # five-by-five-2.5.txt: no doubles, no token; the sheet holds still
    body = roll(client, character, chef(character), drawn)
    assert "roll-result" in body and BUTTONS_OOB not in body and 'data-roll-key="' not in body
    assert TOKEN_OOB not in body  # the token the page shows is still the saved one
    # The version still moved (the roll claimed the row), yet the buttons' source did not.
    fixed_dice(6, 1)
    assert BUTTONS_OOB not in roll(client, character, chef(character), drawn)


def test_a_roll_that_changes_the_sheet_draws_them_again(sheet, fixed_dice):
    client, character, drawn = sheet
    fixed_dice(3, 3)  # five-by-five-2.5.txt: doubles give the roller a token
    body = roll(client, character, chef(character), drawn)
    assert BUTTONS_OOB in body and FiveByFiveSheet.objects.get(character=character).doubles_token
    assert TOKEN_OOB in body  # and the token gained shows beside the descriptors
    fresh = drawn_on(body)
    assert fresh != drawn
    # The page keeps the new one; the next quiet roll leaves those buttons alone.
    fixed_dice(5, 2)
    assert BUTTONS_OOB not in roll(client, character, chef(character), fresh)


def test_the_options_are_read_once_unless_the_buttons_move(sheet, fixed_dice, monkeypatch):
    """The roll reads the posted options; a quiet answer reuses them, one that redraws the buttons
    reads them again against the sheet the roll left (drawn as a fresh page would draw them)."""
    client, character, drawn = sheet
    system = type(system_for(character.campaign))
    calls = []
    original = system.options_form
    monkeypatch.setattr(system, "options_form", lambda self, **kw: calls.append(1) or original(self, **kw))
    fixed_dice(5, 2)
    roll(client, character, chef(character), drawn)
    assert len(calls) == 1
    calls.clear()
    fixed_dice(3, 3)  # doubles: a token, so the buttons move
    body = roll(client, character, chef(character), drawn)
    assert len(calls) == 2 and BUTTONS_OOB in body
    page = client.get(character.get_absolute_url()).content.decode()
    assert drawn_on(body) == drawn_on(page)


def test_an_edit_made_elsewhere_draws_them_again(sheet, fixed_dice, gm, client_for):
    client, character, drawn = sheet
    url = reverse("sheet_field", args=[character.pk, "hp"])
    saved = client_for(gm).post(url, {"value": "3", "version": character.version}, **HTMX)
    assert saved.status_code == 200
    fixed_dice(5, 2)
    assert BUTTONS_OOB in roll(client, character, chef(character), drawn)


def test_a_name_or_notes_edited_leave_them_alone(sheet, fixed_dice):
    """No button reads the name or the notes (sheets.contract.SheetSystem.buttons): the edit's answer is
    the field and the version, and a roll after it still finds the page's buttons right."""
    client, character, drawn = sheet
    for path, value in (("name", "Renamed"), ("notes", "Owes the chef a favour.")):
        version = FiveByFiveSheet.objects.get(character=character).character.version
        url = reverse("sheet_field", args=[character.pk, path])
        body = client.post(url, {"value": value, "version": version, "buttons_drawn": drawn}, **HTMX)
        assert body.status_code == 200 and value in body.content.decode()
        assert BUTTONS_OOB not in body.content.decode() and TOKEN_OOB not in body.content.decode()
    fixed_dice(5, 2)
    assert BUTTONS_OOB not in roll(client, character, chef(character), drawn)


def test_an_edit_of_what_they_show_draws_them_again(sheet, gm, client_for):
    _, character, drawn = sheet
    url = reverse("sheet_field", args=[character.pk, "hp"])  # the GM's to type (sheets/policy.py)
    data = {"value": "3", "version": character.version, "buttons_drawn": drawn}
    body = client_for(gm).post(url, data, **HTMX)
    assert body.status_code == 200 and BUTTONS_OOB in body.content.decode()


def test_other_options_than_the_buttons_were_drawn_with_draw_them_again(sheet, fixed_dice):
    client, character, drawn = sheet
    fixed_dice(5, 2)
    # The options changed, and their own re-pricing had not come back (or was cut short) before the click.
    body = roll(client, character, chef(character), drawn, shift=1)
    assert BUTTONS_OOB in body and drawn_on(body) != drawn


@pytest.mark.parametrize("drawn", ["", "not-what-the-page-got"])
def test_no_or_an_unknown_source_draws_them(sheet, fixed_dice, drawn):
    client, character, _ = sheet
    fixed_dice(5, 2)
    assert BUTTONS_OOB in roll(client, character, chef(character), drawn)


def test_a_house_rule_switched_draws_them_again(demo_character, player, client_for, fixed_dice):
    character = demo_character("l5r")
    client = client_for(player)
    page = client.get(character.get_absolute_url()).content.decode()
    key = re.search(r'data-roll-key="(skill:\d+)"', page).group(1)
    form = system_for(character.campaign).options_form(character=character)
    options = as_posted({name: field.initial for name, field in form.fields.items()})  # as the page posts
    fixed_dice(5, 5, 5, 5, 5, 5, 5, 5, 5, 5)
    assert BUTTONS_OOB not in roll(client, character, key, drawn_on(page), **options)
    # The GM turns on l5r-roll-and-keep.txt's Ten Dice house rule: every button's pool reads anew.
    campaign = character.campaign
    campaign.options = {**campaign.options, ODD_DIE_OPTION: True}
    campaign.save(update_fields=["options"])
    assert BUTTONS_OOB in roll(client, character, key, drawn_on(page), **options)
