"""A quick NPC's portrait: the GM uploads it from the encounter page, the whole table sees it in the order.

A quick NPC (a ``Combatant`` with no character) has no sheet, so its image hangs on the combatant. It is
checked, re-encoded, stored and swapped by the very code that does a character's (``sheets/portraits.py``).
Unlike an NPC character's sheet, nothing about it is the GM's secret: every seat sees the NPC in the turn
order, so every seat may load its picture; anyone else gets 404. Only the GM changes it
(``campaign_for_gm``: 404 to outsiders, 403 to players). A combatant deleted (removed from the order, or
with its encounter or campaign) takes its file along once the deletion is committed.
"""

from __future__ import annotations

from django.db import transaction
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_http_methods, require_POST

from campaigns import realtime
from campaigns.selectors import campaign_for_gm, campaign_for_member
from sheets import portraits

from .models import Combatant


def _quick_npc(campaign, encounter_id: int, combatant_id: int) -> Combatant:
    return get_object_or_404(
        Combatant.objects.select_related("encounter"),
        encounter__campaign=campaign,
        encounter_id=encounter_id,
        pk=combatant_id,
        character__isnull=True,
    )


def _order_changed(npc: Combatant):
    # Every open turn order (the table's panel, the GM's page) fetches itself again with the new picture.
    return lambda: realtime.panel_changed(campaign_id=npc.encounter.campaign_id, panel="encounter")


@require_http_methods(["GET", "HEAD", "POST"])
def npc_portrait(request, campaign_id: int, encounter_id: int, combatant_id: int):
    """GET: the quick NPC's image, to everyone seated at the table (404 to anyone else, and when there is
    none). POST: a new one, from the GM's encounter page."""
    if request.method == "POST":
        npc = _quick_npc(campaign_for_gm(request.user, campaign_id), encounter_id, combatant_id)
        return portraits.upload_to(request, npc, also=_order_changed(npc), back=npc.encounter)
    npc = _quick_npc(campaign_for_member(request.user, campaign_id), encounter_id, combatant_id)
    return portraits.image_response(npc.portrait)


@require_POST
def npc_portrait_remove(request, campaign_id: int, encounter_id: int, combatant_id: int):
    npc = _quick_npc(campaign_for_gm(request.user, campaign_id), encounter_id, combatant_id)
    return portraits.remove_from(request, npc, also=_order_changed(npc), back=npc.encounter)


def combatant_deleted(sender, instance: Combatant, **kwargs) -> None:
    """``post_delete`` of a combatant: its file goes once the deletion is committed (at once outside a
    transaction), as a replaced portrait's does."""
    if instance.portrait:
        transaction.on_commit(lambda: portraits.discard(instance.portrait))
