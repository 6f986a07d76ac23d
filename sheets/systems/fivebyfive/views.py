"""Five by Five between fights: the GM's "time passes" for a dying character, days of natural recovery,
and healing checks."""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.views.decorators.http import require_POST

from rules.dice import Roller, system_random
from sheets import policy, selectors
from sheets.policy import Kind
from sheets.views import sheet_action

from . import healing, recovery
from . import sheet as fivebyfive


def _sentence(said: str) -> str:
    return said[:1].upper() + said[1:] + "."


@require_POST
def time_passes(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=fivebyfive.system.key)
    # How long the scene took is the GM's call, not something a player shortens or skips.
    verdict = policy.may_change(request.user, character, Kind.GM, "how much time passes")
    if not verdict:
        raise PermissionDenied(verdict.reason)
    return sheet_action(
        request,
        character,
        lambda data, seen: recovery.time_passes(
            character=character, minutes=data["minutes"], author=request.user, seen_version=seen
        ),
        _sentence,
        form=recovery.TimePassesForm(request.POST, prefix="time"),
    )


@require_POST
def rest(request, character_id: int):
    character = selectors.character_for_editor(request.user, character_id, system=fivebyfive.system.key)
    return sheet_action(
        request,
        character,
        # Days of rest on the player's word give HP back with no roll: play state typed by hand.
        lambda data, seen: policy.by_hand(
            request.user,
            character,
            Kind.PLAY,
            "HP healed by rest",
            lambda: recovery.rest(
                character=character, days=data["days"], author=request.user, seen_version=seen
            ),
            lambda said: f"a rest of {data['days']} days: {said}",
        ),
        _sentence,
        form=recovery.RestForm(request.POST, prefix="rest"),
    )


@require_POST
def healing_check(request, character_id: int):
    # The patient's sheet is seen by everyone at the table; the check is the healer's roll, made by whoever
    # rolls as the healer (sheets.selectors.roll_subjects: its player, or the GM).
    patient = selectors.character_for_viewer(request.user, character_id)
    if patient.campaign.system != fivebyfive.system.key:
        raise Http404("This sheet belongs to another game system.")
    form = healing.HealingForm(
        request.POST, choices=healing.healers(request.user, patient.campaign), prefix="heal"
    )

    def act(data, seen):
        healer = patient.campaign.characters.get(pk=data["healer"])
        return healing.heal(
            patient=patient,
            healer=healer,
            spend=data["spend"],
            roller=Roller(system_random()),
            author=request.user,
            seen_version=seen,
        )

    return sheet_action(request, patient, act, _sentence, form=form)
