"""Five by Five rules played through the sheet as a browser posts them: aspects, advancement with XP, the
values only play and the GM change, and optional rules turned on for sheets that already exist."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.models import FeedEntry
from rules import fivebyfive
from sheets.models import SheetChange
from sheets.systems.fivebyfive.models import FiveByFiveDescriptor, FiveByFiveSheet
from sheets.systems.fivebyfive.sheet import system as sheet_system

from .conftest import HTMX, page_text
from .test_write_policy import players_adjust_play_state

LARRY = {
    "name": "Larry",
    "descriptor_1": "Street Smarts",
    "descriptor_2": "Amateur Chef",
    "descriptor_3": "Brawler",
    "exclusive_3": "attack",
    "descriptor_4": "Uncanny Reflexes",
    "exclusive_4": "dodge",
    "descriptor_5": "Stage Fright",
    "order": ["1", "2", "3", "hp", "4", "5"],
    "weapon": "Light weapon",
    "armor": "Medium clothes",
}


@pytest.fixture
def aspects_table(make_campaign, player):
    return make_campaign("fivebyfive", players=[player])


def turn_on(campaign, *options):
    campaign.options = {**(campaign.options or {}), **{option: True for option in options}}
    campaign.save()


def build(client, campaign, **changes):
    return client.post(reverse("character_new", args=[campaign.pk]), {**LARRY, **changes})


def edit(client, character, path, value):
    character.refresh_from_db()
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version},
        **HTMX,
    )


def roll(client, character, key, **options):
    data = {"shift": 0, "visibility": "public", **options}
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


def saved(character):
    return (
        FiveByFiveSheet.objects.filter(character=character).values().get(),
        list(FiveByFiveDescriptor.objects.filter(character=character).order_by("pk").values()),
    )


# ----- aspects --------------------------------------------------------------------------------------


def test_aspects_are_four_character_wide_ratings_that_shift_every_task(
    aspects_table, player, client_for, fixed_dice
):
    """Five by Five l.678-750: Aspects are "Super Descriptors" that affect everything a character does,
    untrained tasks included; every action is based on one of four aspects, whose rating shifts it."""
    turn_on(aspects_table, "fbf_aspects")
    client = client_for(player)
    assert build(client, aspects_table, aspect_agility="1", aspect_brawn="-1").status_code == 302
    larry = aspects_table.characters.get()
    sheet = larry.fivebyfive
    assert (sheet.agility, sheet.brawn, sheet.cognition, sheet.determination) == (1, -1, 0, 0)
    # No rating sits on a descriptor any more: there are four, on the character.
    assert "aspect" not in {f.name for f in FiveByFiveDescriptor._meta.get_fields()}

    buttons = {b.key: b for b in sheet_system.buttons(larry, {"shift": 0, "aspect": "agility"})}
    chef = larry.descriptors.get(name="Amateur Chef")
    assert buttons[f"descriptor:{chef.pk}"].chance == fivebyfive.chance(6)  # 4, one rank up
    assert buttons["untrained"].chance == fivebyfive.chance(2)  # untrained 0 -> 2: Superior Agility shows
    assert "agility +1" in buttons["untrained"].detail
    brawn = {b.key: b for b in sheet_system.buttons(larry, {"shift": 0, "aspect": "brawn"})}
    assert brawn["untrained"].chance == fivebyfive.chance(fivebyfive.POOR)  # Inferior Brawn: 0 -> -5

    # 2 x 3 = 6: a failure against Amateur Chef 4, a success once the task is based on Agility (4 -> 6).
    fixed_dice(2, 3)
    assert "failure" in page_text(roll(client, larry, f"descriptor:{chef.pk}"))
    fixed_dice(2, 3)
    page = page_text(roll(client, larry, f"descriptor:{chef.pk}", aspect="agility"))
    assert "2 × 3 = 6 vs 6, success" in page
    assert FeedEntry.objects.latest("pk").request["aspect"] == "agility"


def test_each_superior_aspect_is_paid_for_with_an_inferior_one(aspects_table, player, client_for):
    """Five by Five l.697-700: "a player must reduce the rating of one Aspect to INFERIOR in order to
    increase another Aspect to SUPERIOR"."""
    turn_on(aspects_table, "fbf_aspects")
    response = build(
        client_for(player), aspects_table, aspect_agility="1", aspect_cognition="1", aspect_brawn="-1"
    )
    assert response.status_code == 200
    assert "2 Superior but only 1 Inferior" in " ".join(response.context["form"].errors["aspect_cognition"])
    assert not aspects_table.characters.exists()
    # Without the optional rule every aspect stays Average, and an import carrying one is refused.
    plain = aspects_table.__class__.objects.create(
        name="Plain table", system="fivebyfive", gm=aspects_table.gm, options={}
    )
    response = build(client_for(aspects_table.gm), plain, aspect_agility="1")
    assert "Aspects are not used in this campaign" in page_text(response)
    assert not plain.characters.exists()


def test_aspects_turned_on_later_are_editable_on_existing_sheets(demo_character, gm, player, client_for):
    """Five by Five l.678-684 and the issue ("All four"): a sheet built before the GM took up aspects gets
    them; they are set at creation, so afterwards it is the GM who sets them, still one Inferior for
    each Superior."""
    larry = demo_character("fivebyfive")
    page = page_text(client_for(gm).get(larry.get_absolute_url()))
    assert "Aspects" not in page
    turn_on(larry.campaign, "fbf_aspects")
    larry.campaign.refresh_from_db()
    page = client_for(gm).get(larry.get_absolute_url()).content.decode()
    assert "Edit Agility: Average" in page

    before = saved(larry)
    refused = edit(client_for(gm), larry, "aspect:agility", "1")
    assert refused.status_code == 422 and "must be paid for with an Inferior" in refused.content.decode()
    refused = edit(client_for(player), larry, "aspect:brawn", "-1")
    assert refused.status_code == 422 and "Brawn is part of the build" in refused.content.decode()
    assert saved(larry) == before

    assert edit(client_for(gm), larry, "aspect:brawn", "-1").status_code == 200
    assert edit(client_for(gm), larry, "aspect:agility", "1").status_code == 200
    larry.fivebyfive.refresh_from_db()
    assert (larry.fivebyfive.agility, larry.fivebyfive.brawn) == (1, -1)
    assert SheetChange.objects.filter(character=larry).latest("pk").reason == "Edited Agility"
    # The player's roll options now name the aspect a task is based on.
    owner_page = client_for(player).get(larry.get_absolute_url()).content.decode()
    assert "Aspect the task is based on" in owner_page and "Agility: Superior (+1 shift)" in owner_page


def test_advanced_descriptors_turned_on_later_are_editable_on_existing_sheets(demo_character, gm, client_for):
    """Five by Five, Optional Rule: Advanced Descriptors, and the issue ("All four"): with the rule on, the
    GM may mark an existing descriptor advanced; its rolls then take the -2 shift and it may pass 16."""
    larry = demo_character("fivebyfive")
    chef = larry.descriptors.get(name="Amateur Chef")
    assert edit(client_for(gm), larry, f"descriptor:{chef.pk}:advanced", "on").status_code == 404
    turn_on(larry.campaign, "fbf_advanced")
    larry.campaign.refresh_from_db()
    assert edit(client_for(gm), larry, f"descriptor:{chef.pk}:advanced", "on").status_code == 200
    chef.refresh_from_db()
    assert chef.advanced
    buttons = {b.key: b for b in sheet_system.buttons(larry, {"shift": 0})}
    assert buttons[f"descriptor:{chef.pk}"].chance == fivebyfive.chance(0)  # 4, two ranks down
    page = client_for(gm).get(larry.get_absolute_url()).content.decode()
    assert "Edit Amateur Chef advanced: yes" in page and "Edit Brawler advanced: no" in page
    # Back to basic while above 16 is refused: a basic descriptor stops at 16.
    FiveByFiveDescriptor.objects.filter(pk=chef.pk).update(value=20)
    refused = edit(client_for(gm), larry, f"descriptor:{chef.pk}:advanced", "")
    assert refused.status_code == 422 and "a basic descriptor stops at 16" in refused.content.decode()


# ----- advancement --------------------------------------------------------------------------------


def spend(client, character, offer, name=""):
    return client.post(reverse("xp_spend", args=[character.pk]), {"offer": offer, "name": name}, follow=True)


def award(gm_client, character, amount):
    gm_client.post(reverse("xp_award", args=[character.pk]), {"amount": amount})


def test_xp_buys_a_new_descriptor_for_2(demo_character, gm, player, client_for):
    """Five by Five l.301-308: "to add a new Descriptor with a value of 2 costs 2 XP"."""
    larry = demo_character("fivebyfive")
    owner = client_for(player)
    page = page_text(spend(owner, larry, "add@5", "Juggling"))
    assert "That costs 2 XP, and only 0 XP is available." in page
    assert larry.descriptors.count() == 5
    award(client_for(gm), larry, 3)
    page = page_text(spend(owner, larry, "add:dodge@5", "Juggling"))
    assert "Spent 2 XP." in page
    juggling = larry.descriptors.get(name="Juggling")
    assert (juggling.value, juggling.exclusive_action, juggling.advanced) == (2, "dodge", False)
    larry.fivebyfive.refresh_from_db()
    assert larry.fivebyfive.xp == 1
    change = SheetChange.objects.filter(character=larry).latest("pk")
    assert change.reason == "Spent 2 XP: new descriptor Juggling 2" and change.author == player
    # A second click carries the count seen before: refused, not a second purchase.
    award(client_for(gm), larry, 5)
    page = page_text(spend(owner, larry, "add@5", "Knife Throwing"))
    assert "The descriptors changed since you looked" in page
    # A name already on the sheet, or none, is refused by name.
    assert "'Brawler' is already on this sheet" in page_text(spend(owner, larry, "add@6", "brawler")).replace(
        "&#x27;", "'"
    )
    assert "Type the name of the new descriptor" in page_text(spend(owner, larry, "add@6", "  "))
    assert larry.descriptors.count() == 6


def test_xp_trades_the_poor_descriptor_for_5(demo_character, gm, player, client_for):
    """Five by Five l.325-339: the poor (-5) descriptor cannot be improved, but trading it for a different
    poor descriptor costs 5 XP (with the GM's approval and some role play)."""
    larry = demo_character("fivebyfive")
    fright = larry.descriptors.get(name="Stage Fright")
    owner = client_for(player)
    award(client_for(gm), larry, 4)
    page = page_text(spend(owner, larry, f"trade@{fright.pk}", "Afraid of Heights"))
    assert "That costs 5 XP, and only 4 XP is available." in page
    award(client_for(gm), larry, 1)
    page = page_text(spend(owner, larry, f"trade@{fright.pk}", "Stage Fright"))
    assert "Name a different weakness" in page
    page = page_text(spend(owner, larry, f"trade@{fright.pk}", "Afraid of Heights"))
    assert "Spent 5 XP." in page
    fright.refresh_from_db()
    assert (fright.name, fright.value) == ("Afraid of Heights", fivebyfive.POOR)
    larry.fivebyfive.refresh_from_db()
    assert larry.fivebyfive.xp == 0
    assert (
        SheetChange.objects.filter(character=larry).latest("pk").reason
        == "Spent 5 XP: traded Stage Fright for Afraid of Heights"
    )
    # Still not something XP can raise.
    page = client_for(player).get(larry.get_absolute_url()).content.decode()
    assert "Afraid of Heights -5 (poor: trade it instead)" in page


def test_trading_a_poor_hp_leaves_hp_on_the_sheet_at_10(make_campaign, player, client_for):
    """Five by Five l.325-345: HP ranked last is the poor descriptor (5 HP); traded, HP stays on the sheet at
    rank 0 (10 HP, the new points unhurt) and the new weakness takes the -5."""
    campaign = make_campaign("fivebyfive", players=[player])
    client = client_for(player)
    assert build(client, campaign, order=["1", "2", "3", "4", "5", "hp"]).status_code == 302
    larry = campaign.characters.get()
    FiveByFiveSheet.objects.filter(character=larry).update(xp=5)
    assert "Spent 5 XP." in page_text(spend(client, larry, "trade@hp", "Bad Knees"))
    sheet = FiveByFiveSheet.objects.get(character=larry)
    assert (sheet.hp_rank, sheet.hp, sheet.xp) == (0, 10, 0)
    assert larry.descriptors.get(name="Bad Knees").value == fivebyfive.POOR
    assert larry.descriptors.get(name="Stage Fright").value == 2  # it was 2 when HP took the -5


def test_xp_token_and_descriptor_values_change_only_through_play_and_the_gm(
    demo_character, gm, player, client_for
):
    """Five by Five l.288-291: "Players use XP like money to purchase improvements": a player cannot type
    their own XP, doubles token, descriptor values, names or maximum HP; the GM can, in the history.
    The token and current HP are play state: the player's too when the table lets players adjust it."""
    larry = demo_character("fivebyfive")
    chef = larry.descriptors.get(name="Amateur Chef")
    owner = client_for(player)
    before = saved(larry)
    for path, value, reason in [
        ("xp", "99", "Only the GM changes XP."),
        ("doubles_token", "on", "Doubles token is play state"),
        ("hp", "3", "HP is play state"),
        (f"descriptor:{chef.pk}:value", "16", "value is part of the build"),
        (f"descriptor:{chef.pk}:name", "Master Chef", "Descriptor name is part of the build"),
        (f"descriptor:{chef.pk}:exclusive", "attack", "exclusive action is part of the build"),
        ("hp_rank", "4", "Maximum HP is part of the build"),
    ]:
        response = edit(owner, larry, path, value)
        assert response.status_code == 422 and reason in response.content.decode(), path
    assert saved(larry) == before and not SheetChange.objects.filter(character=larry).exists()
    # The player's page shows those values without an edit button; the gear stays theirs.
    page = owner.get(larry.get_absolute_url()).content.decode()
    assert (
        "Edit XP" not in page and f"Edit {chef.name} value" not in page and "Edit Doubles token" not in page
    )
    assert "Edit HP" not in page and "Edit Weapon" in page
    gm_page = client_for(gm).get(larry.get_absolute_url()).content.decode()
    assert "Edit XP" in gm_page and f"Edit {chef.name} value" in gm_page
    assert edit(client_for(gm), larry, "xp", "7").status_code == 200
    change = SheetChange.objects.filter(character=larry).latest("pk")
    assert change.reason == "Edited XP" and change.author == gm
    # The current HP (wounds) is the player's to track where the table lets players adjust play state.
    players_adjust_play_state(larry.campaign)
    assert edit(owner, larry, "hp", "9").status_code == 200


def test_aspects_travel_with_an_export(aspects_table, player, client_for):
    """Five by Five l.678-700: the four ratings are the character's, so an export carries them and an
    import into a table without aspects is refused rather than losing them."""
    turn_on(aspects_table, "fbf_aspects")
    client = client_for(player)
    build(client, aspects_table, aspect_cognition="1", aspect_determination="-1")
    larry = aspects_table.characters.get()
    exported = client.get(reverse("sheet_export", args=[larry.pk]))
    assert exported.json()["sheet"]["aspect_cognition"] == 1
    upload = SimpleUploadedFile("larry.json", exported.content, content_type="application/json")
    assert (
        client.post(reverse("character_import", args=[aspects_table.pk]), {"file": upload}).status_code == 302
    )
    copy = aspects_table.characters.exclude(pk=larry.pk).get()
    assert (copy.fivebyfive.cognition, copy.fivebyfive.determination) == (1, -1)
    aspects_table.options = {}
    aspects_table.save()
    upload = SimpleUploadedFile("larry.json", exported.content, content_type="application/json")
    page = page_text(
        client.post(reverse("character_import", args=[aspects_table.pk]), {"file": upload}, follow=True)
    )
    assert "Aspects are not used in this campaign" in page
    assert aspects_table.characters.count() == 2
