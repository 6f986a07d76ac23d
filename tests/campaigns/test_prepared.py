"""campaigns/prepared.py: a look-up compiled once answers as its queryset would, seat by seat, with
every column converted and every joined row in place, on whichever database the run uses."""

import threading

import pytest
from django.db import connection, transaction
from django.db.models import F
from django.forms.models import model_to_dict
from django.http import Http404

from campaigns.models import WHISPER, Membership, Visibility
from campaigns.prepared import PreparedQuery
from campaigns.selectors import (
    _campaign_seating,
    _campaign_with_gm,
    _feed_queryset,
    _newest,
    _newest_of,
    _seats_at,
    _visible_to,
    campaigns_seating,
    table_for_member,
)
from campaigns.services import campaign_create, feed_entry_create
from play import encounters
from rules.dice import FixedFaces, Roller
from sheets.demo import load_demo_characters
from sheets.history import system_relations
from sheets.models import Character
from sheets.registry import game_systems
from sheets.selectors import _character_seating, roll_subjects
from tests.npcs import sample_npc

pytestmark = pytest.mark.django_db(transaction=True)


def values(obj) -> dict:
    """Every column of a row, as the model holds it after conversion (datetimes, JSON, booleans)."""
    return {field.attname: getattr(obj, field.attname) for field in obj._meta.concrete_fields}


def same_rows(prepared: list, built: list) -> None:
    assert [values(obj) for obj in prepared] == [values(obj) for obj in built]
    assert all(obj._state.db == "default" and not obj._state.adding for obj in prepared)


@pytest.fixture
def table(make_campaign, gm, player, other_player):
    campaign = make_campaign("l5r", players=[player], name="Winter Court")
    campaign.options = {"l5r_starting_xp": 150}  # a JSON column to convert
    campaign.save()
    load_demo_characters(campaign, players=[player])
    npc = Character.objects.create(campaign=campaign, owner=gm, name="Bandit", is_npc=True)
    return campaign, campaign.characters.get(owner=player), npc


def test_a_character_is_read_for_each_seat_as_its_queryset_reads_it(table, gm, player, other_player):
    campaign, character, npc = table
    for user in (gm, player, other_player):
        for wanted in (character.pk, npc.pk, 10**9):
            built = list(
                Character.objects.select_related("campaign", "campaign__gm", "owner").filter(
                    campaign__in=campaigns_seating(user.pk), pk=wanted
                )
            )
            prepared = _character_seating(user.pk, wanted)
            same_rows(prepared, built)
            for got, expected in zip(prepared, built, strict=True):
                same_rows(
                    [got.campaign, got.campaign.gm, got.owner],
                    [expected.campaign, expected.campaign.gm, expected.owner],
                )
    assert _character_seating(other_player.pk, character.pk) == []  # not at the table


def test_the_joined_rows_come_with_it(table, player, django_assert_num_queries):
    _, character, _ = table
    with django_assert_num_queries(1):
        found = _character_seating(player.pk, character.pk)[0]
        assert (found.campaign.gm.username, found.owner.username) == ("gm", "player")
    assert found.campaign.options == {"l5r_starting_xp": 150}
    assert found.created_at == Character.objects.get(pk=character.pk).created_at  # an aware datetime


def test_a_campaign_is_read_for_each_seat_as_its_queryset_reads_it(table, gm, player, other_player):
    campaign, _, _ = table
    for user in (gm, player, other_player):
        for wanted in (campaign.pk, 10**9):
            built = list(campaigns_seating(user.pk).select_related("gm").filter(pk=wanted))
            prepared = _campaign_seating(user.pk, wanted)
            same_rows(prepared, built)
            assert [model_to_dict(c.gm) for c in prepared] == [model_to_dict(c.gm) for c in built]


def test_each_call_runs_the_sql_compiled_once_with_its_own_ids(table, player, settings):
    settings.TABLETOP_STOCK = False  # the speed layer's own path, in CI's stock-mode pass too
    _, character, _ = table
    _character_seating(player.pk, character.pk)
    compiled = _character_seating._by_alias["default"]
    assert _character_seating(player.pk, character.pk)[0].pk == character.pk
    assert _character_seating._by_alias["default"] is compiled
    seen = []
    with connection.execute_wrapper(
        lambda run, sql, params, *rest: seen.append((sql, params)) or run(sql, params, *rest)
    ):
        _character_seating(player.pk, character.pk)
    assert seen == [(compiled.sql, [player.pk, player.pk, character.pk])]


def test_another_thread_uses_its_own_connection(table, player):
    _, character, _ = table
    _character_seating(player.pk, character.pk)  # compiled on this thread
    found = []
    worker = threading.Thread(target=lambda: found.extend(_character_seating(player.pk, character.pk)))
    worker.start()
    worker.join()
    assert [c.pk for c in found] == [character.pk]


def test_stock_mode_builds_the_queryset_every_time(table, player, settings):
    _, character, _ = table
    settings.TABLETOP_STOCK = True
    fresh = PreparedQuery(_character_seating.build)
    assert [c.pk for c in fresh(player.pk, character.pk)] == [character.pk]
    assert fresh._by_alias == {}


def test_an_argument_the_sql_does_not_take_is_refused(settings):
    settings.TABLETOP_STOCK = False

    def ignores_its_argument(user_id):
        return Character.objects.filter(version__gte=F("version"))

    with pytest.raises(RuntimeError, match="every argument"):
        PreparedQuery(ignores_its_argument)(1)


def test_the_feeds_first_pages_are_read_for_each_seat_as_their_querysets_read_them(
    table, gm, player, other_player
):
    campaign, character, npc = table
    campaign.memberships.create(user=other_player)
    for author in (gm, player, other_player):
        for visibility in Visibility.values:
            for about in (None, character, npc):
                feed_entry_create(
                    campaign=campaign,
                    author=author,
                    label=f"{visibility} by {author}",
                    character=about,
                    visibility=visibility,
                )
        feed_entry_create(
            campaign=campaign, author=author, label="psst", visibility=WHISPER, recipients=[player]
        )
    for user in (gm, player, other_player):
        as_gm = campaign.is_gm(user)
        for limit in (3, 26, 100):
            built = _feed_queryset(campaign.pk).filter(_visible_to(user.pk, as_gm=as_gm)).order_by("-seq")
            prepared = _newest(as_gm, limit)(user.pk, campaign.pk)
            same_rows(prepared, list(built[:limit]))
            assert [e.character_portrait for e in prepared] == [e.character_portrait for e in built[:limit]]
            assert [e.author.username for e in prepared] == [e.author.username for e in built[:limit]]
            for about in (character, npc):
                prepared = _newest_of("character_id", as_gm, limit)(user.pk, campaign.pk, about.pk)
                same_rows(prepared, list(built.filter(character_id=about.pk)[:limit]))
    # What each seat gets differs: the GM's secrets and the whispers stay with whom they are for.
    assert len(_newest(True, 100)(gm.pk, campaign.pk)) > len(_newest(False, 100)(player.pk, campaign.pk))
    assert len(_newest(False, 100)(player.pk, campaign.pk)) > len(
        _newest(False, 100)(other_player.pk, campaign.pk)
    )


def test_a_query_whose_shape_follows_its_ids_is_refused(settings):
    settings.TABLETOP_STOCK = False

    def shaped_by_its_id(character_id):
        found = Character.objects.filter(pk=character_id)
        return found if character_id < 1000 else found.filter(is_npc=True)

    with pytest.raises(RuntimeError, match="changed the SQL"):
        PreparedQuery(shaped_by_its_id)(1)


def test_the_dice_boxs_look_ups_read_as_their_querysets_read_them(table, gm, player, other_player):
    campaign, character, npc = table
    lonely = campaign_create(gm=gm, name="Nobody yet", system="triad")
    for wanted in (campaign, lonely):
        seats = list(Membership.objects.filter(campaign_id=wanted.pk).select_related("user", "campaign__gm"))
        same_rows(_seats_at(wanted.pk), seats)
        assert [(s.user.username, s.campaign.gm.username) for s in _seats_at(wanted.pk)] == [
            (s.user.username, s.campaign.gm.username) for s in seats
        ]
    same_rows(_campaign_with_gm(lonely.pk), [lonely])
    assert table_for_member(gm, lonely.pk) == (lonely, [gm])
    assert table_for_member(player, campaign.pk)[1] == [gm, player]
    for user, expected in ((gm, [character.pk, npc.pk]), (player, [character.pk]), (other_player, [])):
        characters = campaign.characters.order_by("is_npc", "name", "pk")
        if not campaign.is_gm(user):
            characters = characters.filter(owner=user)
        assert [s.pk for s in roll_subjects(user, campaign)] == [c.pk for c in characters] == expected


def test_the_dice_box_reads_its_subjects_in_one_query_however_many(table, gm, django_assert_num_queries):
    campaign, character, _ = table
    for n in range(5):
        Character.objects.create(campaign=campaign, owner=gm, name=f"Extra {n}", is_npc=True)
    with django_assert_num_queries(1):  # the related manager's .only() read each campaign_id again
        assert len(roll_subjects(gm, campaign)) == 7


@pytest.mark.parametrize("system", [config.label for config in game_systems()])
def test_a_fight_is_read_as_its_related_queryset_reads_it(
    system, make_campaign, gm, player, django_assert_num_queries
):
    campaign = make_campaign(system, players=[player])
    load_demo_characters(campaign, players=[player])
    fight = encounters.encounter_create(campaign=campaign, name="Both ways")
    assert encounters.running_encounter(campaign) is None
    for character in campaign.characters.all():
        encounters.combatant_add_character(encounter=fight, character=character)
    encounters.combatant_add_npc(encounter=fight, name="Foe", cleaned_data=sample_npc(system))
    dice = Roller(FixedFaces([5] * 60))
    encounters.encounter_start(encounter=fight, version=fight.version, roller=dice, author=gm)
    built = list(
        fight.combatants.select_related("character", "character__campaign").order_by("position", "pk")
    )
    with django_assert_num_queries(1):
        read = encounters.combatants_of(fight)
        for combatant in read:  # the encounter, the character, its campaign and sheet row come with it
            assert combatant.encounter is fight
            if combatant.character_id:
                assert combatant.character.campaign.pk == campaign.pk
                sheet = next(r for r in system_relations(system) if r.one_to_one)
                assert (
                    getattr(combatant.character, sheet.get_accessor_name()).character_id
                    == combatant.character_id
                )
    same_rows(read, built)
    same_rows([c.character for c in read if c.character_id], [c.character for c in built if c.character_id])
    running = encounters.running_encounter(campaign)
    same_rows([running], [campaign.encounters.filter(status="running").first()])
    assert running.campaign is campaign


def test_an_encounter_is_read_by_id_as_the_campaigns_encounters_read_it(make_campaign, player):
    campaign, elsewhere = make_campaign("triad", players=[player]), make_campaign("l5r", name="Elsewhere")
    fight = encounters.encounter_create(campaign=campaign, name="Here")
    other = encounters.encounter_create(campaign=elsewhere, name="There")
    read = encounters.encounter_at(campaign, fight.pk)
    same_rows([read], [campaign.encounters.get(pk=fight.pk)])
    assert read.campaign is campaign
    for foreign in (other.pk, other.pk + 1000):  # another table's, or none: 404 as get_object_or_404
        with pytest.raises(Http404):
            encounters.encounter_at(campaign, foreign)


def test_the_open_encounter_is_the_one_the_campaigns_encounters_give(make_campaign, gm, player):
    campaign = make_campaign("triad", players=[player])
    assert encounters.open_encounter(campaign) is None
    made = [
        encounters.encounter_create(campaign=campaign, name=name) for name in ("First", "Second", "Third")
    ]
    for ended in (None, made[0], made[1], made[2]):  # end them one by one: the next shows, then none
        if ended is not None:
            ended.status = ended.Status.ENDED
            ended.save(update_fields=["status"])
        expected = campaign.encounters.exclude(status="ended").first()
        read = encounters.open_encounter(campaign)
        assert (read and read.pk) == (expected and expected.pk)
        if read is not None:
            same_rows([read], [expected])
            assert read.campaign is campaign


def test_saved_rolls_are_read_as_their_querysets_read_them(table, gm, player, other_player):
    from play import saved_rolls
    from play.models import SavedRoll

    table, hero, _ = table
    mine = [
        saved_rolls.saved_roll_create(
            campaign=table, owner=player, character=character, name=name, line="2d6", visibility="public"
        )
        for character, name in ((None, "b"), (None, "A"), (hero, "Hit"), (hero, "dodge"))
    ]
    SavedRoll.objects.create(campaign=table, owner=other_player, name="theirs", line="1d6")
    for user in (player, other_player, gm):
        by_orm = SavedRoll.objects.filter(campaign=table, owner=user).select_related("character")
        read = saved_rolls.saved_rolls_for_table(user, table)
        same_rows(sorted(read, key=lambda r: r.pk), sorted(by_orm, key=lambda r: r.pk))
        sheet = list(SavedRoll.objects.filter(owner=user, character=hero).order_by("name", "pk"))
        same_rows(saved_rolls.saved_rolls_for_sheet(user, hero), sheet)
    for saved in mine:  # its owner reads it; anyone else gets 404, as if it were not there
        at_table = saved_rolls.saved_roll_at_table(player, table, saved.pk)
        same_rows(
            [at_table], [SavedRoll.objects.select_related("character", "campaign__gm").get(pk=saved.pk)]
        )
        assert at_table.campaign.gm.pk == gm.pk
        for user in (gm, other_player):
            with pytest.raises(Http404):
                saved_rolls.saved_roll_at_table(user, table, saved.pk)
        if saved.character_id:
            assert saved_rolls.saved_roll_of_sheet(player, hero, saved.pk).character is hero
            with pytest.raises(Http404):
                saved_rolls.saved_roll_of_sheet(gm, hero, saved.pk)
        else:
            with pytest.raises(Http404):
                saved_rolls.saved_roll_of_sheet(player, hero, saved.pk)


def test_a_sheets_requests_are_read_as_their_querysets_read_them(table, gm, player):
    from play import requests as roll_requests
    from play.models import RollRequestTarget

    table, hero, npc = table
    asked = [
        roll_requests.roll_request_create(
            campaign=table, gm=gm, label=label, characters=characters, options={}, visibility="public"
        )
        for label, characters in (("First", [hero, npc]), ("Second", [hero]), ("Theirs", [npc]))
    ]
    asked[0].open = False  # a request the GM closed shows on no sheet
    asked[0].save(update_fields=["open"])
    for character in (hero, npc):
        by_orm = list(
            RollRequestTarget.objects.filter(character=character, request__open=True)
            .select_related("request", "entry", "entry__author")
            .order_by("request__created_at", "pk")
        )
        waiting, answered = roll_requests.requests_for_sheet(character)
        same_rows(waiting + answered, by_orm)
        assert [t.request.label for t in waiting] == [t.request.label for t in by_orm]
        for target in RollRequestTarget.objects.select_related("request"):  # its own target, or none
            with transaction.atomic():  # the answer's claim, under its rows' lock
                locked = roll_requests._target_locked.first(target.pk, character.pk)
            if target.character_id == character.pk:
                same_rows([locked], [target])
                same_rows([locked.request], [target.request])
            else:
                assert locked is None
