"""A whole L5R session at four browsers: the GM and three players, each on their own device (one a phone).

The GM starts a fight with the players' characters and a bandit; each player takes their own turn from
their own sheet (an attack, an unskilled attack, a skill roll), the GM runs the bandit, and every result
reaches the others' pages live. Then the GM awards XP and the player spends it on her own sheet, and the
GM asks everyone for a roll, which each answers from their sheet. The GM never edits a player's sheet.
"""

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from sheets.demo import load_demo_characters
from tests.npcs import L5R_BANDIT

from .session import (
    current_name,
    demo_character_again,
    encounter_with,
    expect_live,
    fixed_dice,
    logged_in_page,
    next_turn,
    request_form_for_everyone,
    table_url,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def court(make_campaign, make_user, gm, player, other_player):
    third = make_user("third")
    campaign = make_campaign("l5r", players=[player, other_player], name="Winter Court")
    Membership.objects.create(campaign=campaign, user=third)
    campaign.options = {"l5r_starting_xp": 70}  # the seed's archer costs 69 XP of ranks
    campaign.save(update_fields=["options"])
    load_demo_characters(campaign, players=[player, other_player])
    demo_character_again(campaign, third, "Hida Kenzo")  # the seed's archer again
    party = [campaign.characters.get(name=name) for name in ("Bayushi Shinai", "Isawa Tishi", "Hida Kenzo")]
    encounter = encounter_with(campaign, "Snowy pass", party, "Bandit", L5R_BANDIT)
    return campaign, encounter, third


@pytest.mark.long
def test_an_l5r_session_at_four_devices(new_page, court, gm, player, other_player, monkeypatch):
    campaign, encounter, third = court
    faces = fixed_dice(monkeypatch)
    users = {"Bayushi Shinai": player, "Isawa Tishi": other_player, "Hida Kenzo": third}
    sheets = {}
    for name, user in users.items():
        url = campaign.characters.get(name=name).get_absolute_url()
        sheets[name] = logged_in_page(new_page, user, url, phone=name == "Isawa Tishi")
        expect_live(sheets[name])

    gm_page = logged_in_page(new_page, gm, encounter.get_absolute_url())
    # Every initiative die a 5: Shinai and Kenzo 4k3 = 15, Tishi and the bandit 3k2 = 10; ties go to the
    # higher Reflexes (Shinai's and Kenzo's 3), then to whoever was added first.
    faces[:] = [5] * 14
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.locator(".encounter-round")).to_have_text("1")
    assert current_name(encounter) == "Bayushi Shinai"

    def take_turn(name: str, form_button: str, expected: str, *, fill=None):
        """The player presses their own action on their sheet's turn panel; the others see the result."""
        page = sheets[name]
        expect(page.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {name}")
        form = page.locator(
            "#turn-panel form.encounter-action", has=page.get_by_role("button", name=form_button)
        )
        if fill:
            fill(form)
        form.get_by_role("button", name=form_button).click()
        expect(page.locator("#turn-panel .turn-latest")).to_contain_text(expected)
        expect(gm_page.locator("#encounter-log")).to_contain_text(expected)
        for other, other_page in sheets.items():
            if other != name:
                expect(other_page.locator("#turn-panel .turn-latest")).to_contain_text(expected)
                expect(other_page.get_by_role("status").filter(has_text="Your turn")).to_have_count(0)

    def turn_ends(now: str):
        next_turn(gm_page)
        expect(gm_page.get_by_role("heading", name=f"{now}'s turn")).to_have_count(0)

    # Shinai (L5R, l.35): Kyujutsu 4 + Reflexes 3, the yumi against the bandit's Armor TN 5 x 2 + 5 + 5 = 20.
    # 7k3 of 9s: 27, a hit; the arrow 2k2 + the yumi's strength 3 = 5k2 of 9s: 18 wounds.
    faces[:] = [9] * 12
    take_turn("Bayushi Shinai", "Attack", "Bayushi Shinai damages Bandit")
    expect(gm_page.locator("[data-combatant='Bandit'] .combatant-summary")).to_contain_text("Wounds 18")
    turn_ends("Bayushi Shinai")

    # Kenzo: a skill roll, Stealth 1 + Agility 3 = 4k3, against the GM's TN (the scene's 15, l.6: the
    # player has no TN to type): 5 + 5 + 5 = 15 meets it (l.8).
    faces[:] = [5] * 4

    def stealth(form):
        form.get_by_label("Skill", exact=True).select_option("Stealth")
        expect(form.get_by_label("TN (the GM's call)")).to_have_count(0)

    take_turn("Hida Kenzo", "Skill roll", "Hida Kenzo: Stealth", fill=stealth)
    expect(gm_page.locator("#encounter-log")).to_contain_text(
        "Stealth 1 + Agility 3: 4k3 vs TN 15: 15, success"
    )
    turn_ends("Hida Kenzo")

    # Tishi, on her phone: no Jiujutsu, so an unskilled attack (l.60-61), 3k3 without exploding, the tanto.
    # 9 + 9 + 9 = 27 against 20; the tanto 1k1 + Strength 2 = 3k1: 9 wounds more, 27 in all (Crippled).
    faces[:] = [9] * 6
    take_turn("Isawa Tishi", "Attack", "Isawa Tishi damages Bandit")
    expect(gm_page.locator("#encounter-log")).to_contain_text("Jiujutsu 0 + Agility 3 unskilled")
    turn_ends("Isawa Tishi")

    # The GM runs the bandit: Attack skill 2 + Agility 3 = 5k3 against Shinai's Armor TN 20, + 20 for its
    # own Crippled wounds: 40. Three tens explode (l.75): 19 + 19 + 19 = 57, a hit; 3k2 + Strength 3 =
    # 6k2 of 9s: 18 wounds on Shinai's sheet (Earth 2: Grazed, +5), live on his page.
    expect(gm_page.get_by_role("heading", name="Bandit's turn")).to_be_visible()
    attack = gm_page.locator("form.encounter-action", has=gm_page.get_by_role("button", name="Attack"))
    attack.locator("select[name='target']").select_option(label="Bayushi Shinai")
    faces[:] = [10, 9, 10, 9, 10, 9, 1, 1] + [9] * 6
    attack.get_by_role("button", name="Attack").click()
    for page in sheets.values():
        expect(page.locator("#turn-panel .turn-latest")).to_contain_text("Bandit damages Bayushi Shinai")
    expect(sheets["Bayushi Shinai"].locator("#sheet-live")).to_contain_text("Grazed")
    turn_ends("Bandit")

    # Advancement: the GM awards XP from the award form; Shinai's player spends it on his own sheet
    # (Kenjutsu 2 -> 3 costs the new rank, 3 XP: the 4th-edition table in docs/rules.md).
    shinai = campaign.characters.get(name="Bayushi Shinai")
    gm_page.goto(shinai.get_absolute_url())
    gm_page.locator("#xp-amount").fill("5")
    gm_page.get_by_role("button", name="Award XP").click()
    expect(gm_page.locator(".xp-award")).to_be_visible()
    shinai_page = sheets["Bayushi Shinai"]
    offer = shinai_page.locator("#xp-offer option", has_text="Kenjutsu 2 → 3 (3 XP)")
    expect(offer).to_be_enabled()
    shinai_page.locator("#xp-offer").select_option(label="Kenjutsu 2 → 3 (3 XP)")
    shinai_page.get_by_role("button", name="Spend XP").click()
    expect(shinai_page.locator("#xp-offer")).to_contain_text("Kenjutsu 3 → 4 (4 XP; 3 left)")
    assert shinai.l5r_skills.get(name="Kenjutsu").rank == 3
    assert (
        not shinai.changes.filter(author=gm)
        .exclude(reason__startswith="Awarded")
        .exclude(reason__contains="wounds from")
        .exists()
    )

    # The GM asks everyone for an Awareness roll against TN 10; each answers from their own sheet.
    table = logged_in_page(new_page, gm, table_url(campaign))
    expect(table.locator("#table-status")).to_have_text("Live")
    panel = request_form_for_everyone(table)
    panel.locator("#id_label").fill("Notice the ambush")
    panel.locator("#id_roll_key").select_option("trait:awareness")
    panel.locator("#id_tn").fill("10")
    panel.get_by_role("button", name="Ask").click()
    expect(panel.locator(".request-tally")).to_have_text("0 of 3 answered · 0 succeeded · 0 failed")
    for name, page in sheets.items():
        prompt = page.locator(".roll-prompt")
        expect(prompt).to_contain_text("The GM asks: Notice the ambush")
        # Awareness 3 (3k3: 18) or 2 (2k2: 12): over 10, and over Shinai's 10 + 5 for his wounds.
        faces[:] = [6] * 3
        prompt.get_by_role("button", name="Awareness").click()
        expect(prompt).to_have_count(0)
        expect(panel.locator(".request-answer", has_text=name)).to_contain_text("success")
    expect(panel.locator(".request-tally")).to_have_text("3 of 3 answered · 3 succeeded · 0 failed")
