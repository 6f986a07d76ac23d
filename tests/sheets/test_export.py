"""Characters travel whole: the export carries the build and its play state, the GM's import restores it.

Each system's character is played through the system's own services with fixed dice (a roll that
earns a token or spends Void, XP awarded and spent, damage, a compromised program, a trait gained),
exported from one campaign, imported by the GM into another of the same system and exported again: the
two documents are the same (a document holds no id, campaign, owner or date; the name travels with it).
A player's import builds the character fresh: tests/sheets/test_import_trust.py.
"""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from rules.dice import FixedFaces, Roller
from sheets import services
from sheets.contract import EXPORT_VERSION
from sheets.history import load_sheet_rows, sheet_relations, snapshot
from sheets.models import Character, SheetChange
from sheets.registry import system_for
from sheets.systems.triad.actions import trait_add
from sheets.transfer import IMPORT_REASON, play_fields, play_state

from .conftest import OPTIONS

# Every stored field of every system row, as the play state must carry it. A field added to a model
# fails test_play_state_carries_every_field until it is listed here (and so thought about): the export
# carries it by itself, the round trips below check it comes back.
PLAY_FIELDS = {
    "fivebyfive": {
        "fivebyfive": {
            "hp_rank",
            "hp",
            "doubles_token",
            "xp",
            "weapon",
            "weapon_db",
            "armor",
            "armor_av",
            "shield",
            "offhand_dagger",
            "agility",
            "brawn",
            "cognition",
            "determination",
            "bleed_minutes",
            "bleed_hp",
        },
        "descriptors": {"name", "value", "position", "exclusive_action", "advanced"},
    },
    "freefall": {
        "freefall": {
            "character_class",
            "specialty",
            "body_perm",
            "mind_perm",
            "ghost_perm",
            "body_spent",
            "mind_spent",
            "ghost_spent",
            "harm1_state",
            "harm1_kind",
            "harm2_state",
            "harm2_kind",
            "harm3_state",
            "harm3_kind",
        },
        "ff_gear": {
            "name",
            "binds",
            "binding",
            "av",
            "dv",
            "high_impact",
            "piercing",
            "hardened",
            "load_bearing",
            "attached_to",
            "condition",
        },
        "ff_programs": {"name", "type", "tier", "compromised"},
    },
    "l5r": {
        "l5r": {
            "stamina",
            "willpower",
            "strength",
            "perception",
            "agility",
            "intelligence",
            "reflexes",
            "awareness",
            "void",
            "void_spent",
            "school",
            "school_rank",
            "wounds",
            "armor",
            "reduction",
            "xp_awarded",
        },
        "l5r_skills": {"name", "rank", "trait", "emphasis"},
        "l5r_weapons": {"name", "rolled", "kept", "bow_strength"},
    },
    "triad": {
        "triad": {
            "tier",
            "body_max",
            "mind_max",
            "spirit_max",
            "body",
            "mind",
            "spirit",
            "armor",
            "weapon",
            "stunned",
            "dead",
            "hard_to_kill_used",
            "hard_to_confuse_used",
            "hard_to_unnerve_used",
            "rage_advantage",
            "grappled",
            "restrained",
            "prone",
            "disarmed",
        },
        "triad_traits": {"kind", "name", "description", "adv", "ability", "custom"},
    },
}
SYSTEMS = tuple(PLAY_FIELDS)


def everything():
    return [snapshot(c) for c in Character.objects.order_by("pk")], SheetChange.objects.count()


def export(client, character) -> dict:
    response = client.get(reverse("sheet_export", args=[character.pk]))
    assert response.status_code == 200
    return json.loads(response.content)


def upload(client, campaign, document, *, follow=False):
    content = document if isinstance(document, bytes) else json.dumps(document).encode()
    file = SimpleUploadedFile("character.json", content, content_type="application/json")
    return client.post(reverse("character_import", args=[campaign.pk]), {"file": file}, follow=follow)


def shown(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def options(character, **changes):
    system = system_for(character.campaign)
    form = system.options_form(character=character)
    data = {name: field.initial for name, field in form.fields.items() if field.initial is not None}
    form = system.options_form(character=character, data={**data, **changes})
    assert form.is_valid(), form.errors
    return form.cleaned_data


def roll(character, key_prefix, author, faces, **changes):
    character = Character.objects.get(pk=character.pk)
    opts = options(character, **changes)
    key = next(
        b.key for b in system_for(character.campaign).buttons(character, opts) if b.key.startswith(key_prefix)
    )
    services.character_roll(
        character=character,
        key=key,
        options=opts,
        roller=Roller(FixedFaces(faces)),
        author=author,
        visibility="public",
    )


def edit(character, path, raw, author):
    character = Character.objects.get(pk=character.pk)
    services.character_edit(character=character, path=path, raw=raw, version=character.version, author=author)


def spend(character, author, *, prefix="", name=""):
    character = Character.objects.get(pk=character.pk)
    system = system_for(character.campaign)
    offer = next(o for o in system.xp_spends(character) if o.cost and o.key.startswith(prefix))
    system.xp_spend(character=character, key=offer.key, expected=offer.seen, name=name, author=author)


# ----- playing each system through its own services ------------------------------------------------------


def play_fivebyfive(character, gm, player):
    system = system_for(character.campaign)
    system.xp_award(character=character, amount=12, author=gm)
    spend(character, player, prefix="raise:")
    spend(character, player, prefix="add", name="Knife Fighter")
    roll(character, "descriptor:", player, (4,) * 60)  # doubles: Five by Five 2.5 earns the token
    edit(character, "hp", "4", gm)  # a hit taken


def play_freefall(character, gm, player):
    roll(character, "program:", player, (1,) * 60)  # a natural 1 compromises the program (FREE/FALL)
    edit(character, "body_spent", "1", gm)
    edit(character, "harm1_state", "temp", gm)
    gear = Character.objects.get(pk=character.pk).ff_gear.order_by("pk").first()
    edit(character, f"gear:{gear.pk}:condition", "faulty", gm)


def play_l5r(character, gm, player):
    system = system_for(character.campaign)
    system.xp_award(character=character, amount=15, author=gm)
    spend(character, player, prefix="trait:")
    spend(character, player, prefix="skill:")
    roll(character, "skill:", player, (2,) * 60, use_void=True)  # a Void point spent on the roll
    edit(character, "wounds", "12", gm)
    edit(character, "armor", "3", gm)


def play_triad(character, gm, player):
    roll(character, "ability:mind", player, (15,) * 60, extra_effort=True)  # extra effort costs a point
    edit(character, "body", "3", gm)
    edit(character, "stunned", "on", gm)
    edit(character, "grappled", "on", gm)
    trait = {"name": "Lucky", "adv": False, "ability": "", "description": "", "custom": True}
    trait_add(character=Character.objects.get(pk=character.pk), trait=trait, author=player)


PLAY = {"fivebyfive": play_fivebyfive, "freefall": play_freefall, "l5r": play_l5r, "triad": play_triad}


@pytest.fixture(params=SYSTEMS)
def system_key(request):
    return request.param


@pytest.fixture
def played(system_key, tables, gm, player):
    character = tables[0].characters.get(owner=player)
    PLAY[system_key](character, gm, player)
    return Character.objects.get(pk=character.pk)


def test_play_state_carries_every_field(system_key, played, player, client_for):
    document = export(client_for(player), played)
    assert document["version"] == EXPORT_VERSION == 2
    stored = {}
    for relation in sheet_relations(played):
        accessor = relation.get_accessor_name()
        stored[accessor] = {field.name for field in play_fields(relation.related_model)}
        rows = document["play"][accessor]
        for row in rows if isinstance(rows, list) else [rows]:
            assert set(row) == stored[accessor], accessor
    assert stored == PLAY_FIELDS[system_key], "a model field is neither listed here nor checked"


def test_round_trip_to_another_campaign_gives_the_same_document(
    system_key, tables, played, player, gm, client_for
):
    client = client_for(gm)  # the GM imports a played character whole
    document = export(client_for(player), played)
    response = upload(client, tables[1], document)
    copy = Character.objects.get(campaign=tables[1])
    assert response.status_code == 302 and response["Location"] == copy.get_absolute_url()
    assert copy.owner == gm and copy.name == played.name
    assert export(client, copy) == document
    # The import is in the copy's history, every restored value with it.
    change = copy.changes.get()
    assert change.reason == IMPORT_REASON and change.author == gm and change.after
    # Exporting again from the second table and importing at the first gives the same document again.
    assert upload(client, tables[0], export(client, copy)).status_code == 302
    second_copy = Character.objects.filter(campaign=tables[0], name=played.name).exclude(pk=played.pk).get()
    assert export(client, second_copy) == document


def test_round_trip_keeps_what_play_changed(system_key, tables, gm, player, client_for):
    """Playing changed the play state, and the GM's copy holds the played values, not a fresh build's."""
    client = client_for(gm)
    character = tables[0].characters.get(owner=player)
    unplayed = export(client, character)
    PLAY[system_key](character, gm, player)
    document = export(client, character)
    assert document["play"] != unplayed["play"], "playing changed nothing on the sheet"
    upload(client, tables[1], document)
    assert stored_play(Character.objects.get(campaign=tables[1])) == stored_play(character)


def stored_play(character):
    """The character's play state as saved (row ids are not in it: a copy's rows have ids of their own)."""
    character = Character.objects.get(pk=character.pk)
    load_sheet_rows(character)
    return play_state(character)


def test_version_1_file_imports_as_a_fresh_build(system_key, tables, gm, player, client_for):
    """A file from before play state travelled (version 1: the build alone) still imports, as a new build."""
    client = client_for(player)
    character = tables[0].characters.get(owner=player)
    current = export(client, character)
    old = {key: current[key] for key in ("format", "system", "name", "notes", "sheet")} | {"version": 1}
    PLAY[system_key](character, gm, player)  # what the character did since is not in the old file
    response = upload(client, tables[1], old)
    copy = Character.objects.get(campaign=tables[1])
    assert response.status_code == 302 and response["Location"] == copy.get_absolute_url()
    assert not copy.changes.exists()  # nothing restored, so nothing recorded
    assert export(client, copy) == current


def test_import_into_another_system_says_so(tables, played, player, make_campaign, client_for):
    other_key = next(key for key in SYSTEMS if key != played.campaign.system)
    other = make_campaign(other_key, players=[player], name="Other game")
    before = everything()
    response = upload(client_for(player), other, export(client_for(player), played), follow=True)
    label = system_for(other).label
    assert f"That character is for {played.campaign.system!r}; this campaign plays {label}." in shown(
        response
    )
    assert everything() == before


# ----- refused play states: a message naming the value, nothing saved ----------------------------------


@pytest.fixture
def helsing_document(demo_character, player, client_for):
    helsing = demo_character("triad")
    helsing.campaign.options = OPTIONS["triad"]
    helsing.campaign.save(update_fields=["options"])
    return helsing, export(client_for(player), helsing)


def _with_triad(document, **values):
    play = json.loads(json.dumps(document["play"]))
    play["triad"].update(values)
    return {**document, "play": play}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: _with_triad(d, body=30), "Current Body (30) is above its maximum (8)"),
        (lambda d: _with_triad(d, body="8"), "Triad sheet, body: write a whole number, not '8'"),
        (lambda d: _with_triad(d, body=2.5), "Triad sheet, body: write a whole number, not 2.5"),
        (lambda d: _with_triad(d, stunned=1), "Triad sheet, stunned: write true or false, not 1"),
        (
            lambda d: _with_triad(d, body=-1),
            "Triad sheet, body: Ensure this value is greater than or equal to 0.",
        ),
        (
            lambda d: _with_triad(d, weapon="bazooka"),
            "Triad sheet, weapon: Value 'bazooka' is not a valid choice.",
        ),
        (
            lambda d: _with_triad(d, luck=3),
            "Play state, Triad sheet: 'luck' is not a value this sheet stores",
        ),
        (lambda d: _with_triad(d, body_max=9, body=9), "That file's build and its play state disagree: body"),
        (
            lambda d: {**d, "play": {**d["play"], "extra": []}},
            "Play state: 'extra' is not part of this sheet",
        ),
        (lambda d: {**d, "play": {**d["play"], "triad_traits": {}}}, "Triad trait: expected a list"),
        (
            lambda d: {**d, "play": {**d["play"], "triad_traits": [1]}},
            "expected an object of values, found 1",
        ),
        (lambda d: {**d, "play": None}, "a version 2 export without its play state"),
        (lambda d: {**d, "play": [1]}, "a version 2 export without its play state"),
    ],
)
def test_bad_play_state_is_refused_by_name(helsing_document, gm, client_for, change, message):
    helsing, document = helsing_document
    before = everything()
    response = upload(client_for(gm), helsing.campaign, change(document), follow=True)
    messages = shown(response)
    assert len(messages) == 1 and messages[0].startswith("That "), messages
    assert message in messages[0], messages
    assert everything() == before


def test_duplicate_rows_are_refused_and_nothing_saved(helsing_document, gm, client_for):
    """The rows' own constraints (one trait of a name) are checked too, in the import's transaction."""
    helsing, document = helsing_document
    play = json.loads(json.dumps(document["play"]))
    play["triad_traits"].append(dict(play["triad_traits"][0]))
    before = everything()
    response = upload(client_for(gm), helsing.campaign, {**document, "play": play}, follow=True)
    assert "play state is refused" in shown(response)[0] or "disagree" in shown(response)[0]
    assert everything() == before


def test_many_problems_make_one_readable_message(helsing_document, gm, client_for):
    helsing, document = helsing_document
    bad = _with_triad(document, body="x", mind="x", spirit="x", stunned="x", dead="x", armor=1)
    messages = shown(upload(client_for(gm), helsing.campaign, bad, follow=True))
    assert len(messages) == 1 and "and 2 more" in messages[0] and len(messages[0]) < 500


# ----- the history as a download --------------------------------------------------------------------------


def test_history_downloads_as_json_and_csv(demo_character, gm, player, client_for):
    helsing = demo_character("triad")
    edit(helsing, "body", "5", gm)
    edit(helsing, "notes", "=cmd|' /C calc'!A0", player)
    client = client_for(player)
    page = client.get(reverse("sheet_history", args=[helsing.pk])).content.decode()
    json_url = reverse("sheet_history_export", args=[helsing.pk, "json"])
    csv_url = reverse("sheet_history_export", args=[helsing.pk, "csv"])
    assert json_url in page and csv_url in page
    document = json.loads(client.get(json_url).content)
    assert document["format"] == "tabletop-character-history" and document["character"] == helsing.name
    reasons = [change["reason"] for change in document["changes"]]
    assert reasons == ["Edited Body", "Edited Notes"]  # oldest first
    first = document["changes"][0]
    assert (
        first["author"] == "gm"
        and list(first["before"].values()) == [8]
        and list(first["after"].values()) == [5]
    )
    response = client.get(csv_url)
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="abraham-van-helsing-history.csv"' in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(response.content.decode())))
    assert lines[0] == ["change", "at", "author", "reason", "undoes", "value", "before", "after"]
    assert [line[3] for line in lines[1:]] == ["Edited Body", "Edited Notes"]
    assert lines[1][6:] == ["8", "5"]
    assert lines[2][7] == "'=cmd|' /C calc'!A0"  # a spreadsheet does not run it as a formula
    assert client.get(reverse("sheet_history_export", args=[helsing.pk, "xml"])).status_code == 404


@pytest.mark.parametrize(
    ("who", "status"), [("player", 200), ("gm", 200), ("other_player", 403), ("outsider", 404)]
)
def test_history_download_is_for_the_owner_and_the_gm(demo_character, who, status, request, client_for):
    helsing = demo_character("triad")
    client = client_for(request.getfixturevalue(who))
    for kind in ("json", "csv"):
        response = client.get(reverse("sheet_history_export", args=[helsing.pk, kind]))
        assert response.status_code == status
        if status != 200:
            assert b"changes" not in response.content and b"Edited" not in response.content


@pytest.mark.parametrize(("who", "status"), [("other_player", 200), ("gm", 200), ("outsider", 404)])
def test_export_is_for_the_table(demo_character, who, status, request, client_for):
    """Members read each other's sheets, so they may export them; an outsider learns nothing."""
    helsing = demo_character("triad")
    response = client_for(request.getfixturevalue(who)).get(reverse("sheet_export", args=[helsing.pk]))
    assert response.status_code == status
    if status != 200:
        assert b"play" not in response.content


def test_outsider_cannot_import_into_a_campaign(demo_character, player, outsider, client_for):
    helsing = demo_character("triad")
    document = export(client_for(player), helsing)
    before = everything()
    assert upload(client_for(outsider), helsing.campaign, document).status_code == 404
    assert everything() == before


# One value per system that only the system's own rules refuse (the field alone would take it).
SYSTEM_REFUSALS = {
    "fivebyfive": ("fivebyfive", {"hp": 99}, "HP (99) is above the"),
    "freefall": (
        "freefall",
        {"harm1_state": "temp", "harm1_kind": ""},
        "Harm slot 1: A harm slot holds a kind",
    ),
    "l5r": ("l5r", {"void_spent": 9}, "Void spent (9) is more than Void"),
    "triad": ("triad", {"mind": 20}, "Current Mind (20) is above its maximum"),
}


def test_each_system_checks_its_play_rules(system_key, tables, player, gm, client_for):
    client = client_for(gm)
    document = export(client, tables[0].characters.get(owner=player))
    relation, values, message = SYSTEM_REFUSALS[system_key]
    play = json.loads(json.dumps(document["play"]))
    play[relation].update(values)
    before = everything()
    messages = shown(upload(client, tables[1], {**document, "play": play}, follow=True))
    assert len(messages) == 1 and message in messages[0], messages
    assert everything() == before


def test_gm_can_undo_an_imported_play_state(helsing_document, gm, player, client_for):
    """The GM's import is one change in the history; the GM may put the fresh build's values back."""
    helsing, document = helsing_document
    upload(client_for(gm), helsing.campaign, {**_with_triad(document, body=3), "name": "Copy"})
    copy = helsing.campaign.characters.get(name="Copy")
    assert copy.triad.body == 3
    change = copy.changes.get(reason=IMPORT_REASON)
    response = client_for(gm).post(reverse("sheet_undo", args=[copy.pk, change.pk]), follow=True)
    assert f"Undone: {IMPORT_REASON}." in shown(response)
    copy.triad.refresh_from_db()
    assert copy.triad.body == copy.triad.body_max == 8
