"""Legend of the Five Rings Roll & Keep: pools, the Ten Dice Rule, raises and exact odds.

A pool ``XkY`` rolls X ten-sided dice and adds up the Y best. A die showing 10 is rolled
again and the new face added to the same die (an "exploding" die) before anything is kept.
Every odds figure here is an exact :class:`fractions.Fraction`: although exploding dice have
no upper bound, only finitely many outcomes fall short of a TN, so the tail can be lumped.

A skill roll with an emphasis that applies re-rolls each die whose first face is a 1, once, and keeps
the new die whatever it shows (L5R 4th edition, "Emphases"; ``reroll_ones``).

Where the seed stops (it has no combat), 4th edition's skirmish is played: Armor TN and Reduction, wound
ranks, initiative, the Actions of a Turn, Stances and Maneuvers (docs/rules.md, "Readings taken").

Over 500 lines on purpose: this is the whole Roll & Keep engine, one namespace its callers read as
``rules.l5r.X``, in sections (traits and rings, skills, pools, raises, contests, combat, the skirmish,
rolling, exact odds, experience) that share the rank checks and ``Pool``; the odds alone would be a
module of their own in a package split.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import NamedTuple

from rules.dice import Outcome, Roller, RulesError, check_faces

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


def _rank(field: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise L5RFieldError(field, f"{field.capitalize()} must be a whole number.")
    if not low <= value <= high:
        raise L5RFieldError(field, f"{field.capitalize()} must be from {low} to {high}, not {value}.")
    return value


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


# --------------------------------------------------------------------------- reading the dice


def die_total(chain: Sequence[int], *, explode: bool = True) -> int:
    """The value of one die: its faces added up (a 10 is rolled again); one face only without explode."""
    faces = check_faces(chain, sides=SIDES)
    if not faces:
        raise RulesError("A die needs at least one face.")
    if not explode:
        if len(faces) != 1:
            raise RulesError("Dice do not explode on this roll, so each die shows exactly one face.")
        return faces[0]
    if any(face != SIDES for face in faces[:-1]):
        raise RulesError("Only a 10 is rolled again; this die kept rolling after a lower face.")
    if faces[-1] == SIDES:
        raise RulesError("This die ends on a 10, which must be rolled again.")
    return sum(faces)


def kept_positions(
    die_totals: Sequence[int], kept: int, *, choose: Iterable[int] | None = None
) -> tuple[int, ...]:
    """Which dice are kept: the highest by default (earliest first on ties), or the chosen ones."""
    totals = list(die_totals)
    kept = _int("number of kept dice", kept)
    if not 0 <= kept <= len(totals):
        raise RulesError(f"You cannot keep {kept} of {len(totals)} dice.")
    if choose is None:
        order = sorted(range(len(totals)), key=lambda i: (-totals[i], i))
        return tuple(sorted(order[:kept]))
    picked = tuple(sorted(set(choose)))
    if len(picked) != kept or len(picked) != len(list(choose)):
        raise RulesError(f"Choose exactly {kept} different dice to keep.")
    for i in picked:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(totals):
            raise RulesError(f"There is no die number {i!r} in this roll.")
    return picked


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


# --------------------------------------------------------------------------- raises and TNs


@dataclass(frozen=True)
class RaisePlan:
    tn: int  # the TN the roll must now reach
    effects: int  # how many raises' worth of benefit a success brings
    raises: int
    free_raises: int
    free_raises_on_tn: int


def plan_raises(
    tn: int,
    *,
    raises: int = 0,
    void: int,
    free_raises: int = 0,
    free_raises_on_tn: int = 0,
    unskilled: bool = False,
) -> RaisePlan:
    """The TN after raises (+5 each, at most Void) and free raises (spent as effects or -5 TN each)."""
    tn = _int("TN", tn)
    raises = _int("number of raises", raises)
    free_raises = _int("number of free raises", free_raises)
    free_raises_on_tn = _int("number of free raises spent on the TN", free_raises_on_tn)
    void = _rank("void", void, TRAIT_MIN, TRAIT_MAX)
    if min(raises, free_raises, free_raises_on_tn) < 0:
        raise RulesError("Raises cannot be negative.")
    if unskilled and (raises or free_raises):
        raise RulesError("An unskilled roll cannot use raises or free raises.")
    if raises > void:
        raise RulesError(f"With Void {void} you can call at most {void} raises, not {raises}.")
    if free_raises_on_tn > free_raises:
        raise RulesError(f"You have only {free_raises} free raises to spend on the TN.")
    new_tn = max(0, tn + RAISE_STEP * raises - RAISE_STEP * free_raises_on_tn)
    return RaisePlan(new_tn, raises + free_raises - free_raises_on_tn, raises, free_raises, free_raises_on_tn)


def second_attempt_tn(tn: int, *, attack: bool = False) -> int:
    """The TN of a second try at a failed skill roll: +10; attacks never get one."""
    if attack:
        raise RulesError("A missed attack cannot be tried again at +10 TN.")
    return _int("TN", tn) + SECOND_ATTEMPT_PENALTY


def second_attempt_needs_new_situation(trait: str) -> bool:
    """True for Intelligence and Perception rolls, which usually need new information to try again."""
    return str(trait).lower() in ("intelligence", "perception")


# ------------------------------------------------------------------ contests, cooperation, cumulative


def contest_winner(totals: Sequence[int], *, raises: Sequence[int] | None = None) -> int | None:
    """Index of the winner of a contested roll of two or more, or None when the top is tied (re-roll).

    The highest total wins, unless it declared raises and did not beat every other contestant still
    standing by 5 per raise: then it failed, drops out, and the rest are judged the same way. Two sides
    are the book's usual case ("by an increment of 5 for every Raise declared"); several are its "multiple
    characters ... the player who rolls the highest".
    """
    totals = [_int("total", t) for t in totals]
    if len(totals) < 2:
        raise RulesError("A contest needs at least two rolls.")
    declared = [0] * len(totals) if raises is None else [_int("number of raises", r) for r in raises]
    if len(declared) != len(totals) or min(declared) < 0:
        raise RulesError("Give each contestant's raises (0 or more), one per roll.")
    standing = list(range(len(totals)))
    while len(standing) > 1:
        best = max(totals[i] for i in standing)
        leaders = [i for i in standing if totals[i] == best]
        if len(leaders) > 1:
            return None
        leader = leaders[0]
        runner_up = max(totals[i] for i in standing if i != leader)
        if best - runner_up >= RAISE_STEP * declared[leader]:
            return leader
        standing.remove(leader)  # its raises were not beaten by: it failed the roll
    return standing[0]


def group_effort_bonus(helper_ranks: Iterable[int]) -> int:
    """First kind of cooperative roll: the one roller adds the skill ranks of everyone helping."""
    return sum(_rank("skill", r, SKILL_MIN, SKILL_MAX) for r in helper_ranks)


def roped_team_bonuses(ranks: Sequence[int]) -> tuple[int, ...]:
    """Second kind: everyone rolls; all but the best-ranked member add the best rank (one leader on ties)."""
    ranks = [_rank("skill", r, SKILL_MIN, SKILL_MAX) for r in ranks]
    if not ranks:
        return ()
    best = max(ranks)
    leader = ranks.index(best)
    return tuple(0 if i == leader else best for i in range(len(ranks)))


@dataclass(frozen=True)
class CumulativeProgress:
    remaining: int  # TN still to go, never below 0
    counted: tuple[bool, ...]  # which rolls counted against the total
    done: bool


def cumulative(tn: int, totals: Iterable[int], *, minimum: int = 0) -> CumulativeProgress:
    """A cumulative roll: each total reaching ``minimum`` is taken off the TN until nothing is left."""
    remaining = _int("TN", tn)
    counted = []
    for total in totals:
        total = _int("total", total)
        counts = remaining > 0 and total >= minimum
        counted.append(counts)
        if counts:
            remaining = max(0, remaining - total)
    return CumulativeProgress(remaining, tuple(counted), remaining <= 0)


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


# --------------------------------------------------------------------------- rolling


@dataclass(frozen=True)
class RollResult:
    """One L5R roll, with every face so the log can be replayed through :func:`resolve`."""

    chains: tuple[tuple[int, ...], ...]
    die_totals: tuple[int, ...]
    kept: tuple[int, ...]  # positions of the kept dice
    bonus: int
    total: int
    tn: int | None
    success: bool | None
    explode: bool
    notation: str  # the pool actually rolled, after the Ten Dice Rule
    #: Positions of the dice whose first face, a 1, an emphasis rolled again (their chain is the new die).
    rerolled: tuple[int, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """Success or failure against the TN; none for a roll without one (damage)."""
        return Outcome.of(self.success)


def resolve(
    chains: Sequence[Sequence[int]],
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    tn: int | None = None,
    choose: Iterable[int] | None = None,
    rerolled: Iterable[int] = (),
) -> RollResult:
    """Read a rolled pool (already folded by the Ten Dice Rule): totals, kept dice, total, success.

    ``rerolled`` names the dice an emphasis rolled again (each first showed a 1); their chains are the
    new dice, which stand whatever they show."""
    chains = tuple(tuple(c) for c in chains)
    rerolled = tuple(sorted(set(rerolled)))
    if any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(chains) for i in rerolled):
        raise RulesError("A re-rolled die must be one of the roll's dice.")
    totals = tuple(die_total(c, explode=explode) for c in chains)
    if kept > len(totals):
        raise RulesError(f"You cannot keep {kept} of {len(totals)} dice.")
    positions = kept_positions(totals, kept, choose=choose)
    total = sum(totals[i] for i in positions) + _int("bonus", bonus)
    success = None if tn is None else total >= _int("TN", tn)
    notation = f"{'' if explode else 'u'}{len(totals)}k{kept}" + (f"{bonus:+d}" if bonus else "")
    return RollResult(chains, totals, positions, bonus, total, tn, success, explode, notation, rerolled)


def roll(
    roller: Roller,
    rolled: int,
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    tn: int | None = None,
    odd_die_bonus: bool = False,
    reroll_ones: bool = False,
) -> RollResult:
    """Roll XkY on the server: Ten Dice Rule, exploding tens, keep the highest.

    With ``reroll_ones`` (an emphasis), once every die is rolled each one whose first face is a 1 is
    rolled again, in order, as a whole new die (it may explode); the new die stands even on another 1."""
    rolled, kept, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    explode_on = SIDES if explode else None
    chains = [roller.chain(SIDES, explode_on=explode_on) for _ in range(rolled)]
    rerolled = [i for i, chain in enumerate(chains) if reroll_ones and chain[0] == 1]
    for i in rerolled:
        chains[i] = roller.chain(SIDES, explode_on=explode_on)
    return resolve(chains, kept, explode=explode, bonus=bonus, tn=tn, rerolled=rerolled)


def roll_pool(
    roller: Roller, pool: Pool, *, tn: int | None = None, odd_die_bonus: bool = False
) -> RollResult:
    """Roll a sheet pool (see :func:`roll`)."""
    return roll(
        roller,
        pool.rolled,
        pool.kept,
        explode=pool.explode,
        bonus=pool.bonus,
        tn=tn,
        odd_die_bonus=odd_die_bonus,
        reroll_ones=pool.reroll_ones,
    )


def rekeep(result: RollResult, choose: Iterable[int]) -> RollResult:
    """The same dice with the player's own choice of kept dice."""
    return resolve(
        result.chains,
        len(result.kept),
        explode=result.explode,
        bonus=result.bonus,
        tn=result.tn,
        choose=choose,
        rerolled=result.rerolled,
    )


# --------------------------------------------------------------------------- exact odds


@lru_cache(maxsize=512)
def _die_weights(
    cap: int, explode: bool, reroll_ones: bool = False
) -> tuple[tuple[tuple[int, int], ...], int]:
    """One die's value, capped at ``cap`` (the top value lumps everything >= cap), as integer weights.

    Returns ((value, weight), ...) from the highest value down, and the scale: weights add up
    to 10**scale. An exploding die shows 10m + r (r in 1..9) with chance 10**-(m+1); no
    multiple of 10 can be its final value.

    With ``reroll_ones`` a first face of 1 (chance 1/10) is replaced by a fresh die D, so
    P(v) = D(v)/10 + D(v) for every v but 1 (a first face of 1 is never final), and P(1) = D(1)/10:
    over one more power of ten, weight 11w for each value but 1, and w for 1 (10w if 1 is the lump).
    """
    if reroll_ones:
        rows, scale = _die_weights(cap, explode)
        top = rows[0][0]
        return tuple((v, w * (10 if v == top else 1) if v == 1 else 11 * w) for v, w in rows), scale + 1
    if not explode:
        scale = 1
        rows = [(v, 1) for v in range(min(cap - 1, SIDES), 0, -1)]
        if cap <= SIDES:
            rows.insert(0, (cap, SIDES + 1 - cap))
        return tuple(rows), scale
    m, r = divmod(cap - 1, SIDES)
    r += 1  # cap == 10m + r with r in 1..10
    scale = m + 1
    rows = [(cap, (SIDES + 1 - r))]  # P(die >= cap) = (11 - r) / 10**(m+1)
    for v in range(cap - 1, 0, -1):
        if v % SIDES:
            rows.append((v, 10 ** (scale - (v // SIDES + 1))))
    return tuple(rows), scale


def _kept_sum_counts(
    n: int, k: int, cap: int, explode: bool, tail_only: bool, reroll_ones: bool = False
) -> tuple[tuple[int, ...], int]:
    """How the sum of the best k of n dice falls, each die and the sum capped at ``cap``.

    Returns (counts, scale): counts[s] / 10**(scale*n) is P(sum == s) for s < cap and
    counts[cap] / 10**(scale*n) is P(sum >= cap). With ``tail_only`` only counts[cap] is right
    (paths that can no longer reach the cap are dropped, certain ones are settled early).

    Dynamic programme over order statistics: walk the die values from the highest down,
    deciding how many of the n dice show each value; the first k placed are the kept ones.
    Once k dice are placed the sum is fixed and the rest only need to be lower.
    """
    rows, scale = _die_weights(cap, explode, reroll_ones)
    out = [0] * (cap + 1)
    if k == 0:
        out[0] = 10 ** (scale * n)
        return tuple(out), scale
    layers: list[dict[int, int]] = [{} for _ in range(k)]
    layers[0][0] = 1
    at_most = 10**scale  # weight of the values not yet passed (<= current value)
    binoms = [[comb(r, c) for c in range(r + 1)] for r in range(n + 1)]
    for v, w in rows:
        below = at_most - w
        if w == 0:
            at_most = below
            continue
        pow_below = [below**e for e in range(n + 1)]
        wpow = [w**c for c in range(n + 1)]
        new_layers: list[dict[int, int]] = [{} for _ in range(k)]
        for j in range(k):
            layer = layers[j]
            if not layer:
                continue
            r = n - j
            need = k - j
            bj = binoms[r]
            steps = [bj[c] * wpow[c] for c in range(r + 1)]
            if tail_only:
                pow_at_most = at_most**r
            for s, cnt in layer.items():
                if tail_only:
                    if s + need * v < cap:
                        continue  # even all remaining kept dice at this value fall short
                    if s + need >= cap:
                        out[cap] += cnt * pow_at_most  # every die shows at least 1: already there
                        continue
                carry = new_layers[j]
                carry[s] = carry.get(s, 0) + cnt
                for c in range(1, r + 1):
                    j2 = j + c
                    s2 = s + (c if c < need else need) * v
                    if s2 >= cap:
                        out[cap] += cnt * steps[c] * pow_below[n - j2]
                    elif j2 >= k:
                        if not tail_only:
                            out[s2] += cnt * steps[c] * pow_below[n - j2]
                    else:
                        nl = new_layers[j2]
                        nl[s2] = nl.get(s2, 0) + cnt * steps[c]
        layers = new_layers
        at_most = below
    return tuple(out), scale


def _check_target(tn: object, bonus: int) -> int:
    """TN less bonus, refused past MAX_ODDS_TARGET (the work grows with the cube of it)."""
    target = _int("TN", tn) - bonus
    if target > MAX_ODDS_TARGET:
        raise RulesError(f"Odds are worked out only up to TN {MAX_ODDS_TARGET} (after bonuses), not {tn}.")
    return target


def chance(
    rolled: int,
    kept: int,
    tn: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    odd_die_bonus: bool = False,
    reroll_ones: bool = False,
) -> Fraction:
    """Exact P(total >= tn) for XkY (+bonus) after the Ten Dice Rule, exploding tens unless told not to;
    ``reroll_ones``: an emphasis applies (each die first showing 1 rolled again, once)."""
    n, k, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    return _chance(n, k, _check_target(tn, bonus), bool(explode), bool(reroll_ones))


@lru_cache(maxsize=4096)
def _chance(n: int, k: int, target: int, explode: bool, reroll_ones: bool = False) -> Fraction:
    if target <= k:
        return Fraction(1)  # every die shows at least 1
    if not explode and target > SIDES * k:
        return Fraction(0)
    counts, scale = _kept_sum_counts(n, k, target, explode, True, reroll_ones)
    return Fraction(counts[target], 10 ** (scale * n))


def total_curve(
    rolled: int,
    kept: int,
    *,
    explode: bool = True,
    bonus: int = 0,
    odd_die_bonus: bool = False,
    low: int | None = None,
    high: int | None = None,
    reroll_ones: bool = False,
) -> dict[int, Fraction]:
    """Exact P(total >= t) for each t from ``low`` to ``high`` (default: lowest total to 10 per kept die)."""
    n, k, bonus = ten_dice(rolled, kept, bonus, odd_die_bonus=odd_die_bonus)
    low = k + bonus if low is None else _int("low end", low)
    high = SIDES * k + bonus if high is None else _int("high end", high)
    if high < low:
        raise RulesError("The curve's high end is below its low end.")
    if high - low > 1000:
        raise RulesError("That curve is too wide to draw.")
    _check_target(high, bonus)
    return dict(_curve(n, k, bonus, low, high, bool(explode), bool(reroll_ones)))


@lru_cache(maxsize=512)
def _curve(
    n: int, k: int, bonus: int, low: int, high: int, explode: bool, reroll_ones: bool = False
) -> tuple[tuple[int, Fraction], ...]:
    cap = max(high - bonus, 1)
    counts, scale = _kept_sum_counts(n, k, cap, explode, False, reroll_ones)
    denominator = 10 ** (scale * n)
    at_least = [0] * (cap + 2)
    for s in range(cap, -1, -1):
        at_least[s] = at_least[s + 1] + counts[s]
    curve = []
    for t in range(low, high + 1):
        target = t - bonus
        p = Fraction(1) if target <= 0 else Fraction(at_least[target], denominator)
        curve.append((t, p))
    return tuple(curve)


def cache_clear() -> None:
    """Forget every cached odds figure (for cold-start benchmarks)."""
    for fn in (_die_weights, _chance, _curve):
        fn.cache_clear()


# ------------------------------------------------------------------ experience: what ranks cost

# Not in the seed (which gives no costs): L5R 4th edition's common table. A trait costs 4 x the new
# rank, Void 6 x the new rank, a skill rank the new rank, an emphasis 2. A character starts with 2 in
# every trait and Void and no skills, and buys the rest from a starting budget (commonly 40 XP).
TRAIT_BASE = 2
TRAIT_XP_PER_RANK = 4
VOID_XP_PER_RANK = 6
EMPHASIS_XP = 2
STARTING_XP = 40
# 4th edition, Character Creation: every new character is a Rank 1 student of its school (the seed's
# Isawa Tishi is "a Rank 1 student", l.53).
STARTING_SCHOOL_RANK = 1


def _raise_cost(per_rank: int, low: int, high: int) -> int:
    """Buying every rank above ``low`` up to ``high``, each at ``per_rank`` x the new rank."""
    return per_rank * sum(range(low + 1, high + 1))


def trait_cost(rank: int) -> int:
    """XP to raise a trait to ``rank``, one step (4 x the new rank)."""
    return TRAIT_XP_PER_RANK * _rank("trait", rank, TRAIT_MIN, TRAIT_MAX)


def void_cost(rank: int) -> int:
    """XP to raise Void to ``rank``, one step (6 x the new rank)."""
    return VOID_XP_PER_RANK * _rank("void", rank, TRAIT_MIN, TRAIT_MAX)


def skill_cost(rank: int) -> int:
    """XP to raise a skill to ``rank``, one step (the new rank; rank 1 of a new skill costs 1)."""
    return _rank("skill", rank, SKILL_MIN + 1, SKILL_MAX)


def build_cost(
    traits: Mapping[str, int], *, void: int, skills: Mapping[str, int] | None = None, emphases: int = 0
) -> int:
    """What a character's ranks cost from the base (2 in every trait and Void, no skills).

    Costs depend only on the ranks held, so this is both what a new character's build spends and what
    a sheet has spent in all: a trait or Void below the base gives back nothing (it is a choice the
    GM allows, not a sale).
    """
    total = 0
    for name in TRAITS:
        total += _raise_cost(TRAIT_XP_PER_RANK, TRAIT_BASE, max(TRAIT_BASE, _trait(traits, name)))
    total += _raise_cost(
        VOID_XP_PER_RANK, TRAIT_BASE, max(TRAIT_BASE, _rank("void", void, TRAIT_MIN, TRAIT_MAX))
    )
    for name, rank in (skills or {}).items():
        total += _raise_cost(1, 0, _rank(name, rank, SKILL_MIN, SKILL_MAX))
    if isinstance(emphases, bool) or not isinstance(emphases, int) or emphases < 0:
        raise RulesError("The number of emphases must be a whole number, 0 or more.")
    return total + EMPHASIS_XP * emphases
