"""Five by Five experience: the GM awards XP, the player spends it to raise a descriptor a rank."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from sheets import selectors

from . import sheet as fivebyfive


def _fivebyfive_character(request, character_id: int):
    character = selectors.character_for_viewer(request.user, character_id)
    if character.campaign.system != fivebyfive.system.key:
        raise Http404("This sheet has no Five by Five experience.")
    return character


@require_POST
def xp_award(request, character_id: int):
    character = _fivebyfive_character(request, character_id)
    if not character.campaign.is_gm(request.user):
        raise PermissionDenied("Only the GM awards XP.")
    try:
        amount = int(request.POST.get("amount", ""))
    except ValueError:
        amount = 0
    try:
        fivebyfive.xp_award(character=character, amount=amount, author=request.user)
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"{character.name} gains {amount} XP.")
    return redirect("sheet", character_id=character.pk)


@require_POST
def xp_spend(request, character_id: int):
    character = _fivebyfive_character(request, character_id)
    if character.owner_id != request.user.pk:
        raise PermissionDenied("Only the character's player spends its XP.")
    # The option carries the value the player saw ("<descriptor>@<value>"), so a second click is refused.
    key, _, seen = request.POST.get("descriptor", "").partition("@")
    try:
        expected_value = int(seen)
    except ValueError:
        expected_value = None
    try:
        cost = fivebyfive.xp_raise(
            character=character, key=key, expected_value=expected_value, author=request.user
        )
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"Spent {cost} XP.")
    return redirect("sheet", character_id=character.pk)
