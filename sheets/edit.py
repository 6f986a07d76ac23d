"""Which value an in-place edit path names: the character's own name and notes, or a system's field.

Name and notes are declared here as every system declares its own paths (``SheetSystem.edit_paths``,
sheets/edits.py), so a path's field and its save are found by one lookup over both tables.
"""

from __future__ import annotations

from typing import Any

from .contract import EditableField
from .edits import EditPath, find_edit_path
from .models import Character
from .policy import Kind
from .registry import system_for


def _name_field(system, character: Character, path: str) -> EditableField:
    return EditableField(
        path,
        "Name",
        character.name,
        input_type="text",
        max_length=Character._meta.get_field("name").max_length,
        kind=Kind.OWN,
    )


def _notes_field(system, character: Character, path: str) -> EditableField:
    return EditableField(
        path,
        "Notes",
        character.notes,
        input_type="textarea",  # notes run to several lines
        max_length=Character._meta.get_field("notes").max_length,
        required=False,
        kind=Kind.OWN,
    )


def _save_name(system, character: Character, value: str) -> None:
    character.name = value
    character.save(update_fields=["name"])


def _save_notes(system, character: Character, value: str) -> None:
    character.notes = value
    character.save(update_fields=["notes"])


#: The values every system's sheet has.
BASE_EDIT_PATHS = (
    EditPath("name", field=_name_field, save=_save_name),
    EditPath("notes", field=_notes_field, save=_save_notes),
)
BASE_PATHS = tuple(declared.pattern for declared in BASE_EDIT_PATHS)


def base_field(character: Character, path: str) -> EditableField:
    """Name or notes, which every system's sheet has; KeyError for any other path."""
    declared, args = find_edit_path(BASE_EDIT_PATHS, character, path)
    return declared.field(system_for(character.campaign), character, path, **args)


def _declared(character: Character, path: str):
    system = system_for(character.campaign)
    declared, args = find_edit_path((*BASE_EDIT_PATHS, *system.edit_paths), character, path)
    return system, declared, args


def editable_field(character: Character, path: str) -> EditableField:
    """The editable field at ``path``; KeyError when the sheet has none."""
    system, declared, args = _declared(character, path)
    return declared.field(system, character, path, **args)


def save_edit(character: Character, path: str, value: Any) -> None:
    """Save ``value``, already cleaned by the path's field, with the rules that tie it to the rest of the
    sheet; ValidationError with a message when they refuse it, KeyError when the sheet has no such path."""
    system, declared, args = _declared(character, path)
    declared.save(system, character, value, **args)
