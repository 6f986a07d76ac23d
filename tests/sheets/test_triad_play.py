"""Triad between and after fights, through the sheet's views: rest and recovery, Hard To ... flags, Berserker
Rage's waiting advantage, death, and the tier, traits and optional rule on an existing sheet."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from play.models import RollRequestTarget
from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.triad.models import TriadSheet, TriadTrait

from .conftest import HTMX, page_text
from .test_write_policy import players_adjust_play_state


@pytest.fixture
def helsing(demo_character):
    # Body 8, Mind 15, Spirit 13; Hard To Unnerve, Medical Expert, Natural Sciences, Occult, Willpower.
    return demo_character("triad")


def hurt(character, **scores):
    TriadSheet.objects.filter(character=character).update(**scores)
    character.triad.refresh_from_db()


def rest(client, character, hours, **split):
    data = {"rest-hours": hours, **{f"rest-{k}": v for k, v in split.items()}}
    return client.post(reverse("triad_rest", args=[character.pk]), data, follow=True)


def values(character):
    return TriadSheet.objects.filter(character=character).values().get()


def test_rest_recovers_one_point_an_hour_where_the_player_chooses(helsing, player, client_for):
    """Triad l.103: "recover 1 Body, Mind, or Spirit ability score point per hour of rest ... the player may
    decide how to divide up the recovered points among any reduced ability scores."""
    players_adjust_play_state(helsing.campaign)  # the table lets players rest (sheets/policy.py)
    hurt(helsing, body=4, mind=10, stunned=True)
    before = snapshot(helsing)
    response = rest(client_for(player), helsing, 3, mind=2)
    assert "Rested: Body 4 -&gt; 5, Mind 10 -&gt; 12" in response.content.decode()
    helsing.triad.refresh_from_db()
    # Two points where asked; the third fills Body first. An hour outlasts the stun.
    assert (helsing.triad.body, helsing.triad.mind, helsing.triad.stunned) == (5, 12, False)
    change = SheetChange.objects.get(character=helsing)
    assert change.reason.startswith("Rested 3 h") and change.author == player
    change_undo(change=change, author=player)
    helsing.refresh_from_db()
    assert snapshot(helsing) == before


@pytest.mark.parametrize(
    ("hours", "split", "message"),
    [
        (5, {"body": 5}, "Points to Body: Body cannot recover past its maximum of 8."),
        (2, {"mind": 3}, "2 hours of rest recover only 2 points; the split asks for 3."),
        (0, {}, "Hours of rest: at least 1 hour."),
        ("x", {}, "Hours of rest: a whole number from 1 to 99"),
        (2, {"spirit": "-1"}, "Points to Spirit"),
    ],
)
def test_rest_refuses_bad_input_and_saves_nothing(helsing, player, client_for, hours, split, message):
    """Triad l.103: "up to the character's starting maximum total"; one point per hour."""
    players_adjust_play_state(helsing.campaign)
    hurt(helsing, body=4, mind=10)
    before = (values(helsing), helsing.version)
    response = rest(client_for(player), helsing, hours, **split)
    assert message in page_text(response)
    helsing.refresh_from_db()
    assert (values(helsing), helsing.version) == before


def test_only_the_player_and_the_gm_rest_a_character(helsing, other_player, gm, client_for):
    hurt(helsing, body=4)
    assert rest(client_for(other_player), helsing, 1).status_code == 403
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 4
    rest(client_for(gm), helsing, 1)
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 5


def test_hard_to_unnerve_is_ready_again_once_spirit_is_full(helsing, player, client_for):
    """Triad l.78: "You cannot benefit from this trait again until your Spirit points are recovered back to
    their full total." The sheet shows the flag, and resting to full clears it."""
    players_adjust_play_state(helsing.campaign)
    hurt(helsing, spirit=7, hard_to_unnerve_used=True)
    page = page_text(client_for(player).get(helsing.get_absolute_url()))
    assert "Hard To Unnerve used (ready again at full Spirit) yes" in page
    assert "Hard To Kill used" not in page  # he does not have the trait
    rest(client_for(player), helsing, 6, spirit=6)
    helsing.triad.refresh_from_db()
    assert (helsing.triad.spirit, helsing.triad.hard_to_unnerve_used) == (13, False)
    assert "Hard To Unnerve ready again" in " ".join(SheetChange.objects.get().reason.split(": ")[1:])


def test_hard_to_flag_is_the_gms_to_set_by_hand(helsing, player, gm, client_for):
    """Triad l.78: the sheet records that the trait was used; only the GM overrules the record."""
    url = reverse("sheet_field", args=[helsing.pk, "hard_to_unnerve_used"])
    refused = client_for(player).post(url, {"value": "on", "version": helsing.version}, **HTMX)
    assert refused.status_code in (403, 422)
    helsing.triad.refresh_from_db()
    assert helsing.triad.hard_to_unnerve_used is False
    client_for(gm).post(url, {"value": "on", "version": helsing.version}, **HTMX)
    helsing.triad.refresh_from_db()
    assert helsing.triad.hard_to_unnerve_used is True


def test_healing_by_hand_to_full_readies_hard_to_again(helsing, gm, client_for):
    """Triad l.78: recovered "back to their full total", however the points came back."""
    hurt(helsing, spirit=6, hard_to_unnerve_used=True)
    url = reverse("sheet_field", args=[helsing.pk, "spirit"])
    client_for(gm).post(url, {"value": "13", "version": helsing.version}, **HTMX)
    helsing.triad.refresh_from_db()
    assert (helsing.triad.spirit, helsing.triad.hard_to_unnerve_used) == (13, False)


def roll(client, character, key, **options):
    data = {"difficulty": 10, "advantages": 0, "disadvantages": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def test_berserker_rage_advantage_is_spent_by_the_next_body_roll(helsing, player, client_for, fixed_dice):
    """Triad l.142: "gain advantage on your next Body-related task roll" - even when it comes off the
    sheet, after the fight."""
    hurt(helsing, rage_advantage=True)
    fixed_dice(7)
    roll(client_for(player), helsing, "ability:mind")  # not a Body task: one die, advantage kept
    helsing.triad.refresh_from_db()
    assert helsing.triad.rage_advantage is True
    fixed_dice(3, 12)
    response = roll(client_for(player), helsing, "ability:body")
    entry = FeedEntry.objects.order_by("pk").last()
    assert [d["kept"] for d in entry.result["dice"]] == [False, True]
    assert "Berserker Rage advantage used" in entry.result["changes"]
    helsing.triad.refresh_from_db()
    assert helsing.triad.rage_advantage is False
    assert 'id="triad-condition" class="mt-3" hx-swap-oob="true"' in response.content.decode()


def test_stunned_character_rolls_from_the_sheet_at_disadvantage(helsing, player, client_for, fixed_dice):
    """Triad l.124: a stunned target suffers "Disadvantage on all of that target's task rolls": a roll
    from the sheet while it says stunned takes two dice and keeps the lower."""
    hurt(helsing, stunned=True)
    fixed_dice(18, 3)
    roll(client_for(player), helsing, "ability:body")
    entry = FeedEntry.objects.order_by("pk").last()
    assert [(d["face"], d["kept"]) for d in entry.result["dice"]] == [(18, False), (3, True)]
    # Kept 3, floored by Body 8, against 10: a failure (18 alone would have been a critical).
    assert entry.result["outcome"] == "failure" and entry.result["total"] == 8


def test_the_dead_roll_nothing(helsing, player, client_for, fixed_dice):
    """Triad l.126: "the character dies"; the sheet says so and refuses rolls."""
    hurt(helsing, body=0, dead=True)
    fixed_dice(15)
    response = roll(client_for(player), helsing, "ability:mind")
    assert response.status_code == 422 and "is dead and rolls nothing" in page_text(response)
    assert not FeedEntry.objects.exists()
    assert "Abraham Van Helsing is dead." in page_text(client_for(player).get(helsing.get_absolute_url()))


def test_dying_is_shown_on_the_sheet(helsing, player, client_for):
    """Triad l.126: "Any character reduced to 0 in Body, Mind, or Spirit is dying and cannot take actions"."""
    hurt(helsing, mind=0)
    assert "Dying: a score is at 0." in page_text(client_for(player).get(helsing.get_absolute_url()))


# ----- the tier, traits and the GM's optional rule on an existing sheet -------------------------------


def edit(client, character, path, value):
    character.refresh_from_db()
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version},
        **HTMX,
    )


def test_out_of_tier_rule_applies_to_existing_sheets(helsing, gm, player, client_for):
    """Triad l.200-207 (the tiers) with the GM's "Allow characters outside the tiers": turned on or off
    for a campaign, it governs the sheets already made, not only new ones."""
    campaign = helsing.campaign
    # Van Helsing (36 points, 5 traits) was made from the seed's sample, outside every tier.
    page = page_text(client_for(player).get(helsing.get_absolute_url()))
    assert "This campaign does not allow characters outside the tiers" in page
    # He can be put into a tier: Heroic is 35 points and 5 traits, so Body 7 makes it.
    edit(client_for(gm), helsing, "tier", "heroic")
    edit(client_for(gm), helsing, "body_max", "7")
    page = page_text(client_for(player).get(helsing.get_absolute_url()))
    assert "Out of tier" not in page and "Heroic" in page
    # Without the rule "No tier" is refused; with it, it is a choice.
    refused = edit(client_for(gm), helsing, "tier", "")
    assert refused.status_code == 422 and "Choose one of the listed options for Tier." in page_text(refused)
    campaign.options = {**campaign.options, "triad_out_of_tier": True}
    campaign.save()
    assert edit(client_for(gm), helsing, "tier", "").status_code == 200
    helsing.triad.refresh_from_db()
    assert helsing.triad.tier == ""
    edit(client_for(gm), helsing, "body_max", "8")  # 36 points again: no tier has that
    assert "The GM allows characters outside the tiers." in page_text(
        client_for(player).get(helsing.get_absolute_url())
    )


def test_a_tier_move_redraws_the_tier_totals_and_the_build_check(helsing, gm, client_for):
    """Triad l.199-203 ("Heroic: 35 ability score points, 5 Traits"; "Elite: 40 ... 7 Traits"): moving to a
    bigger tier on the sheet shows the new tier's totals and what the build now misses, with the edit's
    answer, not only after a reload."""
    edit(client_for(gm), helsing, "tier", "heroic")
    response = edit(client_for(gm), helsing, "body_max", "7")  # 35 points, 5 traits: Heroic exactly
    body = response.content.decode()
    assert '<span id="triad-tier-totals" hx-swap-oob="true"> (35 points, 5 traits)</span>' in body
    assert '<div id="triad-build-check" hx-swap-oob="true"></div>' in body
    response = edit(client_for(gm), helsing, "tier", "elite")
    body = response.content.decode()
    assert '<span id="triad-tier-totals" hx-swap-oob="true"> (40 points, 7 traits)</span>' in body
    check = body.split('id="triad-build-check"', 1)[1]
    assert "Out of tier:" in check and "40" in check


def add_trait(client, character, listed="", custom=""):
    return client.post(
        reverse("triad_trait_add", args=[character.pk]),
        {"trait-listed": listed, "trait-custom": custom},
        follow=True,
    )


def test_traits_are_added_and_removed_on_an_existing_sheet(helsing, gm, client_for):
    """Triad l.199: "chose from the list of traits"; advancement to a bigger tier takes more of them.
    The tier, maxima and traits are the build: after creation the GM's (sheets/policy.py)."""
    response = add_trait(client_for(gm), helsing, listed="Deadly")
    assert "Added Deadly." in page_text(response)
    deadly = helsing.triad_traits.get(name="Deadly")
    assert (deadly.adv, deadly.custom) == (False, False) and deadly.description
    add_trait(client_for(gm), helsing, custom="Ghost Lore (Adv.)")
    lore = helsing.triad_traits.get(name="Ghost Lore")
    assert (lore.adv, lore.custom) == (True, True)
    response = client_for(gm).post(
        reverse("triad_trait_remove", args=[helsing.pk]), {"trait": deadly.pk}, follow=True
    )
    assert "Removed Deadly." in page_text(response)
    assert not helsing.triad_traits.filter(name="Deadly").exists()
    assert [c.reason for c in SheetChange.objects.order_by("pk")] == [
        "Added trait Deadly",
        "Added trait Ghost Lore",
        "Removed Deadly",
    ]


@pytest.mark.parametrize(
    ("listed", "custom", "message"),
    [
        ("Occult", "", "Abraham Van Helsing already has Occult."),
        ("", "occult", "Abraham Van Helsing already has occult."),
        ("Telepathy", "", "Select a valid choice."),
        ("", "", "Pick one trait from the list, or type one of your own, not both."),
        ("Deadly", "Ghost Lore", "Pick one trait from the list, or type one of your own, not both."),
        ("", "(Adv.)", "A trait of your own needs a name."),
    ],
)
def test_bad_traits_are_refused_and_nothing_changes(helsing, gm, client_for, listed, custom, message):
    before = (list(TriadTrait.objects.values()), helsing.version)
    response = add_trait(client_for(gm), helsing, listed=listed, custom=custom)
    assert message in page_text(response)
    helsing.refresh_from_db()
    assert (list(TriadTrait.objects.values()), helsing.version) == before


def test_removing_another_sheets_trait_is_refused(helsing, gm, client_for, demo_character):
    other = helsing.campaign.characters.exclude(pk=helsing.pk).get()
    theirs = other.triad_traits.first()
    response = client_for(gm).post(
        reverse("triad_trait_remove", args=[helsing.pk]), {"trait": theirs.pk}, follow=True
    )
    assert "That trait is not on this sheet." in page_text(response)
    assert TriadTrait.objects.filter(pk=theirs.pk).exists()


# ----- exceptional tools, extra effort through the engine's spend, hazards (roll options) -------------


def test_exceptional_tool_replaces_the_score(helsing, player, client_for, fixed_dice):
    """Triad l.59: "Special equipment, magical items, and ultra-technology gadgets may entirely replace a
    current ability score value" (a battlesuit's "effective Body 20")."""
    buttons = client_for(player).get(
        reverse("sheet_buttons", args=[helsing.pk]),
        {"difficulty": 15, "advantages": 0, "disadvantages": 0, "tool": 20},
    )
    # Body 20 against 15: every face but a 1 gives 20, a critical: 95%.
    assert "Body 20 - 95.0% vs 15" in page_text(buttons)
    fixed_dice(3)
    roll(client_for(player), helsing, "ability:body", difficulty=15, tool=20)
    entry = FeedEntry.objects.get()
    assert entry.label.endswith("Body (exceptional tool 20 for Body)")
    assert (entry.result["total"], entry.result["outcome"]) == (20, "critical")
    # A tool rated lower than the character's own score replaces it too (Mind 15, tool 4: the die counts).
    fixed_dice(9)
    roll(client_for(player), helsing, "ability:mind", difficulty=10, tool=4)
    assert FeedEntry.objects.order_by("pk").last().result["outcome"] == "failure"
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.mind) == (8, 15)  # a tool costs no points


def test_exceptional_tool_rating_is_checked(helsing, player, client_for):
    options = {"difficulty": 10, "advantages": 0, "disadvantages": 0, "tool": 21}
    response = client_for(player).get(reverse("sheet_buttons", args=[helsing.pk]), options)
    assert "rating: from 1 to 20, or blank for none." in page_text(response)


def test_extra_effort_is_paid_through_spend_after_the_roll(helsing, player, client_for, fixed_dice):
    """Triad l.57: "By expending one point from a related ability score, a character gains Advantage ...
    the ability point is subtracted from the character's score after the task attempt is resolved"."""
    fixed_dice(2, 11)
    roll(client_for(player), helsing, "ability:body", difficulty=10, extra_effort="on")
    entry = FeedEntry.objects.get()
    # Advantage: two dice, the 11 kept; the roll used Body 8 (the point goes afterwards).
    assert [d["face"] for d in entry.result["dice"]] == [2, 11] and entry.result["outcome"] == "success"
    assert "Body 8 -> 7 (extra effort)" in entry.result["changes"]
    helsing.triad.refresh_from_db()
    assert helsing.triad.body == 7
    # With nothing left to spend it is refused before a die is thrown (at 0 the character is dying, which
    # refuses every roll: Triad l.126).
    hurt(helsing, body=0)
    fixed_dice(5, 5)
    response = roll(client_for(player), helsing, "ability:body", extra_effort="on")
    assert response.status_code == 422 and "is dying and makes no roll" in page_text(response)
    assert FeedEntry.objects.count() == 1


def test_hazard_damage_on_a_failed_roll_to_avoid_harm(helsing, player, client_for, fixed_dice):
    """Triad l.110: "a room bursting into flames may require everyone inside to make a Difficulty 12 Body
    task roll. Those that fail ... suffer 4 points of damage, or 8 points of damage if failing the task roll
    by 7 or worse"."""
    hazard = {"difficulty": 12, "hazard": 4, "hazard_severe": 8}
    fixed_dice(13)
    roll(client_for(player), helsing, "ability:body", **hazard)  # 13 > 12: out of the room unhurt
    assert "Hazard avoided" in FeedEntry.objects.get().result["changes"]
    fixed_dice(9)
    roll(client_for(player), helsing, "ability:body", **hazard)  # 9 (Body 8): short by 3, 4 damage
    assert "Hazard: Body 8 -> 4 (4 damage)" in FeedEntry.objects.order_by("pk").last().result["changes"]
    hurt(helsing, body=8)
    fixed_dice(2)
    roll(client_for(player), helsing, "ability:body", **hazard)  # Body 8 counts: 8, short by 4 -> 4
    hurt(helsing, body=5)
    fixed_dice(3)
    roll(client_for(player), helsing, "ability:body", **hazard)  # 5: short by 7, 8 damage; Body 5 -> 0
    last = FeedEntry.objects.order_by("pk").last()
    assert "Hazard: Body 5 -> 0 (8 damage)" in last.result["changes"] and "Dying" in last.result["changes"]
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.dying, helsing.triad.stunned) == (0, True, False)
    change = SheetChange.objects.order_by("pk").last()
    assert change.before == {f"triadsheet:{helsing.triad.pk}:body": 5}


def test_hazard_severe_damage_needs_the_ordinary_damage(helsing, player, client_for, fixed_dice):
    fixed_dice(3)
    response = roll(client_for(player), helsing, "ability:body", hazard_severe=8)
    assert response.status_code == 422 and "Give the ordinary hazard damage too" in page_text(response)
    assert not FeedEntry.objects.exists()


# ----- the (Adv.) option, and a dying character's rolls ----------------------------------------------------


def test_an_adv_trait_applying_gives_the_advantage_die_and_the_tie(helsing, player, client_for, fixed_dice):
    """Triad l.17: "Traits marked with a (Adv.) grant Advantage on task rolls related to the described skills
    or topics"; l.62: "also scores a Success instead of a Mixed Result when equalling"."""
    fixed_dice(3, 10)
    roll(client_for(player), helsing, "ability:body", adv_trait="on")
    entry = FeedEntry.objects.get()
    assert [(d["face"], d["kept"]) for d in entry.result["dice"]] == [(3, False), (10, True)]
    assert entry.result["outcome"] == "success"  # 10 vs 10 with the trait: a full success
    assert entry.request["edge"] == 1


def test_a_dying_character_makes_no_roll_from_the_sheet(helsing, player, client_for, fixed_dice):
    """Triad l.126: "Any character reduced to 0 in Body, Mind, or Spirit is dying and cannot take actions";
    l.100: "A dying character may only crawl up to 5 feet during a turn"."""
    hurt(helsing, spirit=0)
    fixed_dice(15)
    response = roll(client_for(player), helsing, "ability:mind")
    assert response.status_code == 422
    refusal = "Abraham Van Helsing is dying and makes no roll: only a crawl of 5 feet a turn."
    assert refusal in page_text(response)
    assert not FeedEntry.objects.exists()


def test_a_dying_character_cannot_answer_a_hazard_request(helsing, gm, player, client_for, fixed_dice):
    """Triad l.126 and l.110: a roll to avoid harm is a task roll too; the answer is refused with the reason
    and the request still waits (the GM sees no answer, nothing is rolled or taken)."""
    hurt(helsing, body=0)
    data = {
        "label": "The room bursts into flames",
        "characters": [helsing.pk],
        "roll_key": "ability:body",
        "visibility": "public",
        "difficulty": 12,
        "advantages": 0,
        "disadvantages": 0,
        "hazard": 4,
        "hazard_severe": 8,
    }
    asked = client_for(gm).post(reverse("requests_gm", args=[helsing.campaign.pk]), data, **HTMX)
    assert asked.status_code == 200
    target = RollRequestTarget.objects.get(character=helsing)
    fixed_dice(20)
    url = reverse("sheet_request_roll", args=[helsing.pk, target.pk])
    answer = client_for(player).post(url, {"key": "ability:body"}, **HTMX)
    assert answer.status_code == 422 and "is dying and makes no roll" in page_text(answer)
    target.refresh_from_db()
    assert target.entry is None and not FeedEntry.objects.exists()
    helsing.triad.refresh_from_db()
    assert (helsing.triad.body, helsing.triad.dead) == (0, False)
