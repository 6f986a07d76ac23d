"""Trump chains: damage, healing and harm read from their dice, their exact odds, and the damage and
healing rolls."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from rules.dice import Roller, RulesError, check_faces
from rules.fivebyfive.checks import TaskRoll, _trump_face, roll_task
from rules.fivebyfive.ladder import (
    DAMAGE_TRUMP_BONUS,
    HARM_TRUMP_BONUS,
    MIN_AV,
    TRUMP_FACE,
    AspectRating,
    FieldError,
    _is_int,
)

# --------------------------------------------------------------------------- trump chains


def _chain(faces: Iterable[int], *, threshold: int, what: str) -> tuple[int, ...]:
    chain = check_faces(faces, sides=6)
    if not chain:
        raise RulesError(f"A {what} roll needs at least one die.")
    for f in chain[:-1]:
        if f < threshold:
            raise RulesError(
                f"Only a trump is rolled again: the {what} die showing {f} ends the roll, "
                f"but more dice follow it."
            )
    if chain[-1] >= threshold:
        raise RulesError(
            f"This {what} roll has not ended: its last die shows a trump ({chain[-1]}), "
            f"so it must be rolled again."
        )
    return chain


def trump_total(
    faces: Iterable[int], *, per_trump: int = DAMAGE_TRUMP_BONUS, doubles_token: bool = False
) -> int:
    """Total of one trump chain: the last face plus ``per_trump`` for each trump before it."""
    if not _is_int(per_trump) or per_trump < 0:
        raise RulesError(f"The bonus per trump must be a whole number 0 or more, not {per_trump!r}.")
    chain = _chain(faces, threshold=_trump_face(doubles_token), what="damage or healing")
    return chain[-1] + per_trump * (len(chain) - 1)


def _check_db_av(db: int, av: int) -> None:
    if not _is_int(db) or db < 0:
        raise FieldError(f"A weapon's damage bonus is a whole number 0 or more, not {db!r}.", field="db")
    # The armor table prints 0 (none) down to -6 (heavy armor); nothing lies outside it.
    if not _is_int(av) or not MIN_AV <= av <= 0:
        raise FieldError(
            f"Armor values are written 0 down to -6 (they lower damage), not {av!r}.", field="av"
        )


def damage(faces: Iterable[int], *, db: int, av: int, doubles_token: bool = False) -> int:
    """Damage dealt: trump total + weapon DB + armor AV (0 to -6), never below 0."""
    _check_db_av(db, av)
    return max(0, trump_total(faces, doubles_token=doubles_token) + db + av)


def heal_amount(faces: Iterable[int], *, doubles_token: bool = False) -> int:
    """HP restored by a successful healing check's die chain."""
    return trump_total(faces, doubles_token=doubles_token)


def harm(faces: Iterable[int]) -> int:
    """HP lost to a failed healing check: 1-3 -> 1, 4-5 -> 2, plus 2 per trump (6)."""
    chain = _chain(faces, threshold=TRUMP_FACE, what="harming")
    return (1 if chain[-1] <= 3 else 2) + HARM_TRUMP_BONUS * (len(chain) - 1)


# --------------------------------------------------------------------------- chain odds

# A chain is: k trumps (each with probability p) then a closing "part" with its own weights.
# P(total = per*k + part) = p**k * w(part); the tail sums in closed form because it is geometric.


def _chain_model(kind: str, doubles_token: bool) -> tuple[int, Fraction, dict[int, Fraction]]:
    if kind == "harm":
        return HARM_TRUMP_BONUS, Fraction(1, 6), {1: Fraction(3, 6), 2: Fraction(2, 6)}
    threshold = _trump_face(doubles_token)
    p = Fraction(7 - threshold, 6)
    return DAMAGE_TRUMP_BONUS, p, {f: Fraction(1, 6) for f in range(1, threshold)}


def _chain_at_least(t: int, kind: str, doubles_token: bool) -> Fraction:
    per, p, parts = _chain_model(kind, doubles_token)
    closing = sum(parts.values())
    total = Fraction(0)
    k = 0
    while per * k + min(parts) < t:  # some closing parts still fall short
        total += p**k * sum((w for part, w in parts.items() if per * k + part >= t), Fraction(0))
        k += 1
    return total + p**k * closing / (1 - p)


def mean_damage(*, db: int, av: int, doubles_token: bool = False) -> Fraction:
    """Exact expected damage of one hit, counting the floor at 0."""
    _check_db_av(db, av)
    per, p, parts = _chain_model("damage", bool(doubles_token))
    closing = sum(parts.values())
    # A chain with k trumps has probability p**k * closing, so its mean is a pair of geometric sums.
    chain_mean = sum(part * w for part, w in parts.items()) / (1 - p) + per * closing * p / (1 - p) ** 2
    c = db + av
    # E[max(0, Y)] = E[Y] + sum over s >= 1 of P(Y <= -s); Y = chain + c is at least 1 + c.
    floored = sum(
        (1 - _chain_at_least(1 - s - c, "damage", bool(doubles_token)) for s in range(1, -c)), Fraction(0)
    )
    return chain_mean + c + floored


# --------------------------------------------------------------------------- damage, healing rolls


@dataclass(frozen=True)
class DamageRoll:
    faces: tuple[int, ...]
    db: int
    av: int
    token_spent: bool
    damage: int

    def replay(self) -> int:
        return damage(self.faces, db=self.db, av=self.av, doubles_token=self.token_spent)


def roll_damage(roller: Roller, *, db: int, av: int = 0, doubles_token: bool = False) -> DamageRoll:
    """Roll 1d6 + DB + AV, re-rolling each trump for +5 (a spent token makes 5s trump too)."""
    _check_db_av(db, av)
    faces = tuple(roller.chain(6, explode_on=_trump_face(doubles_token)))
    return DamageRoll(
        faces, db, av, bool(doubles_token), damage(faces, db=db, av=av, doubles_token=doubles_token)
    )


@dataclass(frozen=True)
class HealingRoll:
    """A healing attempt: the 5x5 check, then the heal chain (success) or the harm chain (failure)."""

    check: TaskRoll
    faces: tuple[int, ...]
    heal_token_spent: bool
    healed: bool
    amount: int  # HP restored when healed, HP lost when harmed

    @property
    def hp_change(self) -> int:
        return self.amount if self.healed else -self.amount

    @property
    def token_held(self) -> bool:
        """Whether the healer still holds a doubles token after both rolls."""
        return self.check.token_held and not self.heal_token_spent


def roll_healing(
    roller: Roller,
    value: int,
    *,
    steps: int = 0,
    advanced: bool = False,
    aspect: AspectRating = AspectRating.AVERAGE,
    doubles_token: bool = False,
    heal_token: bool = False,
    holding_token: bool = False,
) -> HealingRoll:
    """Roll a healing check; success restores a trump chain of HP, failure harms the target."""
    if doubles_token and heal_token:
        raise RulesError("One doubles token pays for one roll: spend it on the check or on the healing die.")
    chk = roll_task(
        roller,
        value,
        steps=steps,
        advanced=advanced,
        aspect=aspect,
        doubles_token=doubles_token,
        holding_token=holding_token or heal_token,
    )
    if chk.success:
        faces = tuple(roller.chain(6, explode_on=_trump_face(heal_token)))
        return HealingRoll(chk, faces, heal_token, True, heal_amount(faces, doubles_token=heal_token))
    # A token saved for the healing die is not spent when there is nothing to heal.
    faces = tuple(roller.chain(6, explode_on=TRUMP_FACE))
    return HealingRoll(chk, faces, False, False, harm(faces))
