"""Five by Five's clocks, through the sheet's views: a dying character bleeding by the minute as the GM
lets time pass, and natural recovery by the day."""

import pytest
from django.urls import reverse

from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.fivebyfive.models import FiveByFiveSheet

from .conftest import page_text
from .test_write_policy import players_adjust_play_state


@pytest.fixture
def larry(demo_character):
    return demo_character("fivebyfive")  # Larry Booker: HP rank 2, 12 of 12 HP


def wound(character, hp):
    FiveByFiveSheet.objects.filter(character=character).update(hp=hp)


def hp_of(character):
    return FiveByFiveSheet.objects.get(character=character).hp


def time_passes(client, character, minutes):
    character.refresh_from_db()
    data = {"time-minutes": minutes, "version": character.version}
    return client.post(reverse("fivebyfive_time_passes", args=[character.pk]), data, follow=True)


def rest(client, character, days):
    character.refresh_from_db()
    data = {"rest-days": days, "version": character.version}
    return client.post(reverse("fivebyfive_rest", args=[character.pk]), data, follow=True)


def test_dying_clock_is_on_the_sheet(larry, player, client_for):
    """Five by Five l.399-401, l.408-410: a dying character "looses 1 HP every (10 + current HP) in minutes";
    "A character with -1 HP will be at -2 HP in 9 minutes"."""
    wound(larry, -1)
    text = page_text(client_for(player).get(larry.get_absolute_url()))
    # From -1: 9 minutes to -2, then 8, 7 ... 1: 45 minutes to -10.
    assert "the next HP goes in 9 minutes and death comes in 45 minutes" in text
    wound(larry, 3)
    assert "death comes in" not in page_text(client_for(player).get(larry.get_absolute_url()))


def test_dying_clock_time_passes_by_the_gm(larry, gm, client_for):
    """Five by Five l.399-401: "looses 1 HP every (10 + current HP) in minutes until they die or receive
    healing"; l.409-410: "At -9 HP the character has only 1 minute left to live"."""
    wound(larry, -1)
    before = snapshot(larry)
    # 5 minutes, then 5 more: 10 minutes in two pieces bleed like 10 at once (-1 -> -2 after 9).
    assert "HP -1, the next HP goes in 4 minutes." in page_text(time_passes(client_for(gm), larry, 5))
    assert "HP -1 -&gt; -2." in time_passes(client_for(gm), larry, 5).content.decode()
    assert hp_of(larry) == -2
    text = page_text(client_for(gm).get(larry.get_absolute_url()))
    # At -2 the interval is 8 minutes, 1 already run: 7 to the next loss; 8+7+...+1 = 36, less 1 run.
    assert "the next HP goes in 7 minutes and death comes in 35 minutes" in text
    changes = list(SheetChange.objects.filter(character=larry).order_by("pk"))
    assert [c.reason for c in changes] == [
        "5 minutes pass: HP -1, the next HP goes in 4 minutes",
        "5 minutes pass: HP -1 -> -2",
    ]
    assert all(c.author == gm for c in changes)
    # Undone newest first, the sheet is as it was.
    for change in reversed(changes):
        change_undo(change=change, author=gm)
    larry.refresh_from_db()
    assert snapshot(larry) == before
    # Untended long enough, the character dies at -10.
    wound(larry, -9)
    assert "HP -9 -&gt; -10 (dead)." in time_passes(client_for(gm), larry, 1).content.decode()
    assert hp_of(larry) == -10


def test_dying_clock_restarts_when_hp_changes_otherwise(larry, gm, client_for):
    """Reading: minutes already run count toward the next loss at that HP only; a hit or healing between
    two reports starts the count again."""
    wound(larry, -1)
    time_passes(client_for(gm), larry, 8)
    wound(larry, -3)  # a hit in between
    assert "HP -3, the next HP goes in 2 minutes." in page_text(time_passes(client_for(gm), larry, 5))


def test_time_passing_is_the_gms_and_only_for_the_dying(larry, player, gm, client_for):
    wound(larry, -1)
    response = client_for(player).post(
        reverse("fivebyfive_time_passes", args=[larry.pk]), {"time-minutes": 5, "version": larry.version}
    )
    assert response.status_code == 403 and hp_of(larry) == -1
    assert not SheetChange.objects.exists()
    assert "Time passes" not in page_text(client_for(player).get(larry.get_absolute_url()))
    wound(larry, 0)  # unconscious but stable (l.398): nothing to bleed
    assert "is not dying (HP 0)" in page_text(time_passes(client_for(gm), larry, 30))
    for bad, message in ((0, "at least 1 minute"), (601, "at most 600 minutes"), ("x", "a whole number")):
        wound(larry, -1)
        assert message in page_text(time_passes(client_for(gm), larry, bad))
    assert hp_of(larry) == -1 and not SheetChange.objects.exists()


def test_natural_recovery_one_hp_a_day(larry, player, client_for):
    """Five by Five l.458-459: "All characters regain 1 HP a day through natural recovery"."""
    players_adjust_play_state(larry.campaign)  # the table lets players rest (sheets/policy.py)
    wound(larry, 7)
    assert "HP 7 -&gt; 10." in rest(client_for(player), larry, 3).content.decode()
    assert "HP 10 -&gt; 12." in rest(client_for(player), larry, 5).content.decode()  # never past 12
    assert hp_of(larry) == 12
    assert "HP 12, nothing to recover." in page_text(rest(client_for(player), larry, 1))
    change = SheetChange.objects.filter(character=larry).order_by("pk").first()
    assert change.reason == "Rested 3 days: HP 7 -> 10" and change.author == player


def test_natural_recovery_is_refused_to_the_dying_and_to_strangers(larry, other_player, client_for, player):
    """Reading of l.458-459 with l.399-401: a dying character bleeds by the minute; days of rest do not
    apply until healing stops it."""
    players_adjust_play_state(larry.campaign)
    wound(larry, -2)
    assert "needs healing before resting" in page_text(rest(client_for(player), larry, 2))
    assert hp_of(larry) == -2
    response = client_for(other_player).post(
        reverse("fivebyfive_rest", args=[larry.pk]), {"rest-days": 1, "version": larry.version}
    )
    assert response.status_code == 403 and not SheetChange.objects.exists()
