"""Experience on any sheet: the GM awards XP, the character's player spends it on what the system offers.

A system opts in by returning a number from :meth:`SheetSystem.xp`; the prices, caps and what can be
bought are its own (``xp_spends`` / ``xp_spend``). Here: asking the write policy who may do it
(sheets/policy.py), reading the form, the messages.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from . import policy, selectors
from .forms import XpAwardForm, XpSpendForm
from .registry import system_for


def _character_with_xp(request, character_id: int):
    character = selectors.character_for_viewer(request.user, character_id)
    system = system_for(character.campaign)
    if system.xp(character) is None:
        raise Http404("This sheet has no experience to award or spend.")
    return character, system


def _refusal(form) -> str:
    return " ".join(" ".join(errors) for errors in form.errors.values())


@require_POST
def xp_award(request, character_id: int):
    character, system = _character_with_xp(request, character_id)
    verdict = policy.may_award_xp(request.user, character)
    if not verdict:
        raise PermissionDenied(verdict.reason)
    form = XpAwardForm(request.POST, most=system.xp_award_max)
    if not form.is_valid():
        messages.error(request, _refusal(form))
        return redirect("sheet", character_id=character.pk)
    amount = form.cleaned_data["amount"]
    try:
        system.xp_award(character=character, amount=amount, author=request.user)
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"{character.name} gains {amount} XP.")
    return redirect("sheet", character_id=character.pk)


@require_POST
def xp_spend(request, character_id: int):
    character, system = _character_with_xp(request, character_id)
    verdict = policy.may_spend_xp(request.user, character)
    if not verdict:
        raise PermissionDenied(verdict.reason)
    form = XpSpendForm(request.POST)
    if not form.is_valid():
        messages.error(request, _refusal(form))
        return redirect("sheet", character_id=character.pk)
    key, seen = form.cleaned_data["offer"]
    try:
        cost = system.xp_spend(
            character=character, key=key, expected=seen, name=form.cleaned_data["name"], author=request.user
        )
    except KeyError:
        messages.error(request, "That is not something this sheet can buy with XP; pick from the list.")
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"Spent {cost} XP.")
    return redirect("sheet", character_id=character.pk)
