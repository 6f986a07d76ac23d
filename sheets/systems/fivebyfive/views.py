"""Five by Five between rolls: the GM's "time passes" for a dying character, and days of natural recovery."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from sheets import selectors
from sheets.forms import STALE_MESSAGE, seen_version
from sheets.models import StaleVersion

from . import sheet as fivebyfive


def _fivebyfive_character(request, character_id: int):
    """The character if the user may change its sheet (its player or the GM) and it plays Five by Five."""
    character = selectors.character_for_editor(request.user, character_id)
    if character.campaign.system != fivebyfive.system.key:
        raise Http404("This sheet is not a Five by Five sheet.")
    return character


def _sheet_action(request, character, form: forms.Form, act):
    """Validate the form, run ``act(cleaned_data, seen_version)`` and say how it went above the sheet."""
    if not form.is_valid():
        for errors in form.errors.values():
            messages.error(request, " ".join(errors))
    else:
        try:
            said = act(form.cleaned_data, seen_version(request.POST))
        except StaleVersion:
            messages.error(request, STALE_MESSAGE)
        except ValidationError as refused:
            messages.error(request, " ".join(refused.messages))
        else:
            messages.success(request, said[:1].upper() + said[1:] + ".")
    return redirect("sheet", character_id=character.pk)


@require_POST
def time_passes(request, character_id: int):
    character = _fivebyfive_character(request, character_id)
    # How long the scene took is the GM's call, not something a player shortens or skips.
    if not character.campaign.is_gm(request.user):
        raise PermissionDenied("Only the GM says how much time passes.")
    return _sheet_action(
        request,
        character,
        fivebyfive.TimePassesForm(request.POST, prefix="time"),
        lambda data, seen: fivebyfive.time_passes(
            character=character, minutes=data["minutes"], author=request.user, seen_version=seen
        ),
    )


@require_POST
def rest(request, character_id: int):
    character = _fivebyfive_character(request, character_id)
    return _sheet_action(
        request,
        character,
        fivebyfive.RestForm(request.POST, prefix="rest"),
        lambda data, seen: fivebyfive.rest(
            character=character, days=data["days"], author=request.user, seen_version=seen
        ),
    )
