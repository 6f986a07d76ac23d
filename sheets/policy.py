"""Who may change which value of a character, and if not, why: the one place that decides it.

Every value a sheet stores is of one :class:`Kind`. A system classifies its own rows beside them
(``SheetSystem.value_kinds``: each model's stored fields), and each in-place field it offers takes its
kind from that table (``EditableField.kind``), so a value is classified once. :func:`may_change` then
answers for a user, a character and a kind, with a sentence a player can read when the answer is no:

- the GM changes anything (a build value still within its field's bounds and the system's checks);
- someone else's character is never a player's to change;
- the character's player changes its name and notes (``OWN``) and what it carries, picked from the
  book's lists (``KIT``: a weapon and armor from the list, FREE/FALL's gear and programs through the kit
  page, which checks them as the builder does);
- play state (``PLAY``: HP, wounds, Void spent, current Body/Mind/Spirit, harm, tokens, conditions) is
  the GM's to set by hand, and the player's only when the GM turns on "players adjust their own play
  state" (``campaigns.systems.PLAYERS_ADJUST_PLAY_STATE``); then each such change is a GM-only feed line
  with the old and new value (:func:`announce`);
- a build value (``BUILD``: what the builder sets and XP buys) moves for a player only through the
  builder or XP at the book's cost, never typed;
- ``GM`` values (XP awarded, death) are the GM's alone.

Who asks: the in-place edit (``sheets/services.py`` ``character_edit``, with the field's kind, and the
sheet page, which offers an editor only where the answer is yes: :func:`writable_kinds`); undo and redo
(``sheets/history.py`` ``change_undo``, every value the change touched: an undo is a change typed by
hand); XP (``sheets/xp.py``: :func:`may_award_xp`, :func:`may_spend_xp`); and the systems' own sheet
forms that take a player's word: a rest (the hours or days it lasted) and a repair are play state set
without a roll or a cost, the time passing of Five by Five's dying clock is the GM's, Triad's traits
added or taken off after creation are build values, FREE/FALL's kit is ``KIT``.

Who does not ask: play applying the rules. A roll (and its Void, token or compromised program; a
hidden roll's, when applied later, ``sheets/services.py`` ``roll_apply``), an
encounter's results (the encounter's own turn rules, ``play/encounters.py`` ``may_act_for``, say who
acts), an answer to a GM's roll request, an XP spend at the price the system sets, and FREE/FALL's
"Spend 1 BODY/MIND/GHOST" (a cost the player pays, refused at 0): the author acted, the rules and the
dice decided the values; nothing was typed. The import (``sheets/transfer.py``) is checked by the
builder and the system's play rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns.models import Visibility
from campaigns.services import feed_entry_create
from campaigns.systems import PLAYERS_ADJUST_PLAY_STATE
from rules.dice import Outcome

from .registry import system_for

T = TypeVar("T")


class Kind(StrEnum):
    OWN = "own"
    KIT = "kit"
    PLAY = "play"
    BUILD = "build"
    GM = "gm"


@dataclass(frozen=True)
class Verdict:
    """The answer: allowed when ``reason`` is blank; ``announce`` when the GM's feed must hear of it."""

    reason: str = ""
    announce: bool = False

    def __bool__(self) -> bool:
        return not self.reason


ALLOWED = Verdict()


def _allowed(user, character, kind: Kind) -> Verdict | None:
    """The verdict when ``user`` may make the change; None when not (:func:`may_change` says why)."""
    campaign = character.campaign
    if campaign.is_gm(user):
        return ALLOWED
    if not user.is_authenticated or user.pk != character.owner_id:
        return None
    if kind in (Kind.OWN, Kind.KIT):
        return ALLOWED
    if kind == Kind.PLAY and campaign.option_on(PLAYERS_ADJUST_PLAY_STATE):
        return Verdict(announce=True)
    return None


def may_change(user, character, kind: Kind, label: str) -> Verdict:
    """May ``user`` change the value ``label`` (of kind ``kind``) of ``character`` now, and if not, why."""
    allowed = _allowed(user, character, kind)
    if allowed is not None:
        return allowed
    if not user.is_authenticated or user.pk != character.owner_id:
        return Verdict(f"{character.name} is not your character: only its player and the GM change it.")
    if kind == Kind.PLAY:
        return Verdict(
            f"{label} is play state: rolls, fights and the GM change it. The GM may let players adjust "
            "their own play state in the campaign's options."
        )
    if kind == Kind.BUILD:
        has_xp = system_for(character.campaign).xp(character) is not None
        how = "XP spent at the book's cost (the XP panel) or the GM" if has_xp else "the GM"
        return Verdict(f"{label} is part of the build: after creation only {how} changes it.")
    return Verdict(f"Only the GM changes {label}.")


def require(user, character, kind: Kind, label: str) -> Verdict:
    """:func:`may_change` for a system's own form: ValidationError with the reason when refused."""
    verdict = may_change(user, character, kind, label)
    if not verdict:
        raise ValidationError(verdict.reason)
    return verdict


def by_hand(user, character, kind: Kind, label: str, change: Callable[[], T], said: Callable[[T], str]) -> T:
    """Make ``change``, a system form's change on the user's word (a rest, a repair), if the policy lets
    ``user`` change ``label``: ValidationError with the reason when not. A player's change announced to the
    GM (:func:`announce`) says ``said(result)``, in the change's own transaction."""
    verdict = require(user, character, kind, label)
    with transaction.atomic():
        result = change()
        what = said(result) if verdict.announce else ""
        if what:  # blank: nothing changed, nothing to tell
            announce(character=character, author=user, what=what)
    return result


def writable_kinds(user, character) -> frozenset[Kind]:
    """The kinds ``user`` may change by hand on ``character``'s sheet now: where the page offers an editor."""
    return frozenset(kind for kind in Kind if _allowed(user, character, kind) is not None)


def value_kind(character, model_name: str, attname: str) -> Kind:
    """The kind of one stored value, by its history address's parts; a value nobody classified is the GM's."""
    if model_name == "character":
        return Kind.OWN
    for model, kinds in system_for(character.campaign).value_kinds.items():
        if model._meta.model_name == model_name:
            return kinds.get(attname, Kind.GM)
    return Kind.GM


def may_award_xp(user, character) -> Verdict:
    return ALLOWED if character.campaign.is_gm(user) else Verdict("Only the GM awards XP.")


def may_spend_xp(user, character) -> Verdict:
    # The player's money, spent at the system's price: not even the GM spends it for them.
    if user.is_authenticated and user.pk == character.owner_id:
        return ALLOWED
    return Verdict("Only the character's player spends its XP.")


def announce(*, character, author, what: str) -> None:
    """Tell the GM's feed that a player changed their own play state by hand: ``what`` holds old and new."""
    feed_entry_create(
        campaign=character.campaign,
        author=author,
        character=character,
        label=f"{character.name}: set by hand by {author.username}"[:200],
        summary=what[:300],
        # No dice: a line of the feed as an encounter's writes one (sheets.contract.RollResult's shape).
        result={"dice": [], "outcome": Outcome.NONE.value, "outcome_label": "", "total": None, "changes": []},
        visibility=Visibility.GM,
    )
