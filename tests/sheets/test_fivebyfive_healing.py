"""Five by Five healing checks between fights, from the wounded character's sheet, with fixed dice: the
healer's roll, its effect on HP and on the dying clock, and who may make it."""

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.models import SheetChange
from sheets.systems.fivebyfive.models import FiveByFiveSheet

from .conftest import page_text


@pytest.fixture
def table(make_campaign, player, other_player):
    """Larry Booker (the player's, 12 HP, no healing descriptor) and Mara Quill (the other player's,
    Field Medic 4 tied to healing, 16 HP)."""
    campaign = make_campaign("fivebyfive", players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign.characters.get(name="Larry Booker"), campaign.characters.get(name="Mara Quill")


@pytest.fixture
def dice(monkeypatch):
    def use(*faces):
        monkeypatch.setattr("sheets.systems.fivebyfive.views.system_random", lambda: FixedFaces(faces))

    return use


def set_sheet(character, **values):
    FiveByFiveSheet.objects.filter(character=character).update(**values)


def sheet(character):
    return FiveByFiveSheet.objects.get(character=character)


def heal(client, patient, healer, spend=""):
    patient.refresh_from_db()
    data = {"heal-healer": healer.pk, "heal-spend": spend, "version": patient.version}
    return client.post(reverse("fivebyfive_heal", args=[patient.pk]), data, follow=True)


def test_rule_a_successful_check_heals_a_dying_character_and_stops_the_clock(
    table, other_player, client_for, dice
):
    """Five by Five l.433-437: "A Wounded character can benefit from healing skill checks"; l.443-447: "On
    a successful Healing skill check the object of the check recovers 1d6 lost HP. This roll is subject
    to the trump rule"; l.399-401: a dying character loses HP "until they die or receive healing"."""
    larry, mara = table
    set_sheet(larry, hp=-3, bleed_minutes=4, bleed_hp=-3)
    client = client_for(other_player)
    assert "Healing check" in page_text(client.get(larry.get_absolute_url()))
    # Field Medic 4: 2 x 2 = 4, a success, and doubles earn Mara a token. Healing die 6 (trump, +5) then
    # 1: 6 HP, -3 -> 3: out of danger, the clock gone.
    dice(2, 2, 6, 1)
    text = page_text(heal(client, larry, mara))
    assert "Mara Quill heals Larry Booker: HP -3 -&gt; 3, healthy." in text  # escaped by the page
    assert (sheet(larry).hp, sheet(larry).bled_minutes) == (3, 0) and sheet(mara).doubles_token
    assert "death comes in" not in page_text(client.get(larry.get_absolute_url()))
    check = FeedEntry.objects.get(label="Mara Quill: healing check on Larry Booker")
    assert check.summary == "Field Medic 4: 2 × 2 = 4 vs 4, success" and check.visibility == "public"
    assert "Mara Quill earns a doubles token" in check.result["changes"]
    die = FeedEntry.objects.get(label="Mara Quill heals Larry Booker")
    assert die.summary == "Healing die 6, 1 (1 trump): 6 HP restored" and die.character_id == larry.pk
    assert SheetChange.objects.get(character=larry).reason == "Mara Quill heals: HP -3 -> 3, healthy"
    assert SheetChange.objects.get(character=mara).reason == "Healing check on Larry Booker"


def test_rule_a_failed_check_harms_and_the_clock_starts_again(table, other_player, client_for, dice):
    """Five by Five l.385-391: "If a Healing check fails, the target is 'harmed' instead, and looses 1d2
    HP. (roll 1d6 : 1-3 = 1, and 4-6 = 2.)"; l.399-401: the dying lose 1 HP every (10 + current HP)
    minutes, so at the new HP the count starts again."""
    larry, mara = table
    set_sheet(larry, hp=-1, bleed_minutes=5, bleed_hp=-1)
    # 3 x 4 = 12 > 4: a failure. Harming die 5: 2 HP lost, -1 -> -3.
    dice(3, 4, 5)
    heal(client_for(other_player), larry, mara)
    assert (sheet(larry).hp, sheet(larry).bled_minutes) == (-3, 0)
    text = page_text(client_for(other_player).get(larry.get_absolute_url()))
    assert "the next HP goes in 7 minutes" in text
    assert FeedEntry.objects.get(label="Mara Quill harms Larry Booker").summary == "Harming die 5: 2 HP lost"


def test_rule_healing_never_passes_the_maximum(table, gm, client_for, dice):
    """Five by Five l.443-444: the object of the check "recovers 1d6 lost HP": only what was lost. The GM
    rolls as any character at the table; Larry, with no healing descriptor, rolls untrained (a trump)."""
    larry, mara = table
    set_sheet(mara, hp=14)  # 2 of 16 lost
    dice(6, 1, 5)  # untrained: a 6 is a trump, a success; healing die 5, capped at 16
    heal(client_for(gm), mara, larry)
    assert sheet(mara).hp == 16
    assert FeedEntry.objects.get(label="Larry Booker: healing check on Mara Quill").summary.startswith(
        "Untrained 0: 6 × 1: trump, success"
    )


def test_the_healer_is_one_of_your_own_and_the_patient_wounded(table, player, client_for, dice):
    """The check is the healer's roll: a player heals as their own character only (the GM as any, as in
    the dice box: sheets.selectors.roll_subjects); an unhurt character has nothing to heal (l.434,
    "A Wounded character"). A refusal changes nothing and says why."""
    larry, mara = table
    set_sheet(larry, hp=5)
    dice(2, 2, 3)
    text = page_text(heal(client_for(player), larry, mara))
    assert "Healer: pick one of your own characters at this table" in text
    assert sheet(larry).hp == 5 and not FeedEntry.objects.exists()
    text = page_text(heal(client_for(player), mara, larry))
    assert "Mara Quill is not wounded (HP 16 of 16): nothing to heal." in text
    # Larry heals himself with a doubles token he does not hold: refused.
    text = page_text(heal(client_for(player), larry, larry, spend="check"))
    assert "Larry Booker holds no doubles token to spend." in text
    assert sheet(larry).hp == 5 and not SheetChange.objects.exists()
