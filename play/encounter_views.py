"""The GM's encounter pages, and a player's turn panel (on their sheet and at the table) from which they
take their own character's turn. The table's encounter panel is play/encounter_panel.py."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns.forms import compact, row_id
from campaigns.rendering import format_percent
from campaigns.selectors import campaign_for_gm, campaign_for_member, feed_of_encounter
from rules.dice import Roller, system_random
from sheets import selectors as sheet_selectors
from sheets.combat import EncounterError
from sheets.registry import combat_for

from . import encounter_panel, encounters, odds
from .forms import (
    ActForm,
    AddCharacterForm,
    DefendForm,
    EncounterForm,
    MoveForm,
    NpcNameForm,
    OddsForm,
    RemoveForm,
    VersionForm,
    refusal,
    with_initial,
)
from .models import Encounter


def _encounter_context(user, campaign, encounter):
    """The GM's encounter page: the order, and the forms and actions that run the fight."""
    combat = combat_for(campaign)
    combatants = encounters.combatants_of(encounter)
    context = encounter_panel.order_context(user, campaign, encounter, combat, combatants)
    is_gm, actor = context["is_gm"], context["actor"]
    return {
        **context,
        # Whose portrait the GM's page offers to upload (play/portraits.py): a character has its sheet's.
        "quick_npcs": [c for c in combatants if c.character_id is None] if is_gm else [],
        # A waiting defence (the GM's page offers to resolve it without waiting): actions wait for it.
        "defence": odds.defence_item(user, combat, encounter, combatants) if is_gm else None,
        # The actions only the GM's page draws: a player's come in their turn panel.
        "actions": odds.action_items(user, combat, encounter, actor, combatants, by_gm=True)
        if actor is not None and is_gm and encounters.pending_defence(encounter) is None
        else [],
        "npc_form": compact(combat.npc_form_class(prefix="npc")),
        "start_form": compact(combat.start_form_class(prefix="start")) if combat.start_form_class else None,
        "npc_name_form": compact(NpcNameForm(initial={"version": encounter.version})),
        # Before the start, or as reinforcements while the fight runs.
        "addable": _addable(campaign, encounter) if encounter.status != Encounter.Status.ENDED else [],
        # Sides with no one left standing: the GM's page says so and offers to end the fight.
        "sides_out": [encounters.SIDE_NAMES[side] for side in encounters.sides_out(encounter, combatants)]
        if is_gm
        else [],
        # The action log (this encounter's feed entries, as this viewer may see them): a callable, so
        # only a page that shows it (the GM's encounter page) runs the query.
        "log": lambda: feed_of_encounter(user, campaign, encounter_id=encounter.pk),
    }


def encounter_list(request, campaign_id: int):
    campaign = campaign_for_gm(request.user, campaign_id)
    form = EncounterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        encounter = encounters.encounter_create(campaign=campaign, name=form.cleaned_data["name"])
        return redirect(encounter)
    return TemplateResponse(
        request,
        "play/encounters.html",
        {
            "campaign": campaign,
            "form": form,
            "encounters": campaign.encounters.all(),
        },
    )


def encounter_detail(request, campaign_id: int, encounter_id: int):
    campaign = campaign_for_gm(request.user, campaign_id)
    encounter = encounters.encounter_at(campaign, encounter_id)
    # An htmx GET is the page's live refresh: the controls with the log out of band.
    template = "play/encounter.html#encounter-refresh" if request.htmx else "play/encounter.html"
    return TemplateResponse(request, template, _encounter_context(request.user, campaign, encounter))


def _addable(campaign, encounter):
    return campaign.characters.exclude(combatants__encounter=encounter).order_by("is_npc", "name")


def _valid(form: forms.Form, what: str, *others: forms.Form) -> forms.Form:
    """``form`` once it and ``others`` are all valid, else an EncounterError naming each field at fault."""
    if not all([f.is_valid() for f in (form, *others)]):
        raise EncounterError(refusal(what, form, *others))
    return form


def _act(request, encounter, roller) -> None:
    """One action as the action form posts it (the GM's encounter page, a player's turn panel); the
    action's own fields are read from the post under its key."""
    form = _valid(ActForm(request.POST), "the action")
    key = form.cleaned_data["action"]
    encounters.encounter_act(
        encounter=encounter,
        version=form.cleaned_data["version"],
        actor_id=form.cleaned_data["actor"],
        action=key,
        target_id=form.cleaned_data["target"],
        data=request.POST,
        prefix=key,
        roller=roller,
        author=request.user,
        resolve_now=form.cleaned_data["resolve_now"],
    )


def _defend(request, encounter, roller) -> None:
    """The waiting defence as its form posts it (the player's turn panel, or the GM without waiting)."""
    form = _valid(DefendForm(request.POST), "the defence")
    encounters.encounter_defend(
        encounter=encounter,
        version=form.cleaned_data["version"],
        defender_id=form.cleaned_data["defender"],
        data=request.POST,
        prefix=odds.DEFENCE_PREFIX,
        roller=roller,
        author=request.user,
    )


@require_POST
def encounter_action(request, campaign_id: int, encounter_id: int, verb: str):
    campaign = campaign_for_gm(request.user, campaign_id)
    encounter = encounters.encounter_at(campaign, encounter_id)
    post = request.POST
    roller = Roller(system_random())
    try:
        if verb == "add-character":
            form = _valid(AddCharacterForm(post, characters=_addable(campaign, encounter)), "the character")
            encounters.combatant_add_character(
                encounter=encounter,
                character=form.cleaned_data["character"],
                version=form.cleaned_data["version"],
                roller=roller,
                author=request.user,
            )
        elif verb == "add-npc":
            return _add_npc(request, campaign, encounter, roller)
        elif verb == "start":
            form = _valid(VersionForm(post), "the start")
            encounters.encounter_start(
                encounter=encounter,
                version=form.cleaned_data["version"],
                roller=roller,
                author=request.user,
                data=post,
                prefix="start",
            )
        elif verb == "act":
            _act(request, encounter, roller)
        elif verb == "defend":
            _defend(request, encounter, roller)
        elif verb == "next":
            form = _valid(VersionForm(post), "the turn")
            encounters.encounter_next_turn(
                encounter=encounter, version=form.cleaned_data["version"], author=request.user
            )
        elif verb == "end":
            form = _valid(VersionForm(post), "the end")
            encounters.encounter_end(encounter=encounter, version=form.cleaned_data["version"])
        elif verb == "move":
            form = _valid(MoveForm(post), "the move")
            encounters.combatant_move(
                encounter=encounter,
                version=form.cleaned_data["version"],
                combatant_id=form.cleaned_data["combatant"],
                direction=form.cleaned_data["direction"],
                author=request.user,
            )
        elif verb == "remove":
            form = _valid(RemoveForm(post), "the removal")
            encounters.combatant_remove(
                encounter=encounter,
                version=form.cleaned_data["version"],
                combatant_id=form.cleaned_data["combatant"],
            )
        else:
            raise EncounterError("Unknown encounter action.")
    except EncounterError as refused:
        messages.error(request, str(refused))
    return redirect(encounter)


def _add_npc(request, campaign, encounter, roller):
    """Add a quick NPC (before the start, or as a reinforcement); a refusal draws the page again with what
    was typed and each message on its field."""
    data = request.POST.copy()
    name_form = NpcNameForm(data)
    npc_form = combat_for(campaign).npc_form_class(data, prefix="npc")
    if name_form.is_valid() & npc_form.is_valid():  # & rather than and: every field gets its message
        try:
            encounters.combatant_add_npc(
                encounter=encounter,
                name=name_form.cleaned_data["name"],
                cleaned_data=npc_form.cleaned_data,
                version=name_form.cleaned_data["version"],
                roller=roller,
                author=request.user,
            )
        except EncounterError as refused:
            name_form.add_error(None, str(refused))
            encounter.refresh_from_db()  # a refused join claimed the version in memory only
        else:
            return redirect(encounter)
    if encounter.status == Encounter.Status.ENDED:  # the page has no NPC form to put the messages on now
        messages.error(request, refusal("the NPC", name_form, npc_form))
        return redirect(encounter)
    # Forms draw from their data: the page below shows the encounter as it is now, so its version goes out
    # with the retry (the messages were worked out already).
    data["version"] = str(encounter.version)
    context = _encounter_context(request.user, campaign, encounter)
    context.update(npc_name_form=_marked(compact(name_form)), npc_form=_marked(compact(npc_form)))
    template = "play/encounter.html#encounter-controls" if request.htmx else "play/encounter.html"
    return TemplateResponse(request, template, context, status=422 if request.htmx else 200)


def _marked(form: forms.Form) -> forms.Form:
    """Bootstrap's red outline on each field at fault, tied to its message for screen readers."""
    for name, errors in form.errors.items():
        if name in form.fields and errors and not form.fields[name].widget.is_hidden:
            attrs = form.fields[name].widget.attrs
            attrs["class"] = f"{attrs.get('class', '')} is-invalid".strip()
            help_id = f"{form[name].auto_id}_helptext" if form.fields[name].help_text else ""
            attrs["aria-describedby"] = f"{form[name].auto_id}-error {help_id}".strip()
            attrs["aria-invalid"] = "true"
    return form


def defence_odds(request, campaign_id: int, encounter_id: int):
    """The odds of the waiting defence as its form stands now (re-priced when an input changes)."""
    campaign = campaign_for_member(request.user, campaign_id)
    encounter = encounters.encounter_at(campaign, encounter_id)
    percent = ""
    found = encounters.defence_of(encounter, encounters.combatants_of(encounter))
    if found is not None:  # else the defence was answered: the panel's refresh is on its way
        asked, attacker, defender = found
        if not encounters.may_act_for(request.user, encounter, defender):
            return HttpResponse(
                "Only that combatant's player or the GM can see those odds.",
                status=403,
                content_type="text/plain",
            )
        if asked.own_odds or encounters.numbers_shown(request.user, encounter, attacker):
            percent = odds.defence_percent(
                combat_for(campaign), encounter, attacker, defender, asked, request.GET
            )
    return TemplateResponse(request, "play/_action_form.html#odds", {"percent": percent})


def encounter_odds(request, campaign_id: int, encounter_id: int):
    """The odds of one action as its form stands now (re-priced when an input changes)."""
    campaign = campaign_for_member(request.user, campaign_id)
    encounter = encounters.encounter_at(campaign, encounter_id)
    form = OddsForm(request.GET)
    percent = ""
    if form.is_valid():
        combatants = encounters.combatants_of(encounter)
        actor = encounters.current_actor(encounter, combatants)
        if actor is None or actor.pk != form.cleaned_data["actor"]:
            pass  # the turn moved on: the panel's refresh is on its way
        elif not encounters.may_act_for(request.user, encounter, actor):
            return HttpResponse(
                "Only that combatant's player or the GM can see those odds.",
                status=403,
                content_type="text/plain",
            )
        else:
            combat = combat_for(campaign)
            by_gm = campaign.is_gm(request.user)
            offered = encounters.actions_open_to(combat, encounter, actor, combatants, by_gm=by_gm)
            action = next((a for a in offered if a.key == form.cleaned_data["action"]), None)
            if action is not None:
                target = next((c for c in action.targets if c.pk == form.cleaned_data["target"]), None)
                data = request.GET
                if action.form_class is not None and not by_gm and action.gm_fields:
                    blank = action.form_class(prefix=action.key)
                    data = with_initial(data, blank, names=action.gm_fields)
                if odds.priced(request.user, encounter, action, target):
                    percent = format_percent(
                        odds.action_chance(combat, encounter, actor, action, target, data)
                    )
    return TemplateResponse(request, "play/_action_form.html#odds", {"percent": percent})


# ----- a player's turn panel --------------------------------------------------------------------


def _turn_context(request, campaign, character=None, moved=None) -> dict | None:
    """What a player's turn panel shows: None for whoever gets no panel at all (the GM, who runs every
    turn from the encounter page; another player's sheet); else the panel, empty outside a fight.
    ``moved``: the fight this request's move saved (play.encounters.fight_of)."""
    user = request.user
    if campaign.is_gm(user) or (character is not None and character.owner_id != user.pk):
        return None
    context = {
        "campaign": campaign,
        "character": character,
        "refresh_url": reverse("sheet_turn", args=[character.pk])
        if character is not None
        else reverse("turn_panel", args=[campaign.pk]),
        "encounter": None,
        "my_turn": False,
        # Which refresh the panel follows: "turn" (whose turn, the round, a waiting defence, who fights),
        # or every change of the encounter where it shows one: the acting player's actions, a defence to
        # choose, a sheet's latest lines (play.encounters._announce).
        "live_panel": "turn",
    }
    encounter = encounters.running_encounter(campaign)
    if encounter is None:
        return context
    combatants = encounters.fight_of(encounter, moved)
    mine = [
        c
        for c in combatants
        if c.character is not None
        and c.character.owner_id == user.pk
        and (character is None or c.character_id == character.pk)
    ]
    if not mine:
        return context
    combat = combat_for(campaign)
    actor = encounters.current_actor(encounter, combatants)
    # A waiting defence holds the fight up: its defender's player gets the prompt, the rest are told.
    pending, defence = encounters.pending_defence(encounter), None
    if pending is not None and any(c.pk == pending["defender"] for c in mine):
        defence = odds.defence_item(user, combat, encounter, combatants)
    elif pending is not None:
        context["waiting_on"] = next((c for c in combatants if c.pk == pending["defender"]), None)
    my_turn = actor is not None and any(c.pk == actor.pk for c in mine) and pending is None
    if my_turn or defence is not None or character is not None:
        context["live_panel"] = "encounter"
    context.update(
        encounter=encounter,
        actor=actor,
        my_turn=my_turn,
        defence=defence,
        actions=odds.action_items(user, combat, encounter, actor, combatants, by_gm=False) if my_turn else [],
        # The sheet has no feed beside it: the fight's latest lines, as this player may see them.
        latest=feed_of_encounter(user, campaign, encounter_id=encounter.pk, limit=3)
        if character is not None
        else [],
    )
    return context


def _turn_html(request, context) -> str:
    return "" if context is None else render_to_string("play/_turn_panel.html", context, request=request)


def table_turn_panel(request, *, campaign):
    """The player's turn panel on the table page, rendered with the page."""
    return _turn_html(request, _turn_context(request, campaign))


def sheet_turn_panel(request, *, campaign, character):
    """The player's turn panel on their character's sheet, rendered with the page."""
    return _turn_html(request, _turn_context(request, campaign, character))


def _turn_response(request, campaign, character=None, *, error: str = "", status: int = 200, moved=None):
    context = _turn_context(request, campaign, character, moved)
    if context is None:
        return HttpResponse(status=204)
    # Fetched again (a live refresh or an action's answer): the announcement is put in the page's own
    # live region out of band, so screen readers hear the change.
    context.update(error=error, oob=True)
    return TemplateResponse(request, "play/_turn_panel.html", context, status=status)


def turn_panel(request, campaign_id: int):
    """The table page's turn panel, as its live refresh fetches it."""
    return _turn_response(request, campaign_for_member(request.user, campaign_id))


def sheet_turn(request, character_id: int):
    """A sheet's turn panel, as its live refresh fetches it."""
    character = sheet_selectors.character_for_viewer(request.user, character_id)
    return _turn_response(request, character.campaign, character)


def _turn_post(request, campaign_id: int, encounter_id: int, do):
    """A post from a player's turn panel (``do``: act or defend); the answer is the panel again, with the
    refusal on it, or without htmx a redirect back with the message."""
    campaign = campaign_for_member(request.user, campaign_id)
    encounter = encounters.encounter_at(campaign, encounter_id)
    character = None
    if request.POST.get("character"):
        character = sheet_selectors.character_for_viewer(request.user, row_id(request.POST["character"]))
        if character.campaign_id != campaign.pk:
            character = None
    error, status, moved = "", 200, None
    try:
        do(request, encounter, Roller(system_random()))
        moved = encounter  # its fight as the move saved it
    except encounters.TurnRefused as refused:
        error, status = str(refused), 403
    except EncounterError as refused:
        error, status = str(refused), 422
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(character.get_absolute_url() if character else reverse("table", args=[campaign.pk]))
    if status == 403:
        return HttpResponse(error, status=403, content_type="text/plain")
    return _turn_response(request, campaign, character, error=error, status=status, moved=moved)


@require_POST
def turn_act(request, campaign_id: int, encounter_id: int):
    """A player takes their own character's turn (the GM may too): one action from the turn panel."""
    return _turn_post(request, campaign_id, encounter_id, _act)


@require_POST
def turn_defend(request, campaign_id: int, encounter_id: int):
    """A player answers the attack waiting on their character (the GM may too): their defence."""
    return _turn_post(request, campaign_id, encounter_id, _defend)
