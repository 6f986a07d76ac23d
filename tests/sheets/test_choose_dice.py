"""Choosing dice on the sheet. Triad: before the roll, each advantage and disadvantage source, how they
cancel and the dice the roll throws, counted as the roll counts them, and the sources named on the roll's
entry. L5R: what the rolls will throw and keep, and the dice a player picks under a roll, read by the
engine before they are sent."""

import re

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from campaigns.models import FeedEntry
from sheets.systems.l5r.models import L5RSkill
from sheets.systems.triad.models import TriadSheet

from .conftest import HTMX

TRIAD_OPTIONS = {"difficulty": 10, "advantages": 0, "disadvantages": 0}
L5R_OPTIONS = {"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0}


def text_of(html: str, element_id: str) -> str:
    """The visible text of the element with this id (a section, a list or a paragraph), white space folded."""
    match = re.search(rf'<(\w+)[^>]*id="{element_id}".*?</\1>', html, re.S)
    assert match, f"no #{element_id} in the page"
    return re.sub(r"\s+", " ", strip_tags(match.group(0))).strip()


def buttons_page(client, character, **options) -> str:
    """The roll buttons as the options form asks for them while the player types (sheet_buttons)."""
    data = {**(L5R_OPTIONS if character.campaign.system == "l5r" else TRIAD_OPTIONS), **options}
    return client.get(reverse("sheet_buttons", args=[character.pk]), data, **HTMX).content.decode()


def roll(client, character, key, **options):
    data = {**TRIAD_OPTIONS, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


# ----- Triad: advantage and disadvantage -------------------------------------------------------------


@pytest.fixture
def helsing(demo_character):
    # Body 8, Mind 15, Spirit 13; (Adv.) traits Medical Expert, Natural Sciences, Occult (Mind), Willpower
    # (Spirit); Hard To Unnerve (Spirit, not Adv.).
    return demo_character("triad")


# (sheet's play state, options typed, the sources listed, the Body roll's line, faces thrown, each face kept,
# what the entry's summary adds). Each case cites the seed line its count reads.
TRIAD_CASES = {
    # Triad l.55: "If all causes of Advantage and Disadvantage cancel out, only one die is rolled".
    "nothing": (
        {},
        {},
        [],
        "Body, Mind, Spirit, Hard To Unnerve: no advantage or disadvantage → rolls 1d20",
        (12,),
        [True],
        "",
    ),
    # Triad l.53: Advantage, "using two d20 dice and using the higher result".
    "an advantage typed": (
        {},
        {"advantages": 1},
        ["Advantage sources typed: +1 advantage on every roll"],
        "Body, Mind, Spirit, Hard To Unnerve: 1 advantage → rolls 2d20, keeps the higher",
        (4, 17),
        [False, True],
        " · 2d20, the higher kept: Advantage sources typed +1 advantage",
    ),
    # Triad l.54: Disadvantage, "two d20 dice and only using the lower result".
    "a disadvantage typed": (
        {},
        {"disadvantages": 1},
        ["Disadvantage sources typed: +1 disadvantage on every roll"],
        "Body, Mind, Spirit, Hard To Unnerve: 1 disadvantage → rolls 2d20, keeps the lower",
        (4, 17),
        [True, False],
        " · 2d20, the lower kept: Disadvantage sources typed +1 disadvantage",
    ),
    # Triad l.142 (Rage: "advantage on your next Body-related task roll") against l.124 (stunned:
    # "Disadvantage on all of that target's task rolls"), cancelled "on a 1-to-1 basis" (l.55).
    "rage against a stun": (
        {"rage_advantage": True, "stunned": True},
        {},
        ["Berserker Rage: +1 advantage on Body rolls", "Stunned: +1 disadvantage on every roll"],
        # His (Adv.) traits' rolls come to the same: their advantage against the stun.
        "Body, Medical Expert, Natural Sciences, Occult, Willpower: 1 advantage against 1 disadvantage: they "
        "cancel → rolls 1d20",
        (9,),
        [True],
        " · 1d20: Berserker Rage +1 advantage, Stunned +1 disadvantage (they cancel)",
    ),
    # Triad l.63, the ropes: "restrained by ropes (a Disadvantage on Body tasks)" with two Advantages
    # (here an (Adv.) trait ticked and one typed): "The Disadvantage would be negated by the first ...
    # the Swiftness trait would allow the task roll to be made with Advantage".
    "the ropes example": (
        {"restrained": True},
        {"adv_trait": "on", "advantages": 1},
        [
            "Advantage sources typed: +1 advantage on every roll",
            "An (Adv.) trait: +1 advantage on every roll",
            "Restrained: +1 disadvantage on Body rolls",
        ],
        "Body: 2 advantages against 1 disadvantage: 1 of each cancels, advantage remains → rolls 2d20, "
        "keeps the higher",
        (15, 6),
        [True, False],
        " · 2d20, the higher kept: Advantage sources typed +1 advantage, An (Adv.) trait +1 advantage, "
        "Restrained +1 disadvantage",
    ),
    # Triad l.125 (grappled: "ongoing Disadvantage on Body tasks") and l.63 (ropes), two sources against one.
    "held and tied": (
        {"grappled": True, "restrained": True},
        {"advantages": 1},
        [
            "Advantage sources typed: +1 advantage on every roll",
            "Grappled: +1 disadvantage on Body rolls",
            "Restrained: +1 disadvantage on Body rolls",
        ],
        "Body: 1 advantage against 2 disadvantages: 1 of each cancels, disadvantage remains → rolls 2d20, "
        "keeps the lower",
        (15, 6),
        [False, True],
        " · 2d20, the lower kept: Advantage sources typed +1 advantage, Grappled +1 disadvantage, "
        "Restrained +1 disadvantage",
    ),
    # Triad l.16: "No more than two dice are rolled for any single task, even if multiple triggers ...".
    "three advantages, two dice": (
        {},
        {"advantages": 3},
        ["Advantage sources typed: +3 advantage on every roll"],
        "Body, Mind, Spirit, Hard To Unnerve: 3 advantages count as one advantage → rolls 2d20, keeps the "
        "higher",
        (2, 3),
        [False, True],
        " · 2d20, the higher kept: Advantage sources typed +3 advantage",
    ),
    # Triad l.57: extra effort "gains Advantage", the point "subtracted ... after the task attempt".
    "extra effort": (
        {},
        {"extra_effort": "on"},
        ["Extra effort: +1 advantage on every roll (1 point of the score rolled, paid after the roll)"],
        "Body, Mind, Spirit, Hard To Unnerve: 1 advantage → rolls 2d20, keeps the higher",
        (11, 5),
        [True, False],
        " · 2d20, the higher kept: Extra effort +1 advantage",
    ),
}


@pytest.mark.parametrize(
    ("state", "options", "sources", "body_line", "faces", "kept", "named"),
    list(TRIAD_CASES.values()),
    ids=list(TRIAD_CASES),
)
def test_the_edge_summary_shows_each_source_and_the_roll_counts_them_alike(
    helsing, player, client_for, fixed_dice, state, options, sources, body_line, faces, kept, named
):
    TriadSheet.objects.filter(character=helsing).update(**state)
    client = client_for(player)
    page = buttons_page(client, helsing, **options)
    summary = text_of(page, "triad-edge")
    if not any(source.startswith("An (Adv.) trait") for source in sources):
        # His (Adv.) traits' own rolls have their trait's advantage on top (Triad l.17).
        sources = [*sources, "An (Adv.) trait: +1 advantage on its own roll"]
    for source in sources:
        assert source in summary
    assert summary.count(": +") == len(sources)  # no source listed that the case does not name
    assert body_line in summary

    fixed_dice(*faces)
    assert roll(client, helsing, "ability:body", **options).status_code == 200
    entry = FeedEntry.objects.get()
    assert [(d["face"], d["kept"]) for d in entry.result["dice"]] == list(zip(faces, kept, strict=True))
    outcome = entry.result["outcome"]
    assert entry.summary.endswith(f": {outcome}{named}")


def test_the_summary_follows_what_is_typed(helsing, player, client_for):
    """Triad l.55: the same sheet's rolls go from advantage to none to disadvantage as sources are typed."""
    client = client_for(player)
    assert "Every roll" not in text_of(buttons_page(client, helsing), "triad-edge")  # his (Adv.) traits
    line = "Body, Mind, Spirit, Hard To Unnerve: "
    assert line + "1 advantage → rolls 2d20, keeps the higher" in text_of(
        buttons_page(client, helsing, advantages=1), "triad-edge"
    )
    both = text_of(buttons_page(client, helsing, advantages=1, disadvantages=1), "triad-edge")
    assert line + "1 advantage against 1 disadvantage: they cancel → rolls 1d20" in both
    # The trait's own advantage is one more: 2 against 1 on its rolls.
    assert (
        "Medical Expert, Natural Sciences, Occult, Willpower: 2 advantages against 1 disadvantage: "
        "1 of each cancels, advantage remains → rolls 2d20, keeps the higher"
    ) in both
    page = buttons_page(client, helsing, disadvantages=2, adv_trait="on")
    assert "Every roll: 1 advantage against 2 disadvantages: 1 of each cancels, disadvantage remains" in (
        text_of(page, "triad-edge")
    )
    # Each button says the dice it throws, from the same count.
    assert "vs 10, Adv. · 2d20, keep lower" in page and "vs 10 · 1d20" not in page


def test_extra_effort_is_paid_after_the_roll_and_the_entry_says_so(helsing, player, client_for, fixed_dice):
    """Triad l.57: "the ability point is subtracted from the character's score after the task attempt is
    resolved": the effect the player chose before the roll shows on its entry, with the advantage it gave."""
    fixed_dice(3, 18)
    response = roll(client_for(player), helsing, "ability:mind", extra_effort="on")
    entry = FeedEntry.objects.get()
    assert "Mind 15 -> 14 (extra effort)" in entry.result["changes"]
    assert entry.summary == "18 vs 10: critical · 2d20, the higher kept: Extra effort +1 advantage"
    assert "Mind 15 -&gt; 14 (extra effort)" in response.content.decode()


# ----- L5R: what the rolls keep, and the dice picked under a roll ------------------------------------


@pytest.fixture
def shinai(demo_character):
    # Bayushi Shinai: Reflexes 3, Awareness 3, Void 2; Kyujutsu 4, Sincerity 2 (emphasis Deceit).
    return demo_character("l5r")


def test_the_l5r_summary_says_what_each_roll_throws_and_keeps(shinai, player, client_for):
    """L5R l.10: the player keeps "the highest rolling of the dice, although he may keep whichever ones he
    chooses"; l.80-82, the Ten Dice Rule: "A roll of 12k4 would become 10k5"."""
    client = client_for(player)
    plain = text_of(buttons_page(client, shinai), "l5r-keeping")
    assert plain == "Each roll keeps its highest dice; under the result you may keep others instead, as many."
    L5RSkill.objects.filter(character=shinai, name="Kyujutsu").update(rank=8)  # Reflexes 3 + 8: 11k3
    sincerity = L5RSkill.objects.get(character=shinai, name="Sincerity")
    page = buttons_page(client, shinai, use_void="on", emphasis=f"{sincerity.pk}:Deceit")
    keeping = text_of(page, "l5r-keeping")
    assert "Void point: +1k1 in every TN roll below." in keeping
    # With the Void point 12k4: the two dice past ten buy a kept die, as on the button.
    assert "Ten Dice Rule, no more than 10 dice rolled or kept: Kyujutsu 8: 12k4 → 10k5." in keeping
    assert "12k4 → 10k5 vs TN 15" in page
    assert "Emphasis Deceit on Sincerity 2: each die that shows 1 is rolled again once" in keeping
    without_void = text_of(buttons_page(client, shinai), "l5r-keeping")
    assert "Kyujutsu 8: 11k3 → 10k3." in without_void  # the odd die past ten is lost


def test_the_ten_dice_house_rule_is_named_where_it_folds_a_pool(shinai, player, client_for):
    """The campaign's Ten Dice house rule: the odd die left over is +2 (docs/rules.md, L5R sheet)."""
    shinai.campaign.options = {**shinai.campaign.options, "l5r_odd_die_bonus": True}
    shinai.campaign.save(update_fields=["options"])
    L5RSkill.objects.filter(character=shinai, name="Kyujutsu").update(rank=8)
    keeping = text_of(buttons_page(client_for(player), shinai), "l5r-keeping")
    assert "(this table: an odd die left over is +2): Kyujutsu 8: 11k3 → 10k3+2." in keeping


def choice_status(client, character, entry, *picked):
    url = reverse("l5r_rekeep_choice", args=[character.pk, entry.cursor])
    return client.get(url, {"keep": list(picked)}, **HTMX)


def said(response) -> str:
    """An answer's visible text, white space folded."""
    return re.sub(r"\s+", " ", strip_tags(response.content.decode())).strip()


def test_the_dice_picked_are_counted_and_totalled_before_they_are_sent(
    shinai, player, gm, other_player, client_for, fixed_dice
):
    """L5R l.35, the seed's archer: 2, 4, 5, 7, 7, 8 and 12, keeping 3 with Reflexes 3; l.10, "if for some
    reason he wishes for his character to fail the roll in question, he may choose lower rolling dice"."""
    client = client_for(player)
    kyujutsu = L5RSkill.objects.get(character=shinai, name="Kyujutsu")
    fixed_dice(2, 4, 5, 7, 7, 8, 10, 2)
    page = client.post(
        reverse("sheet_roll", args=[shinai.pk, f"skill:{kyujutsu.pk}"]),
        {**L5R_OPTIONS, "tn": 20, "visibility": "public"},
        **HTMX,
    ).content.decode()
    first = FeedEntry.objects.get()
    # Each die a toggle button, pressed where it is kept now; the count and total as they stand.
    assert page.count('class="btn l5r-die-toggle"') == 7
    assert len(re.findall(r'aria-pressed="true"', page)) == 3
    die_seven = r'id="l5r-keep-6"[^>]*\s+aria-pressed="true"><span class="visually-hidden">Die 7: </span>12<'
    assert re.search(die_seven, page)
    assert text_of(page, "l5r-rekeep-status") == "3 of 3 chosen: the dice kept now, 27 vs TN 20, success"
    assert re.search(r'id="l5r-rekeep-submit"[^>]*disabled', page)  # nothing changed yet

    lower = choice_status(client, shinai, first, 0, 1, 2)
    assert lower.status_code == 200
    assert said(lower) == "3 of 3 chosen: new total 11 vs TN 20, failure Keep these dice"
    body = lower.content.decode()
    submit = re.search(r'<button[^>]*id="l5r-rekeep-submit"[^>]*>', body).group(0)
    assert 'hx-swap-oob="true"' in submit and "disabled" not in submit
    short = choice_status(client, shinai, first, 0, 6).content.decode()
    assert "2 of 3 chosen</span>: choose 1 more" in short and "new total" not in short
    assert re.search(r'id="l5r-rekeep-submit"[^>]*disabled', short)
    over = choice_status(client, shinai, first, 0, 1, 2, 3).content.decode()
    assert "4 of 3 chosen</span>: 1 too many" in over
    beyond = choice_status(client, shinai, first, 0, 1, 2, 7, 40)  # no dice 8 and 41: left out
    assert said(beyond).startswith("3 of 3 chosen: new total 11")
    assert FeedEntry.objects.count() == 1  # asking sends nothing

    # Only the one who rolled picks: the GM and another player are told there is no such roll.
    assert choice_status(client_for(gm), shinai, first, 0, 1, 2).status_code == 404
    assert choice_status(client_for(other_player), shinai, first, 0, 1, 2).status_code in (403, 404)
    # Sent, the choice is the same total (after_roll.rekeep), and the new entry offers no choice.
    chosen = client.post(
        reverse("l5r_after_roll", args=[shinai.pk, first.cursor]),
        {**L5R_OPTIONS, "do": "rekeep", "keep": [0, 1, 2], "visibility": "public"},
        **HTMX,
    )
    assert chosen.status_code == 200 and "l5r-die-toggle" not in chosen.content.decode()
    again = FeedEntry.objects.latest("seq")
    assert again.result["total"] == 11 and again.result["outcome"] == "failure"
    assert choice_status(client, shinai, again, 0, 1, 2).status_code == 404


def test_a_damage_roll_picked_again_says_its_damage(shinai, player, client_for, fixed_dice):
    """L5R l.48: unarmed damage 0k1 + Strength 2 rolls 2k1; keeping the other die is a total without a TN."""
    client = client_for(player)
    fixed_dice(3, 9)
    url = reverse("sheet_roll", args=[shinai.pk, "damage:unarmed"])
    page = client.post(url, {**L5R_OPTIONS, "visibility": "public"}, **HTMX).content.decode()
    entry = FeedEntry.objects.get()
    assert text_of(page, "l5r-rekeep-status") == "1 of 1 chosen: the dice kept now, 9 damage"
    assert (
        said(choice_status(client, shinai, entry, 0)) == "1 of 1 chosen: new total 3 damage Keep these dice"
    )
