"""Five by Five XP through the generic XP routes: the GM awards it, the owner spends it with the engine's
costs and caps (Five by Five, l.288-339), all in history."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from sheets.history import change_undo, snapshot
from sheets.models import SheetChange
from sheets.systems.fivebyfive import sheet as fivebyfive
from sheets.systems.fivebyfive.models import FiveByFiveDescriptor

from .conftest import page_text


@pytest.fixture
def larry(demo_character):
    # Street Smarts 6, Amateur Chef 4, Brawler 4, HP rank 2 (12 HP), Uncanny Reflexes 2, Stage Fright -5.
    return demo_character("fivebyfive")


def row(character, name):
    return character.descriptors.get(name=name)


def award(client, character, amount):
    return client.post(reverse("xp_award", args=[character.pk]), {"amount": amount}, follow=True)


def spend(client, character, key, seen, name=""):
    offer = f"raise:{key}@{seen}" if not str(key).startswith(("add", "trade")) else f"{key}@{seen}"
    return client.post(reverse("xp_spend", args=[character.pk]), {"offer": offer, "name": name}, follow=True)


def raise_(character, key, expected, author):
    return fivebyfive.system.xp_spend(
        character=character, key=f"raise:{key}", expected=str(expected), author=author
    )


def numbers(character):
    character.fivebyfive.refresh_from_db()
    return character.fivebyfive.xp, character.fivebyfive.hp, character.fivebyfive.hp_rank


def test_gm_awards_and_owner_spends(larry, gm, player, client_for):
    before = snapshot(larry)
    gm_client, owner = client_for(gm), client_for(player)
    brawler = row(larry, "Brawler")

    page = page_text(award(gm_client, larry, 3))
    assert "Larry Booker gains 3 XP." in page
    assert numbers(larry) == (3, 12, 2)
    assert SheetChange.objects.filter(character=larry).latest("pk").reason == "Awarded 3 XP"

    # Brawler 4 -> 6 costs 6 XP: with 3 the spend is refused and nothing changes.
    page = page_text(spend(owner, larry, brawler.pk, 4))
    assert "Brawler cannot be raised: That costs 6 XP, and only 3 XP is available." in page
    assert numbers(larry) == (3, 12, 2) and row(larry, "Brawler").value == 4

    award(gm_client, larry, 7)
    page = page_text(spend(owner, larry, brawler.pk, 4))
    assert "Spent 6 XP." in page
    assert numbers(larry) == (4, 12, 2) and row(larry, "Brawler").value == 6
    change = SheetChange.objects.filter(character=larry).latest("pk")
    assert change.reason == "Spent 6 XP: Brawler raised to 6" and change.author == player
    assert sorted(change.before.values()) == [4, 10] and sorted(change.after.values()) == [4, 6]

    # A second click with the value seen before is refused rather than paying twice.
    page = page_text(spend(owner, larry, brawler.pk, 4))
    assert "Brawler is 6 now, not what you saw" in page
    assert numbers(larry) == (4, 12, 2)

    # HP is priced on HP - 10: 12 HP (rank 2) -> 14 HP costs 4, and the new points come unhurt.
    page = page_text(spend(owner, larry, "hp", 2))
    assert "Spent 4 XP." in page
    assert numbers(larry) == (0, 14, 4)
    assert SheetChange.objects.filter(character=larry).latest("pk").reason == "Spent 4 XP: HP raised to 14"

    # Every change undone in reverse gives back the sheet as it was.
    for change in SheetChange.objects.filter(character=larry).order_by("-pk"):
        change_undo(change=change, author=gm)
    larry.refresh_from_db()
    assert snapshot(larry) == before


def test_poor_and_caps_are_refused(larry, gm):
    fivebyfive.system.xp_award(character=larry, amount=20, author=gm)
    with pytest.raises(ValidationError, match=r"Stage Fright cannot be raised: A poor \(-5\) descriptor"):
        raise_(larry, str(row(larry, "Stage Fright").pk), -5, gm)
    # Two descriptors at 12 already: a third is refused.
    FiveByFiveDescriptor.objects.filter(character=larry, name__in=["Amateur Chef", "Brawler"]).update(
        value=12
    )
    street = row(larry, "Street Smarts")
    FiveByFiveDescriptor.objects.filter(pk=street.pk).update(value=9)
    with pytest.raises(ValidationError, match=r"At most 2 descriptors can be master \(12\)"):
        raise_(larry, str(street.pk), 9, gm)
    # One at 16: a second is refused.
    chef = row(larry, "Amateur Chef")
    fivebyfive.system.xp_award(character=larry, amount=20, author=gm)
    assert raise_(larry, str(chef.pk), 12, gm) == 16
    assert row(larry, "Amateur Chef").value == 16
    with pytest.raises(ValidationError, match="At most one descriptor can be legendary"):
        raise_(larry, str(row(larry, "Brawler").pk), 12, gm)
    # A basic descriptor stops at 16.
    with pytest.raises(ValidationError, match="cannot go above 16"):
        raise_(larry, str(chef.pk), 16, gm)
    assert numbers(larry)[0] == 40 - 16
    with pytest.raises(ValidationError, match="from 1 to 20"):
        fivebyfive.system.xp_award(character=larry, amount=0, author=gm)


@pytest.mark.parametrize(
    ("who", "verb", "status"),
    [
        ("player", "award", 403),  # the owner cannot award XP to itself
        ("other_player", "award", 403),
        ("other_player", "spend", 403),  # only the owner spends
        ("gm", "spend", 403),
        ("outsider", "award", 404),
    ],
)
def test_only_the_gm_awards_and_only_the_owner_spends(larry, who, verb, status, request, client_for):
    user = request.getfixturevalue(who)
    url = reverse(f"xp_{verb}", args=[larry.pk])
    response = client_for(user).post(url, {"amount": 5, "offer": f"raise:{row(larry, 'Brawler').pk}@4"})
    assert response.status_code == status
    assert numbers(larry)[0] == 0 and not SheetChange.objects.exists()


def test_the_sheet_shows_each_control_to_its_user(larry, gm, player, other_player, client_for):
    url = reverse("sheet", args=[larry.pk])
    gm_page = client_for(gm).get(url).content.decode()
    owner_page = client_for(player).get(url).content.decode()
    other_page = client_for(other_player).get(url).content.decode()
    assert "Award XP" in gm_page and "xp-spend" not in gm_page
    assert "xp-spend" in owner_page and "Award XP" not in owner_page
    assert "Brawler 4 → 6 (6 XP)" in owner_page and "HP 12 → 14 (4 XP)" in owner_page
    assert "Stage Fright -5 (poor: trade it instead)" in owner_page
    assert "xp-panel" not in other_page
