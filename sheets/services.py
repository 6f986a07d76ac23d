"""Everything that changes a character: create, edit in place, roll, import."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.counters import counter_increment
from campaigns.services import entry_for_key, feed_entry_create
from rules.dice import Roller

from .contract import FieldEditForm, RollResult
from .edit import BASE_PATHS, editable_field
from .history import CHARACTER_FIELDS, forget_sheet_rows, load_sheet_rows, recorded
from .models import Character, StaleVersion
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
def character_edit(*, character: Character, path: str, raw: str, version: int, author) -> Character:
    """Save one in-place edit if the editor saw the current version, and record it in the history.

    ``raw`` is the typed text; the path's own form field reads it, and the system gets the typed
    value. Raises StaleVersion when the sheet moved on (another tab, or the GM), KeyError for a path
    the sheet does not have, and ValidationError for a bad value; either way nothing is saved. On
    return ``character`` holds its saved state, ready to render.
    """
    seen = character.version
    character.claim_version(version)
    if seen != version:
        # The sheet moved on after the caller read it (this tab had seen the newer version): read it
        # again under the lock, as the edit must start from what is saved.
        forget_sheet_rows(character)
        character.refresh_from_db(fields=list(CHARACTER_FIELDS))
    field = editable_field(character, path)
    if field.gm_only and not character.campaign.is_gm(author):
        raise ValidationError(f"Only the GM changes {field.label} by hand; play changes it.")
    value = FieldEditForm(field, data={"value": raw}).value()
    if path in BASE_PATHS:
        # A name or the notes leave the system's rows alone: both snapshots come from one load of them
        # under the lock, and the character stays current for the answer.
        load_sheet_rows(character)
        with recorded(character, author=author, reason=f"Edited {field.label}", reread=False):
            setattr(character, path, value)
            character.save(update_fields=[path])
        return character
    with recorded(character, author=author, reason=f"Edited {field.label}"):
        # A system may save through instances of its own, so the snapshots read the database.
        system_for(character.campaign).apply_edit(character, path, value)
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
        outcome: RollResult = system_for(character.campaign).roll(character, key, options, roller)
        record["reason"] = f"Roll: {outcome.label}"
    entry, _ = feed_entry_create(
        campaign=character.campaign,
        author=author,
        character=character,
        label=f"{character.name}: {outcome.label}",
        request=outcome.request,
        result=outcome.result(),
        summary=outcome.summary,
        chance=outcome.chance,
        visibility=visibility,
        idempotency_key=idempotency_key,
        savepoint=False,  # a repeated key is answered above, outside this transaction
    )
    return entry, outcome


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
