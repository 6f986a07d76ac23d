"""Five by Five 2.5: descriptors on a rank ladder, 5x5 task rolls with trumps, combat and healing.

Every ``dice``/``faces`` argument is the faces actually rolled, so a roll log replays
through the pure functions here. The ``roll_*`` functions take a :class:`rules.dice.Roller`
and return frozen results that carry every face.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache

from rules.dice import Outcome, Roller, RulesError, check_faces

# --------------------------------------------------------------------------- ladder

#: The whole rank ladder. 20 and 25 exist only for advanced descriptors.
RANKS: tuple[int, ...] = (-5, 0, 2, 4, 6, 9, 12, 16, 20, 25)
#: Ranks a basic descriptor can hold.
BASIC_RANKS: tuple[int, ...] = (-5, 0, 2, 4, 6, 9, 12, 16)
POOR = -5
UNTRAINED = 0
#: No 5x5 roll targets more than this, whatever the rank (issue reading).
MAX_TARGET = 16
BASIC_CAP = 16
ADVANCED_CAP = 25
#: The shift every use of an advanced descriptor takes.
ADVANCED_SHIFT = -2

RANK_NAMES: Mapping[int, str] = {
    -5: "poor",
    0: "untrained",
    2: "novice",
    4: "competent",
    6: "skilled",
    9: "expert",
    12: "master",
    16: "legendary",
}

#: The rounded percentages the rulebook's rank shift table prints (None = below the ladder).
#: They are labels, not odds: 20 and 25 read 95% and 100% there, but no roll targets above 16.
TABLE_PERCENT: Mapping[int | None, int] = {
    None: 0,
    -5: 15,
    0: 30,
    2: 40,
    4: 50,
    6: 60,
    9: 70,
    12: 80,
    16: 90,
    20: 95,
    25: 100,
}

#: Values given by importance at character creation, most important first.
CREATION_VALUES: tuple[int, ...] = (6, 4, 4, 2, 2, -5)
HP_NAME = "HP"
HP_BONUS = 10
NAME_MAX_LENGTH = 60

MAX_TWELVES = 2
MAX_LEGENDARY = 1
NEW_DESCRIPTOR_COST = 2
POOR_SWAP_COST = 5

#: A d6 result that shows this or more is a trump; a spent doubles token lowers it to 5.
TRUMP_FACE = 6
TOKEN_TRUMP_FACE = 5
DAMAGE_TRUMP_BONUS = 5
HARM_TRUMP_BONUS = 2

DEAD_AT = -10
#: The lowest armor value the armor table prints (heavy armor).
MIN_AV = -6


class FieldError(RulesError):
    """A rules error that names the form field at fault (``.field``)."""

    def __init__(self, message: str, *, field: str):
        super().__init__(message)
        self.field = field


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _rank(value: object, *, what: str = "A descriptor value") -> int:
    if not _is_int(value) or value not in RANKS:
        ladder = ", ".join(str(r) for r in RANKS)
        raise RulesError(f"{what} must be one of {ladder}, not {value!r}.")
    return value  # type: ignore[return-value]


def shift(value: int, steps: int) -> int | None:
    """Move ``value`` ``steps`` places along RANKS; below -5 is None, above 25 stays 25."""
    _rank(value)
    if not _is_int(steps):
        raise RulesError(f"A rank shift is a whole number of steps, not {steps!r}.")
    index = RANKS.index(value) + steps
    if index < 0:
        return None
    return RANKS[min(index, len(RANKS) - 1)]


# --------------------------------------------------------------------------- aspects


class Aspect(enum.Enum):
    AGILITY = "agility"
    BRAWN = "brawn"
    COGNITION = "cognition"
    DETERMINATION = "determination"


class AspectRating(enum.IntEnum):
    """An aspect's rating; its integer is the rank shift it gives every action it governs."""

    INFERIOR = -1
    AVERAGE = 0
    SUPERIOR = 1


def validate_aspects(ratings: Mapping[Aspect, AspectRating]) -> dict[Aspect, AspectRating]:
    """Return all four aspects (missing ones Average) or raise: each Superior needs an Inferior."""
    full: dict[Aspect, AspectRating] = {a: AspectRating.AVERAGE for a in Aspect}
    for aspect, rating in ratings.items():
        if not isinstance(aspect, Aspect):
            raise FieldError(f"{aspect!r} is not one of the four aspects.", field="aspects")
        if not isinstance(rating, AspectRating):
            raise FieldError(
                f"{aspect.value.title()} must be Inferior, Average or Superior.",
                field=f"aspects.{aspect.value}",
            )
        full[aspect] = rating
    superior = sum(r is AspectRating.SUPERIOR for r in full.values())
    inferior = sum(r is AspectRating.INFERIOR for r in full.values())
    if superior > inferior:
        raise FieldError(
            f"Each Superior aspect must be paid for with an Inferior one: "
            f"{superior} Superior but only {inferior} Inferior.",
            field="aspects",
        )
    return full


# --------------------------------------------------------------------------- exclusive actions


class ExclusiveAction(enum.Enum):
    ATTACK = "attack"
    DODGE = "dodge"
    HEALING = "healing"
    STEAL_INITIATIVE = "steal initiative"


def exclusive_action(actions: Iterable[ExclusiveAction]) -> ExclusiveAction | None:
    """The single exclusive action a descriptor improves, or None; more than one is refused."""
    chosen = list(dict.fromkeys(actions))
    for a in chosen:
        if not isinstance(a, ExclusiveAction):
            raise FieldError(f"{a!r} is not an exclusive action.", field="exclusive")
    if len(chosen) > 1:
        names = " and ".join(a.value for a in chosen)
        raise FieldError(
            f"A descriptor can improve only one exclusive action; pick one of {names}.",
            field="exclusive",
        )
    return chosen[0] if chosen else None


# --------------------------------------------------------------------------- effective value


def total_shift(
    *, steps: int = 0, advanced: bool = False, aspect: AspectRating = AspectRating.AVERAGE
) -> int:
    """The net rank shift from a GM shift, an advanced descriptor and an aspect."""
    if not _is_int(steps):
        raise RulesError(f"A rank shift is a whole number of steps, not {steps!r}.")
    return steps + (ADVANCED_SHIFT if advanced else 0) + int(AspectRating(aspect))


def effective_value(
    value: int, *, steps: int = 0, advanced: bool = False, aspect: AspectRating = AspectRating.AVERAGE
) -> int | None:
    """The value a roll is made against after every shift, summed first and applied once."""
    return shift(value, total_shift(steps=steps, advanced=advanced, aspect=aspect))


# --------------------------------------------------------------------------- the 5x5 check


def dice_for(value: int | None) -> int:
    """How many d6 a check against ``value`` takes: none below the ladder, one at -5, else two."""
    if value is None:
        return 0
    return 1 if _rank(value) == POOR else 2


def _trump_face(doubles_token: bool) -> int:
    return TOKEN_TRUMP_FACE if doubles_token else TRUMP_FACE


@dataclass(frozen=True)
class Check:
    """One 5x5 check read from its faces."""

    value: int | None
    dice: tuple[int, ...]
    doubles_token: bool
    success: bool
    trump: bool
    doubles: bool

    @property
    def product(self) -> int | None:
        return self.dice[0] * self.dice[1] if len(self.dice) == 2 else None

    @property
    def outcome(self) -> Outcome:
        return Outcome.of(self.success, trump=self.trump)


def check(value: int | None, dice: Iterable[int], *, doubles_token: bool = False) -> Check:
    """Read a 5x5 check: any trump succeeds, else the product must be <= min(value, 16)."""
    faces = check_faces(dice, sides=6, count=dice_for(value))
    if value is None:
        # Below the ladder there is no roll at all, not even a trump.
        return Check(None, faces, bool(doubles_token), False, False, False)
    trump = any(f >= _trump_face(doubles_token) for f in faces)
    doubles = len(faces) == 2 and faces[0] == faces[1]
    if value == POOR:
        success = trump  # "roll one less die": only a trump can succeed
    else:
        success = trump or faces[0] * faces[1] <= min(value, MAX_TARGET)
    return Check(value, faces, bool(doubles_token), success, trump, doubles)


def outcome_odds(value: int | None, *, doubles_token: bool = False) -> dict[str, Fraction]:
    """Exact odds of 'trump', 'success' (without trump) and 'failure'; they sum to 1."""
    return dict(_outcome_odds(value, bool(doubles_token)))


@cache  # a fresh dict is handed out above, so callers cannot spoil the cached one
def _outcome_odds(value: int | None, doubles_token: bool) -> tuple[tuple[str, Fraction], ...]:
    n = dice_for(value)
    counts = {"trump": 0, "success": 0, "failure": 0}
    if n == 0:
        return (("trump", Fraction(0)), ("success", Fraction(0)), ("failure", Fraction(1)))
    outcomes = [(a,) for a in range(1, 7)] if n == 1 else [(a, b) for a in range(1, 7) for b in range(1, 7)]
    for faces in outcomes:
        c = check(value, faces, doubles_token=doubles_token)
        counts["trump" if c.trump else "success" if c.success else "failure"] += 1
    return tuple((k, Fraction(v, len(outcomes))) for k, v in counts.items())


def chance(value: int | None, *, doubles_token: bool = False) -> Fraction:
    """Exact chance that a 5x5 check against ``value`` succeeds (None -> 0)."""
    odds = outcome_odds(value, doubles_token=bool(doubles_token))
    return odds["trump"] + odds["success"]


# --------------------------------------------------------------------------- task rolls


@dataclass(frozen=True)
class TaskRoll:
    """A rolled 5x5 check with every face and the doubles-token bookkeeping."""

    value: int
    steps: int  # net shift applied (GM, advanced, aspect)
    target: int | None
    faces: tuple[int, ...]
    success: bool
    trump: bool
    doubles: bool
    token_spent: bool
    token_earned: bool  # a new token actually gained (not already holding one)
    token_held: bool  # holds a token after this roll

    @property
    def outcome(self) -> Outcome:
        """Trump, success or failure: a trump is a success the feed marks apart."""
        return Outcome.of(self.success, trump=self.trump)

    def replay(self) -> Check:
        """The same check read again from the logged faces."""
        return check(self.target, self.faces, doubles_token=self.token_spent)


def _token_after(*, holding: bool, spent: bool, doubles: bool) -> tuple[bool, bool]:
    kept = holding and not spent
    earned = doubles and not kept  # nobody holds more than one token
    return earned, kept or doubles


def roll_task(
    roller: Roller,
    value: int,
    *,
    steps: int = 0,
    advanced: bool = False,
    aspect: AspectRating = AspectRating.AVERAGE,
    doubles_token: bool = False,
    holding_token: bool = False,
) -> TaskRoll:
    """Roll a 5x5 check; ``doubles_token`` spends a held token so 5s trump too."""
    net = total_shift(steps=steps, advanced=advanced, aspect=aspect)
    target = shift(value, net)
    faces = tuple(roller.dice(dice_for(target), 6))
    c = check(target, faces, doubles_token=doubles_token)
    earned, held = _token_after(
        holding=holding_token or doubles_token, spent=bool(doubles_token), doubles=c.doubles
    )
    return TaskRoll(
        value, net, target, faces, c.success, c.trump, c.doubles, bool(doubles_token), earned, held
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


# --------------------------------------------------------------------------- conditions


def condition(hp: int) -> str:
    """'healthy' above 0, 'unconscious' at 0, 'dying' from -1 to -9, 'dead' at -10 or below."""
    if not _is_int(hp):
        raise RulesError(f"Hit points are a whole number, not {hp!r}.")
    if hp > 0:
        return "healthy"
    if hp == 0:
        return "unconscious"
    return "dying" if hp > DEAD_AT else "dead"


def minutes_to_next_loss(hp: int) -> int | None:
    """Minutes until a dying character loses the next HP (10 + current HP); None if not dying."""
    return 10 + hp if condition(hp) == "dying" else None


def minutes_to_death(hp: int) -> int | None:
    """Minutes a dying character has left without healing; None if not dying."""
    if condition(hp) != "dying":
        return None
    return sum(10 + h for h in range(hp, DEAD_AT, -1))


def bleed(hp: int, minutes: int) -> tuple[int, int]:
    """(HP, minutes already run toward the next loss) after ``minutes`` untended.

    The minutes left over count toward the next loss, so time told in pieces bleeds like time told at
    once; they are 0 for anyone not dying (nothing is counting).
    """
    if not _is_int(minutes) or minutes < 0:
        raise RulesError(f"Elapsed time is a whole number of minutes, 0 or more, not {minutes!r}.")
    condition(hp)
    while condition(hp) == "dying" and minutes >= 10 + hp:
        minutes -= 10 + hp
        hp -= 1
    return hp, minutes if condition(hp) == "dying" else 0


def apply_damage(hp: int, amount: int) -> int:
    """HP after taking ``amount`` damage or harm."""
    condition(hp)
    if not _is_int(amount) or amount < 0:
        raise RulesError(f"Damage is a whole number 0 or more, not {amount!r}.")
    return hp - amount


def apply_healing(hp: int, amount: int, *, max_hp: int) -> int:
    """HP after healing ``amount``: never above the maximum, and the dead stay dead."""
    if condition(hp) == "dead":
        raise RulesError("A dead character cannot be healed.")
    if not _is_int(amount) or amount < 0:
        raise RulesError(f"Healing is a whole number 0 or more, not {amount!r}.")
    return max(hp, min(max_hp, hp + amount))


def natural_recovery(hp: int, days: int, *, max_hp: int) -> int:
    """HP after ``days`` of rest: 1 HP a day up to the maximum; the dying need healing first."""
    if not _is_int(days) or days < 0:
        raise RulesError(f"Days of rest are a whole number, 0 or more, not {days!r}.")
    state = condition(hp)
    if state == "dead":
        raise RulesError("A dead character does not recover.")
    if state == "dying":
        raise RulesError("A dying character loses HP by the minute and needs healing before resting.")
    return max(hp, min(max_hp, hp + days))


# --------------------------------------------------------------------------- combat


def dodges_per_round(*, shield: bool = False, offhand_dagger: bool = False) -> int:
    """Dodge attempts a character gets each round: 1, or 2 with a shield or off-hand dagger."""
    return 2 if shield or offhand_dagger else 1


def can_dodge(dodges_used: int, *, shield: bool = False, offhand_dagger: bool = False) -> bool:
    """Whether another dodge is allowed this round."""
    if not _is_int(dodges_used) or dodges_used < 0:
        raise RulesError(f"Dodges used is a whole number, 0 or more, not {dodges_used!r}.")
    return dodges_used < dodges_per_round(shield=shield, offhand_dagger=offhand_dagger)


@dataclass(frozen=True)
class TurnOrder:
    """Combat order: players who stole initiative, then the GM's side, then the other players."""

    stole: tuple[str, ...]
    gm_side: tuple[str, ...]
    players: tuple[str, ...]

    @property
    def phases(self) -> tuple[tuple[str, ...], ...]:
        return (self.stole, self.gm_side, self.players)

    def flat(self) -> tuple[str, ...]:
        return self.stole + self.gm_side + self.players


def turn_order(*, players: Sequence[str], gm_side: Sequence[str], stole: Iterable[str] = ()) -> TurnOrder:
    """Order a round: initiative thieves first, the GM's side second, remaining players third."""
    players = tuple(players)
    thieves = set(stole)
    unknown = thieves - set(players)
    if unknown:
        raise RulesError(f"Only player characters can steal initiative: {', '.join(sorted(unknown))}.")
    return TurnOrder(
        tuple(p for p in players if p in thieves),
        tuple(gm_side),
        tuple(p for p in players if p not in thieves),
    )


@dataclass(frozen=True)
class AttackRoll:
    """One attack: to-hit check, the target's dodge if it had one, and the damage if it landed."""

    hit: TaskRoll
    dodge: TaskRoll | None
    damage: DamageRoll | None

    @property
    def landed(self) -> bool:
        return self.hit.success and not (self.dodge is not None and self.dodge.success)

    @property
    def attacker_token_held(self) -> bool:
        """Whether the attacker still holds a doubles token after the hit and damage rolls."""
        spent_on_damage = self.damage is not None and self.damage.token_spent
        return self.hit.token_held and not spent_on_damage


def roll_to_hit(
    roller: Roller,
    attack: int,
    *,
    steps: int = 0,
    attack_token: bool = False,
    damage_token: bool = False,
    holding_token: bool = False,
) -> TaskRoll:
    """An attack's to-hit check. A token kept for the damage (``damage_token``) is still held through it,
    so doubles earn nothing new; one token pays for one roll, the hit or the damage."""
    if attack_token and damage_token:
        raise RulesError("One doubles token pays for one roll: spend it on the hit or on the damage.")
    return roll_task(
        roller, attack, steps=steps, doubles_token=attack_token, holding_token=holding_token or damage_token
    )


@dataclass(frozen=True)
class AfterHit:
    """What follows a hit: the target's dodge if it had one, and the damage unless it dodged."""

    dodge: TaskRoll | None
    damage: DamageRoll | None


def roll_after_hit(
    roller: Roller,
    *,
    db: int,
    av: int = 0,
    dodge: int | None = None,
    dodge_steps: int = 0,
    dodge_token: bool = False,
    damage_token: bool = False,
    dodge_holding_token: bool = False,
) -> AfterHit:
    """The hit target's dodge (``dodge`` None: none left), then the damage unless the dodge succeeds."""
    _check_db_av(db, av)
    dodged = None
    if dodge is not None:
        dodged = roll_task(
            roller, dodge, steps=dodge_steps, doubles_token=dodge_token, holding_token=dodge_holding_token
        )
        if dodged.success:
            return AfterHit(dodged, None)
    return AfterHit(dodged, roll_damage(roller, db=db, av=av, doubles_token=damage_token))


def roll_attack(
    roller: Roller,
    *,
    attack: int,
    db: int,
    av: int = 0,
    dodge: int | None = None,
    attack_steps: int = 0,
    dodge_steps: int = 0,
    attack_token: bool = False,
    dodge_token: bool = False,
    damage_token: bool = False,
    holding_token: bool = False,
    dodge_holding_token: bool = False,
) -> AttackRoll:
    """Roll to hit, let the target dodge (``dodge`` None: no dodge left), then roll damage on a hit.

    ``holding_token``/``dodge_holding_token`` say the attacker/target already holds a token it does
    not spend, so doubles earn nothing new and the token is still held afterwards. An encounter rolls
    the two halves apart (``roll_to_hit``, ``roll_after_hit``): a hit player character's player
    declares the dodge in between.
    """
    if attack_token and damage_token:
        raise RulesError("One doubles token pays for one roll: spend it on the hit or on the damage.")
    _check_db_av(db, av)
    hit = roll_to_hit(
        roller,
        attack,
        steps=attack_steps,
        attack_token=attack_token,
        damage_token=damage_token,
        holding_token=holding_token,
    )
    if not hit.success:
        return AttackRoll(hit, None, None)
    after = roll_after_hit(
        roller,
        db=db,
        av=av,
        dodge=dodge,
        dodge_steps=dodge_steps,
        dodge_token=dodge_token,
        damage_token=damage_token,
        dodge_holding_token=dodge_holding_token,
    )
    return AttackRoll(hit, after.dodge, after.damage)


# --------------------------------------------------------------------------- equipment tables


@dataclass(frozen=True)
class Weapon:
    db: int
    name: str
    examples: tuple[str, ...]


@dataclass(frozen=True)
class Armor:
    av: int
    name: str
    examples: tuple[str, ...]


WEAPONS: tuple[Weapon, ...] = (
    Weapon(0, "No weapon", ("untrained fist",)),
    Weapon(1, "Improvised weapon", ("bottle", "barstool", "rock")),
    Weapon(2, "Light weapon", ("knife", "black jack", "small hand gun", "trained fist")),
    Weapon(3, "Medium weapon", ("short-sword", "mace", "medium hand gun", "light rifle")),
    Weapon(4, "Large weapon", ("bastard sword", "war hammer", "large hand gun", "medium rifle")),
    Weapon(5, "Massive weapon", ("claymore", "battle axe", "heavy rifle")),
)

ARMOR: tuple[Armor, ...] = (
    Armor(0, "Scant or no clothes", ("boxers", "lingerie")),
    Armor(-1, "Light clothes", ("short sleeved shirt and slacks", "summer dress")),
    Armor(-2, "Medium clothes", ("3 piece suit", "autumn wear with light jacket")),
    Armor(-3, "Heavy clothes", ("winter wear with heavy coat", "soft leather")),
    Armor(-4, "Light armor", ("studded leather", "hard leather")),
    Armor(-5, "Medium armor", ("chain", "light plate")),
    Armor(-6, "Heavy armor", ("heavy plate",)),
)

# --------------------------------------------------------------------------- descriptors & XP


@dataclass(frozen=True)
class Descriptor:
    """One line of the sheet. For HP, ``value`` is the rank; the sheet shows rank + 10 hit points."""

    name: str
    value: int
    advanced: bool = False
    exclusive: ExclusiveAction | None = None

    @property
    def is_hp(self) -> bool:
        return self.name.strip().casefold() == HP_NAME.casefold()

    @property
    def hp(self) -> int | None:
        return self.value + HP_BONUS if self.is_hp else None


def hp_points(rank: int) -> int:
    """Hit points for an HP descriptor at ``rank`` (rank + 10)."""
    return _rank(rank, what="An HP rank") + HP_BONUS


def hp_rank(points: int) -> int:
    """The ladder rank behind a hit point maximum (points - 10)."""
    if not _is_int(points):
        raise RulesError(f"Hit points are a whole number, not {points!r}.")
    return _rank(points - HP_BONUS, what="Hit points less 10")


def ranked_values(order: Sequence[str]) -> dict[str, int]:
    """Creation values for six names (most important first, one 'HP'): 6,4,4,2,2,-5; HP +10."""
    names = list(order)
    if len(names) != len(CREATION_VALUES):
        raise FieldError(
            f"Rank exactly six descriptors (five of your own plus HP), not {len(names)}.", field="order"
        )
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise FieldError("Every descriptor needs a name.", field=f"order[{i}]")
        if len(name) > NAME_MAX_LENGTH:
            raise FieldError(f"Keep descriptor names to {NAME_MAX_LENGTH} characters.", field=f"order[{i}]")
        key = name.strip().casefold()
        if key in seen:
            raise FieldError(f"'{name.strip()}' is ranked twice.", field=f"order[{i}]")
        seen.add(key)
    if HP_NAME.casefold() not in seen:
        raise FieldError("HP must be ranked among the six descriptors.", field="order")
    return {
        name: value + (HP_BONUS if name.strip().casefold() == HP_NAME.casefold() else 0)
        for name, value in zip(names, CREATION_VALUES, strict=True)
    }


def build_character(
    order: Sequence[str],
    *,
    advanced: Iterable[str] = (),
    exclusive: Mapping[str, ExclusiveAction] | None = None,
) -> tuple[Descriptor, ...]:
    """The six starting descriptors from a ranking (HP kept as its rank), validated for creation."""
    values = ranked_values(order)
    adv = {a.strip().casefold() for a in advanced}
    excl = {k.strip().casefold(): v for k, v in (exclusive or {}).items()}
    known = {n.strip().casefold() for n in values}
    for extra in (adv | set(excl)) - known:
        raise FieldError(f"'{extra}' is not one of the ranked descriptors.", field="order")
    out = tuple(
        Descriptor(
            name.strip(),
            CREATION_VALUES[i],
            name.strip().casefold() in adv,
            excl.get(name.strip().casefold()),
        )
        for i, name in enumerate(values)
    )
    validate_descriptors(out, creation=True)
    return out


def validate_descriptors(descriptors: Sequence[Descriptor], *, creation: bool = False) -> None:
    """Raise FieldError unless the set is legal: one HP, one poor, caps on 12s and 16s, ranks in range."""
    ds = list(descriptors)
    seen: dict[str, int] = {}
    for i, d in enumerate(ds):
        f = f"descriptors[{i}]"
        if not isinstance(d, Descriptor):
            raise FieldError("Each entry must be a descriptor.", field=f)
        if not isinstance(d.name, str) or not d.name.strip():
            raise FieldError("Every descriptor needs a name.", field=f"{f}.name")
        if len(d.name) > NAME_MAX_LENGTH:
            raise FieldError(f"Keep descriptor names to {NAME_MAX_LENGTH} characters.", field=f"{f}.name")
        key = d.name.strip().casefold()
        if key in seen:
            raise FieldError(f"'{d.name.strip()}' appears twice.", field=f"{f}.name")
        seen[key] = i
        if not _is_int(d.value) or d.value not in RANKS:
            raise FieldError(
                f"{d.name.strip()}: {d.value!r} is not a rank on the ladder ({', '.join(map(str, RANKS))}).",
                field=f"{f}.value",
            )
        if d.value == UNTRAINED and not d.is_hp:
            raise FieldError(
                f"{d.name.strip()}: untrained (0) is everyone's default; leave it off the sheet.",
                field=f"{f}.value",
            )
        cap = ADVANCED_CAP if d.advanced else BASIC_CAP
        if d.value > cap:
            raise FieldError(
                f"{d.name.strip()}: a basic descriptor stops at 16; only advanced "
                f"descriptors reach {d.value}.",
                field=f"{f}.value",
            )
        if d.is_hp and d.advanced:
            raise FieldError("HP cannot be an advanced descriptor.", field=f"{f}.advanced")
        if d.exclusive is not None and not isinstance(d.exclusive, ExclusiveAction):
            raise FieldError(f"{d.name.strip()}: pick one exclusive action at most.", field=f"{f}.exclusive")
        if d.is_hp and d.exclusive is not None:
            raise FieldError("HP cannot improve an exclusive action.", field=f"{f}.exclusive")
    hp = [i for i, d in enumerate(ds) if d.is_hp]
    if len(hp) != 1:
        raise FieldError("The sheet needs exactly one HP descriptor.", field="descriptors")
    named = len(ds) - 1
    if creation and named != 5:
        raise FieldError(
            f"A new character has five descriptors besides HP, not {named}.", field="descriptors"
        )
    if named < 5:
        raise FieldError(
            f"A character keeps at least five descriptors besides HP, not {named}.", field="descriptors"
        )
    if creation and sorted(d.value for d in ds) != sorted(CREATION_VALUES):
        raise FieldError(
            "A new character's descriptors are ranked 6, 4, 4, 2, 2 and -5 (poor).", field="descriptors"
        )
    poor = [d for d in ds if d.value == POOR]
    if len(poor) != 1:
        raise FieldError(
            f"A character has exactly one poor (-5) descriptor, not {len(poor)}.", field="descriptors"
        )
    twelves = sum(d.value == 12 for d in ds)
    if twelves > MAX_TWELVES:
        raise FieldError(f"At most {MAX_TWELVES} descriptors can be master (12).", field="descriptors")
    legendary = sum(d.value >= 16 for d in ds)
    if legendary > MAX_LEGENDARY:
        raise FieldError("At most one descriptor can be legendary (16) or higher.", field="descriptors")


def improvement_cost(value: int, *, advanced: bool = False) -> int:
    """XP to raise ``value`` one rank (0 -> 2 costs 2): the new rank's value."""
    _rank(value)
    if value == POOR:
        raise RulesError("A poor (-5) descriptor cannot be improved; it can only be swapped for another.")
    cap = ADVANCED_CAP if advanced else BASIC_CAP
    if value >= cap:
        kind = "An advanced" if advanced else "A basic"
        raise RulesError(f"{kind} descriptor cannot go above {cap}.")
    return shift(value, 1)  # type: ignore[return-value]


@dataclass(frozen=True)
class Advancement:
    descriptors: tuple[Descriptor, ...]
    cost: int


def _find(ds: Sequence[Descriptor], name: str) -> int:
    key = name.strip().casefold()
    for i, d in enumerate(ds):
        if d.name.strip().casefold() == key:
            return i
    raise FieldError(f"There is no descriptor called '{name.strip()}'.", field="name")


def _afford(cost: int, xp: int | None) -> None:
    if xp is not None and cost > xp:
        raise FieldError(f"That costs {cost} XP, and only {xp} XP is available.", field="xp")


def improve(descriptors: Sequence[Descriptor], name: str, *, xp: int | None = None) -> Advancement:
    """Raise one descriptor a rank, checking the caps and (optionally) the XP available."""
    ds = list(descriptors)
    i = _find(ds, name)
    try:
        cost = improvement_cost(ds[i].value, advanced=ds[i].advanced)
    except RulesError as e:
        raise FieldError(str(e), field="name") from e
    _afford(cost, xp)
    ds[i] = replace(ds[i], value=shift(ds[i].value, 1))
    validate_descriptors(ds)
    return Advancement(tuple(ds), cost)


def add_descriptor(
    descriptors: Sequence[Descriptor],
    name: str,
    *,
    advanced: bool = False,
    exclusive: ExclusiveAction | None = None,
    xp: int | None = None,
) -> Advancement:
    """Add a new descriptor at novice (2) for 2 XP."""
    _afford(NEW_DESCRIPTOR_COST, xp)
    new = Descriptor(name.strip(), NEW_DESCRIPTOR_COST, advanced, exclusive)  # a new one starts at 2
    ds = (*descriptors, new)
    validate_descriptors(ds)
    return Advancement(ds, NEW_DESCRIPTOR_COST)


def swap_poor(descriptors: Sequence[Descriptor], new_name: str, *, xp: int | None = None) -> Advancement:
    """Trade the poor (-5) descriptor for a different one (GM approval and role play): 5 XP."""
    ds = list(descriptors)
    poor = [i for i, d in enumerate(ds) if d.value == POOR]
    if len(poor) != 1:
        raise FieldError("There is no single poor descriptor to swap.", field="descriptors")
    old = ds[poor[0]]
    if not new_name or not new_name.strip() or new_name.strip().casefold() == old.name.strip().casefold():
        raise FieldError("Name a different weakness to take in its place.", field="name")
    _afford(POOR_SWAP_COST, xp)
    if old.is_hp:
        # HP never leaves the sheet: it falls back to untrained (10 HP) and the new weakness is added.
        ds[poor[0]] = replace(old, value=UNTRAINED)
        ds.append(Descriptor(new_name.strip(), POOR))
    else:
        ds[poor[0]] = Descriptor(new_name.strip(), POOR)
    validate_descriptors(ds)
    return Advancement(tuple(ds), POOR_SWAP_COST)
