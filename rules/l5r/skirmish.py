"""4th edition's skirmish, where the seed stops: the Actions of a Turn, Stances and Maneuvers."""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from rules.dice import RulesError
from rules.l5r.combat import DOWN, WoundLevel
from rules.l5r.pools import Pool, skill_pool
from rules.l5r.ranks import RAISE_STEP, SKILL_MAX, SKILL_MIN, TRAIT_MAX, TRAIT_MIN, _int, _rank

# ------------------------------------------------------------------ the skirmish: actions, stances, maneuvers

# Not in the seed, which names "Maneuvers in combat (described later in this chapter)" (l.26) and stops
# before them: L5R 4th edition's Book of Earth, "Skirmishes" (Actions, Stances, Maneuvers), as readings.


class ActionKind(enum.Enum):
    """4th edition, Actions: a Turn holds one Complex Action or two Simple ones, and Free Actions."""

    FREE = "free"
    SIMPLE = "simple"
    COMPLEX = "complex"


TURN_ACTIONS = 2  # what one Turn holds, counted in Simple Actions: a Complex Action costs both
ACTION_COST = {ActionKind.FREE: 0, ActionKind.SIMPLE: 1, ActionKind.COMPLEX: 2}


class Stance(enum.Enum):
    """4th edition, Stances, chosen at the beginning of a Turn before any Action."""

    ATTACK = "attack"
    FULL_ATTACK = "full_attack"
    DEFENSE = "defense"
    FULL_DEFENSE = "full_defense"
    CENTER = "center"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ").title() + " Stance"


FULL_ATTACK_DICE = (2, 1)  # Full Attack: +2k1 to attack rolls
FULL_ATTACK_ARMOR = -10  # ... and the Armor TN is reduced by 10
CENTER_DICE = (1, 1)  # Center: next round, +1k1 plus the Void Ring on one roll
CENTER_INITIATIVE = 10  # ... and +10 to the Initiative Score for that round
GUARD_BONUS, GUARD_COST = 10, 5  # Guard: the guarded +10 Armor TN, the guard -5, until the guard's next Turn
PRONE_ARMOR = -10  # Prone: -10 Armor TN against melee attacks until the character stands
PRONE_ATTACK_DICE = 2  # ... and -2k0 to its attacks
PRONE_STANCES = (Stance.ATTACK, Stance.DEFENSE)  # the only Stances a prone character may adopt


def action_refusal(
    kind: ActionKind,
    *,
    spent: int,
    stance: Stance,
    level: WoundLevel,
    attack: bool = False,
    void_left: int = 0,
) -> str:
    """Why a combatant may not take an Action of ``kind`` now ("" when it may): 4th edition's Actions
    (one Complex or two Simple a Turn, ``spent`` counting Simple Actions already taken), its Wound Ranks
    (Down: "may only potentially take Free Actions ... and must spend a Void Point in order to be able to
    do so"; Out: none) and its Stances (Full Attack: attacks only; Defense: no attacks; Full Defense: its
    roll is the Turn's Complex Action, Free Actions only; Center: "forfeits all Actions")."""
    if level.tn_penalty is None:
        return f"{level.name}: no actions at all"
    if level.name == DOWN:
        if kind is not ActionKind.FREE:
            return "Down: Free Actions only, each paid with a Void point"
        if void_left < 1:
            return "Down: a Free Action costs a Void point, and none is left"
    if stance is Stance.CENTER and kind is not ActionKind.FREE:
        return "Center Stance: every Action of this Turn is forfeit"
    if stance is Stance.FULL_DEFENSE and kind is not ActionKind.FREE:
        return "Full Defense Stance: its roll was the Turn's Complex Action; Free Actions only"
    if stance is Stance.FULL_ATTACK and kind is not ActionKind.FREE and not attack:
        return "Full Attack Stance: no Simple or Complex Actions but attacks"
    if stance is Stance.DEFENSE and attack:
        return "Defense Stance: no attacks"
    if spent + ACTION_COST[kind] > TURN_ACTIONS:
        left = "nothing but Free Actions" if spent >= TURN_ACTIONS else "one Simple Action"
        return f"one Complex Action or two Simple Actions a Turn: {left} left"
    return ""


def stance_refusal(stance: Stance, *, prone: bool = False) -> str:
    """Why this Stance may not be adopted ("" when it may): a prone character "may only adopt the
    Defense or Attack Stances" (4th edition, Prone)."""
    if prone and stance not in PRONE_STANCES:
        return "Prone: only the Attack or Defense Stance until standing up"
    return ""


def full_defense_pool(reflexes: int, defense: int) -> Pool:
    """Full Defense: "a Defense / Reflexes roll" on declaring the Stance (unskilled without Defense)."""
    return skill_pool(reflexes, defense, label="Full Defense")


def full_defense_bonus(total: int) -> int:
    """Full Defense: "half of the total (rounding up)" is added to the Armor TN until the next Turn."""
    return -(-_int("total", total) // 2)


def stance_armor_bonus(stance: Stance, *, air: int = 0, defense: int = 0, full_defense: int = 0) -> int:
    """What a Stance adds to the Armor TN: Full Attack -10, Defense the Air Ring plus the Defense Skill
    Rank, Full Defense half its Defense / Reflexes roll (``full_defense``, from ``full_defense_bonus``)."""
    if stance is Stance.FULL_ATTACK:
        return FULL_ATTACK_ARMOR
    if stance is Stance.DEFENSE:
        return _rank("air", air, TRAIT_MIN, TRAIT_MAX) + _rank("defense", defense, SKILL_MIN, SKILL_MAX)
    if stance is Stance.FULL_DEFENSE:
        return _int("Full Defense bonus", full_defense)
    return 0


def stance_attack_pool(pool: Pool, stance: Stance, *, ranged: bool) -> Pool:
    """An attack roll in a Stance: Full Attack gives +2k1 to melee attacks and none may be ranged;
    Defense, Full Defense and Center make no attacks at all."""
    if stance in (Stance.DEFENSE, Stance.FULL_DEFENSE, Stance.CENTER):
        raise RulesError(f"No attacks in the {stance.label}.")
    if stance is Stance.FULL_ATTACK:
        if ranged:
            raise RulesError("The Full Attack Stance delivers no ranged attacks.")
        rolled, kept = FULL_ATTACK_DICE
        return replace(pool, rolled=pool.rolled + rolled, kept=pool.kept + kept)
    return pool


def center_pool(pool: Pool, void: int) -> Pool:
    """The roll a Center Stance taken last round helps: +1k1, plus the Void Ring to its total (reading:
    "a bonus of 1k1 plus his Void Ring" as +1k1 and +Void; not +(1 + Void)k1, which the book would write
    as dice)."""
    rolled, kept = CENTER_DICE
    void = _rank("void", void, TRAIT_MIN, TRAIT_MAX)
    return replace(pool, rolled=pool.rolled + rolled, kept=pool.kept + kept, bonus=pool.bonus + void)


def prone_attack_pool(pool: Pool) -> Pool:
    """A prone attacker's roll: -2k0, and never more dice kept than rolled (4th edition, Dice Penalties)."""
    rolled = max(1, pool.rolled - PRONE_ATTACK_DICE)
    return replace(pool, rolled=rolled, kept=min(pool.kept, rolled))


@dataclass(frozen=True)
class Maneuver:
    key: str
    name: str
    raises: int
    help: str = ""


# 4th edition, Maneuvers: what each needs in Raises declared on the attack roll. Increased Damage
# (+1k0 a Raise) is the attack form's own "raises"; Guard needs no roll: a Simple Action of its own.
MANEUVERS: tuple[Maneuver, ...] = (
    Maneuver("called_limb", "Called Shot: a limb", 1, help="the GM rules what striking it does"),
    Maneuver("called_hand", "Called Shot: a hand or foot", 2, help="the GM rules what striking it does"),
    Maneuver("called_head", "Called Shot: the head", 3, help="the GM rules what striking it does"),
    Maneuver("called_eye", "Called Shot: an eye, ear or finger", 4, help="the GM rules what it does"),
    Maneuver("disarm", "Disarm", 3, help="2k1 damage, then a Contested Strength Roll: the loser drops it"),
    Maneuver("extra_attack", "Extra Attack", 5, help="a hit lets the attacker attack again this Turn"),
    Maneuver("feint", "Feint", 2, help="half the margin over the TN added to damage, up to 5 x Insight"),
    Maneuver("knockdown", "Knockdown", 2, help="then a Contested Strength Roll: the loser is prone"),
)
MANEUVERS_BY_KEY = {maneuver.key: maneuver for maneuver in MANEUVERS}
DISARM_DAMAGE = Pool(2, 1, label="Disarm")  # "only 2k1 damage ... regardless of the weapon", no Strength


def maneuver_raises(maneuver: str | None, increased_damage: int = 0) -> int:
    """The Raises an attack declares: its Maneuver's plus Increased Damage's (+1k0 each). A Disarm's
    damage is 2k1 "regardless of the weapon", so it takes no Increased Damage."""
    extra = _int("number of raises", increased_damage)
    if extra < 0:
        raise RulesError("Raises cannot be negative.")
    if not maneuver:
        return extra
    if maneuver not in MANEUVERS_BY_KEY:
        raise RulesError(f"{maneuver!r} is not a maneuver.")
    if maneuver == "disarm" and extra:
        raise RulesError("A Disarm inflicts only 2k1 damage: it takes no Increased Damage raises.")
    return MANEUVERS_BY_KEY[maneuver].raises + extra


def feint_bonus(total: int, tn: int, insight: int) -> int:
    """A successful Feint adds half what the attack roll beat the raised TN by (rounded down: reading, the
    book does not round it) to the damage, at most 5 x the attacker's Insight Rank."""
    margin = _int("total", total) - _int("TN", tn)
    insight = _rank("insight rank", insight, 1, 10)
    return max(0, min(margin // 2, RAISE_STEP * insight))
