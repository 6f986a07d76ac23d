"""The combat contract (sheets/combat.py ``CombatRules``), run over every installed game system, as
tests/sheets/test_system_contract.py runs the sheet's: a fifth system is fought here as soon as it is
installed, with no edit to this file.

One fight per system, through the pages a GM and a player use, with fixed dice: the system's
``sample_npc()`` against the player's demo character; started; every action the one whose turn it is is
offered taken once with its form's initial data (each from the same moment, then undone), a defence it
opens answered by the defender's player; turns through a round; a quick NPC and a character joining
mid-fight, placed by the system while the turn stays where it is, each acting in the next round; the
side with no one standing said once in the feed and on the GM's page, which offers the end; ended.
Throughout, the NPCs' numbers stay off every page and socket frame the player gets
(``play.encounters.numbers_shown``). Rules only one system has are tested in that system's own module.
"""

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django import forms
from django.contrib.messages import get_messages
from django.db import transaction
from django.urls import reverse

from campaigns.models import FeedEntry
from play import encounters as services
from play.forms import initial_data
from play.models import Combatant, Encounter
from sheets.combat import EncounterError, Side
from sheets.demo import load_demo_characters
from sheets.history import system_relations
from sheets.registry import game_systems
from tests.campaigns.encounter import roller
from tests.campaigns.test_consumers import open_socket
from tests.conftest import HTMX, frames_before_barrier

SYSTEMS = [config.label for config in game_systems()]

# A 2 or a 3 fits every die, explodes none and compromises no program (as the sheet contract's faces).
FACES = (2, 3) * 150


def combat_of(system: str):
    return next(config.combat for config in game_systems() if config.label == system)


def sample_npc(system: str) -> dict:
    """The system's typical foe, or a failure naming the system that has none."""
    try:
        return combat_of(system).sample_npc()
    except NotImplementedError as missing:
        pytest.fail(f"{system}: the combat contract needs sample_npc(): {missing}")


def posted(data: dict, prefix: str) -> dict:
    """Form data as a browser posts it under ``prefix``: a ticked box "on", an unticked one left out."""
    out = {}
    for name, value in data.items():
        if value is None or value is False:
            continue
        out[f"{prefix}-{name}"] = "on" if value is True else value
    return out


def first_drawn(form_class, prefix: str) -> dict:
    """What the form posts as first drawn, with words where it asks the user to type some (what to
    call a declared action): the form's initial data is the rest."""
    data = initial_data(form_class, prefix=prefix)
    for name, field in form_class(prefix=prefix).fields.items():
        key = f"{prefix}-{name}"
        if type(field) is forms.CharField and field.required and not data.get(key):
            data[key] = "Hold the line"
    return data


def refusal_of(response) -> str:
    """What the page said against a post ("" when nothing): a message, the turn panel's error, or a
    status the post should not get (a refused quick NPC comes back as the page, 200, with its messages)."""
    said = [str(m) for m in get_messages(response.wsgi_request) if m.level_tag == "error"]
    context = response.context or {}
    if context.get("error"):
        said.append(context["error"])
    for form in ("npc_name_form", "npc_form"):
        if form in context and context[form].errors:
            said.append(context[form].errors.as_text())
    if response.status_code not in (200, 302):
        said.append(f"status {response.status_code}: {response.content.decode()[:300]}")
    return " ".join(said)


class Table:
    """One system's table: the GM's and the players' clients, and the fight's encounter."""

    def __init__(self, system, campaign, clients, users):
        self.system, self.campaign, self.clients, self.users = system, campaign, clients, users
        self.combat = combat_of(system)
        self.encounter = None

    def gm_post(self, verb: str, data: dict | None = None):
        encounter = self.fresh()
        url = reverse("encounter_action", args=[self.campaign.pk, encounter.pk, verb])
        response = self.clients["gm"].post(url, {"version": encounter.version, **(data or {})})
        refused = refusal_of(response)
        assert response.status_code == 302 and not refused, f"{self.system}: {verb} refused: {refused}"
        return self.fresh()

    def fresh(self) -> Encounter:
        self.encounter.refresh_from_db()
        return self.encounter

    def order(self) -> list[Combatant]:
        return services.combatants_of(self.fresh())

    def actor(self) -> Combatant | None:
        return services.current_actor(self.fresh(), self.order())

    def player_of(self, combatant) -> str | None:
        """Which seat plays ``combatant`` ("player", "other"), or None for the GM's."""
        if combatant.character is None or not services.has_player(self.encounter, combatant):
            return None
        return next(seat for seat, user in self.users.items() if user.pk == combatant.character.owner_id)

    def npc_secrets(self) -> set[str]:
        """What the GM reads beside each NPC the player may not see the numbers of."""
        encounter = self.fresh()
        return {
            self.combat.summary(c, for_gm=True)
            for c in self.order()
            if not services.numbers_shown(self.users["player"], encounter, c)
        }


def take(table: Table, actor, action, *, by_gm: bool) -> None:
    """``action`` posted once with its form's initial data, at its first target: by the GM from the
    encounter page, or by the actor's player from the turn panel; a defence it opens answered by the
    defender's player with the defence form's initial data."""
    encounter = table.fresh()
    data = {"version": encounter.version, "actor": actor.pk, "action": action.key}
    if action.needs_target:
        data["target"] = action.targets[0].pk
    if action.form_class is not None:
        data.update(first_drawn(action.form_class, action.key))
        if not by_gm:  # the player's form leaves out the GM's calls (a posted one is refused)
            for name in action.gm_fields:
                data.pop(f"{action.key}-{name}", None)
    if by_gm:
        url = reverse("encounter_action", args=[table.campaign.pk, encounter.pk, "act"])
        response = table.clients["gm"].post(url, data)
    else:
        url = reverse("turn_act", args=[table.campaign.pk, encounter.pk])
        response = table.clients[table.player_of(actor)].post(url, data, **HTMX)
    refused = refusal_of(response)
    assert not refused, f"{table.system}: {actor.name}'s {action.key} with its initial data: {refused}"
    assert table.fresh().version > data["version"], f"{table.system}: {action.key} did nothing"
    found = services.defence_of(table.fresh(), table.order())
    if found is not None:
        asked, _, defender = found
        answer = {"version": table.encounter.version, "defender": defender.pk}
        answer.update(first_drawn(asked.form_class, "defence"))
        url = reverse("turn_defend", args=[table.campaign.pk, table.encounter.pk])
        response = table.clients[table.player_of(defender)].post(url, answer, **HTMX)
        refused = refusal_of(response)
        assert not refused, f"{table.system}: {defender.name}'s defence against {action.key}: {refused}"
        assert services.pending_defence(table.fresh()) is None


def every_action(table: Table) -> list[str]:
    """Each action offered to whoever acts now, taken once from this same moment (then undone): the
    player's own from their turn panel, the GM's from the encounter page. Returns the keys taken."""
    actor = table.actor()
    player = table.player_of(actor)
    encounter, order = table.fresh(), table.order()
    mine = services.actions_open_to(table.combat, encounter, actor, order, by_gm=False) if player else []
    gms = [
        a
        for a in services.actions_open_to(table.combat, encounter, actor, order, by_gm=True)
        if a.key not in {m.key for m in mine}
    ]
    taken = []
    for action, by_gm in [(a, False) for a in mine] + [(a, True) for a in gms]:
        if action.needs_target and not action.targets:
            continue  # no one to aim it at: the page does not draw it
        with transaction.atomic():
            take(table, table.actor(), action, by_gm=by_gm)
            transaction.set_rollback(True)
        taken.append(action.key)
    return taken


def turns_until_round(table: Table, round_number: int) -> list[int]:
    """The GM presses Next turn until round ``round_number`` begins; returns who had each turn."""
    had = []
    for _ in range(60):
        if table.fresh().round >= round_number:
            return had
        had.append(table.actor().pk)
        table.gm_post("next")
    raise AssertionError(f"{table.system}: round {round_number} never came")


def join(table: Table, verb: str, data: dict, name: str) -> Combatant:
    """A reinforcement from the GM's page, mid-round: placed, the turn where it was, one feed line."""
    before, entries, version = table.actor(), FeedEntry.objects.count(), table.fresh().version
    table.gm_post(verb, data)
    order = table.order()
    newcomer = next(c for c in order if c.name == name)
    assert [c.position for c in order] == list(range(len(order))), table.system
    assert table.actor().pk == before.pk, f"{table.system}: {name} joining took {before.name}'s turn"
    assert table.encounter.version > version and FeedEntry.objects.count() > entries, table.system
    return newcomer


def fight(table: Table, fixed_dice, monkeypatch) -> set[str]:
    """The whole fight (see the module's docstring), up to the end; returns the NPC numbers the GM read."""
    system, campaign, users, clients = table.system, table.campaign, table.users, table.clients
    fixed_dice(*FACES)
    npc = sample_npc(system)
    response = clients["gm"].post(reverse("encounters", args=[campaign.pk]), {"name": "Ambush"})
    assert response.status_code == 302
    table.encounter = Encounter.objects.get(campaign=campaign)
    mine = campaign.characters.get(owner=users["player"])
    table.gm_post("add-character", {"character": mine.pk})
    table.gm_post("add-npc", {"name": "Foe", **posted(npc, "npc")})
    start = table.combat.start_form_class
    table.gm_post("start", initial_data(start, prefix="start") if start else {})
    assert table.fresh().status == Encounter.Status.RUNNING and table.actor() is not None, system
    secrets = table.npc_secrets()

    # Round 1: each turn, every action offered, then the next turn.
    taken = []
    while table.fresh().round == 1:
        taken += every_action(table)
        secrets |= table.npc_secrets()
        table.gm_post("next")
    assert taken, f"{system}: nobody was offered anything in round 1"

    # Mid-round 2: a quick NPC and the other player's character join; each acts by the end of round 3.
    table.gm_post("next")
    assert table.fresh().round == 2 and table.encounter.turn > 0, system
    second = join(table, "add-npc", {"name": "Second foe", **posted(npc, "npc")}, "Second foe")
    theirs = campaign.characters.get(owner=users["other"])
    ally = join(table, "add-character", {"character": theirs.pk}, theirs.name)
    assert ally.side == Side.PLAYERS and second.side == Side.GM
    secrets |= table.npc_secrets()
    had = turns_until_round(table, 4)
    assert second.pk in had and ally.pk in had, f"{system}: a reinforcement never got a turn"
    secrets |= table.npc_secrets()

    # The GM's side falls (how a foe falls is each system's own, tested in its module: here the rules
    # say every NPC is out) and the encounter says so once, on the GM's page and in the feed.
    gm_page = clients["gm"].get(table.encounter.get_absolute_url()).content.decode()
    assert "No one is left standing" not in gm_page
    is_out = table.combat.is_out
    monkeypatch.setattr(table.combat, "is_out", lambda c: c.side == Side.GM or is_out(c))
    table.gm_post("next")
    table.gm_post("next")
    said = FeedEntry.objects.filter(campaign=campaign, label__endswith="No one left standing")
    assert [e.summary for e in said] == ["Everyone on the GM's side is out: the GM may end the encounter."]
    gm_page = clients["gm"].get(table.encounter.get_absolute_url()).content.decode()
    assert "No one is left standing on the GM&#x27;s side." in gm_page
    end = reverse("encounter_action", args=[campaign.pk, table.encounter.pk, "end"])
    assert re.search(rf'<div class="alert[^"]*side-out".*?action="{end}"', gm_page, flags=re.S)
    return secrets


def player_pages(table: Table) -> str:
    """Every response body the player reads the fight in: the table, its feed and panels, their sheet."""
    campaign, client = table.campaign, table.clients["player"]
    urls = [
        reverse("table", args=[campaign.pk]),
        reverse("table_feed", args=[campaign.pk]),
        reverse("encounter_panel", args=[campaign.pk]),
        reverse("turn_panel", args=[campaign.pk]),
        *[c.get_absolute_url() for c in campaign.characters.filter(owner=table.users["player"])],
    ]
    return "\n".join(client.get(url).content.decode() for url in urls)


async def drained(campaign, communicator) -> list[str]:
    """Every frame the socket got before a barrier sent to the table now, as text."""
    (frames,) = await frames_before_barrier(campaign.pk, communicator)
    return [json.dumps(frame, ensure_ascii=False) for frame in frames]


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("system", SYSTEMS)
async def test_a_fight_with_the_systems_sample_npc_and_reinforcements(
    system, make_campaign, gm, player, other_player, client_for, fixed_dice, monkeypatch, settings
):
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": 10_000}}
    }
    # A whole fight in seconds is more clicks than a table makes; the limiter is tested on its own.
    settings.TABLE_RATE_LIMITS = {"write": (10_000, 60), "roll_button": (10_000, 60), "odds": (10_000, 60)}
    users = {"gm": gm, "player": player, "other": other_player}

    def seated():
        campaign = make_campaign(system, players=[player, other_player])
        load_demo_characters(campaign, players=[player, other_player])
        return Table(system, campaign, {seat: client_for(user) for seat, user in users.items()}, users)

    table = await sync_to_async(seated)()
    # The player's socket is open before the fight begins: every live frame is read, then the catch-up.
    socket, _ = await open_socket(player, table.campaign)
    secrets = await sync_to_async(fight)(table, fixed_dice, monkeypatch)
    live = "\n".join(await drained(table.campaign, socket))
    await socket.disconnect()
    socket, replayed = await open_socket(player, table.campaign)
    await socket.disconnect()
    caught_up = "\n".join(frame.get("html", "") for frame in replayed)
    pages = await sync_to_async(player_pages)(table)
    gm_page = await sync_to_async(table.clients["gm"].get)(table.encounter.get_absolute_url())

    assert secrets and all(secrets), f"{system}: the NPCs showed the GM no numbers"
    last = await sync_to_async(lambda: table.combat.summary(table.order()[-1], for_gm=True))()
    assert last in gm_page.content.decode()
    assert "No one left standing" in live and "No one left standing" in caught_up and "Foe" in pages
    for seen in (live, caught_up, pages):
        assert not [s for s in secrets if s in seen], f"{system}: NPC numbers reached the player"

    encounter = await sync_to_async(table.gm_post)("end")
    assert encounter.status == Encounter.Status.ENDED


# ----- the contract's parts, one at a time ----------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_sample_npc_is_quick_npc_form_data_the_system_stores(system):
    combat = combat_of(system)
    form = combat.npc_form_class(sample_npc(system))
    assert form.is_valid(), form.errors
    assert combat.npc_stats(form.cleaned_data)


# What listing the actions open to a combatant may read: its character's sheet once, the sheet's row and
# the child rows the actions offer (L5R's skills and weapons, FREE/FALL's gear and programs). The turn
# panel, each odds request and each action ask for the list; forms and numbers that read the sheet again
# each for itself cost FREE/FALL 7 queries a listing and L5R 9.
ACTIONS_QUERY_BUDGET = 3


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_listing_the_actions_reads_the_sheet_once(
    system, make_campaign, gm, player, other_player, django_assert_max_num_queries
):
    campaign, encounter, _ = running(system, make_campaign, gm, player, other_player)
    encounter = campaign.encounters.get(pk=encounter.pk)  # as a view finds it, its campaign known
    combatants = services.combatants_of(encounter)
    character = next(c for c in combatants if c.character is not None)
    with django_assert_max_num_queries(ACTIONS_QUERY_BUDGET):
        offered = combat_of(system).actions(encounter, character, combatants)
    assert offered  # a character standing in a running fight always has something to do


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_the_fight_is_read_in_one_query_with_each_characters_sheet_row(
    system, make_campaign, gm, player, other_player, django_assert_num_queries
):
    """Every panel, turn and action reads the fight through ``combatants_of``: a character's sheet row
    comes with it, where each system read it again for every character it listed or priced."""
    campaign, encounter, _ = running(system, make_campaign, gm, player, other_player)
    encounter = campaign.encounters.get(pk=encounter.pk)
    (sheet,) = [r.get_accessor_name() for r in system_relations(system) if r.one_to_one]
    with django_assert_num_queries(1):
        combatants = services.combatants_of(encounter)
    characters = [c.character for c in combatants if c.character is not None]
    with django_assert_num_queries(0):
        rows = [getattr(character, sheet) for character in characters]
    assert [row.character_id for row in rows] == [character.pk for character in characters] != []


@pytest.mark.django_db
def test_place_moves_the_turn_on_with_whoever_acts_now(make_campaign):
    encounter = Encounter(campaign=make_campaign(SYSTEMS[0]), turn=1)
    order = [Combatant(name=name) for name in ("A", "B", "C", "New")]
    combat = combat_of(SYSTEMS[0])
    combat.place(encounter, order, order[-1], 0)  # before B, who acts now
    assert [c.name for c in order] == ["New", "A", "B", "C"] and [c.position for c in order] == [0, 1, 2, 3]
    assert order[encounter.turn].name == "B"
    encounter.turn = 1
    order = [Combatant(name=name) for name in ("A", "B", "C", "New")]
    combat.place(encounter, order, order[-1], 2)  # after B
    assert [c.name for c in order] == ["A", "B", "New", "C"] and order[encounter.turn].name == "B"


def running(system, make_campaign, gm, player, other_player):
    """A started fight of the system's demo character and sample NPC, in the service's terms."""
    campaign = make_campaign(system, players=[player, other_player])
    load_demo_characters(campaign, players=[player, other_player])
    encounter = services.encounter_create(campaign=campaign, name="Ambush")
    services.combatant_add_character(encounter=encounter, character=campaign.characters.get(owner=player))
    combat = combat_of(system)
    stats = combat.npc_form_class(sample_npc(system))
    assert stats.is_valid()
    services.combatant_add_npc(encounter=encounter, name="Foe", cleaned_data=stats.cleaned_data)
    services.encounter_start(encounter=encounter, version=encounter.version, roller=roller(*FACES), author=gm)
    encounter.refresh_from_db()
    return campaign, encounter, stats.cleaned_data


@pytest.mark.django_db
def test_a_join_is_versioned_and_refused_once_the_fight_is_over(make_campaign, gm, player, other_player):
    campaign, encounter, stats = running(SYSTEMS[0], make_campaign, gm, player, other_player)
    stale = encounter.version - 1
    with pytest.raises(EncounterError, match="moved on"):
        services.combatant_add_npc(
            encounter=encounter, name="Late", cleaned_data=stats, version=stale, roller=roller(2), author=gm
        )
    encounter.refresh_from_db()
    assert not encounter.combatants.filter(name="Late").exists()
    services.encounter_end(encounter=encounter, version=encounter.version)
    with pytest.raises(EncounterError, match="over"):
        services.combatant_add_character(
            encounter=encounter,
            character=campaign.characters.get(owner=other_player),
            version=encounter.version,
            roller=roller(*FACES),
            author=gm,
        )
    assert encounter.combatants.count() == 2


@pytest.mark.django_db
def test_a_join_that_would_move_the_turn_is_refused_and_nothing_is_saved(
    make_campaign, gm, player, other_player, monkeypatch
):
    campaign, encounter, stats = running(SYSTEMS[0], make_campaign, gm, player, other_player)
    combat = combat_of(SYSTEMS[0])

    def first(encounter, combatant, combatants, roller):  # a newcomer put first, the turn left behind
        combatants.remove(combatant)
        combatants.insert(0, combatant)
        for position, each in enumerate(combatants):
            each.position = position
        return []

    monkeypatch.setattr(combat, "join", first)
    version, entries = encounter.version, FeedEntry.objects.count()
    with pytest.raises(EncounterError, match="would take .*'s turn away"):
        services.combatant_add_npc(
            encounter=encounter, name="Rude", cleaned_data=stats, version=version, roller=roller(2), author=gm
        )
    encounter.refresh_from_db()
    assert encounter.version == version and FeedEntry.objects.count() == entries
    assert not encounter.combatants.filter(name="Rude").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_side_that_stands_again_with_a_reinforcement_and_falls_is_said_again(
    system, make_campaign, gm, player, other_player, monkeypatch
):
    campaign, encounter, stats = running(system, make_campaign, gm, player, other_player)
    combat = combat_of(system)
    down = {encounter.combatants.get(name="Foe").pk}
    is_out = combat.is_out
    # How a foe falls is each system's own: here the rules say who is down.
    monkeypatch.setattr(combat, "is_out", lambda c: c.pk in down or is_out(c))

    def said():
        return FeedEntry.objects.filter(campaign=campaign, label__endswith="No one left standing").count()

    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    assert said() == 1
    second = services.combatant_add_npc(
        encounter=encounter,
        name="Second foe",
        cleaned_data=stats,
        version=encounter.version,
        roller=roller(*FACES),
        author=gm,
    )
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    assert said() == 1 and not services.sides_out(encounter, services.combatants_of(encounter))
    down.add(second.pk)
    services.encounter_next_turn(encounter=encounter, version=encounter.version, author=gm)
    assert said() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_a_refused_reinforcement_comes_back_with_its_message_and_what_was_typed(
    system, make_campaign, gm, player, other_player, client_for
):
    campaign, encounter, _ = running(system, make_campaign, gm, player, other_player)
    before = (encounter.version, encounter.combatants.count(), FeedEntry.objects.count())
    data = {"version": encounter.version, "name": "", **posted(sample_npc(system), "npc")}
    url = reverse("encounter_action", args=[campaign.pk, encounter.pk, "add-npc"])
    response = client_for(gm).post(url, data, **HTMX)
    assert response.status_code == 422
    page = response.content.decode()
    assert 'id="id_name-error"' in page and "This field is required." in page
    typed = next(k for k, v in data.items() if k.startswith("npc-") and isinstance(v, int | str) and v != "")
    assert f'name="{typed}"' in page and f'value="{data[typed]}"' in page
    encounter.refresh_from_db()
    assert (encounter.version, encounter.combatants.count(), FeedEntry.objects.count()) == before
    # A page drawn before the fight moved on is told to look again, and nothing joins.
    data.update(name="Late", version=encounter.version - 1)
    page = client_for(gm).post(url, data, **HTMX).content.decode()
    assert "moved on since this page was loaded" in page
    assert not encounter.combatants.filter(name="Late").exists()
