"""The markup dice that land (static/js/dice.js, static/css/app.css) read: each die names its sides
(die-d6, die-d10, die-d20) for its system's shape, as a sheet stores them and as the dice box's terms
say; a roll the viewer may not see carries ghost dice with no face, the same two whatever was rolled;
the table page has the "Animate dice" switch and every page the script."""

import re

import pytest
from django.urls import reverse

from campaigns import services
from campaigns.entry_html import render_entry
from campaigns.models import FeedEntry
from campaigns.selectors import FULL, NOTICE, PLAYERS
from rules.dice import FixedFaces, Roller
from sheets.registry import system_for
from tests.conftest import HTMX

# The die each system throws, as its sheet's rolls store it.
SYSTEM_SIDES = {"fivebyfive": 6, "freefall": 20, "triad": 20, "l5r": 10}

DIE = re.compile(r'<span class="(die(?: [a-z0-9-]+)*)"')
GHOSTS = (
    '<span class="feed-dice feed-ghost-dice" aria-hidden="true">'
    '<span class="ghost-die"></span><span class="ghost-die"></span></span>'
)


@pytest.fixture(autouse=True)
def in_memory_layer(settings):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    from django.core.cache import cache  # the rate limit counts in the cache, which outlives a test

    cache.clear()


def die_classes(html: str) -> list[set[str]]:
    return [set(found.split()) for found in DIE.findall(html)]


def rolled(campaign, author, line, *faces, visibility="public") -> FeedEntry:
    entry, _ = services.table_roll_create(
        campaign=campaign,
        author=author,
        notation_text=line,
        visibility=visibility,
        roller=Roller(FixedFaces(faces)),
    )
    return FeedEntry.objects.get(pk=entry.pk)


@pytest.mark.parametrize("system", SYSTEM_SIDES)
def test_a_sheet_roll_draws_each_die_as_its_systems_die(system, demo_character, client_for, fixed_dice):
    character = demo_character(system)
    form = system_for(character.campaign).options_form(character=character)
    options = {name: field.initial for name, field in form.fields.items()}
    key = system_for(character.campaign).buttons(character, options)[0].key
    fixed_dice(*[5] * 40)
    response = client_for(character.owner).post(reverse("sheet_roll", args=[character.pk, key]), **HTMX)
    assert response.status_code == 200, response.content
    dice = die_classes(render_entry(FeedEntry.objects.get(), FULL))
    assert dice and all(f"die-d{SYSTEM_SIDES[system]}" in classes for classes in dice), dice


@pytest.mark.parametrize(
    ("line", "faces", "shape"),
    [
        ("2d6", (3, 4), "die-d6"),
        ("3d20kh1", (7, 18, 11), "die-d20"),
        ("3k2", (10, 6, 4, 2), "die-d10"),  # roll-and-keep throws d10s; its first die exploded
        ("1d1000", (987,), "die-d1000"),
    ],
)
def test_a_dice_box_roll_draws_the_dice_its_line_names(campaign, player, line, faces, shape):
    dice = die_classes(render_entry(rolled(campaign, player, line, *faces), FULL))
    assert dice and all(shape in classes for classes in dice), dice


def test_dice_of_no_one_kind_keep_the_plain_box(campaign, player):
    for line, faces in (("4dF", (1, 2, 3, 1)), ("(1d6+1d8)", (3, 5))):
        dice = die_classes(render_entry(rolled(campaign, player, line, *faces), FULL))
        assert dice and all(not any(c.startswith("die-d") for c in classes) for classes in dice), (line, dice)


def test_kept_dropped_and_exploded_dice_keep_their_marks(campaign, player):
    dice = die_classes(render_entry(rolled(campaign, player, "3k2", 10, 6, 4, 2), FULL))
    assert {"die-d10", "die-exploded"} <= dice[0]
    assert ["die-dropped" in classes for classes in dice] == [False, False, True]


def test_a_blind_rolls_notice_has_two_ghost_dice_and_no_face_whatever_was_rolled(campaign, player):
    notices = []
    for faces in ((987,), (123,)):
        entry = rolled(campaign, player, "1d1000", *faces, visibility="blind")
        html = render_entry(entry, NOTICE)
        assert GHOSTS in html and html.count("ghost-die") == 2 and 'class="die' not in html
        # Its cursor and time cut out, it is the same markup for both rolls, the faces nowhere.
        bare = re.sub(r"<time .*?</time>", "", html.replace(entry.cursor, ""))
        assert str(faces[0]) not in bare
        notices.append(bare)
    assert notices[0] == notices[1]


def test_the_players_words_of_a_line_with_dice_carry_ghost_dice(campaign, gm):
    words = {"summary": "The ghoul is struck", "changes": []}
    result = {"dice": [{"face": 17, "sides": 20}], "outcome": "success", "total": 17, "players": words}
    entry, _ = services.feed_entry_create(campaign=campaign, author=gm, label="Ghoul attacks", result=result)
    html = render_entry(entry, PLAYERS)
    assert GHOSTS in html and 'class="die' not in html
    assert "17" not in re.sub(r"<time .*?</time>", "", html.replace(entry.cursor, ""))
    assert 'class="die die-d20"' in render_entry(entry, FULL)

    words_only = {"dice": [], "outcome": "none", "players": {"summary": "The ghoul falls", "changes": []}}
    entry, _ = services.feed_entry_create(campaign=campaign, author=gm, label="Ghoul", result=words_only)
    assert "ghost-die" not in render_entry(entry, PLAYERS)


def test_the_table_page_has_the_switch_and_every_page_the_script(campaign, player, client_for):
    table = client_for(player).get(reverse("table", args=[campaign.pk])).content.decode()
    switch = re.search(r'<input [^>]*id="dice-animate"[^>]*>', table).group(0)
    assert 'role="switch"' in switch
    assert '<label class="form-check-label" for="dice-animate">Animate dice</label>' in table
    # Before table.js, so the first entries the socket brings are already heard as arrivals.
    assert table.index("js/dice.js") < table.index("js/table.js")
    assert "js/dice.js" in client_for(player).get(reverse("dashboard")).content.decode()
