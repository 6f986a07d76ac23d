"""A row's compare-and-set (campaigns/counters.py ``row_update_if``): the statement written from the
model's meta does what the ORM's ``update()`` does, in one statement, in both modes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from campaigns.counters import row_update_if
from campaigns.models import Campaign


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
