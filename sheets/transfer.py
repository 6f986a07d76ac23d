"""A character in a file and back: the export document, and an import that gives back the same character.

A version 2 document (``EXPORT_VERSION``) is::

    {"format": "tabletop-character", "version": 2, "system": "<campaign system>",
     "name": ..., "notes": ...,
     "portrait": null,  # or a note that there is one: the image itself is not exported (nor imported)
     "sheet": {...},   # the build, in the builder form's field names (SheetSystem.export_data)
     "play": {...}}    # every stored value of the system's rows, by relation from the character

``play`` maps each relation from ``sheets.Character`` to the system's rows (``"fivebyfive"``: the sheet
row, ``"descriptors"``: its list of rows) and each row to every concrete field but its id and its
character, so what a session changes (XP, HP, wounds, Void spent, tokens, harm, gear condition, used
traits) travels with the build, and a field a system adds later travels without an edit here. Child
rows are listed in the order they were saved (FREE/FALL's Load Bearing reads gear in that order); a
link from one row to another of the same list (gear attached to gear) is the other row's place in it.

The document holds no identity: no id, campaign, owner or date, so exporting, importing whole and
exporting again gives the same document.

Who imports decides what the file brings (:func:`may_import_whole`, the write policy's answer). A
player's file is a build: it goes through the builder with the campaign's creation rules, and its XP,
what XP bought and its play state are not read into the character but compared with the fresh build,
the message naming each value reset. The GM's import is checked three ways, in one transaction:

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
from dataclasses import dataclass
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction

from .contract import EXPORT_FORMAT, EXPORT_VERSION
from .forms import builder_data_problems, shown_value
from .history import forget_sheet_rows, load_sheet_rows, recorded, sheet_relations
from .models import Character
from .policy import Kind, writable_kinds
from .registry import system_for
from .services import character_create

#: The most rows one list of a play state may hold (a sheet has a handful; the file is under 64 KB).
PLAY_ROWS_MAX = 200
IMPORT_REASON = "Imported from file with its play state"
#: A refusal names this many problems, then counts the rest: one message a player can read.
SHOWN_PROBLEMS = 4
#: A player's import names this many values it reset, then counts the rest.
SHOWN_RESETS = 12


class ImportRefused(Exception):
    """The file cannot become a character here; ``messages`` say why, each naming the value at fault."""

    def __init__(self, lead: str, problems: list[str], *, note: str = ""):
        # Each problem may be a sentence of its own: its full stop gives way to the list's separators.
        self.messages = [problem.rstrip(" .") for problem in problems]
        shown = "; ".join(self.messages[:SHOWN_PROBLEMS])
        more = len(self.messages) - SHOWN_PROBLEMS
        text = lead + shown + (f"; and {more} more" if more > 0 else "") + "."
        super().__init__(f"{text} {note}" if note else text)


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


PORTRAIT_NOTE = "This character has a portrait at its table; the image is not in this file."


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
        # The image stays at its table (sheets/portraits.py): the file only says whether there was one.
        "portrait": PORTRAIT_NOTE if character.portrait else None,
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


#: What a file's play state sets beyond a fresh build: its build values (what XP bought), its play state
#: and the GM's own values (XP awarded).
WHOLE_IMPORT_KINDS = frozenset({Kind.BUILD, Kind.PLAY, Kind.GM})


def may_import_whole(user, campaign) -> bool:
    """The import's question to the write policy: may ``user`` set every value a file's play state
    holds on the character it becomes, or does the file bring its build alone?

    Asked of the character-to-be, owned by the importer: the GM may set them all; a player's file is
    not signed and may say anything about XP or damage, so it is built fresh.
    """
    return WHOLE_IMPORT_KINDS <= writable_kinds(user, Character(campaign=campaign, owner=user))


@dataclass(frozen=True)
class Imported:
    """A character an import made, and the one message the page shows about it."""

    character: Character
    message: str


#: Django's own wording of a form error, rewritten as a sentence about the character (the builders'
#: own messages already are one); formatted with the field's label, the file's value and the error's params.
_ERROR_SENTENCES = {
    "required": "the file gives no {label}",
    "invalid": "{label} is {shown}, not a whole number",
    "invalid_choice": "{label} {shown} is not one of the choices",
    "invalid_list": "{label} is {shown}, not a list of choices",
    "min_value": "{label} is {shown}, below {limit_value}",
    "max_value": "{label} is {shown}, above {limit_value}",
    "max_length": "{label} is longer than {limit_value} characters",
}


def _worded_by_django(field: forms.Field, error: ValidationError) -> bool:
    """Whether ``error`` speaks in Django's generic words: the field's class default or a validator's
    (a field without its own message for the code), not words the builder gave it."""
    own = field.error_messages.get(error.code)
    if own is None:
        return True
    defaults: dict[str, str] = {}
    for klass in reversed(type(field).__mro__):  # merged as Field.__init__ merges them
        defaults.update(getattr(klass, "default_error_messages", {}))
    return own == defaults.get(error.code)


def _build_problems(form: forms.Form) -> list[str]:
    """What the builder refused, each a sentence about the character: no field names, no "required"."""
    problems = []
    for name, errors in form.errors.as_data().items():
        field = form.fields.get(name)
        for error in errors:
            text = " ".join(error.messages)
            sentence = _ERROR_SENTENCES.get(error.code)
            if field is not None and sentence and _worded_by_django(field, error):
                params = error.params or {}
                shown = shown_value(params.get("value", form.data.get(name)))
                text = sentence.format_map({**params, "label": form[name].label, "shown": shown})
            problems.append(text)
    return problems


def _label(field: models.Field, *, first: bool) -> str:
    """A stored value as the sheet names it: "XP", "Void spent", "HP rank" (``first``: opening the line)."""
    words = [w.upper() if w in ("hp", "xp", "av", "dv", "db") else w for w in str(field.verbose_name).split()]
    text = " ".join(words)
    return text[:1].upper() + text[1:] if first else text


def _shown_play(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "nothing" if value in (None, "") else shown_value(value)


def _row_resets(fields: list[models.Field], theirs: Any, ours: dict[str, Any], owner: str) -> list[str]:
    if not isinstance(theirs, dict):
        return []
    return [
        f"{owner}{_label(field, first=not owner)} "
        f"{_shown_play(theirs[field.name])} → {_shown_play(ours[field.name])}"
        for field in fields
        if field.name in theirs and theirs[field.name] != ours[field.name]
    ]


def _reset_values(character: Character, play: dict[str, Any]) -> list[str]:
    """Each value of the file's play state a fresh build does not have, as "XP 9999 → 0"."""
    load_sheet_rows(character)
    fresh = json.loads(json.dumps(play_state(character)))  # as a file holds it
    resets = []
    for relation in sheet_relations(character):
        accessor = relation.get_accessor_name()
        # A link between rows is the build's (gear attached to gear): it came from the file's build.
        fields = [f for f in play_fields(relation.related_model) if not f.is_relation]
        theirs, ours = play.get(accessor), fresh[accessor]
        if relation.one_to_one:
            resets += _row_resets(fields, theirs, ours, "")
            continue
        built = {row["name"]: row for row in ours}
        for row in theirs if isinstance(theirs, list) else []:
            name = row.get("name") if isinstance(row, dict) else None
            if isinstance(name, str) and name in built:
                resets += _row_resets(fields, row, built[name], f"{name}'s ")
            else:
                what = shown_value(name) if isinstance(name, str) else "a row"
                resets.append(f"{what} left out (not in the build)")
    return resets


def _fresh_message(name: str, resets: list[str]) -> str:
    lead = (
        f"Imported {name} as a fresh build. A player's import brings the build alone, held to this "
        "campaign's creation rules: XP, what XP bought and the play state start as a new character's "
        "(the GM may import a character whole)."
    )
    if not resets:
        return lead
    shown = "; ".join(resets[:SHOWN_RESETS])
    more = len(resets) - SHOWN_RESETS
    return f"{lead} Reset from the file: {shown}" + (f"; and {more} more" if more > 0 else "") + "."


@transaction.atomic
def character_import(*, campaign, owner, document: dict[str, Any]) -> Imported:
    """A new character of ``owner``'s in ``campaign`` from a checked export (forms.CharacterImportForm).

    A version 1 file is the build alone and imports as a fresh build. A version 2 file brings its play
    state too when the GM imports it (:func:`may_import_whole`); a player's import builds it fresh and
    its message names the values of the file's play state it reset. ImportRefused (nothing saved) when
    the build breaks the campaign's rules or a whole import's play state is not one the sheet could hold.
    """
    system = system_for(campaign)
    whole = may_import_whole(owner, campaign)
    play = document.get("play") if document["version"] >= 2 else None
    if document["version"] >= 2 and not isinstance(play, dict):
        raise ImportRefused("That file is refused: ", ["it is a version 2 export without its play state"])
    name = document.get("name", "")
    form_data = {
        **system.import_form_data(document["sheet"]),
        "name": name,
        "notes": document.get("notes", ""),
    }
    # A system whose XP widens what its builder allows (L5R's awards) sees the play state only here.
    form = system.import_builder_form(campaign=campaign, data=form_data, play=play if whole else None)
    problems = builder_data_problems(form)
    if problems:
        raise ImportRefused("That file holds values of the wrong kind: ", problems)
    called = name.strip() if isinstance(name, str) and 0 < len(name.strip()) <= 80 else "That character"
    if not form.is_valid():
        raise ImportRefused(
            f"{called} breaks this campaign's rules: ",
            _build_problems(form),
            note=""
            if whole or play is None
            else "A player's import is checked as a new character, without XP the file says was awarded; "
            "the GM may import a played character whole.",
        )
    character = character_create(campaign=campaign, owner=owner, cleaned_data=form.cleaned_data)
    if play is None:
        return Imported(
            character, f"Imported {character.name} as a fresh build (the file holds no play state)."
        )
    if not whole:
        return Imported(character, _fresh_message(character.name, _reset_values(character, play)))
    _restore_play(character, system, play, document["sheet"], author=owner)
    return Imported(
        character,
        f"Imported {character.name} with its play state; the history records the import for the GM.",
    )
