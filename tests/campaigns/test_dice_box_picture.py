"""The dice box's picture: the exact distribution of the line being typed, as an accessible SVG."""

import re
import time

import pytest
from django.urls import reverse

from campaigns.models import FeedEntry
from tests.conftest import HTMX, page_text


def odds(client, campaign, line):
    return client.get(reverse("table_odds", args=[campaign.pk]), {"notation": line}, **HTMX)


@pytest.fixture
def seated(campaign, client_for, player):
    return client_for(player)


def rows(html: str) -> dict[str, tuple[str, str]]:
    """The table of every total: total -> (percentage, exact fraction)."""
    found = re.findall(r"<tr[^>]*><th scope=\"row\">([^<]+)</th><td>([^<]*)</td><td>([^<]*)</td></tr>", html)
    return {total: (percent, exact) for total, percent, exact in found}


def test_two_d6_lists_every_total_with_its_exact_chance(seated, campaign):
    response = odds(seated, campaign, "2d6")
    html = response.content.decode()
    assert response.status_code == 200
    table = rows(html)
    assert list(table) == [str(total) for total in range(2, 13)]
    assert (
        table["7"] == ("16.7%", "1/6") and table["2"] == ("2.8%", "1/36") and table["12"] == ("2.8%", "1/36")
    )
    assert html.count('class="dist-bar"') == 11  # one bar per total, none marked without a target
    text = page_text(response)
    assert "Totals 2 to 12, mean 7; most likely 7 (16.7%)." in text


def test_the_svg_is_accessible_and_has_no_inline_style(seated, campaign):
    html = odds(seated, campaign, "1d20+5 vs 15").content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert (
        'role="img"' in svg and 'aria-labelledby="dice-odds-title" aria-describedby="dice-odds-desc"' in svg
    )
    assert '<title id="dice-odds-title">Chance of each total of 1d20+5 vs 15</title>' in svg
    desc = svg[svg.index('<desc id="dice-odds-desc">') : svg.index("</desc>")]
    assert "as tall as its chance" in desc and "the totals that succeed in green" in desc
    assert "Totals 6 to 25, mean 15.5" in desc
    assert ">Total</text>" in svg and ">Chance</text>" in svg  # axis labels
    assert 'class="dist-tick"' in svg and 'class="dist-target"' in svg and 'class="dist-mean"' in svg
    assert "style=" not in html  # the CSP forbids inline styles
    # 15 or more: the faces 10 to 20, eleven of twenty, and those bars are the ones marked.
    assert "Chance of 15 or more: 55.0% (11/20)." in html
    assert html.count("dist-bar dist-bar-hit") == 11


def test_a_success_count_names_the_chance_of_one_success(seated, campaign):
    html = odds(seated, campaign, "2d10>=7").content.decode()
    assert rows(html) == {"0": ("36.0%", "9/25"), "1": ("48.0%", "12/25"), "2": ("16.0%", "4/25")}
    assert "Chance of at least one success: 64.0% (16/25)." in html


def test_a_mean_that_is_not_whole_shows_its_fraction(seated, campaign):
    html = odds(seated, campaign, "4d6kh3").content.decode()
    # AnyDice's figures for 4d6 drop the lowest: mean 12.24, 18 one time in 61.7.
    assert "mean 12.24 (15869/1296)" in html
    assert rows(html)["18"] == ("1.6%", "7/432") and rows(html)["3"] == ("&lt;0.1%", "1/1296")


def test_a_repeat_draws_one_of_its_rolls(seated, campaign):
    html = odds(seated, campaign, "6x 4d6kh3").content.decode()
    assert "Each of the 6 rolls: Totals 3 to 18" in html


def test_five_by_five_shows_its_products_and_its_chance(seated, campaign):
    html = odds(seated, campaign, "5x5 vs 6").content.decode()
    table = rows(html)
    assert (
        table["1"] == ("2.8%", "1/36") and table["36"] == ("2.8%", "1/36") and table["6"] == ("11.1%", "1/9")
    )
    assert "Chance of success:" in html


def test_many_totals_are_drawn_in_ranges(seated, campaign):
    html = odds(seated, campaign, "100d6").content.decode()
    assert html.count('class="dist-bar"') == 84  # 501 totals, six to a bar
    assert "Every total (in ranges of 6)" in html and rows(html)["100 to 105"] == ("&lt;0.1%", "")
    assert "mean 350;" in html


def test_bad_notation_shows_the_message_and_a_caret(seated, campaign):
    html = odds(seated, campaign, "2d6+").content.decode()
    assert "at position 5" in html and 'class="notation-caret' in html
    assert "<svg" not in html


def test_a_line_out_of_exact_reach_says_so(seated, campaign):
    html = odds(seated, campaign, "1000d1000").content.decode()
    assert "too many outcomes to draw exactly" in html and "<svg" not in html


def test_a_sum_too_big_to_draw_still_gives_its_exact_chance(seated, campaign):
    html = odds(seated, campaign, "1000d6 vs 3600").content.decode()
    assert "too many outcomes to draw exactly" in html and "Chance of 3600 or more: <strong>" in html


def test_roll_and_keep_has_no_picture_but_keeps_its_chance(seated, campaign):
    html = odds(seated, campaign, "2k1 vs 5").content.decode()
    assert "too many outcomes to draw exactly" in html and "Chance of 5 or more:" in html


def test_an_empty_line_asks_for_one(seated, campaign):
    assert "Type a line" in odds(seated, campaign, "  ").content.decode()


def test_the_picture_rolls_and_saves_nothing_and_is_for_the_table_only(
    campaign, client_for, outsider, player
):
    assert odds(client_for(outsider), campaign, "2d6").status_code == 404
    odds(client_for(player), campaign, "2d6")
    assert not FeedEntry.objects.exists()


@pytest.mark.parametrize(
    "line", ["1000d6 vs 3600", "20d20kh10", "12d6!6>=5", "100d10>=8!", "1d600+1d600+1d600"]
)
def test_heavy_lines_answer_within_the_dice_box_bound(seated, campaign, line):
    odds(seated, campaign, "1d2")  # warm the view up
    start = time.process_time()
    response = odds(seated, campaign, line)
    elapsed = time.process_time() - start
    assert response.status_code == 200
    # 50 ms of the notation's CPU, plus the page's own (generous: the machine is shared).
    assert elapsed < 0.25, f"{line}: {elapsed * 1000:.0f} ms"


def test_the_dice_box_asks_for_the_picture_as_the_player_types(seated, campaign):
    page = seated.get(reverse("table", args=[campaign.pk])).content.decode()
    url = reverse("table_odds", args=[campaign.pk])
    assert f'hx-get="{url}" hx-trigger="input changed delay:250ms" hx-target="#dice-odds"' in page
    assert 'id="dice-odds"' in page


def test_a_line_the_dice_box_would_refuse_is_refused_while_it_is_typed(seated, campaign):
    html = odds(seated, campaign, "1000d1000 vs 100000").content.decode()
    assert "An exact chance out of reach at position 11" in html and 'class="notation-caret' in html
