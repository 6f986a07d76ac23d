"""Notes are edited in a text area and keep their line breaks; a name stays one tidy line."""

from django.urls import reverse

from .conftest import HTMX
from .test_field_edit import edit


def test_the_notes_editor_is_a_text_area_and_keeps_line_breaks(demo_character, player, client_for):
    character = demo_character("triad")
    client = client_for(player)
    opened = client.get(reverse("sheet_field", args=[character.pk, "notes"]) + "?edit=1", **HTMX)
    page = opened.content.decode()
    assert '<textarea name="value"' in page and 'maxlength="4000"' in page
    assert edit(client, character, "notes", "Garlic\nStakes\r\nA mallet ").status_code == 200
    character.refresh_from_db()
    assert character.notes.splitlines() == ["Garlic", "Stakes", "A mallet"]

    name = client.get(reverse("sheet_field", args=[character.pk, "name"]) + "?edit=1", **HTMX)
    assert '<input type="text" name="value"' in name.content.decode()
    assert edit(client, character, "name", "Abraham\nVan Helsing").status_code == 200
    character.refresh_from_db()
    assert character.name == "Abraham Van Helsing"
