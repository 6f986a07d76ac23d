"""FREE/FALL A5 sheet: builder refusals, in-place edits, exact chances, rolls, export and import."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils.html import escape

from campaigns.models import FeedEntry
from campaigns.rendering import format_percent
from rules import freefall
from rules.dice import FixedFaces
from sheets.demo import load_demo_characters
from sheets.models import Character
from sheets.systems.freefall.builder import builder_form_data
from sheets.systems.freefall.models import FreeFallGear, FreeFallProgram, FreeFallSheet
from sheets.systems.freefall.sheet import system

from .conftest import HTMX, page_text
from .test_write_policy import players_adjust_play_state


@pytest.fixture
def ff_campaign(make_campaign, player, other_player):
    return make_campaign("freefall", players=[player, other_player])


def build_data(**overrides):
    values = {
        "name": "Vesna Kade",
        "character_class": "Breacher",
        "specialty": "Infiltration",
        "body": 5,
        "mind": 4,
        "ghost": 6,
        "gear": [
            {"name": "Mag-picks", "binds": "ghost", "binding": 1},
            {"name": "Carbon vest", "binds": "body", "binding": 1, "av": 2, "hardened": True},
            {"name": "Rig harness", "binds": "body", "binding": 1, "load_bearing": 1},
            {"name": "Rail pistol", "binds": "body", "binding": 1, "dv": 3, "attached_to": "Rig harness"},
        ],
        "programs": [{"name": "Needle", "type": "spike", "tier": "steel"}],
    }
    values.update(overrides)
    return builder_form_data(**values)


def counts():
    return (
        Character.objects.count(),
        FreeFallSheet.objects.count(),
        FreeFallGear.objects.count(),
        FreeFallProgram.objects.count(),
    )


def new_url(campaign):
    return reverse("character_new", args=[campaign.pk])


@pytest.fixture
def character(ff_campaign, player, client_for):
    response = client_for(player).post(new_url(ff_campaign), build_data())
    assert response.status_code == 302, response.context["form"].errors
    return Character.objects.get(campaign=ff_campaign, owner=player)


def edit(client, character, path, value, *, version=None):
    character.refresh_from_db()
    return client.post(
        reverse("sheet_field", args=[character.pk, path]),
        {"value": value, "version": character.version if version is None else version},
        **HTMX,
    )


def roll(client, character, key, **options):
    character.refresh_from_db()
    data = {"tn": "challenging", "dice": "", "conflict": "on", "visibility": "public"}
    data.update(version=character.version, **options)
    return client.post(reverse("sheet_roll", args=[character.pk, key]), data, **HTMX)


# ----- builder -------------------------------------------------------------------------------------


def test_builder_page_shows_rows_and_reference(ff_campaign, player, client_for):
    response = client_for(player).get(new_url(ff_campaign))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="gear-0-binding"' in html and 'name="programs-0-tier"' in html
    assert "Binding at a glance" in html


def test_valid_build_saves_every_row(character):
    sheet = character.freefall
    assert (sheet.character_class, sheet.specialty) == ("Breacher", "Infiltration")
    assert (sheet.body_perm, sheet.mind_perm, sheet.ghost_perm) == (5, 4, 6)
    gear = {g.name: g for g in character.ff_gear.all()}
    assert set(gear) == {"Mag-picks", "Carbon vest", "Rig harness", "Rail pistol"}
    assert gear["Rail pistol"].attached_to == gear["Rig harness"]
    assert gear["Carbon vest"].hardened and gear["Carbon vest"].av == 2
    program = character.ff_programs.get()
    assert (program.name, program.type, program.tier, program.compromised) == (
        "Needle",
        "spike",
        "steel",
        False,
    )
    state = system.state(character)
    # Body: vest 1 + harness 1 + pistol 1 less the harness's Load Bearing 1 = 2; Mind: STEEL SPIKE 2.
    assert state.binding == freefall.Attributes(body=2, mind=2, ghost=1)
    assert state.current_max == freefall.Attributes(body=3, mind=2, ghost=5)
    assert state.current == state.current_max


REFUSALS = [
    # (what breaks, overrides, field at fault, part of the message)
    ("gear binds more BODY", {"body": 1}, "body", "bind 2 BODY, but you only have 1"),
    (
        "programs bind more MIND",
        {"programs": [{"name": "Warden", "type": "counter", "tier": "black"}]},
        "mind",
        "bind 8 MIND, but you only have 4",
    ),
    ("gear binds more GHOST", {"ghost": 0}, "ghost", "bind 1 GHOST, but you only have 0"),
    ("attribute above the range", {"body": 11}, "body", "less than or equal to 10"),
    ("attribute below the range", {"mind": -1}, "mind", "greater than or equal to 0"),
    ("no class", {"character_class": "  "}, "character_class", "required"),
    ("no specialty", {"specialty": ""}, "specialty", "required"),
    (
        "binding without an attribute",
        {"gear": [{"name": "Deck", "binding": 2}]},
        "gear",
        "Deck binds 2: choose the attribute it binds",
    ),
    ("a row without a name", {"gear": [{"binds": "body", "binding": 1}]}, "gear", "Give this item a name"),
    (
        "two items with one name",
        {"gear": [{"name": "Knife", "dv": 1}, {"name": "knife", "dv": 2}]},
        "gear",
        "Another item is already called knife",
    ),
    (
        "attached to gear that bears no load",
        {"gear": [{"name": "Pack"}, {"name": "Deck", "binds": "mind", "binding": 1, "attached_to": "Pack"}]},
        "gear",
        "Pack is not a Load Bearing item",
    ),
    ("a program without a tier", {"programs": [{"name": "Needle", "type": "spike"}]}, "programs", "tier"),
    (
        "a program of no known type",
        {"programs": [{"name": "Needle", "type": "virus", "tier": "red"}]},
        "programs",
        "Select a valid choice",
    ),
    (
        "two programs with one name (a hack names its program)",
        {
            "programs": [
                {"name": "Needle", "type": "spike", "tier": "red"},
                {"name": "needle", "type": "pwn", "tier": "red"},
            ]
        },
        "programs",
        "Another program is already called needle",
    ),
    ("too many gear rows", {"gear": [{"name": f"Item {i}"} for i in range(21)]}, "gear", "at most 20"),
    ("an unreadable gear list", {"gear": "everything"}, "gear", "could not be read"),
]


@pytest.mark.parametrize(("case", "overrides", "field", "message"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_builder_refuses_with_message_on_the_field(
    ff_campaign, player, client_for, case, overrides, field, message
):
    before = counts()
    response = client_for(player).post(new_url(ff_campaign), build_data(**overrides))
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert field in errors, errors
    assert message in " ".join(errors[field])
    assert counts() == before


def test_refused_gear_row_is_marked_in_the_page(ff_campaign, player, client_for):
    response = client_for(player).post(
        new_url(ff_campaign), build_data(gear=[{"name": "Deck", "binding": 2}])
    )
    html = response.content.decode()
    assert 'id="gear-errors"' in html
    assert "choose the attribute it binds" in html
    assert counts() == (0, 0, 0, 0)


def test_every_gear_problem_shows_in_one_round(ff_campaign, player, client_for):
    gear = [{"name": "Deck", "binding": 2}, {"name": "Hooks", "attached_to": "Deck"}]
    response = client_for(player).post(new_url(ff_campaign), build_data(gear=gear))
    errors = " ".join(response.context["form"].errors["gear"])
    assert "Row 1 (Binds): Deck binds 2" in errors
    assert "Row 2 (Attached to): Deck is not a Load Bearing item" in errors
    assert counts() == (0, 0, 0, 0)


def test_load_bearing_lets_a_build_use_an_attribute_up_exactly(ff_campaign, player, client_for):
    gear = [
        {"name": "Frame", "binds": "body", "binding": 1, "load_bearing": 2},
        {"name": "Cannon", "binds": "body", "binding": 2, "attached_to": "frame"},
    ]
    response = client_for(player).post(new_url(ff_campaign), build_data(body=1, gear=gear, programs=[]))
    assert response.status_code == 302
    assert system.state(Character.objects.get()).current_max.body == 0


# ----- the sheet and in-place edits ---------------------------------------------------------------


def test_sheet_shows_attributes_gear_programs_and_harm(character, client_for, player):
    html = client_for(player).get(character.get_absolute_url()).content.decode()
    assert 'id="ff-body-numbers"' in html and "binding 2" in html
    assert "Load Bearing 1" in html and "Hardened" in html and "attached to Rig harness" in html
    assert "SPIKE · STEEL" in html and "binds MIND 2" in html
    assert 'id="ff-harm1-state"' in html and "5d20" in html


def test_the_gms_spent_edit_updates_current_and_sends_it_back(character, client_for, gm):
    client = client_for(gm)
    version = Character.objects.get(pk=character.pk).version
    response = edit(client, character, "body_spent", "2")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="ff-body-numbers" class="ff-attr-numbers" hx-swap-oob="true"' in html
    assert 'aria-label="BODY current 1 of 3"' in html
    # The edited field comes back in place, not out of band; the others refresh out of band.
    assert 'id="ff-body-spent"' not in html and 'id="ff-mind-spent"' in html
    character.refresh_from_db()
    assert character.freefall.body_spent == 2
    assert character.version == version + 1


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("body_spent", "4", "BODY has 3 to spend"),
        ("body_spent", "lots", "must be a whole number"),
        ("body_spent", "-1", "at least 0"),
        ("body_perm", "1", "bind 2 BODY, so the permanent value cannot go below 2"),
        ("body_perm", "11", "at most 10"),
        ("harm1_state", "dead", "Choose one of the listed options"),
    ],
)
def test_bad_edits_are_refused_and_change_nothing(character, client_for, gm, path, value, message):
    client = client_for(gm)
    character.refresh_from_db()
    version = character.version
    before = (FreeFallSheet.objects.values().get(pk=character.freefall.pk), counts())
    response = edit(client, character, path, value)
    assert response.status_code == 422
    assert message in response.content.decode()
    assert f'value="{value}"' in response.content.decode() or "<select" in response.content.decode()
    character.refresh_from_db()
    assert character.version == version
    assert (FreeFallSheet.objects.values().get(pk=character.freefall.pk), counts()) == before


def test_lowering_permanent_keeps_current_at_or_above_zero(character, client_for, player, gm):
    assert edit(client_for(gm), character, "body_spent", "3").status_code == 200
    response = edit(client_for(gm), character, "body_perm", "3")  # the build: the GM's after creation
    assert response.status_code == 200
    sheet = FreeFallSheet.objects.get(pk=character.freefall.pk)
    assert (sheet.body_perm, sheet.body_spent) == (3, 1)
    assert 'aria-label="BODY current 0 of 1"' in response.content.decode()


def test_the_gms_harm_edits_fill_empty_and_shrink_the_pool(character, client_for, gm):
    client = client_for(gm)
    response = edit(client, character, "harm1_state", "temp")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="ff-harm1-kind" hx-swap-oob="true"' in html and "Physical" in html
    assert "4d20" in html
    assert edit(client, character, "harm2_kind", "psychic").status_code == 200
    sheet = FreeFallSheet.objects.get(pk=character.freefall.pk)
    assert (sheet.harm1_state, sheet.harm1_kind, sheet.harm2_state, sheet.harm2_kind) == (
        "temp",
        "physical",
        "temp",
        "psychic",
    )
    assert system.party_summary(Character.objects.get(pk=character.pk)) == "Harm 2/3 · pool 3"
    # A filled slot cannot lose its kind while filled.
    response = edit(client, character, "harm2_kind", "")
    assert response.status_code == 422
    assert "set it to Empty" in response.content.decode()
    assert edit(client, character, "harm2_state", "empty").status_code == 200
    sheet.refresh_from_db()
    assert (sheet.harm2_state, sheet.harm2_kind) == ("empty", "")


def test_the_gm_edits_gear_condition_and_program_status_in_place(character, client_for, gm):
    client = client_for(gm)
    vest = character.ff_gear.get(name="Carbon vest")
    program = character.ff_programs.get()
    response = edit(client, character, f"gear:{vest.pk}:condition", "broken")
    assert response.status_code == 200
    assert "AV 0" in response.content.decode()  # broken armor protects no more
    assert edit(client, character, f"program:{program.pk}:compromised", "yes").status_code == 200
    program.refresh_from_db()
    vest.refresh_from_db()
    assert program.compromised and vest.condition == "broken"
    # Broken gear and compromised programs keep binding.
    assert system.state(Character.objects.get(pk=character.pk)).binding.mind == 2


def test_a_player_cannot_type_play_state_and_nothing_changes(character, client_for, player, gm):
    """Harm comes from play (FREE/FALL l.65-130: a hit, a pushed action) and goes at rest (l.100); gear
    breaks as harm option C (l.126); a 1 on a hacking die compromises a program (l.134); points are spent
    through play (l.59-63). So harm, spent points, condition and status are play state, the GM's to type
    unless the table lets players adjust their own (docs/rules.md, sheets/policy.py)."""
    vest = character.ff_gear.get(name="Carbon vest")
    vest.condition = FreeFallGear.Condition.BROKEN
    vest.save()
    program = character.ff_programs.get()
    program.compromised = True
    program.save()
    sheet = character.freefall
    sheet.harm1_state, sheet.harm1_kind, sheet.body_spent = "perm", "physical", 2
    sheet.save()
    refusals = {
        "harm1_state": ("empty", "Harm slot 1 state"),
        "harm1_kind": ("psychic", "Harm slot 1 kind"),
        "body_spent": ("0", "BODY spent"),
        f"gear:{vest.pk}:condition": ("ok", "Carbon vest condition"),
        f"program:{program.pk}:compromised": ("no", "Needle status"),
    }
    client = client_for(player)
    for path, (value, label) in refusals.items():
        character.refresh_from_db()
        before = saved_state(character)
        response = edit(client, character, path, value)
        assert response.status_code == 422, path
        raw = response.content.decode()
        assert f"{escape(label)} is play state: rolls, fights and the GM change it." in raw
        # The field's value stays as saved, not the typed one.
        character.refresh_from_db()
        assert saved_state(character) == before
        # The page gives the player no editor for it either.
        shown = client.get(reverse("sheet_field", args=[character.pk, path]), {"edit": "1"}, **HTMX)
        assert "<form" not in shown.content.decode() and "hx-get" not in shown.content.decode()
    assert not character.changes.filter(reason__startswith="Edited").exists()
    # The GM's correction works and is in the history.
    assert edit(client_for(gm), character, "harm1_state", "empty").status_code == 200
    change = character.changes.get(reason="Edited Harm slot 1 state")
    assert change.author == gm
    sheet.refresh_from_db()
    assert (sheet.harm1_state, sheet.harm1_kind) == ("empty", "")


def saved_state(character):
    """The version, the sheet row, and every gear condition and program status, as saved."""
    return (
        character.version,
        FreeFallSheet.objects.values().get(pk=character.freefall.pk),
        list(character.ff_gear.order_by("pk").values_list("condition", flat=True)),
        list(character.ff_programs.order_by("pk").values_list("compromised", flat=True)),
    )


def test_the_permanent_value_is_the_build(character, client_for, player, gm):
    """The permanent value is the build (FREE/FALL l.59): set by the builder, after that the GM's to type
    (sheets/policy.py: a build value is never typed in by its player)."""
    response = edit(client_for(player), character, "mind_perm", "5")
    assert response.status_code == 422
    reason = "MIND permanent is part of the build: after creation only the GM changes it."
    assert reason in page_text(response)
    assert edit(client_for(gm), character, "mind_perm", "5").status_code == 200
    assert FreeFallSheet.objects.get(pk=character.freefall.pk).mind_perm == 5


def test_the_player_spends_a_point_from_the_sheet(character, client_for, player, other_player):
    """FREE/FALL l.59-63, "SPEND ATTRIBUTE TO: Meet an Action Prerequisite ... Negate 1 Level of incoming
    Harm": the sheet's Spend button takes one current point; at 0 it is refused and nothing changes."""
    url = reverse("freefall_spend", args=[character.pk, "body"])
    page = client_for(player).get(character.get_absolute_url()).content.decode()
    assert f'action="{url}"' in page and "Spend 1 BODY" in page
    character.refresh_from_db()
    assert client_for(other_player).post(url, {"version": character.version}).status_code == 403
    for left in (2, 1, 0):  # BODY 5 - 2 binding = 3 current
        character.refresh_from_db()
        response = client_for(player).post(url, {"version": character.version}, follow=True)
        assert f"Vesna Kade spends 1 BODY: {left} left." in response.content.decode()
    character.refresh_from_db()
    version = character.version
    response = client_for(player).post(url, {"version": version}, follow=True)
    assert "BODY has no current points left to spend; rest to get them back." in response.content.decode()
    character.refresh_from_db()
    assert character.version == version and character.freefall.body_spent == 3
    assert character.changes.filter(reason="Spent 1 BODY", author=player).count() == 3
    stale = client_for(player).post(
        reverse("freefall_spend", args=[character.pk, "mind"]), {"version": version - 1}, follow=True
    )
    assert "Someone changed this sheet" in stale.content.decode()
    assert FreeFallSheet.objects.get(pk=character.freefall.pk).mind_spent == 0
    bad = client_for(player).post(
        reverse("freefall_spend", args=[character.pk, "soul"]), {"version": version}, follow=True
    )
    assert "Choose BODY, MIND or GHOST to spend." in bad.content.decode()


# ----- buttons and exact chances ------------------------------------------------------------------


def test_buttons_show_the_exact_chance_for_the_default_options(character, client_for, player):
    html = client_for(player).get(reverse("sheet_buttons", args=[character.pk]), **HTMX).content.decode()
    plain = freefall.odds(5, 11).at_least_success
    hack = freefall.hack_odds(5, 11, program=freefall.Program("Needle", "spike", "steel")).at_least_success
    assert f'BODY 3 - <span class="roll-chance">{format_percent(plain)}</span>' in html
    assert f'Needle STEEL - <span class="roll-chance">{escape(format_percent(hack))}</span>' in html
    assert "5d20+5 vs TN 11" in html


def test_buttons_follow_the_options(character, client_for, player):
    html = (
        client_for(player)
        .get(reverse("sheet_buttons", args=[character.pk]), {"tn": "hard", "dice": "2"}, **HTMX)
        .content.decode()
    )
    # Hard (TN 16) with 2 dice: each die succeeds on 16-20, 1/4; P(at least one) = 7/16 = 43.75%.
    assert freefall.odds(2, 16).at_least_success == pytest.approx(7 / 16)
    assert 'GHOST 5 - <span class="roll-chance">43.8%</span>' in html
    assert "2d20 vs TN 16" in html
    # STEEL adds 5: 11-20 succeed, 1/2 a die; P(at least one of 2) = 3/4.
    assert 'Needle STEEL - <span class="roll-chance">75.0%</span>' in html


def test_more_dice_than_the_pool_is_refused(character, client_for, player, gm):
    client = client_for(player)
    assert edit(client_for(gm), character, "harm1_state", "perm").status_code == 200
    html = client.get(reverse("sheet_buttons", args=[character.pk]), {"tn": "hard", "dice": "5"}, **HTMX)
    assert "Your pool is 4 dice right now; assign at most 4." in html.content.decode()
    before = FeedEntry.objects.count()
    response = roll(client, character, "attribute:body", dice="5")
    assert response.status_code == 422
    assert "assign at most 4" in response.content.decode()
    assert FeedEntry.objects.count() == before


def test_the_picture_has_failure_success_and_greater_bars(character):
    buttons = system.buttons(character, {"tn": "challenging", "dice": None, "conflict": True})
    body = next(b for b in buttons if b.key == "attribute:body")
    assert [bar.label for bar in body.picture] == ["failure", "success", "greater success"]
    assert sum(bar.chance for bar in body.picture) == 1
    assert body.chance == freefall.odds(5, 11).at_least_success


# ----- rolls --------------------------------------------------------------------------------------


def test_attribute_roll_uses_the_given_dice_and_saves_the_feed_entry(
    character, client_for, player, monkeypatch
):
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([12, 3, 20, 1, 5]))
    response = roll(client_for(player), character, "attribute:body")
    assert response.status_code == 200
    entry = FeedEntry.objects.get(character_id=character.pk)
    assert [d["face"] for d in entry.result["dice"]] == [12, 3, 20, 1, 5]
    assert entry.result["outcome"] == "greater"
    assert entry.result["successes"] == 2
    assert entry.result["crit"] and entry.result["complication"]
    assert entry.summary == "5d20 vs TN 11: 2 successes, greater success (natural 20, complication)"
    html = response.content.decode()
    assert "greater success" in html and '<span class="die' in html
    # Each die is read against the TN on its own (FREE/FALL l.29-37, l.45 "NAT 20: Automatic Success"): the
    # feed marks the two that made it.
    assert [d["successes"] for d in entry.result["dice"]] == [1, 0, 1, 0, 0]
    assert html.count("die-success") == 2 and "(success)" in html


def test_a_programs_bonus_counts_in_each_dies_mark(character, client_for, player, monkeypatch):
    program = character.ff_programs.get()
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([11, 4]))
    roll(client_for(player), character, f"program:{program.pk}", tn="hard", dice="2")
    entry = FeedEntry.objects.get(character_id=character.pk)
    assert [d["successes"] for d in entry.result["dice"]] == [1, 0]  # 11 + 5 meets TN 16, 4 + 5 does not


def test_program_roll_with_a_one_compromises_and_saves_the_program(
    character, client_for, player, monkeypatch
):
    program = character.ff_programs.get()
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([1, 7, 9]))
    response = roll(client_for(player), character, f"program:{program.pk}", tn="hard", dice="3")
    assert response.status_code == 200
    entry = FeedEntry.objects.get(character_id=character.pk)
    # 1+5, 7+5, 9+5 all miss TN 16: a failure, and the 1 compromises Needle.
    assert [d["face"] for d in entry.result["dice"]] == [1, 7, 9]
    assert entry.result["outcome"] == "failure" and entry.result["bonus"] == 5
    assert entry.result["changes"] == ["Needle compromised (a natural 1): out for the rest of the mission"]
    assert entry.summary == "3d20+5 vs TN 16: 0 successes, failure (complication)"
    program.refresh_from_db()
    assert program.compromised
    html = response.content.decode()
    assert "Needle compromised" in html
    assert f'id="ff-program{program.pk}-status" class="ff-program-status ff-compromised"' in html
    assert "Needle (compromised)" in html  # the button now says so


def test_program_roll_bonus_turns_a_low_die_into_a_success(character, client_for, player, monkeypatch):
    program = character.ff_programs.get()
    monkeypatch.setattr("sheets.views.system_random", lambda: FixedFaces([11, 4]))
    roll(client_for(player), character, f"program:{program.pk}", tn="hard", dice="2")
    entry = FeedEntry.objects.get(character_id=character.pk)
    assert entry.result["outcome"] == "success" and entry.result["changes"] == []
    assert entry.chance == str(
        freefall.hack_odds(2, 16, program=freefall.Program("N", "spike", "steel")).at_least_success
    )
    program.refresh_from_db()
    assert not program.compromised


def test_a_compromised_program_cannot_roll(character, client_for, player):
    program = character.ff_programs.get()
    program.compromised = True
    program.save()
    response = roll(client_for(player), character, f"program:{program.pk}")
    assert response.status_code == 422
    assert "Needle is compromised" in response.content.decode()
    assert not FeedEntry.objects.exists()


# ----- export, import, demo -----------------------------------------------------------------------


def upload(client, campaign, content: bytes, name="character.json"):
    return client.post(
        reverse("character_import", args=[campaign.pk]),
        {"file": SimpleUploadedFile(name, content, content_type="application/json")},
    )


def test_export_import_round_trip(character, client_for, player, ff_campaign):
    client = client_for(player)
    exported = json.loads(client.get(reverse("sheet_export", args=[character.pk])).content)
    assert exported["system"] == "freefall"
    assert exported["sheet"]["gear"][3] == {
        "name": "Rail pistol",
        "binds": "body",
        "binding": 1,
        "av": 0,
        "dv": 3,
        "high_impact": False,
        "piercing": False,
        "hardened": False,
        "load_bearing": 0,
        "attached_to": "Rig harness",
    }
    response = upload(client, ff_campaign, json.dumps(exported).encode())
    assert response.status_code == 302
    copy = Character.objects.exclude(pk=character.pk).get()
    assert system.export_data(copy) == exported["sheet"]
    assert copy.name == character.name


def test_import_refusals_save_nothing(character, client_for, player, ff_campaign, make_campaign):
    client = client_for(player)
    exported = json.loads(client.get(reverse("sheet_export", args=[character.pk])).content)
    before = counts()
    over_bound = json.loads(json.dumps(exported))
    over_bound["sheet"]["mind"] = 1
    broken_gear = json.loads(json.dumps(exported))
    broken_gear["sheet"]["gear"] = "lots"
    cases = [
        (json.dumps(over_bound).encode(), "bind 2 MIND, but you only have 1"),
        (json.dumps(broken_gear).encode(), "The gear list could not be read"),
    ]
    for content, message in cases:
        response = upload(client, ff_campaign, content)
        assert response.status_code == 302
        shown = [str(m) for m in response.wsgi_request._messages]
        assert any(message in m for m in shown), (message, shown)
    assert counts() == before


def test_demo_characters_build(ff_campaign, player, other_player):
    load_demo_characters(ff_campaign, players=[player, other_player])
    characters = Character.objects.filter(campaign=ff_campaign)
    assert characters.count() == 2
    osei = characters.get(owner=other_player)
    state = system.state(osei)
    # Icebreaker CHROME 3 + Firewall RED COUNTER 2 + Puppeteer RED PWN 2; the deck rides the harness.
    assert state.binding.mind == 7 and state.current_max.mind == 2
    assert system.party_summary(osei) == "Harm 0/3 · pool 5"


# ----- rows as needed, and gear and programs after creation ---------------------------------------


def test_the_builder_adds_a_row_without_javascript(ff_campaign, player, client_for):
    """Issue: the builder's fixed 4 gear and 3 program rows: "Add a gear row" is a plain submit that
    draws one more row, keeps what was typed and saves nothing."""
    client = client_for(player)
    before = counts()
    response = client.post(new_url(ff_campaign), {**build_data(), "add_row": "gear"})
    html = response.content.decode()
    assert response.status_code == 200 and counts() == before
    assert 'name="gear-4-name"' in html and 'name="gear-5-name"' not in html
    assert 'value="Rail pistol"' in html and 'value="Vesna Kade"' in html
    assert "alert-danger" not in html  # nothing was refused: nothing was checked yet
    gear = [
        {"name": "Mag-picks", "binds": "ghost", "binding": 1},
        {"name": "Carbon vest", "binds": "body", "binding": 1, "av": 2},
        {"name": "Rig harness", "binds": "body", "binding": 1, "load_bearing": 1},
        {"name": "Rail pistol", "binds": "body", "binding": 1, "dv": 3, "attached_to": "Rig harness"},
        {"name": "Flare", "dv": 1},
    ]
    response = client.post(new_url(ff_campaign), build_data(gear=gear))
    assert response.status_code == 302
    character = Character.objects.get(campaign=ff_campaign, owner=player)
    assert character.ff_gear.count() == 5


def kit_url(character):
    return reverse("freefall_kit", args=[character.pk])


def kit_data(character, gear, programs, **extra):
    """The kit page's POST: each row a dict (``id`` for saved rows), with the formsets' counts."""
    character.refresh_from_db()
    data = {"version": character.version}
    for prefix, rows in (("gear", gear), ("programs", programs)):
        data[f"{prefix}-TOTAL_FORMS"] = len(rows)
        data[f"{prefix}-INITIAL_FORMS"] = 0
        for index, row in enumerate(rows):
            for name, value in row.items():
                if value not in (None, False, ""):
                    data[f"{prefix}-{index}-{name}"] = value
    return {**data, **extra}


def saved_gear(character):
    return [
        {
            "id": g.pk, "name": g.name, "binds": g.binds, "binding": g.binding, "av": g.av, "dv": g.dv,
            "load_bearing": g.load_bearing, "hardened": g.hardened,
            "attached_to": g.attached_to.name if g.attached_to else "",
        }
        for g in character.ff_gear.order_by("pk")
    ]  # fmt: skip


def saved_programs(character):
    return [
        {"id": p.pk, "name": p.name, "type": p.type, "tier": p.tier}
        for p in character.ff_programs.order_by("pk")
    ]


def test_gear_and_programs_change_after_creation_within_the_builders_rules(character, client_for, player):
    """FREE/FALL l.59 "MAX CURRENT ATTRIBUTE = Permanent Value - Gear Binding Costs": items and programs
    are added, changed and removed on the sheet, checked as the builder checks them, and recorded."""
    client = client_for(player)
    page = client.get(kit_url(character)).content.decode()
    assert 'value="Carbon vest"' in page and 'name="gear-4-name"' in page  # the 4 saved rows + 1 empty
    vest = character.ff_gear.get(name="Carbon vest")
    vest.condition = "faulty"
    vest.save()
    gear = [row for row in saved_gear(character) if row["name"] != "Mag-picks"]  # removed
    next(row for row in gear if row["name"] == "Carbon vest")["av"] = 3  # changed
    gear.append({"name": "Monowire", "binds": "body", "binding": 1, "dv": 2})  # added
    programs = saved_programs(character) + [{"name": "Shiv", "type": "spike", "tier": "red"}]
    response = client.post(kit_url(character), kit_data(character, gear, programs))
    assert response.status_code == 302
    names = set(character.ff_gear.values_list("name", flat=True))
    assert names == {"Carbon vest", "Rig harness", "Rail pistol", "Monowire"}
    vest = character.ff_gear.get(name="Carbon vest")
    assert (vest.av, vest.condition) == (3, "faulty")  # the same row: its condition stays
    assert character.ff_gear.get(name="Rail pistol").attached_to.name == "Rig harness"
    state = system.state(character)
    # BODY 5: vest 1 + harness 1 + Monowire 1 (the pistol rides the harness); GHOST 6, nothing binds it.
    # MIND 4: Needle (STEEL) 2 + Shiv (RED) 1.
    assert state.binding == freefall.Attributes(3, 3, 0)
    assert character.changes.filter(reason="Gear and programs changed").count() == 1


def test_binding_past_the_permanent_value_is_refused_on_the_kit_page(character, client_for, player):
    """FREE/FALL l.59: binding may use an attribute up but never exceed it (the builder's rule)."""
    client = client_for(player)
    before = (counts(), saved_gear(character))
    gear = saved_gear(character) + [{"name": "Heavy frame", "binds": "body", "binding": 4}]
    response = client.post(kit_url(character), kit_data(character, gear, saved_programs(character)))
    assert response.status_code == 200
    assert "bind 6 BODY, but you only have 5" in response.content.decode()
    assert (counts(), saved_gear(character)) == before


def test_broken_gear_keeps_its_binding_and_cannot_be_removed(character, client_for, player):
    """FREE/FALL l.118-126: "C. BREAK GEAR ... Item Breaks ... Binding Cost REMAINS"."""
    client = client_for(player)
    picks = character.ff_gear.get(name="Mag-picks")
    picks.condition = "broken"
    picks.save()
    gear = [row for row in saved_gear(character) if row["name"] != "Mag-picks"]
    response = client.post(kit_url(character), kit_data(character, gear, saved_programs(character)))
    assert "Mag-picks is broken and its binding remains" in response.content.decode()
    assert character.ff_gear.filter(name="Mag-picks").exists()
    gear = saved_gear(character)
    next(row for row in gear if row["name"] == "Mag-picks")["binding"] = 0
    response = client.post(kit_url(character), kit_data(character, gear, saved_programs(character)))
    assert "cannot bind less until repaired" in response.content.decode()
    assert character.ff_gear.get(name="Mag-picks").binding == 1


def test_new_binding_lowers_spent_points_to_the_new_maximum(character, client_for, player):
    """FREE/FALL l.59: current can never exceed permanent less binding, so spent points follow."""
    client = client_for(player)
    sheet = character.freefall
    sheet.ghost_spent = 4  # GHOST 6 - 1 binding = 5 to spend
    sheet.save()
    gear = saved_gear(character) + [{"name": "Veil", "binds": "ghost", "binding": 3}]
    client.post(kit_url(character), kit_data(character, gear, saved_programs(character)))
    character.refresh_from_db()
    assert character.freefall.ghost_spent == 2 and system.state(character).current.ghost == 0


def test_the_kit_page_adds_rows_and_refuses_stale_or_foreign_posts(
    character, client_for, player, other_player
):
    client = client_for(player)
    data = kit_data(character, saved_gear(character), saved_programs(character), add_row="programs")
    html = client.post(kit_url(character), data).content.decode()
    assert 'name="programs-1-name"' in html and 'name="programs-2-name"' not in html
    stale = kit_data(character, saved_gear(character)[:1], saved_programs(character))
    stale["version"] = stale["version"] - 1
    before = counts()
    response = client.post(kit_url(character), stale)
    assert "The sheet changed since this page was loaded" in response.content.decode() and counts() == before
    assert client_for(other_player).get(kit_url(character)).status_code == 403


def test_rest_clears_temporary_harm_and_gives_spent_points_back(character, client_for, player, other_player):
    """FREE/FALL l.100 "A. TEMP HARM ... Clears with Rest"; l.113 permanent harm is "Hard to cure" and
    stays. When spent points return the seed leaves open: at rest (docs/rules.md)."""
    sheet = character.freefall
    sheet.harm1_state, sheet.harm1_kind = "perm", "physical"
    sheet.harm2_state, sheet.harm2_kind = "temp", "psychic"
    sheet.body_spent, sheet.ghost_spent = 2, 1
    sheet.save()
    players_adjust_play_state(character.campaign)  # the table lets players rest (sheets/policy.py)
    url = reverse("freefall_rest", args=[character.pk])
    assert client_for(other_player).post(url).status_code == 403
    client_for(player).post(url)
    character.refresh_from_db()
    state = system.state(character)
    assert [s.state.value for s in state.track.slots] == ["perm", "empty", "empty"]
    assert state.current == state.current_max and state.pool == 4
    assert character.changes.filter(reason="Rest").count() == 1
    response = client_for(player).post(url, follow=True)
    assert "already rested" in response.content.decode()
    assert character.changes.filter(reason="Rest").count() == 1


def test_repair_gear_brings_an_item_back_to_intact(character, client_for, player, other_player):
    """FREE/FALL l.126 "Item Breaks (or becomes Faulty if Hardened)" sets no way back; the sheet's Repair
    (rules.repair_gear) asks no cost or roll, since the seed sets none, and is recorded in the history."""
    vest = character.ff_gear.get(name="Carbon vest")
    vest.condition = FreeFallGear.Condition.BROKEN
    vest.save()
    players_adjust_play_state(character.campaign)  # the table lets players repair (sheets/policy.py)
    character.refresh_from_db()
    url = reverse("freefall_repair", args=[character.pk, vest.pk])
    page = client_for(player).get(character.get_absolute_url()).content.decode()
    assert f'action="{url}"' in page and "Repair <bdi>Carbon vest</bdi>" in page
    assert "Repair <bdi>Mag-picks</bdi>" not in page  # intact: nothing to repair
    assert client_for(other_player).post(url, {"version": character.version}).status_code == 403
    stale = client_for(player).post(url, {"version": character.version - 1}, follow=True)
    assert "Someone changed this sheet" in stale.content.decode()
    vest.refresh_from_db()
    assert vest.condition == FreeFallGear.Condition.BROKEN
    response = client_for(player).post(url, {"version": character.version}, follow=True)
    assert "Carbon vest is repaired" in response.content.decode()
    vest.refresh_from_db()
    assert vest.condition == FreeFallGear.Condition.OK
    change = character.changes.get(reason="Repaired Carbon vest (broken to intact)")
    assert change.author == player
    assert system.state(character).armor == 2  # worn again: AV 2
    character.refresh_from_db()
    again = client_for(player).post(url, {"version": character.version}, follow=True)
    assert "Carbon vest is intact: there is nothing to repair." in again.content.decode()
    assert character.changes.filter(reason__startswith="Repaired").count() == 1
