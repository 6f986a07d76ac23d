import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns import lan, services
from campaigns.models import Campaign, Membership


def test_create_campaign_makes_the_creator_gm(gm, client_for):
    response = client_for(gm).post(
        reverse("campaign_create"), {"name": "Dune Sea", "system": "fivebyfive", "description": ""}
    )
    campaign = Campaign.objects.get(name="Dune Sea")
    assert response.url == campaign.get_absolute_url()
    assert campaign.gm == gm and campaign.system == "fivebyfive"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "system": "triad"}, "This field is required."),
        ({"name": "x" * 81, "system": "triad"}, "at most 80 characters"),
        ({"name": "ok", "system": "d&d"}, "Select a valid choice."),
        ({"name": "ok", "system": "triad", "description": "y" * 2001}, "at most 2000 characters"),
    ],
)
def test_bad_campaign_input_is_refused_with_a_message(gm, client_for, data, message):
    response = client_for(gm).post(reverse("campaign_create"), data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Campaign.objects.exists()


def test_service_validates_even_without_a_form(gm):
    with pytest.raises(ValidationError):
        services.campaign_create(gm=gm, name="n" * 500, system="triad")
    assert not Campaign.objects.exists()


def test_names_render_escaped(make_campaign, gm, client_for):
    campaign = make_campaign(name="<script>alert(1)</script>")
    body = client_for(gm).get(campaign.get_absolute_url()).content.decode()
    assert "<script>alert(1)</script>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def test_join_by_invite_link(campaign, outsider, client_for):
    client = client_for(outsider)
    url = reverse("campaign_join", args=[campaign.invite_token])
    assert "Join the table" in client.get(url).content.decode()
    response = client.post(url)
    assert response.url == campaign.get_absolute_url()
    assert Membership.objects.filter(campaign=campaign, user=outsider).exists()
    # Joining twice seats the player once.
    client.post(url)
    assert Membership.objects.filter(campaign=campaign, user=outsider).count() == 1


def test_rotating_the_token_kills_old_links(campaign, gm, outsider, client_for):
    old_url = reverse("campaign_join", args=[campaign.invite_token])
    client_for(gm).post(reverse("invite_rotate", args=[campaign.pk]))
    campaign.refresh_from_db()
    assert reverse("campaign_join", args=[campaign.invite_token]) != old_url
    assert len(campaign.invite_token) >= 32

    client = client_for(outsider)
    assert client.get(old_url).status_code == 404
    response = client.post(old_url, follow=True)
    assert "not valid any more" in response.content.decode()
    assert not Membership.objects.filter(user=outsider).exists()

    client.post(reverse("campaign_join", args=[campaign.invite_token]))
    assert Membership.objects.filter(user=outsider, campaign=campaign).exists()


def test_gm_sees_invite_link_players_do_not(campaign, gm, player, client_for):
    assert campaign.invite_token in client_for(gm).get(campaign.get_absolute_url()).content.decode()
    assert campaign.invite_token not in client_for(player).get(campaign.get_absolute_url()).content.decode()


def test_signup_logs_in_and_follows_next(client, db):
    response = client.post(
        reverse("signup") + "?next=/join/abc/",
        {
            "username": "newbie",
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
            "next": "/join/abc/",
        },
    )
    assert response.url == "/join/abc/"
    assert get_user_model().objects.filter(username="newbie").exists()


def test_signup_refuses_weak_passwords(client, db):
    response = client.post(reverse("signup"), {"username": "weak", "password1": "123", "password2": "123"})
    assert "This password is too short" in response.content.decode()
    assert not get_user_model().objects.filter(username="weak").exists()


def test_signup_ignores_offsite_next(client, db):
    response = client.post(
        reverse("signup"),
        {
            "username": "n2",
            "password1": "a-long-pass-phrase-9",
            "password2": "a-long-pass-phrase-9",
            "next": "https://evil.example/",
        },
    )
    assert response.url == reverse("dashboard")


def test_login_is_throttled_by_username_and_address(client, gm, settings):
    url = reverse("login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(url, {"username": "gm", "password": "wrong"})
    response = client.post(url, {"username": "gm", "password": "correct-horse-battery-staple"})
    assert response.status_code == 429
    assert "Too many failed log-ins" in response.content.decode()
    # Another account from the same address is not locked.
    other = get_user_model().objects.create_user(username="fine", password="correct-horse-battery-staple")
    ok = client.post(url, {"username": other.username, "password": "correct-horse-battery-staple"})
    assert ok.status_code == 302


def test_every_page_carries_a_strict_csp(client, db):
    csp = client.get(reverse("landing")).headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]


def test_pages_load_htmx_from_the_app_not_a_cdn(client, db):
    body = client.get(reverse("landing")).content.decode()
    assert "/static/django_htmx/htmx-2.min.js" in body
    # table.js owns the socket; a second socket client loaded beside it would only be dead weight.
    assert "hx-ws" not in body
    for cdn in ("unpkg.com", "jsdelivr", "cdnjs"):
        assert cdn not in body


def test_gm_turns_optional_rules_on_for_the_campaign(make_campaign, gm, client_for):
    campaign = make_campaign("l5r")
    page = client_for(gm).get(reverse("campaign_edit", args=[campaign.pk])).content.decode()
    assert "Ten Dice house rule" in page
    client_for(gm).post(
        reverse("campaign_edit", args=[campaign.pk]),
        {"name": campaign.name, "description": "", "option_l5r_odd_die_bonus": "on"},
    )
    campaign.refresh_from_db()
    # A number option left blank keeps the system's usual value (L5R's starting XP budget).
    assert campaign.options == {
        "l5r_odd_die_bonus": True,
        "l5r_starting_xp": 40,
        "players_adjust_play_state": False,
        "show_npc_numbers": False,
    }
    client_for(gm).post(
        reverse("campaign_edit", args=[campaign.pk]), {"name": campaign.name, "description": ""}
    )
    campaign.refresh_from_db()
    assert campaign.options == {
        "l5r_odd_die_bonus": False,
        "l5r_starting_xp": 40,
        "players_adjust_play_state": False,
        "show_npc_numbers": False,
    }


def test_every_campaign_offers_the_table_options_whatever_its_system(make_campaign, gm, client_for):
    campaign = make_campaign("triad")
    page = client_for(gm).get(reverse("campaign_edit", args=[campaign.pk])).content.decode()
    assert "Players adjust their own play state" in page and "Players see NPC numbers" in page
    client_for(gm).post(
        reverse("campaign_edit", args=[campaign.pk]),
        {"name": campaign.name, "description": "", "option_show_npc_numbers": "on"},
    )
    campaign.refresh_from_db()
    assert campaign.option_on("show_npc_numbers") and not campaign.option_on("players_adjust_play_state")


def test_invite_link_uses_the_lan_address_when_the_gm_is_on_localhost(
    make_campaign, gm, client_for, monkeypatch, settings
):
    """Players' devices cannot open localhost: a GM on a loopback address gets the LAN address(es)."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]", "table.example"]
    monkeypatch.setattr(lan, "lan_addresses", lambda: ["192.168.1.20", "10.0.0.5"])
    campaign = make_campaign("triad")
    path = reverse("campaign_join", args=[campaign.invite_token])
    client = client_for(gm)
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000"):
        html = client.get(campaign.get_absolute_url(), HTTP_HOST=host).content.decode()
        assert f'value="http://192.168.1.20:8000{path}"' in html
        assert f'value="http://10.0.0.5:8000{path}"' in html
        assert 'aria-label="Invite link 2"' in html and 'id="invite-lan-note"' in html
        assert "localhost:8000/join" not in html and "127.0.0.1:8000/join" not in html
    html = client.get(campaign.get_absolute_url(), HTTP_HOST="table.example").content.decode()
    assert f'value="http://table.example{path}"' in html and "192.168.1.20" not in html
    assert 'id="invite-lan-note"' not in html
    monkeypatch.setattr(lan, "lan_addresses", lambda: [])  # no network: the only address there is
    html = client.get(campaign.get_absolute_url(), HTTP_HOST="127.0.0.1:8000").content.decode()
    assert f'value="http://127.0.0.1:8000{path}"' in html
