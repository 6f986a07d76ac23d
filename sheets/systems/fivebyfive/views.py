"""Five by Five experience: the GM awards XP, the player spends it to raise a descriptor a rank."""

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from campaigns.forms import IdField, WholeNumberField
from sheets import selectors

from . import sheet as fivebyfive


class XpAwardForm(forms.Form):
    amount = WholeNumberField(
        min_value=1,
        max_value=fivebyfive.XP_AWARD_MAX,
        error_messages={
            "invalid": f"Award from 1 to {fivebyfive.XP_AWARD_MAX} XP at a time (digits 0-9).",
            "required": f"Award from 1 to {fivebyfive.XP_AWARD_MAX} XP at a time.",
            "min_value": f"Award from 1 to {fivebyfive.XP_AWARD_MAX} XP at a time.",
            "max_value": f"Award from 1 to {fivebyfive.XP_AWARD_MAX} XP at a time.",
        },
    )


class XpSpendForm(forms.Form):
    """``descriptor`` is "<descriptor id or hp>@<the value the player saw>"."""

    descriptor = forms.CharField(max_length=40, error_messages={"required": "Pick what to raise."})

    def clean_descriptor(self):
        key, _, seen = self.cleaned_data["descriptor"].partition("@")
        try:
            if key != fivebyfive.HP_SLOT:
                IdField().clean(key)
            value = WholeNumberField(min_value=0).clean(seen)
        except ValidationError:
            raise ValidationError("There is no such descriptor on this sheet.") from None
        return key, value


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
    form = XpAwardForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["amount"]))
        return redirect("sheet", character_id=character.pk)
    amount = form.cleaned_data["amount"]
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
    form = XpSpendForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["descriptor"]))
        return redirect("sheet", character_id=character.pk)
    key, expected_value = form.cleaned_data["descriptor"]
    try:
        cost = fivebyfive.xp_raise(
            character=character, key=key, expected_value=expected_value, author=request.user
        )
    except ValidationError as refused:
        messages.error(request, " ".join(refused.messages))
    else:
        messages.success(request, f"Spent {cost} XP.")
    return redirect("sheet", character_id=character.pk)
