"""The feed's hash chain: a change made to a campaign's feed behind the app's back is found.

Each entry stores ``hash`` = SHA-256 over a canonical JSON of what it says (the campaign, its seq,
kind, author, character id and name, who may see it, the line, what was asked, the whole result with
every die face and the outcome, the summary and the chance; for a whisper, the ids of the members it
names) and of ``prev_hash``, the hash of the entry before it in the campaign ("" for the first).
Changing any of those in the database, deleting an entry or slipping one in breaks the chain at that
entry; :func:`verify` names the first break.

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

from .counters import counter_increment, row_update_if
from .models import Campaign, FeedEntry, WhisperRecipient

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
    """The hash of one entry from its covered fields (a dict keyed as COVERED) and the previous hash.

    A whisper's recipients (``fields["recipients"]``, user ids) are covered as ``to``, only when there
    are some: every other entry hashes as it did before whispers existed.
    """
    payload = {name: fields[name] for name in COVERED}
    payload["request"] = _plain(payload["request"])
    payload["result"] = _plain(payload["result"])
    if fields.get("recipients"):
        payload["to"] = sorted(fields["recipients"])
    payload.update(v=VERSION, prev=prev_hash)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(entry: FeedEntry, prev_hash: str) -> None:
    """Set an unsaved entry's place in the chain: it follows the entry whose hash is ``prev_hash``."""
    entry.prev_hash = prev_hash
    fields = {name: getattr(entry, name) for name in COVERED}
    entry.hash = entry_hash({**fields, "recipients": [user.pk for user in entry.whisper_to]}, prev_hash)


def link(campaign: Campaign, *entries: FeedEntry) -> None:
    """Number unsaved entries of the campaign, seal each after the one before it (the first after the
    newest entry), and make the last the head.

    The campaign row holds the counter and the head's hash (``last_seq``, ``last_hash``); the update
    that moves them takes the row's write lock to the end of the caller's transaction, so concurrent
    entries queue and each follows the one before it. The hashes are made from the campaign as the
    request loaded it, and one conditional ``UPDATE`` moves the head only if nobody moved it since:
    an ordinary roll, or the several lines of one encounter move, pays one statement for the numbers
    and the chain. When the row has moved (another entry came first, or the instance is old), the bump
    takes the lock first and hands back the current head under it (``RETURNING``, or a read after the
    update where the database lacks it), then the head is written. Both read the row the update
    locked, never a subquery's snapshot: under PostgreSQL's READ COMMITTED a subquery would miss the
    entry a waited-for transaction committed.
    """
    if not {"last_seq", "last_hash"} & campaign.get_deferred_fields():
        head = _sealed(entries, campaign.last_seq, campaign.last_hash)
        expected = {"last_seq": campaign.last_seq, "last_hash": campaign.last_hash}
        if row_update_if(Campaign, campaign.pk, expected, last_seq=head.seq, last_hash=head.hash):
            campaign.last_seq, campaign.last_hash = head.seq, head.hash
            return
    last_seq, prev_hash = counter_increment(
        Campaign, campaign.pk, "last_seq", read=("last_hash",), by=len(entries)
    )
    head = _sealed(entries, last_seq - len(entries), prev_hash)
    Campaign.objects.filter(pk=campaign.pk).update(last_hash=head.hash)
    campaign.last_seq, campaign.last_hash = head.seq, head.hash


def _sealed(entries, seq: int, prev_hash: str) -> FeedEntry:
    """Number and seal ``entries`` in turn after the entry ``seq`` whose hash is ``prev_hash``; the last."""
    for entry in entries:
        seq += 1
        entry.seq = seq
        seal(entry, prev_hash)
        prev_hash = entry.hash
    return entries[-1]


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

    One pass over the rows in seq order, a few columns at a time (no model instances), after one
    query for the recipients of the campaign's whispers.
    """
    recipients: dict[int, list[int]] = {}
    for seq, user_id in WhisperRecipient.objects.filter(entry__campaign_id=campaign.pk).values_list(
        "entry__seq", "user_id"
    ):
        recipients.setdefault(seq, []).append(user_id)
    expected_seq, prev = 1, ""
    rows = (
        FeedEntry.objects.filter(campaign_id=campaign.pk)
        .order_by("seq")
        .values_list(*COVERED, "prev_hash", "hash")
        .iterator(chunk_size=500)
    )
    for row in rows:
        fields = dict(zip(COVERED, row, strict=False))
        fields["recipients"] = recipients.get(fields["seq"], [])
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
