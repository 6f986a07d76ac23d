"""A row's compare-and-set or update and new rows' insert (campaigns/counters.py ``row_update_if``,
``row_update``, ``row_insert``): the statement written from the model's meta does what the ORM's
``update()``, ``save()`` and ``bulk_create()`` do, in one statement, in both modes."""

import pytest
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from campaigns.counters import row_insert, row_update, row_update_if
from campaigns.models import Campaign, FeedEntry
from play.models import Encounter, RollRequest, RollRequestTarget


@pytest.mark.parametrize("stock", [False, True], ids=["speed-layer", "stock"])
def test_a_row_moves_only_from_what_the_caller_expects(campaign, settings, stock):
    settings.TABLETOP_STOCK = stock
    Campaign.objects.filter(pk=campaign.pk).update(last_seq=4, last_hash="a" * 64)
    with CaptureQueriesContext(connection) as queries:
        moved = row_update_if(
            Campaign, campaign.pk, {"last_seq": 4, "last_hash": "a" * 64}, last_seq=5, last_hash="b" * 64
        )
    assert moved and len(queries) == 1
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (5, "b" * 64)
    # Expecting what the row no longer holds (another entry came first) moves nothing.
    for stale in ({"last_seq": 4, "last_hash": "b" * 64}, {"last_seq": 5, "last_hash": "a" * 64}):
        assert not row_update_if(Campaign, campaign.pk, stale, last_seq=6, last_hash="c" * 64)
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (5, "b" * 64)
    # Another row, and a row that is not there, are never touched.
    other = Campaign.objects.create(name="Other", gm=campaign.gm, system=campaign.system)
    assert not row_update_if(Campaign, other.pk + 1000, {"last_seq": 0}, last_seq=1)
    assert row_update_if(Campaign, other.pk, {"last_seq": 0, "last_hash": ""}, last_seq=1, last_hash="d" * 64)
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (5, "b" * 64)


@pytest.mark.parametrize("stock", [False, True], ids=["speed-layer", "stock"])
def test_a_rows_fields_are_written_as_save_writes_them(campaign, gm, player, demo_character, settings, stock):
    settings.TABLETOP_STOCK = stock
    by_orm, by_statement = (Encounter.objects.create(campaign=campaign, name=name) for name in "AB")
    for fight in (by_orm, by_statement):
        fight.status, fight.round, fight.turn = Encounter.Status.RUNNING, 3, 2
        fight.state = {"declared": [{"who": 7, "what": "attack"}], "note": "é"}
        fight.name = "not written"  # a field left out is left as stored
    by_orm.save(update_fields=Encounter.PLAY_COLUMNS)
    with CaptureQueriesContext(connection) as queries:
        row_update(by_statement, Encounter.PLAY_COLUMNS)
    assert len(queries) == 1
    columns = ("status", "round", "turn", "state", "name", "version")
    assert Encounter.objects.values_list(*columns).get(pk=by_statement.pk) == (
        *Encounter.objects.values_list(*columns[:4]).get(pk=by_orm.pk), "B", 1,
    )  # fmt: skip
    # A relation is written by its id, as save() writes it.
    character = demo_character("triad")
    asked = RollRequest.objects.create(campaign=character.campaign, created_by=gm, label="Spot")
    target = RollRequestTarget.objects.create(request=asked, character=character)
    target.entry = FeedEntry.objects.create(
        campaign=character.campaign, seq=1, author=player, label="Spot", hash="h" * 64
    )
    row_update(target, ["entry"])
    assert RollRequestTarget.objects.get(pk=target.pk).entry_id == target.entry.pk


def stored(entry: FeedEntry) -> dict:
    """Every column of the entry as the database holds it, but its id."""
    row = FeedEntry.objects.values().get(pk=entry.pk)
    row.pop("id")
    return row


@pytest.mark.parametrize("stock", [False, True], ids=["speed-layer", "stock"])
def test_a_new_row_is_stored_as_the_orm_stores_it(campaign, player, settings, stock):
    settings.TABLETOP_STOCK = stock

    def entry(seq: int) -> FeedEntry:
        return FeedEntry(
            campaign=campaign,
            seq=seq,
            author=player,
            label="1d20+5 \u2014 \u00e9p\u00e9e",
            request={"notation": "1d20+5", "nested": {"list": [1, None, "x"]}},
            result={"dice": [12], "total": 17, "outcome": "success"},
            chance="3/4",
            visibility="gm",
            hash="h" * 64,
        )

    by_orm, by_statement = entry(1), entry(2)
    by_orm.save()
    with CaptureQueriesContext(connection) as queries:
        row_insert(by_statement)
    assert len(queries) == 1
    assert by_statement.pk is not None and by_statement.pk != by_orm.pk
    assert not by_statement._state.adding and by_statement.created_at is not None  # stamped, as save() does
    assert stored(by_statement) == {**stored(by_orm), "seq": 2, "created_at": by_statement.created_at}
    assert FeedEntry.objects.get(pk=by_statement.pk).result == by_statement.result
    # Several rows in one statement, each given its own id in the order given, as bulk_create does.
    several = [entry(seq) for seq in (3, 4, 5)]
    for row, label in zip(several, ("first", "second", "third"), strict=True):
        row.label = label
    with CaptureQueriesContext(connection) as queries:
        row_insert(*several)
    assert len(queries) == 1
    assert [FeedEntry.objects.get(pk=row.pk).label for row in several] == ["first", "second", "third"]
    for row in several:
        assert stored(row) == {
            **stored(by_orm),
            "seq": row.seq,
            "label": row.label,
            "created_at": row.created_at,
        }


def test_a_save_signal_s_receiver_still_hears_a_new_row(campaign, player):
    heard = []

    def receiver(sender, instance, created, **kwargs):
        heard.append((instance.seq, created))

    post_save.connect(receiver, sender=FeedEntry)
    try:
        row_insert(FeedEntry(campaign=campaign, seq=1, author=player, label="Hello", hash="h" * 64))
    finally:
        post_save.disconnect(receiver, sender=FeedEntry)
    assert heard == [(1, True)]
