"""Everything that changes a character: create, edit in place, roll, import."""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import capfirst

from campaigns.counters import counter_increment
from campaigns.models import FeedEntry
from campaigns.rendering import PENDING
from campaigns.selectors import FULL, entry_variant
from campaigns.services import entry_for_key, feed_entry_create
from rules.dice import Roller

from . import policy
from .contract import FieldEditForm, RollResult, seen_text
from .edit import BASE_PATHS, editable_field, save_edit
from .history import (
    CHARACTER_FIELDS,
    MISSING,
    _field_label,
    diff,
    forget_sheet_rows,
    load_sheet_rows,
    recorded,
    sheet_relations,
    snapshot,
)
from .models import Character, SheetChange, StaleVersion
from .registry import system_for


@transaction.atomic
def character_create(*, campaign, owner, cleaned_data: dict[str, Any], is_npc: bool = False) -> Character:
    """Save a character from a valid builder form: the base row and the system's rows, or nothing.

    Every builder form has ``name`` (and may have ``notes``); the rest is the system's.
    """
    character = Character(
        campaign=campaign,
        owner=owner,
        name=cleaned_data["name"],
        notes=cleaned_data.get("notes", ""),
        is_npc=is_npc,
    )
    character.full_clean()
    character.save()
    system_for(campaign).create(character=character, cleaned_data=cleaned_data)
    return character


@transaction.atomic
def character_edit(
    *, character: Character, path: str, raw: str, version: int, author, seen: str | None = None
) -> Character:
    """Save one in-place edit if the editor saw the current version, and record it in the history.

    ``raw`` is the typed text; the path's own form field reads it, and the system gets the typed
    value. ``seen`` is the value the editor was opened on (``EditableField.as_seen``): when the sheet
    moved on since ``version`` but this value did not (the GM moved HP while the player wrote Notes),
    the edit merges with the change it missed. Raises StaleVersion when the value itself changed (or,
    with no ``seen``, anything did), KeyError for a path the sheet does not have, and ValidationError
    for a bad value; either way nothing is saved. On return ``character`` holds its saved state,
    ready to render.
    """
    loaded = character.version
    try:
        character.claim_version(version)
    except StaleVersion as stale:
        if seen is None:
            raise
        # Under the row's lock from here: the value is compared with what this editor saw as it is
        # saved now, so no change to it can slip between the check and the write.
        character.claim_version(stale.current_version)
        forget_sheet_rows(character)
        character.refresh_from_db(fields=list(CHARACTER_FIELDS))
        if editable_field(character, path).as_seen != seen_text(seen):
            raise StaleVersion(stale.current_version) from None  # the claim rolls back with the edit
        loaded = version  # read again just now
    if loaded != version:
        # The sheet moved on after the caller read it (this tab had seen the newer version): read it
        # again under the lock, as the edit must start from what is saved.
        forget_sheet_rows(character)
        character.refresh_from_db(fields=list(CHARACTER_FIELDS))
    field = editable_field(character, path)
    verdict = policy.may_change(author, character, field.kind, field.label)
    if not verdict:
        raise ValidationError(verdict.reason)
    value = FieldEditForm(field, data={"value": raw}).value()
    if verdict.announce:
        was, now = field.display, replace(field, value=value).display
        policy.announce(character=character, author=author, what=f"{field.label} {was} -> {now}")
    if path in BASE_PATHS:
        # A name or the notes leave the system's rows alone: both snapshots come from one load of them
        # under the lock, and the character stays current for the answer.
        load_sheet_rows(character)
        with recorded(character, author=author, reason=f"Edited {field.label}", reread=False):
            save_edit(character, path, value)
        return character
    with recorded(character, author=author, reason=f"Edited {field.label}"):
        # A system may save through instances of its own, so the snapshots read the database.
        save_edit(character, path, value)
    forget_sheet_rows(character)  # read again by whatever shows the sheet next
    return character


def character_roll(
    *,
    character: Character,
    key: str,
    options: dict[str, Any],
    roller: Roller,
    author,
    visibility: str,
    idempotency_key: str | None = None,
):
    """Roll ``key`` on the sheet, save what it changed and the feed entry together.

    A repeated idempotency key returns the first roll's entry and changes nothing. Returns
    (entry, outcome) where outcome is None for a repeat. On return ``character`` holds its current
    version and system rows (a repeat drops them, to be read again), ready to render.
    """
    try:
        return _character_roll(
            character=character,
            key=key,
            options=options,
            roller=roller,
            author=author,
            visibility=visibility,
            idempotency_key=idempotency_key,
        )
    except IntegrityError:
        # The key's unique constraint refused the entry (a double-click, a retry): everything this roll
        # did was rolled back with it, the first roll stands. Looked up only now, so a roll costs no
        # query for the check.
        existing = idempotency_key and entry_for_key(
            campaign=character.campaign, author=author, idempotency_key=idempotency_key
        )
        if not existing:
            raise
        forget_sheet_rows(character)
        character.refresh_from_db(fields=["version", *CHARACTER_FIELDS])
        return existing, None


@transaction.atomic
def _character_roll(*, character, key, options, roller, author, visibility, idempotency_key):
    system = system_for(character.campaign)
    pending = None
    if roll_hidden_from_sheet(character=character, author_id=author.pk, visibility=visibility):
        outcome, pending = _roll_kept_back(character, system, key, options, roller)
    else:
        # Rolls may change the sheet (a token, a spent point): lock the row and move its version on, in
        # one statement. Every change to a sheet moves the version, so when it moved by exactly this
        # roll's step the rows the caller loaded are still the saved ones and serve the roll as they are.
        seen = character.version
        character.version = counter_increment(Character, character.pk, "version", updated_at=timezone.now())
        if character.version != seen + 1:
            forget_sheet_rows(character)
            character.refresh_from_db(fields=list(CHARACTER_FIELDS))
        load_sheet_rows(character)
        with recorded(character, author=author, reason="Roll", reread=False) as record:
            outcome = system.roll(character, key, options, roller)
            record["reason"] = f"Roll: {outcome.label}"
    result = outcome.result()
    if pending:
        result[PENDING] = pending
    entry, _ = feed_entry_create(
        campaign=character.campaign,
        author=author,
        character=character,
        label=f"{character.name}: {outcome.label}",
        request=outcome.request,
        result=result,
        summary=outcome.summary,
        chance=outcome.chance,
        visibility=visibility,
        idempotency_key=idempotency_key,
        savepoint=False,  # a repeated key is answered above, outside this transaction
    )
    return entry, outcome


# A seat that is neither the roller, the GM nor the character's owner: any other player at the table,
# now or after they join (no user has the id 0).
ANOTHER_SEAT = 0


def roll_hidden_from_sheet(*, character: Character, author_id: int, visibility: str) -> bool:
    """Whether someone who may see the sheet may not see this roll whole (selectors.entry_variant).

    Such a roll changes nothing on the sheet when it is made (no version, no history row, no refresh),
    so a sheet reads the same whatever its dice showed; what it would change waits on its feed entry
    for someone who sees the entry whole to apply (:func:`roll_apply`). Who may see a sheet is
    sheets.selectors.character_for_viewer's answer: an NPC's, the GM; a player's, every seat at the
    table (the owner, and any other player, now or later).
    """
    gm_id = character.campaign.gm_id
    viewers = [gm_id] if character.is_npc else [gm_id, character.owner_id, ANOTHER_SEAT]
    return any(
        entry_variant(visibility=visibility, author_id=author_id, viewer_id=viewer, gm_id=gm_id) != FULL
        for viewer in viewers
    )


def _roll_kept_back(character, system, key, options, roller) -> tuple[RollResult, dict[str, Any] | None]:
    """Roll, then undo at once whatever the roll saved on the sheet: (the outcome, what it changed).

    The system's ``roll`` saves the rows it was handed (see history.recorded), so both snapshots come
    from them; the savepoint's rollback also drops any broadcast the roll asked for.
    """
    if Character.objects.values_list("version", flat=True).get(pk=character.pk) != character.version:
        # The sheet moved on since the caller read it: the roll must start from what is saved.
        forget_sheet_rows(character)
        character.refresh_from_db(fields=["version", *CHARACTER_FIELDS])
    load_sheet_rows(character)
    before = snapshot(character, reread=False)
    savepoint = transaction.savepoint()
    try:
        outcome: RollResult = system.roll(character, key, options, roller)
        after = snapshot(character, reread=False)
    except BaseException:
        transaction.savepoint_rollback(savepoint)
        forget_sheet_rows(character)  # the instances in memory may hold what was just undone
        raise
    transaction.savepoint_rollback(savepoint)
    changed_before, changed_after = diff(before, after)
    if not changed_before:
        # The rows in memory still hold every value they held before the roll, which is what is saved:
        # they serve the answer as they are.
        return outcome, None
    forget_sheet_rows(character)  # the instances in memory hold what was just undone
    return outcome, {
        "before": changed_before,
        "after": changed_after,
        "lines": [
            f"{capfirst(_field_label(address, before, after))}: "
            f"{_value_text(changed_before[address])} → {_value_text(changed_after[address])}"
            for address in sorted(changed_before)
        ],
    }


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "nothing" if value is None or value == "" or value == MISSING else str(value)


class ApplyRefused(Exception):
    """A hidden roll's pending changes cannot be applied as they stand; the message says why."""


@transaction.atomic
def roll_apply(*, character: Character, entry, author) -> SheetChange:
    """Write a hidden roll's pending changes to the sheet: versioned, recorded, refreshed like any change.

    Only once (a second call is refused and changes nothing), and only while every value still holds
    what the roll saw: a sheet that moved on since (a token spent, Void recovered) is refused, naming
    the values, rather than overwritten. The caller has checked who may apply (the entry seen whole, the
    sheet editable).
    """
    pending = entry.result.get(PENDING)
    if not pending:
        raise ApplyRefused("That roll changed nothing on the sheet.")
    now = timezone.now()
    if not FeedEntry.objects.filter(pk=entry.pk, applied_at__isnull=True).update(applied_at=now):
        raise ApplyRefused("That roll's changes were applied already.")
    before, after = pending["before"], pending["after"]
    if MISSING in before.values() or MISSING in after.values():
        raise ApplyRefused("That roll added or removed something on the sheet; it cannot be applied.")
    with character_change(character=character, author=author, reason="Applied a hidden roll") as record:
        current = snapshot(character)
        moved = sorted(address for address, value in before.items() if current.get(address, MISSING) != value)
        if moved:
            names = ", ".join(
                f"{_field_label(address, current, before)} ({_value_text(before[address])} at the roll, "
                f"{_value_text(current.get(address, MISSING))} now)"
                for address in moved
            )
            raise ApplyRefused(f"The sheet changed since that roll: {names}. Nothing was applied.")
        models = {"character": Character}
        models.update((r.related_model._meta.model_name, r.related_model) for r in sheet_relations(character))
        for address, value in after.items():
            model_name, pk, attname = address.split(":")
            models[model_name].objects.filter(pk=int(pk)).update(**{attname: value})
    entry.applied_at = now
    return record["change"]


@contextmanager
def character_change(*, character: Character, author, reason: str, seen_version: int | None = None):
    """Change a sheet from outside the in-place editor (an encounter's hit, a rest): versioned, recorded.

    Open sheet tabs then hold an old version, so their next edit is refused rather than overwriting.
    ``seen_version`` is the version the acting page showed, for actions taken from a sheet page: if the
    sheet moved on since, StaleVersion is raised and nothing changes.
    """
    with transaction.atomic():
        current = Character.objects.select_for_update().values_list("version", flat=True).get(pk=character.pk)
        if seen_version is not None and seen_version != current:
            raise StaleVersion(current)
        character.claim_version(current)
        with recorded(character, author=author, reason=reason) as record:
            yield record
