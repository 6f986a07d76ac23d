"""Query budgets for the paths a browser takes most: the dice box, a sheet's roll button, the sheet page.

Counted as a deployment runs them: ``transaction=True``, so the view's own transaction is the outermost
one rather than a savepoint inside the test's. Its BEGIN and COMMIT are not part of a budget (both
SQLite in IMMEDIATE mode and psycopg show them as logged statements). The budgets are the same on
PostgreSQL: the feed's sequence and the chain's head move in one statement on both (campaigns/chain.py,
``link``). Each budget holds for every registered system's demo character and for a sheet with many
rows: a query per row would show up as soon as the sheet grows.

Also here, because the roll path depends on it: a roll's history is taken from the rows the roll was
handed (sheets.history.recorded with ``reread=False``), so for every button of every system the
recorded change must match what the database holds afterwards.
"""

import uuid

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse

from campaigns.models import FeedEntry
from play.requests import roll_request_create
from sheets.history import sheet_relations, snapshot
from sheets.models import Character, SheetChange
from sheets.registry import game_systems
from tests.conftest import HTMX

pytestmark = pytest.mark.django_db(transaction=True)

SYSTEMS = [config.label for config in game_systems()]
# In stock mode (settings.TABLETOP_STOCK) a counter moves in two ORM statements, not one UPDATE ... RETURNING:
# the feed's sequence (every roll) and the sheet's version (a sheet roll).
COUNTER_EXTRA = 1 if settings.TABLETOP_STOCK else 0
DICE_BOX_BUDGET = 5 + COUNTER_EXTRA  # the user, the seats, the characters to roll as, the counter, the entry
SHEET_ROLL_BUDGET = 8 + 2 * COUNTER_EXTRA
# A hidden roll (who may see the sheet may not see the roll) changes nothing when made: in place of the
# version's UPDATE, a read of it and the savepoint its trial roll is undone in. Rows it left as they were
# serve the answer without a second read.
HIDDEN_SHEET_ROLL_BUDGET = 10 + COUNTER_EXTRA
SHEET_PAGE_BUDGET = 10
# The sheet's name saved in place (bench/table.py's in-place edit): the user, the character, the
# version, the system's rows once (both history snapshots and the answer read them), the name, the
# history row.
NAME_EDIT_BUDGET = 8
# The answer to a GM's request, from the sheet's prompt (bench/table.py's request answer): the user, the
# character, its place in the request under its lock (which is also the check that the place is this
# character's), the system's rows (one query per table), the version, the chain's head, the entry in
# its savepoint (two brackets), the place's answer, and the prompts drawn again from the character the
# answer left current.
REQUEST_ANSWER_BUDGET = 10 + 2 * COUNTER_EXTRA
# Faces that explode nothing and earn no token (see tests/sheets/test_system_contract.py), so the
# budgeted roll changes nothing on the sheet; a roll that does change it adds its own writes.
FACES = (2, 3) * 60
EXTRA_ROWS = 30


def transaction_brackets(transactions=1):
    """What the count includes beyond the budget: each transaction's BEGIN and COMMIT."""
    return 2 * transactions


def system_of(key):
    return next(config.sheet for config in game_systems() if config.label == key)


def fresh(character):
    return Character.objects.select_related("campaign", "owner").get(pk=character.pk)


def roll_buttons(system, character):
    """Every roll button the sheet shows with its default options, as a click finds them."""
    options = {name: field.initial for name, field in system.options_form(character=character).fields.items()}
    return system.buttons(fresh(character), options)


def first_key(system, character):
    return roll_buttons(system, character)[0].key


def grow(character, extra=EXTRA_ROWS) -> int:
    """Copy each of the character's child rows ``extra`` times: a big sheet of the same shape.

    A table whose rows the database refuses to repeat (a fixed set of slots, as Five by Five's five
    descriptors) keeps its size. Returns how many rows were added.
    """
    added = 0
    for relation in sheet_relations(character):
        if relation.one_to_one:
            continue
        model = relation.related_model
        rows = list(model.objects.filter(**{relation.field.name: character}))
        copies = []
        for _ in range(extra):
            for row in rows:
                copy = model.objects.get(pk=row.pk)
                copy.pk = None
                copies.append(copy)
        try:
            with transaction.atomic():
                model.objects.bulk_create(copies)
        except IntegrityError:
            continue
        added += len(copies)
    return added


def key():
    return uuid.uuid4().hex


@pytest.fixture(params=SYSTEMS)
def system_key(request):
    return request.param


@pytest.fixture(params=["demo", "big"])
def character(request, system_key, demo_character):
    character = demo_character(system_key)
    if request.param == "big":
        grow(character)
    return character


def test_dice_box_roll(character, player, client_for, django_assert_max_num_queries):
    client = client_for(player)
    url = reverse("table_roll", args=[character.campaign_id])
    with django_assert_max_num_queries(DICE_BOX_BUDGET + transaction_brackets()):
        response = client.post(
            url, {"notation": "4d6kh3 vs 12", "visibility": "public", "idempotency_key": key()}, **HTMX
        )
    assert response.status_code == 200
    assert FeedEntry.objects.get().label == "4d6kh3 vs 12"


def test_sheet_roll(system_key, character, player, client_for, fixed_dice, django_assert_max_num_queries):
    system = system_of(system_key)
    roll_key = first_key(system, character)
    client = client_for(player)
    client.get(character.get_absolute_url())  # the page a click comes from
    fixed_dice(*FACES)
    url = reverse("sheet_roll", args=[character.pk, roll_key])
    with django_assert_max_num_queries(SHEET_ROLL_BUDGET + transaction_brackets()):
        response = client.post(url, {"visibility": "public", "idempotency_key": key()}, **HTMX)
    assert response.status_code == 200, response.content[:500]
    entry = FeedEntry.objects.get()
    assert entry.character_id == character.pk and entry.request
    # The answer shows the version the roll moved the sheet to.
    assert f'value="{fresh(character).version}"' in response.content.decode()


def test_hidden_sheet_roll(character, player, client_for, fixed_dice, django_assert_max_num_queries):
    system = system_of(character.campaign.system)
    client = client_for(player)
    client.get(character.get_absolute_url())
    fixed_dice(*FACES)
    url = reverse("sheet_roll", args=[character.pk, first_key(system, character)])
    version = fresh(character).version
    with django_assert_max_num_queries(HIDDEN_SHEET_ROLL_BUDGET + transaction_brackets()):
        response = client.post(url, {"visibility": "blind", "idempotency_key": key()}, **HTMX)
    assert response.status_code == 200, response.content[:500]
    assert FeedEntry.objects.get().visibility == "blind"
    assert fresh(character).version == version  # nothing on the sheet moved


def test_request_answer(character, gm, player, client_for, fixed_dice, django_assert_max_num_queries):
    system = system_of(character.campaign.system)
    options = {name: f.initial for name, f in system.options_form(character=character).fields.items()}
    asked = roll_request_create(
        campaign=character.campaign, gm=gm, label="Spot", characters=[character],
        options={name: value for name, value in options.items() if value is not None}, visibility="public",
    )
    target = asked.targets.get()
    fixed_dice(*FACES)
    url = reverse("sheet_request_roll", args=[character.pk, target.pk])
    client, data = client_for(player), {"key": first_key(system, character)}
    budget = REQUEST_ANSWER_BUDGET + len(sheet_relations(character))
    with django_assert_max_num_queries(budget + transaction_brackets()):
        response = client.post(url, data, **HTMX)
    assert response.status_code == 200, response.content[:500]
    entry = FeedEntry.objects.get()
    target.refresh_from_db()
    assert target.entry == entry and entry.character_id == character.pk
    # The prompts drawn from the character the answer left: the request answered, with its entry.
    body = response.content.decode()
    assert "You rolled for the GM’s “<bdi>Spot</bdi>”" in body and f'id="entry-{entry.cursor}"' in body
    assert "roll-prompt" not in body


def test_name_edit_in_place(character, player, client_for, django_assert_max_num_queries):
    client = client_for(player)
    url = reverse("sheet_field", args=[character.pk, "name"])
    with django_assert_max_num_queries(NAME_EDIT_BUDGET + transaction_brackets()):
        response = client.post(url, {"value": "Renamed", "version": str(character.version)}, **HTMX)
    assert response.status_code == 200, response.content[:500]
    saved = fresh(character)
    assert saved.name == "Renamed"
    body = response.content.decode()
    assert f'value="{saved.version}"' in body and "Renamed" in body and 'id="roll-buttons"' in body
    change = SheetChange.objects.get(character=character)
    name = f"character:{character.pk}:name"
    assert change.before == {name: character.name} and change.after == {name: "Renamed"}


def test_sheet_page(character, player, client_for, django_assert_max_num_queries):
    client = client_for(player)
    with django_assert_max_num_queries(SHEET_PAGE_BUDGET):
        response = client.get(character.get_absolute_url())
    assert response.status_code == 200
    assert character.name in response.content.decode()


def test_a_repeated_roll_key_rolls_once(system_key, demo_character, player, client_for, fixed_dice):
    character = demo_character(system_key)
    system = system_of(system_key)
    roll_key = first_key(system, character)
    client = client_for(player)
    url = reverse("sheet_roll", args=[character.pk, roll_key])
    data = {"visibility": "public", "idempotency_key": key()}
    fixed_dice(*FACES)
    first = client.post(url, data, **HTMX)
    version = fresh(character).version
    fixed_dice(*FACES)
    again = client.post(url, data, **HTMX)
    assert first.status_code == again.status_code == 200
    assert FeedEntry.objects.count() == 1
    assert fresh(character).version == version  # the repeat changed nothing
    assert f'value="{version}"' in again.content.decode()


def test_a_repeated_dice_box_key_rolls_once(demo_character, player, client_for):
    character = demo_character(SYSTEMS[0])
    client = client_for(player)
    url = reverse("table_roll", args=[character.campaign_id])
    data = {"notation": "3d6", "visibility": "public", "idempotency_key": key()}
    assert client.post(url, data, **HTMX).status_code == 200
    assert client.post(url, data, **HTMX).status_code == 200
    assert FeedEntry.objects.count() == 1


def test_every_rolls_history_matches_the_database(system_key, demo_character, player, client_for):
    """Every button of every system, with its default options: what the roll recorded as "after" is
    what the database holds, and nothing changed that the record missed."""
    character = demo_character(system_key)
    client = client_for(player)
    for button in roll_buttons(system_of(system_key), character):
        before = snapshot(fresh(character))
        changes = SheetChange.objects.count()
        response = client.post(
            reverse("sheet_roll", args=[character.pk, button.key]),
            {"visibility": "public", "idempotency_key": key()},
            **HTMX,
        )
        assert response.status_code in (200, 422), (button.key, response.status_code)
        after = snapshot(fresh(character))
        moved = {address for address in after if before.get(address) != after[address]}
        if SheetChange.objects.count() == changes:
            assert not moved, (button.key, moved)
            continue
        change = SheetChange.objects.order_by("-pk").first()
        assert set(change.after) == moved, button.key
        assert all(after[address] == value for address, value in change.after.items()), button.key
