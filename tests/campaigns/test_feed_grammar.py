"""The feed draws what the dice box's grammar writes: labels, comments, rerolls, successes, repeats."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import strip_tags

from campaigns import services
from campaigns.entry_html import render_entry
from campaigns.models import FeedEntry
from campaigns.selectors import FULL
from rules.dice import FixedFaces, Roller


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache  # the rate limit counts in the cache, which outlives a test

    cache.clear()


def rolled(campaign, author, line, *faces) -> str:
    """Roll ``line`` with these faces; the entry's HTML as the table page and the live frames draw it."""
    entry, _ = services.table_roll_create(
        campaign=campaign, author=author, notation_text=line, roller=Roller(FixedFaces(faces))
    )
    html = render_entry(FeedEntry.objects.get(pk=entry.pk), FULL)
    assert html in client_page(campaign, author)  # the page shows the very same markup
    return html


def client_page(campaign, user) -> str:
    client = Client()
    client.force_login(user)
    return client.get(reverse("table", args=[campaign.pk])).content.decode()


def text(html: str) -> str:
    return re.sub(r"\s+", " ", strip_tags(html)).strip()


def test_a_label_follows_its_term_and_the_comment_shows(campaign, player):
    html = rolled(campaign, player, "1d8+3[fire] # hits the troll", 5)
    assert 'class="feed-tag"' in html
    shown = text(html)
    assert "3 [fire]" in shown and "= 8" in shown
    assert 'class="feed-comment"' in html and "hits the troll" in shown
    # The comment shows once, on its own line: the label is the dice alone.
    assert shown.count("hits the troll") == 1
    assert FeedEntry.objects.get(campaign=campaign).label == "1d8+3[fire]"


def test_rerolled_faces_are_shown_struck_before_the_face_that_stands(campaign, player):
    html = rolled(campaign, player, "2d6ro<3", 5, 2, 3)
    assert '<s class="die-rerolled">2</s>3' in html
    assert "rerolled from 2" in html  # the title and the screen reader text say it in words
    assert "= 8" in text(html)


def test_a_success_count_marks_each_die_and_names_the_count(campaign, player):
    html = rolled(campaign, player, "4d10>=7f1", 9, 1, 7, 4)
    assert html.count("die-success") == 2 and html.count("die-failure") == 1
    shown = text(html)
    assert "1 success " in shown + " " and "= 1" in shown and "Success" in shown


def test_a_zero_success_count_reads_as_plural(campaign, player):
    html = rolled(campaign, player, "2d10>=7", 3, 4)
    assert "0 successes" in text(html) and "Failure" in text(html)


def test_a_repeat_shows_one_roll_per_line_with_its_own_total_and_no_sum(campaign, player):
    html = rolled(campaign, player, "3x 4d6kh3 # stats", 6, 5, 4, 1, 3, 3, 3, 3, 2, 2, 6, 6)
    rolls = re.findall(r'<li class="feed-repeat-roll">(.*?)</li>', html, re.S)
    assert len(rolls) == 3
    assert [re.search(r"= (\d+)", text(each)).group(1) for each in rolls] == ["15", "9", "14"]
    # Each roll is its own line: no "+" joins one roll to the next, and the set has no total.
    assert all(not text(each).startswith("+") for each in rolls)
    assert "feed-op" not in html
    assert html.count("die-dropped") == 3
    assert "stats" in text(html) and html.count("feed-comment") == 1


def test_a_repeated_five_by_five_roll_keeps_each_outcome(campaign, player):
    html = rolled(campaign, player, "2x 5x5 vs 6", 2, 3, 4, 4)
    rolls = re.findall(r'<li class="feed-repeat-roll">(.*?)</li>', html, re.S)
    assert len(rolls) == 2
    assert "Success" in text(rolls[0]) and "Failure" in text(rolls[1])
