"""The GM asks characters for a roll; each player answers with one click on their sheet."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from campaigns import realtime
from rules.dice import Roller
from sheets import services
from sheets.models import Character
from sheets.registry import system_for

from .models import RollRequest, RollRequestTarget


class RequestError(Exception):
    """A roll request that cannot be made or answered; the message is shown to the user."""


@transaction.atomic
def roll_request_create(
    *,
    campaign,
    gm,
    label: str,
    characters,
    options: dict[str, Any],
    roll_key: str = "",
    visibility: str = "public",
) -> RollRequest:
    characters = list(characters)
    if not characters:
        raise RequestError("Pick at least one character to ask.")
    if any(c.campaign_id != campaign.pk for c in characters):
        raise RequestError("Only characters at this table can be asked.")
    request = RollRequest(
        campaign=campaign,
        created_by=gm,
        label=label.strip()[:120] or "Roll",
        roll_key=roll_key,
        options=options,
        visibility=visibility,
    )
    request.full_clean()
    request.save()
    RollRequestTarget.objects.bulk_create(RollRequestTarget(request=request, character=c) for c in characters)
    realtime.panel_changed(campaign_id=campaign.pk, panel="requests")
    return request


def open_requests_for(character: Character):
    """Requests waiting for this character's answer, oldest first."""
    return (
        RollRequestTarget.objects.filter(character=character, entry__isnull=True, request__open=True)
        .select_related("request")
        .order_by("request__created_at", "pk")
    )


@transaction.atomic
def roll_request_answer(*, target: RollRequestTarget, key: str, roller: Roller, author):
    """Roll what the GM asked for with the GM's options; the answer is a feed entry linked to the request."""
    target = (
        RollRequestTarget.objects.select_for_update().select_related("request", "character").get(pk=target.pk)
    )
    if target.entry_id is not None or not target.request.open:
        raise RequestError("That roll was already made.")
    request = target.request
    if request.roll_key and key != request.roll_key:
        raise RequestError("Roll what the GM asked for.")
    character = target.character
    system = system_for(character.campaign)
    form = system.options_form(character=character, data=request.options)
    if not form.is_valid():
        raise ValidationError("The GM's options no longer fit this sheet; ask the GM for a new request.")
    entry, _ = services.character_roll(
        character=character,
        key=key,
        options=form.cleaned_data,
        roller=roller,
        author=author,
        visibility=request.visibility,
    )
    target.entry = entry
    target.save(update_fields=["entry"])
    realtime.panel_changed(campaign_id=character.campaign_id, panel="requests")
    return entry


def requests_for_gm(campaign, *, limit: int = 10):
    """The GM's latest requests, with each character's answer so far."""
    return campaign.roll_requests.prefetch_related("targets__character", "targets__entry").order_by(
        "-created_at", "-pk"
    )[:limit]
