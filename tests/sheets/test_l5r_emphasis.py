"""L5R emphases on the sheet: a skill roll whose emphasis applies re-rolls each 1 once (4th edition,
"Emphases"; the seed's Roll & Keep reference has no emphases: docs/rules.md, "Emphases")."""

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from rules import l5r
from sheets.models import Character

from .conftest import HTMX
from .test_l5r import VALID


@pytest.fixture
def kuroda(make_campaign, player, client_for):
    """Agility 3, Kenjutsu 3 (6k3) with the emphases Tetsubo and Katana; Athletics 1 with none."""
    campaign = make_campaign("l5r", players=[player])
    data = {**VALID, "skill_kenjutsu_emphasis": "Tetsubo, Katana"}
    response = client_for(player).post(reverse("character_new", args=[campaign.pk]), data)
    assert response.status_code == 302
    return Character.objects.get(name="Hida Kuroda")


def roll(client, character, key, **options):
    data = {"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def buttons(client, character, **options):
    data = {"tn": 15, "raises": 0, "free_raises": 0, "free_on_tn": 0, **options}
    return client.get(reverse("sheet_buttons", args=[character.pk]), data, **HTMX).content.decode()


def test_the_roll_options_list_each_emphasis_of_the_sheet(kuroda, player, client_for):
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    page = client_for(player).get(kuroda.get_absolute_url()).content.decode()
    assert 'name="emphasis"' in page and "Emphasis applies (re-roll 1s once)" in page
    assert f'<option value="{kenjutsu.pk}:Tetsubo">Kenjutsu: Tetsubo</option>' in page
    assert f'<option value="{kenjutsu.pk}:Katana">Kenjutsu: Katana</option>' in page


def test_a_sheet_without_emphases_has_no_such_option(make_campaign, player, client_for):
    campaign = make_campaign("l5r", players=[player])
    client_for(player).post(
        reverse("character_new", args=[campaign.pk]), {**VALID, "skill_kenjutsu_emphasis": ""}
    )
    character = Character.objects.get(name="Hida Kuroda")
    assert 'name="emphasis"' not in client_for(player).get(character.get_absolute_url()).content.decode()


def test_the_emphasis_changes_that_skills_exact_chance_only(kuroda, player, client_for):
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    page = buttons(client_for(player), kuroda, tn=20, emphasis=f"{kenjutsu.pk}:Katana")
    with_emphasis = format_percent(l5r.chance(6, 3, 20, reroll_ones=True))
    assert with_emphasis != format_percent(l5r.chance(6, 3, 20))
    assert f'Kenjutsu 3 - <span class="roll-chance">{with_emphasis}</span>' in page
    assert "Katana applies: 1s re-rolled once" in page
    # Athletics (Strength 3 + 1: 4k3) has no emphasis chosen: its chance is the plain one.
    assert f'Athletics 1 - <span class="roll-chance">{format_percent(l5r.chance(4, 3, 20))}</span>' in page


def test_an_emphasis_not_on_the_sheet_is_refused(kuroda, player, client_for):
    page = buttons(client_for(player), kuroda, emphasis="999:Poison")
    assert "Choose one of this sheet&#x27;s emphases, or none." in page
    before = FeedEntry.objects.count()
    response = roll(client_for(player), kuroda, f"skill:{kuroda.l5r_skills.get(name='Kenjutsu').pk}",
                    emphasis="999:Poison")
    assert response.status_code == 422
    assert FeedEntry.objects.count() == before


def test_an_emphasis_re_rolls_each_one_once(kuroda, player, client_for, fixed_dice):
    """4th edition, Emphases: each die showing 1 is rolled again once; the new die stands (even a 1)."""
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    # Six dice show 1, 7, 1, 4, 9, 2; die 1 is rolled again (10, then 3: 13), die 3 again (1: it stands).
    fixed_dice(1, 7, 1, 4, 9, 2, 10, 3, 1)
    katana = f"{kenjutsu.pk}:Katana"
    response = roll(client_for(player), kuroda, f"skill:{kenjutsu.pk}", tn=25, emphasis=katana)
    assert response.status_code == 200
    entry = FeedEntry.objects.get()
    assert entry.result["chains"] == [[10, 3], [7], [1], [4], [9], [2]]
    assert entry.result["rerolled"] == [0, 2]
    assert [d["face"] for d in entry.result["dice"]] == [13, 7, 1, 4, 9, 2]
    assert entry.result["total"] == 29 and entry.result["outcome"] == "success"  # 13 + 9 + 7
    assert entry.request["emphasis"] == "Katana"
    assert "emphasis Katana: 1s re-rolled (die 1: 1 → 13, die 3: 1 → 1)" in entry.summary
    assert Fraction(entry.chance) == l5r.chance(6, 3, 25, reroll_ones=True)
    assert "1s re-rolled (die 1: 1 → 13, die 3: 1 → 1)" in response.content.decode()


def test_without_the_emphasis_the_ones_stand(kuroda, player, client_for, fixed_dice):
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    fixed_dice(1, 7, 1, 4, 9, 2)
    roll(client_for(player), kuroda, f"skill:{kenjutsu.pk}", tn=25)
    entry = FeedEntry.objects.get()
    assert entry.result["chains"] == [[1], [7], [1], [4], [9], [2]] and entry.result["rerolled"] == []
    assert entry.result["total"] == 20 and "emphasis" not in entry.summary
    assert Fraction(entry.chance) == l5r.chance(6, 3, 25)


def test_another_skills_roll_ignores_the_chosen_emphasis(kuroda, player, client_for, fixed_dice):
    athletics = kuroda.l5r_skills.get(name="Athletics")
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    fixed_dice(1, 7, 1, 4)  # Strength 3 + Athletics 1: 4k3, nothing re-rolled
    roll(client_for(player), kuroda, f"skill:{athletics.pk}", emphasis=f"{kenjutsu.pk}:Katana")
    entry = FeedEntry.objects.get()
    assert entry.result["chains"] == [[1], [7], [1], [4]] and "emphasis" not in entry.request


def test_keeping_other_dice_keeps_the_re_rolled_dice(kuroda, player, client_for, fixed_dice):
    kenjutsu = kuroda.l5r_skills.get(name="Kenjutsu")
    fixed_dice(1, 7, 1, 4, 9, 2, 10, 3, 1)
    roll(client_for(player), kuroda, f"skill:{kenjutsu.pk}", tn=25, emphasis=f"{kenjutsu.pk}:Katana")
    first = FeedEntry.objects.get()
    data = {"tn": 25, "raises": 0, "free_raises": 0, "free_on_tn": 0, "visibility": "public"}
    url = reverse("l5r_after_roll", args=[kuroda.pk, first.cursor])
    response = client_for(player).post(url, {**data, "do": "rekeep", "keep": [1, 3, 4]}, **HTMX)
    assert response.status_code == 200
    again = FeedEntry.objects.latest("seq")
    assert again.result["chains"] == first.result["chains"] and again.result["rerolled"] == [0, 2]
    assert again.result["total"] == 20  # 7 + 4 + 9
