"""What changes an encounter: create, add combatants (before the start or as reinforcements), start,
act, next turn, end; and whether a side has no one left standing.

Every GM action carries the encounter's version, so a double click or a second tab cannot act twice;
every roll lands in the table feed; every change to a sheet goes through the sheet history. A player
takes their own character's turn (``encounter_act`` with the player as author); everything else is the
GM's.

Over 500 lines for one reason: this is one state machine. Every step claims the encounter's version
under its row lock, logs to the feed and saves through the same private helpers (``_claim``, ``_log``,
``_save``, ``_advance``); split apart, those would become a public surface any caller could misuse.
"""

from __future__ import annotations

import functools
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404

from campaigns import realtime
from campaigns.counters import row_update, row_update_if
from campaigns.models import Visibility
from campaigns.prepared import PreparedQuery
from campaigns.selectors import PLAYERS
from campaigns.services import feed_lines_create
from campaigns.systems import SHOW_NPC_NUMBERS
from rules.dice import Roller, RulesError
from sheets.combat import EncounterError, RollResult, Side, is_npc
from sheets.history import system_relations
from sheets.registry import combat_for

from .forms import cleaned, with_initial
from .models import Combatant, Encounter


class TurnRefused(EncounterError):
    """A player tried to act out of their turn, or for a combatant that is not theirs."""


# Where a waiting defence lives in ``Encounter.state``: who attacks whom with what, and the system's own
# part (``rules``: what it rolled before the defender's choice). One waits at a time.
DEFENCE = "defence"


def pending_defence(encounter: Encounter) -> dict[str, Any] | None:
    """The attack waiting for its target's player to choose the defence, if any."""
    return (encounter.state or {}).get(DEFENCE)


def has_player(encounter: Encounter, combatant: Combatant) -> bool:
    """Whether a player other than the GM plays ``combatant`` (and so chooses how it defends)."""
    character = combatant.character
    return character is not None and character.owner_id != encounter.campaign.gm_id


def _waiting(encounter: Encounter, combatants: list[Combatant]) -> str:
    """Why nothing else may happen now ("" when no defence waits)."""
    pending = pending_defence(encounter)
    if pending is None:
        return ""
    names = {c.pk: c.name for c in combatants}
    defender = names.get(pending["defender"], "the target")
    return (
        f"{defender} is still choosing how to defend against {names.get(pending['attacker'], 'the attack')}: "
        f"wait for their player, or resolve it without waiting."
    )


def _claim(encounter: Encounter, version: int) -> None:
    if not row_update_if(Encounter, encounter.pk, {"version": version}, version=version + 1):
        raise EncounterError("The encounter moved on since this page was loaded; look again and retry.")
    encounter.version = version + 1


def _announce(encounter: Encounter, *, turn: bool = True, fight_saved: bool = False) -> None:
    """The encounter changed: every panel that follows each change is fetched again (the encounter's, the
    acting player's turn panel, a sheet's latest lines of the fight). ``turn``: whose turn it is, the
    round, a waiting defence or who fights changed too, so every player's turn panel is fetched; an
    action that leaves all of those as they were shows nothing new on the others (``live_panel`` in
    play.encounter_views._turn_context). ``fight_saved``: the change saved the whole fight (``_save``),
    so the table's views are drawn from it (fight_of)."""
    held = {"moved": encounter} if fight_saved else None
    realtime.panel_changed(campaign_id=encounter.campaign_id, panel="encounter", held=held)
    if turn:
        realtime.panel_changed(campaign_id=encounter.campaign_id, panel="turn")


def _log(encounter: Encounter, lines: list[RollResult], *, author) -> None:
    # A line showing an NPC's numbers carries the players' words (sheets.combat.for_players); kept only
    # while the campaign keeps NPC numbers the GM's, so the feed's variant rule shows them to players.
    shown = encounter.campaign.option_on(SHOW_NPC_NUMBERS)
    entries = []
    for line in lines:
        result = line.result()
        if shown:
            result.pop(PLAYERS, None)
        entries.append(
            {
                "character": line.character,
                "encounter_id": encounter.pk,
                "label": f"{encounter.name}: {line.label}",
                "request": {**line.request, "encounter": encounter.pk, "round": encounter.round},
                "result": result,
                "summary": line.summary,
                "chance": line.chance,
                "visibility": Visibility.GM if line.secret else Visibility.PUBLIC,
            }
        )
    feed_lines_create(campaign=encounter.campaign, author=author, lines=entries)


def fight_of(encounter: Encounter, moved: Encounter | None = None) -> list[Combatant]:
    """``encounter``'s combatants in order. ``moved``: an encounter a change in this process saved, with
    its whole fight (``_save``'s ``saved_fight``), taken where it is this encounter at the version just
    read, so nothing has moved it since: read again, the fight was a third of drawing the table's views
    after a move, and the acting player's turn panel read it once more."""
    if moved is not None and moved.pk == encounter.pk and moved.version == encounter.version:
        # In the order a read gives them: a new round may have moved places without sorting the list.
        return sorted(moved.saved_fight, key=lambda combatant: (combatant.position, combatant.pk))
    return combatants_of(encounter)


def combatants_of(encounter: Encounter) -> list[Combatant]:
    combatants = _fight_of(encounter.campaign.system)(encounter.pk)
    for combatant in combatants:
        Combatant.encounter.field.set_cached_value(combatant, encounter)  # as encounter.combatants would
        combatant.as_read = combatant.play_columns()  # _save writes back only the rows a move changed
    return combatants


@functools.cache
def _fight_of(system: str) -> PreparedQuery:
    """A fight's combatants in order, each character's sheet row joined: the system reads it for every
    combatant it lists, prices or sums up, which was a query per character each time the fight was read."""
    sheets = [
        f"character__{relation.get_accessor_name()}"
        for relation in system_relations(system)
        if relation.one_to_one
    ]
    return PreparedQuery(
        lambda encounter_id: (
            Combatant.objects.filter(encounter_id=encounter_id)
            .select_related("character", "character__campaign", *sheets)
            .order_by("position", "pk")
        )
    )


@transaction.atomic
def encounter_create(*, campaign, name: str) -> Encounter:
    encounter = Encounter(campaign=campaign, name=name.strip()[:80] or "Encounter")
    encounter.full_clean()
    encounter.save()
    _announce(encounter)
    return encounter


@transaction.atomic
def combatant_add_character(
    *, encounter: Encounter, character, version: int | None = None, roller: Roller | None = None, author=None
) -> Combatant:
    """Put a character at this table in the encounter: before the start, or as a reinforcement
    (``_enter``)."""
    if character.campaign_id != encounter.campaign_id:
        raise EncounterError("Only characters at this table can join its encounters.")
    if encounter.combatants.filter(character=character).exists():
        raise EncounterError(f"{character.name} is already in this encounter.")
    combatant = Combatant(
        encounter=encounter,
        character=character,
        name=character.name,
        side=Combatant.Side.GM if character.is_npc else Combatant.Side.PLAYERS,
    )
    return _enter(encounter, combatant, version=version, roller=roller, author=author)


@transaction.atomic
def combatant_add_npc(
    *,
    encounter: Encounter,
    name: str,
    cleaned_data: dict[str, Any],
    version: int | None = None,
    roller: Roller | None = None,
    author=None,
) -> Combatant:
    """Put a quick NPC (its form's ``cleaned_data``) in the encounter: before the start, or as a
    reinforcement (``_enter``)."""
    stats = combat_for(encounter.campaign).npc_stats(cleaned_data)
    combatant = Combatant(
        encounter=encounter, name=name.strip()[:80] or "NPC", side=Combatant.Side.GM, stats=stats
    )
    return _enter(encounter, combatant, version=version, roller=roller, author=author)


def _enter(encounter: Encounter, combatant: Combatant, *, version, roller, author) -> Combatant:
    """Save a newcomer. Before the start it takes the next place in the line-up and the version stays
    (the start rolls the order); in a running fight it is a reinforcement: an action like any other
    (``version`` claimed, ``roller`` and ``author`` for the system's placing and its feed lines), placed
    in the order by the system's ``join`` while whoever acts now keeps the turn."""
    if encounter.status == Encounter.Status.ENDED:
        raise EncounterError("This encounter is over; nobody can join it now.")
    if encounter.status == Encounter.Status.SETUP:
        if version is not None and version != encounter.version:  # a page drawn before the fight started
            raise EncounterError("The encounter moved on since this page was loaded; look again and retry.")
        combatant.position = encounter.combatants.count()
        _checked(combatant)
        combatant.save()
        _announce(encounter)
        return combatant
    _claim(encounter, version)
    combatants = combatants_of(encounter)
    waiting = _waiting(encounter, combatants)
    if waiting:
        raise EncounterError(waiting)
    combat = combat_for(encounter.campaign)
    said = _said_out(encounter)
    acting = current_actor(encounter, combatants)
    combatant.position = len(combatants)
    _checked(combatant)
    combatant.save()
    combatants.append(combatant)
    try:
        lines = combat.join(encounter, combatant, combatants, roller)
    except RulesError as error:
        raise EncounterError(str(error)) from None
    combatants.sort(key=lambda c: (c.position, c.pk))
    now = current_actor(encounter, combatants)
    if acting is not None and (now is None or now.pk != acting.pk):
        raise EncounterError(f"{combatant.name} cannot join now: it would take {acting.name}'s turn away.")
    lines += _side_out_lines(encounter, combatants, said)
    _save(encounter, combatants)
    _log(encounter, lines, author=author)
    _announce(encounter, fight_saved=True)
    return combatant


# Where ``Encounter.state`` keeps the sides the feed has said have no one left standing.
SIDE_OUT = "sides_out"

# Who a side is in the feed's words.
SIDE_NAMES = {Side.PLAYERS: "the players' side", Side.GM: "the GM's side"}


def sides_out(encounter: Encounter, combatants: list[Combatant]) -> list[Side]:
    """The sides of a running fight with no one left standing: each of their combatants is out."""
    if encounter.status != Encounter.Status.RUNNING:
        return []
    combat = combat_for(encounter.campaign)
    return [side for side in Side if not any(c.side == side and not combat.is_out(c) for c in combatants)]


def _said_out(encounter: Encounter) -> list[str]:
    """The sides the feed has already said are out, read before a system's rules touch the state (a new
    round may start the state afresh)."""
    return list((encounter.state or {}).get(SIDE_OUT, []))


def _side_out_lines(encounter: Encounter, combatants: list[Combatant], said: list[str]) -> list[RollResult]:
    """A feed line for each side out now that the feed has not ``said`` is out, so a fight's end is said
    once (again only after a reinforcement stands the side up), however its last one fell (an action, a
    turn's bleeding, a change to a sheet between turns). What was said is kept in the state."""
    out = [side.value for side in sides_out(encounter, combatants)]
    state = {k: v for k, v in encounter.state.items() if k != SIDE_OUT}
    encounter.state = {**state, SIDE_OUT: out} if out else state
    return [
        RollResult(
            label="No one left standing",
            summary=f"Everyone on {SIDE_NAMES[Side(side)]} is out: the GM may end the encounter.",
        )
        for side in out
        if side not in said
    ]


@transaction.atomic
def encounter_start(
    *,
    encounter: Encounter,
    version: int,
    roller: Roller,
    author,
    data: Any = None,
    prefix: str | None = None,
) -> Encounter:
    """Roll the turn order. ``data`` (read under ``prefix``) fills the system's start form; None keeps its
    defaults."""
    _claim(encounter, version)
    if encounter.status != Encounter.Status.SETUP:
        raise EncounterError("This encounter has already started.")
    start_form_class = combat_for(encounter.campaign).start_form_class
    if start_form_class is not None and data is not None:
        options = cleaned(start_form_class, data, prefix=prefix, what="the start options")
        encounter.state = {**encounter.state, "start": options}
    combatants = combatants_of(encounter)
    if not any(c.side == Combatant.Side.PLAYERS for c in combatants) or not any(
        c.side == Combatant.Side.GM for c in combatants
    ):
        raise EncounterError("Add at least one player character and one opponent first.")
    encounter.status, encounter.round, encounter.turn = Encounter.Status.RUNNING, 1, 0
    try:
        lines = combat_for(encounter.campaign).start(encounter, combatants, roller)
    except RulesError as error:
        raise EncounterError(str(error)) from None
    first = current_actor(encounter, combatants)
    if combat_for(encounter.campaign).is_out(first):
        lines += _skip_out(encounter, combatants, author=author)
    else:
        lines += combat_for(encounter.campaign).begin_turn(encounter, first, author)
    lines += _side_out_lines(encounter, combatants, [])
    _save(encounter, combatants)
    _log(encounter, lines, author=author)
    _announce(encounter)
    return encounter


def _checked(combatant: Combatant) -> None:
    """Refuse to store what a system's rules wrote into a combatant unless it is plain, bounded JSON."""
    try:
        # The relations were set by this module; the columns the rules write are what needs checking.
        combatant.full_clean(
            exclude=["encounter", "character"], validate_unique=False, validate_constraints=False
        )
    except ValidationError as error:
        raise EncounterError(f"{combatant.name} could not be saved: " + " ".join(error.messages)) from None


def _save(encounter: Encounter, combatants: list[Combatant]) -> None:
    """The encounter, and each combatant whose play columns differ from what was read: a hit changes
    one or two rows of a fight of a dozen, and each row left alone was a check and an UPDATE."""
    # Each in one statement written once (campaigns/counters.py): the ORM's save compiled the same
    # UPDATE on every move, about a sixth of a move's time (bench/profile_roll.py).
    row_update(encounter, Encounter.PLAY_COLUMNS)
    encounter.saved_fight = tuple(combatants)  # what fight_of takes while nothing moves the encounter
    for combatant in combatants:
        if combatant.play_columns() == getattr(combatant, "as_read", None):
            continue
        _checked(combatant)
        row_update(combatant, Combatant.PLAY_COLUMNS)
        combatant.as_read = combatant.play_columns()


def current_actor(encounter: Encounter, combatants: list[Combatant]) -> Combatant | None:
    if encounter.status != Encounter.Status.RUNNING or not combatants:
        return None
    return combat_for(encounter.campaign).current_actor(encounter, combatants)


def _skip_out(encounter: Encounter, combatants: list[Combatant], *, author) -> list[RollResult]:
    """Move the turn past combatants who are out, starting a new round when the order wraps."""
    combat = combat_for(encounter.campaign)
    lines: list[RollResult] = []
    if not any(not combat.is_out(c) for c in combatants):
        return lines
    # A round may hold more turns than combatants (a system may resolve each declared action in turn).
    for _ in range(len(combatants) + combat.turns_in_round(encounter, combatants)):
        actor = current_actor(encounter, combatants)
        if actor is not None and not combat.is_out(actor):
            break
        lines += _advance(encounter, combatants, author=author)
    return lines


def _advance(encounter: Encounter, combatants: list[Combatant], *, author) -> list[RollResult]:
    """End the current turn and begin the next one (a new round when the order wraps)."""
    combat = combat_for(encounter.campaign)
    lines = combat.end_turn(encounter, current_actor(encounter, combatants), author)
    encounter.turn += 1
    if encounter.turn >= combat.turns_in_round(encounter, combatants):
        encounter.turn = 0
        encounter.round += 1
        lines += combat.new_round(encounter, combatants)
    actor = current_actor(encounter, combatants)
    if not combat.is_out(actor):
        lines += combat.begin_turn(encounter, actor, author)
    _save(encounter, combatants)
    return lines


def actions_open_to(combat, encounter, actor, combatants, *, by_gm: bool) -> list:
    """The actions ``actor`` may take now, as the GM (``by_gm``) or as its player (no GM-only ones)."""
    return [a for a in combat.actions(encounter, actor, combatants) if by_gm or not a.gm_only]


def may_act_for(user, encounter: Encounter, combatant: Combatant) -> bool:
    """Whether ``user`` may take ``combatant``'s turn: the GM for anyone, a player for their own
    character (never for a quick NPC, which is the GM's)."""
    if encounter.campaign.is_gm(user):
        return True
    return combatant.character is not None and combatant.character.owner_id == user.pk


def numbers_shown(user, encounter: Encounter, combatant: Combatant) -> bool:
    """Whether ``user`` sees ``combatant``'s numbers in the panels, and odds that would give them away
    (an attack on it, a defence against it): the GM always; everyone for a player's character, and
    for an NPC when the campaign shows NPC numbers (campaigns.systems.SHOW_NPC_NUMBERS)."""
    campaign = encounter.campaign
    return campaign.is_gm(user) or not is_npc(combatant) or campaign.option_on(SHOW_NPC_NUMBERS)


def running_encounter(campaign) -> Encounter | None:
    """The fight going on now (the newest, should the GM run two)."""
    return _with_campaign(_running_at.first(campaign.pk), campaign)


@PreparedQuery
def _running_at(campaign_id: int):
    return Encounter.objects.filter(campaign_id=campaign_id, status=Encounter.Status.RUNNING)[:1]


def open_encounter(campaign) -> Encounter | None:
    """The fight the table's encounter panel shows: the first not ended (set up or running), in the
    encounters' own order, as ``campaign.encounters.exclude(ended).first()`` gives it."""
    return _with_campaign(_open_at.first(campaign.pk), campaign)


@PreparedQuery
def _open_at(campaign_id: int):
    return Encounter.objects.filter(campaign_id=campaign_id).exclude(status=Encounter.Status.ENDED)[:1]


def encounter_at(campaign, encounter_id: int) -> Encounter:
    """The campaign's encounter of that id (404 for another campaign's or none), as
    ``campaign.encounters`` would give it: the views' every encounter post reads it first."""
    encounter = _with_campaign(_encounter_at.first(campaign.pk, encounter_id), campaign)
    if encounter is None:
        raise Http404("No such encounter at this table.")
    return encounter


def _with_campaign(encounter: Encounter | None, campaign) -> Encounter | None:
    """A campaign's encounter a look-up found, its campaign set as campaign.encounters would."""
    if encounter is not None:
        Encounter.campaign.field.set_cached_value(encounter, campaign)
    return encounter


@PreparedQuery
def _encounter_at(campaign_id: int, encounter_id: int):
    return Encounter.objects.filter(campaign_id=campaign_id, pk=encounter_id)


@transaction.atomic
def encounter_act(
    *,
    encounter: Encounter,
    version: int,
    actor_id: int,
    action: str,
    target_id: int | None,
    data: Any,
    roller: Roller,
    author,
    prefix: str | None = None,
    resolve_now: bool = False,
) -> list[RollResult]:
    """Do ``action``. ``data`` (a POST, read under ``prefix``) fills the action's own form; the system gets
    only its cleaned data. ``resolve_now``: the GM settles the target's defence with the form's own
    inputs rather than asking the target's player."""
    _claim(encounter, version)
    combatants = combatants_of(encounter)
    said = _said_out(encounter)
    actor = current_actor(encounter, combatants)
    by_gm = encounter.campaign.is_gm(author)
    waiting = _waiting(encounter, combatants)
    if waiting:
        raise EncounterError(waiting)
    if actor is None or actor.pk != actor_id:
        if by_gm or actor is None:
            raise EncounterError("It is not that combatant's turn.")
        raise TurnRefused(f"It is not your turn: it is {actor.name}'s.")
    if not may_act_for(author, encounter, actor):
        raise TurnRefused(f"It is {actor.name}'s turn: only {actor.name}'s player or the GM acts now.")
    combat = combat_for(encounter.campaign)
    offered = {a.key: a for a in actions_open_to(combat, encounter, actor, combatants, by_gm=by_gm)}
    if action not in offered:
        raise EncounterError("That action is not open to this combatant now.")
    target = None
    if offered[action].needs_target:
        target = next((c for c in offered[action].targets if c.pk == target_id), None)
        if target is None:
            raise EncounterError("Pick a target for that action.")
    form_class = offered[action].form_class
    if form_class is not None and not by_gm and offered[action].gm_fields:
        # The GM's calls (a TN, the score an attack rolls) are not on a player's form: one posted anyway
        # is refused, never silently taken or swapped.
        blank = form_class(prefix=prefix)
        sent = [name for name in offered[action].gm_fields if blank.add_prefix(name) in data]
        if sent:
            labels = [str(form_class.base_fields[name].label or name) for name in sent]
            raise EncounterError(f"{', '.join(labels)}: the GM's call, not the player's; leave it to the GM.")
        data = with_initial(data, blank, names=offered[action].gm_fields)
    options = (
        cleaned(form_class, data, prefix=prefix, what=f"the options of {offered[action].label}")
        if form_class is not None
        else {}
    )
    # Aimed at a player's character, the target's player chooses its defence unless the GM resolves now.
    ask = offered[action].defender_chooses and target is not None and has_player(encounter, target)
    try:
        if ask and not (by_gm and resolve_now):
            lines, waits = combat.open_defence(encounter, actor, action, target, options, roller, author)
        else:
            lines, waits = combat.act(encounter, actor, action, target, options, roller, author), None
    except RulesError as error:
        raise EncounterError(str(error)) from None
    if waits is not None:
        encounter.state = {
            **encounter.state,
            DEFENCE: {"attacker": actor.pk, "defender": target.pk, "action": action, "rules": waits},
        }
        _save(encounter, combatants)
        _log(encounter, lines, author=author)
        _announce(encounter, fight_saved=True)
        return lines
    return _after_action(encounter, combatants, actor, action, lines, said, author=author)


def _after_action(
    encounter, combatants, actor, action, lines, said, *, author, defence_answered: bool = False
) -> list[RollResult]:
    """An action done in full: end the turn if it does, pass whoever is out, say if a side has no one
    standing (``said``: the sides said before), save, log, announce (to every turn panel when the turn
    moved on or a waiting defence was answered)."""
    combat = combat_for(encounter.campaign)
    before = (encounter.status, encounter.round, encounter.turn)
    if combat.turn_over(encounter, actor, action):
        lines += _advance(encounter, combatants, author=author)
    lines += _skip_out(encounter, combatants, author=author)
    lines += _side_out_lines(encounter, combatants, said)
    _save(encounter, combatants)
    _log(encounter, lines, author=author)
    moved = (encounter.status, encounter.round, encounter.turn) != before
    _announce(encounter, turn=moved or defence_answered, fight_saved=True)
    return lines


def _defence_parts(encounter: Encounter, combatants: list[Combatant]):
    """(the waiting defence, its attacker, its defender), or an EncounterError when none waits."""
    pending = pending_defence(encounter)
    by_pk = {c.pk: c for c in combatants}
    if pending is None or pending["attacker"] not in by_pk or pending["defender"] not in by_pk:
        raise EncounterError("No attack is waiting for a defence now.")
    return pending, by_pk[pending["attacker"]], by_pk[pending["defender"]]


def defence_of(encounter: Encounter, combatants: list[Combatant]):
    """(the waiting defence's ``Defence``, attacker, defender), or None when no defence waits."""
    try:
        pending, attacker, defender = _defence_parts(encounter, combatants)
    except EncounterError:
        return None
    asked = combat_for(encounter.campaign).defence(encounter, pending["rules"], attacker, defender)
    return asked, attacker, defender


@transaction.atomic
def encounter_defend(
    *,
    encounter: Encounter,
    version: int,
    defender_id: int,
    data: Any,
    roller: Roller,
    author,
    prefix: str | None = "defence",
) -> list[RollResult]:
    """The defender's player (or the GM, without waiting) answers the waiting attack: ``data`` (a POST,
    read under ``prefix``) fills the system's defence form, and the attack resolves with it."""
    _claim(encounter, version)
    combatants = combatants_of(encounter)
    said = _said_out(encounter)
    pending, attacker, defender = _defence_parts(encounter, combatants)
    if defender.pk != defender_id:
        raise EncounterError("That defence is no longer waiting; look again.")
    if not may_act_for(author, encounter, defender):
        raise TurnRefused(f"Only {defender.name}'s player or the GM chooses how {defender.name} defends.")
    combat = combat_for(encounter.campaign)
    asked = combat.defence(encounter, pending["rules"], attacker, defender)
    options = cleaned(asked.form_class, data, prefix=prefix, what="the defence")
    try:
        lines = combat.defend(encounter, pending["rules"], attacker, defender, options, roller, author)
    except RulesError as error:
        raise EncounterError(str(error)) from None
    encounter.state = {k: v for k, v in encounter.state.items() if k != DEFENCE}
    return _after_action(
        encounter, combatants, attacker, pending["action"], lines, said, author=author, defence_answered=True
    )


@transaction.atomic
def encounter_next_turn(*, encounter: Encounter, version: int, author) -> Encounter:
    _claim(encounter, version)
    if encounter.status != Encounter.Status.RUNNING:
        raise EncounterError("The encounter is not running.")
    combatants = combatants_of(encounter)
    held = _waiting(encounter, combatants) or combat_for(encounter.campaign).hold(encounter, combatants)
    if held:
        raise EncounterError(held)
    said = _said_out(encounter)
    lines = _advance(encounter, combatants, author=author)
    lines += _skip_out(encounter, combatants, author=author)
    lines += _side_out_lines(encounter, combatants, said)
    _save(encounter, combatants)
    _log(encounter, lines, author=author)
    _announce(encounter, fight_saved=True)
    return encounter


@transaction.atomic
def encounter_end(*, encounter: Encounter, version: int) -> Encounter:
    _claim(encounter, version)
    encounter.status = Encounter.Status.ENDED
    # An attack still waiting for its defence ends with the fight (its to-hit stays in the feed).
    encounter.state = {k: v for k, v in encounter.state.items() if k != DEFENCE}
    encounter.save(update_fields=["status", "state"])
    _announce(encounter)
    return encounter


@transaction.atomic
def combatant_move(*, encounter: Encounter, version: int, combatant_id: int, direction: str, author) -> None:
    """Swap a combatant with its neighbour in the order, when the system lets the GM set the order now."""
    _claim(encounter, version)
    combatants = combatants_of(encounter)
    combat = combat_for(encounter.campaign)
    waiting = _waiting(encounter, combatants)
    if waiting:
        raise EncounterError(waiting)
    if encounter.status == Encounter.Status.ENDED or not combat.order_settable(encounter, combatants):
        raise EncounterError("The order cannot be changed now.")
    index = next((i for i, c in enumerate(combatants) if c.pk == combatant_id), None)
    if index is None:
        raise EncounterError("That combatant is not in this encounter.")
    other = index - 1 if direction == "up" else index + 1
    if not 0 <= other < len(combatants):
        raise EncounterError(f"{combatants[index].name} is already {'first' if other < 0 else 'last'}.")
    combatants[index], combatants[other] = combatants[other], combatants[index]
    for position, combatant in enumerate(combatants):
        combatant.position = position
    lines = combat.order_changed(encounter, combatants)
    if encounter.status == Encounter.Status.RUNNING:
        lines += _skip_out(encounter, combatants, author=author)
    _save(encounter, combatants)
    _log(encounter, lines, author=author)
    _announce(encounter, fight_saved=True)


@transaction.atomic
def combatant_remove(*, encounter: Encounter, version: int, combatant_id: int) -> None:
    _claim(encounter, version)
    waiting = _waiting(encounter, combatants_of(encounter))
    if waiting:
        raise EncounterError(waiting)
    deleted, _ = encounter.combatants.filter(pk=combatant_id).delete()
    if not deleted:
        raise EncounterError("That combatant is not in this encounter.")
    combatants = combatants_of(encounter)
    for position, combatant in enumerate(combatants):
        combatant.position = position
        combatant.save(update_fields=["position"])
    if combatants:
        encounter.turn %= len(combatants)
        encounter.save(update_fields=["turn"])
    _announce(encounter)
