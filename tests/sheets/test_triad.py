"""The Triad builder, sheet edits and rolls, through the views."""

import json
from fractions import Fraction

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from rules import triad
from sheets.models import Character
from sheets.systems.triad.models import TriadSheet, TriadTrait

from .conftest import HTMX, page_text

VALID = {
    "name": "Mina",
    "tier": "ordinary",
    "body": 8,
    "mind": 12,
    "spirit": 10,
    "traits": ["Occult", "Medical Expert", "Willpower"],
    "custom_traits": "",
    "powers": "",
    "armor": "",
    "weapon": "light",
    "notes": "",
}


def counts():
    return Character.objects.count(), TriadSheet.objects.count(), TriadTrait.objects.count()


@pytest.fixture
def triad_campaign(make_campaign, player):
    return make_campaign("triad", players=[player])


def test_valid_build_saves_every_row(triad_campaign, player, client_for):
    response = client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), VALID)
    character = Character.objects.get(name="Mina")
    assert response.url == character.get_absolute_url()
    sheet = character.triad
    assert (sheet.body, sheet.mind, sheet.spirit) == (8, 12, 10)
    assert (sheet.body_max, sheet.mind_max, sheet.spirit_max) == (8, 12, 10)
    assert sorted(t.name for t in character.triad_traits.all()) == ["Medical Expert", "Occult", "Willpower"]
    assert character.triad_traits.get(name="Occult").adv is triad.find_trait("Occult").adv


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"body": 9}, "body", "divide exactly 30 points"),
        ({"body": 0, "mind": 20, "spirit": 10}, "body", "Ensure this value is greater than or equal to 1"),
        ({"mind": 21, "body": 1, "spirit": 8}, "mind", "less than or equal to 20"),
        ({"traits": ["Occult", "Willpower"]}, "traits", "exactly 3 traits"),
        ({"traits": ["Occult", "Willpower", "Medical Expert", "Criminal"]}, "traits", "exactly 3 traits"),
        ({"tier": "legendary"}, "tier", "Select a valid choice"),
        ({"tier": ""}, "tier", "This field is required"),
        ({"powers": "Flight"}, "powers", "exactly 0 powers"),
        ({"custom_traits": "Occult"}, "traits", "listed twice"),
    ],
)
def test_builder_refuses_each_creation_rule(triad_campaign, player, client_for, change, field, message):
    before = counts()
    response = client_for(player).post(
        reverse("character_new", args=[triad_campaign.pk]), {**VALID, **change}
    )
    assert response.status_code == 200
    assert message in " ".join(response.context["form"].errors.get(field, [])), response.context[
        "form"
    ].errors
    assert counts() == before


def test_superhero_tier_needs_its_powers(triad_campaign, player, client_for):
    data = {
        **VALID,
        "tier": "street_level_superhero",
        "body": 15,
        "mind": 10,
        "spirit": 10,
        "powers": "Flight\nX-ray vision",
    }
    response = client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), data)
    assert response.status_code == 302
    character = Character.objects.get(name="Mina")
    assert sorted(t.name for t in character.triad_traits.filter(kind="power")) == ["Flight", "X-ray vision"]


def test_custom_traits_count_toward_the_tier(triad_campaign, player, client_for):
    data = {**VALID, "traits": ["Occult", "Willpower"], "custom_traits": "Lockpicking (Adv.)"}
    client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), data)
    trait = TriadTrait.objects.get(name="Lockpicking")
    assert trait.custom and trait.adv


def test_out_of_tier_needs_the_gm(triad_campaign, player, client_for):
    data = {**VALID, "tier": "", "body": 8, "mind": 15, "spirit": 13}
    response = client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), data)
    assert "This field is required" in str(response.context["form"].errors["tier"])
    triad_campaign.options = {"triad_out_of_tier": True}
    triad_campaign.save()
    response = client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), data)
    character = Character.objects.get(name="Mina")
    page = client_for(player).get(character.get_absolute_url()).content.decode()
    assert "Out of tier: 36 ability points" in page


@pytest.mark.parametrize("sample", ["van_helsing", "zheng_yi_sao"])
def test_seed_samples_build_with_one_click(triad_campaign, player, client_for, sample):
    # Van Helsing matches no tier: offered where the GM allows that (tests/sheets/test_import_trust.py).
    triad_campaign.options = {"triad_out_of_tier": True}
    triad_campaign.save(update_fields=["options"])
    client_for(player).post(reverse("character_new", args=[triad_campaign.pk]), {"sample": sample})
    expected = triad.SAMPLE_CHARACTERS[sample]
    character = Character.objects.get(name=expected.name)
    assert (character.triad.body, character.triad.mind, character.triad.spirit) == (
        expected.body,
        expected.mind,
        expected.spirit,
    )


def edit(client, character, path, value, version=None):
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version if version is None else version},
        **HTMX,
    )


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("body", "abc", "Body must be a whole number written in the digits 0-9."),
        ("body", "99", "Body must be at most 8."),
        ("mind_max", "0", "at least 1"),
        ("armor", "tinfoil", "Choose one of the listed"),
        ("name", "   ", "Name cannot be empty."),
    ],
)
def test_bad_edit_shows_the_message_keeps_the_text_and_changes_nothing(
    demo_character, gm, client_for, path, value, message
):
    character = demo_character("triad")  # typed by the GM, who may type each (sheets/policy.py)
    before = (
        character.version,
        TriadSheet.objects.filter(pk=character.triad.pk).values().get(),
        character.name,
    )
    response = edit(client_for(gm), character, path, value)
    assert response.status_code == 422
    body = response.content.decode()
    assert message in body
    if path != "armor" and value.strip():
        assert f'value="{value}"' in body  # the typed text is kept for another try
    character.refresh_from_db()
    after = (
        character.version,
        TriadSheet.objects.filter(pk=character.triad.pk).values().get(),
        character.name,
    )
    assert after == before


def test_lowering_a_maximum_drags_the_current_score_down(demo_character, gm, client_for):
    character = demo_character("triad")
    edit(client_for(gm), character, "body_max", "4")  # a build value: the GM's after creation
    character.triad.refresh_from_db()
    assert (character.triad.body_max, character.triad.body) == (4, 4)


def test_buttons_show_exact_chances_for_the_options(demo_character, player, client_for):
    character = demo_character("triad")  # Van Helsing: Body 8
    url = reverse("sheet_buttons", args=[character.pk])
    body = client_for(player).get(url, {"difficulty": 12, "advantages": 1, "disadvantages": 0}, **HTMX)
    odds = triad.chance(8, 12, edge=1)
    expected = format_percent(odds["critical"] + odds["success"])
    assert f"Body 8 - {expected}" in page_text(body)
    worse = client_for(player).get(url, {"difficulty": 12, "advantages": 0, "disadvantages": 1}, **HTMX)
    odds = triad.chance(8, 12, edge=-1)
    assert f"Body 8 - {format_percent(odds['critical'] + odds['success'])}" in page_text(worse)


def test_bad_options_show_a_message(demo_character, player, client_for):
    character = demo_character("triad")
    response = client_for(player).get(
        reverse("sheet_buttons", args=[character.pk]), {"difficulty": "x"}, **HTMX
    )
    assert "Enter a whole number" in response.content.decode()


def roll(client, character, key, **options):
    data = {"difficulty": 10, "advantages": 0, "disadvantages": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def test_roll_uses_server_dice_and_saves_a_feed_entry(demo_character, player, client_for, fixed_dice):
    character = demo_character("triad")  # Mind 15
    fixed_dice(3)
    response = roll(client_for(player), character, "ability:mind", difficulty=12)
    assert response.status_code == 200
    entry = FeedEntry.objects.get()
    assert entry.result["dice"] == [{"face": 3, "kept": True, "exploded": False, "trump": False, "sides": 20}]
    assert entry.result["total"] == 15 and entry.result["outcome"] == "success"
    assert entry.character_id == character.pk and entry.author == player
    assert Fraction(entry.chance) == triad.chance(15, 12)["critical"] + triad.chance(15, 12)["success"]
    assert "15" in response.content.decode()


def test_advantage_rolls_two_dice_and_keeps_the_higher(demo_character, player, client_for, fixed_dice):
    character = demo_character("triad")
    fixed_dice(4, 19)
    roll(client_for(player), character, "ability:body", advantages=1, difficulty=14)
    entry = FeedEntry.objects.get()
    assert [d["face"] for d in entry.result["dice"]] == [4, 19]
    assert [d["kept"] for d in entry.result["dice"]] == [False, True]
    assert entry.result["outcome"] == "critical"


def test_extra_effort_costs_a_point(demo_character, player, client_for, fixed_dice):
    character = demo_character("triad")
    fixed_dice(2, 17)
    roll(client_for(player), character, "ability:spirit", extra_effort="on")
    character.triad.refresh_from_db()
    assert character.triad.spirit == 12
    assert "extra effort" in FeedEntry.objects.get().result["changes"][0]


def test_export_then_import_round_trip(triad_campaign, player, client_for):
    client = client_for(player)
    client.post(
        reverse("character_new", args=[triad_campaign.pk]),
        {**VALID, "custom_traits": "Sailing (Adv.)", "traits": ["Occult", "Willpower"]},
    )
    character = Character.objects.get(name="Mina")
    exported = client.get(reverse("sheet_export", args=[character.pk]))
    payload = json.loads(exported.content)
    assert payload["format"] == "tabletop-character" and payload["system"] == "triad"
    upload = SimpleUploadedFile("c.json", exported.content, content_type="application/json")
    response = client.post(reverse("character_import", args=[character.campaign_id]), {"file": upload})
    copy = Character.objects.exclude(pk=character.pk).get(name=character.name)
    assert response.url == copy.get_absolute_url()
    assert payload["sheet"] == client.get(reverse("sheet_export", args=[copy.pk])).json()["sheet"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            json.dumps(
                {
                    "format": "tabletop-character",
                    "version": 1,
                    "system": "triad",
                    "name": "Cheat",
                    "sheet": {**VALID, "body": 20, "mind": 20, "spirit": 20},
                }
            ).encode(),
            "breaks this campaign",
        ),
    ],
)
def test_import_refusals(triad_campaign, player, client_for, content, message):
    before = counts()
    upload = SimpleUploadedFile("c.json", content, content_type="application/json")
    response = client_for(player).post(
        reverse("character_import", args=[triad_campaign.pk]), {"file": upload}, follow=True
    )
    assert message in response.content.decode()
    assert counts() == before


def test_edit_works_without_javascript(demo_character, gm, client_for):
    character = demo_character("triad")
    client = client_for(gm)  # Body is play state: the GM's to type unless the table lets players
    url = reverse("sheet_field", args=[character.pk, "body"])
    saved = client.post(url, {"value": "6", "version": character.version}, follow=True)
    assert "Saved." in saved.content.decode()
    character.triad.refresh_from_db()
    assert character.triad.body == 6
    refused = client.post(url, {"value": "60", "version": character.version + 1}, follow=True)
    assert "Body must be at most 8." in refused.content.decode()
    character.triad.refresh_from_db()
    assert character.triad.body == 6


def test_builder_shows_each_traits_description_and_the_running_count(triad_campaign, player, client_for):
    """Triad, LIST OF TRAITS (l.134-197) and Appendix A (l.199-207): every trait is described beside its
    checkbox, and the page counts points spent and traits chosen against the tier."""
    page = client_for(player).get(reverse("character_new", args=[triad_campaign.pk])).content.decode()
    for trait in triad.TRAITS:
        assert escape(trait.summary) in page
    # Described for screen readers too: each checkbox points at its description.
    assert 'aria-describedby="id_traits_0_about"' in page
    assert f'id="id_traits_0_about">{escape(triad.TRAITS[0].summary)}</div>' in page
    # Unfilled: the first tier (Ordinary: 30 points, 3 traits) with the fields' starting 10s.
    assert '<span data-count="points">30 of 30 spent: exactly right</span>' in page
    assert '<span data-count="traits">0 of 3 chosen: 3 to go</span>' in page
    # The count is asked for again as the player types.
    assert f"/campaigns/{triad_campaign.pk}/characters/triad-preview/" in page


def test_builder_count_after_a_refused_submit(triad_campaign, player, client_for):
    response = client_for(player).post(
        reverse("character_new", args=[triad_campaign.pk]),
        {**VALID, "tier": "heroic", "body": 9, "custom_traits": "Night Owl\n\n"},
    )
    page = response.content.decode()
    assert "divide exactly 35 points" in page
    assert '<span data-count="points">31 of 35 spent: 4 left</span>' in page
    assert '<span data-count="traits">4 of 5 chosen: 1 to go</span>' in page
    # What was ticked stays ticked.
    assert 'value="Occult" id="id_traits_' in page and page.count(" checked>") == 3
    # A superhero tier counts its powers too.
    response = client_for(player).post(
        reverse("character_new", args=[triad_campaign.pk]),
        {**VALID, "tier": "street_level_superhero", "body": 15, "powers": "Flight"},
    )
    assert '<span data-count="powers">1 of 2 named: 1 to go</span>' in response.content.decode()


def test_the_builder_count_follows_what_is_typed_from_the_server(
    triad_campaign, make_campaign, player, outsider, client_for
):
    """Triad, Appendix A (l.199-207): points and traits counted against the tier as the player types;
    the server counts (the page posts the form as it stands), so the page never re-decides a rule."""
    url = reverse("triad_builder_preview", args=[triad_campaign.pk])
    typed = {"tier": "heroic", "body": 14, "traits": ["Occult", "Charm"], "custom_traits": "Night Owl"}
    data = {**VALID, **typed}
    body = client_for(player).post(url, data, **HTMX).content.decode()
    assert '<span data-count="points">36 of 35 spent: 1 too many</span>' in body
    assert '<span data-count="traits">3 of 5 chosen: 2 to go</span>' in body
    assert "<form" not in body and not Character.objects.exists()  # the count alone; nothing saved
    body = client_for(player).post(url, {**data, "tier": "street_level_superhero"}, **HTMX).content.decode()
    assert '<span data-count="powers">0 of 2 named: 2 to go</span>' in body
    # Only for the members of a Triad table, and only posted.
    assert client_for(outsider).post(url, data, **HTMX).status_code == 404
    assert client_for(player).get(url, **HTMX).status_code == 405
    l5r = make_campaign("l5r", players=[player], name="Other")
    assert client_for(player).post(reverse("triad_builder_preview", args=[l5r.pk]), data).status_code == 404
