"""The feed's hash chain: every entry is chained to the one before it, and tampering is named."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from campaigns import chain, services
from campaigns.entry_html import render_entry
from campaigns.models import FeedEntry
from campaigns.realtime import entry_event
from campaigns.selectors import FULL, NOTICE
from rules.dice import FixedFaces, Roller
from tests.conftest import HTMX, page_text


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache  # the rate limit counts in the cache, which outlives a test

    cache.clear()


def roll(campaign, author, line="1d20+5", visibility="public", faces=(12,)):
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=author,
        notation_text=line,
        visibility=visibility,
        roller=Roller(FixedFaces(faces)),
    )
    return entry


@pytest.fixture
def feed(campaign, gm, player, other_player):
    """Five entries of every kind and visibility: seqs 1 to 5."""
    roll(campaign, player, "1d20+5 vs 15", faces=(12,))
    services.chat_line_create(campaign=campaign, author=other_player, text="Nice roll")
    roll(campaign, player, "4d6kh3", visibility="self", faces=(6, 5, 4, 1))
    roll(campaign, gm, "2d6", visibility="blind", faces=(3, 4))
    roll(campaign, other_player, "1d8+3[fire] # burn", faces=(7,))
    return list(FeedEntry.objects.filter(campaign=campaign).order_by("seq"))


def test_each_entry_is_chained_to_the_one_before(campaign, feed):
    assert [entry.seq for entry in feed] == [1, 2, 3, 4, 5]
    assert feed[0].prev_hash == ""
    for before, after in zip(feed, feed[1:], strict=False):
        assert len(after.hash) == 64 and after.prev_hash == before.hash
    assert len({entry.hash for entry in feed}) == 5
    assert chain.verify(campaign) is None


def test_a_hash_covers_the_faces_the_outcome_the_author_and_the_line(campaign, feed):
    entry = feed[0]
    fields = {name: getattr(entry, name) for name in chain.COVERED}
    assert chain.entry_hash(fields, entry.prev_hash) == entry.hash
    for name, value in [
        ("result", {**entry.result, "total": 20}),
        ("author_id", entry.author_id + 100),
        ("label", "1d20+6 vs 15"),
        ("visibility", "gm"),
        ("character_name", "Someone"),
        ("seq", 9),
    ]:
        assert chain.entry_hash({**fields, name: value}, entry.prev_hash) != entry.hash, name
    assert chain.entry_hash(fields, "0" * 64) != entry.hash


def test_changing_a_die_face_in_the_database_names_that_entry(campaign, feed):
    tampered = feed[2]
    result = json.loads(json.dumps(tampered.result))
    result["terms"][0]["dice"][3]["faces"] = [6]  # the dropped 1 becomes a 6
    FeedEntry.objects.filter(pk=tampered.pk).update(result=result)
    assert chain.verify(campaign) == 3
    assert str(chain.first_break(campaign)) == "entry #3 was changed"


def test_changing_an_outcome_or_the_author_is_found(campaign, feed, gm):
    FeedEntry.objects.filter(pk=feed[4].pk).update(author=gm)
    assert chain.verify(campaign) == 5
    FeedEntry.objects.filter(pk=feed[1].pk).update(label="Bad roll")
    assert chain.verify(campaign) == 2  # the first break wins


def test_recomputing_the_hash_of_a_changed_entry_still_breaks_the_next(campaign, feed):
    forged = FeedEntry.objects.get(pk=feed[0].pk)
    forged.result = {**forged.result, "total": 25, "outcome": "success"}
    fields = {name: getattr(forged, name) for name in chain.COVERED}
    FeedEntry.objects.filter(pk=forged.pk).update(result=forged.result, hash=chain.entry_hash(fields, ""))
    assert chain.verify(campaign) == 2
    assert chain.first_break(campaign).reason == "out of place"


def test_deleting_an_entry_is_found_in_the_middle_and_at_the_end(campaign, feed):
    FeedEntry.objects.filter(pk=feed[4].pk).delete()
    assert str(chain.first_break(campaign)) == "entry #5 is missing"
    FeedEntry.objects.filter(pk=feed[1].pk).delete()
    assert str(chain.first_break(campaign)) == "entry #2 is missing"


def test_the_management_command_reports_each_campaign(campaign, feed, make_campaign):
    other = make_campaign("l5r", name="Quiet table")
    out = StringIO()
    call_command("verify_feed", stdout=out)
    assert f"campaign {campaign.pk} (Test table): chain intact" in out.getvalue()
    assert f"campaign {other.pk} (Quiet table): chain intact" in out.getvalue()

    FeedEntry.objects.filter(pk=feed[3].pk).update(chance="1/1")
    out = StringIO()
    with pytest.raises(CommandError, match="1 campaign feed"):
        call_command("verify_feed", str(campaign.pk), stdout=out)
    assert f"campaign {campaign.pk} (Test table): entry #4 was changed" in out.getvalue()
    with pytest.raises(CommandError, match="No campaign with id 999"):
        call_command("verify_feed", "999")


def test_the_gm_checks_the_chain_from_the_campaign_page(campaign, feed, client_for, gm):
    gm_client = client_for(gm)
    page = gm_client.get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    url = reverse("feed_check", args=[campaign.pk])
    assert f'hx-get="{url}"' in page and "Check the feed" in page

    response = gm_client.get(url, **HTMX)
    assert "Chain intact." in page_text(response) and feed[-1].hash in response.content.decode()

    FeedEntry.objects.filter(pk=feed[0].pk).update(summary="1d20 [20] + 5 = 25")
    text = page_text(gm_client.get(url, **HTMX))
    assert "Chain broken." in text and "by player (1d20+5 vs 15) was changed in the database" in text
    # Without htmx the check is a page of its own.
    assert "Chain broken." in page_text(gm_client.get(url))


def test_the_gm_is_not_told_which_private_roll_of_a_player_was_changed(campaign, feed, client_for, gm):
    FeedEntry.objects.filter(pk=feed[2].pk).update(result={**feed[2].result, "total": 18})
    text = page_text(client_for(gm).get(reverse("feed_check", args=[campaign.pk]), **HTMX))
    assert "An entry you may not see" in text and "4d6kh3" not in text and "#3" not in text


def test_the_check_is_the_gms_alone(campaign, client_for, player, outsider):
    url = reverse("feed_check", args=[campaign.pk])
    assert client_for(player).get(url).status_code == 403
    assert client_for(outsider).get(url).status_code == 404
    assert (
        "Feed check"
        not in client_for(player).get(reverse("campaign_detail", args=[campaign.pk])).content.decode()
    )


def test_no_hash_reaches_a_player_in_pages_or_frames(campaign, feed, client_for, player, other_player, gm):
    hashes = {entry.hash for entry in feed} | {entry.prev_hash for entry in feed if entry.prev_hash}
    for user in (player, other_player, gm):
        client = client_for(user)
        shown = client.get(reverse("table", args=[campaign.pk])).content.decode()
        shown += client.get(reverse("table_feed", args=[campaign.pk])).content.decode()
        assert not any(digest in shown for digest in hashes), user
    for entry in feed:
        frames = entry_event(entry)["frames"]
        sent = frames[FULL] + frames.get(NOTICE, "") + render_entry(entry, FULL)
        assert not any(digest in sent for digest in hashes)
        assert "hash" not in json.loads(frames[FULL])


def test_the_chain_holds_on_a_database_without_returning(campaign, player, monkeypatch):
    from django.db import connection

    if connection.vendor != "sqlite":
        pytest.skip("the fallback for SQLite before 3.35; PostgreSQL always has RETURNING")
    monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    first, second = roll(campaign, player), roll(campaign, player, "2d6", faces=(1, 2))
    assert (first.seq, second.seq) == (1, 2) and second.prev_hash == first.hash
    assert chain.verify(campaign) is None


def test_entries_made_before_the_chain_are_chained_by_the_migration(campaign, player):
    from importlib import import_module

    from django.apps import apps

    roll(campaign, player)
    roll(campaign, player, "2d6", faces=(1, 2))
    FeedEntry.objects.update(hash="", prev_hash="")
    assert chain.verify(campaign) == 1
    import_module("campaigns.migrations.0003_feedentry_hash_chain").chain_existing_entries(apps, None)
    assert chain.verify(campaign) is None


def test_an_entry_made_from_an_old_copy_of_the_campaign_still_follows_the_newest(campaign, player):
    # Two requests load the campaign; the second rolls after the first has moved the head. Its
    # conditional update finds the row moved and takes the locking path (chain.link).
    from campaigns.models import Campaign

    first_copy, old_copy = Campaign.objects.get(pk=campaign.pk), Campaign.objects.get(pk=campaign.pk)
    first, _ = services.table_roll_create(
        campaign=first_copy, author=player, notation_text="1d20", roller=Roller(FixedFaces((4,)))
    )
    second, _ = services.table_roll_create(
        campaign=old_copy, author=player, notation_text="2d6", roller=Roller(FixedFaces((1, 2)))
    )
    assert (first.seq, second.seq) == (1, 2) and second.prev_hash == first.hash
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (2, second.hash)
    assert (old_copy.last_seq, old_copy.last_hash) == (2, second.hash)  # its next roll takes one statement
    assert chain.verify(campaign) is None


def move_lines(*labels, visibility="public") -> list[dict]:
    """The lines of one encounter move, as play.encounters._log hands them over."""
    result = {"dice": [4, 2], "total": 8, "outcome": "success"}
    return [{"label": f"Fight: {label}", "result": result, "visibility": visibility} for label in labels]


@pytest.mark.parametrize("returning", [True, False])
@pytest.mark.parametrize("head", ["current", "moved since"])
def test_the_lines_of_one_move_are_chained_and_saved_together(
    campaign, gm, player, head, returning, monkeypatch
):
    """services.feed_lines_create: one statement moves the head past every line of a move and one
    inserts them; from a copy of the campaign the head moved away from (the locking path, with or
    without RETURNING), the lines follow the newest entry all the same."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from campaigns.models import Campaign

    if not returning:
        if connection.vendor != "sqlite":
            pytest.skip("the fallback for SQLite before 3.35; PostgreSQL always has RETURNING")
        monkeypatch.setattr(connection.features, "can_return_columns_from_insert", False)
    copy = Campaign.objects.get(pk=campaign.pk)
    first = roll(campaign, player)
    if head == "current":
        copy = Campaign.objects.get(pk=campaign.pk)
    with CaptureQueriesContext(connection) as queries:
        lines = services.feed_lines_create(
            campaign=copy,
            author=gm,
            lines=[*move_lines("Bandit attacks", "damage"), *move_lines("aside", visibility="gm")],
        )
    assert [(line.seq, line.visibility) for line in lines] == [(2, "public"), (3, "public"), (4, "gm")]
    assert lines[0].prev_hash == first.hash
    assert [line.prev_hash for line in lines[1:]] == [line.hash for line in lines[:-1]]
    stored = FeedEntry.objects.filter(campaign=campaign).order_by("seq")
    assert [(entry.seq, entry.hash) for entry in stored] == [
        (1, first.hash),
        *((line.seq, line.hash) for line in lines),
    ]
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (4, lines[-1].hash)
    assert (copy.last_seq, copy.last_hash) == (4, lines[-1].hash)
    assert chain.verify(campaign) is None
    inserts = [
        q for q in queries.captured_queries if q["sql"].startswith('INSERT INTO "campaigns_feedentry"')
    ]
    head_moves = [q for q in queries.captured_queries if q["sql"].startswith('UPDATE "campaigns_campaign"')]
    assert len(inserts) == 1
    assert len(head_moves) == (
        1 if head == "current" else 3
    )  # the refused compare-and-set, the bump, the hash


def test_a_move_line_no_one_may_see_is_refused_before_anything_is_written(campaign, gm, player):
    first = roll(campaign, player)
    with pytest.raises(services.CampaignError, match="Choose who may see"):
        services.feed_lines_create(
            campaign=campaign,
            author=gm,
            lines=[*move_lines("hit"), *move_lines("hush", visibility="whisper")],
        )
    assert list(FeedEntry.objects.filter(campaign=campaign)) == [first]
    assert chain.verify(campaign) is None


def test_a_refused_entry_leaves_the_head_where_it_was(campaign, player):
    # A repeated key rolls back the savepoint with the head's move; the copy of the campaign that
    # made the move is then ahead of the row, and the next entry must still follow the saved one.
    from campaigns.models import Campaign

    first, _ = services.table_roll_create(
        campaign=campaign, author=player, notation_text="1d6", idempotency_key="k"
    )
    again, created = services.table_roll_create(
        campaign=campaign, author=player, notation_text="1d6", idempotency_key="k"
    )
    assert again == first and not created
    assert Campaign.objects.values_list("last_seq", "last_hash").get(pk=campaign.pk) == (1, first.hash)
    second = roll(campaign, player, "2d6", faces=(1, 2))
    assert second.seq == 2 and second.prev_hash == first.hash and chain.verify(campaign) is None


def test_the_migration_gives_each_campaign_its_newest_hash(campaign, player, make_campaign):
    from importlib import import_module

    from django.apps import apps

    from campaigns.models import Campaign

    roll(campaign, player)
    newest = roll(campaign, player, "2d6", faces=(1, 2))
    empty = make_campaign("l5r", name="Quiet table")
    Campaign.objects.update(last_hash="stale")
    import_module("campaigns.migrations.0004_campaign_last_hash").fill_last_hash(apps, None)
    assert Campaign.objects.get(pk=campaign.pk).last_hash == newest.hash
    assert Campaign.objects.get(pk=empty.pk).last_hash == ""


@pytest.mark.django_db(transaction=True)
def test_rolls_racing_from_several_connections_chain_in_order(campaign, player, settings):
    """Each thread has its own connection and its own copy of the campaign, so most of its rolls (and
    its moves' pairs of lines) find the head moved by another and queue on the row's lock (the
    PostgreSQL path; SQLite serialises)."""
    import threading

    from django.db import connection, connections, transaction

    from campaigns.models import Campaign

    if connection.vendor == "sqlite":
        pytest.skip("SQLite lets one writer in at a time; the race is PostgreSQL's")
    settings.TABLE_RATE_LIMITS = {"roll": (100, 10)}
    errors = []
    start = threading.Barrier(4)

    def rolls(moves: bool):
        # Half the threads roll one entry at a time, half make a move's two lines at once.
        try:
            copy = Campaign.objects.get(pk=campaign.pk)
            start.wait()
            for _ in range(5 if moves else 10):
                if moves:
                    with transaction.atomic():
                        services.feed_lines_create(
                            campaign=copy, author=player, lines=move_lines("hit", "damage")
                        )
                    continue
                services.table_roll_create(
                    campaign=copy, author=player, notation_text="1d6", roller=Roller(FixedFaces((3,)))
                )
        except Exception as error:  # noqa: BLE001 (reported by the main thread)
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rolls, args=(n % 2 == 1,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    seqs = FeedEntry.objects.filter(campaign=campaign).order_by("seq").values_list("seq", flat=True)
    assert list(seqs) == list(range(1, 41))
    assert chain.verify(campaign) is None
