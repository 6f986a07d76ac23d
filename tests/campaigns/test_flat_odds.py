"""A flat spread names no "most likely" total: under 1d20+5 every total is as likely as the next."""

import pytest

from tests.conftest import page_text

from .test_dice_box_picture import odds


@pytest.fixture
def seated(campaign, client_for, player):
    return client_for(player)


def test_a_flat_line_says_nothing_of_a_likeliest_total(seated, campaign):
    text = page_text(odds(seated, campaign, "1d20+5"))
    assert "Totals 6 to 25, mean 15.5 (31/2)." in text and "most likely" not in text


def test_a_fixed_total_is_always_itself(seated, campaign):
    text = page_text(odds(seated, campaign, "5"))
    assert "Always 5, mean 5." in text and "most likely" not in text


def test_a_curve_still_names_its_peak(seated, campaign):
    assert "most likely 7 (16.7%)" in page_text(odds(seated, campaign, "2d6"))
