"""Saved rolls (play/saved_rolls.py) and a sheet's recent rolls (sheets/recent.py).

A saved roll is a named dice-box line its owner rolls with one click from the table or a sheet; it is
read and rolled as the dice box reads and rolls a line. Secrets are checked on raw response bodies.
"""

import re

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.urls import reverse

from campaigns import services
from campaigns.models import FeedEntry
from play import saved_rolls
from play.models import SavedRoll
from rules import notation
from rules.dice import FixedFaces, Roller
from tests.conftest import HTMX, page_text, wire


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    cache.clear()  # the dice box's rate limit counts in the cache


@pytest.fixture
def hero(demo_character):
    """A Triad character played by ``player``, at a table with ``other_player`` too."""
    return demo_character("triad")


def save(character=None, *, owner=None, campaign=None, name="Strike", line="2d6+1", visibility="public"):
    return saved_rolls.saved_roll_create(
        campaign=campaign or character.campaign,
        owner=owner or character.owner,
        character=character,
        name=name,
        line=line,
        visibility=visibility,
    )


def key(n=0):
    return f"saved-key-{n:04d}"


# --- The model: the line, the name, the character ---------------------------------------------------


def test_a_line_the_dice_box_cannot_read_is_refused_with_its_message(hero):
    with pytest.raises(notation.NotationError) as parsed:
        notation.parse("2d6+x")
    with pytest.raises(ValidationError) as refused:
        save(hero, line="2d6+x")
    # The dice box's own words, naming the character at fault.
    assert refused.value.message_dict["line"] == [str(parsed.value)]
    assert "position 5" in refused.value.message_dict["line"][0]
    assert not SavedRoll.objects.exists()


def test_a_line_over_the_dice_box_limits_is_refused(hero):
    with pytest.raises(ValidationError) as refused:
        save(hero, line="2000d6")
    assert "line" in refused.value.message_dict


@pytest.mark.parametrize("line", ["1000d1000 vs 100000", "10k10 vs 150"])
def test_a_line_whose_exact_chance_is_out_of_reach_is_refused_when_saved(hero, line):
    """The dice box rolls no line it cannot give the exact chance of (notation.rolled_chance): such a
    line is refused when saved, with the dice box's own message, not only when it is rolled."""
    with pytest.raises(notation.NotationLimitError) as rolled:
        services.table_roll_create(campaign=hero.campaign, author=hero.owner, notation_text=line)
    with pytest.raises(ValidationError) as refused:
        save(hero, name="", line=line)
    # Beside the other problems of the same form, in one round.
    assert refused.value.message_dict["line"] == [str(rolled.value)]
    assert "Give the roll a name." in refused.value.message_dict["name"]
    assert not SavedRoll.objects.exists() and not FeedEntry.objects.exists()


def test_a_name_is_required_and_unique_per_scope_whatever_its_case(hero, player):
    with pytest.raises(ValidationError) as refused:
        save(hero, name="   ")
    assert "name" in refused.value.message_dict
    save(hero, name="Strike")
    with pytest.raises(ValidationError) as refused:
        save(hero, name="strike")
    assert "already have" in refused.value.message_dict["name"][0]
    # The same name for myself, or by someone else for this character, is another scope.
    save(owner=player, campaign=hero.campaign, name="Strike")
    save(hero, owner=hero.campaign.gm, name="Strike")
    assert SavedRoll.objects.count() == 3


def test_the_database_refuses_a_repeated_name_too(hero, player):
    SavedRoll.objects.create(campaign=hero.campaign, owner=player, name="Up", line="1d6")
    with pytest.raises(IntegrityError), transaction.atomic():
        SavedRoll.objects.create(campaign=hero.campaign, owner=player, name="UP", line="1d8")


def test_a_player_saves_only_for_their_own_characters_the_gm_for_any(hero, other_player):
    with pytest.raises(ValidationError) as refused:
        save(hero, owner=other_player)
    assert "your own characters" in refused.value.message_dict["character"][0]
    assert save(hero, owner=hero.campaign.gm).owner == hero.campaign.gm


def test_a_scope_keeps_a_bounded_number_of_rolls(hero):
    for n in range(SavedRoll.MAX_PER_SCOPE):
        save(hero, name=f"Roll {n}")
    with pytest.raises(ValidationError) as refused:
        save(hero, name="One more")
    assert "delete one" in refused.value.message_dict["name"][0]


# --- Rolling: a dice-box roll in the feed -----------------------------------------------------------


def test_a_saved_roll_lands_in_the_feed_as_a_dice_box_roll_of_its_character(
    hero, player, client_for, fixed_dice
):
    saved = save(hero, line="2d6+1 vs 8", visibility="gm")
    fixed_dice(4, 5)
    url = reverse("table_saved_roll", args=[hero.campaign_id, saved.pk])
    response = client_for(player).post(url, {"idempotency_key": key()}, **HTMX)
    assert response.status_code == 200
    entry = FeedEntry.objects.get()
    assert (entry.author, entry.character_id, entry.character_name) == (player, hero.pk, hero.name)
    assert entry.visibility == "gm"
    assert entry.label == "2d6+1 vs 8"
    assert entry.request == {"source": "dice_box", "notation": "2d6+1 vs 8"}
    assert entry.result["total"] == 10
    assert "Rolled “Strike”." in page_text(response)


def table_button(client, campaign, saved) -> tuple[str, dict]:
    """The table panel's button for ``saved``: its URL and the fields its form posts."""
    panel = client.get(reverse("table_saved_rolls", args=[campaign.pk]), **HTMX).content.decode()
    url = reverse("table_saved_roll", args=[campaign.pk, saved.pk])
    form = re.search(rf'<form [^>]*action="{re.escape(url)}".*?</form>', panel, re.S).group(0)
    hidden = r'<input type="hidden" name="(idempotency_key|panel_drawn)"[^>]*value="([^"]*)"'
    fields = dict(re.findall(hidden, form))
    return url, fields


def test_a_table_roll_from_a_panel_still_as_drawn_is_answered_with_its_key_and_message_alone(
    hero, player, client_for
):
    """As the dice box's answer: no panel drawn again, only the button's fresh key and the message, in
    place (HX-Reswap: none); the fresh key rolls again."""
    saved = save(hero)
    client = client_for(player)
    url, fields = table_button(client, hero.campaign, saved)
    assert set(fields) == {"idempotency_key", "panel_drawn"}
    response = client.post(url, fields, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200 and response["HX-Reswap"] == "none"
    assert "saved-roll-add" not in body and "saved-roll-list" not in body  # nothing else of the panel
    assert "Rolled “Strike”." in body and 'id="saved-rolls-status" hx-swap-oob="true"' in body
    new_key = rf'id="saved-key-{saved.pk}" value="([0-9a-f]{{32}})" hx-swap-oob="true"'
    fresh = re.search(new_key, body).group(1)
    assert fresh != fields["idempotency_key"]
    client.post(url, {**fields, "idempotency_key": fresh}, **HTMX)
    assert FeedEntry.objects.count() == 2


@pytest.mark.parametrize("change", ["another roll saved", "a table option", "a roll renamed"])
def test_a_table_roll_from_a_panel_drawn_before_a_change_gets_the_whole_panel(
    hero, player, client_for, change
):
    saved = save(hero)
    client = client_for(player)
    url, fields = table_button(client, hero.campaign, saved)
    if change == "another roll saved":
        save(hero, name="Parry", line="1d20")
    elif change == "a table option":
        campaign = hero.campaign
        campaign.options = {**campaign.options, "exploding": True}
        campaign.save(update_fields=["options"])
    else:
        SavedRoll.objects.filter(pk=saved.pk).update(name="Lunge")
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200 and "HX-Reswap" not in response
    assert "saved-roll-add" in response.content.decode()  # the panel, drawn afresh
    assert FeedEntry.objects.count() == 1  # rolled all the same


def test_a_repeated_key_rolls_once(hero, player, client_for):
    saved = save(hero)
    url = reverse("sheet_saved_roll", args=[hero.pk, saved.pk])
    client = client_for(player)
    assert client.post(url, {"idempotency_key": key()}, **HTMX).status_code == 200
    assert client.post(url, {"idempotency_key": key()}, **HTMX).status_code == 200
    assert FeedEntry.objects.count() == 1


def test_rolling_from_the_sheet_shows_the_result_where_sheet_rolls_show_theirs(
    hero, player, client_for, fixed_dice
):
    saved = save(hero, line="1d20+3")
    fixed_dice(17)
    response = client_for(player).post(
        reverse("sheet_saved_roll", args=[hero.pk, saved.pk]), {"idempotency_key": key()}, **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="roll-result"')  # the target htmx swaps
    assert "= 20" in page_text(response)
    # The panel comes back with fresh keys, and the recent rolls with this roll in them.
    assert 'id="saved-rolls" hx-swap-oob="true"' in body
    assert 'id="recent-rolls" class="recent-rolls mt-3" hx-swap-oob="true"' in body
    assert key() not in body


def test_a_blind_saved_roll_shows_its_roller_only_the_notice(hero, player, client_for, fixed_dice):
    saved = save(hero, line="1d1000", visibility="blind")
    fixed_dice(987)
    response = client_for(player).post(
        reverse("sheet_saved_roll", args=[hero.pk, saved.pk]), {"idempotency_key": key()}, **HTMX
    )
    assert response.status_code == 200
    assert FeedEntry.objects.get().result["total"] == 987
    assert "987" not in wire(response.content.decode())
    assert "A blind roll was made" in page_text(response)


def test_without_javascript_a_roll_redirects_with_a_message(hero, player, client_for):
    saved = save(hero)
    client = client_for(player)
    response = client.post(reverse("sheet_saved_roll", args=[hero.pk, saved.pk]), {"idempotency_key": key()})
    assert response.status_code == 302 and response.url == hero.get_absolute_url()
    assert "Rolled “Strike”." in page_text(client.get(response.url))
    response = client.post(
        reverse("table_saved_roll", args=[hero.campaign_id, saved.pk]), {"idempotency_key": key(1)}
    )
    assert response.status_code == 302 and response.url == reverse("table", args=[hero.campaign_id])
    assert FeedEntry.objects.count() == 2


def test_a_saved_roll_is_rate_limited_like_the_dice_box(hero, player, client_for, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (1, 60)}
    saved = save(hero)
    url = reverse("table_saved_roll", args=[hero.campaign_id, saved.pk])
    client = client_for(player)
    assert client.post(url, {"idempotency_key": key(1)}, **HTMX).status_code == 200
    limited = client.post(url, {"idempotency_key": key(2)}, **HTMX)
    assert limited.status_code == 429 and limited["Retry-After"]
    assert FeedEntry.objects.count() == 1


def test_a_roll_without_its_key_is_refused_on_the_panel(hero, player, client_for):
    saved = save(hero)
    url = reverse("table_saved_roll", args=[hero.campaign_id, saved.pk])
    response = client_for(player).post(url, {}, **HTMX)
    assert response.status_code == 422
    assert "reload the page" in page_text(response)
    assert not FeedEntry.objects.exists()


def test_a_character_no_longer_theirs_is_not_rolled_as(hero, player):
    saved = save(hero)
    hero.owner = hero.campaign.gm
    hero.save()
    saved.refresh_from_db()
    with pytest.raises(saved_rolls.SavedRollError, match="no longer roll as"):
        saved_rolls.roll_saved(saved_roll=saved, user=player, roller=Roller(FixedFaces([3])))
    assert not FeedEntry.objects.exists()


# --- Permissions: only the owner sees, rolls and deletes ----------------------------------------------


def roll_and_delete_urls(saved, hero):
    return [
        reverse("table_saved_roll", args=[hero.campaign_id, saved.pk]),
        reverse("table_saved_roll_delete", args=[hero.campaign_id, saved.pk]),
        reverse("sheet_saved_roll", args=[hero.pk, saved.pk]),
        reverse("sheet_saved_roll_delete", args=[hero.pk, saved.pk]),
    ]


@pytest.mark.parametrize(("who", "status"), [("outsider", 404), ("other_player", (404, 403)), ("gm", 404)])
def test_nobody_but_the_owner_rolls_or_deletes_a_saved_roll(hero, client_for, request, who, status):
    saved = save(hero)
    client = client_for(request.getfixturevalue(who))
    for url in roll_and_delete_urls(saved, hero):
        response = client.post(url, {"idempotency_key": key()}, **HTMX)
        assert response.status_code in (status if isinstance(status, tuple) else (status,)), url
        assert "Strike" not in response.content.decode()
    assert SavedRoll.objects.filter(pk=saved.pk).exists()
    assert not FeedEntry.objects.exists()


def test_an_outsider_gets_404_on_every_panel_and_form(hero, client_for, outsider):
    client = client_for(outsider)
    data = {"saved-name": "X", "saved-line": "1d6", "saved-visibility": "public"}
    urls = (
        reverse("table_saved_rolls", args=[hero.campaign_id]),
        reverse("sheet_saved_rolls", args=[hero.pk]),
    )
    for url in urls:
        assert client.get(url).status_code == 404
        assert client.post(url, data).status_code == 404
    assert not SavedRoll.objects.exists()


def test_another_player_cannot_save_on_a_sheet_not_theirs(hero, client_for, other_player):
    url = reverse("sheet_saved_rolls", args=[hero.pk])
    data = {"saved-name": "X", "saved-line": "1d6", "saved-visibility": "public"}
    assert client_for(other_player).post(url, data, **HTMX).status_code == 403
    assert not SavedRoll.objects.exists()


def test_the_owner_deletes_their_own(hero, player, client_for):
    saved = save(hero)
    response = client_for(player).post(reverse("sheet_saved_roll_delete", args=[hero.pk, saved.pk]), **HTMX)
    assert response.status_code == 200
    assert "Deleted “Strike”." in page_text(response)
    assert not SavedRoll.objects.exists()


def test_each_user_sees_only_their_own_saved_rolls_on_the_table_and_the_sheet(
    hero, player, other_player, gm, client_for
):
    save(hero, name="Players strike", line="3d6+2")
    save(owner=gm, campaign=hero.campaign, name="Secret ambush", line="7d10")
    save(hero, owner=gm, name="GM for hero", line="9d4")
    table = reverse("table", args=[hero.campaign_id])
    # wire(): "7d10" and "9d4" are hex, and may turn up inside a page's random keys by chance.
    mine = wire(client_for(player).get(table).content.decode())
    assert "Players strike" in mine and "3d6+2" in mine
    assert "Secret ambush" not in mine and "7d10" not in mine and "GM for hero" not in mine
    theirs = wire(client_for(gm).get(table).content.decode())
    assert "Secret ambush" in theirs and "GM for hero" in theirs and "Players strike" not in theirs
    sheet_for_gm = wire(client_for(gm).get(hero.get_absolute_url()).content.decode())
    assert "GM for hero" in sheet_for_gm and "Secret ambush" not in sheet_for_gm
    assert "Players strike" not in sheet_for_gm
    # Another player looking at the sheet gets no saved-rolls panel at all.
    other = wire(client_for(other_player).get(hero.get_absolute_url()).content.decode())
    assert 'id="saved-rolls"' not in other and "Players strike" not in other and "3d6+2" not in other


# --- The add form: clear messages on the fields, typed text kept ------------------------------------


def test_a_bad_line_comes_back_on_its_field_with_the_caret_and_the_typed_text(hero, player, client_for):
    data = {"saved-name": "Fireball", "saved-line": "8d6+q", "saved-visibility": "gm"}
    response = client_for(player).post(reverse("sheet_saved_rolls", args=[hero.pk]), data, **HTMX)
    body = response.content.decode()
    assert response.status_code == 422
    assert "at position 5" in page_text(response)
    assert 'value="Fireball"' in body and 'value="8d6+q"' in body
    assert '<option value="gm" selected>' in body
    assert "8d6+q\n    ^" in body  # the caret under the character at fault, as the dice box draws it
    assert not SavedRoll.objects.exists()


def test_a_line_out_of_reach_comes_back_on_its_field_as_the_dice_box_says_it(hero, player, client_for):
    line = "1000d1000 vs 100000"
    data = {"saved-name": "Storm", "saved-line": line, "saved-visibility": "public"}
    response = client_for(player).post(reverse("sheet_saved_rolls", args=[hero.pk]), data, **HTMX)
    body = response.content.decode()
    assert response.status_code == 422
    message = "An exact chance out of reach at position 11"
    assert re.search(rf'id="id_saved-line-error" role="alert">\s*{message}', body)
    assert f'value="{line}"' in body and 'value="Storm"' in body  # the typed text kept
    assert f"{line}\n{' ' * 10}^" in body  # the caret under "vs", as the dice box draws it
    assert not SavedRoll.objects.exists()


def test_without_javascript_a_refused_line_is_a_400_page_keeping_the_text(hero, player, client_for):
    data = {"saved-name": "", "saved-line": "2d6", "saved-visibility": "public", "saved-character": ""}
    response = client_for(player).post(reverse("table_saved_rolls", args=[hero.campaign_id]), data)
    assert response.status_code == 400
    assert "This field is required." in page_text(response)
    assert 'value="2d6"' in response.content.decode()


def test_the_table_form_saves_for_myself_or_my_own_character_only(hero, player, other_player, client_for):
    url = reverse("table_saved_rolls", args=[hero.campaign_id])
    base = {"saved-name": "Mine", "saved-line": "1d6", "saved-visibility": "public"}
    response = client_for(player).post(url, {**base, "saved-character": str(hero.pk)}, **HTMX)
    assert response.status_code == 200 and "Saved “Mine”." in page_text(response)
    assert SavedRoll.objects.get().character == hero
    response = client_for(other_player).post(url, {**base, "saved-character": str(hero.pk)}, **HTMX)
    assert response.status_code == 422  # not one of their choices
    response = client_for(player).post(url, {**base, "saved-name": "Me", "saved-character": ""})
    assert response.status_code == 302
    assert SavedRoll.objects.get(name="Me").character is None


# --- A sheet's recent rolls ---------------------------------------------------------------------------


def dice_box_roll(hero, author, line, visibility, face):
    entry, _ = services.table_roll_create(
        campaign=hero.campaign, author=author, notation_text=line, visibility=visibility,
        character=hero, roller=Roller(FixedFaces([face])),
    )
    return entry


def test_recent_rolls_show_each_viewer_only_what_the_feed_shows_them(
    hero, player, other_player, gm, client_for
):
    dice_box_roll(hero, player, "1d701", "public", 601)
    dice_box_roll(hero, player, "1d702", "gm", 602)
    dice_box_roll(hero, player, "1d703", "blind", 603)
    dice_box_roll(hero, player, "1d704", "self", 604)
    dice_box_roll(hero, gm, "1d705", "gm", 605)
    # wire(): "1d705" is hex, and may turn up inside a page's random keys by chance.
    body = {who: wire(client_for(user).get(hero.get_absolute_url()).content.decode())
            for who, user in (("player", player), ("other", other_player), ("gm", gm))}
    # Everyone at the table sees the public roll; totals are checked as drawn ("= 601").
    assert all("1d701" in page and "= 601" in page for page in body.values())
    # Another player sees nothing else, not even that the others happened.
    hidden = ("1d702", "1d703", "1d704", "1d705", "= 602", "= 603", "= 604", "= 605")
    assert not any(word in body["other"] for word in hidden)
    assert "blind" not in page_text_of(body["other"])
    # The roller: their GM-only and only-me rolls, their blind roll only as made, not the GM's.
    assert "1d702" in body["player"] and "= 602" in body["player"] and "= 604" in body["player"]
    assert "1d703" in body["player"] and "= 603" not in body["player"]
    assert "603" not in page_text_of(body["player"])
    assert "1d705" not in body["player"] and "= 605" not in body["player"]
    # The GM: everything but the player's only-me roll.
    assert all(total in body["gm"] for total in ("= 602", "= 603", "= 605"))
    assert "1d704" not in body["gm"] and "= 604" not in body["gm"]


def page_text_of(html: str) -> str:
    class Response:
        content = html.encode()

    return page_text(Response)


def test_recent_rolls_are_this_characters_and_the_newest_ten(hero, player, settings):
    settings.TABLE_RATE_LIMITS = {"roll": (100, 10)}
    other_hero = hero.campaign.characters.exclude(pk=hero.pk).first()
    dice_box_roll(other_hero, other_hero.owner, "1d999", "public", 5)
    for n in range(12):
        dice_box_roll(hero, player, f"1d{100 + n}", "public", 1)
    from sheets.recent import recent_rolls

    shown = recent_rolls(player, hero)
    assert [e.label for e in shown] == [f"1d{100 + n}" for n in range(11, 1, -1)]


def test_the_sheet_page_with_both_panels_stays_in_its_query_budget(
    hero, player, client_for, django_assert_max_num_queries
):
    from tests.test_query_budgets import SHEET_PAGE_BUDGET

    save(hero)
    save(hero, name="Other", line="1d8")
    for n in range(3):
        dice_box_roll(hero, player, f"1d{10 + n}", "public", 1)
    client = client_for(player)
    with django_assert_max_num_queries(SHEET_PAGE_BUDGET):
        response = client.get(hero.get_absolute_url())
    assert 'id="saved-rolls"' in response.content.decode() and "1d12" in response.content.decode()
