"""Shared computers and proxies: private pages are never stored, an expired session in an htmx panel
loads the login page whole, rate limits answer 429 with Retry-After, and deployment checks."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from tests.conftest import HTMX

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache

    cache.clear()


def key(n: int = 0) -> str:
    return f"private-key-{n:04d}"


# -- Cache-Control --------------------------------------------------------------------------------


def test_pages_for_a_signed_in_user_are_never_stored(campaign, client_for, player):
    client = client_for(player)
    for url in (reverse("dashboard"), reverse("table", args=[campaign.pk])):
        cache_control = client.get(url).headers["Cache-Control"]
        assert "no-store" in cache_control and "private" in cache_control, url
    fragment = client.get(reverse("table_feed", args=[campaign.pk]), **HTMX)
    assert "no-store" in fragment.headers["Cache-Control"]


def test_anonymous_pages_keep_their_ordinary_caching(client, db):
    response = client.get(reverse("landing"))
    assert response.status_code == 200
    assert "no-store" not in response.headers.get("Cache-Control", "")


# -- an anonymous htmx request --------------------------------------------------------------------


def test_an_anonymous_htmx_request_is_sent_to_the_login_page_whole(client, campaign):
    page = f"http://testserver{reverse('table', args=[campaign.pk])}"
    response = client.post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "d6", "visibility": "public", "idempotency_key": key()},
        headers={"HX-Request": "true", "HX-Current-URL": page},
    )
    assert response.status_code == 204 and response.content == b""  # no login form into the dice box
    login = reverse("login")
    assert response.headers["HX-Redirect"] == f"{login}?next={reverse('table', args=[campaign.pk])}"
    assert FeedEntry.objects.count() == 0


def test_an_anonymous_htmx_get_without_the_page_comes_back_to_that_url(client, campaign):
    url = reverse("table_feed", args=[campaign.pk])
    response = client.get(url, headers={"HX-Request": "true"})
    assert response.status_code == 204
    assert response.headers["HX-Redirect"] == f"{reverse('login')}?next={url}"


def test_an_offsite_current_url_is_not_trusted_as_next(client, campaign):
    response = client.post(
        reverse("table_chat", args=[campaign.pk]),
        {"text": "hi", "idempotency_key": key()},
        headers={"HX-Request": "true", "HX-Current-URL": "https://evil.example/phish"},
    )
    assert response.headers["HX-Redirect"] == reverse("login")


def test_a_plain_anonymous_request_still_gets_the_usual_redirect(client, campaign):
    url = reverse("table", args=[campaign.pk])
    response = client.get(url)
    assert response.status_code == 302 and response.url == f"{reverse('login')}?next={url}"
    assert "HX-Redirect" not in response.headers


# -- rate limits: 429 and Retry-After on every path ------------------------------------------------


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_the_dice_box_rate_limit_answers_429_with_retry_after(campaign, client_for, player, settings, htmx):
    settings.TABLE_RATE_LIMITS = {"roll": (1, 60)}
    client = client_for(player)
    url = reverse("table_roll", args=[campaign.pk])
    extra = HTMX if htmx else {}
    client.post(url, {"notation": "d6", "visibility": "public", "idempotency_key": key(1)}, **extra)
    response = client.post(
        url, {"notation": "d6", "visibility": "public", "idempotency_key": key(2)}, **extra
    )
    assert response.status_code == 429
    assert 1 <= int(response.headers["Retry-After"]) <= 61
    body = response.content.decode()
    assert "Slow down: at most 1 rolls every 60 seconds" in body
    assert f"Try again in {response.headers['Retry-After']} s." in body
    assert ('id="dice-box"' in body) and (("<html" in body) is not htmx)
    assert FeedEntry.objects.count() == 1


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_the_chat_rate_limit_answers_429_with_retry_after(campaign, client_for, player, settings, htmx):
    settings.TABLE_RATE_LIMITS = {"chat": (1, 30)}
    client = client_for(player)
    url = reverse("table_chat", args=[campaign.pk])
    extra = HTMX if htmx else {}
    client.post(url, {"text": "one", "idempotency_key": key(1)}, **extra)
    response = client.post(url, {"text": "two", "idempotency_key": key(2)}, **extra)
    assert response.status_code == 429
    assert 1 <= int(response.headers["Retry-After"]) <= 31
    assert "at most 1 messages every 30 seconds" in response.content.decode()
    assert FeedEntry.objects.count() == 1


def test_htmx_swaps_a_429_so_the_message_shows(client_for, player):
    # Without a responseHandling rule htmx drops a 429's body; base.html must swap it like a 422.
    page = client_for(player).get(reverse("dashboard")).content.decode()
    assert '{"code": "409|422|429", "swap": true, "error": false}' in page


def test_other_dice_box_errors_keep_their_status(campaign, client_for, player):
    response = client_for(player).post(
        reverse("table_roll", args=[campaign.pk]),
        {"notation": "2d6+x", "visibility": "public", "idempotency_key": key()},
        **HTMX,
    )
    assert response.status_code == 200 and "Retry-After" not in response.headers


# -- deployment -------------------------------------------------------------------------------------


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    skip = {
        "DATABASE_URL",
        "REDIS_URL",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "WEB_CONCURRENCY",
        "CHANNEL_LAYER_PREFIX",
    }
    full_env = {k: v for k, v in os.environ.items() if k not in skip}
    full_env.update(DJANGO_SETTINGS_MODULE="config.settings", **env)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=120
    )


PRODUCTION = {
    "DJANGO_DEBUG": "0",
    "DJANGO_SECRET_KEY": "x" * 20 + "a-real-looking-secret-key-0123456789abcdef",
    "DJANGO_ALLOWED_HOSTS": "table.example.org",
}


def check_output(**env) -> str:
    result = run_python(
        "from django.core.management import execute_from_command_line; "
        "execute_from_command_line(['manage.py', 'check'])",
        **{**PRODUCTION, **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout + result.stderr


@pytest.mark.long
def test_several_workers_on_the_in_memory_layer_are_warned_about():
    assert "campaigns.W001" in check_output(WEB_CONCURRENCY="4")
    assert "campaigns.W001" not in check_output(WEB_CONCURRENCY="1")
    assert "campaigns.W001" not in check_output(WEB_CONCURRENCY="4", REDIS_URL="redis://127.0.0.1:6379/0")
    assert "campaigns.W001" not in check_output(WEB_CONCURRENCY="4", DJANGO_DEBUG="1")


def test_an_asgi_worker_warns_at_start_up_too():
    result = run_python("import config.asgi", **PRODUCTION, WEB_CONCURRENCY="3")
    assert result.returncode == 0, result.stderr
    assert "campaigns.W001" in result.stderr


def layer_prefix(**env) -> str:
    result = run_python(
        "import config.settings as s; print(s.CHANNEL_LAYERS['default']['CONFIG']['prefix'])",
        REDIS_URL="redis://127.0.0.1:6379/0",
        **env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_each_deployment_gets_a_channel_prefix_of_its_own(tmp_path):
    one = layer_prefix(SQLITE_PATH=str(tmp_path / "one.sqlite3"))
    assert one == layer_prefix(SQLITE_PATH=str(tmp_path / "one.sqlite3"))  # its workers agree
    assert one != layer_prefix(SQLITE_PATH=str(tmp_path / "two.sqlite3"))
    assert one != layer_prefix(DATABASE_URL="postgres://u@db-host:5432/tabletop")
    assert layer_prefix(CHANNEL_LAYER_PREFIX="table-eu") == "table-eu"
