"""Everything that changes campaign state: greppable verbs with keyword-only arguments."""

import secrets
import time

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F

from rules import notation
from rules.dice import Roller

from . import realtime, systems
from .models import Campaign, FeedEntry, Membership, Visibility, new_invite_token


class CampaignError(Exception):
    """A refused campaign action; the message is shown to the user."""


def campaign_create(*, gm, name: str, system: str, description: str = "") -> Campaign:
    campaign = Campaign(gm=gm, name=name, system=system, description=description)
    campaign.full_clean()
    campaign.save()
    return campaign


def campaign_update(
    *, campaign: Campaign, name: str, description: str, options: dict | None = None
) -> Campaign:
    campaign.name = name
    campaign.description = description
    if options is not None:
        campaign.options = {**campaign.options, **options}
    campaign.full_clean()
    campaign.save(update_fields=["name", "description", "options"])
    return campaign


def campaign_join(*, user, token: str) -> tuple[Campaign, bool]:
    """Seat the user at the campaign the token opens; returns (campaign, newly_joined)."""
    campaign = Campaign.objects.filter(invite_token=token).first()
    if campaign is None:
        raise CampaignError("This invite link is not valid any more. Ask your GM for a new one.")
    if campaign.is_gm(user):
        return campaign, False
    _, created = Membership.objects.get_or_create(campaign=campaign, user=user)
    return campaign, created


def invite_rotate(*, campaign: Campaign) -> str:
    """Give the campaign a fresh invite token; links carrying the old one stop working."""
    campaign.invite_token = new_invite_token()
    campaign.save(update_fields=["invite_token"])
    return campaign.invite_token


@transaction.atomic
def member_remove(*, campaign: Campaign, user_id: int) -> None:
    deleted, _ = Membership.objects.filter(campaign=campaign, user_id=user_id).delete()
    if not deleted:
        raise CampaignError("That player is not at this table.")
    realtime.member_removed(campaign_id=campaign.pk, user_id=user_id)


def campaign_leave(*, campaign: Campaign, user) -> None:
    member_remove(campaign=campaign, user_id=user.pk)


def feed_entry_create(
    *,
    campaign: Campaign,
    author,
    label: str,
    kind: str = FeedEntry.Kind.ROLL,
    character=None,
    request: dict | None = None,
    result: dict | None = None,
    summary: str = "",
    chance=None,
    visibility: str = Visibility.PUBLIC,
    idempotency_key: str | None = None,
) -> tuple[FeedEntry, bool]:
    """Number and save one feed entry, broadcast it once committed; returns (entry, created).

    A repeated idempotency key from the same author returns the entry it made the first time, so a
    double-click or a retried request never rolls twice. Call inside the caller's transaction when the
    roll also changes a sheet, so both land or neither does.
    """
    if visibility not in Visibility.values:
        raise CampaignError("Choose who may see this roll.")
    if idempotency_key:
        existing = _entry_for_key(campaign=campaign, author=author, idempotency_key=idempotency_key)
        if existing is not None:
            return existing, False
    try:
        return _feed_entry_save(
            campaign=campaign,
            author=author,
            label=label,
            kind=kind,
            character=character,
            request=request,
            result=result,
            summary=summary,
            chance=chance,
            visibility=visibility,
            idempotency_key=idempotency_key,
        )
    except IntegrityError:
        # Two requests with one key raced past the check above; the loser answers with the winner's
        # entry. The savepoint in _feed_entry_save keeps the caller's transaction usable.
        existing = idempotency_key and _entry_for_key(
            campaign=campaign, author=author, idempotency_key=idempotency_key
        )
        if not existing:
            raise
        return existing, False


def _entry_for_key(*, campaign: Campaign, author, idempotency_key: str) -> FeedEntry | None:
    return FeedEntry.objects.filter(campaign=campaign, author=author, idempotency_key=idempotency_key).first()


def _feed_entry_save(
    *, campaign, author, label, kind, character, request, result, summary, chance, visibility, idempotency_key
) -> tuple[FeedEntry, bool]:
    with transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(last_seq=F("last_seq") + 1)
        seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign.pk)
        entry = FeedEntry(
            campaign=campaign,
            seq=seq,
            kind=kind,
            author=author,
            character_id=None if character is None else character.pk,
            character_name="" if character is None else character.name[:80],
            label=label[:200],
            request=request or {},
            result=result or {},
            summary=summary[:300],
            chance="" if chance is None else str(chance),
            visibility=visibility,
            idempotency_key=idempotency_key or None,
        )
        # Relations come from server code; the unique constraints are the database's to enforce (a race
        # on one idempotency key surfaces as IntegrityError, handled by the caller). The text columns and
        # the result (its shape, its outcome, no NaN) are checked, so a system's bad result never lands.
        entry.full_clean(exclude=["campaign", "author", "request"], validate_constraints=False)
        entry.save()
        realtime.entry_created(entry)
    return entry, True


# ---------------------------------------------------------------------------------------------------
# The table: the dice box, chat lines and the per-user rate limit
# ---------------------------------------------------------------------------------------------------

CHAT_MAX_LENGTH = 200  # the feed's label column; a table's chat is for short lines
# (entries allowed, per seconds) for each user; settings.TABLE_RATE_LIMITS overrides per action.
DEFAULT_RATE_LIMITS = {"roll": (10, 10), "chat": (10, 10)}


class RateLimited(CampaignError):
    """Too many rolls or chat lines in a short time; the message says how long to wait.

    ``retry_after`` is the same wait in whole seconds, for a ``Retry-After`` header.
    """

    def __init__(self, message: str, *, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def rate_limit_check(*, user, action: str) -> None:
    """Count one action for the user, or raise RateLimited if they are over their allowance.

    A fixed window in Django's cache: per process with the default local-memory cache, shared when the
    cache is shared. Good enough to stop a stuck key or a script from flooding a table.
    """
    allowed, seconds = getattr(settings, "TABLE_RATE_LIMITS", {}).get(action, DEFAULT_RATE_LIMITS[action])
    window = int(time.time() // seconds)
    key = f"table-rate:{action}:{user.pk}:{window}"
    cache.add(key, 0, timeout=seconds + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=seconds + 1)
        count = 1
    if count > allowed:
        wait = max(1, int((window + 1) * seconds - time.time()) + 1)
        noun = "rolls" if action == "roll" else "messages"
        raise RateLimited(
            f"Slow down: at most {allowed} {noun} every {seconds} seconds. Try again in {wait} s.",
            retry_after=wait,
        )


def table_roll_create(
    *,
    campaign: Campaign,
    author,
    notation_text: str,
    visibility: str = Visibility.PUBLIC,
    character=None,
    idempotency_key: str | None = None,
    roller=None,
) -> tuple[FeedEntry, bool]:
    """Roll a line from the dice box on the server and put it in the feed; returns (entry, created).

    Raises rules.notation.NotationError (with the position at fault) for notation it cannot read,
    RateLimited when the author rolls too fast; nothing is saved in either case.
    """
    if idempotency_key:
        existing = _entry_for_key(campaign=campaign, author=author, idempotency_key=idempotency_key)
        if existing is not None:
            return existing, False
    if visibility not in Visibility.values:
        raise CampaignError("Choose who may see this roll.")
    tree = notation.parse(notation_text)
    rate_limit_check(user=author, action="roll")
    dice_options = systems.get(campaign.system).dice_box_options(campaign.options)
    rolled = notation.roll(tree, roller or Roller(secrets.SystemRandom()), **dice_options)
    return feed_entry_create(
        campaign=campaign,
        author=author,
        label=notation.to_notation(tree),
        character=character,
        request={"source": "dice_box", "notation": notation_text},
        result=notation.render_data(rolled),
        summary=notation.render_text(rolled),
        chance=notation_chance(tree, **dice_options),
        visibility=visibility,
        idempotency_key=idempotency_key,
    )


def chat_line_create(
    *, campaign: Campaign, author, text: str, idempotency_key: str | None = None
) -> tuple[FeedEntry, bool]:
    """Put a short chat line in the feed, seen by the whole table; returns (entry, created)."""
    if idempotency_key:
        existing = _entry_for_key(campaign=campaign, author=author, idempotency_key=idempotency_key)
        if existing is not None:
            return existing, False
    text = " ".join(str(text).split())  # one line: newlines and runs of spaces collapse
    if not text:
        raise CampaignError("Write something to say.")
    if len(text) > CHAT_MAX_LENGTH:
        raise CampaignError(f"Keep chat lines to {CHAT_MAX_LENGTH} characters (this one has {len(text)}).")
    rate_limit_check(user=author, action="chat")
    return feed_entry_create(
        campaign=campaign,
        author=author,
        kind=FeedEntry.Kind.CHAT,
        label=text,
        request={"source": "chat"},
        idempotency_key=idempotency_key,
    )


# The chance column holds 80 characters; 100d6 has a 78-digit denominator. The nearest fraction with a
# 30-digit denominator differs by under 1e-60, far past anything a percentage shows.
CHANCE_MAX_LENGTH = 80


def notation_chance(tree, **dice_options):
    """The exact chance of a dice-box line, shortened to fit the feed entry's column."""
    chance = notation.chance(tree, **dice_options)
    if chance is not None and len(str(chance)) > CHANCE_MAX_LENGTH:
        chance = chance.limit_denominator(10**30)
    return chance
