"""Saved rolls: named dice-box lines a user keeps, for one of their characters or for themselves.

Rolling one is a dice-box roll (``campaigns.services.table_roll_create``): the same parser, rate limit,
dice options and feed entry, with the character as the roll's subject, so it lands in the feed and
reaches every browser like any roll. A saved roll is its owner's alone: every function here takes the
user and refuses another's; the views look them up by owner, so nobody else learns that one exists.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.http import Http404

from campaigns import systems
from campaigns.prepared import PreparedQuery
from campaigns.services import notation_chance, table_roll_create
from rules import notation

from .models import SavedRoll


class SavedRollError(Exception):
    """A saved roll that cannot be rolled now; the message says why."""


def saved_rolls_for_table(user, campaign) -> list[SavedRoll]:
    """The user's saved rolls at this table: those for themselves first, then per character (one query)."""
    rolls = _table_rolls(campaign.pk, user.pk)
    return sorted(rolls, key=lambda r: (r.character_id is not None, r.character.name if r.character else "",
                                        r.character_id or 0, r.name.casefold(), r.pk))


def saved_rolls_for_sheet(user, character) -> list[SavedRoll]:
    """The user's own saved rolls for this character (one query); the GM's are the GM's."""
    return _sheet_rolls(character.pk, user.pk)


def saved_roll_at_table(user, campaign, saved_id: int) -> SavedRoll:
    """The user's own saved roll at this table, its character and campaign (with the GM) joined; 404 for
    anyone else's, so nobody learns that one exists."""
    saved = _table_roll.first(saved_id, campaign.pk, user.pk)
    if saved is None:
        raise Http404("No such saved roll.")
    return saved


def saved_roll_of_sheet(user, character, saved_id: int) -> SavedRoll:
    """The user's own saved roll for this character (already checked and loaded: set on it); 404 else."""
    saved = _sheet_roll.first(saved_id, character.pk, user.pk)
    if saved is None:
        raise Http404("No such saved roll.")
    saved.character = character
    return saved


# Each read on every saved roll's click or panel, compiled once (campaigns/prepared.py).
@PreparedQuery
def _table_rolls(campaign_id: int, owner_id: int):
    return SavedRoll.objects.filter(campaign_id=campaign_id, owner_id=owner_id).select_related("character")


@PreparedQuery
def _sheet_rolls(character_id: int, owner_id: int):
    return SavedRoll.objects.filter(owner_id=owner_id, character_id=character_id).order_by("name", "pk")


@PreparedQuery
def _table_roll(saved_id: int, campaign_id: int, owner_id: int):
    return SavedRoll.objects.select_related("character", "campaign", "campaign__gm").filter(
        pk=saved_id, campaign_id=campaign_id, owner_id=owner_id
    )


@PreparedQuery
def _sheet_roll(saved_id: int, character_id: int, owner_id: int):
    return SavedRoll.objects.select_related("campaign", "campaign__gm").filter(
        pk=saved_id, character_id=character_id, owner_id=owner_id
    )


def saved_roll_create(*, campaign, owner, character, name: str, line: str, visibility: str) -> SavedRoll:
    """Save a named line; ValidationError keyed by field (name, line, character, visibility) if refused."""
    saved = SavedRoll(
        campaign=campaign, owner=owner, character=character, name=name, line=line, visibility=visibility
    )
    try:  # the constraint is the database's, clean() says it first
        saved.full_clean(validate_constraints=False)
    except ValidationError as refused:
        problems = refused.message_dict
    else:
        problems = {}
    # A line that reads but that the dice box would refuse to roll: refused now, beside any other problem.
    out_of_reach = None if "line" in problems else _out_of_reach(saved)
    if out_of_reach is not None:
        # The NotationError is the cause, for the view's caret under the line.
        raise ValidationError({**problems, "line": [str(out_of_reach)]}) from out_of_reach
    if problems:
        raise ValidationError(problems)
    with transaction.atomic():
        scope = SavedRoll.objects.filter(owner=owner, campaign=campaign, character=character)
        if scope.count() >= SavedRoll.MAX_PER_SCOPE:
            raise ValidationError(
                {"name": f"Keep to {SavedRoll.MAX_PER_SCOPE} saved rolls here; delete one to save another."}
            )
        saved.save()
    return saved


def _out_of_reach(saved: SavedRoll) -> notation.NotationError | None:
    """The dice box's refusal of a line whose exact chance is out of reach (its own message), if any."""
    campaign = saved.campaign
    dice_options = systems.get(campaign.system).dice_box_options(campaign.options)
    try:
        notation_chance(notation.parse(saved.line), saved.line, **dice_options)
    except notation.NotationError as error:
        return error
    return None


def saved_roll_delete(*, saved_roll: SavedRoll, user) -> None:
    if saved_roll.owner_id != user.pk:
        raise PermissionDenied("Only its owner can delete a saved roll.")
    saved_roll.delete()


def roll_saved(*, saved_roll: SavedRoll, user, idempotency_key: str | None = None, roller=None):
    """Roll the saved line as a dice-box roll; returns (entry, created) as ``table_roll_create`` does.

    Raises SavedRollError when its character is no longer the user's to roll as, and what the dice box
    raises (NotationError, RateLimited, CampaignError) otherwise; nothing is saved then.
    """
    if saved_roll.owner_id != user.pk:
        raise PermissionDenied("Only its owner can roll a saved roll.")
    character = saved_roll.character
    # The dice box's own rule for whom a user rolls as: their own characters; the GM any at the table.
    if character is not None and not character.can_edit(user):
        raise SavedRollError(f"You no longer roll as {character.name}.")
    return table_roll_create(
        campaign=saved_roll.campaign,
        author=user,
        notation_text=saved_roll.line,
        visibility=saved_roll.visibility,
        character=character,
        idempotency_key=idempotency_key,
        roller=roller,
    )
