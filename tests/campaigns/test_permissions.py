"""Who may see and do what with a campaign: anonymous, outsider, player, GM."""

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership

ROLES = ["anonymous", "outsider", "player", "gm"]


def snapshot():
    """Everything a campaign action could change, to prove a refused action changed nothing."""
    return (
        list(
            Campaign.objects.order_by("pk").values_list("pk", "name", "description", "invite_token", "gm_id")
        ),
        list(Membership.objects.order_by("pk").values_list("pk", "campaign_id", "user_id")),
    )


@pytest.fixture
def actor(request, gm, player, outsider):
    return {"anonymous": None, "outsider": outsider, "player": player, "gm": gm}[request.param]


def login_redirect(response) -> bool:
    return response.status_code == 302 and response.url.startswith(reverse("login"))


# (url name, method, expected status per role); a POST that succeeds redirects (302).
MATRIX = [
    ("campaign_detail", "get", {"outsider": 404, "player": 200, "gm": 200}),
    ("campaign_edit", "get", {"outsider": 404, "player": 403, "gm": 200}),
    ("campaign_edit", "post", {"outsider": 404, "player": 403, "gm": 302}),
    ("invite_rotate", "post", {"outsider": 404, "player": 403, "gm": 302}),
    ("member_remove", "post", {"outsider": 404, "player": 403, "gm": 302}),
    ("campaign_leave", "post", {"outsider": 404, "player": 302, "gm": 302}),
]


def url_for(name, campaign, other_player):
    if name == "member_remove":
        return reverse(name, args=[campaign.pk, other_player.pk])
    return reverse(name, args=[campaign.pk])


@pytest.mark.parametrize("actor", ROLES, indirect=True)
@pytest.mark.parametrize(("name", "method", "expected"), MATRIX)
def test_campaign_view_permissions(actor, name, method, expected, campaign, other_player, client_for):
    client = client_for(actor)
    role = role_of(actor, campaign) if actor else "anonymous"
    before = snapshot()
    url = url_for(name, campaign, other_player)
    data = {"name": "Renamed", "description": "changed"} if name == "campaign_edit" else {}
    response = getattr(client, method)(url, data) if method == "post" else client.get(url)

    if actor is None:
        assert login_redirect(response)
        assert snapshot() == before
        return
    assert response.status_code == expected[role], (role, name, method, response.status_code)
    if response.status_code in (403, 404):
        assert snapshot() == before


def role_of(user, campaign) -> str:
    if campaign.gm_id == user.pk:
        return "gm"
    if campaign.memberships.filter(user=user).exists():
        return "player"
    return "outsider"


def test_outsider_cannot_tell_a_campaign_exists(campaign, outsider, client_for):
    client = client_for(outsider)
    missing = client.get(reverse("campaign_detail", args=[campaign.pk + 1000]))
    real = client.get(reverse("campaign_detail", args=[campaign.pk]))
    assert missing.status_code == real.status_code == 404
    assert campaign.name not in real.content.decode()


def test_effects_of_allowed_actions(campaign, gm, player, other_player, client_for):
    gm_client = client_for(gm)
    gm_client.post(reverse("campaign_edit", args=[campaign.pk]), {"name": "Renamed", "description": "new"})
    campaign.refresh_from_db()
    assert (campaign.name, campaign.description) == ("Renamed", "new")

    gm_client.post(reverse("member_remove", args=[campaign.pk, other_player.pk]))
    assert not campaign.memberships.filter(user=other_player).exists()

    client_for(player).post(reverse("campaign_leave", args=[campaign.pk]))
    assert not campaign.memberships.filter(user=player).exists()


def test_gm_cannot_leave_own_campaign(campaign, gm, client_for):
    response = client_for(gm).post(reverse("campaign_leave", args=[campaign.pk]), follow=True)
    assert "The GM cannot leave" in response.content.decode()
    assert Campaign.objects.filter(pk=campaign.pk, gm=gm).exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_anonymous_is_sent_to_login_everywhere_but_the_landing_page_and_an_invite(client, method, db):
    for url in [reverse("dashboard"), reverse("campaign_create")]:
        assert login_redirect(getattr(client, method)(url))
    assert client.get(reverse("landing")).status_code == 200
    # An invite link is the one other page open to a newcomer (tests/campaigns/test_invites.py); a token
    # that opens nothing is a 404, whatever the method, and seats nobody.
    assert getattr(client, method)(reverse("campaign_join", args=["x"])).status_code == 404


def test_dashboard_lists_campaigns_by_role(make_campaign, gm, player, outsider, client_for):
    run = make_campaign("l5r", name="Run by gm", players=[player])
    body = client_for(player).get(reverse("dashboard")).content.decode()
    assert run.name in body
    assert run.name not in client_for(outsider).get(reverse("dashboard")).content.decode()
    gm_body = client_for(gm).get(reverse("dashboard")).content.decode()
    assert gm_body.index("As game master") < gm_body.index(run.name) < gm_body.index("As player")
