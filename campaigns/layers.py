"""The channel layer of a single-process deployment (no REDIS_URL): channels' in-memory layer, paced.

``InMemoryChannelLayer`` sweeps every channel's queue and every group membership for expired
entries on each ``receive`` and each ``group_send``, and sends to a group by starting one task per
member. With 100 tables of 8 open sockets that is 1,600 memberships walked nine times per roll (the
eight sockets' receives and the send), most of a roll's CPU in bench/table.py. Here the sweep runs at
most once a second (a message expires after 60 s and a membership after a day, so waiting a second
to drop one changes nothing a client sees) and a group send puts the message on each member's queue
in place, in the group's order. What is delivered, and to whom, is unchanged: a full queue still
drops only that member's copy.
"""

import time

from channels.exceptions import ChannelFull
from channels.layers import InMemoryChannelLayer


class TableChannelLayer(InMemoryChannelLayer):
    SWEEP_EVERY = 1.0  # seconds between two sweeps for expired messages and memberships

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._swept_at = None

    def _clean_expired(self):
        now = time.monotonic()
        if self._swept_at is not None and now - self._swept_at < self.SWEEP_EVERY:
            return
        self._swept_at = now
        super()._clean_expired()

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        for channel in list(self.groups.get(group, ())):
            try:
                await self.send(channel, message)  # a put on the member's queue: it never waits
            except ChannelFull:
                pass  # that member is stuck; the others still get theirs
