"""A whole FREE/FALL session at four browsers: the GM and three players, each on their own device (one a
phone).

The GM starts a fight with the players' characters and a sentry. Each player declares and locks in their
own action from their own sheet (an attack, a hack, a plain action), the GM declares for the sentry; the
actions resolve last declared first (FREE/FALL, l.51), each player rolling their own, the one hit taking
the harm themselves (mitigate, then break bound gear: l.73, l.118-126), and every result reaches the
others live. The book has no advancement, so the player repairs the gear she broke on her own sheet.
Then the GM asks everyone for a check, which each answers from their sheet. The GM never edits a player's
sheet.
"""

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from sheets.demo import load_demo_characters
from sheets.systems.freefall.models import FreeFallGear
from tests.sheets.test_write_policy import players_adjust_play_state

from .session import (
    demo_character_again,
    encounter_with,
    expect_live,
    fixed_dice,
    logged_in_page,
    request_form_for_everyone,
    table_url,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def raid(make_campaign, make_user, gm, player, other_player):
    third = make_user("third")
    campaign = make_campaign("freefall", players=[player, other_player], name="Neon Drop")
    Membership.objects.create(campaign=campaign, user=third)
    load_demo_characters(campaign, players=[player, other_player])
    players_adjust_play_state(campaign)  # Ilya repairs her own vest (sheets/policy.py)
    demo_character_again(campaign, third, "Ilya Rook")  # the first demo breacher again
    # The order they are added is the declaration order: the sentry declares last and resolves first.
    party = [campaign.characters.get(name=name) for name in ("Vesna Kade", "Osei Marr", "Ilya Rook")]
    encounter = encounter_with(
        campaign, "Server farm", party, "Sentry", {"body": 3, "mind": 2, "ghost": 2, "av": 0, "dv": 2}
    )
    return campaign, encounter, third


@pytest.mark.long
def test_a_freefall_session_at_four_devices(new_page, raid, gm, player, other_player, monkeypatch):
    campaign, encounter, third = raid
    faces = fixed_dice(monkeypatch)
    users = {"Vesna Kade": player, "Osei Marr": other_player, "Ilya Rook": third}
    sheets = {}
    for name, user in users.items():
        url = campaign.characters.get(name=name).get_absolute_url()
        sheets[name] = logged_in_page(new_page, user, url, phone=name == "Osei Marr")
        expect_live(sheets[name])

    gm_page = logged_in_page(new_page, gm, encounter.get_absolute_url())
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.locator(".encounter-round")).to_have_text("1")

    def turn_form(name: str, button: str):
        page = sheets[name]
        expect(page.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {name}")
        return page.locator("#turn-panel form.encounter-action", has=page.get_by_role("button", name=button))

    def seen_by_all(text: str, *, but: str = ""):
        expect(gm_page.locator("#encounter-log")).to_contain_text(text)
        for name, page in sheets.items():
            if name != but:
                expect(page.locator("#turn-panel .turn-latest")).to_contain_text(text)

    # Phase 1 (l.9-11): each declares on their own turn and locks in, at least one die on each action.
    attack = turn_form("Vesna Kade", "Declare an attack")
    attack.get_by_role("button", name="Declare an attack").click()  # the rail pistol, 1 die, TN 11
    sheets["Vesna Kade"].get_by_role("button", name="Lock in: Attack at Sentry 1d20 vs TN 11").click()
    seen_by_all("Vesna Kade declares")

    hack = turn_form("Osei Marr", "Declare a hack")
    expect(hack.get_by_label("TN", exact=True)).to_have_count(0)  # the TN tier is the GM's (l.29-35)
    hack.get_by_label("Program").select_option("Icebreaker")
    hack.get_by_role("button", name="Declare a hack").click()  # Icebreaker, CHROME +10 (l.152)
    sheets["Osei Marr"].get_by_role("button", name="Lock in: Hack with Icebreaker 1d20+10 vs TN 11").click()
    seen_by_all("Osei Marr declares")

    task = turn_form("Ilya Rook", "Declare an action")
    task.get_by_label("Action", exact=True).fill("Climb")
    task.get_by_role("button", name="Declare an action").click()
    sheets["Ilya Rook"].get_by_role("button", name="Lock in: Climb 1d20 vs TN 11").click()
    seen_by_all("Ilya Rook declares")

    # The GM declares for the sentry on the encounter page: an attack at Ilya.
    expect(gm_page.get_by_role("heading", name="Sentry's turn")).to_be_visible()
    npc = gm_page.locator(
        "form.encounter-action", has=gm_page.get_by_role("button", name="Declare an attack")
    )
    npc.locator("select[name='target']").select_option(label="Ilya Rook")
    npc.get_by_role("button", name="Declare an attack").click()
    gm_page.get_by_role("button", name="Lock in: Attack at Ilya Rook 1d20 vs TN 11").click()

    # Phase 5 (l.51): the last declared acts first. The sentry's 15 hits: DV 2 against the vest's AV 2
    # still leaves 1 level (l.71), which Ilya takes herself on her own sheet.
    faces[:] = [15]
    gm_page.get_by_role("button", name="Roll: Attack at Ilya Rook 1d20 vs TN 11").click()
    # The sentry's DV is the GM's: the players read the harm it does, the GM the numbers too.
    seen_by_all("1 level(s) of physical harm")
    expect(gm_page.locator("#encounter-log")).to_contain_text("Ilya Rook is hit: DV 2 against AV 2")
    expect(sheets["Ilya Rook"].locator("#turn-panel .turn-latest")).not_to_contain_text("DV 2")
    turn_form("Ilya Rook", "Mitigate physical harm").get_by_role(
        "button", name="Mitigate physical harm"
    ).click()
    take = turn_form("Ilya Rook", "Take a level of physical harm")
    take.get_by_label("Take it as").select_option("break_gear")
    take.get_by_label("Gear").select_option("Carbon weave vest")
    take.get_by_role("button", name="Take a level of physical harm").click()
    seen_by_all("Carbon weave vest is now faulty")  # Hardened: faulty before broken (l.126, l.166)
    ilya = campaign.characters.get(name="Ilya Rook")
    assert ilya.ff_gear.get(name="Carbon weave vest").condition == FreeFallGear.Condition.FAULTY

    faces[:] = [12]
    turn_form("Ilya Rook", "Roll: Climb").get_by_role("button", name="Roll: Climb 1d20 vs TN 11").click()
    seen_by_all("Ilya Rook: Climb")

    # A natural 1 on a hacking die compromises the program (l.134), on Osei's sheet, live.
    faces[:] = [1]
    roll = turn_form("Osei Marr", "Roll: Hack")
    roll.get_by_role("button", name="Roll: Hack with Icebreaker 1d20+10 vs TN 11").click()
    seen_by_all("Icebreaker compromised (a natural 1)")

    # Vesna's 14 hits: the rail pistol's DV 3, Piercing, against AV 0; the GM mitigates for the sentry.
    faces[:] = [14]
    roll = turn_form("Vesna Kade", "Roll: Attack")
    roll.get_by_role("button", name="Roll: Attack at Sentry 1d20 vs TN 11").click()
    seen_by_all("Sentry is hit")  # the players read that it is hit; its AV and harm are the GM's
    expect(gm_page.locator("#encounter-log")).to_contain_text(
        "Sentry is hit: DV 3 against AV 0: 3 level(s) of physical harm"
    )
    mitigate = gm_page.locator("form.encounter-action", has=gm_page.get_by_role("button", name="Mitigate"))
    mitigate.get_by_label("BODY (3 left)").fill("3")
    mitigate.get_by_role("button", name="Mitigate physical harm").click()
    expect(gm_page.get_by_text("Round 2: declare").first).to_be_visible()

    # No advancement in the book: Ilya repairs her vest on her own sheet once the fight allows it.
    ilya_page = sheets["Ilya Rook"]
    ilya_page.get_by_role("button", name="Repair Carbon weave vest").click()
    expect(ilya_page.get_by_text("Carbon weave vest is repaired: intact again.")).to_be_visible()
    assert ilya.ff_gear.get(name="Carbon weave vest").condition == FreeFallGear.Condition.OK

    # The GM asks every player for a GHOST check, one die against Hard (TN 16); each answers.
    table = logged_in_page(new_page, gm, table_url(campaign))
    expect(table.locator("#table-status")).to_have_text("Live")
    panel = request_form_for_everyone(table)
    panel.locator("#id_label").fill("Slip past the guards")
    panel.locator("#id_roll_key").select_option("attribute:ghost")
    panel.locator("#id_tn").select_option("hard")
    panel.locator("#id_dice").fill("1")
    panel.get_by_role("button", name="Ask").click()
    expect(panel.locator(".request-tally")).to_have_text("0 of 3 answered · 0 succeeded · 0 failed")
    for name, page in sheets.items():
        prompt = page.locator(".roll-prompt")
        expect(prompt).to_contain_text("The GM asks: Slip past the guards")
        faces[:] = [17]
        prompt.get_by_role("button", name="GHOST").click()
        expect(prompt).to_have_count(0)
        expect(panel.locator(".request-answer", has_text=name)).to_contain_text("TN 16: 1 success")
    expect(panel.locator(".request-tally")).to_have_text("3 of 3 answered · 3 succeeded · 0 failed")
    # Everything on the players' sheets was done by their players (or by the fight the GM ran).
    for name in users:
        character = campaign.characters.get(name=name)
        assert not character.changes.filter(author=gm, reason__startswith="Edited").exists()
