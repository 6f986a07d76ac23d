"""The limits every L5R roll is held to: dice and rank bounds, the checks of a rank or a count, the Ten
Dice Rule, and the error that names a builder field."""

from __future__ import annotations

from rules.dice import RulesError

SIDES = 10
TEN_DICE = 10  # the Ten Dice Rule's cap on both rolled and kept dice
RAISE_STEP = 5
SECOND_ATTEMPT_PENALTY = 10
TRAIT_MIN, TRAIT_MAX = 1, 10
SKILL_MIN, SKILL_MAX = 0, 10
MAX_ODDS_TARGET = 250  # 10k10 at 250 takes ~0.1 s cold; no sheet TN comes near
MAX_POOL = 40  # far beyond any sheet; keeps a typo from asking for a huge pool


class L5RFieldError(RulesError):
    """A builder value is wrong; ``field`` names the form field at fault."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


def _rank(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise L5RFieldError(field, f"{field.capitalize()} must be a whole number.")
    if not low <= value <= high:
        raise L5RFieldError(field, f"{field.capitalize()} must be from {low} to {high}, not {value}.")
    return value


# --------------------------------------------------------------------------- the Ten Dice Rule


def ten_dice(rolled: int, kept: int, bonus: int = 0, *, odd_die_bonus: bool = False) -> tuple[int, int, int]:
    """Fold a pool into at most 10k10: (rolled, kept, bonus) after the Ten Dice Rule."""
    rolled = _count("rolled dice", rolled, 1)
    kept = _count("kept dice", kept, 1)
    _int("bonus", bonus)
    extra_rolled = max(0, rolled - TEN_DICE)
    rolled = min(rolled, TEN_DICE)
    if kept > rolled:
        if rolled == TEN_DICE:
            # Both already at ten: every extra kept die is worth +2.
            bonus += 2 * (kept - TEN_DICE)
            kept = TEN_DICE
        else:
            # Reading: a die cannot be kept twice, so kept dice beyond the rolled ones do nothing.
            kept = rolled
    # Two extra rolled dice buy one kept die while kept is under ten.
    while extra_rolled >= 2 and kept < TEN_DICE:
        kept += 1
        extra_rolled -= 2
    if kept == TEN_DICE:
        bonus += 2 * extra_rolled
    elif extra_rolled and odd_die_bonus:
        bonus += 2  # house rule: the odd leftover die is not wasted
    return rolled, kept, bonus


def _int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"The {name} must be a whole number, not {value!r}.")
    return value


def _count(name: str, value: object, low: int) -> int:
    value = _int(name, value)
    if value < low:
        raise RulesError(f"A roll needs at least {low} {name}, not {value}.")
    if value > MAX_POOL:
        raise RulesError(f"{value} {name} is more than any roll uses (at most {MAX_POOL}).")
    return value
