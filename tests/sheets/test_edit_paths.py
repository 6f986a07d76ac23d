"""Every declared in-place edit path of every system round-trips, and nothing undeclared is a path.

The declarations come from the registry (each system's ``edit_paths``) and ``sheets/edit.py`` (name and
notes), and the rows from each system's demo characters, so a new system or a new path is checked here
with no edit to this file.
"""

import re

import pytest

from campaigns.systems import NumberOption
from sheets import services
from sheets.demo import load_demo_characters
from sheets.edit import BASE_EDIT_PATHS, editable_field, save_edit
from sheets.edits import PLACEHOLDER, ROW, EditPath, find_edit_path
from sheets.history import snapshot
from sheets.models import Character
from sheets.registry import game_systems

SYSTEMS = [config.label for config in game_systems()]


def fresh(character):
    return Character.objects.select_related("campaign", "owner").get(pk=character.pk)


def switches(system):
    """The campaign options that switch a rule on or off (a number option is a budget, not a switch)."""
    return [option[0] for option in system.campaign_options if not isinstance(option, NumberOption)]


@pytest.fixture(params=SYSTEMS)
def system(request):
    return next(config.sheet for config in game_systems() if config.label == request.param)


@pytest.fixture
def table(system, make_campaign, player, other_player):
    """A campaign of the system with every optional rule on (so every declared path applies) and its
    demo characters."""
    campaign = make_campaign(system.key, players=[player, other_player])
    campaign.options = {**system.demo_options, **dict.fromkeys(switches(system), True)}
    campaign.save(update_fields=["options"])
    load_demo_characters(campaign, players=[player, other_player])
    return campaign


def declared_paths(system):
    return (*BASE_EDIT_PATHS, *system.edit_paths)


def concrete_paths(declared: EditPath, character) -> list[str]:
    """Each path the declaration names on this sheet: its placeholders filled with every value it takes."""
    paths = [""]
    for index, part in enumerate(PLACEHOLDER.split(declared.pattern)):
        if index % 2 == 0:
            fills = [part]
        elif part == ROW:
            fills = [str(row.pk) for row in declared.rows(character)]
        else:
            fills = list(declared.values[part])
        paths = [path + fill for path in paths for fill in fills]
    return paths


def raw_text(field) -> str:
    """The field's current value as a browser posts it (an unticked box posts nothing)."""
    if field.input_type == "checkbox":
        return "on" if field.value else ""
    return "" if field.value is None else str(field.value)


def test_every_declared_path_builds_and_takes_its_own_value_back(system, table, gm):
    covered = set()
    for character in table.characters.order_by("pk"):
        for declared in declared_paths(system):
            for path in concrete_paths(declared, fresh(character)):
                field = editable_field(fresh(character), path)
                assert field.path == path and field.label, path
                before = fresh(character)
                saved = services.character_edit(
                    character=before, path=path, raw=raw_text(field), version=before.version, author=gm
                )
                assert editable_field(fresh(saved), path).value == field.value, path
                # Saving what is there changes nothing on the sheet.
                assert snapshot(fresh(character)) == snapshot(before), path
                covered.add(declared.pattern)
    # Every declaration names a value on some demo character, so none goes untried.
    assert covered == {declared.pattern for declared in declared_paths(system)}


def near_misses(declared: EditPath, path: str) -> list[str]:
    """Paths shaped like ``path`` that name nothing: a stray last part, each placeholder filled wrong."""
    misses = [f"{path}:1", f"{path}x", f"x{path}", path.upper()]
    groups = declared.regex.fullmatch(path)
    for name in PLACEHOLDER.findall(declared.pattern):
        start, end = groups.span(name)
        wrong = ("0", "-1", "abc", "1.0", "", "99999999999999999999", "999999") if name == ROW else ("luck",)
        misses += [path[:start] + text + path[end:] for text in wrong]
    return misses


def test_unknown_paths_and_malformed_ids_are_key_errors(system, table):
    character, other = table.characters.order_by("pk")[:2]
    known = {
        path
        for declared in declared_paths(system)
        for someone in (character, other)
        for path in concrete_paths(declared, fresh(someone))
    }
    theirs = known - {p for d in declared_paths(system) for p in concrete_paths(d, fresh(character))}
    misses = {"", "luck", ":", "name:notes"} | theirs  # another character's rows are not this sheet's
    for declared in declared_paths(system):
        for path in concrete_paths(declared, fresh(character)):
            misses |= set(near_misses(declared, path)) - known
    for path in sorted(misses):
        with pytest.raises(KeyError):
            editable_field(fresh(character), path)
        with pytest.raises(KeyError):
            save_edit(fresh(character), path, "1")


def test_a_path_of_an_optional_rule_is_there_only_with_the_rule(system, table):
    optional = [declared for declared in system.edit_paths if declared.option]
    character = table.characters.order_by("pk").first()
    paths = [path for declared in optional for path in concrete_paths(declared, fresh(character))]
    for path in paths:
        editable_field(fresh(character), path)
    table.options = {**table.options, **dict.fromkeys(switches(system), False)}
    table.save(update_fields=["options"])
    for path in paths:
        with pytest.raises(KeyError):
            editable_field(fresh(character), path)


def test_a_placeholder_without_its_values_or_rows_is_refused_when_declared():
    def nothing(*args, **kwargs):
        return None

    with pytest.raises(ValueError, match="placeholders and values"):
        EditPath("aspect:<aspect>", field=nothing, save=nothing)
    with pytest.raises(ValueError, match="placeholders and values"):
        EditPath("hp", values={"aspect": ("body",)}, field=nothing, save=nothing)
    with pytest.raises(ValueError, match="rows come together"):
        EditPath("descriptor:<id>:name", field=nothing, save=nothing)
    with pytest.raises(ValueError, match="rows come together"):
        EditPath("hp", rows=list, field=nothing, save=nothing)


def test_a_pattern_is_matched_whole_and_literally():
    def nothing(*args, **kwargs):
        return None

    declared = (
        EditPath("a.b", field=nothing, save=nothing),
        EditPath("harm<slot>_state", values={"slot": ("1", "2")}, field=nothing, save=nothing),
    )
    assert find_edit_path(declared, None, "a.b") == (declared[0], {})
    assert find_edit_path(declared, None, "harm2_state") == (declared[1], {"slot": "2"})
    for path in ("axb", "a.b.", "harm3_state", "harm12_state", "harm1_state:1", re.escape("a.b")):
        with pytest.raises(KeyError):
            find_edit_path(declared, None, path)
