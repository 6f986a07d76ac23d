"""Everything that changes campaign state: greppable verbs with keyword-only arguments."""

import secrets

from django.db import IntegrityError, transaction

from rules import notation
from rules.dice import Roller

from . import chain, commands, realtime, systems
from .counters import row_insert
from .limits import RateLimited, rate_limit_check
from .models import (
    WHISPER,
    Campaign,
    FeedEntry,
    Membership,
    Visibility,
    WhisperRecipient,
    by_username,
    new_invite_token,
)
from .rendering import INLINE_ROLL


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
    savepoint: bool = True,
    recipients=(),
) -> tuple[FeedEntry, bool]:
    """Number and save one feed entry, broadcast it once committed; returns (entry, created).

    A whisper (``visibility=WHISPER``) names its ``recipients`` (users seated at the table, checked
    by commands.read, or ticked in the dice box); every other entry names none.

    A repeated idempotency key from the same author returns the entry it made the first time, so a
    double-click or a retried request never rolls twice. Call inside the caller's transaction when the
    roll also changes a sheet, so both land or neither does.

    The unique constraint on the key answers whether it is a repeat: no lookup before the insert, one
    after only when the insert was refused. ``savepoint=False`` saves a round trip for a caller that
    answers a repeat itself: the IntegrityError then spoils the caller's transaction and is raised for
    it to catch outside, where :func:`entry_for_key` finds the first entry.
    """
    if visibility not in Visibility.values and visibility != WHISPER:
        raise CampaignError("Choose who may see this roll.")
    if (visibility == WHISPER) != bool(recipients):
        raise CampaignError("A whisper names who it is for, and only a whisper does.")
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
            savepoint=savepoint,
            recipients=recipients,
        )
    except IntegrityError:
        if not savepoint:
            raise
        # A repeated key (or two requests with one key racing); the savepoint in _feed_entry_save keeps
        # the caller's transaction usable for this lookup.
        existing = idempotency_key and entry_for_key(
            campaign=campaign, author=author, idempotency_key=idempotency_key
        )
        if not existing:
            raise
        return existing, False


def entry_for_key(*, campaign: Campaign, author, idempotency_key: str) -> FeedEntry | None:
    return FeedEntry.objects.filter(campaign=campaign, author=author, idempotency_key=idempotency_key).first()


def _feed_entry_save(*, idempotency_key, savepoint, recipients, **fields) -> tuple[FeedEntry, bool]:
    with transaction.atomic(savepoint=savepoint):
        entry = _checked_entry(**fields, idempotency_key=idempotency_key)
        if fields["visibility"] == WHISPER:
            entry.whisper_to = by_username(recipients)
        chain.link(entry.campaign, entry)  # the seq and the chain's head in one statement as a rule
        row_insert(entry)
        if entry.whisper_to:
            WhisperRecipient.objects.bulk_create(
                WhisperRecipient(entry=entry, user=user) for user in entry.whisper_to
            )
        realtime.entry_created(entry)
    return entry, True


def feed_lines_create(*, campaign: Campaign, author, lines: list[dict]) -> list[FeedEntry]:
    """The several entries of one move (an encounter's lines), numbered, chained and saved together:
    one statement moves the chain's head for all of them and one inserts them. Each line holds
    :func:`feed_entry_create`'s arguments but the campaign and author; a line is public or the GM's,
    never a whisper, and carries no idempotency key (the move's own version stops a repeat). Call
    inside the move's transaction."""
    entries = []
    for line in lines:
        if line.get("visibility", Visibility.PUBLIC) not in Visibility.values:
            raise CampaignError("Choose who may see this roll.")
        entries.append(_checked_entry(campaign=campaign, author=author, **line))
    if entries:
        chain.link(campaign, *entries)
        row_insert(*entries)
        for entry in entries:
            realtime.entry_created(entry)
    return entries


def _checked_entry(
    *,
    campaign,
    author,
    label,
    kind=FeedEntry.Kind.ROLL,
    character=None,
    encounter_id=None,
    request=None,
    result=None,
    summary="",
    chance=None,
    visibility=Visibility.PUBLIC,
    idempotency_key=None,
) -> FeedEntry:
    """An unsaved entry, checked: everything but its place in the chain."""
    entry = FeedEntry(
        campaign=campaign,
        kind=kind,
        author=author,
        character_id=None if character is None else character.pk,
        character_name="" if character is None else character.name[:80],
        encounter_id=encounter_id,
        label=label[:200],
        request=request or {},
        result=result or {},
        summary=summary[:300],
        chance="" if chance is None else str(chance),
        visibility=visibility,
        idempotency_key=idempotency_key or None,
    )
    # What the feed's query annotates (selectors._feed_queryset), from the character in hand, so the
    # broadcast renders the entry without asking.
    entry.character_portrait = getattr(character, "table_portrait", "")
    # Relations come from server code; the unique constraints are the database's to enforce (a race
    # on one idempotency key surfaces as IntegrityError, handled by the caller). The text columns and
    # the result (its shape, its outcome, no NaN) are checked, so a system's bad result never lands.
    # Checked before the number is taken, so the campaign row's lock is held for the insert alone.
    entry.full_clean(exclude=["campaign", "author", "request", "seq"], validate_constraints=False)
    return entry


# ---------------------------------------------------------------------------------------------------
# The table: the dice box, chat lines and the per-user rate limit (campaigns/limits.py)
# ---------------------------------------------------------------------------------------------------

CHAT_MAX_LENGTH = 200  # the feed's label column; a table's chat is for short lines


def _rate_limit_unless_repeat(*, user, action: str, campaign: Campaign, idempotency_key: str | None) -> None:
    """The rate limit, except for a retry of something already saved (it answers with that entry).

    The lookup runs only when the limit is hit, so an ordinary roll costs no query for it.
    """
    try:
        rate_limit_check(user=user, action=action)
    except RateLimited:
        key = idempotency_key
        if not (key and entry_for_key(campaign=campaign, author=user, idempotency_key=key)):
            raise


# ---------------------------------------------------------------------------------------------------
# Whispers: "/w alice, bob ..." in front of a chat line or a dice-box line (read by commands.read)
# ---------------------------------------------------------------------------------------------------


def whisper_visibility(visibility: str, recipients) -> str:
    """What a line with these recipients is: a whisper, or as chosen when it names nobody."""
    if not recipients:
        if visibility == WHISPER:
            raise CampaignError("Choose who to whisper to.")
        return visibility
    if visibility not in (Visibility.PUBLIC, WHISPER):
        raise CampaignError(
            "A whisper is seen by those it names and the GM: choose Whisper in “Who sees it”, or name nobody."
        )
    return WHISPER


def table_roll_create(
    *,
    campaign: Campaign,
    author,
    notation_text: str,
    visibility: str = Visibility.PUBLIC,
    character=None,
    idempotency_key: str | None = None,
    roller=None,
    recipients=(),
) -> tuple[FeedEntry, bool]:
    """Roll a line from the dice box on the server and put it in the feed; returns (entry, created).

    With ``recipients`` (seated users, checked by the caller: the dice box form reads its "/w" with
    commands.read, or its names ticked) the roll is a whisper.

    Raises rules.notation.NotationError (with the position at fault) for notation it cannot read or
    whose exact chance is out of reach, RateLimited when the author rolls too fast; nothing is saved
    in either case.
    A repeated idempotency key is found by the insert (feed_entry_create), not looked up first.
    """
    if visibility not in Visibility.values and visibility != WHISPER:
        raise CampaignError("Choose who may see this roll.")
    visibility = whisper_visibility(visibility, recipients)
    tree = notation.parse(notation_text)
    dice_options = systems.get(campaign.system).dice_box_options(campaign.options)
    chance = notation_chance(tree, notation_text, **dice_options)
    _rate_limit_unless_repeat(user=author, action="roll", campaign=campaign, idempotency_key=idempotency_key)
    rolled = notation.roll(tree, roller or Roller(secrets.SystemRandom()), **dice_options)
    return feed_entry_create(
        campaign=campaign,
        author=author,
        label=notation.to_notation(tree, with_comment=False),
        character=character,
        request={"source": "dice_box", "notation": notation_text},
        result=notation.render_data(rolled),
        summary=notation.render_text(rolled),
        chance=chance,
        visibility=visibility,
        idempotency_key=idempotency_key,
        recipients=recipients,
    )


def chat_line_create(
    *,
    campaign: Campaign,
    author,
    text: str,
    idempotency_key: str | None = None,
    roller=None,
    character=None,
) -> tuple[FeedEntry, bool]:
    """Put a line typed in the chat box in the feed, seen by the whole table; returns (entry, created).

    The line is read by commands.read: ``/w alice,bob`` makes a whisper (only they, the author and
    the GM see it, its rolls too), ``/em`` or ``/me`` an emote, and a roll command (``/r 1d20``,
    ``/gr``...) rolls as the dice box would. ``[[1d20+5]]`` inside the line is rolled on the server
    (see :func:`_chat_with_rolls`). ``character``: who an emote from the dice box is made as.
    """
    text = " ".join(str(text).split())  # one line: newlines and runs of spaces collapse
    if not text:
        raise CampaignError("Write something to say.")
    if len(text) > CHAT_MAX_LENGTH:
        raise CampaignError(f"Keep chat lines to {CHAT_MAX_LENGTH} characters (this one has {len(text)}).")
    try:
        command = commands.read(text, plain=commands.SAY, campaign=campaign, author=author)
    except commands.CommandError as error:
        raise CampaignError(str(error)) from error
    visibility = command.visibility or Visibility.PUBLIC
    if command.action == commands.ROLL:  # "/r 1d20" typed in the chat box: a roll, as in Roll20
        try:
            return table_roll_create(
                campaign=campaign,
                author=author,
                notation_text=command.body,
                visibility=visibility,
                character=character,
                idempotency_key=idempotency_key,
                roller=roller,
                recipients=command.recipients,
            )
        except notation.NotationError as error:
            raise CampaignError(str(error)) from error
    text, recipients = command.body, command.recipients
    request = {"source": "chat", **({"emote": True} if command.action == commands.EMOTE else {})}
    inline = INLINE_ROLL.findall(text)
    if inline:
        return _chat_with_rolls(
            campaign=campaign,
            author=author,
            text=text,
            lines=inline,
            idempotency_key=idempotency_key,
            roller=roller,
            visibility=visibility,
            recipients=recipients,
            request=request,
            character=character,
        )
    _rate_limit_unless_repeat(user=author, action="chat", campaign=campaign, idempotency_key=idempotency_key)
    return feed_entry_create(
        campaign=campaign,
        author=author,
        kind=FeedEntry.Kind.CHAT,
        label=text,
        character=character,
        request=request,
        idempotency_key=idempotency_key,
        visibility=visibility,
        recipients=recipients,
    )


MAX_INLINE_ROLLS = 3


class _AlreadySaved(Exception):  # noqa: N818 (control flow, never shown)
    """A chat line's key was used already: undo this attempt's rolls and answer with the first line."""

    def __init__(self, entry: FeedEntry):
        self.entry = entry


def _chat_with_rolls(
    *, campaign, author, text, lines, idempotency_key, roller, visibility, recipients, request, character
) -> tuple[FeedEntry, bool]:
    """A chat line with inline rolls: each roll its own feed entry, then the line, at once.

    The rolls are seen by whoever sees the line: the table, or a whisper's audience alone.

    Every roll is stored like a dice-box roll (every face, chained, in the history), and the chat
    entry's request lists them in order so the line can show each total where it was written. All in
    one transaction: a bad roll, a refused line or a repeated key saves nothing.
    """
    if len(lines) > MAX_INLINE_ROLLS:
        raise CampaignError(
            f"At most {MAX_INLINE_ROLLS} [[rolls]] in one chat line (this one has {len(lines)})."
        )
    dice_options = systems.get(campaign.system).dice_box_options(campaign.options)
    trees, chances = [], []
    for line in lines:
        try:
            trees.append(notation.parse(line))
            chances.append(notation_chance(trees[-1], line, **dice_options))
        except notation.NotationError as error:
            raise CampaignError(f"In [[{line}]]: {error}") from error
    if idempotency_key:
        # A retry must not roll again; this lookup is paid only by lines that roll.
        existing = entry_for_key(campaign=campaign, author=author, idempotency_key=idempotency_key)
        if existing is not None:
            return existing, False
    rate_limit_check(user=author, action="chat")
    for _ in trees:
        rate_limit_check(user=author, action="roll")
    roller = roller or Roller(secrets.SystemRandom())
    try:
        with transaction.atomic():
            inline = []
            for line, tree, chance in zip(lines, trees, chances, strict=True):
                rolled = notation.roll(tree, roller, **dice_options)
                result = notation.render_data(rolled)
                entry, _ = feed_entry_create(
                    campaign=campaign,
                    author=author,
                    label=notation.to_notation(tree, with_comment=False),
                    character=character,
                    request={"source": "chat", "notation": line},
                    result=result,
                    summary=notation.render_text(rolled),
                    chance=chance,
                    visibility=visibility,
                    recipients=recipients,
                )
                # The roll's seq stays on the server: the page links to the roll by its cursor.
                inline.append(
                    {
                        "seq": entry.seq,
                        "total": result["total"],
                        "outcome": result["outcome"],
                        "summary": entry.summary,
                    }
                )
            entry, created = feed_entry_create(
                campaign=campaign,
                author=author,
                kind=FeedEntry.Kind.CHAT,
                label=text,
                character=character,
                request={**request, "inline": inline},
                idempotency_key=idempotency_key,
                visibility=visibility,
                recipients=recipients,
            )
            if not created:
                raise _AlreadySaved(entry)
    except _AlreadySaved as repeat:
        return repeat.entry, False
    return entry, True


# The chance column holds 80 characters; 100d6 has a 78-digit denominator. The nearest fraction with a
# 30-digit denominator differs by under 1e-60, far past anything a percentage shows.
CHANCE_MAX_LENGTH = 80


def notation_chance(tree, text: str, **dice_options):
    """The exact chance of a dice-box line, shortened to fit the feed entry's column.

    Raises NotationLimitError for a line whose chance is out of reach (notation.rolled_chance).
    """
    chance = notation.rolled_chance(tree, text, **dice_options)
    if chance is not None and len(str(chance)) > CHANCE_MAX_LENGTH:
        chance = chance.limit_denominator(10**30)
    return chance
