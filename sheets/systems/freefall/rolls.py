"""FREE/FALL's rolls on the sheet: the roll options (TN, dice assigned), the buttons with their odds, checks
and hacks, and the GM's roll requests."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField, row_id
from rules import freefall
from rules.dice import Roller, RulesError
from sheets.contract import Bar, Die, RollButton, RollResult, format_percent, rules_error_to_validation

from .fields import ATTRIBUTE_LABELS, ATTRIBUTES, FreeFallFields, engine_program


def check_dice(result) -> tuple[Die, ...]:
    """A check's dice for the feed, each marked with whether it made it (the pool is read die by die)."""
    verdicts = zip(result.faces, result.made, strict=True)
    return tuple(Die(face, sides=freefall.DIE, successes=int(made)) for face, made in verdicts)


OUTCOME_TONES = {freefall.FAILURE: "secondary", freefall.SUCCESS: "info", freefall.GREATER: "success"}
OUTCOME_LABELS = {
    freefall.FAILURE: "failure",
    freefall.SUCCESS: "success",
    freefall.GREATER: "greater success",
}


class FreeFallOptionsForm(forms.Form):
    tn = forms.ChoiceField(
        label="Target number",
        choices=[(d.value, f"{d.label} (TN {d.tn}+)") for d in freefall.Difficulty],
        initial=freefall.Difficulty.CHALLENGING.value,
        widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
    )
    dice = WholeNumberField(
        label="Dice assigned",
        required=False,
        min_value=1,
        widget=forms.NumberInput(attrs={"class": "form-control form-control-sm", "inputmode": "numeric"}),
    )
    conflict = forms.BooleanField(required=False, initial=True, label="In a conflict (a 1 complicates)")

    def __init__(self, *args, pool: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.pool = pool
        self.fields["dice"].max_value = pool
        self.fields["dice"].widget.attrs.update(min=1, max=pool, placeholder=f"all {pool}")
        self.fields["dice"].help_text = f"Empty: the whole pool ({pool})."

    def clean_dice(self):
        dice = self.cleaned_data.get("dice")
        if dice is not None and dice > self.pool:
            raise ValidationError(
                f"Your pool is {self.pool} dice right now; assign at most {self.pool}.", code="max_value"
            )
        return dice


class FreeFallRolls(FreeFallFields):
    """The sheet's roll buttons and the rolls they make."""

    def options_form(self, *, character, data=None):
        # No character: the GM's roll-request form; each answering sheet checks its own pool.
        pool = self.state(character).pool if character is not None else freefall.pool(0)
        return FreeFallOptionsForm(data, pool=pool)

    @staticmethod
    def _roll_settings(options, pool: int) -> tuple[freefall.Difficulty, int, bool]:
        try:
            difficulty = freefall.Difficulty(options.get("tn") or freefall.Difficulty.CHALLENGING)
        except ValueError:
            raise ValidationError("Choose a target number from the list.") from None
        dice = options.get("dice") or pool
        if dice > pool:
            raise ValidationError(f"Your pool is {pool} dice right now; assign at most {pool}.")
        return difficulty, dice, bool(options.get("conflict"))

    def buttons(self, character, options):
        state = self.state(character)
        try:
            difficulty, dice, conflict = self._roll_settings(options, state.pool)
        except ValidationError:
            return []
        tn = difficulty.tn
        buttons = []
        plain = freefall.odds(dice, tn, conflict=conflict)
        for a in freefall.Attribute:
            buttons.append(
                RollButton(
                    key=f"attribute:{a.value}",
                    label=f"{a.label} {state.current[a]}",
                    chance=plain.at_least_success,
                    detail=f"{dice}d20 vs TN {tn} · {format_percent(plain.complication)} complication",
                    picture=self._bars(plain),
                    group="Attributes",
                )
            )
        for row in character.ff_programs.all():
            program = engine_program(row)
            if not program.active:
                buttons.append(
                    RollButton(
                        key=f"program:{row.pk}",
                        label=f"{row.name} (compromised)",
                        chance=None,
                        detail="Out for the rest of the mission.",
                        group="Programs",
                    )
                )
                continue
            hack = freefall.hack_odds(dice, tn, program=program, conflict=conflict)
            buttons.append(
                RollButton(
                    key=f"program:{row.pk}",
                    label=f"{row.name} {program.tier.label}",
                    chance=hack.at_least_success,
                    detail=f"{dice}d20{f'+{program.bonus}' if program.bonus else ''} vs TN {tn} · "
                    f"{format_percent(hack.natural_one)} compromise",
                    picture=self._bars(hack),
                    group="Programs",
                )
            )
        return buttons

    @staticmethod
    def _bars(odds: freefall.Odds) -> tuple[Bar, ...]:
        return tuple(Bar(OUTCOME_LABELS[o], odds.outcomes[o], OUTCOME_TONES[o]) for o in freefall.OUTCOMES)

    def roll(self, character, key, options, roller: Roller):
        state = self.state(character)
        kind, _, ident = key.partition(":")
        row = None
        if kind == "attribute" and ident in ATTRIBUTES:
            label = f"{ATTRIBUTE_LABELS[ident]} {state.current[ident]}"
        elif kind == "program" and row_id(ident):
            row = next((r for r in character.ff_programs.all() if r.pk == row_id(ident)), None)
            if row is None:
                raise KeyError(key)
            label = f"{row.name} ({row.type.upper()} {row.tier.upper()})"
        else:
            raise KeyError(key)
        difficulty, dice, conflict = self._roll_settings(options, state.pool)
        tn = difficulty.tn
        changes = []
        try:
            if row is None:
                odds = freefall.odds(dice, tn, conflict=conflict)
                result = freefall.roll_check(roller, dice=dice, tn=tn, conflict=conflict)
            else:
                program = engine_program(row)
                odds = freefall.hack_odds(dice, tn, program=program, conflict=conflict)
                hack = freefall.roll_hack(roller, dice=dice, tn=tn, program=program, conflict=conflict)
                result = hack.check
                if hack.compromised:
                    row.compromised = True
                    row.save(update_fields=["compromised"])
                    changes.append(f"{row.name} compromised (a natural 1): out for the rest of the mission")
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        notes = []
        if result.crit:
            notes.append("natural 20")
        if result.complication:
            notes.append("complication")
        bonus = f"+{result.bonus}" if result.bonus else ""
        successes = f"{result.successes} success{'es' if result.successes != 1 else ''}"
        summary = f"{dice}d20{bonus} vs TN {tn}: {successes}, {OUTCOME_LABELS[result.outcome]}"
        if notes:
            summary += f" ({', '.join(notes)})"
        return RollResult(
            label=label,
            request={
                "key": key,
                "tn": tn,
                "difficulty": difficulty.value,
                "dice": dice,
                "pool": state.pool,
                "conflict": conflict,
                "bonus": result.bonus,
            },
            dice=check_dice(result),
            outcome=result.outcome,
            outcome_label=OUTCOME_LABELS[result.outcome],
            summary=summary,
            chance=odds.at_least_success,
            # No total: the dice are not summed, each is read against the TN (successes are in extra).
            total=None,
            changes=tuple(changes),
            extra={
                "successes": result.successes,
                "tn": tn,
                "bonus": result.bonus,
                "crit": result.crit,
                "complication": result.complication,
            },
        )

    # ----- roll requests: the GM names the action (an attribute, or a hack with a program type); the
    # TN and the dice assigned are the request's options, checked against each answering sheet's pool.

    def common_roll_keys(self):
        return [(f"attribute:{a.value}", f"{a.label} check") for a in freefall.Attribute] + [
            (f"hack:{t.value}", f"Hack with a {t.value.upper()} program") for t in freefall.ProgramType
        ]

    def request_roll_key(self, character, key):
        # A hack asked for by program type: the sheet's first program of that type still running.
        kind, _, program_type = key.partition(":")
        if kind != "hack":
            return key
        row = next(
            (p for p in character.ff_programs.all() if p.type == program_type and not p.compromised), None
        )
        return f"program:{row.pk}" if row is not None else key

    def answer_text(self, result):
        successes = result.get("successes")
        if successes is None:
            return super().answer_text(result)
        plural = "es" if successes != 1 else ""
        return f"{successes} success{plural} vs TN {result.get('tn')}, {result.get('outcome_label')}"
