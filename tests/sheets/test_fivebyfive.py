"""The Five by Five builder, sheet edits, rolls with doubles tokens, export and import, through the views."""

import json
from fractions import Fraction

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from rules import fivebyfive
from sheets.models import Character
from sheets.systems.fivebyfive.models import FiveByFiveDescriptor, FiveByFiveSheet
from sheets.systems.fivebyfive.sheet import system as fivebyfive_system

from .conftest import HTMX, page_text

VALID = {
    "name": "Larry",
    "descriptor_1": "Street Smarts",
    "descriptor_2": "Amateur Chef",
    "descriptor_3": "Brawler",
    "exclusive_3": "attack",
    "descriptor_4": "Uncanny Reflexes",
    "exclusive_4": "dodge",
    "descriptor_5": "Stage Fright",
    "order": ["1", "2", "hp", "3", "4", "5"],
    "weapon": "Medium weapon",
    "armor": "Heavy clothes",
    "shield": "on",
    "notes": "",
}


def counts():
    return Character.objects.count(), FiveByFiveSheet.objects.count(), FiveByFiveDescriptor.objects.count()


@pytest.fixture
def fbf_campaign(make_campaign, player):
    return make_campaign("fivebyfive", players=[player])


def build(client, campaign, data):
    return client.post(reverse("character_new", args=[campaign.pk]), data)


def test_valid_build_saves_every_row_with_the_engine_values(fbf_campaign, player, client_for):
    response = build(client_for(player), fbf_campaign, VALID)
    character = Character.objects.get(name="Larry")
    assert response.url == character.get_absolute_url()
    rows = [(d.name, d.value, d.position, d.exclusive_action) for d in character.descriptors.all()]
    assert rows == [
        ("Street Smarts", 6, 0, ""),
        ("Amateur Chef", 4, 1, ""),
        ("Brawler", 2, 3, "attack"),
        ("Uncanny Reflexes", 2, 4, "dodge"),
        ("Stage Fright", -5, 5, ""),
    ]
    sheet = character.fivebyfive
    assert (sheet.hp_rank, sheet.hp) == (4, 14)  # third place: 4, and HP = value + 10
    assert (sheet.weapon, sheet.weapon_db, sheet.armor, sheet.armor_av) == (
        "Medium weapon",
        3,
        "Heavy clothes",
        -3,
    )
    assert sheet.shield and not sheet.offhand_dagger and not sheet.doubles_token and sheet.xp == 0
    values = fivebyfive.ranked_values(
        ["Street Smarts", "Amateur Chef", "HP", "Brawler", "Uncanny Reflexes", "x"]
    )
    assert values["HP"] == sheet.hp


def with_order(order):
    return {**VALID, "order": order}


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"descriptor_2": ""}, "descriptor_2", "This field is required"),
        ({"descriptor_4": "street smarts"}, "descriptor_4", "ranked twice"),
        ({"descriptor_5": "HP"}, "descriptor_5", "HP is already on every sheet"),
        ({"descriptor_1": "x" * 61}, "descriptor_1", "at most 60 characters"),
        (with_order(["1", "2", "3", "4", "5"]), "order", "Rank all six"),
        (with_order(["1", "1", "2", "3", "4", "hp"]), "order", "Rank all six"),
        (with_order(["1", "2", "3", "4", "5", "6"]), "order", "Select a valid choice"),
        ({"exclusive_2": "fly"}, "exclusive_2", "Select a valid choice"),
        ({"advanced_1": "on"}, "descriptor_1", "Advanced descriptors are not used in this campaign"),
        ({"aspect_agility": "1"}, "__all__", "Aspects are not used in this campaign"),
        ({"weapon": "Laser"}, "weapon", "Select a valid choice"),
        ({"armor": "Force field"}, "armor", "Select a valid choice"),
    ],
)
def test_builder_refuses_each_creation_rule(fbf_campaign, player, client_for, change, field, message):
    before = counts()
    response = build(client_for(player), fbf_campaign, {**VALID, **change})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert message in " ".join(errors.get(field, [])), errors
    assert message in page_text(response).replace("&#x27;", "'") or field == "order"
    assert counts() == before


def test_hp_cannot_be_advanced_nor_two_superior_aspects_with_one_inferior(fbf_campaign, player, client_for):
    fbf_campaign.options = {"fbf_advanced": True, "fbf_aspects": True}
    fbf_campaign.save()
    before = counts()
    data = {**VALID, "aspect_agility": "1", "aspect_brawn": "1", "aspect_cognition": "-1"}
    response = build(client_for(player), fbf_campaign, data)
    assert "Each Superior aspect must be paid for with an Inferior one" in " ".join(
        response.context["form"].errors["aspect_brawn"]
    )
    assert counts() == before


def test_optional_rules_save_advanced_and_aspects_when_the_campaign_uses_them(
    fbf_campaign, player, client_for
):
    fbf_campaign.options = {"fbf_advanced": True, "fbf_aspects": True}
    fbf_campaign.save()
    data = {**VALID, "advanced_1": "on", "aspect_agility": "1", "aspect_determination": "-1"}
    response = build(client_for(player), fbf_campaign, data)
    assert response.status_code == 302
    street = FiveByFiveDescriptor.objects.get(name="Street Smarts")
    sheet = street.character.fivebyfive
    assert street.advanced
    assert (sheet.agility, sheet.brawn, sheet.cognition, sheet.determination) == (1, 0, 0, -1)
    # Advanced 6 on a task based on the Superior aspect: -2 + 1 = one step down, to 4.
    options = {"shift": 0, "spend_token": False, "aspect": "agility"}
    buttons = fivebyfive_system.buttons(street.character, options)
    assert buttons[0].chance == fivebyfive.chance(4)


def test_builder_shows_the_optional_fields_only_when_turned_on(fbf_campaign, player, client_for):
    url = reverse("character_new", args=[fbf_campaign.pk])
    page = client_for(player).get(url).content.decode()
    assert 'name="advanced_1"' not in page and 'name="aspect_agility"' not in page
    fbf_campaign.options = {"fbf_advanced": True, "fbf_aspects": True}
    fbf_campaign.save()
    page = client_for(player).get(url).content.decode()
    assert 'name="advanced_1"' in page and 'name="aspect_agility"' in page


def test_move_buttons_reorder_without_javascript_and_save_nothing(fbf_campaign, player, client_for):
    before = counts()
    response = build(client_for(player), fbf_campaign, {**VALID, "move": "hp:up"})
    assert response.status_code == 200 and counts() == before
    form = response.context["form"]
    assert form.ranking() == ["1", "hp", "2", "3", "4", "5"]
    assert not form.errors
    page = response.content.decode()
    # The typed names survive, and HP now shows its new value.
    assert 'value="Amateur Chef"' in page and "14 HP" in page
    response = build(client_for(player), fbf_campaign, {**VALID, "name": "", "move": "1:up"})
    assert response.context["form"].ranking() == VALID["order"]  # the top row stays on top
    assert "This field is required" not in page_text(response)


def test_every_faulty_row_is_flagged_at_once(fbf_campaign, player, client_for):
    data = {**VALID, "descriptor_3": "Amateur  chef", "descriptor_5": ""}
    form = build(client_for(player), fbf_campaign, data).context["form"]
    assert "'Amateur  chef' is ranked twice." in form.errors["descriptor_3"]
    assert "This field is required." in form.errors["descriptor_5"]


# ----- the sheet ---------------------------------------------------------------------------------


def edit(client, character, path, value, version=None):
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version if version is None else version},
        **HTMX,
    )


def state(character):
    return (
        Character.objects.values_list("version", flat=True).get(pk=character.pk),
        FiveByFiveSheet.objects.filter(character=character).values().get(),
        list(FiveByFiveDescriptor.objects.filter(character=character).values()),
    )


def test_sheet_shows_every_part(demo_character, player, client_for):
    character = demo_character("fivebyfive")
    text = page_text(client_for(player).get(character.get_absolute_url()))
    for part in (
        "Amateur Chef",
        "4 (competent)",
        "Doubles token",
        "XP",
        "Light weapon (DB 2)",
        "Medium clothes (AV -2)",
        "Shield",
        "Dodges a round",
        "Amateur Chef 4 - 52.8%",
        "next rank: 6 XP",
        "poor: trade it for 5 XP",
    ):
        assert part in text, part
    assert fivebyfive_system.party_summary(character) == "HP 12/12 · no token"


def test_edit_in_place_saves_and_bumps_the_version(demo_character, player, gm, client_for):
    character = demo_character("fivebyfive")
    chef = character.descriptors.get(name="Amateur Chef")
    response = edit(client_for(gm), character, f"descriptor:{chef.pk}:value", "6")
    assert response.status_code == 200
    chef.refresh_from_db()
    assert chef.value == 6
    # The buttons come back out of band with the new chance.
    assert f"Amateur Chef 6 - {format_percent(fivebyfive.chance(6))}" in page_text(response)
    character.refresh_from_db()
    assert character.version == 2
    response = edit(client_for(gm), character, f"descriptor:{chef.pk}:name", "  Master   Chef ")
    chef.refresh_from_db()
    assert chef.name == "Master Chef"
    character.refresh_from_db()
    for who, path, value in (
        (gm, "hp", "7"),  # play state: the GM's to type unless the table lets players (sheets/policy.py)
        (gm, "xp", "3"),
        (gm, "doubles_token", "on"),
        (player, "weapon", "Massive weapon"),
        (player, "armor", "Heavy armor"),
        (player, "offhand_dagger", "on"),
        (gm, f"descriptor:{chef.pk}:exclusive", "healing"),
    ):
        assert edit(client_for(who), character, path, value).status_code == 200, path
        character.refresh_from_db()
    sheet = FiveByFiveSheet.objects.get(character=character)
    assert (sheet.hp, sheet.xp, sheet.doubles_token) == (7, 3, True)
    assert (sheet.weapon_db, sheet.armor_av, sheet.offhand_dagger) == (5, -6, True)
    assert FiveByFiveDescriptor.objects.get(pk=chef.pk).exclusive_action == "healing"


def test_lowering_max_hp_drags_current_hp_down(demo_character, gm, client_for):
    character = demo_character("fivebyfive")  # HP rank 2: 12 of 12
    assert edit(client_for(gm), character, "hp_rank", "0").status_code == 200
    sheet = FiveByFiveSheet.objects.get(character=character)
    assert (sheet.hp_rank, sheet.hp) == (0, 10)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("hp", "abc", "HP must be a whole number written in the digits 0-9."),
        ("hp", "13", "HP must be at most 12."),
        ("hp", "-11", "HP must be at least -10."),
        ("xp", "-1", "XP must be at least 0."),
        ("weapon", "Laser", "Choose one of the listed options"),
        ("chef:value", "-5", "exactly one poor (-5) descriptor, not 2"),
        ("chef:value", "20", "Choose one of the listed options"),
        ("chef:name", "Street smarts", "already on this sheet"),
        ("chef:name", "hp", "HP is already on every sheet"),
        ("hp_rank", "-5", "exactly one poor (-5) descriptor, not 2"),
        ("name", "   ", "Name cannot be empty."),
    ],
)
def test_bad_edit_shows_the_message_and_changes_nothing(demo_character, gm, client_for, path, value, message):
    character = demo_character("fivebyfive")
    chef = character.descriptors.get(name="Amateur Chef")
    path = path.replace("chef", f"descriptor:{chef.pk}")
    before = state(character)
    response = edit(client_for(gm), character, path, value)
    assert response.status_code == 422
    assert message in response.content.decode().replace("&#x27;", "'")
    assert state(character) == before


def test_two_twelves_and_one_legendary_are_the_caps(demo_character, gm, client_for):
    character = demo_character("fivebyfive")
    street, chef, brawler = character.descriptors.all()[:3]
    client = client_for(gm)
    for row, value in ((street, 12), (chef, 12)):
        assert edit(client, character, f"descriptor:{row.pk}:value", str(value)).status_code == 200
        character.refresh_from_db()
    response = edit(client, character, f"descriptor:{brawler.pk}:value", "12")
    assert response.status_code == 422 and "At most 2 descriptors can be master" in response.content.decode()
    character.refresh_from_db()
    assert edit(client, character, f"descriptor:{brawler.pk}:value", "16").status_code == 200
    character.refresh_from_db()
    response = edit(client, character, "hp_rank", "16")
    assert (
        response.status_code == 422 and "At most one descriptor can be legendary" in response.content.decode()
    )


# ----- chances and rolls -------------------------------------------------------------------------


def buttons_text(client, character, **options):
    url = reverse("sheet_buttons", args=[character.pk])
    return page_text(client.get(url, {"shift": 0, **options}, **HTMX))


def test_buttons_show_exact_chances_for_the_options(demo_character, player, client_for):
    character = demo_character("fivebyfive")  # Larry: Amateur Chef 4
    client = client_for(player)
    assert fivebyfive.chance(4) == Fraction(19, 36)
    assert "Amateur Chef 4 - 52.8%" in buttons_text(client, character)
    # One rank up is 6 (23/36), two down is 0 (11/36), three down on -5 is no chance at all.
    assert f"Amateur Chef 4 - {format_percent(Fraction(23, 36))}" in buttons_text(client, character, shift=1)
    assert f"Amateur Chef 4 - {format_percent(Fraction(11, 36))}" in buttons_text(client, character, shift=-2)
    text = buttons_text(client, character, shift=-3)
    assert "Stage Fright -5 - 0.0%" in text and "no chance after the shifts" in text
    # A token only counts when one is held.
    text = buttons_text(client, character, spend_token="on")
    assert "Amateur Chef 4 - 52.8%" in text and "no token to spend" in text
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    with_token = fivebyfive.chance(4, doubles_token=True)
    assert f"Amateur Chef 4 - {format_percent(with_token)}" in buttons_text(
        client, character, spend_token="on"
    )
    assert "Damage: Light weapon" in text


def test_buttons_carry_the_outcome_bars(demo_character, player, client_for):
    character = demo_character("fivebyfive")
    url = reverse("sheet_buttons", args=[character.pk])
    page = client_for(player).get(url, {"shift": 0}, **HTMX).content.decode()
    odds = fivebyfive.outcome_odds(4)
    assert (
        f"trump {format_percent(odds['trump'])}, success {format_percent(odds['success'])}, "
        f"failure {format_percent(odds['failure'])}" in page
    )


def test_bad_options_show_a_message(demo_character, player, client_for):
    character = demo_character("fivebyfive")
    response = client_for(player).get(reverse("sheet_buttons", args=[character.pk]), {"shift": "9"}, **HTMX)
    assert "Select a valid choice" in response.content.decode()


def roll(client, character, key, **options):
    data = {"shift": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def chef_key(character):
    return f"descriptor:{character.descriptors.get(name='Amateur Chef').pk}"


def test_plain_roll_multiplies_the_dice(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(2, 3)
    response = roll(client_for(player), character, chef_key(character))
    assert response.status_code == 200
    entry = FeedEntry.objects.get()
    assert [d["face"] for d in entry.result["dice"]] == [2, 3]
    assert entry.result["outcome"] == "failure" and entry.result["changes"] == []
    assert Fraction(entry.chance) == Fraction(19, 36)
    assert "2 × 3 = 6 vs 4, failure" in entry.summary
    assert entry.character_id == character.pk and entry.author == player
    assert "2 × 3 = 6 vs 4" in page_text(response)


def test_trump_succeeds_and_is_marked(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")  # Larry's Amateur Chef 4, the seed's example: [2] and [6]
    fixed_dice(2, 6)
    roll(client_for(player), character, chef_key(character))
    entry = FeedEntry.objects.get()
    assert entry.result["outcome"] == "trump"
    assert [(d["face"], d["trump"]) for d in entry.result["dice"]] == [(2, False), (6, True)]


def test_doubles_earn_a_token_that_is_saved(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(3, 3)
    response = roll(client_for(player), character, chef_key(character))
    entry = FeedEntry.objects.get()
    assert entry.result["changes"] == ["doubles token earned"] and entry.result["doubles"]
    assert FiveByFiveSheet.objects.get(character=character).doubles_token
    assert "doubles token earned" in page_text(response)
    # Doubles again while holding one: nobody holds two, so nothing changes.
    fixed_dice(1, 1)
    roll(client_for(player), character, chef_key(character))
    assert FeedEntry.objects.latest("pk").result["changes"] == []
    assert FiveByFiveSheet.objects.get(character=character).doubles_token
    assert fivebyfive_system.party_summary(character) == "HP 12/12 · token"


def test_spending_the_token_makes_fives_trump(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    fixed_dice(5, 2)
    response = roll(client_for(player), character, chef_key(character), spend_token="on")
    entry = FeedEntry.objects.get()
    assert entry.result["outcome"] == "trump" and entry.result["changes"] == ["doubles token spent"]
    assert entry.result["dice"][0]["trump"] and Fraction(entry.chance) == fivebyfive.chance(
        4, doubles_token=True
    )
    assert not FiveByFiveSheet.objects.get(character=character).doubles_token
    # The buttons come back without the token: the plain chance and a note.
    assert "Amateur Chef 4 - 52.8%" in page_text(response) and "no token to spend" in page_text(response)


def test_spending_a_token_not_held_is_refused(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(5, 2)
    response = roll(client_for(player), character, chef_key(character), spend_token="on")
    assert response.status_code == 422 and "You hold no doubles token" in response.content.decode()
    assert not FeedEntry.objects.exists()


def test_poor_descriptor_rolls_one_die(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fright = character.descriptors.get(value=-5)
    fixed_dice(6)
    roll(client_for(player), character, f"descriptor:{fright.pk}")
    entry = FeedEntry.objects.get()
    assert [d["face"] for d in entry.result["dice"]] == [6] and entry.result["outcome"] == "trump"


def test_rank_shift_changes_the_target(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    fixed_dice(2, 3)  # 6: fails against 4, succeeds against 4 shifted up to 6
    roll(client_for(player), character, chef_key(character), shift=1)
    entry = FeedEntry.objects.get()
    assert entry.result["outcome"] == "success" and entry.result["target"] == 6
    assert entry.request["shift"] == 1


def test_damage_roll_chains_trumps(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")  # Light weapon, DB 2
    fixed_dice(6, 6, 3)
    roll(client_for(player), character, "damage")
    entry = FeedEntry.objects.get()
    assert [d["face"] for d in entry.result["dice"]] == [6, 6, 3]
    assert entry.result["total"] == 3 + 10 + 2 and entry.chance in (None, "")


def test_damage_can_spend_the_token(demo_character, player, client_for, fixed_dice):
    character = demo_character("fivebyfive")
    FiveByFiveSheet.objects.filter(character=character).update(doubles_token=True)
    fixed_dice(5, 1)
    roll(client_for(player), character, "damage", spend_token="on")
    entry = FeedEntry.objects.get()
    assert entry.result["total"] == 1 + 5 + 2 and entry.result["changes"] == ["doubles token spent"]
    assert not FiveByFiveSheet.objects.get(character=character).doubles_token


# ----- export, import, demo ----------------------------------------------------------------------


def test_export_then_import_round_trip(fbf_campaign, player, client_for):
    fbf_campaign.options = {"fbf_advanced": True, "fbf_aspects": True}
    fbf_campaign.save()
    client = client_for(player)
    build(client, fbf_campaign, {**VALID, "advanced_2": "on", "aspect_2": "superior", "aspect_4": "inferior"})
    character = Character.objects.get(name="Larry")
    exported = client.get(reverse("sheet_export", args=[character.pk]))
    payload = json.loads(exported.content)
    assert payload["system"] == "fivebyfive" and payload["sheet"]["order"] == VALID["order"]
    upload = SimpleUploadedFile("c.json", exported.content, content_type="application/json")
    response = client.post(reverse("character_import", args=[fbf_campaign.pk]), {"file": upload})
    copy = Character.objects.exclude(pk=character.pk).get(name="Larry")
    assert response.url == copy.get_absolute_url()
    assert payload["sheet"] == client.get(reverse("sheet_export", args=[copy.pk])).json()["sheet"]
    assert copy.fivebyfive.hp == 14


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            json.dumps(
                {
                    "format": "tabletop-character",
                    "version": 1,
                    "system": "fivebyfive",
                    "name": "Cheat",
                    "sheet": {**VALID, "order": ["1", "2", "3", "4", "5"]},
                }
            ).encode(),
            "breaks this campaign",
        ),
        (
            json.dumps(
                {
                    "format": "tabletop-character",
                    "version": 1,
                    "system": "fivebyfive",
                    "name": "Cheat",
                    "sheet": {**VALID, "advanced_1": True},
                }
            ).encode(),
            "Advanced descriptors are not used",
        ),
    ],
)
def test_import_refusals(fbf_campaign, player, client_for, content, message):
    before = counts()
    upload = SimpleUploadedFile("c.json", content, content_type="application/json")
    response = client_for(player).post(
        reverse("character_import", args=[fbf_campaign.pk]), {"file": upload}, follow=True
    )
    assert message in response.content.decode()
    assert counts() == before


def test_demo_characters_build(fbf_campaign, player, other_player):
    from sheets.demo import load_demo_characters

    load_demo_characters(fbf_campaign, players=[player, other_player])
    larry, mara = (Character.objects.get(owner=u, campaign=fbf_campaign) for u in (player, other_player))
    assert larry.descriptors.get(name="Amateur Chef").value == 4
    assert (mara.fivebyfive.hp, mara.fivebyfive.shield) == (16, True)
    assert fivebyfive_system.party_summary(mara) == "HP 16/16 · no token"
