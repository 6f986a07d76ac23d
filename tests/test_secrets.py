"""Secrets stay secret on the default run: the installation's own key, plain error pages, debug for this
machine only, and after-roll keys no one can forge or replay."""

import stat
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import ImproperlyConfigured, ValidationError
from django.core.signing import Signer
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import path, reverse

from campaigns.models import FeedEntry
from config.settings import installation_secret
from sheets.systems.l5r import after_roll

from .conftest import HTMX


@login_not_required
def broken(request):
    raise RuntimeError("the-exception-text")


@login_not_required
def fine(request):
    return HttpResponse("fine")


urlpatterns = [path("broken/", broken), path("fine/", fine)]


def test_the_key_is_made_once_readable_by_its_owner_only(tmp_path):
    folder = tmp_path / "data"
    key = installation_secret(folder)
    saved = folder / "secret_key"
    assert saved.read_text() == key and len(key) >= 50
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert installation_secret(folder) == key
    assert [p.name for p in folder.iterdir()] == ["secret_key"]  # no draft left beside it


def test_a_worker_that_loses_the_race_reads_the_winners_key(tmp_path, monkeypatch):
    # Both saw no key and both wrote one: the link of the second fails, and it takes the first one's.
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "secret_key").write_text("w" * 60)
    monkeypatch.setattr(Path, "exists", lambda self: False)
    assert installation_secret(folder) == "w" * 60
    assert [p.name for p in folder.iterdir()] == ["secret_key"]


def test_a_damaged_key_file_is_refused(tmp_path):
    (tmp_path / "secret_key").write_text("\n")
    with pytest.raises(ImproperlyConfigured, match="no usable secret key"):
        installation_secret(tmp_path)


def test_no_key_is_in_the_repository():
    root = Path(settings.BASE_DIR)
    assert settings.SECRET_KEY not in (root / "config" / "settings.py").read_text()
    assert "/data/" in (root / ".gitignore").read_text().split()


@override_settings(ROOT_URLCONF=__name__)
def test_a_500_is_a_plain_page():
    response = Client(raise_request_exception=False).get("/broken/")
    body = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong" in body
    for leak in ("Traceback", "the-exception-text", "RuntimeError", "SECRET_KEY", settings.SECRET_KEY):
        assert leak not in body


def test_a_bad_host_gets_a_plain_400(client):
    response = client.get("/accounts/login/", HTTP_HOST="evil.example")
    assert response.status_code == 400
    body = response.content.decode()
    assert "Bad request" in body and "ALLOWED_HOSTS" not in body


def debug_on(**extra):
    return override_settings(
        DEBUG=True,
        ROOT_URLCONF=__name__,
        MIDDLEWARE=["campaigns.middleware.DebugServesLoopbackOnly", *settings.MIDDLEWARE],
        **extra,
    )


@pytest.mark.parametrize(
    "url,host", [("/broken/", "localhost"), ("/nowhere/", "localhost"), ("/fine/", "unknown.example")]
)
def test_debug_shows_nothing_to_the_room(url, host):
    # The Host header is the client's to choose: only its address keeps a LAN visitor off the debug pages.
    with debug_on():
        lan = Client(raise_request_exception=False, REMOTE_ADDR="192.168.1.20").get(url, HTTP_HOST=host)
        assert lan.status_code == 403
        assert lan.content.decode() == "Debug mode serves this machine only."
        here = Client(raise_request_exception=False).get("/broken/", HTTP_HOST="localhost")
        assert here.status_code == 500 and "the-exception-text" in here.content.decode()
        assert Client(REMOTE_ADDR="::1").get("/fine/", HTTP_HOST="localhost").content == b"fine"


@pytest.fixture
def gm_roll_on_the_players_sheet(demo_character, gm, client_for, fixed_dice):
    """A GM-only roll the GM made on the player's L5R sheet (Bayushi Shinai's Kyujutsu, 7k3)."""
    shinai = demo_character("l5r")
    fixed_dice(2, 4, 5, 7, 7, 8, 10, 2)
    key = f"skill:{shinai.l5r_skills.get(name='Kyujutsu').pk}"
    data = {"tn": 20, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "gm"}
    assert client_for(gm).post(reverse("sheet_roll", args=[shinai.pk, key]), data, **HTMX).status_code == 200
    return shinai, FeedEntry.objects.get()


def roll_key(client, character, key):
    data = {"tn": 20, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "public"}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def test_an_after_roll_key_cannot_be_forged_or_replayed(gm_roll_on_the_players_sheet, player, gm, client_for):
    shinai, first = gm_roll_on_the_players_sheet
    alice = client_for(player)
    plain = f"{after_roll.REKEEP}:{first.cursor}:0.1.2"
    # Signed with the server's own key, as the sheet once took it: a key is no longer a signature.
    signed = Signer(key=settings.SECRET_KEY, salt="l5r-after-roll").sign(plain)
    for key in (plain, signed, f"{after_roll.RETRY}:{first.cursor}:"):
        for client in (alice, client_for(gm)):  # the GM too: only the form under the roll makes one
            refused = roll_key(client, shinai, key)
            assert refused.status_code == 422
            assert "from the form under your roll" in refused.content.decode()
    # Through the form the player may not choose from the GM's roll either.
    form = reverse("l5r_after_roll", args=[shinai.pk, first.cursor])
    assert alice.post(form, {"do": "rekeep", "keep": [0, 1, 2]}, **HTMX).status_code == 404
    assert list(FeedEntry.objects.values_list("seq", "visibility")) == [(first.seq, "gm")]


def test_a_vouched_key_is_for_its_own_entry_only():
    with after_roll.vouched("rekeep:aaaa:0.1.2"):
        assert after_roll.split_key("rekeep:aaaa:0.1.2") == ("rekeep", "aaaa", "0.1.2")
        for other in ("rekeep:bbbb:0.1.2", "rekeep:aaaa:0.1.3", "retry:aaaa:"):
            with pytest.raises(ValidationError):
                after_roll.split_key(other)
    with pytest.raises(ValidationError):
        after_roll.split_key("rekeep:aaaa:0.1.2")  # its request is over
    assert after_roll.split_key("skill:12") == ("skill", "", "")


def test_the_gm_chooses_from_their_own_roll(gm_roll_on_the_players_sheet, gm, client_for):
    shinai, first = gm_roll_on_the_players_sheet
    response = client_for(gm).post(
        reverse("l5r_after_roll", args=[shinai.pk, first.cursor]),
        {"do": "rekeep", "keep": [0, 1, 2], "tn": 20, "raises": 0, "free_raises": 0, "free_on_tn": 0},
        **HTMX,
    )
    assert response.status_code == 200, response.content.decode()
    chosen = FeedEntry.objects.latest("seq")
    assert chosen.request["rekeep_of"] == first.seq and chosen.visibility == "gm"
