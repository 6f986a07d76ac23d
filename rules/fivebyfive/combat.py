"""Combat: dodges, the turn order, an attack (to hit, the dodge, the damage) and the weapon and armor
tables."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rules.dice import Roller, RulesError
from rules.fivebyfive.chains import DamageRoll, _check_db_av, roll_damage
from rules.fivebyfive.checks import TaskRoll, roll_task
from rules.fivebyfive.ladder import _is_int

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
