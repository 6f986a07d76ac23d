"""A whole Triad session with four browsers: the GM and three players, each on their own device.

The GM starts a fight with the three player characters and a Ghoul; each player takes their own turn
from their own sheet or table page, the GM runs the Ghoul, and every result reaches the others live.
Then advancement (the book has no XP: a character grows by moving to a bigger tier, Triad, l.199-203,
which the player does on their own sheet) and a roll request every player answers. The GM never edits
a player's sheet.
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
    campaign = make_campaign("triad", players=[player, other_player, third], name="Crypt Night")
    load_demo_characters(campaign, players=[player, other_player])
    built_character(
        campaign,
        third,
        {
            "name": "Mina Harker",
            "tier": "ordinary",
            "body": "12",
            "mind": "9",
            "spirit": "9",
            "traits": ["Physique", "Swords", "Deadly"],
            "weapon": "light",
        },
    )
    encounter = encounter_with(
        campaign,
        "Crypt",
        campaign.characters.order_by("pk"),
        "Ghoul",
        {"difficulty": 14, "weapon": "medium", "armor": "light", "kind": "body"},
    )
    return campaign, encounter, third


@pytest.mark.long
def test_a_triad_session_with_four_devices(new_page, session, gm, player, other_player, monkeypatch):
    campaign, encounter, third = session
    faces = fixed_dice(monkeypatch)
    helsing = campaign.characters.get(owner=player)
    zheng = campaign.characters.get(owner=other_player)
    mina = campaign.characters.get(owner=third)

    # Alice plays from her sheet, Bob from the table on a laptop, Carol from the table on her phone.
    alice = logged_in_page(new_page, player, helsing.get_absolute_url())
    bob = logged_in_page(new_page, other_player, table_url(campaign))
    carol = logged_in_page(new_page, third, table_url(campaign), phone=True)
    expect_live(alice, bob, carol)

    gm_page = logged_in_page(new_page, gm, encounter.get_absolute_url())
    # Initiative (Triad, l.84): every die a 3, so each character's best score counts (Van Helsing's
    # Mind 15, Zheng's Spirit 13, Mina's Body 12); the Ghoul's is its Difficulty + 5 = 19: it goes first.
    faces[:] = [3, 3, 3]
    gm_page.get_by_role("button", name="Roll initiative and start").click()
    expect(gm_page.get_by_role("heading", name="Ghoul's turn")).to_be_visible()
    order = gm_page.locator("[data-combatant]")
    expect(order).to_have_count(4)
    assert [order.nth(i).get_attribute("data-combatant") for i in range(4)] == [
        "Ghoul",
        helsing.name,
        zheng.name,
        mina.name,
    ]

    # The GM runs the Ghoul: it attacks Zheng, who fumbles her defence (a 1). Medium weapon, 6 points to
    # Body 10, no armor: Body 4, and 5 or more at once stuns her (Triad, l.124).
    ghoul = gm_page.locator("form.encounter-action", has_text="Attack")
    ghoul.get_by_label("Target", exact=True).select_option(label=zheng.name)
    ghoul.get_by_label("Resolve at once").check()  # the GM rolls it here (tests/e2e/test_defence.py asks Bob)
    faces[:] = [1]
    ghoul.get_by_role("button", name="Attack").click()
    bob_zheng = bob.locator(f"#encounter-panel [data-combatant='{zheng.name}'] .combatant-summary")
    expect(bob_zheng).to_contain_text("Body 4/10")
    expect(bob_zheng).to_contain_text("stunned")
    expect(carol.locator("#feed")).to_contain_text(f"Crypt: Ghoul attacks {zheng.name}")
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text(f"Ghoul attacks {zheng.name}")
    next_turn(gm_page)

    # Van Helsing's turn, on Alice's sheet: a critical (20 vs 14): Light 3 doubled, less light armor 2.
    expect(alice.get_by_role("status").filter(has_text="Your turn")).to_have_text(
        f"Your turn: {helsing.name}"
    )
    expect(bob.locator("#turn-panel form")).to_have_count(0)
    faces[:] = [20]
    alice.locator("#turn-panel form.encounter-action", has_text="Attack").first.get_by_role(
        "button", name="Attack"
    ).click()
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text(f"{helsing.name} attacks Ghoul")
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("Difficulty 10/14")
    expect(bob.locator("#encounter-panel [data-combatant='Ghoul'] .combatant-summary")).to_have_text("hurt")
    next_turn(gm_page)

    # Zheng's turn, from Bob's table: stunned, so two dice and the lower kept (20 and 20: a critical).
    expect(bob.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {zheng.name}")
    expect(alice.locator("#turn-panel")).to_contain_text(f"Now: {zheng.name}'s turn")
    faces[:] = [20, 20]
    bob.locator("#turn-panel form.encounter-action", has_text="Attack").first.get_by_role(
        "button", name="Attack"
    ).click()
    expect(bob.locator("#feed")).to_contain_text(f"{zheng.name} attacks Ghoul")
    expect(bob.locator("#feed .feed-entry").first).to_contain_text("(stunned)")
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_have_text("Difficulty 6/14")
    next_turn(gm_page)
    # The stun ends with the turn it spoiled.
    expect(bob_zheng).not_to_contain_text("stunned")

    # Mina's turn, on Carol's phone: Deadly adds 3 before the critical doubles it (Triad, l.73):
    # (3 + 3) x 2 - 2 = 10, and the Ghoul at Difficulty 0 is out (Triad, l.127).
    expect(carol.get_by_role("status").filter(has_text="Your turn")).to_have_text(f"Your turn: {mina.name}")
    carol_attack = carol.locator("#turn-panel form.encounter-action", has_text="Attack").first
    carol_attack.scroll_into_view_if_needed()
    faces[:] = [20]
    shoot(carol, "triad-carol-turn-390")
    carol_attack.get_by_role("button", name="Attack").click()
    expect(gm_page.locator("[data-combatant='Ghoul'] .combatant-summary")).to_contain_text("out")
    expect(bob.locator("#encounter-panel [data-combatant='Ghoul'] .combatant-summary")).to_have_text("out")
    expect(alice.locator("#turn-panel .turn-latest")).to_contain_text("Ghoul is slain")
    gm_page.get_by_role("button", name="End encounter").click()

    # Advancement: Zheng (Heroic, 35 points and 5 traits) moves up to Elite (40 points, 7 traits): the
    # tier, 5 more points of maximum and two traits. Triad has no XP to buy them, so the GM types the
    # build (sheets/policy.py); Bob's open sheet follows.
    bob.goto(zheng.get_absolute_url())
    expect(bob.get_by_role("button", name="Edit Tier: Heroic")).to_have_count(0)
    gm_page.goto(zheng.get_absolute_url())
    gm_page.get_by_role("button", name="Edit Tier: Heroic").click()
    gm_page.get_by_label("Tier", exact=True).select_option("elite")  # a choice in a list saves at once
    # The tier's totals and the check of the build follow the edit at once (no reload).
    expect(gm_page.locator("#triad-tier-totals")).to_have_text(" (40 points, 7 traits)")
    expect(gm_page.locator(".triad-out-of-tier")).to_contain_text("Out of tier")
    gm_page.get_by_role("button", name="Edit Mind maximum: 12").click()
    gm_page.get_by_label("Mind maximum", exact=True).fill("17")
    gm_page.get_by_label("Mind maximum", exact=True).press("Enter")
    expect(gm_page.get_by_role("button", name="Edit Mind maximum: 17")).to_be_visible()
    for trait in ("Awareness", "Charm"):
        gm_page.get_by_label("Trait from the list").select_option(trait)
        # A plain form on the sheet, after the page's own in-place saves: not refused as stale.
        gm_page.get_by_role("button", name="Add trait").click()
        expect(gm_page.locator("#messages")).to_contain_text(f"Added {trait}.")
    expect(gm_page.locator(".triad-out-of-tier")).to_have_count(0)
    expect(bob.locator(".triad-out-of-tier")).to_have_count(0)
    expect(bob.locator(".roll-button", has_text="Awareness")).to_be_visible()
    shoot(bob, "triad-bob-advanced")

    # A roll request: the GM asks all three for Mind against 12; each answers from their own sheet.
    carol.goto(mina.get_absolute_url())
    sheets = {helsing.name: alice, zheng.name: bob, mina.name: carol}
    table = gm_page
    table.goto(table_url(campaign))
    expect(table.locator("#table-status")).to_have_text("Live")
    # The GM's party panel already shows Zheng's new maximum: the GM never opened her sheet.
    expect(table.locator("#party-panel")).to_contain_text("Mind 12/17")
    panel = request_form_for_everyone(table)
    panel.locator("#id_label").fill("Decipher the crypt's warding")
    panel.locator("#id_roll_key").select_option("ability:mind")
    panel.locator("#id_difficulty").fill("12")
    panel.get_by_role("button", name="Ask").click()
    expect(panel.locator(".request-tally")).to_have_text("0 of 3 answered · 0 succeeded · 0 failed")
    for name, page in sheets.items():
        prompt = page.locator(".roll-prompt")
        expect(prompt).to_contain_text("The GM asks: Decipher the crypt's warding")
        faces[:] = [14]
        prompt.locator("button").first.click()
        expect(prompt).to_have_count(0)
        expect(panel.locator(".request-answer", has_text=name)).not_to_contain_text("waiting")
    # 14 beats 12 whatever the Mind: three successes.
    expect(panel.locator(".request-tally")).to_have_text("3 of 3 answered · 3 succeeded · 0 failed")
    panel.get_by_role("button", name="Send group result to the table").click()
    expect(table.locator("#feed")).to_contain_text("Decipher the crypt's warding: group result")
