"""An invite seats a new player in one pass: opened before logging in, it is remembered, and the sign-up
or log-in form, reached by any link (the page's buttons, the menu's), ends at the table, seated."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from campaigns.models import Membership
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

NEW = {"username": "newcomer", "password1": "a-long-enough-pass-42", "password2": "a-long-enough-pass-42"}


def test_an_invite_opened_logged_out_offers_sign_up_and_log_in_that_lead_back(client, campaign):
    join = reverse("campaign_join", args=[campaign.invite_token])
    page = client.get(join)
    assert page.status_code == 200
    body = page.content.decode()
    assert campaign.name in body
    assert f'href="{reverse("signup")}?next={join}"' in body
    assert f'href="{reverse("login")}?next={join}"' in body


def test_signing_up_from_an_invite_seats_the_player_even_through_the_menus_link(client, campaign):
    client.get(reverse("campaign_join", args=[campaign.invite_token]))
    # The menu's "Sign up" carries no next: the invite still seats them.
    response = client.post(reverse("signup"), NEW)
    user = get_user_model().objects.get(username="newcomer")
    assert Membership.objects.filter(campaign=campaign, user=user).exists()
    assert response.status_code == 302 and response.url == campaign.get_absolute_url()
    assert "Welcome to" in client.get(response.url).content.decode()


def test_logging_in_from_an_invite_seats_the_player(client, campaign, outsider):
    client.get(reverse("campaign_join", args=[campaign.invite_token]))
    response = client.post(reverse("login"), {"username": outsider.username, "password": PASSWORD})
    assert response.status_code == 302 and response.url == campaign.get_absolute_url()
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()


def test_the_invite_is_used_once_and_a_later_log_in_goes_where_it_would(client, campaign, outsider):
    client.get(reverse("campaign_join", args=[campaign.invite_token]))
    client.post(reverse("login"), {"username": outsider.username, "password": PASSWORD})
    client.post(reverse("logout"))
    response = client.post(reverse("login"), {"username": outsider.username, "password": PASSWORD})
    assert response.url == reverse("dashboard")


def test_an_invite_made_dead_before_the_form_is_done_says_so(client, campaign, outsider):
    client.get(reverse("campaign_join", args=[campaign.invite_token]))
    campaign.invite_token = "rotated-by-the-gm"
    campaign.save()
    credentials = {"username": outsider.username, "password": PASSWORD}
    response = client.post(reverse("login"), credentials, follow=True)
    assert not Membership.objects.filter(campaign=campaign, user=outsider).exists()
    assert "not valid any more" in response.content.decode()


def test_a_dead_invite_logged_out_is_a_404_and_remembers_nothing(client, campaign, outsider):
    assert client.get(reverse("campaign_join", args=["no-such-invite"])).status_code == 404
    response = client.post(reverse("login"), {"username": outsider.username, "password": PASSWORD})
    assert response.url == reverse("dashboard")


def test_the_menus_links_on_the_log_in_page_keep_next(client):
    body = client.get(reverse("login") + "?next=/join/abc/").content.decode()
    assert body.count('?next=/join/abc/"') >= 3  # the menu's two links and the page's own


def test_a_server_on_loopback_only_gives_its_own_address_and_says_why(
    make_campaign, gm, client_for, monkeypatch, settings
):
    from campaigns import lan

    settings.SERVE_HOST = "127.0.0.1"
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20"])
    campaign = make_campaign("triad")
    path = reverse("campaign_join", args=[campaign.invite_token])
    html = client_for(gm).get(campaign.get_absolute_url(), HTTP_HOST="127.0.0.1:8000").content.decode()
    # Nothing listens on the LAN address: the only link that opens is this machine's own.
    assert f'value="http://127.0.0.1:8000{path}"' in html and "192.168.1.20" not in html
    assert 'id="invite-loopback-note"' in html and "HOST=127.0.0.1" in html
    assert 'data-copy="#invite-url"' in html
    settings.SERVE_HOST = "0.0.0.0"  # noqa: S104 - the name of every interface, compared
    html = client_for(gm).get(campaign.get_absolute_url(), HTTP_HOST="127.0.0.1:8000").content.decode()
    assert "192.168.1.20" in html and 'id="invite-loopback-note"' not in html
