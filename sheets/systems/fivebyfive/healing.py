"""Five by Five healing checks between fights, made from the wounded character's sheet.

"A Wounded character can benefit from healing skill checks. As many healing skill checks can be made to
restore a character to health as needed, but each failed check reduces a character's HP further" (l.433-
437); a success restores 1d6 HP with trumps (l.443-447), a failure harms 1d2 with trumps of +2 (l.385-
391). Readings (docs/rules.md "Five by Five sheet", "Healing checks"):

- The check is the healer's roll: the healer is a character whose rolls the user makes (their own; the
  GM's: any at the table, ``sheets.selectors.roll_subjects``), and rolls its healing descriptor (its best
  tied to healing, else untrained), based on Cognition where aspects are played, with its own token.
- The patient is anyone wounded (HP below the maximum) and not dead, the healer included.
- HP decides the condition (l.399-401): a dying patient healed above 0 is out of danger; one healed to
  -1..-9 is still dying and its clock starts again from the new HP (a harm likewise).
- In a fight, healing is an action on the healer's turn (``combat.py``); this check is for between fights.
"""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.db import transaction
from django.template.loader import render_to_string

from campaigns.models import Visibility
from campaigns.services import feed_entry_create
from rules import fivebyfive
from rules.dice import Outcome, Roller
from sheets.contract import RollResult
from sheets.selectors import roll_subjects
from sheets.services import character_change

from .combatants import DEFAULT_ASPECT, HEALING, TOKEN_HEAL, UNTRAINED, Use, chain_dice, read_task, task_dice
from .fields import OPTION_ASPECTS, aspect_rating
from .models import FiveByFiveSheet
from .sheet import system


def wounded(sheet) -> bool:
    return sheet.hp < fivebyfive.hp_points(sheet.hp_rank) and fivebyfive.condition(sheet.hp) != "dead"


def healers(user, campaign) -> list[tuple[int, str]]:
    """Whom ``user`` may heal as: the characters whose rolls they make (the one rule of it)."""
    return [(subject.pk, subject.name) for subject in roll_subjects(user, campaign)]


class HealingForm(forms.Form):
    healer = forms.TypedChoiceField(coerce=int, label="Healer")
    spend = forms.ChoiceField(choices=TOKEN_HEAL, required=False, label="Healer's doubles token")

    def __init__(self, data=None, *, choices, **kwargs):
        super().__init__(data, **kwargs)
        self.fields["healer"].choices = choices
        self.fields["healer"].error_messages["invalid_choice"] = (
            "Healer: pick one of your own characters at this table (the GM may pick any)."
        )


def healing_use(healer) -> Use:
    """The descriptor the healer rolls: its best tied to healing (advanced -2 counted), else untrained."""
    tied = [
        Use(
            str(row.pk),
            row.name,
            row.value,
            fivebyfive.total_shift(advanced=row.advanced),
            row.exclusive_action,
        )
        for row in healer.descriptors.all()
        if row.exclusive_action == HEALING.value
    ]
    return max(tied or [UNTRAINED], key=lambda use: use.strength)


def _aspect_steps(healer) -> tuple[str, int]:
    if not (healer.campaign.options or {}).get(OPTION_ASPECTS):
        return "", 0
    name = DEFAULT_ASPECT[HEALING].value
    return name, int(aspect_rating(healer.fivebyfive, name))


def _post(campaign, author, line: RollResult, *, visibility) -> None:
    feed_entry_create(
        campaign=campaign,
        author=author,
        character=line.character,
        label=line.label,
        request=line.request,
        result=line.result(),
        summary=line.summary,
        chance=line.chance,
        visibility=visibility,
    )


@transaction.atomic
def heal(*, patient, healer, spend: str, roller: Roller, author, seen_version: int | None = None) -> str:
    """``healer`` makes a healing check on ``patient`` (the check, then the healing or harming die): both
    rolls go to the feed, the patient's HP and the healer's token to their sheets. What happened, in
    words; a ValidationError (nothing changed) when the rules refuse it."""
    patient_sheet = FiveByFiveSheet.objects.select_for_update().get(character=patient)
    healer_sheet = patient_sheet if healer.pk == patient.pk else FiveByFiveSheet.objects.get(character=healer)
    most = fivebyfive.hp_points(patient_sheet.hp_rank)
    state = fivebyfive.condition(patient_sheet.hp)
    if state == "dead":
        raise ValidationError(f"{patient.name} is dead: no healing check brings a character back.")
    if patient_sheet.hp >= most:
        raise ValidationError(
            f"{patient.name} is not wounded (HP {patient_sheet.hp} of {most}): nothing to heal."
        )
    if fivebyfive.condition(healer_sheet.hp) != "healthy":
        raise ValidationError(
            f"{healer.name} is {fivebyfive.condition(healer_sheet.hp)} and cannot heal anyone."
        )
    if spend and not healer_sheet.doubles_token:
        raise ValidationError(f"{healer.name} holds no doubles token to spend.")
    use = healing_use(healer)
    aspect, aspect_shift = _aspect_steps(healer)
    result = fivebyfive.roll_healing(
        roller,
        use.value,
        steps=use.steps + aspect_shift,
        doubles_token=spend == "check",
        heal_token=spend == "die",
        holding_token=healer_sheet.doubles_token,
    )
    check, before = result.check, patient_sheet.hp
    if result.healed:
        after = fivebyfive.apply_healing(before, result.amount, max_hp=most)
    else:
        after = fivebyfive.apply_damage(before, result.amount)
    check_notes = [f"{healer.name} spends a doubles token"] if check.token_spent else []
    if check.token_earned:
        check_notes.append(f"{healer.name} earns a doubles token")
    die_notes = [f"{healer.name} spends a doubles token"] if result.heal_token_spent else []
    said = f"HP {before} -> {after}"
    if fivebyfive.condition(after) != state:
        said += f", {fivebyfive.condition(after)}"
    verb = "heals" if result.healed else "harms"
    token_moves = healer_sheet.doubles_token != result.token_held
    # The new HP starts the dying clock again (docs/rules.md "The dying clock").
    values = {"hp": after, "bleed_minutes": 0, "bleed_hp": None}
    if token_moves and healer.pk == patient.pk:
        values["doubles_token"] = result.token_held
    with character_change(
        character=patient, author=author, reason=f"{healer.name} {verb}: {said}", seen_version=seen_version
    ):
        FiveByFiveSheet.objects.filter(pk=patient_sheet.pk).update(**values)
    if token_moves and healer.pk != patient.pk:
        with character_change(character=healer, author=author, reason=f"Healing check on {patient.name}"):
            FiveByFiveSheet.objects.filter(pk=healer_sheet.pk).update(doubles_token=result.token_held)
    based = f" ({aspect} {aspect_shift:+d})" if aspect_shift else ""
    trumps = len(result.faces) - 1
    lines = [
        RollResult(
            label=f"{healer.name}: healing check on {patient.name}",
            summary=f"{use.label}{based}: {read_task(check)}, " + ("success" if check.success else "failure"),
            dice=task_dice(check),
            outcome=check.outcome,
            total=check.faces[0] * check.faces[1] if len(check.faces) == 2 else None,
            chance=fivebyfive.chance(check.target, doubles_token=check.token_spent),
            changes=tuple(check_notes),
            character=healer,
        ),
        RollResult(
            label=f"{healer.name} {verb} {patient.name}",
            summary=f"{'Healing' if result.healed else 'Harming'} die {', '.join(map(str, result.faces))}"
            + (f" ({trumps} trump{'s' if trumps > 1 else ''})" if trumps else "")
            + f": {result.amount} HP {'restored' if result.healed else 'lost'}",
            dice=chain_dice(result.faces, token=result.heal_token_spent),
            outcome=Outcome.NONE,  # the check above succeeded or failed; this chain only counts HP
            outcome_label="healing" if result.healed else "harm",
            total=result.amount,
            changes=(*die_notes, f"{patient.name}: {said}"),
            character=patient,
        ),
    ]
    # An NPC's numbers are the GM's: a check that touches one is the GM's to see.
    visibility = Visibility.GM if patient.is_npc or healer.is_npc else Visibility.PUBLIC
    for line in lines:
        _post(patient.campaign, author, line, visibility=visibility)
    return f"{healer.name} {verb} {patient.name}: {said}"


def healing_panel(request, campaign, character) -> str:
    """The healing check on a wounded Five by Five sheet, for whoever has a character to heal with."""
    if campaign.system != system.key or not wounded(character.fivebyfive):
        return ""
    choices = healers(request.user, campaign)
    if not choices:
        return ""
    context = {"character": character, "form": HealingForm(choices=choices, prefix="heal")}
    return render_to_string("fivebyfive/_healing.html", context, request=request)
