"""The markup static/js/notices.js reads to decide what is a notice for the viewer: the viewer's id on
<body>, a whisper's author and recipients (the same for every viewer of the entry), a roll request's
own key, the table page's badge and its two opt-in toggles (never checked by the server)."""

import re

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.entry_html import render_entry
from play import requests as roll_requests
from play.models import RollRequestTarget
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache

    cache.clear()


def say(campaign, author, text):
    entry, _ = services.chat_line_create(
        campaign=campaign, author=author, text=text, idempotency_key=None, roller=Roller(FixedFaces([3]))
    )
    return entry


def test_a_whisper_names_its_author_and_recipients_and_nothing_else_is_a_notice(
    campaign, gm, player, other_player
):
    whisper = say(campaign, gm, "/w player, other the idol is fake")
    html = render_entry(whisper, "full")
    recipients = " ".join(str(user.pk) for user in whisper.whisper_to)
    assert f'data-notice="whisper" data-notice-key="entry:{whisper.cursor}"' in html
    assert f'data-author="{gm.pk}"' in html and f'data-whisper-to="{recipients}"' in html
    assert sorted(recipients.split()) == sorted([str(player.pk), str(other_player.pk)])

    public = say(campaign, player, "the door opens")
    assert "data-notice" not in render_entry(public, "full")


def test_the_table_page_carries_the_viewer_the_badge_and_unchecked_toggles(campaign, player, client_for):
    body = client_for(player).get(reverse("table", args=[campaign.pk])).content.decode()
    assert re.search(rf'<body [^>]*data-user="{player.pk}"', body)
    assert 'id="feed-unread"' in body and "js/notices.js" in body
    for toggle in ("notice-sound", "notice-notify"):
        tag = re.search(rf'<input [^>]*id="{toggle}"[^>]*>', body).group(0)
        assert "checked" not in tag


def test_a_page_for_nobody_names_no_viewer(client):
    assert "data-user" not in client.get(reverse("login")).content.decode()


def test_a_roll_request_prompt_is_keyed_by_its_target(make_campaign, gm, player, other_player, client_for):
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    mine = campaign.characters.get(owner=player)
    roll_requests.roll_request_create(
        campaign=campaign,
        gm=gm,
        label="Spot the ambush",
        characters=[mine],
        options={"difficulty": "14", "advantages": "0", "disadvantages": "0"},
        roll_key="ability:mind",
    )
    target = RollRequestTarget.objects.get(character=mine)
    prompt = client_for(player).get(reverse("sheet_requests", args=[mine.pk])).content.decode()
    assert prompt.count('data-notice="request"') == 1
    assert f'data-notice-key="request:{target.pk}" data-author="{gm.pk}"' in prompt
