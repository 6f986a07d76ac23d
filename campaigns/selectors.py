"""Read campaign state for a given user; everything here answers 404 to outsiders.

The permissions of the whole app, each in one place:

* "GM of this campaign": ``Campaign.is_gm``; for a view, :func:`campaign_for_gm`.
* "seated at this table" (the GM or a player): :func:`is_seated`; for a view,
  :func:`campaign_for_member` (the dice box: :func:`table_for_member`, with everyone seated); for the
  socket, :func:`table_seat`.
* "may see this feed entry": :func:`entry_variant` (and its database side, ``_visible_filter``).
"""

import functools
from collections.abc import Collection

from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q, QuerySet, prefetch_related_objects
from django.http import Http404

from . import hooks
from .models import WHISPER, Campaign, FeedEntry, Membership, Visibility, WhisperRecipient
from .prepared import PreparedQuery


def campaigns_visible_to(user) -> QuerySet[Campaign]:
    if not user.is_authenticated:
        return Campaign.objects.none()
    return campaigns_seating(user.pk)


def campaigns_seating(user_id: int) -> QuerySet[Campaign]:
    """The tables a user sits at, as their GM or one of their players: who may see a table's page."""
    return Campaign.objects.filter(Q(gm_id=user_id) | Q(memberships__user_id=user_id)).distinct()


@PreparedQuery
def _campaign_seating(user_id: int, campaign_id: int):
    return campaigns_seating(user_id).select_related("gm").filter(pk=campaign_id)


def campaign_for_member(user, campaign_id: int) -> Campaign:
    """The campaign if the user is its GM or a player; otherwise 404, so existence never leaks."""
    found = _campaign_seating(user.pk, campaign_id) if user.is_authenticated else []
    if not found:
        raise Http404("No such campaign.")
    return found[0]


def campaign_for_gm(user, campaign_id: int) -> Campaign:
    """The campaign if the user is its GM; 404 to outsiders (nothing leaks), 403 to its players."""
    campaign = campaign_for_member(user, campaign_id)
    if not campaign.is_gm(user):
        raise PermissionDenied("Only the GM can do that.")
    return campaign


def dashboard_for(user) -> dict[str, QuerySet[Campaign]]:
    return {
        "as_gm": Campaign.objects.filter(gm=user),
        "as_player": Campaign.objects.filter(memberships__user=user).select_related("gm"),
    }


def members_of(campaign: Campaign):
    return campaign.memberships.select_related("user")


def table_users(campaign: Campaign) -> list:
    """Everyone seated at the table, the GM first, then the players as they joined (whom a whisper
    may name)."""
    return [campaign.gm, *(membership.user for membership in members_of(campaign))]


@PreparedQuery
def _seats_at(campaign_id: int):
    return Membership.objects.filter(campaign_id=campaign_id).select_related("user", "campaign__gm")


@PreparedQuery
def _campaign_with_gm(campaign_id: int):
    return Campaign.objects.select_related("gm").filter(pk=campaign_id)


def table_for_member(user, campaign_id: int) -> tuple[Campaign, list]:
    """(the campaign, table_users of it) if the user is its GM or a player; otherwise 404.

    One query for a table with players: their seats with each user, the campaign and its GM joined
    (the campaign's row comes once per seat, and a table is a handful of seats). A GM alone at the
    table costs a second one. The dice box needs both: the seat check and who a whisper may name.
    """
    if not user.is_authenticated:
        raise Http404("No such campaign.")
    seats = _seats_at(campaign_id)
    if seats:
        campaign = seats[0].campaign
    else:
        campaign = _campaign_with_gm.first(campaign_id)
    if campaign is None or not (campaign.gm_id == user.pk or any(seat.user_id == user.pk for seat in seats)):
        raise Http404("No such campaign.")
    return campaign, [campaign.gm, *(seat.user for seat in seats)]


def is_seated(user, campaign: Campaign) -> bool:
    """Whether the user sits at the campaign's table: its GM always, a player while their seat lasts.

    One indexed lookup for a player and none for the GM: the socket asks on every roll and chat line.
    """
    if not user.is_authenticated:
        return False
    return campaign.gm_id == user.pk or Membership.objects.filter(campaign=campaign, user=user).exists()


# ---------------------------------------------------------------------------------------------------
# The table feed
# ---------------------------------------------------------------------------------------------------

FEED_PAGE_SIZE = 30

# What a viewer gets of one entry: the whole entry, only the fact that a blind roll was made, the
# players' words of an entry whose numbers are the GM's (an NPC's HP, defence, damage), or nothing.
FULL = "full"
NOTICE = "notice"
PLAYERS = "players"


def gm_numbers(result) -> bool:
    """Whether an entry's result holds numbers only the GM sees: then it carries, under ``PLAYERS``, the
    words everyone else reads instead (``{"summary": str, "changes": [str, ...]}``, sheets.combat)."""
    return isinstance(result, dict) and isinstance(result.get(PLAYERS), dict)


def entry_variant(
    *,
    visibility: str,
    author_id: int,
    viewer_id: int,
    gm_id: int,
    recipient_ids: Collection[int] = (),
    numbers_gm_only: bool = False,
) -> str | None:
    """Which variant of an entry a viewer may see: FULL, NOTICE, PLAYERS or None (nothing at all).

    The one place the visibility rules live; the feed pages, the catch-up and the live consumer all
    ask it. Readings taken:

    * public: everyone at the table.
    * gm ("GM only"): the roller and the GM.
    * blind: the GM sees the result; the roller sees only that a blind roll was made; nobody else
      learns anything, not even that a roll happened. A GM rolling blind is the GM, so sees it.
    * self ("Only me"): the roller alone, the GM included in "nobody else". A player who wants the GM
      to know picks "GM only"; "Only me" is a promise to the player that the result stays private.
    * whisper: the author, the GM and the members in ``recipient_ids``; nobody else learns anything,
      not even that a whisper was made. The GM sees every whisper, as a GM hears what is said at the
      table; a player who wants no GM to know has "Only me", which reaches nobody but themselves.

    ``numbers_gm_only`` (:func:`gm_numbers` of the entry's result: an encounter line about an NPC while
    the campaign keeps NPC numbers the GM's): whoever would see the whole entry sees the PLAYERS words
    instead, its author included; the GM alone sees the numbers.
    """
    variant = _visibility_variant(visibility, author_id, viewer_id, gm_id, recipient_ids)
    if variant == FULL and numbers_gm_only and viewer_id != gm_id:
        return PLAYERS
    return variant


def _visibility_variant(
    visibility: str, author_id: int, viewer_id: int, gm_id: int, recipient_ids: Collection[int]
) -> str | None:
    if visibility == Visibility.PUBLIC:
        return FULL
    is_author = viewer_id == author_id
    if visibility == Visibility.GM:
        return FULL if is_author or viewer_id == gm_id else None
    if visibility == Visibility.BLIND:
        if viewer_id == gm_id:
            return FULL
        return NOTICE if is_author else None
    if visibility == Visibility.SELF:
        return FULL if is_author else None
    if visibility == WHISPER:
        return FULL if is_author or viewer_id == gm_id or viewer_id in recipient_ids else None
    return None  # an unknown visibility is hidden, never shown by default


def entry_variant_for(user, entry: FeedEntry, campaign: Campaign) -> str | None:
    """entry_variant for one saved entry of ``campaign`` and one viewer (an HTTP answer showing it)."""
    return entry_variant(
        visibility=entry.visibility,
        author_id=entry.author_id,
        viewer_id=user.pk,
        gm_id=campaign.gm_id,
        recipient_ids=recipient_ids(entry),
        numbers_gm_only=gm_numbers(entry.result),
    )


def recipient_ids(entry: FeedEntry) -> set[int]:
    """The ids of the members a whisper names (empty for any other entry, without a query)."""
    return {user.pk for user in entry.whisper_to}


def _visible_filter(user, campaign: Campaign) -> Q:
    """The database side of entry_variant: every entry the viewer gets something of."""
    return _visible_to(user.pk, as_gm=campaign.is_gm(user))


def _visible_to(user_id: int, *, as_gm: bool) -> Q:
    mine = Q(author_id=user_id)
    if as_gm:
        return Q(visibility__in=[Visibility.PUBLIC, Visibility.GM, Visibility.BLIND, WHISPER]) | (
            Q(visibility=Visibility.SELF) & mine
        )
    # A whisper to this player: one probe of the (entry, user) unique index per whisper row read.
    named = Exists(WhisperRecipient.objects.filter(entry_id=OuterRef("pk"), user_id=user_id))
    return Q(visibility=Visibility.PUBLIC) | mine | (Q(visibility=WHISPER) & named)


def _with_variants(entries, user, campaign: Campaign) -> list[FeedEntry]:
    """Attach ``variant`` to each entry, dropping any the viewer may not see (belt and braces).

    The whispers' recipients, which both the check and the "to alice, bob" need, come in one query
    for the whole page, and only when the page holds a whisper.
    """
    entries = list(entries)
    prefetch_related_objects([entry for entry in entries if entry.visibility == WHISPER], "recipients")
    shown = []
    for entry in entries:
        entry.variant = entry_variant_for(user, entry, campaign)
        if entry.variant is not None:
            shown.append(entry)
    return shown


def _feed_queryset(campaign: Campaign | int) -> QuerySet[FeedEntry]:
    feed = FeedEntry.objects.filter(campaign=campaign).select_related("author")
    return feed.annotate(character_portrait=hooks.feed_portrait())


# The two pages every table and sheet opens with, compiled once per seat (GM or player) and length.
@functools.cache
def _newest(as_gm: bool, limit: int) -> PreparedQuery:
    def build(user_id: int, campaign_id: int):
        entries = _feed_queryset(campaign_id).filter(_visible_to(user_id, as_gm=as_gm))
        return entries.order_by("-seq")[:limit]

    return PreparedQuery(build)


@functools.cache
def _newest_of(column: str, as_gm: bool, limit: int) -> PreparedQuery:
    """The newest entries whose ``column`` (``character_id``, ``encounter_id``) holds the call's id."""

    def build(user_id: int, campaign_id: int, value: int):
        entries = _feed_queryset(campaign_id).filter(_visible_to(user_id, as_gm=as_gm))
        return entries.filter(**{column: value}).order_by("-seq")[:limit]

    return PreparedQuery(build)


def feed_for_viewer(
    user, campaign: Campaign, *, before_seq: int | None = None, limit: int = FEED_PAGE_SIZE
) -> tuple[list[FeedEntry], int | None]:
    """A page of the feed, newest first, as this viewer may see it; and the seq to load older from.

    Returns (entries, older_than): ``older_than`` is the cursor (cursors.py) of the oldest entry
    shown, to load older from, and None when there is nothing older to load.
    """
    if before_seq is None:
        page = _newest(campaign.is_gm(user), limit + 1)(user.pk, campaign.pk)
    else:
        entries = _feed_queryset(campaign).filter(_visible_filter(user, campaign), seq__lt=before_seq)
        page = list(entries.order_by("-seq")[: limit + 1])
    older_than = page[limit - 1].cursor if len(page) > limit else None
    return _with_variants(page[:limit], user, campaign), older_than


def feed_of_encounter(
    user, campaign: Campaign, *, encounter_id: int, limit: int = FEED_PAGE_SIZE
) -> list[FeedEntry]:
    """An encounter's newest lines (the GM's log, a sheet's latest lines), newest first, as this viewer
    may see them. Read on every refresh of a fight: by the entry's own column, whose index finds them
    where the request's key had the read walk the campaign's whole history."""
    return _newest_seen(user, campaign, "encounter_id", encounter_id, limit)


def feed_about_character(user, campaign: Campaign, *, character_id: int, limit: int = 10) -> list[FeedEntry]:
    """The newest entries made as one character (a sheet's recent rolls), newest first, as this viewer
    may see them."""
    return _newest_seen(user, campaign, "character_id", character_id, limit)


def _newest_seen(user, campaign: Campaign, column: str, value: int, limit: int) -> list[FeedEntry]:
    """:func:`_newest_of` for this viewer's seat, each entry given the variant they see."""
    entries = _newest_of(column, campaign.is_gm(user), limit)(user.pk, campaign.pk, value)
    return _with_variants(entries, user, campaign)


def feed_since(user, campaign: Campaign, *, after_seq: int, limit: int) -> tuple[list[FeedEntry], int, bool]:
    """What a reconnecting viewer missed: entries after ``after_seq``, oldest first, filtered for them.

    Returns (entries, newest_seq, complete). ``newest_seq`` is the seq the live stream must pick up
    after (entries the viewer may not see count too, so they are not mistaken for a gap); it is for
    the server only and never sent. ``complete`` is False when more than ``limit`` entries were missed
    and the caller should have the client reload the feed instead.
    """
    # Read the counter first: it moves in the same transaction as each entry, so every seq up to it
    # is committed and readable now; later ones will arrive live.
    newest_seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign.pk)
    rows = list(
        _feed_queryset(campaign)
        .filter(_visible_filter(user, campaign), seq__gt=after_seq, seq__lte=newest_seq)
        .order_by("seq")[: limit + 1]
    )
    if len(rows) > limit:
        rows = rows[:limit]
        return _with_variants(rows, user, campaign), rows[-1].seq, False
    return _with_variants(rows, user, campaign), newest_seq, True


def table_seat(user, campaign_id: int) -> Campaign | None:
    """The campaign if the user may sit at its table (its GM or a player), else None."""
    if not user.is_authenticated:
        return None
    # Two index lookups, not the OR-over-a-join of campaigns_visible_to: this runs on every roll.
    campaign = Campaign.objects.select_related("gm").filter(pk=campaign_id).first()
    if campaign is None or not is_seated(user, campaign):
        return None
    return campaign
