"""The one owner of table group names and of everything broadcast to a table.

Events are high level and carry no client data. ``feed.entry`` carries the entry already rendered once
per variant (see selectors.entry_variant), each as the finished websocket frame, so every connection
at the table only picks the frame its viewer may see and sends it: no database hit and no template
work per viewer. The variants travel inside the channel layer (server side) and are filtered in the
consumer, so a hidden result never leaves the server towards a browser that may not see it.

A whisper goes further: its frames go only to the user groups of those who may read it (author, GM,
recipients), and the table's group hears ``feed.hidden``, its seq and that audience with no content,
so every other socket counts the seq as dealt with instead of taking it for a lost event.
"""

import json
import logging
import re
import threading
from collections.abc import Callable
from contextlib import contextmanager

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils.crypto import salted_hmac

from . import hooks
from .entry_html import render_entry
from .models import WHISPER, Visibility
from .selectors import FULL, NOTICE, PLAYERS, gm_numbers, recipient_ids

logger = logging.getLogger(__name__)


def table_group(campaign_id: int) -> str:
    return f"table-{campaign_id}"


def user_group(user_id: int) -> str:
    """Every table socket of one user, whatever the table: how a logout or password change reaches them."""
    return f"user-{user_id}"


_collecting = threading.local()


@contextmanager
def collected_broadcasts():
    """Collect this thread's committed broadcasts instead of sending them: yields the list of
    (group, event) pairs, for the async caller (config.asgi's handler, around each HTTP request) to
    send from its own event loop with :func:`send_collected`.

    Sending from the worker thread would cost another thread hop per roll (async_to_sync back onto the
    loop), the biggest single cost on the click-to-feed path (bench/table.py measures it).
    """
    _collecting.events = []
    try:
        yield _collecting.events
    finally:
        del _collecting.events


def answer_first(broadcasts) -> tuple[list, list]:
    """What :func:`collected_broadcasts` gathered, split in two, order kept: the events to send before
    the click is answered, and from the first one whose building waits until after (a callable in
    place of its event, see :func:`panel_changed`) to the end, to build with :func:`build_later` and
    send once the answer is out."""
    for index, (_, event) in enumerate(broadcasts):
        if callable(event):
            return broadcasts[:index], broadcasts[index:]
    return broadcasts, []


def build_later(broadcasts) -> list:
    """The events :func:`answer_first` put off, built (in a thread that may use the database); one that
    cannot be built is left out, logged: the pages it would have refreshed catch up on their next hello."""
    built = []
    for group, event in broadcasts:
        try:
            built.append((group, event() if callable(event) else event))
        except Exception:
            logger.exception("a broadcast to %s could not be built", group)
    return built


async def send_collected(broadcasts) -> None:
    """Send what :func:`collected_broadcasts` gathered (built), in order, from the event loop.

    A layer outage must not turn the saved change into an error: every client catches up from the
    database on its next hello or heartbeat.
    """
    if not broadcasts:
        return
    layer = get_channel_layer()
    if layer is None:
        return
    for group, event in broadcasts:
        try:
            await layer.group_send(group, event)
        except Exception:
            logger.exception("broadcast to %s failed", group)


def _send_on_commit(campaign_id: int, build_event: Callable[[], dict], *, after_answer: bool = False) -> None:
    _group_send_on_commit(table_group(campaign_id), build_event, after_answer=after_answer)


def _group_send_on_commit(group: str, build_event: Callable[[], dict], *, after_answer: bool = False) -> None:
    """Broadcast only once the change is committed, so nobody hears of a rolled-back row.

    ``after_answer``: where the broadcasts are collected, the event is built after the click is
    answered (:func:`answer_first`), for an event whose building costs database work the click need not
    wait on. A layer outage (or a rendering bug) must not turn a saved change into a 500: the row is
    saved, and every client catches up from the database when it next says hello.
    """

    def send() -> None:
        collected = getattr(_collecting, "events", None)
        if collected is not None:
            collected.append((group, build_event if after_answer else build_event()))
            return
        layer = get_channel_layer()
        if layer is None:
            return
        try:
            async_to_sync(layer.group_send)(group, build_event())
        except Exception:
            logger.exception("broadcast to %s failed", group)

    transaction.on_commit(send)


def member_removed(*, campaign_id: int, user_id: int) -> None:
    _send_on_commit(campaign_id, lambda: {"type": "member.removed", "user_id": user_id})


def sessions_ended(*, user_id: int, session_key: str | None = None) -> None:
    """Close the user's table sockets: those opened with ``session_key`` (a logout), or all (None).

    Sockets that miss this event (the layer dropped it) are still closed by their next heartbeat, which
    checks the session again (consumers.TableConsumer.client_ping).
    """
    _group_send_on_commit(user_group(user_id), lambda: {"type": "session.ended", "session_key": session_key})


def entry_frame(entry, variant: str) -> str:
    """The websocket frame (JSON text) that shows one variant of an entry to a browser.

    It carries the entry's cursor, never its seq: a player who could read seqs would count the hidden
    entries between two they see (cursors.py).
    """
    return json.dumps({"type": "entry", "cursor": entry.cursor, "html": render_entry(entry, variant)})


def entry_event(entry) -> dict:
    """The group event for a new entry: who may see what is decided per viewer by the consumer."""
    frames = {FULL: entry_frame(entry, FULL)}
    if entry.visibility == Visibility.BLIND:
        frames[NOTICE] = entry_frame(entry, NOTICE)
    numbers_gm_only = gm_numbers(entry.result)
    if numbers_gm_only:
        frames[PLAYERS] = entry_frame(entry, PLAYERS)
    return {
        "type": "feed.entry",
        "seq": entry.seq,
        "cursor": entry.cursor,
        "visibility": entry.visibility,
        "author_id": entry.author_id,
        "numbers_gm_only": numbers_gm_only,
        # A sheet page of this character refreshes its recent rolls, if its viewer may see the entry.
        "character_id": entry.character_id,
        "frames": frames,
    }


def whisper_audience(entry) -> list[int]:
    """Who may read a whisper: its author, the campaign's GM and the members it names."""
    return sorted({entry.author_id, entry.campaign.gm_id, *recipient_ids(entry)})


def entry_created(entry) -> None:
    """Tell the table a feed entry exists, rendered after the commit so it shows the saved row."""
    if entry.visibility != WHISPER:
        _send_on_commit(entry.campaign_id, lambda: entry_event(entry))
        return
    audience = whisper_audience(entry)
    rendered = []

    def whisper_event() -> dict:
        # Rendered once for the whole audience. A user group reaches that user's sockets at every
        # table, so the event names its campaign; the recipients let each socket check for itself.
        if not rendered:
            event = entry_event(entry)
            event.update(campaign_id=entry.campaign_id, recipient_ids=sorted(recipient_ids(entry)))
            rendered.append(event)
        return rendered[0]

    for user_id in audience:
        _group_send_on_commit(user_group(user_id), whisper_event)
    hidden = {"type": "feed.hidden", "seq": entry.seq, "audience": audience}
    _send_on_commit(entry.campaign_id, lambda: hidden)


# The per-render parts of a panel's HTML (a form's CSRF token, a one-time key): not what it shows.
_PER_RENDER = re.compile(r'<input\b[^>]*\bname="(?:csrfmiddlewaretoken|idempotency_key)"[^>]*>')


def shows(html: str) -> str:
    """A digest of what a panel's HTML shows (its per-render parts set aside): two renders that show the
    same have the same. Keyed with the installation's secret, so a digest tells nothing of the HTML, not
    even whether a guess at it is right."""
    return salted_hmac("campaigns.realtime.shows", _PER_RENDER.sub("", html)).hexdigest()[:32]


def panel_changed(*, campaign_id: int, panel: str, gm_only: bool = False, held: dict | None = None) -> None:
    """A live panel of the table ("encounter", "requests") changed; open pages fetch it again.

    Where the panel's owner registered what the players and the GM see of it (hooks.register_seat_views),
    the event carries a digest of each view, worked out once the change is committed; the consumer sends
    each seat its own (the GM's only to the GM), and a page whose panel already shows it (its
    ``data-shows``) fetches nothing. Drawing the views is database and template work, so the event is
    built once the click is answered: the click's entry and its answer do not wait on it. ``held``: what
    the change holds already of what the views draw (a move's fight), handed to them as keywords so
    they need not read it again.
    """
    views = None if gm_only else hooks.seat_views(panel)

    def event() -> dict:
        built = {"type": "panel.changed", "panel": panel, "gm_only": gm_only}
        if views is not None:
            try:
                players, gm = views(campaign_id, **(held or {}))
            except Exception:  # without a digest every page fetches: slower, never stale
                logger.exception("the views of %s could not be drawn", panel)
            else:
                built.update(shows=shows(players), gm_shows=shows(gm))
        return built

    _send_on_commit(campaign_id, event, after_answer=views is not None)


def sheet_panel(character_id: int) -> str:
    """The live panel name an open sheet page listens on (data-live-panel in templates/sheets/sheet.html)."""
    return f"sheet:{character_id}"


def recent_rolls_panel(character_id: int) -> str:
    """The live panel name of a sheet's recent rolls (templates/sheets/_recent_rolls.html).

    No event of its own: the table socket of a page without a feed (a sheet) sends this refresh when
    it hears a new entry made as the character that its viewer may see (consumers.TableConsumer).
    """
    return f"recent:{character_id}"


def sheet_changed(*, campaign_id: int, character_id: int, gm_only: bool = False) -> None:
    """A character's sheet changed (any path: edit, roll, XP, encounter, undo); its open pages re-fetch.

    Only the character id travels, no values and no version: the page asks for its parts over HTTP,
    where the sheet's own permission checks apply. ``gm_only`` for a sheet players may not see (an NPC).
    """
    panel_changed(campaign_id=campaign_id, panel=sheet_panel(character_id), gm_only=gm_only)
