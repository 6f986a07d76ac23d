"""The write policy (sheets/policy.py): who may type which value of a sheet, on every path that writes one.

A player types their character's name and notes and what it carries; play state only when the GM lets
players adjust it (then each edit is a GM-only feed line with the old and new value); build values never.
The GM types anything within its bounds. An undo is judged as the edits it types back.
"""

import html
import re

import pytest
from django.apps import apps
from django.urls import reverse

from campaigns.models import FeedEntry, Visibility
from campaigns.systems import PLAYERS_ADJUST_PLAY_STATE
from sheets.edit import editable_field
from sheets.models import Character, SheetChange
from sheets.policy import Kind
from sheets.registry import game_systems, system_for

from .conftest import HTMX, page_text


def players_adjust_play_state(campaign) -> None:
    """Turn on the campaign option that lets players type their own play state."""
    campaign.options = {**campaign.options, PLAYERS_ADJUST_PLAY_STATE: True}
    campaign.save(update_fields=["options"])


def fresh(character) -> Character:
    return Character.objects.select_related("campaign").get(pk=character.pk)


def edit(client, character, path, value):
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": fresh(character).version},
        **HTMX,
    )


def value_at(character, path):
    return editable_field(fresh(character), path).value


def field_error(response) -> str:
    found = re.search(r'role="alert">(.*?)</div>', response.content.decode(), re.S)
    return html.unescape(found.group(1)) if found else ""


def l5r_weapon_dice(character) -> str:
    weapon = character.l5r_weapons.filter(bow_strength__isnull=True).first()
    return (
        f"weapon:{weapon.pk}:rolled" if weapon else f"weapon:{character.l5r_weapons.first().pk}:bow_strength"
    )


def other_tier(character) -> str:
    return "epic" if fresh(character).triad.tier != "epic" else "heroic"


# The values issue 18 found a player could type, per system: (path, a value within the field's bounds).
PLAY_EDITS = {
    "triad": [("body", "3"), ("mind", "2")],
    "fivebyfive": [("hp", "5")],
    "l5r": [("wounds", "10"), ("void_spent", "1")],
    "freefall": [("harm1_state", "temp"), ("ghost_spent", "1")],
}
BUILD_EDITS = {
    "triad": [("body_max", "20"), ("tier", lambda character: other_tier(character))],
    "fivebyfive": [("hp_rank", "0")],
    "l5r": [("school_rank", "10"), ("armor", "50"), ("stamina", "5"), (l5r_weapon_dice, "10")],
    "freefall": [("body_perm", "10")],
}
SYSTEMS = sorted(PLAY_EDITS)


def edits(table, character):
    return [
        (path(character) if callable(path) else path, value(character) if callable(value) else value)
        for path, value in table[character.campaign.system]
    ]


def hand_lines(campaign):
    """The feed lines that tell the GM a player set a value by hand."""
    return FeedEntry.objects.filter(campaign=campaign, label__contains="set by hand")


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_player_may_not_type_play_state_or_build_values_by_default(
    demo_character, player, client_for, system
):
    character = demo_character(system)
    client = client_for(player)
    for path, value in edits(PLAY_EDITS, character) + edits(BUILD_EDITS, character):
        before, version = value_at(character, path), fresh(character).version
        response = edit(client, character, path, value)
        assert response.status_code == 422, path
        label = editable_field(fresh(character), path).label
        assert field_error(response).startswith(label), (path, field_error(response))
        assert value_at(character, path) == before and fresh(character).version == version, path
    assert not SheetChange.objects.filter(character=character).exists()
    assert not hand_lines(character.campaign).exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_reasons_point_at_play_and_at_the_build(demo_character, player, client_for, system):
    character = demo_character(system)
    client = client_for(player)
    play_path, play_value = edits(PLAY_EDITS, character)[0]
    play = field_error(edit(client, character, play_path, play_value))
    assert "is play state" in play and "players adjust their own play state" in play
    build_path, build_value = edits(BUILD_EDITS, character)[0]
    build = field_error(edit(client, character, build_path, build_value))
    assert "is part of the build: after creation only" in build
    has_xp = system_for(character.campaign).xp(fresh(character)) is not None
    assert ("XP spent at the book's cost" in build) == has_xp


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_gm_types_the_same_values_and_no_feed_line_is_written(demo_character, gm, client_for, system):
    character = demo_character(system)
    client = client_for(gm)
    for path, value in edits(PLAY_EDITS, character) + edits(BUILD_EDITS, character):
        response = edit(client, character, path, value)
        assert response.status_code == 200, (path, field_error(response))
        saved = value_at(character, path)
        assert str(saved if not isinstance(saved, bool) else "") == value or str(saved) == value, path
    assert SheetChange.objects.filter(character=character).count() == len(PLAY_EDITS[system]) + len(
        BUILD_EDITS[system]
    )
    assert not hand_lines(character.campaign).exists()


@pytest.mark.parametrize("system", SYSTEMS)
def test_with_the_option_a_player_types_play_state_and_the_gm_reads_it_in_the_feed(
    demo_character, player, other_player, gm, client_for, system
):
    character = demo_character(system)
    players_adjust_play_state(character.campaign)
    client = client_for(player)
    for path, value in edits(PLAY_EDITS, character):
        field = editable_field(fresh(character), path)
        response = edit(client, character, path, value)
        assert response.status_code == 200, (path, field_error(response))
        line = hand_lines(character.campaign).latest("seq")
        now = editable_field(fresh(character), path).display
        assert line.summary == f"{field.label} {field.display} -> {now}" and field.display != now
        assert (
            line.visibility == Visibility.GM and line.author == player and line.character_id == character.pk
        )
    assert hand_lines(character.campaign).count() == len(PLAY_EDITS[system])
    # A GM-only line: the GM reads it, the other players do not.
    assert "set by hand" in page_text(client_for(gm).get(reverse("table", args=[character.campaign_id])))
    assert "set by hand" not in page_text(
        client_for(other_player).get(reverse("table", args=[character.campaign_id]))
    )
    # The build stays the builder's and XP's.
    for path, value in edits(BUILD_EDITS, character):
        assert edit(client, character, path, value).status_code == 422, path


def test_name_notes_and_kit_stay_the_players(demo_character, player, client_for):
    character = demo_character("fivebyfive")
    client = client_for(player)
    assert edit(client, character, "notes", "Owes the salt merchant").status_code == 200
    assert edit(client, character, "weapon", "No weapon").status_code == 200
    assert fresh(character).notes == "Owes the salt merchant"
    assert not hand_lines(character.campaign).exists()


def editor_paths(client, character) -> set[str]:
    page = client.get(character.get_absolute_url()).content.decode()
    return set(re.findall(rf"/characters/{character.pk}/field/([^/\"?]+)/\?edit=1", page))


def test_the_page_offers_an_editor_only_where_the_policy_allows(demo_character, player, gm, client_for):
    character = demo_character("fivebyfive")
    assert editor_paths(client_for(player), character) >= {"name", "notes", "weapon"}
    assert "hp" not in editor_paths(client_for(player), character)
    assert {"hp", "hp_rank", "xp"} <= editor_paths(client_for(gm), character)
    # Asked for the editor anyway, the player gets the value to read.
    response = client_for(player).get(
        reverse("sheet_field", args=[character.pk, "hp"]), {"edit": "1"}, **HTMX
    )
    assert "<form" not in response.content.decode()
    players_adjust_play_state(character.campaign)
    assert "hp" in editor_paths(client_for(player), character)
    assert "hp_rank" not in editor_paths(client_for(player), character)


def test_a_dying_five_by_five_character_is_not_typed_back_to_full(demo_character, player, gm, client_for):
    character = demo_character("fivebyfive")
    assert edit(client_for(gm), character, "hp", "-5").status_code == 200
    assert edit(client_for(player), character, "hp", "12").status_code == 422
    assert value_at(character, "hp") == -5


# ----- undo ------------------------------------------------------------------------------------------


def undo(client, character, change) -> str:
    response = client.post(reverse("sheet_undo", args=[character.pk, change.pk]), follow=True)
    return html.unescape(page_text(response))


def latest(character) -> SheetChange:
    return SheetChange.objects.filter(character=character).latest("pk")


def test_a_player_may_not_undo_the_gms_harm(demo_character, player, gm, client_for):
    character = demo_character("freefall")
    assert edit(client_for(gm), character, "harm1_state", "temp").status_code == 200
    harm = latest(character)
    page = undo(client_for(player), character, harm)
    assert "You may not undo this change: Harm1 kind is play state" in page
    assert value_at(character, "harm1_state") == "temp"
    assert SheetChange.objects.filter(character=character).count() == 1
    # The GM may.
    assert "Undone: Edited Harm slot 1 state." in undo(client_for(gm), character, harm)
    assert value_at(character, "harm1_state") == "empty"


def test_a_player_may_not_undo_a_rolls_spend(demo_character, player, client_for, fixed_dice):
    character = demo_character("triad")
    fixed_dice(5, 12)
    client_for(player).post(
        reverse("sheet_roll", args=[character.pk, "ability:mind"]),
        {"difficulty": 10, "advantages": 0, "disadvantages": 0, "extra_effort": "on", "visibility": "public"},
        **HTMX,
    )
    spent = latest(character)
    mind = value_at(character, "mind")
    assert "You may not undo this change: Mind is play state" in undo(client_for(player), character, spent)
    assert value_at(character, "mind") == mind and not SheetChange.objects.filter(undoes=spent).exists()


def test_a_player_may_not_undo_an_xp_purchase(demo_character, player, gm, client_for):
    character = demo_character("l5r")
    for _ in range(2):  # the demo's archer is over the starting budget: 40 XP brings it back above 0
        client_for(gm).post(reverse("xp_award", args=[character.pk]), {"amount": "20"})
    stealth = character.l5r_skills.get(name="Stealth")
    offer = f"skill:skill_stealth@{stealth.rank}"
    client_for(player).post(reverse("xp_spend", args=[character.pk]), {"offer": offer})
    bought = latest(character)
    assert bought.author == player and bought.reason.startswith("Spent")
    page = undo(client_for(player), character, bought)
    assert "You may not undo this change:" in page and "is part of the build" in page
    assert "Undone:" in undo(client_for(gm), character, bought)


def test_with_the_option_a_players_undo_of_play_state_is_told_to_the_gm(demo_character, player, client_for):
    character = demo_character("triad")
    players_adjust_play_state(character.campaign)
    client = client_for(player)
    assert edit(client, character, "body", "3").status_code == 200
    assert "Undone: Edited Body." in undo(client, character, latest(character))
    line = hand_lines(character.campaign).latest("seq")
    assert line.summary == "Body 3 -> 8 (undo)" and line.visibility == Visibility.GM


# ----- the systems' own forms ------------------------------------------------------------------------


def test_a_rest_is_play_state_set_by_hand(demo_character, player, gm, client_for):
    character = demo_character("fivebyfive")
    assert edit(client_for(gm), character, "hp", "5").status_code == 200
    rest = reverse("fivebyfive_rest", args=[character.pk])

    def rest_days(client):
        response = client.post(rest, {"rest-days": 3, "version": fresh(character).version}, follow=True)
        return html.unescape(page_text(response))

    assert "HP healed by rest is play state" in rest_days(client_for(player))
    assert value_at(character, "hp") == 5
    assert "Time and recovery" not in page_text(client_for(player).get(character.get_absolute_url()))
    players_adjust_play_state(character.campaign)
    assert "HP 5 -> 8" in rest_days(client_for(player))
    assert hand_lines(character.campaign).get().summary == "a rest of 3 days: HP 5 -> 8"
    assert "HP 8 -> 11" in rest_days(client_for(gm))
    assert hand_lines(character.campaign).count() == 1


def test_a_freefall_repair_and_rest_follow_the_option(demo_character, player, gm, client_for):
    character = demo_character("freefall")
    item = character.ff_gear.first()
    assert edit(client_for(gm), character, f"gear:{item.pk}:condition", "broken").status_code == 200
    assert edit(client_for(gm), character, "harm1_state", "temp").status_code == 200
    repair = reverse("freefall_repair", args=[character.pk, item.pk])
    rest = reverse("freefall_rest", args=[character.pk])
    changes = SheetChange.objects.filter(character=character).count()
    page = page_text(client_for(player).post(repair, {"version": fresh(character).version}, follow=True))
    assert "condition is play state" in page
    page = page_text(client_for(player).post(rest, {"version": fresh(character).version}, follow=True))
    assert "Harm is play state" in page
    assert SheetChange.objects.filter(character=character).count() == changes
    players_adjust_play_state(character.campaign)
    client_for(player).post(repair, {"version": fresh(character).version})
    client_for(player).post(rest, {"version": fresh(character).version})
    assert (
        value_at(character, f"gear:{item.pk}:condition") == "ok"
        and value_at(character, "harm1_state") == "empty"
    )
    assert hand_lines(character.campaign).count() == 2


def test_triad_traits_after_creation_are_the_gms(demo_character, player, gm, client_for):
    character = demo_character("triad")
    add = reverse("triad_trait_add", args=[character.pk])
    page = page_text(client_for(player).post(add, {"trait-listed": "Deadly"}, follow=True))
    assert "The trait list is part of the build: after creation only the GM changes it." in page
    assert not character.triad_traits.filter(name="Deadly").exists()
    assert "Add trait" not in page
    client_for(gm).post(add, {"trait-listed": "Deadly"})
    assert character.triad_traits.filter(name="Deadly").exists()


# ----- every stored value is classified ----------------------------------------------------------------


@pytest.mark.parametrize("config", game_systems(), ids=lambda config: config.label)
def test_every_stored_value_of_every_system_has_a_kind(config):
    """A field a model gains is the GM's until its system classifies it: this fails until then."""
    kinds = config.sheet.value_kinds
    for model in apps.get_app_config(config.label).get_models():
        stored = {
            field.attname
            for field in model._meta.concrete_fields
            if not field.primary_key and field.related_model is not Character
        }
        assert model in kinds, model
        assert set(kinds[model]) == stored, model
        assert all(isinstance(kind, Kind) for kind in kinds[model].values())
