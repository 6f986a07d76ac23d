"""Feed cursors: what a browser holds instead of an entry's seq.

``seq`` numbers a campaign's feed entries 1, 2, 3... across every visibility, so a player who saw
entries 7 and 9 would know entry 8 exists and is hidden from them (a blind roll, someone's "only me").
Pages and socket frames therefore carry ``cursor_for(campaign_id, seq)``: a keyed pseudo-random
permutation of the 64-bit seq, written as 16 hex digits. It is one-to-one (the server turns it back
with ``seq_for``), but without the key two cursors say nothing about how far apart their seqs are,
nor which is older. Clients only compare cursors for equality (to drop a duplicate) and trust the
server's order.

The permutation is a balanced Feistel network on two 32-bit halves with HMAC-SHA256 round
functions (Luby-Rackoff: four rounds of a pseudo-random function make a pseudo-random permutation);
its key is derived from SECRET_KEY and the campaign id, so cursors of one campaign say nothing about
another's. Stdlib only: it runs once per entry per broadcast, not per viewer.
"""

import hashlib
import hmac
from functools import lru_cache

from django.conf import settings

ROUNDS = 4
_HALF = 0xFFFFFFFF
CURSOR_LENGTH = 16  # hex digits of a 64-bit cursor


@lru_cache(maxsize=1024)
def _key(secret: str, campaign_id: int) -> bytes:
    return hmac.new(secret.encode(), f"feed-cursor:{campaign_id}".encode(), hashlib.sha256).digest()


def _round(key: bytes, number: int, half: int) -> int:
    digest = hmac.new(key, bytes([number]) + half.to_bytes(4, "big"), hashlib.sha256).digest()
    return int.from_bytes(digest[:4], "big")


def _permute(key: bytes, value: int, rounds) -> int:
    left, right = value >> 32, value & _HALF
    for number in rounds:
        left, right = right, left ^ _round(key, number, right)
    return (right << 32) | left  # the final swap, so inverting is the same network run backwards


def cursor_for(campaign_id: int, seq: int) -> str:
    """The opaque cursor of the entry numbered ``seq`` in a campaign."""
    return _cursor(settings.SECRET_KEY, campaign_id, seq)


# Four HMACs an entry: a feed page of fifty asked for two hundred of them, a tenth of its drawing. The
# newest entries are drawn over and over (every page, catch-up and broadcast), so they are kept.
@lru_cache(maxsize=8192)
def _cursor(secret: str, campaign_id: int, seq: int) -> str:
    return format(_permute(_key(secret, campaign_id), seq, range(ROUNDS)), f"0{CURSOR_LENGTH}x")


def seq_for(campaign_id: int, cursor) -> int | None:
    """The seq a cursor stands for; None if ``cursor`` is not a cursor at all (wrong type or form).

    Any 16 hex digits turn back into some 64-bit number: a forged or foreign cursor gives a seq far
    beyond the campaign's newest, which the caller treats as "unknown" (it can only ever select
    entries the viewer may see anyway).
    """
    if not isinstance(cursor, str) or len(cursor) != CURSOR_LENGTH:
        return None
    try:
        value = int(cursor, 16)
    except ValueError:
        return None
    if cursor != format(value, f"0{CURSOR_LENGTH}x"):
        return None  # upper case, signs, spaces: not something this module wrote
    key = _key(settings.SECRET_KEY, campaign_id)
    return _permute(key, value, reversed(range(ROUNDS)))
