"""The one limiter (campaigns/limits.py): every path that rolls, works out odds, imports or writes
answers 429 with Retry-After past its user's budget, and another user is unaffected."""

import uuid

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from campaigns import limits
from campaigns.models import FeedEntry
from sheets.registry import system_for
from tests.conftest import HTMX


def url_patterns(patterns=None, prefix=""):
    """(name, route) of every named URL of the app, the admin's left out (it is staff's own)."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace != "admin":
                yield from url_patterns(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield pattern.name, pattern


def limited_paths():
    for name, pattern in url_patterns():
        for method in ("get", "post"):
            action = limits.action_for(name, method.upper())
            if action is not None:
                yield pytest.param(name, pattern, method, action, id=f"{method} {name}")


def test_every_url_the_limiter_names_exists():
    names = {name for name, _ in url_patterns()}
    assert set(limits.VIEW_ACTIONS) <= names


def test_every_post_is_counted_except_those_counted_in_their_service():
    in_service = {name for name, action in limits.VIEW_ACTIONS.items() if action is None}
    for name, _ in url_patterns():
        assert (limits.action_for(name, "POST") is None) == (name in in_service), name


@pytest.mark.parametrize(("name", "pattern", "method", "action"), list(limited_paths()))
def test_each_limited_path_answers_429_past_its_budget_and_not_to_another_user(
    name, pattern, method, action, player, other_player, client_for, settings
):
    # The limiter counts before the view runs, so a request the view refuses (an id of nothing, 404)
    # counts too: a flood of junk costs its sender as much as a flood of real clicks.
    settings.TABLE_RATE_LIMITS = {action: (2, 60)}
    url = reverse(name, kwargs=dict.fromkeys(pattern.pattern.converters, 1))
    mine, theirs = client_for(player), client_for(other_player)
    answers = [getattr(mine, method)(url, **HTMX).status_code for _ in range(2)]
    assert 429 not in answers
    limited = getattr(mine, method)(url, **HTMX)
    assert limited.status_code == 429
    assert 1 <= int(limited["Retry-After"]) <= 60
    assert limited["Content-Type"].startswith("text/plain")
    assert limited["HX-Reswap"] == "none"  # the page stays as it is; app.js shows the message
    assert f"Slow down: at most 2 {limits.NOUNS.get(action, 'changes')} every 60 seconds" in limited.text
    assert getattr(theirs, method)(url, **HTMX).status_code != 429


@pytest.fixture
def hero(make_campaign, player, other_player):
    from sheets.demo import load_demo_characters

    campaign = make_campaign("triad", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign.characters.get(owner=player)


def roll(client, character, **extra):
    return client.post(
        reverse("sheet_roll", args=[character.pk, "ability:body"]),
        {"visibility": "public", "idempotency_key": uuid.uuid4().hex},
        **extra,
    )


def test_a_flood_of_sheet_rolls_stops_at_the_default_budget(hero, player, client_for):
    allowed, seconds = limits.DEFAULT_RATE_LIMITS["roll_button"]
    client = client_for(player)
    answers = [roll(client, hero, **HTMX).status_code for _ in range(allowed + 5)]
    assert answers == [200] * allowed + [429] * 5
    assert FeedEntry.objects.count() == allowed


def test_a_plain_post_over_budget_gets_a_page(hero, player, client_for, settings):
    settings.TABLE_RATE_LIMITS = {"roll_button": (1, 30)}
    client = client_for(player)
    assert roll(client, hero).status_code == 200  # the sheet page, with the roll's result
    page = roll(client, hero)
    assert page.status_code == 429 and 1 <= int(page["Retry-After"]) <= 30
    body = page.content.decode()
    assert "<html" in body and "at most 1 rolls every 30 seconds" in body
    assert FeedEntry.objects.count() == 1


def test_the_dice_box_counts_once_per_roll(hero, player, client_for, settings):
    # Its view is left to its service (a retry of a saved roll is answered, not refused), so the
    # middleware does not count it a second time against the same budget.
    settings.TABLE_RATE_LIMITS = {"roll": (2, 60), "write": (2, 60)}
    client = client_for(player)
    url = reverse("table_roll", args=[hero.campaign_id])
    line = {"notation": "d6", "visibility": "public"}
    answers = [client.post(url, {**line, "idempotency_key": uuid.uuid4().hex}, **HTMX) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert 'id="dice-box"' in answers[2].content.decode()  # the box again, its message inside it


def test_odds_from_the_sheet_buttons_are_limited(hero, player, client_for, settings):
    settings.TABLE_RATE_LIMITS = {"odds": (1, 60)}
    fields = system_for(hero.campaign).options_form(character=hero).fields
    options = {name: field.initial for name, field in fields.items() if field.initial is not None}
    client = client_for(player)
    url = reverse("sheet_buttons", args=[hero.pk])
    assert client.get(url, options, **HTMX).status_code == 200
    assert client.get(url, **HTMX).status_code == 429


def test_the_window_opens_at_the_first_action_not_on_the_clock(player, settings, monkeypatch):
    # A window on the clock's multiples let a burst straddle two windows (CI once saw a fourth chat
    # line of three allowed pass at a minute's turn); the window opens at the user's first action.
    settings.TABLE_RATE_LIMITS = {"roll": (2, 60)}
    now = [119.5]  # the cache reads the same clock for its expiry
    monkeypatch.setattr(limits.time, "time", lambda: now[0])

    def roll_at(moment):
        now[0] = moment
        limits.rate_limit_check(user=player, action="roll")

    roll_at(119.5)  # the window opens, until 179.5
    roll_at(120.5)  # a clock-aligned window would have turned here
    with pytest.raises(limits.RateLimited) as third:
        roll_at(121.0)
    assert third.value.retry_after == 59  # 179.5 - 121.0, rounded up
    assert "Try again in 59 s." in str(third.value)
    with pytest.raises(limits.RateLimited) as late:
        roll_at(178.0)
    assert late.value.retry_after == 2
    roll_at(179.6)  # the window has closed: a new one opens


def test_logging_out_is_never_refused(player, client_for, settings):
    settings.TABLE_RATE_LIMITS = {"write": (0, 60)}
    assert client_for(player).post(reverse("logout")).status_code == 302
