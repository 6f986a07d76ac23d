"""Triad's builder count as the player types, and Triad between fights: resting to recover points, and
traits gained or lost (advancement, fixes)."""

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_POST

from campaigns.forms import IdField
from campaigns.selectors import campaign_for_member
from sheets import policy, selectors
from sheets.policy import Kind
from sheets.views import sheet_action

from . import actions
from .base import ABILITY_LABELS
from .sheet import system


@require_POST
def triad_builder_preview(request, campaign_id: int):
    """The builder's running count of points, traits and powers against the tier for what is typed so
    far: the same count the page is sent with (TriadBuilderForm.tally); nothing is validated or saved."""
    campaign = campaign_for_member(request.user, campaign_id)
    if campaign.system != system.key:
        raise Http404("This campaign does not play Triad.")
    form = system.builder_form(campaign=campaign, data=request.POST)
    return TemplateResponse(request, "triad/builder.html#counts", {"tally": form.tally()})


class TraitRemoveForm(forms.Form):
    trait = IdField(label="Trait", error_messages={"required": "Pick the trait to remove."})


def _refusal_messages(request, refused: ValidationError) -> None:
    """A rest's points refused per ability are named with it ("Points to Mind: ...")."""
    if hasattr(refused, "error_dict"):
        for name, errors in refused.message_dict.items():
            label = ABILITY_LABELS.get(name, name.title())
            messages.error(request, f"Points to {label}: " + " ".join(errors))
    else:
        messages.error(request, " ".join(refused.messages))


# Traits are the build (Triad has no XP to buy them): after creation the GM's, by the write policy.
TRAITS = "The trait list"


@require_POST
def rest(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=system.key)
    return sheet_action(
        request,
        character,
        # Hours of rest on the player's word give points back with no roll: play state typed by hand.
        lambda data, seen: policy.by_hand(
            request.user,
            character,
            Kind.PLAY,
            "Points recovered by rest",
            lambda: actions.rest(
                character=character,
                hours=data["hours"],
                split=data["split"],
                author=request.user,
                seen_version=seen,
            ),
            lambda changes: f"a rest of {data['hours']} h: " + (", ".join(changes) or "nothing to recover"),
        ),
        lambda changes: "Rested: " + (", ".join(changes) or "nothing needed recovering."),
        form=actions.RestForm(request.POST, prefix="rest"),
        refused=_refusal_messages,
    )


@require_POST
def trait_add(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=system.key)

    def act(data, seen):
        policy.require(request.user, character, Kind.BUILD, TRAITS)
        return actions.trait_add(
            character=character, trait=data["trait"], author=request.user, seen_version=seen
        )

    return sheet_action(
        request,
        character,
        act,
        lambda row: f"Added {row.name}.",
        form=actions.TraitAddForm(request.POST, prefix="trait"),
        refused=_refusal_messages,
    )


@require_POST
def trait_remove(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=system.key)

    def act(data, seen):
        policy.require(request.user, character, Kind.BUILD, TRAITS)
        return actions.trait_remove(
            character=character, trait_id=data["trait"], author=request.user, seen_version=seen
        )

    return sheet_action(
        request,
        character,
        act,
        lambda name: f"Removed {name}.",
        form=TraitRemoveForm(request.POST),
        refused=_refusal_messages,
    )
