"""An import is a build, not a backdoor: a player's file brings the build alone, the GM's the character whole.

A player's import is held to the campaign's creation rules (no widening by the file's own XP), and XP,
what XP bought and the play state start as a fresh build's, the page naming every value it reset. The
GM's import restores the file whole (tests/sheets/test_export.py checks that path strictly). Imports
share the roll limiter. The Triad samples the builder offers import back into the campaigns that offer
them, and every refusal reads as sentences about the character.
"""

import json

import pytest
from django.urls import reverse

from rules import triad
from sheets.demo import load_demo_characters
from sheets.models import Character

from .test_export import PLAY, SYSTEMS, everything, export, shown, stored_play, upload


@pytest.fixture(params=SYSTEMS)
def system_key(request):
    return request.param


def _edited(document, relation, **values):
    play = json.loads(json.dumps(document["play"]))
    play[relation].update(values)
    return {**document, "play": play}


def _rows(document, relation, change):
    play = json.loads(json.dumps(document["play"]))
    for place, row in enumerate(play[relation]):
        row.update(change(place, row))
    return {**document, "play": play}


def hand_edit_fivebyfive(document):
    """9,999 XP, a dying character at 4 HP holding the token, descriptors 16/12/12/12/12 with no XP spent."""
    fresh = document["play"]
    edited = _edited(document, "fivebyfive", xp=9999, hp=4, doubles_token=True)
    edited = _rows(edited, "descriptors", lambda place, row: {"value": 16 if place == 0 else 12})
    names = [row["name"] for row in fresh["descriptors"]]
    values = [row["value"] for row in fresh["descriptors"]]
    return edited, [
        "XP 9999 → 0",
        f"HP 4 → {fresh['fivebyfive']['hp']}",
        "Doubles token yes → no",
        f"{names[0]}'s value 16 → {values[0]}",
        f"{names[1]}'s value 12 → {values[1]}",
    ]


def hand_edit_freefall(document):
    edited = _edited(document, "freefall", body_spent=3, harm1_state="perm", harm1_kind="physical")
    edited = _rows(edited, "ff_programs", lambda place, row: {"compromised": True})
    program = document["play"]["ff_programs"][0]["name"]
    return edited, [
        "Body spent 3 → 0",
        "Harm1 state 'perm' → 'empty'",
        "Harm1 kind 'physical' → nothing",
        f"{program}'s compromised yes → no",
    ]


def hand_edit_l5r(document):
    """9,999 XP awarded, wounds and Void spent, a weapon of 10k10."""
    edited = _edited(document, "l5r", xp_awarded=9999, wounds=12, void_spent=1)
    edited = _rows(edited, "l5r_weapons", lambda place, row: {"rolled": 10, "kept": 10})
    weapon = document["play"]["l5r_weapons"][0]
    return edited, [
        "XP awarded 9999 → 0",
        "Wounds 12 → 0",
        "Void spent 1 → 0",
        f"{weapon['name']}'s rolled 10 → {weapon['rolled']}",
    ]


def hand_edit_triad(document):
    """Current Body at 1, stunned, Hard To Kill spent: what a player would undo by importing again."""
    edited = _edited(document, "triad", body=1, stunned=True, hard_to_kill_used=True)
    most = document["play"]["triad"]["body_max"]
    return edited, [f"Body 1 → {most}", "Stunned yes → no", "Hard to kill used yes → no"]


HAND_EDITS = {
    "fivebyfive": hand_edit_fivebyfive,
    "freefall": hand_edit_freefall,
    "l5r": hand_edit_l5r,
    "triad": hand_edit_triad,
}


def assert_sentences(message: str):
    """A message a player reads: no doubled full stop, no Django field message, no bare field name."""
    assert ".." not in message and "This field is required" not in message, message
    assert "Ensure this value" not in message and "__all__" not in message, message


def test_player_import_of_a_hand_edited_file_is_a_fresh_build_and_says_what_it_reset(
    system_key, tables, player, client_for
):
    client = client_for(player)
    fresh = export(client, tables[0].characters.get(owner=player))
    edited, resets = HAND_EDITS[system_key](fresh)
    response = upload(client, tables[1], edited, follow=True)
    copy = Character.objects.get(campaign=tables[1])
    assert copy.owner == player
    # The copy is the build the builder makes from the file: none of the edited values came with it.
    assert export(client, copy) == fresh
    assert not copy.changes.exists()
    messages = shown(response)
    assert len(messages) == 1, messages
    assert messages[0].startswith(f"Imported {copy.name} as a fresh build.")
    assert "Reset from the file: " in messages[0]
    for reset in resets:
        assert reset in messages[0], (reset, messages[0])
    assert_sentences(messages[0])
    # The message is on the new sheet, where the player lands.
    assert response.redirect_chain[-1][0] == copy.get_absolute_url()


def test_gm_import_of_the_same_file_keeps_every_value(system_key, tables, player, gm, client_for):
    fresh = export(client_for(player), tables[0].characters.get(owner=player))
    edited, _ = HAND_EDITS[system_key](fresh)
    response = upload(client_for(gm), tables[1], edited, follow=True)
    copy = Character.objects.get(campaign=tables[1])
    assert shown(response) == [
        f"Imported {copy.name} with its play state; the history records the import for the GM."
    ]
    assert export(client_for(gm), copy) == edited
    assert stored_play(copy) == edited["play"]


def test_huge_xp_in_a_players_file_is_reset_not_refused(player, client_for, make_campaign):
    """10^12 XP is no value any sheet holds; a player's import does not read it, so says it reset it."""
    first = make_campaign("fivebyfive", players=[player], name="Salt Road")
    second = make_campaign("fivebyfive", players=[player], name="Elsewhere")
    load_demo_characters(first, players=[player])
    fresh = export(client_for(player), first.characters.get())
    response = upload(client_for(player), second, _edited(fresh, "fivebyfive", xp=10**12), follow=True)
    assert "XP 1000000000000 → 0" in shown(response)[0]
    assert second.characters.get().fivebyfive.xp == 0


# ----- the build is held to the campaign's creation rules -------------------------------------------------


@pytest.mark.parametrize("system_key", ["l5r"])
def test_l5r_xp_awarded_in_the_file_no_longer_widens_a_players_budget(tables, gm, player, client_for):
    """A character whose ranks were bought with awarded XP is over the creation budget: refused for a
    player (the file's own xp_awarded does not count), imported whole by the GM."""
    character = tables[0].characters.get(owner=player)
    PLAY["l5r"](character, gm, player)  # 15 XP awarded and spent on a trait and a skill
    document = export(client_for(player), character)
    document = _edited(document, "l5r", xp_awarded=9999)
    before = everything()
    messages = shown(upload(client_for(player), tables[1], document, follow=True))
    assert len(messages) == 1
    assert messages[0].startswith(f"{character.name} breaks this campaign's rules: This character costs")
    assert "the campaign's starting budget is 70 XP" in messages[0]
    assert messages[0].endswith("the GM may import a played character whole.")
    assert_sentences(messages[0])
    assert everything() == before
    assert upload(client_for(gm), tables[1], document).status_code == 302


@pytest.mark.parametrize(
    ("system_key", "change", "message"),
    [
        ("fivebyfive", {"descriptor_1": None}, "the file gives no Descriptor 1"),
        ("triad", {"body": "abc"}, "Body is 'abc', not a whole number"),
        ("triad", {"weapon": "bazooka"}, "Weapon 'bazooka' is not one of the choices"),
        ("l5r", {"stamina": 0}, "Stamina must be from 1 to"),
        ("freefall", {"character_class": ""}, "the file gives no Class"),
        ("triad", {"body": 99}, "Body is 99, above 20"),
        ("fivebyfive", {"order": ["x"]}, "Order 'x' is not one of the choices"),
    ],
)
def test_a_refused_build_reads_as_sentences_about_the_character(
    tables, player, client_for, system_key, change, message
):
    fresh = export(client_for(player), tables[0].characters.get(owner=player))
    sheet = {key: value for key, value in {**fresh["sheet"], **change}.items() if value is not None}
    before = everything()
    messages = shown(upload(client_for(player), tables[1], {**fresh, "sheet": sheet}, follow=True))
    assert len(messages) == 1 and messages[0].startswith(f"{fresh['name']} breaks this campaign's rules: ")
    assert message in messages[0], messages
    assert messages[0].endswith(".")
    assert_sentences(messages[0])
    assert "_" not in messages[0].split(": ", 1)[1], messages  # no field's name such as character_class
    assert everything() == before


# ----- imports share the roll limiter -------------------------------------------------------------------


@pytest.mark.parametrize("system_key", ["triad"])
def test_the_eleventh_import_in_a_minute_is_429(tables, player, gm, client_for):
    client = client_for(player)
    document = export(client, tables[0].characters.get(owner=player))
    for _ in range(10):
        assert upload(client, tables[1], document).status_code == 302
    made = tables[1].characters.count()
    response = upload(client, tables[1], document)
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Slow down: at most 10 imports every 60 seconds." in response.content.decode()
    assert tables[1].characters.count() == made == 10
    # Another user's imports are counted on their own.
    assert upload(client_for(gm), tables[1], document).status_code == 302


# ----- the Triad samples the builder offers are legal where it offers them ---------------------------------


@pytest.fixture
def default_triad(make_campaign, player):
    return make_campaign("triad", players=[player], name="Default table")


def _sample_buttons(client, campaign) -> list[str]:
    page = client.get(reverse("character_new", args=[campaign.pk])).content.decode()
    return [s.name for s in triad.SAMPLE_CHARACTERS.values() if f"Create {s.name}" in page]


def test_triad_samples_offered_in_a_default_campaign_import_back_into_one(
    default_triad, make_campaign, player, gm, client_for
):
    client = client_for(player)
    assert _sample_buttons(client, default_triad) == ["Zheng Yi Sao"]
    response = client.post(reverse("character_new", args=[default_triad.pk]), {"sample": "zheng_yi_sao"})
    sample = Character.objects.get(name="Zheng Yi Sao")
    assert response.url == sample.get_absolute_url()
    assert "Out of tier" not in client.get(sample.get_absolute_url()).content.decode()
    document = export(client, sample)
    other = make_campaign("triad", players=[player], name="Another default table")
    for who in (player, gm):
        response = upload(client_for(who), other, document)
        assert response.status_code == 302, shown(client_for(who).get(response.url))
    for copy in other.characters.all():
        assert export(client, copy) == document


def test_a_sample_outside_the_tiers_is_offered_only_where_the_gm_allows_it(
    default_triad, make_campaign, player, client_for
):
    client = client_for(player)
    before = everything()
    response = client.post(reverse("character_new", args=[default_triad.pk]), {"sample": "van_helsing"})
    assert response.status_code == 404 and everything() == before
    allowing = make_campaign("triad", players=[player], name="Anything goes")
    allowing.options = {"triad_out_of_tier": True}
    allowing.save(update_fields=["options"])
    assert _sample_buttons(client, allowing) == ["Abraham Van Helsing", "Zheng Yi Sao"]
    client.post(reverse("character_new", args=[allowing.pk]), {"sample": "van_helsing"}, follow=True)
    helsing = allowing.characters.get(name="Abraham Van Helsing")
    # Its file does not fit a default campaign, and the refusal says why in a sentence.
    messages = shown(upload(client, default_triad, export(client, helsing), follow=True))
    assert messages == [
        "Abraham Van Helsing breaks this campaign's rules: it matches no tier, and this campaign "
        "builds characters within the tiers (its GM may allow characters outside them). A player's "
        "import is checked as a new character, without XP the file says was awarded; the GM may import "
        "a played character whole."
    ]
    assert not default_triad.characters.exists()


def test_the_import_form_tells_a_player_what_travels(default_triad, player, gm, client_for):
    player_page = client_for(player).get(reverse("character_new", args=[default_triad.pk])).content.decode()
    gm_page = client_for(gm).get(reverse("character_new", args=[default_triad.pk])).content.decode()
    assert "XP, what XP bought and damage start fresh" in player_page
    assert "brings the character whole" in gm_page and "start fresh" not in gm_page


@pytest.mark.parametrize("system_key", ["fivebyfive"])
def test_what_xp_bought_stays_behind_in_a_players_import(tables, gm, player, client_for):
    """A played Five by Five character: 12 XP awarded, a descriptor raised, Knife Fighter bought."""
    character = tables[0].characters.get(owner=player)
    fresh = export(client_for(player), character)
    PLAY["fivebyfive"](character, gm, player)
    response = upload(client_for(player), tables[1], export(client_for(player), character), follow=True)
    copy = Character.objects.get(campaign=tables[1])
    assert export(client_for(player), copy) == fresh
    assert "'Knife Fighter' left out (not in the build)" in shown(response)[0]
