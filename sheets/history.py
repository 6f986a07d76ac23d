"""Sheet history: every change recorded with who, when, before and after; any change can be undone.

A change is found by comparing two snapshots of everything a character owns (its own row, its
system's sheet row and child rows), so edits, rolls and applied results are all recorded the same
way, whichever system's code made them.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import models, transaction
from django.db.models import prefetch_related_objects

from campaigns import realtime

from .models import Character, SheetChange
from .registry import is_system_model

# Values of the character's own row that history follows (version and timestamps are bookkeeping).
CHARACTER_FIELDS = ("name", "notes")


def sheet_relations(character: Character) -> list:
    """The relations from a character to its own system's rows (one-to-one sheets and child rows).

    Only the campaign's system: a character has no rows in any other system's tables, and asking
    each of them cost a query per table on every snapshot.
    """
    return [
        relation
        for relation in Character._meta.related_objects
        if relation.related_model._meta.app_label == character.campaign.system
        and is_system_model(relation.related_model)
    ]


def load_sheet_rows(character: Character) -> Character:
    """Fetch the character's system rows into its caches: one query per table, whatever the sheet's size.

    The system's code reads them through the same accessors (``character.<sheet>``,
    ``character.<rows>.all()``), so the sheet page, a roll and its history snapshots share one load.
    """
    prefetch_related_objects([character], *(r.get_accessor_name() for r in sheet_relations(character)))
    return character


def forget_sheet_rows(character: Character) -> None:
    """Drop the cached system rows, so the next read comes from the database."""
    prefetched = getattr(character, "_prefetched_objects_cache", {})
    for relation in sheet_relations(character):
        if relation.one_to_one:
            if relation.is_cached(character):
                relation.delete_cached_value(character)
        else:
            prefetched.pop(relation.get_accessor_name(), None)


def _owned_rows(character: Character, *, reread: bool) -> Iterator[models.Model]:
    """The character's system rows: from the database, or (``reread=False``) as the caches hold them."""
    for relation in sheet_relations(character):
        model, accessor = relation.related_model, relation.get_accessor_name()
        if relation.one_to_one:
            if reread:
                row = model.objects.filter(**{relation.field.name: character}).first()
            else:
                row = getattr(character, accessor, None)
            if row is not None:
                yield row
        elif reread:
            yield from model.objects.filter(**{relation.field.name: character}).order_by("pk")
        else:
            yield from getattr(character, accessor).all()


def _address(row: models.Model, field_name: str) -> str:
    return f"{row._meta.model_name}:{row.pk}:{field_name}"


def snapshot(character: Character, *, reread: bool = True) -> dict[str, Any]:
    """Every value the character owns, by address: read again from the database unless ``reread`` is
    False, when the rows the character's caches hold (see load_sheet_rows) are taken as they are."""
    values = {f"character:{character.pk}:{name}": getattr(character, name) for name in CHARACTER_FIELDS}
    for row in _owned_rows(character, reread=reread):
        for field in row._meta.concrete_fields:
            if field.primary_key or field.name == "character":
                continue
            values[_address(row, field.attname)] = field.value_from_object(row)
    return values


# Stands for "no such value" where a row appeared or vanished; such a change cannot be undone.
MISSING = {"$missing": True}


def diff(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Only what changed, as (before, after)."""
    keys = sorted(set(before) | set(after))
    changed = [key for key in keys if before.get(key, MISSING) != after.get(key, MISSING)]
    return {key: before.get(key, MISSING) for key in changed}, {
        key: after.get(key, MISSING) for key in changed
    }


@contextmanager
def recorded(character: Character, *, author, reason: str, reread: bool = True):
    """Record whatever the block changes on the character's sheet as one SheetChange.

    Yields a dict: set "reason" to describe the change better; "change" holds the record afterwards.
    Use inside the transaction that makes the change, so the record and the change land together.

    ``reread=False`` takes both snapshots from the rows the character's caches hold, for a block that
    changes only those rows and keeps them as saved (a roll: the system's ``roll`` saves the instances
    it was handed, or refreshes them after a guarded update). tests/test_query_budgets.py checks every
    system's every button against the database.
    """
    before = snapshot(character, reread=reread)
    # The block may refine the reason once it knows more (a roll's label); "change" is filled after.
    box: dict[str, Any] = {"change": None, "reason": reason}
    yield box
    changed_before, changed_after = diff(before, snapshot(character, reread=reread))
    if changed_before:
        box["change"] = SheetChange.objects.create(
            character=character,
            author=author,
            reason=box["reason"][:200],
            before=changed_before,
            after=changed_after,
        )
        # The GM's party panel shows this sheet's key numbers; the sheet's own open pages update too.
        realtime.panel_changed(campaign_id=character.campaign_id, panel="party", gm_only=True)
        realtime.sheet_changed(
            campaign_id=character.campaign_id, character_id=character.pk, gm_only=character.is_npc
        )


class UndoRefused(Exception):
    """The change cannot be undone as it stands; the message says why."""


def _model_for(model_name: str) -> type[models.Model]:
    if model_name == "character":
        return Character
    for relation in Character._meta.related_objects:
        if relation.related_model._meta.model_name == model_name:
            return relation.related_model
    raise UndoRefused("This change touched something the sheet no longer has.")


@transaction.atomic
def change_undo(*, change: SheetChange, author) -> SheetChange:
    """Put back the values a change replaced, if nothing has changed them again since."""
    if SheetChange.objects.filter(undoes=change).exists():
        raise UndoRefused("That change was already undone.")
    character = Character.objects.select_for_update().get(pk=change.character_id)
    current = snapshot(character)
    if MISSING in change.before.values() or MISSING in change.after.values():
        raise UndoRefused("This change added or removed a row; it cannot be undone value by value.")
    moved = [key for key, value in change.after.items() if current.get(key, MISSING) != value]
    if moved:
        raise UndoRefused("Those values changed again since; undo the later change first.")
    with recorded(character, author=author, reason=f"Undo: {change.reason}") as box:
        for key, value in change.before.items():
            model_name, pk, attname = key.split(":")
            _model_for(model_name).objects.filter(pk=int(pk)).update(**{attname: value})
        character.refresh_from_db()
        Character.objects.filter(pk=character.pk).update(version=models.F("version") + 1)
    undo = box["change"]
    if undo is None:
        raise UndoRefused("Nothing to undo: the values are already as they were.")
    undo.undoes = change
    undo.save(update_fields=["undoes"])
    return undo


def history_for(character: Character):
    return character.changes.select_related("author", "undone_by")


HISTORY_FORMAT = "tabletop-character-history"
HISTORY_VERSION = 1
CSV_COLUMNS = ("change", "at", "author", "reason", "undoes", "value", "before", "after")
# A spreadsheet runs a cell that starts with one of these as a formula; such text gets a leading quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _changes_oldest_first(character: Character) -> list[SheetChange]:
    return list(character.changes.select_related("author").order_by("created_at", "pk"))


def history_document(character: Character) -> dict[str, Any]:
    """The change history as a download: every change, oldest first, with each value before and after.

    A value is named by its address ("<row kind>:<row id>:<field>", as SheetChange stores it); a value
    that did not exist on one side (a row added or removed) is ``{"$missing": true}``.
    """
    return {
        "format": HISTORY_FORMAT,
        "version": HISTORY_VERSION,
        "system": character.campaign.system,
        "character": character.name,
        "changes": [
            {
                "id": change.pk,
                "at": change.created_at.isoformat(),
                "author": change.author.username if change.author else None,
                "reason": change.reason,
                "undoes": change.undoes_id,
                "before": change.before,
                "after": change.after,
            }
            for change in _changes_oldest_first(character)
        ],
    }


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return "'" + text if isinstance(value, str) and text.startswith(FORMULA_STARTS) else text


def history_csv(character: Character) -> str:
    """The same history as CSV: one line per value a change touched, oldest change first."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for change in _changes_oldest_first(character):
        head = [
            change.pk,
            change.created_at.isoformat(),
            _cell(change.author.username if change.author else ""),
            _cell(change.reason),
            change.undoes_id or "",
        ]
        for address, before in change.before.items():
            writer.writerow([*head, address, _cell(before), _cell(change.after.get(address, MISSING))])
    return out.getvalue()
