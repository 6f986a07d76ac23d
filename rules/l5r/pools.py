"""The weapons, and :class:`Pool`: a roll as the sheet writes it (before the Ten Dice Rule), with the
pools of a skill, a trait, a ring, a weapon's or a bow's damage and a spell."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from rules.dice import RulesError
from rules.l5r.odds import chance
from rules.l5r.ranks import SKILL_MAX, SKILL_MIN, TRAIT_MAX, TRAIT_MIN, _count, _int, _rank, ten_dice

# --------------------------------------------------------------------------- weapons


@dataclass(frozen=True)
class Weapon:
    name: str
    rolled: int
    kept: int
    bow_strength: int | None = None  # bows add their own strength instead of the wielder's

    @property
    def dr(self) -> str:
        return f"{self.rolled}k{self.kept}"


UNARMED = Weapon("Unarmed", 0, 1)
WEAPONS: tuple[Weapon, ...] = (
    UNARMED,
    Weapon("Dai tsuchi", 5, 2),  # from the seed
    Weapon("Katana", 3, 2),
    Weapon("Wakizashi", 2, 2),
    Weapon("Tanto", 1, 1),
)
BOWS: tuple[Weapon, ...] = (
    Weapon("Yumi", 0, 0, bow_strength=3),  # from the seed
    Weapon("Hankyu", 0, 0, bow_strength=2),
    Weapon("Daikyu", 0, 0, bow_strength=4),
)
ARROWS: tuple[Weapon, ...] = (
    Weapon("Standard arrow", 2, 2),  # from the seed
    Weapon("Armor-piercing arrow", 1, 2),
)


# --------------------------------------------------------------------------- pools


@dataclass(frozen=True)
class Pool:
    """A roll as written on the sheet, before the Ten Dice Rule."""

    rolled: int
    kept: int
    bonus: int = 0
    explode: bool = True
    raises_allowed: bool = True  # unskilled rolls may not raise
    attack: bool = False  # a failed attack gets no second attempt
    label: str = ""
    reroll_ones: bool = False  # an emphasis applies: each die first showing 1 is rolled again, once

    def __post_init__(self):
        _count("rolled dice", self.rolled, 0)
        _count("kept dice", self.kept, 1)
        _int("bonus", self.bonus)

    @property
    def notation(self) -> str:
        text = f"{'' if self.explode else 'u'}{self.rolled}k{self.kept}"
        if self.bonus:
            text += f"{self.bonus:+d}"
        return text

    def effective(self, *, odd_die_bonus: bool = False) -> tuple[int, int, int]:
        return ten_dice(self.rolled, self.kept, self.bonus, odd_die_bonus=odd_die_bonus)

    def chance(self, tn: int, *, odd_die_bonus: bool = False) -> Fraction:
        return chance(
            self.rolled,
            self.kept,
            tn,
            explode=self.explode,
            bonus=self.bonus,
            odd_die_bonus=odd_die_bonus,
            reroll_ones=self.reroll_ones,
        )

    def with_emphasis(self) -> Pool:
        """The same pool with an emphasis applying: 1s on the first roll are rolled again, once."""
        return replace(self, reroll_ones=True)


def skill_pool(trait: int, skill: int, *, bonus: int = 0, attack: bool = False, label: str = "") -> Pool:
    """Trait + Skill rolled, Trait kept; with no ranks it is an unskilled roll (no explosions, no raises)."""
    trait = _rank("trait", trait, TRAIT_MIN, TRAIT_MAX)
    skill = _rank("skill", skill, SKILL_MIN, SKILL_MAX)
    skilled = skill > 0
    return Pool(
        trait + skill, trait, bonus, explode=skilled, raises_allowed=skilled, attack=attack, label=label
    )


def trait_pool(trait: int, *, bonus: int = 0, label: str = "") -> Pool:
    """A trait roll: roll and keep the trait."""
    trait = _rank("trait", trait, TRAIT_MIN, TRAIT_MAX)
    return Pool(trait, trait, bonus, label=label)


def ring_pool(ring: int, *, bonus: int = 0, label: str = "") -> Pool:
    """A ring roll: roll and keep the ring."""
    ring = _rank("ring", ring, TRAIT_MIN, TRAIT_MAX)
    return Pool(ring, ring, bonus, label=label)


def damage_pool(weapon: Weapon, strength: int, *, bonus: int = 0, label: str = "") -> Pool:
    """Melee damage: the weapon's DR with Strength added to the rolled dice (unarmed is 0k1)."""
    strength = _rank("strength", strength, TRAIT_MIN, TRAIT_MAX)
    if weapon.bow_strength is not None:
        raise RulesError(f"{weapon.name} is a bow: its damage uses the arrow and the bow's own strength.")
    return Pool(weapon.rolled + strength, weapon.kept, bonus, label=label or weapon.name)


def bow_damage_pool(bow: Weapon, arrow: Weapon, *, bonus: int = 0, label: str = "") -> Pool:
    """Bow damage: the arrow's DR with the bow's own strength added to the rolled dice."""
    if bow.bow_strength is None:
        raise RulesError(f"{bow.name} is not a bow.")
    return Pool(
        arrow.rolled + bow.bow_strength, arrow.kept, bonus, label=label or f"{bow.name}, {arrow.name}"
    )


def spell_pool(school_rank: int, ring: int, *, bonus: int = 0, label: str = "") -> Pool:
    """Spell casting: school rank + ring rolled, ring kept."""
    school_rank = _rank("school rank", school_rank, 1, 10)
    ring = _rank("ring", ring, TRAIT_MIN, TRAIT_MAX)
    return Pool(school_rank + ring, ring, bonus, label=label)
