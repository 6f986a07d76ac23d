"""L5R above the dice, played through the builder, the campaign page and the sheet: the starting budget,
experience at the common 4th-edition costs, armor on the sheet and what a character at Out may do.

The seed is the dice chapter only: it gives no costs, armor or wound chart. Each test names the seed
line the rule hangs from and the reading taken (docs/rules.md, "L5R sheet").
"""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaigns.models import Campaign, FeedEntry
from rules import l5r
from sheets.history import UndoRefused, change_undo
from sheets.models import Character, SheetChange
from sheets.systems.l5r.models import L5RSheet, L5RSkill
from sheets.systems.l5r.sheet import system as l5r_system

from .conftest import HTMX, page_text
from .test_l5r import VALID, build, counts, edit, roll


@pytest.fixture
def table(make_campaign, player):
    return make_campaign("l5r", players=[player])


def set_budget(client, campaign, value):
    """The GM's campaign page, as the browser posts it."""
    return client.post(
        reverse("campaign_edit", args=[campaign.pk]),
        {"name": campaign.name, "description": "", "option_l5r_starting_xp": value},
    )


def kuroda(client, campaign):
    """VALID costs 36 XP: Strength 3 and Agility 3 (12 each), Kenjutsu 3 (6), Defense 2 (3),
    Athletics 1, the Tetsubo emphasis (2)."""
    build(client, campaign)
    return Character.objects.get(name="Hida Kuroda")


def spend(client, character, offer, name=""):
    return client.post(reverse("xp_spend", args=[character.pk]), {"offer": offer, "name": name}, follow=True)


# ----- the starting budget -------------------------------------------------------------------------------


def test_rule_starting_budget_caps_the_builder(table, player, gm, client_for):
    """Seed l.8: the dice come from "the abilities on the samurai's character sheet"; it prices none.
    Reading: every trait and Void start at 2 and the rest is bought from the GM's starting budget
    (40 XP unless the GM sets another), traits at 4 x each new rank."""
    client = client_for(player)
    before = counts()
    response = build(client, table, agility=4)  # 36 + 16 (Agility 4) = 52
    assert response.status_code == 200
    message = "This character costs 52 XP; the campaign's starting budget is 40 XP (12 over)."
    assert message in response.context["form"].non_field_errors()[0]
    assert "This character costs 52 XP" in page_text(response)
    assert counts() == before
    # The GM raises the budget on the campaign page; the same build now passes.
    assert set_budget(client_for(gm), table, "60").status_code == 302
    table.refresh_from_db()
    assert table.options["l5r_starting_xp"] == 60
    assert build(client, table, agility=4).status_code == 302
    assert Character.objects.get().l5r.agility == 4


def test_rule_builder_shows_what_the_build_costs(table, player, client_for):
    """Seed l.8 (no costs in the seed): the live preview prices the typed ranks against the budget."""
    url = reverse("l5r_builder_preview", args=[table.pk])
    body = client_for(player).post(url, {**VALID, "void": 3}, **HTMX).content.decode()
    # 36 + Void 3 (6 x 3) = 54.
    assert "XP spent: <strong>54</strong> of this table's 40" in body and "(over budget)" in body


def test_rule_a_new_budget_reaches_existing_sheets(table, player, gm, client_for):
    """Seed l.8. Reading: what is left to spend is the campaign's budget now + the GM's awards - what the
    sheet's ranks cost, so a budget the GM changes later counts for characters already built."""
    character = kuroda(client_for(player), table)
    assert l5r_system.xp(character) == 4
    form_page = client_for(gm).get(reverse("campaign_edit", args=[table.pk])).content.decode()
    assert 'name="option_l5r_starting_xp" value="40"' in form_page and "Starting XP budget" in form_page
    set_budget(client_for(gm), table, "50")
    character = Character.objects.get(pk=character.pk)
    assert l5r_system.xp(character) == 14
    assert "Spend XP (14 XP to spend)" in page_text(client_for(player).get(character.get_absolute_url()))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("abc", "Enter a whole number (digits 0-9)."),
        ("-1", "greater than or equal to 0"),
        ("1001", "less than or equal to 1000"),
    ],
)
def test_rule_budget_refuses_bad_numbers(table, gm, client_for, value, message):
    """Seed l.8. The GM's budget is a whole number from 0 to 1000; anything else is refused on the field."""
    before = dict(Campaign.objects.get(pk=table.pk).options)
    response = set_budget(client_for(gm), table, value)
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors["option_l5r_starting_xp"])
    assert Campaign.objects.get(pk=table.pk).options == before


def test_rule_budget_is_a_number_not_a_switch(table):
    """Campaign.options keeps a number option as an int within its bounds; a switch's value is refused."""
    for bad in (True, "40", 5000):
        table.options = {"l5r_starting_xp": bad}
        with pytest.raises(ValidationError, match="Starting XP budget is a whole number from 0 to 1000"):
            table.full_clean()
    table.options = {"l5r_starting_xp": 0, "l5r_odd_die_bonus": True}
    table.full_clean()


def test_rule_ten_dice_house_rule_reaches_existing_sheets(table, player, gm, client_for):
    """Seed l.80-83: past ten rolled dice, two extra rolled dice make one kept die ("13k9 would become
    10k10 + 2"). House rule: an odd die left over is +2 instead of lost, turned on by the GM on the
    campaign page for characters already built."""
    set_budget(client_for(gm), table, "200")
    client = client_for(player)
    build(client, table, agility=4, skill_kenjutsu=7)  # Kenjutsu 11k4
    character = Character.objects.get()
    url = reverse("sheet_buttons", args=[character.pk])
    options = {"tn": 30, "raises": 0, "free_raises": 0, "free_on_tn": 0}
    assert "11k4 → 10k4 vs TN 30" in client.get(url, options, **HTMX).content.decode()
    client_for(gm).post(
        reverse("campaign_edit", args=[table.pk]),
        {
            "name": table.name,
            "description": "",
            "option_l5r_starting_xp": "200",
            "option_l5r_odd_die_bonus": "on",
        },
    )
    assert "11k4 → 10k4+2 vs TN 30" in client.get(url, options, **HTMX).content.decode()
    assert "Ten Dice house rule" in page_text(client.get(character.get_absolute_url()))


# ----- experience ------------------------------------------------------------------------------------


def test_rule_costs_follow_the_common_fourth_edition_table():
    """Seed l.8 gives no costs. Reading: a trait costs 4 x the new rank, Void 6 x, a skill rank the new
    rank, an emphasis 2; a build is priced from 2 in every trait and Void."""
    costs = (l5r.trait_cost(3), l5r.trait_cost(4), l5r.void_cost(3), l5r.skill_cost(1))
    assert costs == (12, 16, 18, 1)
    base = dict.fromkeys(l5r.TRAITS, 2)
    assert l5r.build_cost(base, void=2) == 0
    # Reflexes 4 (12 + 16), Void 3 (18), Kyujutsu 3 (1 + 2 + 3), one emphasis (2).
    assert l5r.build_cost({**base, "reflexes": 4}, void=3, skills={"Kyujutsu": 3}, emphases=1) == 54
    # Below the base gives nothing back.
    assert l5r.build_cost({**base, "stamina": 1}, void=1) == 0


def test_rule_gm_awards_and_player_raises_a_trait(table, player, gm, client_for):
    """Seed l.8. Reading: the GM awards XP; the player raises a trait one rank at 4 x the new rank."""
    character = kuroda(client_for(player), table)
    response = client_for(gm).post(reverse("xp_award", args=[character.pk]), {"amount": "10"}, follow=True)
    assert "Hida Kuroda gains 10 XP." in page_text(response)
    character = Character.objects.get(pk=character.pk)
    assert (character.l5r.xp_awarded, l5r_system.xp(character)) == (10, 14)
    response = spend(client_for(player), character, "trait:intelligence@2")
    assert "Spent 12 XP." in page_text(response)
    sheet = L5RSheet.objects.get(character=character)
    assert sheet.intelligence == 3 and l5r_system.xp(Character.objects.get(pk=character.pk)) == 2
    change = SheetChange.objects.filter(character=character).latest("pk")
    assert change.reason == "Spent 12 XP: Intelligence raised to 3"
    # A second click carries the rank it saw (2): refused, nothing paid twice.
    response = spend(client_for(player), character, "trait:intelligence@2")
    assert "Intelligence is 3 now, not what you saw" in page_text(response)
    assert L5RSheet.objects.get(character=character).intelligence == 3


def test_rule_void_costs_six_times_the_new_rank(table, player, gm, client_for):
    """Seed l.28 (raises up to Void). Reading: Void 3 costs 6 x 3 = 18; short of XP, nothing is bought."""
    character = kuroda(client_for(player), table)
    offers = {offer.key: offer for offer in l5r_system.xp_spends(character)}
    assert offers["void"].cost is None and offers["void"].label == "Void 2 → 3 (18 XP; 4 left)"

    def state():
        return L5RSheet.objects.filter(character=character).values().get(), SheetChange.objects.count()

    before = state()
    response = spend(client_for(player), character, "void@2")
    assert "Void 3 costs 18 XP; Hida Kuroda has 4." in page_text(response)
    assert state() == before
    client_for(gm).post(reverse("xp_award", args=[character.pk]), {"amount": "14"})
    assert "Spent 18 XP." in page_text(spend(client_for(player), character, "void@2"))
    assert L5RSheet.objects.get(character=character).void == 3


def test_rule_skill_rank_costs_the_new_rank(table, player, gm, client_for):
    """Seed l.33 (a skill is combined with a trait). Reading: a skill rank costs the new rank; a skill
    not on the sheet starts at rank 1 for 1 XP, with the trait it usually pairs with."""
    character = kuroda(client_for(player), table)
    assert "Spent 1 XP." in page_text(spend(client_for(player), character, "skill:skill_stealth@0"))
    stealth = L5RSkill.objects.get(character=character, name="Stealth")
    assert (stealth.rank, stealth.trait) == (1, "agility")
    assert "Spent 2 XP." in page_text(spend(client_for(player), character, "skill:skill_athletics@1"))
    assert L5RSkill.objects.get(character=character, name="Athletics").rank == 2
    assert l5r_system.xp(Character.objects.get(pk=character.pk)) == 1
    # Every spend is a sheet change: undoing a raise puts the rank and the XP back; undoing the new
    # skill takes its row off, and its XP comes back with it. The GM undoes a purchase: the player may
    # not (tests/sheets/test_write_policy.py), or a rank bought for one roll could be sold back after it.
    raised, added = SheetChange.objects.filter(character=character).order_by("-pk")[:2]
    with pytest.raises(UndoRefused, match="is part of the build"):
        change_undo(change=raised, author=player)
    change_undo(change=raised, author=gm)
    assert L5RSkill.objects.get(character=character, name="Athletics").rank == 1
    assert l5r_system.xp(Character.objects.get(pk=character.pk)) == 3
    change_undo(change=added, author=gm)
    assert not L5RSkill.objects.filter(character=character, name="Stealth").exists()
    assert l5r_system.xp(Character.objects.get(pk=character.pk)) == 4
    with pytest.raises(UndoRefused, match="already undone"):
        change_undo(change=added, author=gm)


def test_rule_emphasis_costs_two(table, player, client_for):
    """Seed l.67 ("Athletics (Climbing)": a skill with its emphasis). Reading: each emphasis costs 2 XP;
    several on one skill are kept in its field, separated by commas."""
    character = kuroda(client_for(player), table)
    response = spend(client_for(player), character, "emphasis:skill_kenjutsu@Tetsubo", name="  Katana ")
    assert "Spent 2 XP." in page_text(response)
    assert L5RSkill.objects.get(character=character, name="Kenjutsu").emphasis == "Tetsubo, Katana"
    assert l5r_system.xp(Character.objects.get(pk=character.pk)) == 2
    response = spend(client_for(player), character, "emphasis:skill_kenjutsu@Tetsubo, Katana", name="")
    assert "Name the new Kenjutsu emphasis." in page_text(response)
    response = spend(client_for(player), character, "emphasis:skill_kenjutsu@Tetsubo, Katana", name="katana")
    assert "Kenjutsu already has the emphasis katana." in page_text(response)
    assert l5r_system.xp(Character.objects.get(pk=character.pk)) == 2


def test_rule_players_buy_ranks_the_gm_corrects_them(table, player, gm, client_for):
    """Seed l.8. Reading: ranks change through XP; typing one in is the GM's correction (it costs what
    the new rank costs, so the sheet's XP left follows)."""
    character = kuroda(client_for(player), table)
    response = edit(client_for(player), character, "perception", "5")
    assert response.status_code == 422
    assert "Perception is part of the build: after creation only XP spent" in response.content.decode()
    assert L5RSheet.objects.get(character=character).perception == 2
    character.refresh_from_db()
    assert edit(client_for(gm), character, "perception", "3").status_code == 200
    character = Character.objects.get(pk=character.pk)
    assert character.l5r.perception == 3 and l5r_system.xp(character) == 0
    assert "-8 (over budget)" in page_text(client_for(player).get(character.get_absolute_url()))


# ----- armor and the last wound ranks on the sheet ---------------------------------------------------


def test_rule_armor_on_the_sheet_raises_the_armor_tn(table, player, gm, client_for):
    """Seed l.46 (a successful attack roll inflicts damage). 4th edition, Armor: the TN to hit is
    5 x Reflexes + 5 plus the armor's bonus recorded on the sheet (light +5, heavy +10), and the armor's
    Reduction (light 3, heavy 5) comes off every damage roll."""
    client = client_for(player)
    build(client, table, armor=5, reduction=3)  # light armor
    character = Character.objects.get()
    assert (character.l5r.armor, character.l5r.reduction) == (5, 3)
    page = client.get(character.get_absolute_url()).content.decode()
    assert 'id="armor-tn" title="5 x Reflexes + 5, plus armor: the TN to hit you">20<' in page
    response = edit(client_for(gm), character, "armor", "10")  # the builder's, then the GM's to type
    assert 'id="armor-tn" hx-swap-oob="true" title="5 x Reflexes + 5, plus armor: the TN to hit you">25<' in (
        response.content.decode()
    )
    edit(client_for(gm), Character.objects.get(pk=character.pk), "reduction", "5")  # heavy armor
    assert L5RSheet.objects.filter(character=character).values_list("armor", "reduction").get() == (10, 5)
    exported = l5r_system.export_data(Character.objects.get(pk=character.pk))
    assert (exported["armor"], exported["reduction"]) == (10, 5)


def test_rule_out_cannot_roll(demo_character, player, client_for):
    """Seed l.46 (damage lands as Wounds). Reading: at Out (or dead) a character is unconscious: no
    rolls from the sheet until healed; at Down it may still roll what the GM asks, at +40."""
    character = demo_character("l5r")  # Earth 2: Down holds 31-34 wounds, Out 35-38
    client = client_for(player)
    L5RSheet.objects.filter(character=character).update(wounds=33)
    character = Character.objects.get(pk=character.pk)
    assert "no attacks or other Complex Actions" in page_text(client.get(character.get_absolute_url()))
    key = f"skill:{character.l5r_skills.get(name='Kyujutsu').pk}"
    response = roll(client, character, key)
    assert response.status_code == 200 and FeedEntry.objects.get().request["effective_tn"] == 55
    L5RSheet.objects.filter(character=character).update(wounds=36)
    response = roll(client, character, key)
    assert "Bayushi Shinai is Out: unconscious: no actions, no rolls until healed." in page_text(response)
    assert FeedEntry.objects.count() == 1


def test_rule_demo_characters_are_built_without_the_budget(demo_character, player, client_for):
    """Seed l.35: "Shinai has Reflexes 3 and Kyujutsu 4". The demo keeps the seed's archer, who costs
    69 XP, past the usual 40: his sheet shows the overspend and offers nothing he cannot pay for."""
    shinai = demo_character("l5r")
    assert l5r_system.xp(shinai) == 0
    assert "-29 (over budget)" in page_text(client_for(player).get(shinai.get_absolute_url()))
    assert all(offer.cost is None for offer in l5r_system.xp_spends(shinai))
    tishi = Character.objects.get(name="Isawa Tishi")
    assert l5r_system.xp(tishi) == 4
