"""The table's encounter panel: the turn order as each seat sees it (NPC numbers only for whoever sees
them), and the digest of what each seat sees (the players all alike, the GM), which the "encounter"
refresh frames carry (campaigns.realtime.shows). The GM's encounter page draws the same order
(play/encounter_views.py)."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.template.context_processors import csrf
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse

from campaigns import realtime
from campaigns.models import Campaign
from campaigns.prepared import PreparedQuery
from campaigns.selectors import campaign_for_member
from sheets.registry import combat_for
from sheets.selectors import sheet_shown

from . import encounters
from .encounter_html import panel_body_html


def order_context(user, campaign, encounter, combat, combatants) -> dict:
    """What the turn order draws (play.encounter_html.order_html), for ``user``: all the table's
    encounter panel needs, and the start of the GM's page."""
    actor = encounters.current_actor(encounter, combatants)
    is_gm = campaign.is_gm(user)
    return {
        "campaign": campaign,
        "encounter": encounter,
        "is_gm": is_gm,
        "actor": actor,
        "can_reorder": is_gm and combat.order_settable(encounter, combatants),
        "rows": [_row(user, combat, encounter, c, actor, is_gm=is_gm) for c in combatants],
    }


def _row(user, combat, encounter, combatant, actor, *, is_gm: bool) -> dict:
    """One combatant in the order: its numbers (and initiative) only for a viewer who sees them."""
    shown = encounters.numbers_shown(user, encounter, combatant)
    return {
        "combatant": combatant,
        "summary": combat.summary(combatant, for_gm=shown),
        "initiative": combatant.initiative if shown else None,
        "out": combat.is_out(combatant),
        "current": actor is not None and combatant.pk == actor.pk,
        "portrait": _portrait_src(encounter, combatant, is_gm=is_gm),
        "badge_key": combatant.character_id or combatant.pk,
    }


def _portrait_src(encounter, combatant, *, is_gm: bool) -> str:
    """The address of the combatant's portrait as this viewer may see it, "" for its badge: a character's
    as its sheet is shown (an NPC's is the GM's alone), a quick NPC's to the whole table
    (play/portraits.py). The stored name rides in the query: a new portrait is a new address, so no
    browser shows the old one."""
    character = combatant.character
    if character is not None and character.portrait and sheet_shown(character, is_gm=is_gm):
        return f"{reverse('portrait', args=[character.pk])}?v={character.portrait}"
    if combatant.portrait:
        where = [encounter.campaign_id, encounter.pk, combatant.pk]
        return f"{reverse('npc_portrait', args=where)}?v={combatant.portrait}"
    return ""


def _fight(campaign, moved=None) -> tuple:
    """The campaign's open encounter and its combatants, (None, ()) where there is none; ``moved``: the
    fight a change just saved (play.encounters.fight_of)."""
    encounter = encounters.open_encounter(campaign)
    if encounter is None:
        return None, ()
    return encounter, encounters.fight_of(encounter, moved)


def _panel_context(user, campaign, request=None, fight=None) -> dict:
    """The table's encounter panel for ``user``: its body drawn, and the digest of what it shows
    (campaigns.realtime.shows), which the encounter's refresh frames carry too, each seat its own view's.
    ``fight``: the open encounter and its combatants, where they were read already."""
    encounter, combatants = fight or _fight(campaign)
    if encounter is None:
        context = {"campaign": campaign, "encounter": None, "is_gm": campaign.is_gm(user)}
    else:
        context = order_context(user, campaign, encounter, combat_for(campaign), combatants)
    # The GM's controls carry the request's CSRF token. The digest sets it aside (realtime.shows), so it
    # agrees with the frame's, drawn without a request (seat_views). A player's body is drawn without
    # it, as seat_views draws it: it is the same for every player, so the page's digest and the frame's
    # agree.
    token = csrf(request)["csrf_token"] if context["is_gm"] and request is not None else None
    body = panel_body_html(context, token)
    return {**context, "body": body, "shows": realtime.shows(body)}


def table_encounter_panel(request, *, campaign):
    """The encounter panel on the table page, rendered with the page."""
    context = _panel_context(request.user, campaign, request)
    return render_to_string("play/encounter_panel.html", context, request=request)


def encounter_panel(request, campaign_id: int):
    """The running encounter as every seat sees it (NPC numbers only for the GM)."""
    campaign = campaign_for_member(request.user, campaign_id)
    context = _panel_context(request.user, campaign, request)
    return TemplateResponse(request, "play/encounter_panel.html", context)


# Read after every change to a fight (realtime.event), beside the hit's own work.
_campaign_and_gm = PreparedQuery(
    lambda campaign_id: Campaign.objects.select_related("gm").filter(pk=campaign_id)
)


def seat_views(campaign_id: int, moved=None) -> tuple[str, str]:
    """The encounter panel's body as every player at the table sees it, and as the campaign's GM sees it
    (NPC numbers and all), from one reading of the fight (or the fight a move holds, ``moved``: see
    _fight): what the "encounter" refresh frame's digests are taken of (hooks.register_seat_views), the
    GM's sent to the GM's sockets only (campaigns.consumers). The players' is drawn as no one in
    particular: a player's view depends on no player (play.encounters.numbers_shown)."""
    campaign = _campaign_and_gm.first(campaign_id)
    if campaign is None:  # deleted since the change: no table is left to draw it for
        return "", ""
    fight = _fight(campaign, moved)
    players = _panel_context(AnonymousUser(), campaign, fight=fight)["body"]
    return players, _panel_context(campaign.gm, campaign, fight=fight)["body"]
