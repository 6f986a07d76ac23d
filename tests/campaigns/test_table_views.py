"""The table page, the dice box and chat over HTTP, the feed pages, and how entries are drawn."""

import re

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.models import Campaign, FeedEntry, Membership
from campaigns.rendering import chance_percent, entry_display
from rules.dice import FixedFaces, Roller
from tests.conftest import HTMX


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # The rate limit counts in the cache, which outlives a test; start every test with none used.
    from django.core.cache import cache

    cache.clear()


def key(n: int = 0) -> str:
    return f"test-key-{n:04d}"


def roll(campaign, author, notation="1d1000", visibility="public", faces=(987,)):
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=author,
        notation_text=notation,
        visibility=visibility,
        roller=Roller(FixedFaces(faces)),
    )
    return entry


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("player", 200), ("gm", 200)])
def test_table_page_is_for_the_table_only(campaign, client_for, gm, player, outsider, who, status):
    user = {"outsider": outsider, "player": player, "gm": gm}[who]
    response = client_for(user).get(reverse("table", args=[campaign.pk]))
    assert response.status_code == status


def test_campaign_page_links_to_the_table(campaign, client_for, player):
    response = client_for(player).get(reverse("campaign_detail", args=[campaign.pk]))
    assert reverse("table", args=[campaign.pk]) in response.content.decode()


def test_dice_box_rolls_on_the_server_and_records_every_face(campaign, client_for, player):
    response = client_for(player).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "4d6kh3 vs 12", "visibility": "gm", "idempotency_key": key()},
        **HTMX,
    )
    assert response.status_code == 200
    entry = FeedEntry.objects.get()
    assert (entry.author, entry.visibility, entry.label) == (player, "gm", "4d6kh3 vs 12")
    dice = entry.result["terms"][0]["dice"]
    assert len(dice) == 4 and sum(not die["kept"] for die in dice) == 1
    assert entry.chance == "799/1296"
    body = response.content.decode()
    # The dice box comes back empty with a new key for the next roll, keeping the visibility.
    assert 'id="dice-box"' in body and key() not in body
    assert re.search(r'<option value="gm" selected>', body)


BOX_DRAWN = re.compile(r'name="box_drawn" id="dice-box-drawn" value="([0-9a-f]+)"')
KEY_OOB = re.compile(r'name="idempotency_key" id="dice-idempotency" value="(\w+)" hx-swap-oob="true">')
EMPTY_LINE = re.compile(r'class="form-control" type="text" name="notation" id="id_notation"\s+value=""')


def box_roll(client, campaign, drawn, notation="2d6"):
    data = {"notation": notation, "visibility": "gm", "idempotency_key": key(), "box_drawn": drawn}
    return client.post(reverse("table_roll", args=[campaign.pk]), data, **HTMX)


def test_a_box_that_offers_what_a_fresh_one_would_gets_only_a_key_and_an_empty_line(
    campaign, client_for, player
):
    client = client_for(player)
    drawn = BOX_DRAWN.search(client.get(reverse("table", args=[campaign.pk])).content.decode()).group(1)
    response = box_roll(client, campaign, drawn)
    body = response.content.decode()
    assert response.status_code == 200 and response["HX-Reswap"] == "none"
    assert FeedEntry.objects.get().visibility == "gm"
    # A fresh key, the line emptied, its odds reset, each in place; none of the box's choices.
    fresh = KEY_OOB.search(body)
    assert fresh and fresh.group(1) != key()
    assert EMPTY_LINE.search(body)
    assert 'id="dice-odds" aria-live="polite" hx-swap-oob="true"' in body
    assert 'id="dice-box"' not in body and "dice-visibility" not in body and "whisper_to" not in body


def test_a_box_drawn_before_someone_sat_down_is_drawn_whole_again(
    make_campaign, client_for, player, other_player
):
    campaign = make_campaign("triad", players=[player])
    client = client_for(player)
    drawn = BOX_DRAWN.search(client.get(reverse("table", args=[campaign.pk])).content.decode()).group(1)
    Membership.objects.create(campaign=campaign, user=other_player)
    body = box_roll(client, campaign, drawn).content.decode()
    # The whole box, so the one who just sat down can be whispered to without a reload.
    assert 'id="dice-box"' in body and f'value="{other_player.pk}"' in body
    assert BOX_DRAWN.search(body).group(1) != drawn


@pytest.mark.parametrize("drawn", ["", "not-what-the-page-got"])
def test_a_box_that_says_nothing_or_something_else_is_drawn_whole(campaign, client_for, player, drawn):
    body = box_roll(client_for(player), campaign, drawn).content.decode()
    assert 'id="dice-box"' in body and FeedEntry.objects.count() == 1


def test_a_box_showing_a_mistake_sends_nothing_to_compare_so_its_next_roll_clears_it(
    campaign, client_for, player
):
    body = box_roll(client_for(player), campaign, "whatever", notation="2d6+").content.decode()
    assert 'id="notation-error"' in body and not BOX_DRAWN.search(body)


def test_bad_notation_shows_the_message_and_position_and_saves_nothing(campaign, client_for, player):
    before = Campaign.objects.get(pk=campaign.pk).last_seq
    response = client_for(player).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "2d6+x", "visibility": "public", "idempotency_key": key()},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "position 5" in body
    assert 'id="notation-error"' in body and "    ^" in body  # the caret under the "x"
    assert 'value="2d6+x"' in body and key() in body  # what was typed stays, and so does the key
    assert FeedEntry.objects.count() == 0
    assert Campaign.objects.get(pk=campaign.pk).last_seq == before


def test_bad_notation_without_htmx_is_a_400_page(campaign, client_for, player):
    response = client_for(player).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "7k", "visibility": "public", "idempotency_key": key()},
    )
    assert response.status_code == 400
    assert "position" in response.content.decode()
    assert FeedEntry.objects.count() == 0


def test_a_repeated_idempotency_key_rolls_once(campaign, client_for, player):
    client = client_for(player)
    for _ in range(3):
        response = client.post(
            reverse("table_roll", args=[campaign.pk]),
            {"notation": "3d6", "visibility": "public", "idempotency_key": key(7)},
        )
        assert response.status_code == 302
    assert FeedEntry.objects.count() == 1


def test_same_key_from_two_players_makes_two_entries(campaign, client_for, player, other_player):
    for user in (player, other_player):
        client_for(user).post(
            reverse("table_roll", args=[campaign.pk]),
            {"notation": "3d6", "visibility": "public", "idempotency_key": key(7)},
        )
    assert FeedEntry.objects.count() == 2


def test_outsider_cannot_roll(campaign, client_for, outsider):
    response = client_for(outsider).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "3d6", "visibility": "public", "idempotency_key": key()},
    )
    assert response.status_code == 404
    assert FeedEntry.objects.count() == 0


def test_dice_box_is_rate_limited_with_a_clear_message(campaign, client_for, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (1, 60)}
    client = client_for(player)
    url = reverse("table_roll", args=[campaign.pk])
    client.post(url, {"notation": "d6", "visibility": "public", "idempotency_key": key(1)})
    response = client.post(url, {"notation": "d6", "visibility": "public", "idempotency_key": key(2)})
    assert response.status_code == 429
    assert "Slow down: at most 1 rolls every 60 seconds" in response.content.decode()
    assert FeedEntry.objects.count() == 1


def test_chat_lines_are_short_and_land_in_the_feed(campaign, client_for, player):
    client = client_for(player)
    url = reverse("table_chat", args=[campaign.pk])
    response = client.post(url, {"text": "Ready when you are", "idempotency_key": key()}, **HTMX)
    assert response.status_code == 200
    response = client.post(url, {"text": "x" * 201, "idempotency_key": key(1)}, **HTMX)
    assert "at most 200 characters" in response.content.decode()
    entry = FeedEntry.objects.get()
    assert (entry.kind, entry.label) == ("chat", "Ready when you are")
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    assert "Ready when you are" in page


# -- the feed as each viewer may see it -------------------------------------------------------------


@pytest.fixture
def secret_rolls(campaign, gm, player):
    return {
        "public": roll(campaign, player, "1d1000", "public", (111,)),
        "gm": roll(campaign, player, "1d1000", "gm", (222,)),
        "blind": roll(campaign, player, "1d1000", "blind", (333,)),
        "self": roll(campaign, player, "1d1000", "self", (444,)),
        "gm_self": roll(campaign, gm, "1d1000", "self", (555,)),
    }


SEEN = {
    # viewer: (faces shown, blind notice shown)
    "gm": ({"111", "222", "333", "555"}, False),
    "player": ({"111", "222", "444"}, True),
    "other": ({"111"}, False),
}


@pytest.mark.parametrize("viewer", ["gm", "player", "other"])
@pytest.mark.parametrize("page", ["table", "history", "partial"])
def test_pages_show_each_viewer_only_what_they_may_see(
    campaign, client_for, gm, player, other_player, secret_rolls, viewer, page
):
    user = {"gm": gm, "player": player, "other": other_player}[viewer]
    client = client_for(user)
    if page == "table":
        response = client.get(reverse("table", args=[campaign.pk]))
    else:
        url = reverse("table_feed", args=[campaign.pk]) + "?before=999"
        response = client.get(url, **(HTMX if page == "partial" else {}))
    body = response.content.decode()
    shown_faces = {face for face in ("111", "222", "333", "444", "555") if f">{face}<" in body}
    faces, notice = SEEN[viewer]
    assert shown_faces == faces
    assert ("A blind roll was made" in body) is notice


def test_older_entries_load_on_scroll(campaign, client_for, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (100, 10)}
    for _ in range(35):
        roll(campaign, player, "d6", faces=(6,))
    client = client_for(player)
    page = client.get(reverse("table", args=[campaign.pk])).content.decode()
    assert page.count('class="feed-entry') == 30
    newest = FeedEntry.objects.get(campaign=campaign, seq=35)
    assert f'data-cursor="{newest.cursor}"' in page and "data-last-seq" not in page
    more = re.search(r'hx-get="([^"]+)" hx-trigger="revealed"', page)
    assert more
    older = client.get(more.group(1).replace("&amp;", "&"), **HTMX).content.decode()
    assert older.count('class="feed-entry') == 5
    fifth, sixth = (FeedEntry.objects.get(campaign=campaign, seq=seq).cursor for seq in (5, 6))
    assert f'id="entry-{fifth}"' in older and f'id="entry-{sixth}"' not in older
    assert "revealed" not in older  # nothing older still


def test_gm_sees_the_party_panel_and_players_do_not(campaign, client_for, gm, player, other_player):
    from sheets.demo import load_demo_characters

    load_demo_characters(campaign, players=[player, other_player])  # Van Helsing: Body 8, Mind 15, Spirit 13
    gm_page = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    player_page = client_for(player).get(reverse("table", args=[campaign.pk])).content.decode()
    assert 'id="party-panel"' in gm_page and "Abraham Van Helsing" in gm_page
    assert "Body 8/8 · Mind 15/15 · Spirit 13/13" in gm_page
    assert 'id="party-panel"' not in player_page


def test_dice_box_rolls_as_own_character_only(campaign, client_for, player, other_player):
    from sheets.models import Character

    mine = Character.objects.create(campaign=campaign, owner=player, name="Kira Valen")
    theirs = Character.objects.create(campaign=campaign, owner=other_player, name="Bram")
    client = client_for(player)
    url = reverse("table_roll", args=[campaign.pk])
    client.post(
        url, {"notation": "d6", "visibility": "public", "character": mine.pk, "idempotency_key": key(1)}
    )
    response = client.post(
        url, {"notation": "d6", "visibility": "public", "character": theirs.pk, "idempotency_key": key(2)}
    )
    assert response.status_code == 400
    assert list(FeedEntry.objects.values_list("character_name", flat=True)) == ["Kira Valen"]


# -- drawing entries --------------------------------------------------------------------------------


def test_sheet_roll_shape_is_drawn_with_kept_exploded_and_trump_dice():
    display = entry_display(
        {
            "dice": [
                {"face": 6, "kept": True, "exploded": True, "trump": False},
                {"faces": [10, 4], "kept": True},
                {"face": 1, "kept": False},
                {"face": 5, "trump": True},
            ],
            "outcome": "success",
            "total": 25,
        }
    )
    dice = display["groups"][0]["dice"]
    assert [die["text"] for die in dice] == ["6", "10+4", "1", "5"]
    assert [die["kept"] for die in dice] == [True, True, False, True]
    assert [die["exploded"] for die in dice] == [True, True, False, False]
    assert dice[3]["trump"] and display["total"] == 25 and display["tone"] == "success"


def test_unknown_result_shape_falls_back_to_the_summary(campaign, gm, client_for):
    # The service refuses such a result now (tests/campaigns/test_outcomes.py); a row stored before
    # it did must still render.
    FeedEntry.objects.create(
        campaign=campaign, seq=1, author=gm, label="Odd", result={"weird": 1}, summary="a summary line"
    )
    page = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    assert "a summary line" in page


def test_five_by_five_trump_and_exploding_dice_are_marked(campaign, gm, client_for):
    roll(campaign, gm, "5x5 vs 6", faces=(6, 6))
    roll(campaign, gm, "2d6!", faces=(6, 2, 3))
    page = client_for(gm).get(reverse("table", args=[campaign.pk])).content.decode()
    assert "die-trump" in page and "Trump!" in page
    assert "die-exploded" in page and ">6+2<" in page


@pytest.mark.parametrize(
    ("chance", "shown"),
    [("1/2", "50.0%"), ("19/36", "52.8%"), ("1/1000", "0.1%"), ("999/1000", "99.9%"), ("1/10**9", ""),
     ("1/100000", "<0.1%"), ("99999/100000", ">99.9%"), ("0/1", "0.0%"), ("1/1", "100.0%"), ("", "")],
)
def test_chance_is_shown_as_a_percentage(chance, shown):
    assert chance_percent(chance) == shown


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("player", 403), ("gm", 200)])
def test_party_panel_alone_is_for_the_gm(campaign, client_for, gm, player, outsider, who, status):
    user = {"outsider": outsider, "player": player, "gm": gm}[who]
    response = client_for(user).get(reverse("table_party", args=[campaign.pk]), **HTMX)
    assert response.status_code == status
    if status == 200:
        assert 'id="party-panel"' in response.content.decode()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("1000d1000 vs 100000", "An exact chance out of reach at position 11"),
        ("10k10 vs 150", "A TN past 134"),
    ],
)
def test_a_line_whose_exact_chance_is_out_of_reach_is_refused_on_the_field(
    campaign, client_for, player, line, message
):
    response = client_for(player).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": line, "visibility": "public", "idempotency_key": key()},
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200 and message in body and 'id="notation-error"' in body
    assert FeedEntry.objects.count() == 0


def test_the_character_rolled_as_stays_chosen_in_the_fresh_dice_box(demo_character, player, client_for):
    character = demo_character("triad")
    response = client_for(player).post(
        reverse("table_roll", args=[character.campaign_id]),
        {
            "notation": "2d6",
            "visibility": "public",
            "character": character.pk,
            "idempotency_key": "as-char-1",
        },
        HTTP_HX_REQUEST="true",
    )
    assert FeedEntry.objects.get().character_id == character.pk
    assert f'<option dir="auto" value="{character.pk}" selected>' in response.content.decode()



@pytest.mark.parametrize(("house_rule", "total"), [(False, 24), (True, 26)])
def test_the_ten_dice_house_rule_reaches_the_dice_box(make_campaign, player, house_rule, total):
    """L5R's Ten Dice Rule folds 11k3 into 10k3 and the odd die is lost; with the GM's house rule
    (``l5r_odd_die_bonus``, docs/rules.md) it is +2, in the dice box as on the sheet."""
    campaign = make_campaign("l5r", players=[player])
    campaign.options = {"l5r_odd_die_bonus": house_rule}
    campaign.save()
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=player,
        notation_text="11k3",
        roller=Roller(FixedFaces((1, 2, 3, 4, 5, 6, 7, 8, 9, 2))),
    )
    assert entry.result["total"] == total  # 7 + 8 + 9 kept, and + 2 under the house rule
