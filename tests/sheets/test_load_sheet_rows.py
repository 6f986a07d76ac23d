"""sheets.history.load_sheet_rows leaves a character as prefetch_related_objects leaves it: every system
table's rows in the same caches, in the same order, each row pointing back at the character, and
nothing read again afterwards."""

import pytest
from django.db.models import prefetch_related_objects

from sheets.history import load_sheet_rows, load_sheet_rows_of, sheet_relations, snapshot
from sheets.models import Character
from sheets.registry import game_systems
from tests.test_query_budgets import grow

pytestmark = pytest.mark.django_db

SYSTEMS = [config.label for config in game_systems()]


def fresh(character) -> Character:
    return Character.objects.select_related("campaign", "owner").get(pk=character.pk)


def held_one(character, relation):
    back = relation.field.name
    if relation.one_to_one:
        row = getattr(character, relation.get_accessor_name(), None)
        return None if row is None else (row.pk, getattr(row, back) is character)
    return [
        (row.pk, getattr(row, back) is character)
        for row in getattr(character, relation.get_accessor_name()).all()
    ]


def held(character) -> dict:
    """What each relation's accessor gives, as (pk, values) rows; a missing sheet row as None."""
    return {
        relation.get_accessor_name(): held_one(character, relation) for relation in sheet_relations(character)
    }


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("size", ["demo", "big", "bare"])
def test_the_rows_are_where_prefetch_puts_them(system, size, demo_character, django_assert_num_queries):
    character = demo_character(system)
    if size == "big":
        grow(character)
    if size == "bare":  # a character with no system rows at all
        character = Character.objects.create(campaign=character.campaign, owner=character.owner, name="Bare")
    by_prefetch = fresh(character)
    prefetch_related_objects([by_prefetch], *(r.get_accessor_name() for r in sheet_relations(by_prefetch)))
    loaded = load_sheet_rows(fresh(character))
    with django_assert_num_queries(0):
        assert held(loaded) == held(by_prefetch)
        assert snapshot(loaded, reread=False) == snapshot(by_prefetch, reread=False)
        load_sheet_rows(loaded)  # loaded already: nothing read again
    assert snapshot(loaded, reread=False) == snapshot(loaded)  # and what it holds is what is saved


def test_stock_mode_prefetches(demo_character, settings, django_assert_num_queries):
    settings.TABLETOP_STOCK = True
    character = fresh(demo_character("l5r"))
    with django_assert_num_queries(len(sheet_relations(character))):
        load_sheet_rows(character)
    assert "l5r_skills" in character._prefetched_objects_cache


@pytest.mark.parametrize("stock", [False, True], ids=["speed-layer", "stock"])
@pytest.mark.parametrize("system", SYSTEMS)
def test_one_table_alone_is_where_prefetch_puts_it(
    system, stock, demo_character, settings, django_assert_num_queries
):
    settings.TABLETOP_STOCK = stock
    character = demo_character(system)
    grow(character)
    for relation in sheet_relations(character):
        accessor = relation.get_accessor_name()
        by_prefetch = fresh(character)
        prefetch_related_objects([by_prefetch], accessor)
        alone = Character.objects.get(pk=character.pk)  # its campaign not loaded: no system asked for
        with django_assert_num_queries(1):
            load_sheet_rows_of(alone, accessor)
        with django_assert_num_queries(0):
            load_sheet_rows_of(alone, accessor)  # there already: nothing read again
            assert {accessor: held_one(alone, relation)} == {accessor: held_one(by_prefetch, relation)}
