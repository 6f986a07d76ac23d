"""A whole Five by Five session with four browsers: the GM and three players, each on their own device.

The GM starts a fight with the three player characters and a bandit; the players steal initiative or
not, each takes their own turn from their own sheet or table page, the GM runs the bandit, and every
result reaches the others live. Then the GM awards XP, a player spends it on their own sheet, and
the GM's roll request is answered by every player. The GM never edits a player's sheet.
"""

import pytest
from playwright.sync_api import expect

from sheets.demo import load_demo_characters

from .session import (
    built_character,
    encounter_with,
    expect_live,
    fixed_dice,
    logged_in_page,
    next_turn,
    request_form_for_everyone,
    shoot,
    table_url,
)

pytestmark = pytest.mark.e2e


@pytest.fixture
def session(make_campaign, make_user, player, other_player):
    third = make_user("carol")
    campaign = make_campaign("fivebyfive", players=[player, other_player, third], name="Salt Road")
    load_demo_characters(campaign, players=[player, other_player])
    built_character(
        campaign,
        third,
        {
            "name": "Ada Flint",
            "descriptor_1": "Tinkerer",
            "descriptor_2": "Sharpshooter",
            "exclusive_2": "attack",
            "descriptor_3": "Quick Hands",
            "descriptor_4": "Mule Driver",
            "descriptor_5": "Seasick",
            "order": ["1", "2", "hp", "3", "4", "5"],
            "weapon": "Light weapon",
            "armor": "Light clothes",
        },
    )
    encounter = encounter_with(
        campaign,
        "Ambush",
        campaign.characters.order_by("pk"),
        "Bandit",
        {"descriptors": {"Brute": 6}, "hp": 12, "weapon_db": 2, "armor_av": -1, "shield": False},
    )
    return campaign, encounter, third


@pytest.mark.long
def test_a_fivebyfive_session_with_four_devices(new_page, session, gm, player, other_player, monkeypatch):
    campaign, encounter, third = session
    faces = fixed_dice(monkeypatch)
    larry = campaign.characters.get(owner=player)
    mara = campaign.characters.get(owner=other_player)
    ada = campaign.characters.get(owner=third)

    # Alice plays Larry from his sheet, Bob Mara from the table, Carol Ada from the table on her phone.
    alice = logged_in_page(new_page, player, larry.get_absolute_url())
    bob = logged_in_page(new_page, other_player, table_url(campaign))
    carol = logged_in_page(new_page, third, table_url(campaign), phone=True)
    expect_live(alice, bob, carol)

    gm_page = logged_in_page(new_page, gm, encounter.get_absolute_url())
    # Stealing initiative (Five by Five, "Stealing Initiative"): Larry (untrained) rolls 1 and 2, Mara
    # (Alertness 2) a trump, Ada (untrained) 1 and 3. Mara goes first, then the GM's side, then the rest.
    faces[:] = [1, 2, 6, 1, 1, 3]
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.get_by_role("heading", name=f"{mara.name}'s turn")).to_be_visible()
    order = gm_page.locator("[data-combatant]")
    expect(order).to_have_count(4)
    assert [order.nth(i).get_attribute("data-combatant") for i in range(4)] == [
        mara.name,
        "Bandit",
        larry.name,
        ada.name,
    ]

    # Mara's turn, from Bob's table: Caravan Guard 4 hits (1 x 2), the bandit's Brute 6 dodge fails
    # (5 x 4), and the damage is 4 + DB 3 + AV -1 = 6 ("Damage = 1d6 + DB ... - AV").
    expect(bob.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {mara.name}")
    faces[:] = [1, 2, 5, 4, 4]
    bob.locator("#turn-panel form.encounter-action", has_text="Attack").get_by_role(
        "button", name="Attack"
    ).click()
    expect(gm_page.locator("[data-combatant='Bandit'] .combatant-summary")).to_contain_text("HP 6/12")
    expect(carol.locator("#feed")).to_contain_text("Ambush: Bandit dodges")
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text(f"{mara.name} damages Bandit")
    expect(carol.locator("#encounter-panel [data-combatant='Bandit'] .combatant-summary")).to_have_text(
        "hurt"
    )
    next_turn(gm_page)

    # The GM runs the bandit: Brute 6 hits Larry (2 x 3), his Uncanny Reflexes 2 dodge fails (3 x 4),
    # damage 3 + DB 2 + AV -2 = 3. Alice's sheet shows the new HP without a reload.
    bandit = gm_page.locator("form.encounter-action", has_text="Attack")
    bandit.get_by_label("Target", exact=True).select_option(label=larry.name)
    bandit.get_by_label("Resolve at once").check()  # the GM's dodge here (tests/e2e/test_defence.py asks)
    faces[:] = [2, 3, 3, 4, 3]
    bandit.get_by_role("button", name="Attack").click()
    expect(alice.locator(".editable[data-path='hp']")).to_have_text("9")  # play state: no editor of hers
    expect(bob.locator("#encounter-panel")).to_contain_text("HP 9/12")
    next_turn(gm_page)

    # Larry's turn, on Alice's sheet: Brawler 4 hits (1 x 3); the bandit has used its one dodge of the
    # round ("Once per round a character can make a skill test to try to Dodge"), so 5 + 2 - 1 = 6 lands
    # and the bandit drops to 0: unconscious.
    expect(alice.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {larry.name}")
    faces[:] = [1, 3, 5]
    alice.locator("#turn-panel form.encounter-action", has_text="Attack").get_by_role(
        "button", name="Attack"
    ).click()
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text("Bandit has no dodge left this round")
    expect(gm_page.locator("[data-combatant='Bandit'] .combatant-summary")).to_contain_text("HP 0/12")
    expect(bob.locator("#encounter-panel [data-combatant='Bandit'] .combatant-summary")).to_have_text(
        "unconscious"
    )
    next_turn(gm_page)

    # Ada's turn, on Carol's phone: an untrained healing check trumps (6 x 2) and the healing die's 4
    # gives back Larry's 3 lost HP, no more than his maximum.
    expect(carol.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {ada.name}")
    heal = carol.locator("#turn-panel form.encounter-action", has_text="Heal")
    heal.scroll_into_view_if_needed()
    heal.get_by_label("Target", exact=True).select_option(label=larry.name)
    faces[:] = [6, 2, 4]
    shoot(carol, "fbf-carol-turn-390")
    heal.get_by_role("button", name="Heal").click()
    expect(alice.locator(".editable[data-path='hp']")).to_have_text("12")
    expect(gm_page.locator(f"[data-combatant='{larry.name}'] .combatant-summary")).to_contain_text("HP 12/12")
    gm_page.get_by_role("button", name="End encounter").click()

    # Advancement: the GM awards the session's XP ("Each game session ... is worth 1 XP", plus the
    # optional bonus and some saved), and Bob spends it on Mara's own sheet: Alertness 2 -> 4 costs 4.
    gm_page.goto(mara.get_absolute_url())
    gm_page.get_by_label("Award XP").fill("4")
    gm_page.get_by_role("button", name="Award XP").click()
    expect(gm_page.locator("#messages")).to_contain_text(f"{mara.name} gains 4 XP.")
    bob.goto(mara.get_absolute_url())
    bob.get_by_label("Spend XP (4 XP to spend)").select_option(label="Alertness 2 → 4 (4 XP)")
    bob.get_by_role("button", name="Spend XP").click()
    expect(bob.locator("#messages")).to_contain_text("Spent 4 XP.")
    expect(bob.locator(".roll-button", has_text="Alertness 4")).to_be_visible()
    shoot(bob, "fbf-bob-spent")

    # A roll request for any descriptor: each player answers from their own sheet with the one they
    # think fits. 2 x 3 = 6: Street Smarts 6 and Tinkerer 6 succeed, Caravan Guard 4 fails.
    carol.goto(ada.get_absolute_url())
    answers = {
        larry.name: (alice, "Street Smarts 6"),
        mara.name: (bob, "Caravan Guard 4"),
        ada.name: (carol, "Tinkerer 6"),
    }
    table = gm_page
    table.goto(table_url(campaign))
    expect(table.locator("#table-status")).to_have_text("Live")
    expect(table.locator("#party-panel")).to_contain_text("HP 12/12")
    panel = request_form_for_everyone(table)
    panel.locator("#id_label").fill("Spot the second ambush")
    panel.get_by_role("button", name="Ask").click()
    expect(panel.locator(".request-tally")).to_have_text("0 of 3 answered · 0 succeeded · 0 failed")
    for name, (page, button) in answers.items():
        prompt = page.locator(".roll-prompt")
        expect(prompt).to_contain_text("The GM asks: Spot the second ambush")
        faces[:] = [2, 3]
        prompt.get_by_role("button", name=button).click()
        expect(prompt).to_have_count(0)
        expect(panel.locator(".request-answer", has_text=name)).not_to_contain_text("waiting")
    expect(panel.locator(".request-tally")).to_have_text("3 of 3 answered · 2 succeeded · 1 failed")
    panel.get_by_role("button", name="Send group result to the table").click()
    expect(table.locator("#feed")).to_contain_text("Spot the second ambush: group result")
