"""How a sheet declares the values it edits in place: one :class:`EditPath` per path, found by pattern.

A system lists its paths in ``SheetSystem.edit_paths`` (``sheets/edit.py`` lists the name and notes every
sheet has). Each declaration names the field drawn for the path and how a value typed into it is saved,
side by side, so what a path is and what saving it does are read in one place; :func:`find_edit_path` is
the one lookup that picks the declaration a path names.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from campaigns.forms import row_id

#: ``<name>`` in a pattern: a part of the path handed to the field and the save as the argument ``name``.
PLACEHOLDER = re.compile(r"<(\w+)>")
#: The placeholder of a row: a row id (read as ``IdField`` reads it) among the declaration's ``rows``.
ROW = "id"


@dataclasses.dataclass(frozen=True)
class EditPath:
    """One path of the sheet's in-place edits, e.g. ``EditPath("descriptor:<id>:name", ...)``.

    ``field(system, character, path, **args)`` returns the path's ``EditableField``;
    ``save(system, character, value, **args)`` saves the value that field cleaned, with the rules that tie
    it to the rest of the sheet (ValidationError with a message when they refuse it). ``args`` holds each
    placeholder's part of the path: ``<id>`` arrives as ``row``, the row of ``rows(character)`` with that
    id; any other ``<name>`` as the text, one of ``values[name]``.
    """

    pattern: str
    field: Callable[..., Any]
    save: Callable[..., None]
    #: What each placeholder other than ``<id>`` may be: {name: the texts it matches}.
    values: Mapping[str, Iterable[str]] = dataclasses.field(default_factory=dict)
    #: The rows an ``<id>`` picks from, as the character has them loaded (no query per field).
    rows: Callable[[Any], Iterable[Any]] | None = None
    #: The campaign option (a ``Campaign.options`` switch) without which the sheet has no such path.
    option: str = ""
    regex: re.Pattern = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self):
        names = PLACEHOLDER.findall(self.pattern)
        if (ROW in names) != (self.rows is not None):
            raise ValueError(f"{self.pattern!r}: an <{ROW}> placeholder and rows come together")
        unmatched = (set(names) - {ROW}) ^ set(self.values)
        if unmatched:
            raise ValueError(f"{self.pattern!r}: placeholders and values differ on {sorted(unmatched)}")
        literals_and_names = PLACEHOLDER.split(self.pattern)
        parts = [
            re.escape(part) if index % 2 == 0 else self._group(part)
            for index, part in enumerate(literals_and_names)
        ]
        object.__setattr__(self, "regex", re.compile("".join(parts)))

    def _group(self, name: str) -> str:
        if name == ROW:
            return f"(?P<{ROW}>[^:]*)"  # any one part: row_id decides whether it is an id
        return f"(?P<{name}>{'|'.join(re.escape(value) for value in self.values[name])})"


def option_on(character, option: str) -> bool:
    """Whether the character's campaign has the optional rule ``option`` switched on."""
    return bool((character.campaign.options or {}).get(option))


def find_edit_path(declared: Iterable[EditPath], character, path: str) -> tuple[EditPath, dict[str, Any]]:
    """The declaration ``path`` names on this character's sheet and its arguments; KeyError if none does."""
    for entry in declared:
        matched = entry.regex.fullmatch(path)
        if matched is None or (entry.option and not option_on(character, entry.option)):
            continue
        args = matched.groupdict()
        if entry.rows is None:
            return entry, args
        pk = row_id(args.pop(ROW))
        row = next((row for row in entry.rows(character) if pk is not None and row.pk == pk), None)
        if row is not None:
            return entry, {**args, "row": row}
    raise KeyError(path)
