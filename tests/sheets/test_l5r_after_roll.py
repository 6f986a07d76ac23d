"""After an L5R roll on the sheet: keeping other dice and a second attempt, with fixed dice."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from campaigns.models import FeedEntry
from sheets.systems.l5r import after_roll

from .conftest import HTMX


def roll(client, character, key, **options):
    data = {"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def after(client, character, entry, **data):
    # As the form under the result posts it, with the sheet's roll options beside it.
    data = {"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "public", **data}
    return client.post(reverse("l5r_after_roll", args=[character.pk, entry.cursor]), data, **HTMX)


@pytest.fixture
def shinai(demo_character):
    # Bayushi Shinai: Reflexes 3, Awareness 3, Perception 3, Void 2; Kyujutsu 4, Sincerity 2.
    return demo_character("l5r")


def skill_key(character, name):
    return f"skill:{character.l5r_skills.get(name=name).pk}"


def test_rekeep_keeps_the_dice_the_player_chooses(shinai, player, gm, other_player, client_for, fixed_dice):
    """L5R, The Roll & Keep System: the player "may keep whichever ones he chooses; if for some reason
    he wishes for his character to fail the roll in question, he may choose lower rolling dice"."""
    client = client_for(player)
    fixed_dice(2, 4, 5, 7, 7, 8, 10, 2)  # the seed's archer: 7k3 keeps 7, 8, 12 = 27 vs TN 20
    first_page = roll(client, shinai, skill_key(shinai, "Kyujutsu"), tn=20, visibility="gm").content.decode()
    first = FeedEntry.objects.get()
    assert first.result["total"] == 27 and first.result["explode"] is True
    assert "Keep other dice: choose 3 of 7" in first_page
    assert 'name="keep" value="6" id="l5r-keep-input-6">' in first_page  # kept now: sent unless tapped off
    assert "Try again" not in first_page  # a success, and an attack besides

    assert after(client_for(other_player), shinai, first, do="rekeep", keep=[0, 1, 2]).status_code == 403
    # Not the GM's roll: the one who rolled chooses.
    assert after(client_for(gm), shinai, first, do="rekeep", keep=[0, 1, 2]).status_code == 404
    refused = after(client, shinai, first, do="rekeep", keep=[0, 1])
    assert refused.status_code == 422
    assert "Choose exactly 3 different dice to keep." in refused.content.decode()
    same = after(client, shinai, first, do="rekeep", keep=[3, 5, 6])
    assert "Those are the dice already kept" in same.content.decode()
    forged = roll(client, shinai, f"rekeep:{first.cursor}:0.1.2")  # straight to the roll view: not signed
    assert forged.status_code == 422 and "from the form under your roll" in forged.content.decode()
    assert FeedEntry.objects.count() == 1

    fixed_dice(9, 9, 9)  # nothing is rolled: the stored faces are read again
    response = after(client, shinai, first, do="rekeep", keep=[0, 1, 2], visibility="public")
    assert response.status_code == 200
    chosen = FeedEntry.objects.latest("seq")
    assert chosen.visibility == "gm"  # the first roll's, not the form's
    assert [d["face"] for d in chosen.result["dice"]] == [2, 4, 5, 7, 7, 8, 12]
    assert [d["kept"] for d in chosen.result["dice"]] == [True, True, True, False, False, False, False]
    assert chosen.result["total"] == 11 and chosen.result["outcome"] == "failure"
    assert chosen.request["rekeep_of"] == first.seq and chosen.request["kept"] == [0, 1, 2]
    assert chosen.summary == "11 vs TN 20 (7k3), keeping 2, 4, 5: failure"
    assert chosen.label == "Bayushi Shinai: Kyujutsu 4 (7k3), other dice kept"
    body = response.content.decode()
    assert "Keep other dice" not in body  # chosen once
    again = after(client, shinai, first, do="rekeep", keep=[0, 1, 3])
    assert "were chosen already" in again.content.decode() and FeedEntry.objects.count() == 2


def test_second_attempt_at_ten_more(shinai, player, client_for, fixed_dice):
    """L5R, Failed Rolls: "When making a second attempt at the same Skill Roll, the TN for the Skill Roll
    increases by +10." """
    client = client_for(player)
    key = skill_key(shinai, "Sincerity")  # Awareness 3 + Sincerity 2: 5k3
    fixed_dice(1, 1, 1, 2, 2)
    page = roll(client, shinai, key, tn=15).content.decode()
    first = FeedEntry.objects.get()
    assert first.result["outcome"] == "failure" and first.result["total"] == 5
    assert "Try again at TN 25 (+10)" in page and "situation changed" not in page

    fixed_dice(9, 9, 9, 1, 1)
    response = after(client, shinai, first, do="retry", tn=40)  # the page's TN is not the attempt's
    assert response.status_code == 200
    second = FeedEntry.objects.latest("seq")
    assert second.request["tn"] == 25 and second.request["second_attempt_of"] == first.seq
    assert (second.result["tn"], second.result["total"], second.result["outcome"]) == (25, 27, "success")
    assert second.summary.startswith("Second attempt, TN 15 + 10: 27 vs TN 25")
    assert second.label.endswith(", second attempt")
    again = after(client, shinai, first, do="retry")
    assert again.status_code == 422 and "tried again already" in again.content.decode()
    success = after(client, shinai, second, do="retry")
    assert "Only a failed roll can be tried again." in success.content.decode()

    fixed_dice(1, 1, 1, 1, 1)
    roll(client, shinai, "trait:awareness", tn=15)
    trait_roll = FeedEntry.objects.latest("seq")
    refused = after(client, shinai, trait_roll, do="retry")
    assert "Only a Skill Roll gets a second attempt" in refused.content.decode()


def test_second_attempt_of_intelligence_or_perception_needs_a_new_situation(
    shinai, player, client_for, fixed_dice
):
    """L5R, Failed Rolls: "Second attempts on Skill Rolls utilizing Intelligence or Perception usually
    cannot be made without a change in the situation"."""
    client = client_for(player)
    fixed_dice(1, 2, 3)  # untrained Investigation: Perception 3, 3k3 unskilled
    page = roll(client, shinai, "untrained:investigation", tn=15).content.decode()
    first = FeedEntry.objects.get()
    assert first.result["outcome"] == "failure"
    assert "The situation changed (new information)" in page and "Perception roll usually needs" in page
    refused = after(client, shinai, first, do="retry")
    assert refused.status_code == 422 and "needs a change in the situation" in refused.content.decode()
    assert FeedEntry.objects.count() == 1
    fixed_dice(9, 9, 8)
    assert after(client, shinai, first, do="retry", new_situation="on").status_code == 200
    second = FeedEntry.objects.latest("seq")
    assert (second.result["tn"], second.result["total"], second.result["outcome"]) == (25, 26, "success")


def test_a_failed_attack_gets_no_second_attempt(shinai, player, client_for, fixed_dice):
    """L5R, Failed Rolls: "Skill Rolls made as attacks ... may not make a second attempt at +10 TN"."""
    client = client_for(player)
    fixed_dice(1, 1, 1, 1, 1, 1, 1)
    page = roll(client, shinai, skill_key(shinai, "Kyujutsu"), tn=20).content.decode()
    first = FeedEntry.objects.get()
    assert first.result["outcome"] == "failure" and "Try again" not in page
    refused = after(client, shinai, first, do="retry")
    assert "A missed attack cannot be tried again" in refused.content.decode()
    assert FeedEntry.objects.count() == 1


def test_blind_rolls_offer_nothing(shinai, player, client_for, fixed_dice):
    client = client_for(player)
    fixed_dice(1, 1, 1, 2, 2)
    page = roll(client, shinai, skill_key(shinai, "Sincerity"), visibility="blind").content.decode()
    first = FeedEntry.objects.get()
    assert "l5r-after-roll" not in page
    refused = after(client, shinai, first, do="retry")
    assert escape("blind roll's dice are the GM's") in refused.content.decode()
    assert after_roll.offer(shinai, first) is None
