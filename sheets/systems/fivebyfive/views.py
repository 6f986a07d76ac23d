"""Five by Five between rolls: the GM's "time passes" for a dying character, and days of natural recovery."""

from django.core.exceptions import PermissionDenied
from django.views.decorators.http import require_POST

from sheets import selectors
from sheets.views import sheet_action

from . import sheet as fivebyfive


def _sentence(said: str) -> str:
    return said[:1].upper() + said[1:] + "."


@require_POST
def time_passes(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=fivebyfive.system.key)
    # How long the scene took is the GM's call, not something a player shortens or skips.
    if not character.campaign.is_gm(request.user):
        raise PermissionDenied("Only the GM says how much time passes.")
    return sheet_action(
        request,
        character,
        lambda data, seen: fivebyfive.time_passes(
            character=character, minutes=data["minutes"], author=request.user, seen_version=seen
        ),
        _sentence,
        form=fivebyfive.TimePassesForm(request.POST, prefix="time"),
    )


@require_POST
def rest(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=fivebyfive.system.key)
    return sheet_action(
        request,
        character,
        lambda data, seen: fivebyfive.rest(
            character=character, days=data["days"], author=request.user, seen_version=seen
        ),
        _sentence,
        form=fivebyfive.RestForm(request.POST, prefix="rest"),
    )
