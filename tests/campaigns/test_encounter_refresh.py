"""The encounter page's live refresh is one request: the controls, with the action log out of band.

Every click at the table makes each GM page showing the encounter refresh it; two panels fetched apart
cost two renders of the same context (docs/performance.md, the full table's requests per click)."""

import re

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse

from campaigns import realtime
from play import encounters as services
from play.encounter_panel import seat_views
from tests.campaigns.test_consumers import open_socket
from tests.conftest import frames_before_barrier

from .test_encounter_fivebyfive import BANDIT, fight, start_with_mara_first  # noqa: F401 - the fixture

LIVE_PANEL = re.compile(r'data-live-panel="encounter"')


def test_the_page_has_one_encounter_panel_to_refresh_and_the_log_is_not_one(fight, gm, client_for):  # noqa: F811
    encounter, *_ = fight
    page = client_for(gm).get(encounter.get_absolute_url()).content.decode()
    assert len(LIVE_PANEL.findall(page)) == 1
    assert 'id="encounter-controls" data-live-panel="encounter"' in page
    log = page[page.index('id="encounter-log"') - 60 :]
    assert "data-live-panel" not in log.split(">", 1)[0] and "hx-swap-oob" not in log.split(">", 1)[0]


def test_the_refresh_answers_the_controls_and_the_log_out_of_band(fight, gm, client_for):  # noqa: F811
    encounter, *_ = fight
    start_with_mara_first(encounter, gm)
    body = client_for(gm).get(encounter.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    assert body.lstrip().startswith('<div class="row g-4 mt-1" id="encounter-controls"')
    assert 'id="encounter-log" hx-swap-oob="true"' in body
    # The log carries what the start wrote (the initiative line), not an empty shell.
    log = body[body.index('id="encounter-log"') :]
    assert "Nothing rolled yet" not in log and 'class="feed-entry' in log
    assert "<html" not in body and "<body" not in body


# ----- the table's encounter panel: a player's page fetches it only when what players see changed -----


def shows_attribute(page: str) -> str | None:
    tag = re.search(r'<section[^>]*id="encounter-panel"[^>]*>', page)[0]
    found = re.search(r'data-shows="([0-9a-f]+)"', tag)
    return found and found[1]


def test_each_seats_panel_carries_the_digest_of_its_own_view(fight, gm, player, other_player, client_for):  # noqa: F811
    encounter, *_ = fight
    table = reverse("table", args=[encounter.campaign_id])
    refresh = reverse("encounter_panel", args=[encounter.campaign_id])
    players_view = realtime.shows(seat_views(encounter.campaign_id)[0])
    for user in (player, other_player):
        assert shows_attribute(client_for(user).get(table).content.decode()) == players_view
        assert shows_attribute(client_for(user).get(refresh).content.decode()) == players_view
    # The GM's, drawn with the page's CSRF tokens, agrees with the frame's, drawn without a request.
    gms_view = realtime.shows(seat_views(encounter.campaign_id)[1])
    assert shows_attribute(client_for(gm).get(table).content.decode()) == gms_view
    assert shows_attribute(client_for(gm).get(refresh).content.decode()) == gms_view
    assert gms_view != players_view  # the bandit's numbers are the GM's


def test_the_digest_follows_what_players_see_and_never_the_npcs_hidden_numbers(fight, gm):  # noqa: F811
    """Five by Five shows players an NPC's state in words: a hit that leaves the words as they were leaves
    the digest too, so it tells nothing of the numbers behind them, which stay the GM's."""
    encounter, larry, mara, bandit = fight
    start_with_mara_first(encounter, gm)

    def digest_at(hp):
        bandit.refresh_from_db()
        bandit.stats = {**bandit.stats, "hp": hp}
        bandit.save(update_fields=["stats"])
        return realtime.shows(seat_views(encounter.campaign_id)[0])

    most = bandit.stats["hp_max"]
    assert digest_at(most - 1) == digest_at(most - 2)  # "hurt" either way
    assert digest_at(most) != digest_at(most - 1)  # unhurt, then hurt


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_encounter_frame_carries_each_seat_its_own_views_digest(
    make_campaign, gm, player, other_player, settings
):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    campaign = await sync_to_async(make_campaign)("fivebyfive", players=[player, other_player])
    ambush = await sync_to_async(services.encounter_create)(campaign=campaign, name="Salt Road")
    players_socket, _ = await open_socket(player, campaign, feed=False)
    gms_socket, _ = await open_socket(gm, campaign, feed=False)
    await sync_to_async(services.combatant_add_npc)(encounter=ambush, name="Bandit", cleaned_data=BANDIT)
    players_heard, gm_heard = await frames_before_barrier(campaign.pk, players_socket, gms_socket)
    await players_socket.disconnect()
    await gms_socket.disconnect()
    players_view = await sync_to_async(lambda: realtime.shows(seat_views(campaign.pk)[0]))()
    gms_view = await sync_to_async(lambda: realtime.shows(seat_views(campaign.pk)[1]))()
    assert gms_view != players_view  # the bandit's numbers are the GM's
    encounter_frames = [
        [frame for frame in heard if frame["panel"] == "encounter"] for heard in (players_heard, gm_heard)
    ]
    assert encounter_frames == [
        [{"type": "refresh", "panel": "encounter", "shows": players_view}],
        [{"type": "refresh", "panel": "encounter", "shows": gms_view}],
    ]
    assert gms_view not in repr(players_heard)  # on the wire: no frame to a player holds the GM's digest
