"""Shared furniture: users in each role and a campaign they sit at."""

import pytest
from django.contrib.auth import get_user_model

from campaigns.models import Membership
from campaigns.services import campaign_create

PASSWORD = "correct-horse-battery-staple"


@pytest.fixture
def make_user(db):
    def make(username: str):
        return get_user_model().objects.create_user(username=username, password=PASSWORD)

    return make


@pytest.fixture
def gm(make_user):
    return make_user("gm")


@pytest.fixture
def player(make_user):
    return make_user("player")


@pytest.fixture
def other_player(make_user):
    return make_user("other")


@pytest.fixture
def outsider(make_user):
    return make_user("outsider")


@pytest.fixture
def make_campaign(gm):
    def make(system: str = "triad", *, players=(), name: str = "Test table"):
        campaign = campaign_create(gm=gm, name=name, system=system)
        for user in players:
            Membership.objects.create(campaign=campaign, user=user)
        return campaign

    return make


@pytest.fixture
def campaign(make_campaign, player, other_player):
    return make_campaign("triad", players=[player, other_player])


@pytest.fixture
def client_for(client):
    """A logged-in test client for a user, or the anonymous client for None."""
    from django.test import Client

    def for_user(user):
        if user is None:
            return client
        user_client = Client()
        user_client.force_login(user)
        return user_client

    return for_user


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # Password hashing is deliberately slow; tests make many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
