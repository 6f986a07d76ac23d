"""A saved roll's button shows the chance of its line, as the dice box prices it, on a sheet and at the
table; a line with no target shows none."""

import re

from django.urls import reverse

from .test_saved_rolls import hero, in_memory_layer, save  # noqa: F401 - the fixtures


def chances(html: str) -> list[str]:
    return re.findall(r'<span class="roll-chance small">([^<]+)</span>', html)


def test_saved_roll_buttons_show_the_chance_of_their_line(hero, client_for):  # noqa: F811
    save(hero, name="Stake", line="3d6+2 vs 14")  # 14+ on 3d6+2: 12+ on 3d6, 81/216
    save(hero, name="Plain", line="2d6")
    client = client_for(hero.owner)
    sheet = client.get(hero.get_absolute_url()).content.decode()
    assert chances(sheet) == ["37.5%"]
    table = client.get(reverse("table", args=[hero.campaign_id])).content.decode()
    assert chances(table) == ["37.5%"]
