"""A hidden roll's sheet change waits for the GM, in Debian's chromium with three browsers at once: a
player's blind roll wins the doubles token, nobody's sheet shows it, and the GM applies it from the
table's feed; then every open sheet shows the token (docs/rules.md, "A hidden roll changes nothing")."""

import json
import re

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.models import SheetChange

from .session import expect_live, logged_in_page, table_url

pytestmark = pytest.mark.e2e


def refreshes(frames, character) -> list:
    return [f for f in frames if json.loads(f) == {"type": "refresh", "panel": f"sheet:{character.pk}"}]


def test_the_gm_applies_a_blind_rolls_token_from_the_table(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    larry = campaign.characters.get(owner=player)
    roller = logged_in_page(new_page, player, larry.get_absolute_url())
    other = logged_in_page(new_page, other_player, larry.get_absolute_url())
    other_frames = []
    other.on("websocket", lambda ws: ws.on("framereceived", lambda frame: other_frames.append(frame)))
    other.reload()
    gm_table = logged_in_page(new_page, gm, table_url(campaign))
    expect_live(roller, other, gm_table)

    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([3, 3]))  # doubles
    roller.locator("#roll-options-panel summary").click()
    roller.get_by_label("Who sees the roll").select_option("blind")
    with roller.expect_response(re.compile(r"/roll/")) as answer:
        roller.locator(".roll-button", has_text="Amateur Chef").click()
    assert "oubles token" not in answer.value.text()
    expect(roller.locator("#roll-result")).to_contain_text("A blind roll was made")

    entry = gm_table.locator("#feed .feed-entry").first
    expect(entry).to_contain_text("Doubles token: no → yes")
    expect(roller.locator("#fbf-token")).to_have_text("none")
    assert not SheetChange.objects.exists() and not refreshes(other_frames, larry)

    entry.get_by_role("button", name="Apply to the sheet").click()
    expect(gm_table.locator("#feed .feed-entry").first).to_contain_text("Applied to the sheet:")
    expect(gm_table.get_by_role("button", name="Apply to the sheet")).to_have_count(0)
    # Applied, the change is a change like any other: every open sheet shows it, the History records it.
    expect(roller.locator("#fbf-token")).to_have_text("held")
    expect(other.locator("#fbf-token")).to_have_text("held")
    assert SheetChange.objects.get().reason == "Applied a hidden roll"
