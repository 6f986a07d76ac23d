"""A feed entry asks for its character's portrait only where there is one the whole table may see: on the
page, in the catch-up and in the broadcast, with no query per entry."""

import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import realtime, selectors
from campaigns.entry_html import render_entry
from campaigns.services import feed_entry_create
from rules.dice import Outcome
from sheets.demo import load_demo_characters
from sheets.registry import system_for
from sheets.services import character_create
from tests.conftest import HTMX
from tests.sheets.test_portraits import image_bytes

A_LINE = {"dice": [], "outcome": Outcome.NONE.value, "outcome_label": "", "total": None, "changes": []}
PORTRAIT_URL = re.compile(r"/characters/(\d+)/portrait/")


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def table(make_campaign, gm, player, other_player, client_for):
    """A Triad table: the player's character has a portrait, the other player's has none, and the GM's NPC
    has one (which is the GM's alone, as its sheet is)."""
    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    system = system_for(campaign)
    built = system.builder_form(campaign=campaign, data=system.demo_form_data()[0], trusted=True)
    assert built.is_valid(), built.errors
    npc = character_create(
        campaign=campaign, owner=gm, cleaned_data={**built.cleaned_data, "name": "Shade"}, is_npc=True
    )
    for user, character in ((player, campaign.characters.get(owner=player)), (gm, npc)):
        picture = SimpleUploadedFile("me.png", image_bytes(), content_type="image/png")
        client_for(user).post(reverse("portrait", args=[character.pk]), {"portrait": picture})
    return campaign


def characters(campaign, player, other_player):
    """(with a portrait, without one, an NPC with one), fresh from the database."""
    return (
        campaign.characters.get(owner=player),
        campaign.characters.get(owner=other_player),
        campaign.characters.get(is_npc=True),
    )


def asked_for(html: str) -> set[int]:
    """The characters whose portrait this HTML makes the browser load."""
    return {int(pk) for pk in PORTRAIT_URL.findall(html)}


def line_about(campaign, character):
    entry, _ = feed_entry_create(
        campaign=campaign, author=character.owner, character=character, label="looks around", result=A_LINE
    )
    return entry


def test_the_page_and_the_catch_up_ask_only_for_the_portrait_there_is(
    table, gm, player, other_player, client_for
):
    mine, theirs, npc = characters(table, player, other_player)
    for character in (mine, theirs, npc):
        line_about(table, character)
    image = f'src="/characters/{mine.pk}/portrait/?v={mine.portrait}"'
    for user in (gm, player, other_player):
        page = client_for(user).get(reverse("table", args=[table.pk])).content.decode()
        feed = page[page.index('class="feed') :]
        assert asked_for(feed) == {mine.pk} and image in feed, user
        # Every entry keeps its initial's badge, the portrait lying over it.
        for character in (mine, theirs, npc):
            assert f'<span aria-hidden="true">{character.name[0].upper()}</span>' in feed
        caught_up, _, complete = selectors.feed_since(user, table, after_seq=0, limit=10)
        frames = "".join(realtime.entry_frame(entry, entry.variant) for entry in caught_up)
        assert complete and asked_for(frames) == {mine.pk}, user


def test_the_broadcast_takes_it_from_the_character_in_hand(
    table, player, other_player, django_capture_on_commit_callbacks
):
    mine, theirs, npc = characters(table, player, other_player)
    for character, shown in ((mine, {mine.pk}), (theirs, set()), (npc, set())):
        with realtime.collected_broadcasts() as sent, django_capture_on_commit_callbacks(execute=True):
            line_about(table, character)
        ((_, event),) = sent
        assert asked_for(event["frames"][selectors.FULL]) == shown


def test_a_dice_box_roll_made_as_a_character_shows_its_portrait(
    table, gm, player, other_player, client_for, django_capture_on_commit_callbacks
):
    mine, theirs, npc = characters(table, player, other_player)
    url = reverse("table_roll", args=[table.pk])
    for user, character, shown in (
        (player, mine, {mine.pk}),
        (other_player, theirs, set()),
        (gm, npc, set()),
    ):
        data = {"notation": "1d6", "visibility": "public", "character": character.pk}
        with realtime.collected_broadcasts() as sent, django_capture_on_commit_callbacks(execute=True):
            response = client_for(user).post(url, {**data, "idempotency_key": uuid.uuid4().hex}, **HTMX)
        assert response.status_code == 200
        ((_, event),) = sent
        assert asked_for(event["frames"][selectors.FULL]) == shown, character.name


def test_a_removed_portrait_is_asked_for_no_more(table, player, other_player, client_for):
    mine, *_ = characters(table, player, other_player)
    entry = line_about(table, mine)
    client_for(player).post(reverse("portrait_remove", args=[mine.pk]))
    entries, _ = selectors.feed_for_viewer(other_player, table)
    assert [e.pk for e in entries] == [entry.pk] and asked_for(render_entry(entries[0], "full")) == set()


def test_portraits_cost_the_feed_no_query_per_entry(table, player, other_player, client_for):
    mine, theirs, _ = characters(table, player, other_player)
    client = client_for(other_player)
    url = reverse("table", args=[table.pk])

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    line_about(table, mine)
    line_about(table, theirs)
    few = queries()
    for _ in range(10):
        line_about(table, mine)
        line_about(table, theirs)
    assert queries() == few
