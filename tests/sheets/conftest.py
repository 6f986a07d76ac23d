"""The sheets tests use the shared furniture in tests/conftest.py (fixtures, HTMX, page_text), and
two tables of one system for the export and import tests (each module parametrizes ``system_key``).

HTMX and page_text are named here too so a sheets test module may import them as ``.conftest``.
"""

import pytest

from sheets.demo import load_demo_characters
from tests.conftest import HTMX, page_text

__all__ = ["HTMX", "OPTIONS", "page_text"]

# L5R's rulebook archer costs 69 XP: both tables start their characters with 70 (as the demo table does).
# The Triad demo's Van Helsing matches no tier: both Triad tables allow that.
OPTIONS = {"l5r": {"l5r_starting_xp": 70}, "triad": {"triad_out_of_tier": True}}


@pytest.fixture
def tables(system_key, make_campaign, player, other_player):
    """Two campaigns of the system, with OPTIONS; the player's demo character sits at the first."""
    first = make_campaign(system_key, players=[player, other_player], name="First table")
    second = make_campaign(system_key, players=[player], name="Second table")
    for campaign in (first, second):
        campaign.options = {**(campaign.options or {}), **OPTIONS.get(system_key, {})}
        campaign.save(update_fields=["options"])
    load_demo_characters(first, players=[player, other_player])
    return first, second
