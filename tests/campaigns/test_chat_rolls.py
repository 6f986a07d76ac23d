"""Rolls inside a chat line: ``[[1d20+5]]`` rolls on the server, is stored as a roll, shows in the line."""

import pytest
from django.urls import reverse

from campaigns import chain, services
from campaigns.entry_html import render_entry
from campaigns.models import FeedEntry
from campaigns.selectors import FULL
from rules.dice import FixedFaces, Roller
from tests.conftest import HTMX


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache  # the rate limit counts in the cache, which outlives a test

    cache.clear()


def say(campaign, author, text, *faces, key=None):
    return services.chat_line_create(
        campaign=campaign, author=author, text=text, idempotency_key=key, roller=Roller(FixedFaces(faces))
    )


def test_each_inline_roll_is_stored_as_a_roll_and_the_line_shows_its_total(campaign, player):
    line, created = say(campaign, player, "I swing [[1d20+5]] and hit for [[2d6+3 # slash]]", 14, 4, 5)
    assert created
    rolls = list(FeedEntry.objects.filter(campaign=campaign, kind="roll").order_by("seq"))
    assert [(roll.label, roll.result["total"]) for roll in rolls] == [("1d20+5", 19), ("2d6+3", 12)]
    assert rolls[1].result["comment"] == "slash"  # shown on the roll's own line, not in its label
    assert rolls[0].result["terms"][0]["dice"][0]["faces"] == [14]
    assert all(roll.visibility == "public" and roll.request["source"] == "chat" for roll in rolls)
    assert (
        line.kind == "chat"
        and line.seq == 3
        and line.label == "I swing [[1d20+5]] and hit for [[2d6+3 # slash]]"
    )
    html = render_entry(FeedEntry.objects.get(pk=line.pk), FULL)
    assert f'href="#entry-{rolls[0].cursor}"' in html and f'href="#entry-{rolls[1].cursor}"' in html
    assert ">19</a>" in html and ">12</a>" in html and "I swing " in html and "[[" not in html
    assert 'title="1d20 [14] + 5 = 19"' in html
    assert chain.verify(campaign) is None
    # The line's stored request holds the rolls' seqs for the server; the page never shows them.
    assert '"seq"' not in html


def test_a_bad_inline_roll_saves_nothing_and_says_where(campaign, player, client_for):
    with pytest.raises(services.CampaignError, match=r"In \[\[2d6\+\]\]: .*position 5"):
        say(campaign, player, "ouch [[1d4]] and [[2d6+]]", 3)
    assert not FeedEntry.objects.exists()
    response = client_for(player).post(
        reverse("table_chat", args=[campaign.pk]), {"text": "x [[d0]]", "idempotency_key": "k" * 12}, **HTMX
    )
    assert "In [[d0]]" in response.content.decode() and not FeedEntry.objects.exists()


def test_too_many_inline_rolls_are_refused(campaign, player):
    with pytest.raises(services.CampaignError, match="At most 3"):
        say(campaign, player, "[[1d4]] [[1d4]] [[1d4]] [[1d4]]")
    assert not FeedEntry.objects.exists()


def test_a_retried_line_rolls_once(campaign, player):
    first, _ = say(campaign, player, "[[1d20]]", 7, key="chat-key-0001")
    again, created = say(campaign, player, "[[1d20]]", 20, key="chat-key-0001")
    assert not created and again.pk == first.pk
    assert FeedEntry.objects.filter(kind="roll").count() == 1


def test_a_line_without_rolls_is_plain_text_even_with_brackets(campaign, player):
    line, _ = say(campaign, player, "a [single] bracket [[ and no end")
    assert not FeedEntry.objects.filter(kind="roll").exists()
    assert "a [single] bracket [[ and no end" in render_entry(line, FULL)


def test_inline_rolls_through_the_chat_box(campaign, player, client_for):
    client = client_for(player)
    client.post(
        reverse("table_chat", args=[campaign.pk]), {"text": "init [[1d20]]", "idempotency_key": "k" * 12}
    )
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    roll = FeedEntry.objects.get(kind="roll")
    assert f'<a class="inline-roll outcome-plain" href="#entry-{roll.cursor}"' in page
    assert f">{roll.result['total']}</a>" in page
