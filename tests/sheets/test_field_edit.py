"""In-place edits read the typed text through the path's own form field, on every system's sheet."""

import html
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from sheets.contract import EditableField, FieldEditForm
from sheets.edit import editable_field
from sheets.models import Character, SheetChange

from .conftest import HTMX

# One number on each system's sheet, with the bounds the demo character gives it.
NUMBER_PATHS = {
    "triad": ("body", "Body", 0, 8),
    "fivebyfive": ("hp", "HP", -10, 12),
    "freefall": ("body_perm", "BODY permanent", 0, 10),
    "l5r": ("school_rank", "School rank", 1, 10),
}
JUNK_NUMBERS = ["²", "٣", "NaN", "9" * 5000, "1.5", "1e3", "", "   ", "0x1F", "--2", "4 5"]


def clean(field: EditableField, raw):
    return FieldEditForm(field, data={"value": raw}).value()


def messages_for(field: EditableField, raw) -> list[str]:
    with pytest.raises(ValidationError) as refused:
        clean(field, raw)
    return refused.value.messages


def test_a_number_field_reads_ascii_digits_within_its_bounds():
    hp = EditableField("hp", "HP", 3, min=-10, max=12)
    assert clean(hp, " 7 ") == 7 and clean(hp, "-10") == -10 and clean(hp, "+12") == 12
    assert messages_for(hp, "13") == ["HP must be at most 12."]
    assert messages_for(hp, "-11") == ["HP must be at least -10."]
    for junk in JUNK_NUMBERS:
        assert messages_for(hp, junk) == ["HP must be a whole number written in the digits 0-9."], junk


def test_a_number_without_a_top_still_has_a_safe_one():
    spent = EditableField("body_spent", "Body spent", 0, min=0)
    assert clean(spent, "5") == 5
    message = messages_for(spent, "9" * 20)[0]
    assert message.startswith("Body spent must be at most ") and "None" not in message


def test_a_text_field_folds_white_space_and_knows_whether_blank_is_allowed():
    name = EditableField("name", "Name", "", input_type="text", max_length=20)
    notes = EditableField("notes", "Notes", "", input_type="text", max_length=10, required=False)
    assert clean(name, "  Mina \t\n Harker ") == "Mina Harker"
    assert messages_for(name, " \n ") == ["Name cannot be empty."]
    assert clean(notes, "   ") == ""
    assert messages_for(notes, "x" * 11) == ["Notes can be at most 10 characters."]


def test_a_select_takes_only_its_options_and_gives_them_their_type():
    rank = EditableField(
        "hp_rank", "Maximum HP", 2, input_type="select", choices=(("0", "10"), ("2", "12")), coerce=int
    )
    assert clean(rank, "2") == 2
    for bad in ("5", "", "two"):
        assert messages_for(rank, bad) == ["Choose one of the listed options for Maximum HP."]
    # An option whose value is blank ("none") is a real choice, not a missing one.
    token = EditableField(
        "doubles_token", "Doubles token", "", input_type="select", choices=(("on", "held"), ("", "none"))
    )
    assert clean(token, "") == "" and clean(token, "on") == "on"
    assert messages_for(token, "off") == ["Choose one of the listed options for Doubles token."]


def test_a_percent_sign_in_a_label_reaches_the_message_unchanged():
    value = EditableField("v", "100% Chef value", 0, input_type="select", choices=(("0", "0"),))
    assert messages_for(value, "9") == ["Choose one of the listed options for 100% Chef value."]
    number = EditableField("n", "50%s odds", 0, min=0, max=3)
    assert messages_for(number, "4") == ["50%s odds must be at most 3."]


def test_a_checkbox_is_ticked_only_by_on():
    box = EditableField("flag", "Flag", False, input_type="checkbox")
    assert clean(box, "on") is True and clean(box, "") is False


def edit(client, character, path, value):
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version},
        **HTMX,
    )


def saved_state(character, path):
    fresh = Character.objects.select_related("campaign").get(pk=character.pk)
    return (
        fresh.version,
        SheetChange.objects.filter(character=fresh).count(),
        editable_field(fresh, path).value,
    )


def field_error(response) -> str:
    found = re.search(
        r'<div class="invalid-feedback[^"]*" role="alert">(.*?)</div>', response.content.decode(), re.S
    )
    return html.unescape(found.group(1)) if found else ""


@pytest.mark.parametrize("system", sorted(NUMBER_PATHS))
@pytest.mark.parametrize("junk", JUNK_NUMBERS)
def test_junk_in_a_number_is_refused_on_the_field_and_saves_nothing(
    demo_character, gm, client_for, system, junk
):
    # The GM, who may type each of these (a player's edit of most is the write policy's: test_write_policy).
    character = demo_character(system)
    path, label, _, _ = NUMBER_PATHS[system]
    before = saved_state(character, path)
    response = edit(client_for(gm), character, path, junk)
    assert response.status_code == 422
    assert field_error(response) == f"{label} must be a whole number written in the digits 0-9."
    assert saved_state(character, path) == before


@pytest.mark.parametrize("system", sorted(NUMBER_PATHS))
def test_a_number_past_its_bounds_is_refused_and_one_inside_saves(demo_character, gm, client_for, system):
    character = demo_character(system)
    path, label, low, high = NUMBER_PATHS[system]
    client = client_for(gm)
    before = saved_state(character, path)
    too_high = edit(client, character, path, str(high + 1))
    assert too_high.status_code == 422 and field_error(too_high) == f"{label} must be at most {high}."
    too_low = edit(client, character, path, str(low - 1))
    assert too_low.status_code == 422 and field_error(too_low) == f"{label} must be at least {low}."
    assert saved_state(character, path) == before
    assert edit(client, character, path, str(high)).status_code == 200
    assert saved_state(character, path)[2] == high


def test_notes_may_be_cleared_but_a_name_may_not(demo_character, player, client_for):
    character = demo_character("triad")
    client = client_for(player)
    assert edit(client, character, "notes", "  ").status_code == 200
    character.refresh_from_db()
    assert character.notes == ""
    refused = edit(client, character, "name", "\t \n")
    assert refused.status_code == 422 and field_error(refused) == "Name cannot be empty."
    assert edit(client, character, "name", "  Abraham   Van  Helsing ").status_code == 200
    character.refresh_from_db()
    assert character.name == "Abraham Van Helsing"


def test_a_name_longer_than_the_column_is_refused_and_the_text_kept(demo_character, player, client_for):
    character = demo_character("l5r")
    before = saved_state(character, "name")
    response = edit(client_for(player), character, "name", "x" * 81)
    assert response.status_code == 422 and field_error(response) == "Name can be at most 80 characters."
    assert f'value="{"x" * 81}"' in response.content.decode()
    assert saved_state(character, "name") == before


def test_an_l5r_emphasis_may_be_cleared(demo_character, gm, client_for):
    character = demo_character("l5r")  # emphases cost XP: after creation only the GM types them
    skill = character.l5r_skills.exclude(emphasis="").first()
    assert skill is not None, "the demo samurai has an emphasis to clear"
    assert edit(client_for(gm), character, f"skill:{skill.pk}:emphasis", " ").status_code == 200
    skill.refresh_from_db()
    assert skill.emphasis == ""


def test_a_five_by_five_rank_arrives_as_a_number(demo_character, gm, client_for):
    character = demo_character("fivebyfive")  # HP rank 2: 12 of 12; after creation only the GM types it
    assert edit(client_for(gm), character, "hp_rank", "0").status_code == 200
    sheet = character.fivebyfive
    sheet.refresh_from_db()
    assert (sheet.hp_rank, sheet.hp) == (0, 10)


def test_the_edit_form_shows_the_fields_limits(demo_character, gm, client_for):
    character = demo_character("triad")
    client = client_for(gm)
    number = client.get(
        reverse("sheet_field", args=[character.pk, "body"]), {"edit": "1"}, **HTMX
    ).content.decode()
    assert 'min="0"' in number and 'max="8"' in number and "required" in number
    name = client.get(
        reverse("sheet_field", args=[character.pk, "name"]), {"edit": "1"}, **HTMX
    ).content.decode()
    assert 'maxlength="80"' in name and "required" in name
    notes = client.get(
        reverse("sheet_field", args=[character.pk, "notes"]), {"edit": "1"}, **HTMX
    ).content.decode()
    assert 'maxlength="4000"' in notes and "required" not in notes


def test_an_edit_from_a_tab_that_saw_a_newer_version_starts_from_what_is_saved(demo_character, player):
    # The view read the sheet at version v; another tab's edit made it v+1 before this one took the
    # lock, and this tab had seen v+1 (the page's newest version): the edit re-reads what is saved.
    from sheets import services

    read_early = Character.objects.select_related("campaign", "owner").get(pk=demo_character("triad").pk)
    other_tab = Character.objects.select_related("campaign", "owner").get(pk=read_early.pk)
    services.character_edit(
        character=other_tab, path="notes", raw="Owes the ferryman", version=other_tab.version, author=player
    )
    edited = services.character_edit(
        character=read_early, path="name", raw="Renamed", version=other_tab.version, author=player
    )
    saved = Character.objects.get(pk=read_early.pk)
    assert (saved.name, saved.notes) == ("Renamed", "Owes the ferryman")
    assert (edited.name, edited.notes, edited.version) == ("Renamed", "Owes the ferryman", saved.version)
    change = SheetChange.objects.filter(character=saved).latest("pk")
    assert change.after == {f"character:{saved.pk}:name": "Renamed"}
