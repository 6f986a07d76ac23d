"""Combat's numbers: armor and Reduction, the wound ranks and what each still allows, the Armor TN and
the initiative pool."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules.dice import RulesError
from rules.l5r.pools import Pool
from rules.l5r.ranks import TRAIT_MAX, TRAIT_MIN, _int, _rank

# ------------------------------------------------------------------ combat: initiative, Armor TN, wounds

ARMOR_TN_BASE = 5  # Armor TN = 5 x Reflexes + 5 (+ armor): not in the seed, the usual L5R figure
ARMOR_MAX = 50  # no armor comes near; keeps a typo off the Armor TN
REDUCTION_MAX = 20  # the heaviest armor's Reduction is 5; keeps a typo off every damage roll


@dataclass(frozen=True)
class Armor:
    name: str
    bonus: int  # added to the Armor TN
    reduction: int  # taken off every damage roll that hits the wearer


# Not in the seed (l.46 only says a hit inflicts Wounds): L5R 4th edition's armor, Book of Fire.
ARMORS: tuple[Armor, ...] = (Armor("None", 0, 0), Armor("Light armor", 5, 3), Armor("Heavy armor", 10, 5))
HEALTHY_PER_EARTH, RANK_PER_EARTH = 5, 2


class WoundLevel(NamedTuple):
    name: str
    tn_penalty: int | None  # added to the TN of every roll; None: the character cannot act
    limit: int | None  # the most wounds this rank holds (running total); None for Dead


# Not in the seed (L5R 4e's chart): the ranks in order with their TN penalties; each holds Earth x 2
# wounds, Healthy Earth x 5. Past the last (Out) the character is dead.
WOUND_PENALTIES: tuple[tuple[str, int | None], ...] = (
    ("Healthy", 0),
    ("Nicked", 3),
    ("Grazed", 5),
    ("Hurt", 10),
    ("Injured", 15),
    ("Crippled", 20),
    ("Down", 40),
    ("Out", None),
)
OUT, DEAD = "Out", "Dead"


def wound_levels(earth: int) -> tuple[WoundLevel, ...]:
    """The wound chart of a character with this Earth: each rank and the running total it holds."""
    earth = _rank("earth", earth, TRAIT_MIN, TRAIT_MAX)
    levels, limit = [], 0
    for index, (name, penalty) in enumerate(WOUND_PENALTIES):
        limit += earth * (HEALTHY_PER_EARTH if index == 0 else RANK_PER_EARTH)
        levels.append(WoundLevel(name, penalty, limit))
    return tuple(levels)


def wound_rank(wounds: int, earth: int) -> WoundLevel:
    """The rank ``wounds`` falls in (Dead past the Out rank): ``name, tn_penalty, limit``."""
    wounds = _int("number of wounds", wounds)
    if wounds < 0:
        raise RulesError("Wounds cannot be negative.")
    for level in wound_levels(earth):
        if wounds <= level.limit:
            return level
    return WoundLevel(DEAD, None, None)


def wound_penalty(wounds: int, earth: int) -> int:
    """The TN penalty of the rank ``wounds`` falls in (Down's +40 for Out and Dead, who cannot act)."""
    penalty = wound_rank(wounds, earth).tn_penalty
    return WOUND_PENALTIES[-2][1] if penalty is None else penalty


# What a character may still do at each of the last ranks (a reading; the seed has no wound chart).
# Down: no Complex Actions (an attack is one), so no attacks; the character may still speak, spend
# Void and make the rolls the GM asks for (to stay conscious, to crawl away), at Down's +40.
# Out (and Dead): unconscious, no actions and no rolls at all.
DOWN = "Down"


def can_attack(level: WoundLevel) -> bool:
    """Whether a character at this wound rank may still take a Complex Action such as an attack."""
    return level.tn_penalty is not None and level.name != DOWN


def can_roll(level: WoundLevel) -> bool:
    """Whether a character at this wound rank may roll at all (Out and Dead may not)."""
    return level.tn_penalty is not None


def armor_tn(reflexes: int, *, armor: int = 0) -> int:
    """The TN to hit a character: 5 x Reflexes + 5, plus any armor's bonus."""
    reflexes = _rank("reflexes", reflexes, TRAIT_MIN, TRAIT_MAX)
    armor = _int("armor bonus", armor)
    if armor < 0:
        raise RulesError("An armor bonus cannot be negative.")
    return ARMOR_TN_BASE * reflexes + ARMOR_TN_BASE + armor


def reduced_damage(total: int, reduction: int) -> int:
    """The Wounds a damage roll inflicts through armor: its total less the armor's Reduction, never below
    0 (4th edition, Armor: "Reduction" is subtracted from every damage roll)."""
    total = _int("damage total", total)
    reduction = _int("Reduction", reduction)
    if reduction < 0:
        raise RulesError("Reduction cannot be negative.")
    return max(0, total - reduction)


def initiative_pool(
    reflexes: int, school_rank: int, *, extra_rolled: int = 0, extra_kept: int = 0, bonus: int = 0
) -> Pool:
    """Initiative: Reflexes + school (Insight) rank rolled, Reflexes kept, with the GM's changes."""
    reflexes = _rank("reflexes", reflexes, TRAIT_MIN, TRAIT_MAX)
    school_rank = _rank("school rank", school_rank, 1, 10)
    rolled = reflexes + school_rank + _int("extra rolled dice", extra_rolled)
    kept = reflexes + _int("extra kept dice", extra_kept)
    if kept < 1 or rolled < 1:
        raise RulesError(f"An initiative roll of {rolled}k{kept} keeps no dice.")
    return Pool(rolled, kept, bonus, label="Initiative")
