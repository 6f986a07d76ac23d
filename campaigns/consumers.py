"""One websocket per open table page: live feed entries for that viewer, catch-up, panel refreshes.

The protocol, both ways as JSON text frames:

    client -> server   {"type": "hello", "cursor": "..." | null, "feed": true}   first, on every
                                   (re)connect: the newest entry the page shows (null: none); "feed":
                                   false for a page without a feed (a sheet), which gets no entries
                       {"type": "ping"}                     every 25 s: the heartbeat
    server -> client   {"type": "entry", "cursor": "...", "html": "<li ...>"}   oldest first, never
                                   repeated
                       {"type": "ready"}          the catch-up after hello is done
                       {"type": "reload"}         too much was missed (or the cursor is unknown);
                                   fetch the page again
                       {"type": "pong"}           after any entries the viewer had missed
                       {"type": "refresh", "panel": name}   a panel changed: fetch it again over HTTP
                                   (to a page without a feed, "recent:<character id>" after an
                                   entry made as that character which its viewer may see, with
                                   "entry": its cursor, so a page already showing it fetches nothing)

Nothing is written over the socket: the page rolls and chats with htmx POSTs (the dice box, the
chat box, a sheet's button, an encounter action), the paths with the forms' own checks and messages
on the field (docs/performance.md measures them); the socket carries the entries.

A cursor (cursors.py) is a keyed permutation of the entry's campaign-wide seq: the seq itself never
reaches a browser, because the gaps between a player's seqs would count the entries hidden from them.
The client only compares cursors for equality; the server turns the hello's cursor back into a seq.

Anything else from the client closes that client's socket (code 4400) and nothing else; client data
never goes into a group event. Close codes the page acts on:

    4403  not seated: removed from the table, logged out, or the password changed (the reason says
          which); the page stops reconnecting
    4409  this user already has TABLE_SOCKETS_PER_USER sockets at this table in this process; stops
    4429  the client sent frames faster than hello and the heartbeat ever need; it may reconnect
    1013  the channel layer (Redis) is unavailable; try again later, the page keeps retrying

The heartbeat is also the safety net: each ping checks the seat and the session again (an event lost
by the layer still ends the socket) and replays any entry the layer failed to deliver, so an open page
catches up by itself once Redis is back, without waiting for the next roll.
"""

import json
import logging
import time
from collections import defaultdict
from importlib import import_module

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare

from . import cursors, realtime, selectors
from .models import Campaign

logger = logging.getLogger(__name__)

MAX_FRAME_CHARS = 2048  # a hello or a ping is far smaller; bigger frames are refused
CATCH_UP_LIMIT = 200  # entries replayed at once; past that the client reloads the page instead

CLOSE_BAD_MESSAGE = 4400
CLOSE_NOT_SEATED = 4403
CLOSE_TOO_MANY_SOCKETS = 4409
CLOSE_FLOODING = 4429
CLOSE_UNSUPPORTED = 1003
CLOSE_TOO_BIG = 1009
CLOSE_TRY_LATER = 1013

# Sockets one user may hold open at one table (the table page plus a few sheet pages), per process.
DEFAULT_SOCKETS_PER_USER = 6
# What a page sends: one hello, a ping every 25 s, and a ping on coming back online or to the tab.
FRAME_BURST = 10
FRAMES_PER_SECOND = 0.5

# (user id, campaign id) -> channel names of this process's open table sockets. Per process on
# purpose: a count in a shared store would outlive a crashed worker and lock its users out.
_open_sockets: dict[tuple[int, int], set[str]] = defaultdict(set)


class FrameBudget:
    """A token bucket: each frame from the client spends one token; they come back at a steady rate."""

    def __init__(self, burst: float, rate: float):
        self.burst, self.rate = burst, rate
        self.tokens = burst
        self.at = time.monotonic()

    def spend(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def session_alive(session_key: str | None, user) -> bool:
    """Is the session this socket was opened with still signed in as ``user``, password unchanged?

    The same test Django's auth makes on every request, made against the session store now (the
    socket's own copy of the session is as old as the socket).
    """
    if session_key is None:
        return True  # a scope without a session (tests, another auth middleware): nothing to follow
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key)
    if str(store.get(SESSION_KEY)) != str(user.pk):
        return False
    fresh = get_user_model()._default_manager.filter(pk=user.pk).first()
    if fresh is None or not getattr(fresh, "is_active", True):
        return False
    return constant_time_compare(store.get(HASH_SESSION_KEY, ""), fresh.get_session_auth_hash())


class TableConsumer(AsyncWebsocketConsumer):
    # These handlers reach the database only through database_sync_to_async, which closes stale
    # connections itself; skipping AsyncConsumer.dispatch's aclose_old_connections() saves one thread
    # hop per message and per viewer on every broadcast (about half the fan-out time; bench/table.py).
    _WITHOUT_HOP = (
        frozenset()  # stock mode: channels' own dispatch for every message
        if settings.TABLETOP_STOCK
        else frozenset(
            {
                "feed.entry",
                "feed.hidden",
                "member.removed",
                "session.ended",
                "panel.changed",
                "websocket.receive",
            }
        )
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.group = None
        self.closing = False
        self.campaign = None
        # The highest seq this connection has dealt with (sent, or known hidden from this viewer);
        # None until the client's hello says where it stands.
        self.seen_seq = None
        self.wants_feed = True  # False for a page without a feed: it hears panels only
        self.session_key = None
        self.seat_key = None  # this socket's key in _open_sockets, once counted
        self.groups_joined = []
        # Each ping reads the database: a client flooding the socket is closed after a few frames.
        self.budget = FrameBudget(FRAME_BURST, FRAMES_PER_SECOND)

    async def __call__(self, scope, receive, send):
        try:
            await super().__call__(scope, receive, send)
        except Exception:
            if hasattr(self, "channel_name"):
                raise
            # The layer could not even give this socket a channel (Redis is down). Refuse it with
            # "try again later" rather than let the server answer the handshake with a 500.
            logger.warning("table socket refused: the channel layer is unavailable", exc_info=True)
            if (await receive())["type"] == "websocket.connect":
                await send({"type": "websocket.accept"})
                await send({"type": "websocket.close", "code": CLOSE_TRY_LATER})
        finally:
            self._uncount()

    async def dispatch(self, message):
        if message["type"] in self._WITHOUT_HOP:
            await getattr(self, get_handler_name(message))(message)
        elif message["type"].startswith("websocket.") or hasattr(self, get_handler_name(message)):
            await super().dispatch(message)
        else:
            # A group event this version does not know (another part of the app, or a newer worker
            # during a rolling deploy) must not crash every socket at the table.
            logger.warning("table socket ignored an event of type %r", message["type"])

    # -- connection -------------------------------------------------------------------------------

    async def connect(self):
        user = self.scope.get("user")
        campaign_id = int(self.scope["url_route"]["kwargs"]["campaign_id"])
        campaign = None
        if user is not None and user.is_authenticated:
            campaign = await database_sync_to_async(selectors.table_seat)(user, campaign_id)
        if campaign is None:
            # Before accept, so the handshake is refused (HTTP 403) and not one frame is sent.
            await self.close()
            return
        self.user = user
        self.campaign = campaign
        self.session_key = getattr(self.scope.get("session"), "session_key", None)
        seat_key = (user.pk, campaign.pk)
        limit = getattr(settings, "TABLE_SOCKETS_PER_USER", DEFAULT_SOCKETS_PER_USER)
        if len(_open_sockets[seat_key]) >= limit:
            # Accepted and closed with a code of its own, so the page says why and stops retrying.
            await self.accept()
            await self._close(CLOSE_TOO_MANY_SOCKETS, "too many sockets")
            return
        _open_sockets[seat_key].add(self.channel_name)
        self.seat_key = seat_key
        self.group = realtime.table_group(campaign.pk)
        # Join before accepting: an entry committed from here on is either heard live or found by
        # the catch-up that hello triggers. The user's own group carries logouts and password changes.
        try:
            for group in (self.group, realtime.user_group(user.pk)):
                self.groups_joined.append(group)
                await self.channel_layer.group_add(group, self.channel_name)
        except Exception:
            logger.warning("table socket refused: the channel layer is unavailable", exc_info=True)
            await self.accept()
            await self._close(CLOSE_TRY_LATER)
            return
        await self.accept()

    async def disconnect(self, code):
        await self._leave_group()
        self._uncount()

    def _uncount(self):
        if self.seat_key is not None:
            seat_key, self.seat_key = self.seat_key, None
            sockets = _open_sockets[seat_key]
            sockets.discard(self.channel_name)
            if not sockets:
                del _open_sockets[seat_key]

    async def _leave_group(self):
        self.group = None
        groups, self.groups_joined = self.groups_joined, []
        for group in groups:
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:
                # Redis is down; its subscriptions die with the connection anyway.
                logger.warning("could not leave %s", group, exc_info=True)

    async def _close(self, code: int, reason: str | None = None):
        self.closing = True
        await self._leave_group()
        self._uncount()
        await self.close(code=code, reason=reason)

    async def _send_json(self, content: dict):
        await self.send(text_data=json.dumps(content))

    # -- from the client --------------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        if self.closing:
            return
        if not self.budget.spend():
            await self._close(CLOSE_FLOODING, "too many frames")
            return
        if text_data is None:
            await self._close(CLOSE_UNSUPPORTED)
            return
        if len(text_data) > MAX_FRAME_CHARS:
            await self._close(CLOSE_TOO_BIG)
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            message = None
        action = message.get("type") if isinstance(message, dict) else None
        handler = (
            {
                "hello": self.client_hello,
                "ping": self.client_ping,
            }.get(action)
            if isinstance(action, str)
            else None
        )
        if handler is None:
            await self._close(CLOSE_BAD_MESSAGE)
            return
        await handler(message)

    async def client_ping(self, message):
        gone, newest_seq = await database_sync_to_async(self._still_here)()
        if gone is not None:
            await self._close(CLOSE_NOT_SEATED, gone)
            return
        if self.wants_feed and self.seen_seq is not None and newest_seq > self.seen_seq:
            # The layer lost a broadcast (Redis was down): read the gap from the database now.
            if not await self._catch_up(self.seen_seq):
                return
        await self.send(text_data='{"type": "pong"}')

    def _still_here(self) -> tuple[str | None, int]:
        """(why this socket must close, or None; the campaign's newest seq)."""
        if selectors.table_seat(self.user, self.campaign.pk) is None:
            return "not seated", 0
        if not session_alive(self.session_key, self.user):
            return "session ended", 0
        return None, Campaign.objects.values_list("last_seq", flat=True).get(pk=self.campaign.pk)

    async def client_hello(self, message):
        cursor = message.get("cursor")
        wants_feed = message.get("feed", True)
        last_seq = 0 if cursor is None else cursors.seq_for(self.campaign.pk, cursor)
        if last_seq is None or not isinstance(wants_feed, bool):
            await self._close(CLOSE_BAD_MESSAGE)
            return
        if self.seen_seq is not None:
            return  # one hello per connection; the stream is already flowing
        self.wants_feed = wants_feed
        if await self._catch_up(last_seq):
            await self.send(text_data='{"type": "ready"}')

    async def _catch_up(self, after_seq: int) -> bool:
        """Send what this viewer missed after ``after_seq``, in order; False if the socket was closed."""
        seated, frames, newest_seq, complete = await database_sync_to_async(self._missed)(after_seq)
        if not seated:
            await self._close(CLOSE_NOT_SEATED, "not seated")
            return False
        for frame in frames:
            await self.send(text_data=frame)
        self.seen_seq = max(newest_seq, self.seen_seq or 0)
        if not complete:
            await self.send(text_data='{"type": "reload"}')
        return True

    def _missed(self, after_seq: int):
        # Seated again on every catch-up: a player removed while their message was in flight must not
        # read the feed on the strength of a check made at connect.
        if selectors.table_seat(self.user, self.campaign.pk) is None:
            return False, [], after_seq, True
        if not self.wants_feed:
            # Nothing to replay to a page without a feed; the live stream starts from the newest.
            newest_seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=self.campaign.pk)
            return True, [], newest_seq, True
        entries, newest_seq, complete = selectors.feed_since(
            self.user, self.campaign, after_seq=after_seq, limit=CATCH_UP_LIMIT
        )
        if after_seq > newest_seq:
            # Not a cursor of this campaign's feed (forged, or from before a SECRET_KEY change):
            # the page starts again from a fresh copy.
            complete = False
        return True, [realtime.entry_frame(entry, entry.variant) for entry in entries], newest_seq, complete

    # -- from the table's group -------------------------------------------------------------------

    async def feed_entry(self, event):
        if self.closing or self.seen_seq is None:
            # Before hello there is nothing to do: this entry was committed before it was broadcast,
            # so the catch-up that hello starts reads it from the database.
            return
        if event.get("campaign_id", self.campaign.pk) != self.campaign.pk:
            return  # a whisper at another table, heard on this user's own group
        if not self.wants_feed:
            # A sheet page: an entry made as a character refreshes that sheet's recent rolls, for a
            # viewer who may see the entry only (the page fetches the panel over HTTP, filtered). The
            # entry's cursor, which that viewer's feed would show too, lets a page whose merged sheet
            # brought the entry already leave the panel be.
            character_id = event.get("character_id")
            if character_id is not None and self._variant(event) is not None:
                panel = realtime.recent_rolls_panel(character_id)
                frame = {"type": "refresh", "panel": panel}
                if event.get("cursor"):  # an event from a worker of an older release has none: fetch
                    frame["entry"] = event["cursor"]
                await self._send_json(frame)
            return
        seq = event["seq"]
        if seq <= self.seen_seq:
            return  # already sent by a catch-up, or a late duplicate
        if seq > self.seen_seq + 1:
            # A gap: the layer dropped an event, or two workers' broadcasts crossed. The database
            # has everything up to this seq (seqs commit in order), so read the gap from there.
            await self._catch_up(self.seen_seq)
            return
        self.seen_seq = seq
        variant = self._variant(event)
        frame = event["frames"].get(variant) if variant else None
        if frame is not None:
            await self.send(text_data=frame)

    def _variant(self, event) -> str | None:
        """What this socket's viewer may see of the entry an event announces (selectors.entry_variant)."""
        return selectors.entry_variant(
            visibility=event["visibility"],
            author_id=event["author_id"],
            viewer_id=self.user.pk,
            gm_id=self.campaign.gm_id,
            recipient_ids=event.get("recipient_ids", ()),
            numbers_gm_only=event.get("numbers_gm_only", False),
        )

    async def feed_hidden(self, event):
        """A whisper's seq, without its content, for the sockets outside its audience to count."""
        if self.closing or self.seen_seq is None or not self.wants_feed:
            return
        if self.user.pk in event["audience"]:
            return  # the whisper itself comes on this user's group (feed_entry); a lost one is a gap
        seq = event["seq"]
        if seq <= self.seen_seq:
            return
        if seq > self.seen_seq + 1:
            await self._catch_up(self.seen_seq)
            return
        self.seen_seq = seq

    async def panel_changed(self, event):
        # A panel (the encounter, the GM's roll requests) changed: the page fetches it again over HTTP.
        if self.closing or self.seen_seq is None:
            return
        gm = self.user.pk == self.campaign.gm_id
        if event.get("gm_only") and not gm:
            return
        frame = {"type": "refresh", "panel": event["panel"]}
        # Each seat hears the digest of its own view only: the GM's is of NPC numbers a player may not see.
        shows = event.get("gm_shows" if gm else "shows")
        if shows:
            frame["shows"] = shows
        await self._send_json(frame)

    async def member_removed(self, event):
        if not self.closing and event.get("user_id") == self.user.pk:
            await self._close(CLOSE_NOT_SEATED, "not seated")

    async def session_ended(self, event):
        # From the user's own group: every session (a password change) or the one logged out.
        session_key = event.get("session_key")
        if not self.closing and (session_key is None or session_key == self.session_key):
            await self._close(CLOSE_NOT_SEATED, "session ended")
