import pytest

from rules.dice import FixedFaces
from sheets.demo import load_demo_characters

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def fixed_dice(monkeypatch):
    """Make the next sheet roll show these faces (the server still rolls through the engine)."""

    def use(*faces):
        for view_module in ("sheets.views", "play.request_views"):
            monkeypatch.setattr(f"{view_module}.system_random", lambda: FixedFaces(faces))

    return use


@pytest.fixture
def demo_character(make_campaign, player, other_player):
    """The first demo character of a campaign of the given system, owned by ``player``."""

    def make(system: str):
        campaign = make_campaign(system, players=[player, other_player])
        load_demo_characters(campaign, players=[player, other_player])
        return campaign.characters.get(owner=player)

    return make


def page_text(response) -> str:
    """The response's visible text: tags stripped, white space folded."""
    import re

    from django.utils.html import strip_tags

    return re.sub(r"\s+", " ", strip_tags(response.content.decode()))
