"""The eight traits and the five rings they make, the skill list, a character's ranks checked, and the
table of difficulties."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from rules.dice import RulesError
from rules.l5r.ranks import SKILL_MAX, SKILL_MIN, TRAIT_MAX, TRAIT_MIN, L5RFieldError, _rank

# --------------------------------------------------------------------------- traits and rings

TRAITS = (
    "stamina",
    "willpower",
    "strength",
    "perception",
    "agility",
    "intelligence",
    "reflexes",
    "awareness",
)


class Ring(enum.Enum):
    EARTH = "earth"
    WATER = "water"
    FIRE = "fire"
    AIR = "air"
    VOID = "void"


# Each elemental ring is made of one physical and one mental trait; Void stands alone.
RING_TRAITS: Mapping[Ring, tuple[str, str]] = {
    Ring.EARTH: ("stamina", "willpower"),
    Ring.WATER: ("strength", "perception"),
    Ring.FIRE: ("agility", "intelligence"),
    Ring.AIR: ("reflexes", "awareness"),
}


def _ring(name: Ring | str) -> Ring:
    if isinstance(name, Ring):
        return name
    try:
        return Ring(str(name).strip().lower())
    except ValueError:
        raise RulesError(
            f"There is no {name!r} ring; the rings are Earth, Water, Fire, Air and Void."
        ) from None


def ring_rank(ring: Ring | str, traits: Mapping[str, int], *, void: int | None = None) -> int:
    """The rank of a ring: the lower of its two traits, or the Void rank for Void."""
    ring = _ring(ring)
    if ring is Ring.VOID:
        if void is None:
            raise RulesError("The Void ring has no traits; give the Void rank.")
        return _rank("void", void, TRAIT_MIN, TRAIT_MAX)
    first, second = RING_TRAITS[ring]
    return min(_trait(traits, first), _trait(traits, second))


def rings(traits: Mapping[str, int], *, void: int) -> dict[Ring, int]:
    """All five ring ranks of a character."""
    return {ring: ring_rank(ring, traits, void=void) for ring in Ring}


def _trait(traits: Mapping[str, int], name: str) -> int:
    if name not in traits:
        raise L5RFieldError(name, f"The character has no {name.capitalize()} rank.")
    return _rank(name, traits[name], TRAIT_MIN, TRAIT_MAX)


def validate_character(
    traits: Mapping[str, int], *, void: int, skills: Mapping[str, int] | None = None
) -> None:
    """Check a character's traits, Void and skill ranks; raise L5RFieldError naming the bad field."""
    for name in traits:
        if name not in TRAITS:
            raise L5RFieldError(name, f"{name!r} is not an L5R trait.")
    for name in TRAITS:
        _trait(traits, name)
    _rank("void", void, TRAIT_MIN, TRAIT_MAX)
    for name, rank in (skills or {}).items():
        if skill_info(name) is None:
            raise L5RFieldError(name, f"{name!r} is not on the skill list.")
        _rank(name, rank, SKILL_MIN, SKILL_MAX)


# --------------------------------------------------------------------------- skills


@dataclass(frozen=True)
class Skill:
    name: str
    trait: str  # the usual trait, or "void"
    attack: bool = False  # weapon skills: a failed attack gets no second attempt


# The seed names only Kyujutsu (with Reflexes), Artisan (its example uses Agility) and
# Athletics. The rest is a small standard list with the traits they usually pair with;
# see docs/rules.l5r.md.
SKILLS: tuple[Skill, ...] = (
    Skill("Acting", "awareness"),
    Skill("Animal Handling", "awareness"),
    Skill("Artisan", "agility"),
    Skill("Athletics", "strength"),
    Skill("Battle", "perception"),
    Skill("Calligraphy", "intelligence"),
    Skill("Courtier", "awareness"),
    Skill("Defense", "reflexes"),
    Skill("Divination", "intelligence"),
    Skill("Etiquette", "awareness"),
    Skill("Horsemanship", "agility"),
    Skill("Hunting", "perception"),
    Skill("Iaijutsu", "reflexes"),
    Skill("Investigation", "perception"),
    Skill("Jiujutsu", "agility", attack=True),
    Skill("Kenjutsu", "agility", attack=True),
    Skill("Kyujutsu", "reflexes", attack=True),
    Skill("Lore", "intelligence"),
    Skill("Medicine", "intelligence"),
    Skill("Meditation", "void"),
    Skill("Sincerity", "awareness"),
    Skill("Spellcraft", "intelligence"),
    Skill("Stealth", "agility"),
    Skill("Tea Ceremony", "void"),
)
_SKILLS_BY_NAME = {skill.name.lower(): skill for skill in SKILLS}


def skill_info(name: str) -> Skill | None:
    """The skill of that name (case-insensitive, ignoring an emphasis after a colon), or None."""
    return _SKILLS_BY_NAME.get(str(name).split(":")[0].strip().lower())


# --------------------------------------------------------------------------- difficulty


@dataclass(frozen=True)
class Difficulty:
    tn: int | None  # None: mundane, no roll at all
    name: str


DIFFICULTIES: tuple[Difficulty, ...] = (
    Difficulty(None, "Mundane"),
    Difficulty(5, "Very Easy"),
    Difficulty(10, "Easy"),
    Difficulty(15, "Average"),
    Difficulty(20, "Moderate"),
    Difficulty(25, "Difficult"),
    Difficulty(30, "Very Hard"),
    Difficulty(40, "Heroic"),
    Difficulty(60, "Impossible"),
)


def difficulty_name(tn: int) -> str:
    """The name of the hardest table row whose TN does not exceed ``tn`` ("Mundane" below 5)."""
    name = "Mundane"
    for row in DIFFICULTIES[1:]:
        if tn >= row.tn:
            name = row.name
    return name
