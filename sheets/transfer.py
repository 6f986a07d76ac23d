"""A character in a file and back: the export document, and an import that gives back the same character.

A version 2 document (``EXPORT_VERSION``) is::

    {"format": "tabletop-character", "version": 2, "system": "<campaign system>",
     "name": ..., "notes": ...,
     "sheet": {...},   # the build, in the builder form's field names (SheetSystem.export_data)
     "play": {...}}    # every stored value of the system's rows, by relation from the character

``play`` maps each relation from ``sheets.Character`` to the system's rows (``"fivebyfive"``: the sheet
row, ``"descriptors"``: its list of rows) and each row to every concrete field but its id and its
character, so what a session changes (XP, HP, wounds, Void spent, tokens, harm, gear condition, used
traits) travels with the build, and a field a system adds later travels without an edit here. Child
rows are listed in the order they were saved (FREE/FALL's Load Bearing reads gear in that order); a
link from one row to another of the same list (gear attached to gear) is the other row's place in it.

The document holds no identity: no id, campaign, owner or date, so exporting, importing and exporting
again gives the same document. An import is checked three ways, in one transaction:

1. the build goes through the builder (``SheetSystem.import_builder_form``), as a new character would;
2. each play value is read strictly (a whole number where the row stores one, text where text) and
   through the model field's own checks, then the system's rules between values
   (``SheetSystem.play_problems``) and the rows' constraints;
3. the restored rows must give back the file's build (``export_data``), so a play state edited apart
   from its build is refused rather than trusted.

Anything refused raises :class:`ImportRefused` and saves nothing. A restored play state is recorded
in the character's history as "Imported from file", with every value it set, so the GM can see it.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction

from .contract import EXPORT_FORMAT, EXPORT_VERSION
from .forms import builder_data_problems, shown_value
from .history import forget_sheet_rows, load_sheet_rows, recorded, sheet_relations
from .models import Character
from .registry import system_for
from .services import character_create

#: The most rows one list of a play state may hold (a sheet has a handful; the file is under 64 KB).
PLAY_ROWS_MAX = 200
IMPORT_REASON = "Imported from file with its play state"
#: A refusal names this many problems, then counts the rest: one message a player can read.
SHOWN_PROBLEMS = 4


class ImportRefused(Exception):
    """The file cannot become a character here; ``messages`` say why, each naming the value at fault."""

    def __init__(self, lead: str, problems: list[str]):
        self.messages = problems
        shown = "; ".join(problems[:SHOWN_PROBLEMS])
        more = len(problems) - SHOWN_PROBLEMS
        super().__init__(lead + shown + (f"; and {more} more" if more > 0 else "") + ".")


# ----- export ------------------------------------------------------------------------------------------


def play_fields(model: type[models.Model]) -> list[models.Field]:
    """The fields of a system row that a play state carries: every stored one but its id and character."""
    return [f for f in model._meta.concrete_fields if not f.primary_key and f.name != "character"]


def _row_values(row: models.Model, places: dict[int, int]) -> dict[str, Any]:
    values = {}
    for field in play_fields(type(row)):
        if field.is_relation:
            target = getattr(row, field.attname)
            values[field.name] = None if target is None else places.get(target)
        else:
            values[field.name] = field.value_from_object(row)
    return values


def play_state(character: Character) -> dict[str, Any]:
    """Every stored value of the character's system rows (see the module docstring for the shape)."""
    state: dict[str, Any] = {}
    for relation in sheet_relations(character):
        accessor = relation.get_accessor_name()
        if relation.one_to_one:
            row = getattr(character, accessor, None)
            state[accessor] = None if row is None else _row_values(row, {})
        else:
            rows = sorted(getattr(character, accessor).all(), key=lambda row: row.pk)
            places = {row.pk: place for place, row in enumerate(rows)}
            state[accessor] = [_row_values(row, places) for row in rows]
    return state


def export_document(character: Character) -> dict[str, Any]:
    """The whole character as a version 2 document."""
    load_sheet_rows(character)
    system = system_for(character.campaign)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "system": character.campaign.system,
        "name": character.name,
        "notes": character.notes,
        "sheet": system.export_data(character),
        "play": play_state(character),
    }


# ----- import ------------------------------------------------------------------------------------------


def _kind_problem(field: models.Field, value: Any) -> str:
    """Why ``value`` is not of the kind ``field`` stores ("" when it is); no silent 1.5 -> 1 or "3" -> 3."""
    if value is None:
        return "" if field.null else "a value is needed here, not null"
    if isinstance(field, models.BooleanField):
        return "" if isinstance(value, bool) else "write true or false"
    if isinstance(field, models.IntegerField):
        return "" if isinstance(value, int) and not isinstance(value, bool) else "write a whole number"
    if isinstance(field, models.CharField | models.TextField):
        return "" if isinstance(value, str) else "write text"
    return "this import does not read such a value"


def _fill(row: models.Model, raw: Any, where: str, *, list_length: int = 0) -> tuple[list[str], dict]:
    """Set ``row``'s fields from one row of the file; (problems, links to other rows by place)."""
    if not isinstance(raw, dict):
        return [f"{where}: expected an object of values, found {shown_value(raw)}"], {}
    fields = {field.name: field for field in play_fields(type(row))}
    problems = [
        f"{where}: {shown_value(key)} is not a value this sheet stores" for key in raw if key not in fields
    ]
    links = {}
    for name, field in fields.items():
        if name not in raw:
            continue  # a file from before the field existed: the value the build gave it stays
        value, label = raw[name], f"{where}, {field.verbose_name}"
        if field.is_relation:
            if value is None:
                setattr(row, field.attname, None)
            elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value < list_length:
                links[field] = value
            else:
                problems.append(f"{label}: write the place (from 0) of another row in this list, or null")
            continue
        problem = _kind_problem(field, value)
        if problem:
            problems.append(f"{label}: {problem}, not {shown_value(value)}")
            continue
        try:
            setattr(row, field.attname, field.clean(value, row))
        except ValidationError as invalid:
            problems.append(f"{label}: {' '.join(invalid.messages)}")
    return problems, links


def _read_play(character: Character, play: Any) -> tuple[dict[str, Any], dict[str, list], list[str]]:
    """The restored rows by relation (unsaved), the links of each list, and every problem found."""
    if not isinstance(play, dict):
        return {}, {}, [f"Play state: expected an object, found {shown_value(play)}"]
    relations = {relation.get_accessor_name(): relation for relation in sheet_relations(character)}
    problems = [
        f"Play state: {shown_value(name)} is not part of this sheet" for name in play if name not in relations
    ]
    rows: dict[str, Any] = {}
    links: dict[str, list] = {}
    for accessor, relation in relations.items():
        model, label = relation.related_model, relation.related_model._meta.verbose_name.capitalize()
        raw = play.get(accessor)
        if relation.one_to_one:
            row = getattr(character, accessor, None) or model(character=character)
            found, _ = _fill(row, raw, f"Play state, {label}")
            problems += found
            rows[accessor] = row
            continue
        if not isinstance(raw, list) or len(raw) > PLAY_ROWS_MAX:
            problems.append(f"Play state, {label}: expected a list of at most {PLAY_ROWS_MAX} rows")
            continue
        rows[accessor], links[accessor] = [], []
        for place, item in enumerate(raw):
            row = model(character=character)
            found, row_links = _fill(row, item, f"Play state, {label} {place}", list_length=len(raw))
            problems += found
            rows[accessor].append(row)
            links[accessor].append(row_links)
    return rows, links, problems


def _messages(invalid: ValidationError, where: str) -> list[str]:
    if hasattr(invalid, "error_dict"):
        return [
            f"{where}, {name.replace('_', ' ')}: {' '.join(errors)}"
            if name != "__all__"
            else f"{where}: {' '.join(errors)}"
            for name, errors in invalid.message_dict.items()
        ]
    return [f"{where}: {' '.join(invalid.messages)}"]


def _save_rows(character: Character, rows: dict[str, Any], links: dict[str, list]) -> None:
    """Replace the builder's rows with the restored ones, each checked by its model (constraints too)."""
    problems: list[str] = []
    for relation in sheet_relations(character):
        accessor, model = relation.get_accessor_name(), relation.related_model
        label = model._meta.verbose_name.capitalize()
        if relation.one_to_one:
            try:
                rows[accessor].full_clean()
            except ValidationError as invalid:
                problems += _messages(invalid, f"Play state, {label}")
                continue
            rows[accessor].save()
            continue
        # The file's rows take the builder's row ids in order (new ones come after), so the history
        # records only the values play changed, and the rows keep the file's order.
        ids = list(model.objects.filter(character=character).order_by("pk").values_list("pk", flat=True))
        model.objects.filter(character=character).delete()
        saved = rows[accessor]
        link_names = [field.name for field in play_fields(model) if field.is_relation]
        for place, row in enumerate(saved):
            if place < len(ids):
                row.pk = ids[place]
            try:
                row.full_clean(exclude=link_names)
            except ValidationError as invalid:
                problems += _messages(invalid, f"Play state, {label} {place}")
                continue
            row.save(force_insert=True)
        for row, row_links in zip(saved, links[accessor], strict=True):
            for field, place in row_links.items():
                if saved[place] is row:
                    problems.append(f"Play state, {label}: a row cannot be linked to itself")
                    continue
                setattr(row, field.attname, saved[place].pk)
            if row_links and row.pk:
                row.save(update_fields=[field.attname for field in row_links])
        if problems:
            break
    if problems:
        raise ImportRefused("That file's play state is refused: ", problems)


def _restore_play(character: Character, system, play: Any, sheet: dict[str, Any], *, author) -> None:
    load_sheet_rows(character)
    rows, links, problems = _read_play(character, play)
    if not problems:
        problems = system.play_problems(rows, character.campaign)
    if problems:
        raise ImportRefused("That file's play state is refused: ", problems)
    with recorded(character, author=author, reason=IMPORT_REASON):
        try:
            _save_rows(character, rows, links)
        except IntegrityError:
            raise ImportRefused(
                "That file's play state is refused: ", ["its rows break a rule of the sheet's tables"]
            ) from None
        forget_sheet_rows(character)
        load_sheet_rows(character)
        restored = json.loads(json.dumps(system.export_data(character)))  # as the file holds it
    differing = sorted(key for key in set(restored) | set(sheet) if restored.get(key) != sheet.get(key))
    if differing:
        raise ImportRefused(
            "That file's build and its play state disagree: ",
            [f"{', '.join(differing)} differ; export the character again rather than editing the file"],
        )


@transaction.atomic
def character_import(*, campaign, owner, document: dict[str, Any]) -> Character:
    """A new character of ``owner``'s in ``campaign`` from a checked export (forms.CharacterImportForm).

    A version 1 file is the build alone and imports as a fresh build; a version 2 file brings its play
    state too. ImportRefused (nothing saved) when the build breaks the campaign's rules or the play
    state is not one the sheet could hold.
    """
    system = system_for(campaign)
    play = document.get("play") if document["version"] >= 2 else None
    if document["version"] >= 2 and not isinstance(play, dict):
        raise ImportRefused("That file is refused: ", ["it is a version 2 export without its play state"])
    form_data = {
        **system.import_form_data(document["sheet"]),
        "name": document.get("name", ""),
        "notes": document.get("notes", ""),
    }
    form = system.import_builder_form(campaign=campaign, data=form_data, play=play)
    problems = builder_data_problems(form)
    if problems:
        raise ImportRefused("That file holds values of the wrong kind: ", problems)
    if not form.is_valid():
        raise ImportRefused(
            "That character breaks this campaign's rules: ",
            [
                f"{name}: {' '.join(errors)}" if name != "__all__" else " ".join(errors)
                for name, errors in form.errors.items()
            ],
        )
    character = character_create(campaign=campaign, owner=owner, cleaned_data=form.cleaned_data)
    if play is not None:
        _restore_play(character, system, play, document["sheet"], author=owner)
    return character
