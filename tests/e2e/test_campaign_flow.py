"""A GM signs up and creates a campaign; a second browser joins by the invite link."""

import re
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def sign_up(page, username: str) -> None:
    page.locator("#id_username").fill(username)
    page.locator("#id_password1").fill("a-long-pass-phrase-9")
    page.locator("#id_password2").fill("a-long-pass-phrase-9")
    page.get_by_role("button", name="Sign up").click()


def test_gm_creates_campaign_and_player_joins_by_invite(new_page):
    gm_page = new_page()
    gm_page.goto("/")
    gm_page.get_by_role("link", name="Sign up").first.click()
    sign_up(gm_page, "gamemaster")
    gm_page.get_by_role("link", name="New campaign").click()
    gm_page.locator("#id_name").fill("Friday Night Triad")
    gm_page.locator("#id_system").select_option(label="Triad")
    gm_page.get_by_role("button", name="Create campaign").click()
    expect(gm_page.get_by_role("heading", name="Friday Night Triad")).to_be_visible()
    invite_url = gm_page.get_by_label("Invite link").first.input_value()
    assert re.search(r"/join/[\w-]{30,}/$", invite_url)

    player_page = new_page(width=390, height=844)
    # On 127.0.0.1 the link names this machine's LAN address, which the test server does not listen on.
    player_page.goto(urlsplit(invite_url).path)
    # Not logged in: the invite offers to sign up, and the form's end is the table, seated.
    expect(player_page.get_by_role("heading", name="Join Friday Night Triad")).to_be_visible()
    player_page.get_by_role("link", name="Sign up to join").click()
    sign_up(player_page, "newplayer")
    expect(player_page.get_by_text("Welcome to Friday Night Triad!")).to_be_visible()
    expect(player_page.get_by_role("heading", name="Friday Night Triad")).to_be_visible()

    # A player who already has an account follows the link, takes the menu's "Log in", and is seated.
    regular = new_page()
    regular.goto("/")
    regular.get_by_role("link", name="Sign up").first.click()
    sign_up(regular, "regular")
    regular.get_by_role("button", name="Log out").click()
    regular.goto(urlsplit(invite_url).path)
    regular.get_by_role("link", name="Log in", exact=True).click()
    regular.locator("#id_username").fill("regular")
    regular.locator("#id_password").fill("a-long-pass-phrase-9")
    regular.get_by_role("button", name="Log in").click()
    expect(regular.get_by_text("Welcome to Friday Night Triad!")).to_be_visible()

    gm_page.reload()
    members = gm_page.locator("#member-list")
    expect(members).to_contain_text("gamemaster")
    expect(members).to_contain_text("newplayer")
    expect(members).to_contain_text("regular")
