"""Which value an in-place edit path names: the character's own name and notes, or a system's field."""

from __future__ import annotations

from .contract import EditableField
from .models import Character
from .policy import Kind
from .registry import system_for

BASE_PATHS = ("name", "notes")


def base_field(character: Character, path: str) -> EditableField | None:
    """Name and notes, which every system's sheet has; None for any other path."""
    if path not in BASE_PATHS:
        return None
    return EditableField(
        path,
        path.title(),
        getattr(character, path),
        input_type="textarea" if path == "notes" else "text",  # notes run to several lines
        max_length=Character._meta.get_field(path).max_length,
        required=path == "name",
        kind=Kind.OWN,
    )


def editable_field(character: Character, path: str) -> EditableField:
    """The editable field at ``path``; KeyError when the sheet has none."""
    return base_field(character, path) or system_for(character.campaign).field(character, path)
