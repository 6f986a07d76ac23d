"""Five by Five's rolls on the sheet: the roll options, the buttons with their odds, task and damage rolls."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from rules import fivebyfive
from rules.dice import Outcome, Roller, RulesError
from sheets.contract import Bar, Die, RollButton, RollResult, rules_error_to_validation

from .fields import OPTION_ASPECTS, RATING_CHOICES, FiveByFiveFields, aspect_rating
from .models import ASPECT_NAMES

OUTCOME_TONES = {"trump": "success", "success": "info", "failure": "secondary"}
OUTCOME_LABELS = {"trump": "trump", "success": "success", "failure": "failure"}


def aspect_choices(sheet) -> list[tuple[str, str]]:
    """Which aspect an action is based on, each with the character's rating, for a roll's options."""
    labels = dict(RATING_CHOICES)
    return [("", "None named (no shift)")] + [
        (a.value, f"{a.value.capitalize()}: {labels[str(getattr(sheet, a.value))]}")
        for a in fivebyfive.Aspect
    ]


class FiveByFiveOptionsForm(forms.Form):
    shift = forms.TypedChoiceField(
        choices=[(n, f"{n:+d}" if n else "0 (none)") for n in range(-3, 4)],
        coerce=int,
        initial=0,
        label="Rank shift",
        widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
    )
    spend_token = forms.BooleanField(
        required=False,
        label="Spend the doubles token (5s trump too)",
        widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
    )

    def __init__(self, data=None, *, sheet=None, aspects: bool = False):
        super().__init__(data)
        if aspects:
            # The GM names the aspect the task is based on; its rating shifts every button, untrained too.
            self.fields["aspect"] = forms.ChoiceField(
                choices=aspect_choices(sheet),
                required=False,
                initial="",
                label="Aspect the task is based on",
                widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
            )


class FiveByFiveRolls(FiveByFiveFields):
    """The sheet's roll buttons and the rolls they make."""

    def options_form(self, *, character, data=None):
        # A GM's roll request (no character) names no aspect: each sheet's own options do.
        if character is None:
            return FiveByFiveOptionsForm(data)
        return FiveByFiveOptionsForm(
            data, sheet=character.fivebyfive, aspects=self._uses(character, OPTION_ASPECTS)
        )

    def _aspect(self, character, options) -> tuple[str, fivebyfive.AspectRating]:
        """(aspect named in the options, its rating); none named, or the rule off: Average."""
        name = options.get("aspect") or ""
        if not self._uses(character, OPTION_ASPECTS) or name not in ASPECT_NAMES:
            return "", fivebyfive.AspectRating.AVERAGE
        return name, aspect_rating(character.fivebyfive, name)

    @staticmethod
    def _spending(character, options) -> tuple[bool, bool]:
        """(asked to spend a token, actually holds one to spend)."""
        asked = bool(options.get("spend_token"))
        return asked, asked and character.fivebyfive.doubles_token

    def _task_button(self, key, label, value, *, options, spend, asked, advanced=False, aspect=None, note=""):
        steps = options.get("shift") or 0
        aspect_name, rating = aspect or ("", fivebyfive.AspectRating.AVERAGE)
        target = fivebyfive.effective_value(value, steps=steps, advanced=advanced, aspect=rating)
        odds = fivebyfive.outcome_odds(target, doubles_token=spend)
        details = [note] if note else []
        if target is None:
            details.append("no chance after the shifts")
        elif target == fivebyfive.POOR:
            details.append("one die: only a trump succeeds")
        elif target == fivebyfive.UNTRAINED:
            details.append("only a trump succeeds")
        else:
            details.append(f"product {min(target, fivebyfive.MAX_TARGET)} or less")
        if advanced:
            details.append("advanced -2")
        if rating:
            details.append(f"{aspect_name} {int(rating):+d}")
        if spend:
            details.append("token: 5s trump")
        elif asked:
            details.append("no token to spend")
        return RollButton(
            key=key,
            label=label,
            chance=odds["trump"] + odds["success"],
            detail=" · ".join(details),
            picture=tuple(Bar(OUTCOME_LABELS[o], odds[o], OUTCOME_TONES[o]) for o in odds),
            group="Descriptors",
        )

    def buttons(self, character, options):
        sheet = character.fivebyfive
        asked, spend = self._spending(character, options)
        aspect = self._aspect(character, options)
        buttons = [
            self._task_button(
                f"descriptor:{row.pk}",
                f"{row.name} {row.value}",
                row.value,
                options=options,
                spend=spend,
                asked=asked,
                advanced=row.advanced,
                aspect=aspect,
                note=row.exclusive_action.capitalize() if row.exclusive_action else "",
            )
            for row in self._rows(character)
        ]
        buttons.append(
            self._task_button(
                "untrained",
                "Untrained 0",
                fivebyfive.UNTRAINED,
                options=options,
                spend=spend,
                asked=asked,
                aspect=aspect,
                note="anything not on the sheet",
            )
        )
        mean = fivebyfive.mean_damage(db=sheet.weapon_db, av=0, doubles_token=spend)
        buttons.append(
            RollButton(
                key="damage",
                label=f"Damage: {sheet.weapon or 'No weapon'}",
                chance=None,
                detail=f"1d6 + DB {sheet.weapon_db}, a 6 rolls again for +5 · average {float(mean):.1f}"
                + (" · token: 5s trump" if spend else ""),
                group="Combat",
            )
        )
        return buttons

    def roll(self, character, key, options, roller: Roller):
        sheet = character.fivebyfive
        asked, spend = self._spending(character, options)
        if asked and not spend:
            raise ValidationError("You hold no doubles token to spend: untick the option and roll again.")
        if key == "damage":
            return self._roll_damage(character, options, roller, spend)
        kind, _, ident = key.partition(":")
        if kind == "descriptor":
            try:
                row = self._descriptor(character, ident)
            except KeyError:
                raise KeyError(key) from None
            name, value, advanced = row.name, row.value, row.advanced
        elif key == "untrained":
            name, value, advanced = "Untrained", fivebyfive.UNTRAINED, False
        else:
            raise KeyError(key)
        steps = options.get("shift") or 0
        aspect_name, rating = self._aspect(character, options)
        try:
            result = fivebyfive.roll_task(
                roller,
                value,
                steps=steps,
                advanced=advanced,
                aspect=rating,
                doubles_token=spend,
                holding_token=sheet.doubles_token,
            )
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        odds = fivebyfive.outcome_odds(result.target, doubles_token=spend)
        trump_face = fivebyfive.TOKEN_TRUMP_FACE if spend else fivebyfive.TRUMP_FACE
        dice = tuple(Die(face, trump=face >= trump_face, sides=6) for face in result.faces)
        changes = self._token_changes(
            sheet, spent=result.token_spent, earned=result.token_earned, held=result.token_held
        )
        summary = self._task_summary(result)
        return RollResult(
            label=f"{name} {value}",
            request={
                "key": key,
                "shift": steps,
                "aspect": aspect_name,
                "spend_token": spend,
                "target": result.target,
            },
            dice=dice,
            outcome=result.outcome,
            summary=summary,
            chance=odds["trump"] + odds["success"],
            changes=changes,
            extra={
                "target": result.target,
                "doubles": result.doubles,
                "token_spent": result.token_spent,
                "token_earned": result.token_earned,
                "token_held": result.token_held,
            },
        )

    @staticmethod
    def _task_summary(result: fivebyfive.TaskRoll) -> str:
        if result.target is None:
            return "No chance after the shifts: nothing rolled, failure"
        faces = " × ".join(str(f) for f in result.faces)
        if result.trump:
            read = f"{faces}: trump"
        elif len(result.faces) == 2:
            target = min(result.target, fivebyfive.MAX_TARGET)
            read = f"{faces} = {result.faces[0] * result.faces[1]} vs {target}"
        else:
            read = f"{faces}: a poor roll needs a trump"
        doubles = " · doubles!" if result.doubles else ""
        return f"{read}, {'success' if result.success else 'failure'}{doubles}"

    @staticmethod
    def _token_changes(sheet, *, spent: bool, earned: bool, held: bool) -> tuple[str, ...]:
        """Save the token the roll left the character holding, and say what happened to it."""
        changes = []
        if spent:
            changes.append("doubles token spent")
        if earned:
            changes.append("doubles token earned")
        if sheet.doubles_token != held:
            sheet.doubles_token = held
            sheet.save(update_fields=["doubles_token"])
        return tuple(changes)

    def _roll_damage(self, character, options, roller, spend: bool):
        sheet = character.fivebyfive
        try:
            result = fivebyfive.roll_damage(roller, db=sheet.weapon_db, av=0, doubles_token=spend)
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        trump_face = fivebyfive.TOKEN_TRUMP_FACE if spend else fivebyfive.TRUMP_FACE
        dice = tuple(
            Die(face, trump=face >= trump_face, exploded=face >= trump_face, sides=6) for face in result.faces
        )
        trumps = len(result.faces) - 1
        # Damage chains never earn a token (no doubles in one die); they can only spend one.
        held = sheet.doubles_token and not spend
        changes = self._token_changes(sheet, spent=spend, earned=False, held=held)
        bonus = fivebyfive.DAMAGE_TRUMP_BONUS * trumps
        trump_note = f" + {bonus} ({trumps} trump{'s' if trumps > 1 else ''})" if trumps else ""
        summary = (
            f"{result.faces[-1]} + DB {sheet.weapon_db}{trump_note} = {result.damage} damage "
            "before the target's armor"
        )
        return RollResult(
            label=f"Damage: {sheet.weapon or 'No weapon'}",
            request={"key": "damage", "db": sheet.weapon_db, "spend_token": spend},
            dice=dice,
            outcome=Outcome.NONE,
            outcome_label="damage",
            summary=summary,
            total=result.damage,
            changes=changes,
            extra={"token_spent": spend, "token_held": held},
        )

    def common_roll_keys(self):
        # Every sheet has these two: the untrained check (Five by Five: anything not on the sheet rolls
        # at 0, shifted by the aspect the GM names) and its weapon's damage. Descriptors are each sheet's own.
        return [("untrained", "Untrained (0)"), ("damage", "Weapon damage")]
