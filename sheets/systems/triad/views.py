"""Triad between fights: resting to recover points, and traits gained or lost (advancement, fixes)."""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from campaigns.forms import IdField
from sheets import selectors
from sheets.forms import STALE_MESSAGE, seen_version
from sheets.models import StaleVersion

from . import sheet as triad


class TraitRemoveForm(forms.Form):
    trait = IdField(label="Trait", error_messages={"required": "Pick the trait to remove."})


def _triad_character(request, character_id: int):
    """The character if the user may change its sheet (its player or the GM) and it plays Triad."""
    character = selectors.character_for_editor(request.user, character_id)
    if character.campaign.system != triad.system.key:
        raise Http404("This sheet is not a Triad sheet.")
    return character


def _refused(request, form: forms.Form) -> None:
    """Each error with the label of the field at fault, as one message above the sheet."""
    for name, errors in form.errors.items():
        text = " ".join(errors)
        label = form.fields[name].label if name in form.fields else ""
        messages.error(request, f"{label}: {text}" if label and not text.startswith(label) else text)


def _refusal_messages(request, refused: ValidationError) -> None:
    if hasattr(refused, "error_dict"):
        for name, errors in refused.message_dict.items():
            label = triad.ABILITY_LABELS.get(name, name.title())
            messages.error(request, f"Points to {label}: " + " ".join(errors))
    else:
        messages.error(request, " ".join(refused.messages))


def _sheet_action(request, character, form: forms.Form, act, done):
    """Validate the form, run ``act(cleaned_data, seen_version)`` and say how it went above the sheet.

    ``done(result)`` words the success; a page that missed a change, or a rule that refuses, gets its
    message and nothing changes.
    """
    if not form.is_valid():
        _refused(request, form)
    else:
        try:
            result = act(form.cleaned_data, seen_version(request.POST))
        except StaleVersion:
            messages.error(request, STALE_MESSAGE)
        except ValidationError as refused:
            _refusal_messages(request, refused)
        else:
            messages.success(request, done(result))
    return redirect("sheet", character_id=character.pk)


@require_POST
def rest(request, character_id: int):
    character = _triad_character(request, character_id)
    return _sheet_action(
        request,
        character,
        triad.RestForm(request.POST, prefix="rest"),
        lambda data, seen: triad.rest(
            character=character,
            hours=data["hours"],
            split=data["split"],
            author=request.user,
            seen_version=seen,
        ),
        lambda changes: "Rested: " + (", ".join(changes) or "nothing needed recovering."),
    )


@require_POST
def trait_add(request, character_id: int):
    character = _triad_character(request, character_id)
    return _sheet_action(
        request,
        character,
        triad.TraitAddForm(request.POST, prefix="trait"),
        lambda data, seen: triad.trait_add(
            character=character, trait=data["trait"], author=request.user, seen_version=seen
        ),
        lambda row: f"Added {row.name}.",
    )


@require_POST
def trait_remove(request, character_id: int):
    character = _triad_character(request, character_id)
    return _sheet_action(
        request,
        character,
        TraitRemoveForm(request.POST),
        lambda data, seen: triad.trait_remove(
            character=character, trait_id=data["trait"], author=request.user, seen_version=seen
        ),
        lambda name: f"Removed {name}.",
    )
