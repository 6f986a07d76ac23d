"""Sheet history: every change recorded with who, when, before and after; any change can be undone.

A change is found by comparing two snapshots of everything a character owns (its own row, its
system's sheet row and child rows), so edits, rolls and applied results are all recorded the same
way, whichever system's code made them.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import prefetch_related_objects
from django.utils.text import capfirst

from campaigns import realtime
from campaigns.prepared import PreparedQuery

from . import policy
from .models import Character, SheetChange
from .registry import is_system_model

# Values of the character's own row that history follows (version and timestamps are bookkeeping).
CHARACTER_FIELDS = ("name", "notes")


@functools.cache
def system_relations(system: str) -> tuple:
    """The relations from a character to the rows of the game system ``system`` (its one-to-one sheet
    and its child rows)."""
    return tuple(
        relation
        for relation in Character._meta.related_objects
        if relation.related_model._meta.app_label == system and is_system_model(relation.related_model)
    )


def sheet_relations(character: Character) -> list:
    """The relations from a character to its own system's rows (one-to-one sheets and child rows).

    Only the campaign's system: a character has no rows in any other system's tables, and asking
    each of them cost a query per table on every snapshot.
    """
    return list(system_relations(character.campaign.system))


def load_sheet_rows(character: Character) -> Character:
    """Fetch the character's system rows into its caches: one query per table, whatever the sheet's size.

    The system's code reads them through the same accessors (``character.<sheet>``,
    ``character.<rows>.all()``), so the sheet page, a roll and its history snapshots share one load.
    Each table's query is compiled once (campaigns/prepared.py) and its rows put where
    ``prefetch_related_objects`` puts them; stock mode (settings.TABLETOP_STOCK) calls that instead.
    """
    relations = sheet_relations(character)
    if settings.TABLETOP_STOCK:
        prefetch_related_objects([character], *(r.get_accessor_name() for r in relations))
        return character
    for relation in relations:
        _load_relation(character, relation)
    return character


def load_sheet_rows_of(character: Character, accessor: str) -> None:
    """Fetch one relation of the character's sheet (``"descriptors"``) into its cache, as
    :func:`load_sheet_rows` fetches each; nothing when it is there already. For a system's code that
    reads one table of a character whose campaign it has not loaded (a combatant's descriptors)."""
    if settings.TABLETOP_STOCK:
        prefetch_related_objects([character], accessor)
        return
    _load_relation(character, _relation_named(accessor))


@functools.cache
def _relation_named(accessor: str):
    return next(r for r in Character._meta.related_objects if r.get_accessor_name() == accessor)


def _load_relation(character: Character, relation) -> None:
    accessor = relation.get_accessor_name()
    prefetched = character.__dict__.setdefault("_prefetched_objects_cache", {})
    if relation.is_cached(character) or accessor in prefetched:
        return  # loaded already, as prefetch_related_objects would leave it
    rows = _rows_of(relation)(character.pk)
    for row in rows:
        relation.field.set_cached_value(row, character)
    if relation.one_to_one:
        relation.set_cached_value(character, rows[0] if rows else None)
    else:
        held = getattr(character, accessor).get_queryset()
        held._result_cache, held._prefetch_done = rows, True
        prefetched[accessor] = held


@functools.cache
def _rows_of(relation) -> PreparedQuery:
    """A character's rows in one of its system's tables, in the table's own order."""
    model, field = relation.related_model, relation.field.name
    return PreparedQuery(lambda character_id: model._default_manager.filter(**{field: character_id}))


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
        if reread:
            yield from _rows_of(relation)(character.pk)  # a one-to-one table holds at most one
        elif relation.one_to_one:
            row = getattr(character, relation.get_accessor_name(), None)
            if row is not None:
                yield row
        else:
            yield from getattr(character, relation.get_accessor_name()).all()


def _address(row: models.Model, field_name: str) -> str:
    return f"{row._meta.model_name}:{row.pk}:{field_name}"


def snapshot(character: Character, *, reread: bool = True, own_row: bool = True) -> dict[str, Any]:
    """Every value the character owns, by address: read again from the database unless ``reread`` is
    False, when the rows the character's caches hold (see load_sheet_rows) are taken as they are.
    ``own_row=False`` leaves out the character's own row (its name and notes): its system's values only."""
    values = {}
    if own_row:
        values = {f"character:{character.pk}:{name}": getattr(character, name) for name in CHARACTER_FIELDS}
    for row in _owned_rows(character, reread=reread):
        for field in row._meta.concrete_fields:
            if field.primary_key or field.name == "character":
                continue
            values[_address(row, field.attname)] = field.value_from_object(row)
    return values


# Stands for "no such value" where a row appeared or vanished (an undo takes it off or puts it back).
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


def _row_key(address: str) -> tuple[str, int]:
    model_name, pk, _ = address.split(":")
    return model_name, int(pk)


def _field_at(model_name: str, attname: str) -> models.Field | None:
    """The model field an address names, None when the model no longer has it."""
    return next((f for f in _model_for(model_name)._meta.concrete_fields if f.attname == attname), None)


def _row_name(model_name: str, pk: int | str, sources: tuple[dict[str, Any], ...]) -> str:
    """A row's own name as the first of ``sources`` holding it records it ("" when none does)."""
    key = f"{model_name}:{pk}:name"
    name = next((s[key] for s in sources if key in s), None)
    return name if isinstance(name, str) else ""


def _field_label(address: str, *sources: dict[str, Any]) -> str:
    """A value as a player knows it: "Stealth's rank", "xp" (a row's own name, when it has one)."""
    model_name, pk, attname = address.split(":")
    field = _field_at(model_name, attname)
    label = str(field.verbose_name) if field is not None else attname
    if model_name == "character":
        return label
    row_name = _row_name(model_name, pk, sources)
    return f"{row_name}'s {label}" if row_name else label


def _row_label(row: tuple[str, int], *sources: dict[str, Any]) -> str:
    """A row as a player knows it: its name ("Stealth"), or what it is when it has none."""
    model_name, pk = row
    return _row_name(model_name, pk, sources) or f"a {_model_for(model_name)._meta.verbose_name}"


def _listed(items: list[str], most: int = 3) -> str:
    shown = items[:most] + ([f"{len(items) - most} more"] if len(items) > most else [])
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _moved_message(change: SheetChange, moved: list[str], current: dict[str, Any]) -> str:
    """What changed since ``change``, named: a value set again, a row added by it and gone since."""
    gone, items = set(), []
    for address in sorted(moved):  # in address order: PostgreSQL's JSON keeps no key order
        row = _row_key(address)
        if current.get(address, MISSING) == MISSING:
            if row not in gone:
                gone.add(row)
                items.append(f"{_row_label(row, change.after, change.before)} is no longer on the sheet")
            continue
        then, now = change.after[address], current[address]
        items.append(
            f"{_field_label(address, current, change.after, change.before)} changed again since"
            f" ({_shown(then)} then, {_shown(now)} now)"
        )
    return f"{_listed(items)}; undo the later change first."


def _shown(value: Any) -> str:
    return "nothing" if value is None or value == "" or value == MISSING else str(value)


def _character_field(model: type[models.Model]) -> str:
    """The attname of a system row's link to its character (snapshots leave it out of the values)."""
    relation = next(r for r in Character._meta.related_objects if r.related_model is model)
    return relation.field.attname


def _restore_rows(character: Character, rows: dict[tuple[str, int], dict[str, Any]], change) -> None:
    """Put back rows the change removed, with their ids and every value they had."""
    for (model_name, pk), values in rows.items():
        model = _model_for(model_name)
        label = _row_label((model_name, pk), change.before)
        if model.objects.filter(pk=pk).exists():
            raise UndoRefused(f"{label}, which this change removed, is back on the sheet already.")
        try:
            with transaction.atomic():
                model(pk=pk, **{_character_field(model): character.pk}, **values).save(force_insert=True)
        except IntegrityError:
            raise UndoRefused(
                f"{label}, which this change removed, cannot come back as it was: something on the "
                "sheet now stands in its way (the same name, most likely); undo the later change first."
            ) from None


def _check_links(change: SheetChange, written: dict[str, Any]) -> None:
    """Every link the undo wrote must lead to a row that exists.

    The database checks links only at commit; checked here (rows put back included), a link to a row
    removed since is refused with its name rather than failing the commit.
    """
    for address, target in written.items():
        model_name, _, attname = address.split(":")
        field = _field_at(model_name, attname)
        if field is None or not field.is_relation or target is None:
            continue
        if not field.related_model.objects.filter(pk=target).exists():
            raise UndoRefused(
                f"{_field_label(address, change.before)} led to something no longer on the sheet; "
                "it cannot be put back as it was."
            )


@transaction.atomic
def change_undo(*, change: SheetChange, author) -> SheetChange:
    """Undo a change, if nothing has changed what it wrote since: put back the values it replaced,
    take off the rows it added and put back the rows it removed (with their ids and values).

    The result is checked to be exactly the sheet as it was before the change, as far as the change
    touched it, and nothing else: an undo that would also change another row (say, gear attached to an
    item it takes off) is refused, and every refusal leaves the sheet as it was.

    An undo types back every value the change touched, so the write policy (sheets/policy.py) answers
    for each as for an edit: a player cannot undo a GM's harm, a roll's Void or an XP purchase.
    """
    if SheetChange.objects.filter(undoes=change).exists():
        raise UndoRefused("That change was already undone.")
    character = Character.objects.select_for_update().get(pk=change.character_id)
    announced = []
    for address in sorted(change.before):  # in address order: PostgreSQL's JSON keeps no key order
        model_name, _, attname = address.split(":")
        label = capfirst(_field_label(address, change.before, change.after))
        kind = policy.value_kind(character, model_name, attname)
        if kind == policy.Kind.PLAY and MISSING in (change.before[address], change.after.get(address)):
            continue  # a row taken off or put back whole: its kit or build values decide; its state follows
        verdict = policy.may_change(author, character, kind, label)
        if not verdict:
            raise UndoRefused(f"You may not undo this change: {verdict.reason}")
        if verdict.announce:
            announced.append(f"{label} {_shown(change.after[address])} -> {_shown(change.before[address])}")
    current = snapshot(character)
    moved = [key for key, value in change.after.items() if current.get(key, MISSING) != value]
    if moved:
        raise UndoRefused(_moved_message(change, moved, current))
    by_row: dict[tuple[str, int], dict[str, tuple[Any, Any]]] = {}
    for key, before in change.before.items():
        by_row.setdefault(_row_key(key), {})[key.rsplit(":", 1)[1]] = (before, change.after.get(key, MISSING))
    added, removed, values = [], {}, []
    for row, fields in by_row.items():
        if all(before == MISSING for before, _ in fields.values()):
            added.append(row)
        elif all(after == MISSING for _, after in fields.values()):
            removed[row] = {attname: before for attname, (before, _) in fields.items()}
        elif any(MISSING in pair for pair in fields.values()):
            raise UndoRefused("This change touched something the sheet no longer has.")
        else:
            values.extend((row, attname, before) for attname, (before, _) in fields.items())
    with recorded(character, author=author, reason=f"Undo: {change.reason}") as box:
        _restore_rows(character, removed, change)
        for (model_name, pk), attname, value in values:
            _model_for(model_name).objects.filter(pk=pk).update(**{attname: value})
        for model_name, pk in added:
            _model_for(model_name).objects.filter(pk=pk).delete()
        _check_links(change, {k: v for k, v in change.before.items() if v != MISSING})
        character.refresh_from_db()
        Character.objects.filter(pk=character.pk).update(version=models.F("version") + 1)
        whole_rows = set(added) | set(removed)
        expected = {k: v for k, v in current.items() if _row_key(k) not in whole_rows}
        expected.update({k: v for k, v in change.before.items() if v != MISSING})
        # Of a row put back, only what the change recorded is compared (a field added since has its default).
        result = {
            key: value
            for key, value in snapshot(character).items()
            if key in change.before or _row_key(key) not in whole_rows
        }
        also = list(diff(expected, result)[0])
        if also:
            # Rolls the whole undo back with the transaction.
            names = [_field_label(key, current, result) for key in also]
            raise UndoRefused(
                f"Undoing this would also change {_listed(names)}; undo the later change first."
            )
    undo = box["change"]
    if undo is None:
        raise UndoRefused("Nothing to undo: the values are already as they were.")
    undo.undoes = change
    undo.save(update_fields=["undoes"])
    if announced:
        policy.announce(character=character, author=author, what=f"{'; '.join(announced)} (undo)")
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
