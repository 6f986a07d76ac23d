"""FREE/FALL's own page: the sheet's gear and programs, changed after creation; rest; repairs; spending."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from sheets import policy, selectors
from sheets.forms import STALE_MESSAGE, seen_version
from sheets.models import StaleVersion
from sheets.policy import Kind
from sheets.views import sheet_action

from .kit import FreeFallKitForm, kit_update, repair, rest, spend
from .sheet import system as freefall


@require_POST
def sheet_rest(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=freefall.key)
    try:
        # A rest on the player's word clears harm and gives points back with no roll: play state by hand.
        rested = policy.by_hand(
            request.user,
            character,
            Kind.PLAY,
            "Harm",
            lambda: rest(character=character, author=request.user, seen_version=seen_version(request.POST)),
            lambda rested: "a rest: temporary harm cleared, spent points back" if rested else "",
        )
    except StaleVersion:
        messages.error(request, STALE_MESSAGE)
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        if rested:
            messages.success(request, f"{character.name} rests: temporary harm cleared, spent points back.")
        else:
            messages.info(request, f"{character.name} is already rested.")
    return redirect(character)


@require_POST
def gear_repair(request, character_id: int, gear_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=freefall.key)
    return sheet_action(
        request,
        character,
        # The seed asks no cost or roll for a repair: the item's condition is set on the player's word.
        lambda _, seen: policy.by_hand(
            request.user,
            character,
            Kind.PLAY,
            "A gear item's condition",
            lambda: repair(character=character, gear_id=gear_id, author=request.user, seen_version=seen),
            lambda row: f"{row.name} repaired: intact again",
        ),
        lambda row: f"{row.name} is repaired: intact again.",
    )


@require_POST
def attribute_spend(request, character_id: int, attribute: str):
    character = selectors.character_for_editor(request.user, character_id, system=freefall.key)

    def act(_, seen):
        return spend(character=character, attribute=attribute, author=request.user, seen_version=seen)

    return sheet_action(
        request, character, act, lambda left: f"{character.name} spends 1 {attribute.upper()}: {left} left."
    )


def kit(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=freefall.key)
    data = request.POST if request.method == "POST" else None
    form = FreeFallKitForm(character, data)
    status = 200
    if data is not None and form.is_bound:
        # Gear and programs are the kit, checked by the form as the builder checks them.
        verdict = policy.may_change(request.user, character, Kind.KIT, "Gear and programs")
        if not verdict:
            form.add_error(None, verdict.reason)
        elif form.is_valid():
            try:
                kit_update(character=character, form=form, author=request.user)
            except StaleVersion:
                form.add_error(None, "The sheet changed since this page was loaded; reload it and retry.")
            else:
                messages.success(request, f"{character.name}'s gear and programs are saved.")
                return redirect(character)
        status = 422 if request.htmx else 200
    return TemplateResponse(
        request,
        "freefall/kit.html",
        {"character": character, "campaign": character.campaign, "form": form},
        status=status,
    )
