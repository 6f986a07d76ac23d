"""The GM asks for a roll at the table; the prompt shows live on the sheet, the answer on the GM's."""

import pytest
from playwright.sync_api import expect

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from tests.conftest import PASSWORD

from .conftest import log_in
from .session import shoot
from .test_accessibility import audit

pytestmark = pytest.mark.e2e


def test_gm_asks_player_answers_live(new_page, make_campaign, gm, player, other_player, monkeypatch):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    helsing = campaign.characters.get(owner=player)
    monkeypatch.setattr("play.request_views.system_random", lambda: FixedFaces([14]))

    sheet = new_page(width=390, height=844)
    log_in(sheet, player.username, PASSWORD)
    sheet.goto(helsing.get_absolute_url())
    expect(sheet.get_by_role("heading", name="Abraham Van Helsing")).to_be_visible()

    table = new_page()
    log_in(table, gm.username, PASSWORD)
    table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(table.locator("#table-status")).to_have_text("Live")
    table.locator("#requests-gm summary").click()
    table.locator("#requests-gm input[name=characters]").first.check()
    table.locator("#requests-gm #id_label").fill("Read the ancient text")
    table.locator("#requests-gm #id_roll_key").select_option("ability:mind")
    table.locator("#requests-gm #id_difficulty").fill("16")
    table.locator("#requests-gm").get_by_role("button", name="Ask").click()
    expect(table.locator(".request-answer", has_text="Abraham Van Helsing")).to_contain_text("waiting")

    # No reload: the prompt arrives over the table's socket.
    prompt = sheet.locator(".roll-prompt")
    expect(prompt).to_contain_text("The GM asks: Read the ancient text")
    prompt.get_by_role("button", name="Mind 15").click()
    expect(prompt).to_have_count(0)

    # 14 is below Mind 15, so the total is 15 against 16: a failure. The GM sees the answer arrive.
    answer = table.locator(".request-answer", has_text="Abraham Van Helsing")
    expect(answer).to_contain_text("15 (floored by the ability) vs 16: failure")
    expect(table.locator("#feed")).to_contain_text("Abraham Van Helsing: Mind (Mind 15)")


@pytest.mark.parametrize(
    ("system", "roll_key", "options", "faces", "buttons", "shows"),
    [
        # L5R: each sheet rolls its own Kenjutsu (Shinai 2 ranks: 5k3; Tishi none: 3k3 unskilled).
        ("l5r", "skill:kenjutsu", {"tn": "15"}, [9, 8, 5, 2, 1], ("Kenjutsu 2", "Kenjutsu 0"), "22 vs TN 15"),
        # FREE/FALL: a GHOST check with two dice assigned against Hard (TN 16): 17 and 9, one success.
        (
            "freefall",
            "attribute:ghost",
            {"tn": "hard", "dice": "2"},
            [17, 9],
            ("GHOST", "GHOST"),
            "TN 16: 1 success",
        ),
    ],
)
def test_gm_asks_two_players_and_sends_the_group_result(
    new_page,
    make_campaign,
    gm,
    player,
    other_player,
    monkeypatch,
    system,
    roll_key,
    options,
    faces,
    buttons,
    shows,
):
    campaign = make_campaign(system, players=[player, other_player], name="Group roll")
    load_demo_characters(campaign, players=[player, other_player])
    monkeypatch.setattr("play.request_views.system_random", lambda: FixedFaces(faces))

    sheets = {}
    for user in (player, other_player):
        character = campaign.characters.get(owner=user)
        page = new_page(width=390, height=844)
        log_in(page, user.username, PASSWORD)
        page.goto(character.get_absolute_url())
        expect(page.get_by_role("heading", name=character.name)).to_be_visible()
        sheets[character.name] = page

    table = new_page()
    log_in(table, gm.username, PASSWORD)
    table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(table.locator("#table-status")).to_have_text("Live")
    panel = table.locator("#requests-gm")
    panel.locator("summary").click()
    for box in panel.locator("input[name=characters]").all():
        box.check()
    panel.locator("#id_label").fill("All together")
    panel.locator("#id_roll_key").select_option(roll_key)
    for name, value in options.items():
        field = panel.locator(f"#id_{name}")
        if field.evaluate("e => e.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    panel.get_by_role("button", name="Ask").click()
    expect(panel.locator(".request-tally")).to_have_text("0 of 2 answered · 0 succeeded · 0 failed")

    for (name, page), label in zip(sheets.items(), buttons, strict=True):
        prompt = page.locator(".roll-prompt")
        expect(prompt).to_contain_text("The GM asks: All together")
        prompt.get_by_role("button", name=label).click()
        expect(prompt).to_have_count(0)
        # The player's own result stays on the sheet.
        expect(page.locator(".request-answered")).to_contain_text("You rolled for the GM’s “All together”")
        expect(page.locator(".request-answered .feed-summary")).to_contain_text(shows)
        # The GM's panel gathers the answer live.
        expect(panel.locator(".request-answer", has_text=name)).to_contain_text(shows)
    expect(panel.locator(".request-tally")).to_contain_text("2 of 2 answered")
    page = next(iter(sheets.values()))
    shoot(page.locator(".request-answered"), f"requests-sheet-{system}")
    shoot(panel, f"requests-gm-{system}")
    # The answered prompt and the GM's tally pass the accessibility audit (a reload keeps both).
    assert audit(page, page.url) == []
    assert audit(table, table.url) == []
    panel = table.locator("#requests-gm")

    panel.get_by_role("button", name="Send group result to the table").click()
    expect(panel.locator(".request-sent")).to_have_text("Group result sent to the table.")
    expect(table.locator("#feed")).to_contain_text("All together: group result")
    for page in sheets.values():
        expect(page.locator(".request-answered")).to_have_count(0)  # the GM closed the request

    # A player at the table page reads the group result in the feed.
    player_table = new_page()
    log_in(player_table, player.username, PASSWORD)
    player_table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(player_table.locator("#feed")).to_contain_text("2 of 2 answered")


def test_a_player_who_keeps_the_table_open_sees_the_prompt_there_and_answers_it(
    new_page, make_campaign, gm, player, other_player, monkeypatch
):
    campaign = make_campaign("triad", players=[player, other_player], name="Night Watch")
    load_demo_characters(campaign, players=[player, other_player])
    monkeypatch.setattr("play.request_views.system_random", lambda: FixedFaces([16]))

    players_table = new_page(width=390, height=844)
    log_in(players_table, player.username, PASSWORD)
    players_table.goto(f"/campaigns/{campaign.pk}/table/")
    expect(players_table.locator("#table-status")).to_have_text("Live")

    gm_table = new_page()
    log_in(gm_table, gm.username, PASSWORD)
    gm_table.goto(f"/campaigns/{campaign.pk}/table/")
    gm_table.locator("#requests-gm summary").click()
    gm_table.locator("#requests-gm input[name=characters]").first.check()
    gm_table.locator("#requests-gm #id_label").fill("Read the ancient text")
    gm_table.locator("#requests-gm #id_roll_key").select_option("ability:mind")
    gm_table.locator("#requests-gm #id_difficulty").fill("16")
    gm_table.locator("#requests-gm").get_by_role("button", name="Ask").click()

    # No reload: the prompt arrives on the player's table page, and is answered from there.
    prompt = players_table.locator(".roll-prompt")
    expect(prompt).to_contain_text("The GM asks Abraham Van Helsing: Read the ancient text")
    prompt.scroll_into_view_if_needed()
    shoot(players_table, "table-request-phone")
    prompt.get_by_role("button", name="Mind 15").click()
    expect(prompt).to_have_count(0)
    answered = players_table.locator(".request-answered")
    expect(answered).to_contain_text("You rolled for the GM’s “Read the ancient text”")
    answer = gm_table.locator(".request-answer", has_text="Abraham Van Helsing")
    expect(answer).to_contain_text("16 vs 16")
    expect(players_table.locator("#feed")).to_contain_text("Abraham Van Helsing: Mind (Mind 15)")
