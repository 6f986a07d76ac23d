"""The feed's hash chain: a change made to a campaign's feed behind the app's back is found.

Each entry stores ``hash`` = SHA-256 over a canonical JSON of what it says (the campaign, its seq,
kind, author, character id and name, who may see it, the line, what was asked, the whole result with
every die face and the outcome, the summary and the chance) and of ``prev_hash``, the hash of the
entry before it in the campaign ("" for the first). Changing any of those in the database, deleting
an entry or slipping one in breaks the chain at that entry; :func:`verify` names the first break.

The time an entry was made is not covered: the database stamps it while saving (``auto_now_add``),
after the hash is made. The chain proves the order and the content, not the clock.

Who sees the chain: the GM (campaign page) and whoever runs ``manage.py verify_feed``. Players see
none of it (docs/dice-box.md, "Checking the feed"): a hash or a prev_hash would tie two entries a
player sees to the hidden ones between them.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from django.db import connections
from django.db.models import F

from .models import Campaign, FeedEntry

VERSION = 1  # part of every hash, so a future change of what is covered cannot pass for this one

#: The columns a hash covers, besides the previous hash (read in this order by verify).
COVERED = (
    "campaign_id",
    "seq",
    "kind",
    "author_id",
    "character_id",
    "character_name",
    "visibility",
    "label",
    "request",
    "result",
    "summary",
    "chance",
)


def _plain(value):
    """JSON as the database gives it back: tuples become lists, keys become strings."""
    return json.loads(json.dumps(value, allow_nan=False))


def entry_hash(fields: dict, prev_hash: str) -> str:
    """The hash of one entry from its covered fields (a dict keyed as COVERED) and the previous hash."""
    payload = {name: fields[name] for name in COVERED}
    payload["request"] = _plain(payload["request"])
    payload["result"] = _plain(payload["result"])
    payload.update(v=VERSION, prev=prev_hash)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(entry: FeedEntry, prev_hash: str) -> None:
    """Set an unsaved entry's place in the chain: it follows the entry whose hash is ``prev_hash``."""
    entry.prev_hash = prev_hash
    entry.hash = entry_hash({name: getattr(entry, name) for name in COVERED}, prev_hash)


def next_link(campaign_id: int) -> tuple[int, str]:
    """Number a new entry of the campaign: (its seq, the hash it follows).

    The counter's update holds the campaign row's write lock to the end of the caller's transaction,
    so concurrent entries queue and each follows the one before it. On SQLite one ``UPDATE ...
    RETURNING`` bumps the counter and reads the newest entry's hash together, so the chain costs a roll
    no extra round trip: SQLite serialises writers and never lets one write from a stale snapshot.
    PostgreSQL needs the read as a statement of its own: under READ COMMITTED a subquery in the
    UPDATE would read the snapshot taken before the update waited for the lock, and so miss the entry
    the transaction it waited for had just committed.
    """
    connection = connections[Campaign.objects.db]
    quote = connection.ops.quote_name
    campaigns, feed = quote(Campaign._meta.db_table), quote(FeedEntry._meta.db_table)
    campaign_pk = quote(Campaign._meta.pk.column)
    last_seq = quote(Campaign._meta.get_field("last_seq").column)
    digest, entry_campaign, entry_seq = (
        quote(FeedEntry._meta.get_field(name).column) for name in ("hash", "campaign", "seq")
    )
    # Names from the models' meta, values as parameters; in RETURNING the counter is already bumped.
    bump = f"UPDATE {campaigns} SET {last_seq} = {last_seq} + 1 WHERE {campaign_pk} = %s "  # noqa: S608
    if not connection.features.can_return_columns_from_insert:  # SQLite before 3.35
        Campaign.objects.filter(pk=campaign_id).update(last_seq=F("last_seq") + 1)
        seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign_id)
        return seq, head(campaign_id, seq)
    together = connection.vendor == "sqlite"
    sql, params = bump + f"RETURNING {last_seq}", [campaign_id]
    if together:
        sql += (
            f", (SELECT {digest} FROM {feed} WHERE {entry_campaign} = %s "  # noqa: S608
            f"AND {entry_seq} < {campaigns}.{last_seq} ORDER BY {entry_seq} DESC LIMIT 1)"
        )
        params.append(campaign_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise Campaign.DoesNotExist(f"No campaign {campaign_id}.")
    return row[0], (row[1] or "") if together else head(campaign_id, row[0])


def head(campaign_id: int, before_seq: int) -> str:
    """The hash the entry numbered ``before_seq`` follows: its predecessor's ("" for the first entry)."""
    return (
        FeedEntry.objects.filter(campaign_id=campaign_id, seq__lt=before_seq)
        .order_by("-seq")
        .values_list("hash", flat=True)
        .first()
        or ""
    )


@dataclass(frozen=True)
class Break:
    """Where a campaign's chain breaks: the first entry (by seq) that fails, and how."""

    seq: int
    reason: str  # "changed", "missing" or "out of place"

    def __str__(self) -> str:
        if self.reason == "missing":
            return f"entry #{self.seq} is missing"
        if self.reason == "out of place":
            return f"entry #{self.seq} does not follow the entry before it"
        return f"entry #{self.seq} was changed"


def first_break(campaign: Campaign) -> Break | None:
    """Walk the campaign's feed in order and return the first break, or None when the chain holds.

    One pass over the rows in seq order, a few columns at a time (no model instances).
    """
    expected_seq, prev = 1, ""
    rows = (
        FeedEntry.objects.filter(campaign_id=campaign.pk)
        .order_by("seq")
        .values_list(*COVERED, "prev_hash", "hash")
        .iterator(chunk_size=500)
    )
    for row in rows:
        fields = dict(zip(COVERED, row, strict=False))
        stored_prev, stored = row[-2], row[-1]
        if fields["seq"] != expected_seq:
            return Break(expected_seq, "missing")
        if stored_prev != prev:
            return Break(fields["seq"], "out of place")
        if stored != entry_hash(fields, prev):
            return Break(fields["seq"], "changed")
        expected_seq, prev = expected_seq + 1, stored
    last_seq = Campaign.objects.values_list("last_seq", flat=True).get(pk=campaign.pk)
    if last_seq >= expected_seq:  # the newest entries were deleted
        return Break(expected_seq, "missing")
    return None


def verify(campaign: Campaign) -> int | None:
    """The seq of the first entry that breaks the campaign's chain, or None when it holds."""
    broken = first_break(campaign)
    return None if broken is None else broken.seq
