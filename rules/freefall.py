"""FREE/FALL A5: d20 pools, harm slots that eat dice, bound gear and hacking programs.

Everything here is a pure function over small frozen values, so the web layer can
replay any roll log or harm sequence. Readings of unclear seed text are written up
in ``docs/rules.md`` (section FREE/FALL A5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from math import comb

from rules.dice import Outcome, Roller, RulesError, check_faces

# ---------------------------------------------------------------------------
# Errors


class FreeFallError(RulesError):
    """A FREE/FALL rule was broken; ``field`` names the form field at fault, if any."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


# ---------------------------------------------------------------------------
# The core loop: pool, target numbers, outcomes

DIE = 20
BASE_POOL = 5
MIN_POOL = 2
HARM_SLOTS = 3

FAILURE = Outcome.FAILURE
SUCCESS = Outcome.SUCCESS
GREATER = Outcome.GREATER
OUTCOMES = (FAILURE, SUCCESS, GREATER)

OUTCOME_TEXT = {
    FAILURE: "No die made it: the action fails and something goes wrong.",
    SUCCESS: "One die made it: the action works.",
    GREATER: "Two or more dice made it: the action works faster, cleaner or harder.",
}


class Difficulty(StrEnum):
    """The three named target numbers."""

    CHALLENGING = "challenging"
    HARD = "hard"
    NEAR_IMPOSSIBLE = "near_impossible"

    @property
    def tn(self) -> int:
        return _TN[self]

    @property
    def label(self) -> str:
        return _DIFFICULTY_LABEL[self]


_TN = {Difficulty.CHALLENGING: 11, Difficulty.HARD: 16, Difficulty.NEAR_IMPOSSIBLE: 21}
_DIFFICULTY_LABEL = {
    Difficulty.CHALLENGING: "Challenging",
    Difficulty.HARD: "Hard",
    Difficulty.NEAR_IMPOSSIBLE: "Near Impossible",
}
TARGET_NUMBERS = {d: d.tn for d in Difficulty}


def _int(
    value: object, what: str, *, low: int | None = None, high: int | None = None, field: str | None = None
) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise FreeFallError(f"{what} must be a whole number, not {value!r}.", field=field)
    if low is not None and value < low:
        raise FreeFallError(f"{what} cannot be below {low} (got {value}).", field=field)
    if high is not None and value > high:
        raise FreeFallError(f"{what} cannot be above {high} (got {value}).", field=field)
    return value


def _enum(cls, value, what: str, field: str | None = None):
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(m.value for m in cls)
        raise FreeFallError(f"{value!r} is not a {what} (choose from {choices}).", field=field) from None


def pool(harm_filled: int) -> int:
    """Dice available this round: 5, less one per filled harm slot, never under 2."""
    filled = _int(harm_filled, "Filled harm slots", low=0, high=HARM_SLOTS)
    return max(MIN_POOL, BASE_POOL - filled)


def _check_tn_bonus(tn: int, bonus: int) -> tuple[int, int]:
    return _int(tn, "The target number", low=1), _int(bonus, "The bonus", low=0)


@dataclass(frozen=True)
class Check:
    """One action's roll: the faces, what they were measured against, and what came of it."""

    faces: tuple[int, ...]
    tn: int
    bonus: int
    successes: int
    outcome: Outcome
    crit: bool
    complication: bool

    @property
    def highest(self) -> int:
        """The highest single die face, which settles clashes."""
        return max(self.faces)

    @property
    def natural_ones(self) -> int:
        return self.faces.count(1)


def _outcome(successes: int) -> Outcome:
    return FAILURE if successes == 0 else SUCCESS if successes == 1 else GREATER


def check(dice: Iterable[int], tn: int, *, bonus: int = 0, conflict: bool = True) -> Check:
    """Read the faces rolled for one action against a target number."""
    faces = tuple(dice)
    if not 1 <= len(faces) <= BASE_POOL:
        raise FreeFallError(f"An action rolls between 1 and {BASE_POOL} dice, not {len(faces)}.")
    faces = check_faces(faces, sides=DIE)
    tn, bonus = _check_tn_bonus(tn, bonus)
    successes = sum(1 for f in faces if f == DIE or f + bonus >= tn)
    # A natural 1 only complicates matters in a conflict; a failure always does.
    complication = successes == 0 or (conflict and 1 in faces)
    return Check(
        faces=faces,
        tn=tn,
        bonus=bonus,
        successes=successes,
        outcome=_outcome(successes),
        crit=DIE in faces,
        complication=complication,
    )


def roll_check(roller: Roller, *, dice: int, tn: int, bonus: int = 0, conflict: bool = True) -> Check:
    """Roll ``dice`` d20 for one action and read them."""
    dice = _int(dice, "Dice assigned", low=1, high=BASE_POOL)
    _check_tn_bonus(tn, bonus)
    return check(roller.dice(dice, DIE), tn, bonus=bonus, conflict=conflict)


# ---------------------------------------------------------------------------
# Exact odds


def die_chance(tn: int, *, bonus: int = 0) -> Fraction:
    """The chance one d20 succeeds."""
    tn, bonus = _check_tn_bonus(tn, bonus)
    good = sum(1 for f in range(1, DIE + 1) if f == DIE or f + bonus >= tn)
    return Fraction(good, DIE)


def _n_dice(n_dice: int) -> int:
    return _int(n_dice, "Dice assigned", low=1, high=BASE_POOL)


def successes_distribution(n_dice: int, tn: int, *, bonus: int = 0) -> dict[int, Fraction]:
    """P(exactly k successes) for k = 0..n_dice."""
    n = _n_dice(n_dice)
    p = die_chance(tn, bonus=bonus)
    q = 1 - p

    return {k: comb(n, k) * p**k * q ** (n - k) for k in range(n + 1)}


def chance(n_dice: int, tn: int, *, bonus: int = 0) -> dict[str, Fraction]:
    """The chance of each outcome (failure, success, greater) with n_dice against tn."""
    dist = successes_distribution(n_dice, tn, bonus=bonus)
    return {
        FAILURE: dist[0],
        SUCCESS: dist[1],
        GREATER: sum((v for k, v in dist.items() if k >= 2), Fraction(0)),
    }


@dataclass(frozen=True)
class Odds:
    """Everything a roll button shows: the outcome odds and the side effects' odds."""

    outcomes: Mapping[str, Fraction]
    crit: Fraction  # at least one natural 20
    complication: Fraction  # no success, or (in a conflict) a natural 1
    natural_one: Fraction  # at least one 1: a hacking program would be compromised

    @property
    def at_least_success(self) -> Fraction:
        return self.outcomes[SUCCESS] + self.outcomes[GREATER]


def odds(n_dice: int, tn: int, *, bonus: int = 0, conflict: bool = True) -> Odds:
    """Exact odds of every outcome and side effect for n_dice against tn."""
    n = _n_dice(n_dice)
    tn, bonus = _check_tn_bonus(tn, bonus)
    outcomes = chance(n, tn, bonus=bonus)
    no_one = Fraction(DIE - 1, DIE) ** n
    if conflict:
        # Clean = at least one success and no 1 showing = P(no 1) - P(no 1 and no success).
        dud = sum(1 for f in range(2, DIE) if f + bonus < tn)
        clean = no_one - Fraction(dud, DIE) ** n
        complication = 1 - clean
    else:
        complication = outcomes[FAILURE]
    return Odds(
        outcomes=outcomes,
        crit=1 - Fraction(DIE - 1, DIE) ** n,
        complication=complication,
        natural_one=1 - no_one,
    )


# ---------------------------------------------------------------------------
# Attributes


class Attribute(StrEnum):
    BODY = "body"
    MIND = "mind"
    GHOST = "ghost"

    @property
    def label(self) -> str:
        return self.value.upper()

    @property
    def covers(self) -> str:
        return _ATTRIBUTE_COVERS[self]


_ATTRIBUTE_COVERS = {
    Attribute.BODY: "Physical strength and toughness.",
    Attribute.MIND: "Technical work and concentration.",
    Attribute.GHOST: "Dealing with people, staying unseen, and force of will.",
}

# Not in the seed: a sanity range for the builder's number inputs.
ATTRIBUTE_MIN = 0
ATTRIBUTE_MAX = 10


def _attribute(value: object, *, field: str | None = None) -> Attribute:
    try:
        return Attribute(value)
    except ValueError:
        raise FreeFallError(
            f"{value!r} is not an attribute; choose Body, Mind or Ghost.", field=field
        ) from None


@dataclass(frozen=True)
class Attributes:
    """One number per attribute (permanent values, binding, current values...)."""

    body: int = 0
    mind: int = 0
    ghost: int = 0

    def __getitem__(self, attribute: Attribute | str) -> int:
        return getattr(self, _attribute(attribute).value)

    def with_value(self, attribute: Attribute | str, value: int) -> Attributes:
        return replace(self, **{_attribute(attribute).value: value})

    def __add__(self, other: Attributes) -> Attributes:
        return Attributes(*(self[a] + other[a] for a in Attribute))

    def __sub__(self, other: Attributes) -> Attributes:
        return Attributes(*(self[a] - other[a] for a in Attribute))

    def as_dict(self) -> dict[str, int]:
        return {a.value: self[a] for a in Attribute}

    @classmethod
    def from_mapping(cls, values: Mapping[str, int], *, low: int = 0, high: int | None = None) -> Attributes:
        """Build from {"body": .., "mind": .., "ghost": ..}; every attribute must be given."""
        unknown = set(values) - {a.value for a in Attribute}
        if unknown:
            name = sorted(map(str, unknown))[0]
            raise FreeFallError(f"{name!r} is not an attribute; choose Body, Mind or Ghost.", field=name)
        out = {}
        for a in Attribute:
            if a.value not in values:
                raise FreeFallError(f"{a.label} needs a value.", field=a.value)
            out[a.value] = _int(values[a.value], a.label, low=low, high=high, field=a.value)
        return cls(**out)


def spend(current: Attributes, attribute: Attribute | str, points: int = 1) -> Attributes:
    """Spend current attribute points (to force a check or soak harm); refuses to go below 0."""
    attribute = _attribute(attribute, field="attribute")
    points = _int(points, "Points spent", low=0, field=attribute.value)
    if points > current[attribute]:
        raise FreeFallError(
            f"{attribute.label} has only {current[attribute]} current point(s) to spend, not {points}.",
            field=attribute.value,
        )
    return current.with_value(attribute, current[attribute] - points)


# ---------------------------------------------------------------------------
# Gear and programs


class GearTag(StrEnum):
    ATTRIBUTE_BINDING = "attribute_binding"
    HIGH_IMPACT = "high_impact"
    PIERCING = "piercing"
    LOAD_BEARING = "load_bearing"
    HARDENED = "hardened"


GEAR_TAGS = {
    GearTag.ATTRIBUTE_BINDING: (
        "Attribute Binding (X)",
        "Lowers the chosen attribute's maximum by X while owned.",
    ),
    GearTag.HIGH_IMPACT: ("High Impact", "A hit from it always deals at least 2 levels of harm."),
    GearTag.PIERCING: ("Piercing", "The target's armor counts as 1 lower against it."),
    GearTag.LOAD_BEARING: ("Load Bearing (X)", "Cancels up to X binding of items attached to it."),
    GearTag.HARDENED: ("Hardened", "When sacrificed it turns Faulty first and only breaks the next time."),
}


class GearCondition(StrEnum):
    INTACT = "intact"
    FAULTY = "faulty"
    BROKEN = "broken"


@dataclass(frozen=True)
class Gear:
    """A piece of kit: its binding, armor/damage values and tags, and its condition."""

    name: str
    binding: int = 0
    binds: Attribute | None = None
    av: int = 0
    dv: int = 0
    high_impact: bool = False
    piercing: bool = False
    load_bearing: int = 0
    hardened: bool = False
    attached_to: str | None = None
    condition: GearCondition = GearCondition.INTACT

    def __post_init__(self):
        if self.binds is not None:
            object.__setattr__(self, "binds", _attribute(self.binds, field="gear"))
        object.__setattr__(self, "condition", _enum(GearCondition, self.condition, "gear condition", "gear"))

    @property
    def bound(self) -> bool:
        """Carries an Attribute Binding tag, so it can be sacrificed to harm."""
        return self.binding > 0

    @property
    def usable(self) -> bool:
        return self.condition is not GearCondition.BROKEN

    @property
    def tags(self) -> tuple[GearTag, ...]:
        flags = [
            (self.binding > 0, GearTag.ATTRIBUTE_BINDING),
            (self.high_impact, GearTag.HIGH_IMPACT),
            (self.piercing, GearTag.PIERCING),
            (self.load_bearing > 0, GearTag.LOAD_BEARING),
            (self.hardened, GearTag.HARDENED),
        ]
        return tuple(tag for on, tag in flags if on)


def break_gear(item: Gear) -> Gear:
    """Sacrifice an item: Hardened and intact turns Faulty, anything else Breaks; binding stays."""
    if not item.usable:
        raise FreeFallError(f"{item.name} is already broken.", field="gear")
    if item.hardened and item.condition is GearCondition.INTACT:
        return replace(item, condition=GearCondition.FAULTY)
    return replace(item, condition=GearCondition.BROKEN)


def repair_gear(item: Gear) -> Gear:
    """Fix a faulty or broken item back to intact (the seed sets no cost or roll: the fiction decides)."""
    if item.condition is GearCondition.INTACT:
        raise FreeFallError(f"{item.name} is intact: there is nothing to repair.", field="gear")
    return replace(item, condition=GearCondition.INTACT)


def armor_value(gear: Iterable[Gear]) -> int:
    """The AV a character wears: the best unbroken item's (armor does not stack)."""
    return max((g.av for g in gear if g.usable), default=0)


class ProgramType(StrEnum):
    SPIKE = "spike"
    BLAST = "blast"
    COUNTER = "counter"
    PWN = "pwn"

    @property
    def label(self) -> str:
        return self.value.upper()

    @property
    def role(self) -> str:
        return _PROGRAM_ROLE[self]

    @property
    def binding_multiplier(self) -> int:
        return 2 if self in (ProgramType.COUNTER, ProgramType.PWN) else 1


_PROGRAM_ROLE = {
    ProgramType.SPIKE: "Precise strike on a single target.",
    ProgramType.BLAST: "Wide-area disruption.",
    ProgramType.COUNTER: "Defensive countermeasure (binds twice as much).",
    ProgramType.PWN: "Takes control of a system (binds twice as much).",
}


class ProgramTier(StrEnum):
    RED = "red"
    STEEL = "steel"
    CHROME = "chrome"
    BLACK = "black"

    @property
    def label(self) -> str:
        return self.value.upper()

    @property
    def bonus(self) -> int:
        return _TIER[self][0]

    @property
    def binding(self) -> int:
        return _TIER[self][1]


_TIER = {
    ProgramTier.RED: (0, 1),
    ProgramTier.STEEL: (5, 2),
    ProgramTier.CHROME: (10, 3),
    ProgramTier.BLACK: (15, 4),
}


@dataclass(frozen=True)
class Program:
    """A hacking program: always binds Mind; COUNTER and PWN bind double."""

    name: str
    type: ProgramType
    tier: ProgramTier
    compromised: bool = False

    def __post_init__(self):
        object.__setattr__(self, "type", _enum(ProgramType, self.type, "program type", "programs"))
        object.__setattr__(self, "tier", _enum(ProgramTier, self.tier, "program tier", "programs"))

    @property
    def bonus(self) -> int:
        return self.tier.bonus

    @property
    def binding(self) -> int:
        return self.tier.binding * self.type.binding_multiplier

    @property
    def active(self) -> bool:
        return not self.compromised


def program_binding(program_type: ProgramType | str, tier: ProgramTier | str) -> int:
    """Mind bound by a program of this type and tier."""
    return ProgramTier(tier).binding * ProgramType(program_type).binding_multiplier


def _key(name: str) -> str:
    return name.strip().casefold()


def binding(gear: Sequence[Gear] = (), programs: Sequence[Program] = ()) -> Attributes:
    """Total binding per attribute, after Load Bearing relief; broken kit still binds."""
    relief_left = {_key(g.name): g.load_bearing for g in gear if g.load_bearing > 0}
    total = Attributes()
    for item in gear:
        if item.binding <= 0 or item.binds is None:
            continue
        cost = item.binding
        carrier = _key(item.attached_to) if item.attached_to else None
        if carrier in relief_left:
            # A carrier's relief is used up by attached items in the order they are listed.
            used = min(cost, relief_left[carrier])
            relief_left[carrier] -= used
            cost -= used
        total = total.with_value(item.binds, total[item.binds] + cost)
    mind = sum(p.binding for p in programs)
    return total.with_value(Attribute.MIND, total.mind + mind)


def current_max(
    permanent: Attributes, gear: Sequence[Gear] = (), programs: Sequence[Program] = ()
) -> Attributes:
    """Maximum current attributes: permanent value less binding."""
    return permanent - binding(gear, programs)


# ---------------------------------------------------------------------------
# Character builder


# The seed names no classes; this is its one example of a class specialty.
SPECIALTY_EXAMPLES = ("Infiltration",)
NAME_MAX = 60


@dataclass(frozen=True)
class Build:
    """A validated character: what it owns and what its attributes come to."""

    permanent: Attributes
    character_class: str
    specialty: str
    gear: tuple[Gear, ...]
    programs: tuple[Program, ...]
    binding: Attributes
    current_max: Attributes


def _text(value: object, what: str, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise FreeFallError(f"{what} cannot be empty.", field=field)
    value = value.strip()
    if len(value) > NAME_MAX:
        raise FreeFallError(f"{what} is too long (at most {NAME_MAX} characters).", field=field)
    return value


def validate_gear(gear: Sequence[Gear]) -> tuple[Gear, ...]:
    """Check each item's numbers and attachments; errors name the field ``gear``."""
    seen: set[str] = set()
    items = tuple(gear)
    for i, item in enumerate(items):
        if not isinstance(item, Gear):
            raise FreeFallError(f"Gear item {i + 1} is not a piece of gear.", field="gear")
        name = _text(item.name, f"Gear item {i + 1}'s name", "gear")
        if name.lower() in seen:
            raise FreeFallError(
                f"Two gear items are called {name!r}; give them different names.", field="gear"
            )
        seen.add(name.lower())
        for what, value in (
            ("binding", item.binding),
            ("AV", item.av),
            ("DV", item.dv),
            ("Load Bearing", item.load_bearing),
        ):
            _int(value, f"{name}'s {what}", low=0, field="gear")
        if item.binding > 0 and item.binds is None:
            raise FreeFallError(f"{name} binds {item.binding}: say which attribute it binds.", field="gear")
        if item.binds is not None:
            _attribute(item.binds, field="gear")
    carriers = {g.name.strip().lower(): g for g in items if g.load_bearing > 0}
    for item in items:
        if item.attached_to is None:
            continue
        target = item.attached_to.strip().lower()
        if target == item.name.strip().lower():
            raise FreeFallError(f"{item.name} cannot be attached to itself.", field="gear")
        if target not in carriers:
            raise FreeFallError(
                f"{item.name} is attached to {item.attached_to!r}, which is not Load Bearing gear you own.",
                field="gear",
            )
    return items


def validate_programs(programs: Sequence[Program]) -> tuple[Program, ...]:
    """Check each program's type and tier; errors name the field ``programs``."""
    items = tuple(programs)
    for i, prog in enumerate(items):
        if not isinstance(prog, Program):
            raise FreeFallError(f"Program {i + 1} is not a program.", field="programs")
        _text(prog.name, f"Program {i + 1}'s name", "programs")
        try:
            ProgramType(prog.type)
            ProgramTier(prog.tier)
        except ValueError:
            raise FreeFallError(
                f"{prog.name}: the type must be SPIKE, BLAST, COUNTER or PWN and the tier RED, STEEL, "
                "CHROME or BLACK.",
                field="programs",
            ) from None
    return items


def validate_build(
    *,
    permanent: Mapping[str, int] | Attributes,
    character_class: str,
    specialty: str,
    gear: Sequence[Gear] = (),
    programs: Sequence[Program] = (),
) -> Build:
    """Validate a new or edited character; binding may use up an attribute but never exceed it."""
    if not isinstance(permanent, Attributes):
        permanent = Attributes.from_mapping(permanent, low=ATTRIBUTE_MIN, high=ATTRIBUTE_MAX)
    else:
        for a in Attribute:
            _int(permanent[a], a.label, low=ATTRIBUTE_MIN, high=ATTRIBUTE_MAX, field=a.value)
    character_class = _text(character_class, "The class", "character_class")
    specialty = _text(specialty, "The specialty", "specialty")
    gear = validate_gear(gear)
    programs = validate_programs(programs)
    bound = binding(gear, programs)
    for a in Attribute:
        if bound[a] > permanent[a]:
            raise FreeFallError(
                f"Your gear and programs bind {bound[a]} {a.label}, but you only have {permanent[a]}.",
                field=a.value,
            )
    return Build(
        permanent=permanent,
        character_class=character_class,
        specialty=specialty,
        gear=gear,
        programs=programs,
        binding=bound,
        current_max=permanent - bound,
    )


# ---------------------------------------------------------------------------
# Declaration, prerequisites and resolution order


class Prerequisite(StrEnum):
    """The four ways to earn a roll for a specialized action."""

    GEAR = "gear"
    SPECIALTY = "specialty"
    SPEND_ATTRIBUTE = "spend_attribute"
    TAKE_HARM = "take_harm"

    @property
    def label(self) -> str:
        return _PREREQ_LABEL[self]


_PREREQ_LABEL = {
    Prerequisite.GEAR: "Have the gear",
    Prerequisite.SPECIALTY: "Have the specialty",
    Prerequisite.SPEND_ATTRIBUTE: "Spend 1 current attribute",
    Prerequisite.TAKE_HARM: "Take 1 level of harm",
}


class HarmKind(StrEnum):
    PHYSICAL = "physical"
    PSYCHIC = "psychic"
    COMPROMISE = "compromise"

    @property
    def attribute(self) -> Attribute:
        return _HARM_ATTRIBUTE[self]


_HARM_ATTRIBUTE = {
    HarmKind.PHYSICAL: Attribute.BODY,
    HarmKind.PSYCHIC: Attribute.MIND,
    HarmKind.COMPROMISE: Attribute.GHOST,
}


@dataclass(frozen=True)
class Action:
    """One declared action and the dice put on it.

    ``specialized`` is false only for plain things anyone can do (talking, walking).
    ``gear`` names the tool (with GEAR), ``attribute`` the one spent (with SPEND_ATTRIBUTE),
    ``harm_kind`` the harm taken (with TAKE_HARM). A hack names its ``program`` or uses the specialty.
    """

    name: str
    dice: int
    specialized: bool = True
    prerequisite: Prerequisite | None = None
    gear: str | None = None
    attribute: Attribute | None = None
    harm_kind: HarmKind | None = None
    hacking: bool = False
    program: str | None = None

    def __post_init__(self):
        if self.prerequisite is not None:
            object.__setattr__(
                self, "prerequisite", _enum(Prerequisite, self.prerequisite, "prerequisite", "actions")
            )
        if self.attribute is not None:
            object.__setattr__(self, "attribute", _attribute(self.attribute, field="actions"))
        if self.harm_kind is not None:
            object.__setattr__(self, "harm_kind", _enum(HarmKind, self.harm_kind, "kind of harm", "actions"))


@dataclass(frozen=True)
class Declaration:
    """A validated declaration: the actions in declared order and what they cost up front."""

    actions: tuple[Action, ...]
    pool: int
    spent: Attributes  # attribute points spent to force checks
    harm: tuple[HarmKind, ...]  # harm levels taken to push limits, one per action

    @property
    def dice_assigned(self) -> int:
        return sum(a.dice for a in self.actions)

    @property
    def resolution_order(self) -> tuple[Action, ...]:
        """Last declared resolves first."""
        return tuple(reversed(self.actions))


def validate_declaration(
    actions: Sequence[Action],
    *,
    pool: int,
    current: Attributes | None = None,
    gear: Sequence[Gear] | None = None,
    programs: Sequence[Program] | None = None,
    specialty: str | None = None,
) -> Declaration:
    """Check dice against the pool and each action's prerequisite against what the character has.

    Leave ``current``/``gear``/``programs``/``specialty`` as None to skip checking that resource.
    Errors carry ``field="actions"`` (or ``"actions[i]"`` for one action).
    """
    pool = _int(pool, "The pool", low=MIN_POOL, high=BASE_POOL, field="pool")
    actions = tuple(actions)
    if not actions:
        raise FreeFallError("Declare at least one action.", field="actions")
    spent = Attributes()
    harm: list[HarmKind] = []
    for i, act in enumerate(actions):
        where = f"actions[{i}]"
        if not isinstance(act, Action):
            raise FreeFallError(f"Action {i + 1} is not an action.", field=where)
        label = _text(act.name, f"Action {i + 1}'s name", where)
        _int(act.dice, f"Dice on {label}", low=1, field=where)
        if act.hacking:
            _hack_prereq(act, label, where, programs, specialty)
            continue
        if not act.specialized:
            continue
        if act.prerequisite is None:
            raise FreeFallError(
                f"{label} needs the gear, the specialty, 1 attribute point or 1 level of harm "
                "before it can be rolled.",
                field=where,
            )
        prereq = Prerequisite(act.prerequisite)
        if prereq is Prerequisite.GEAR:
            if not act.gear:
                raise FreeFallError(f"{label}: name the gear that does the job.", field=where)
            if gear is not None and not any(
                g.name.strip().lower() == act.gear.strip().lower() and g.usable for g in gear
            ):
                raise FreeFallError(f"{label}: you have no working {act.gear}.", field=where)
        elif prereq is Prerequisite.SPECIALTY:
            if specialty is not None and not specialty.strip():
                raise FreeFallError(f"{label}: you have no specialty to lean on.", field=where)
        elif prereq is Prerequisite.SPEND_ATTRIBUTE:
            if act.attribute is None:
                raise FreeFallError(f"{label}: say which attribute you spend.", field=where)
            a = _attribute(act.attribute, field=where)
            spent = spent.with_value(a, spent[a] + 1)
            if current is not None and spent[a] > current[a]:
                raise FreeFallError(
                    f"{label}: not enough current {a.label} left ({current[a]}) to force this.", field=where
                )
        elif prereq is Prerequisite.TAKE_HARM:
            if act.harm_kind is None:
                raise FreeFallError(f"{label}: say what kind of harm you take.", field=where)
            harm.append(HarmKind(act.harm_kind))
    total = sum(a.dice for a in actions)
    if total > pool:
        raise FreeFallError(f"You assigned {total} dice but your pool is only {pool}.", field="actions")
    return Declaration(actions=actions, pool=pool, spent=spent, harm=tuple(harm))


def _hack_prereq(
    act: Action, label: str, where: str, programs: Sequence[Program] | None, specialty: str | None
) -> None:
    # Hacking takes an active program or the specialty; attribute or harm cannot force it.
    if act.program:
        if programs is not None and not any(
            p.name.strip().lower() == act.program.strip().lower() and p.active for p in programs
        ):
            raise FreeFallError(f"{label}: {act.program} is not an active program of yours.", field=where)
        return
    if act.prerequisite is not None and Prerequisite(act.prerequisite) is Prerequisite.SPECIALTY:
        if specialty is not None and not specialty.strip():
            raise FreeFallError(f"{label}: you have no specialty to lean on.", field=where)
        return
    raise FreeFallError(f"{label}: hacking needs an active program or the specialty.", field=where)


@dataclass(frozen=True)
class Turn:
    """One action waiting to resolve; actions sharing a ``clash`` tag directly oppose each other."""

    label: str
    highest: int | None = None
    clash: str | None = None


def resolution_order(declared: Sequence[Turn]) -> tuple[Turn, ...]:
    """Order of resolution: last declared first; within a clash, highest single die first."""
    order = list(reversed(tuple(declared)))
    groups: dict[str, list[int]] = {}
    for pos, turn in enumerate(order):
        if turn.clash is not None:
            if turn.highest is None:
                raise FreeFallError(f"{turn.label} clashes, so it needs its highest die.", field="highest")
            check_faces([turn.highest], sides=DIE)
            groups.setdefault(turn.clash, []).append(pos)
    for positions in groups.values():
        # Clashing actions swap among the places they already hold; a tie keeps reverse order.
        members = sorted((order[p] for p in positions), key=lambda t: -t.highest)  # stable
        for p, t in zip(positions, members, strict=True):
            order[p] = t
    return tuple(order)


# ---------------------------------------------------------------------------
# Hacking


@dataclass(frozen=True)
class Hack:
    """A hacking roll: the check, the program used (if any), and whether it got compromised."""

    check: Check
    program: Program | None
    compromised: bool

    @property
    def program_after(self) -> Program | None:
        if self.program is None:
            return None
        return replace(self.program, compromised=self.program.compromised or self.compromised)


def hack(dice: Iterable[int], tn: int, *, program: Program | None = None, conflict: bool = True) -> Hack:
    """Read a hacking roll: the program's tier adds to every die, and any 1 compromises it."""
    if program is not None and not program.active:
        raise FreeFallError(f"{program.name} is compromised and out for this mission.", field="program")
    bonus = program.bonus if program is not None else 0
    result = check(dice, tn, bonus=bonus, conflict=conflict)
    return Hack(check=result, program=program, compromised=program is not None and 1 in result.faces)


def roll_hack(
    roller: Roller, *, dice: int, tn: int, program: Program | None = None, conflict: bool = True
) -> Hack:
    """Roll a hack with ``dice`` d20."""
    dice = _int(dice, "Dice assigned", low=1, high=BASE_POOL)
    if program is not None and not program.active:
        raise FreeFallError(f"{program.name} is compromised and out for this mission.", field="program")
    _check_tn_bonus(tn, 0)
    return hack(roller.dice(dice, DIE), tn, program=program, conflict=conflict)


def hack_odds(n_dice: int, tn: int, *, program: Program | None = None, conflict: bool = True) -> Odds:
    """Exact odds of a hack; ``natural_one`` is the chance the program is compromised."""
    return odds(n_dice, tn, bonus=program.bonus if program is not None else 0, conflict=conflict)


# ---------------------------------------------------------------------------
# The harm protocol


class SlotState(StrEnum):
    EMPTY = "empty"
    TEMP = "temp"
    PERM = "perm"


@dataclass(frozen=True)
class HarmSlot:
    state: SlotState = SlotState.EMPTY
    kind: HarmKind | None = None

    def __post_init__(self):
        object.__setattr__(self, "state", _enum(SlotState, self.state, "harm slot state", "harm"))
        if self.kind is not None:
            object.__setattr__(self, "kind", _enum(HarmKind, self.kind, "kind of harm", "harm"))
        if (self.state is SlotState.EMPTY) != (self.kind is None):
            raise FreeFallError("A harm slot holds a kind of harm exactly when it is filled.", field="harm")


EMPTY_SLOT = HarmSlot()


@dataclass(frozen=True)
class HarmTrack:
    """The three shared harm slots."""

    slots: tuple[HarmSlot, ...] = (EMPTY_SLOT,) * HARM_SLOTS

    def __post_init__(self):
        if len(self.slots) != HARM_SLOTS or not all(isinstance(s, HarmSlot) for s in self.slots):
            raise FreeFallError(f"A character has exactly {HARM_SLOTS} harm slots.", field="harm")

    def count(self, state: SlotState) -> int:
        return sum(1 for s in self.slots if s.state is state)

    @property
    def filled(self) -> int:
        return HARM_SLOTS - self.count(SlotState.EMPTY)

    @property
    def pool(self) -> int:
        return pool(self.filled)

    def set(self, index: int, slot: HarmSlot) -> HarmTrack:
        slots = list(self.slots)
        slots[index] = slot
        return HarmTrack(tuple(slots))


def rest(track: HarmTrack) -> HarmTrack:
    """Rest clears every temporary harm; permanent harm stays."""
    return HarmTrack(tuple(EMPTY_SLOT if s.state is SlotState.TEMP else s for s in track.slots))


class Resolve(StrEnum):
    """Ways to absorb one remaining level of harm."""

    TEMP = "temp"
    PERM = "perm"
    BREAK_GEAR = "break_gear"

    @property
    def label(self) -> str:
        return _RESOLVE_LABEL[self]


_RESOLVE_LABEL = {
    Resolve.TEMP: "Temporary harm: fill an empty slot (lose a die until you rest).",
    Resolve.PERM: "Permanent harm: turn a temporary harm permanent (lose a die, lasting trauma).",
    Resolve.BREAK_GEAR: "Break gear: sacrifice a bound item (its binding stays).",
}


class Stage(StrEnum):
    MITIGATE = "mitigate"
    RESOLVE = "resolve"
    DONE = "done"


def levels_after_armor(
    dv: int, *, av: int = 0, piercing: bool = False, high_impact: bool = False, crit: bool = False
) -> int:
    """Harm levels a hit inflicts after armor: armor leaves at least 1, High Impact at least 2."""
    dv = _int(dv, "The DV", low=0, field="dv")
    av = _int(av, "The AV", low=0, field="av")
    if crit:
        dv *= 2
    if dv == 0:
        return 0
    if piercing:
        av = max(0, av - 1)
    levels = max(1, dv - av)
    if high_impact:
        levels = max(2, levels)
    return levels


@dataclass(frozen=True)
class Incoming:
    """A hit part-way through the harm protocol (armor applied -> mitigate -> resolve each level)."""

    kind: HarmKind
    levels: int  # after armor
    remaining: int
    stage: Stage
    track: HarmTrack
    current: Attributes
    gear: tuple[Gear, ...] = ()
    mitigated: int = 0
    steps: tuple[str, ...] = ()
    unabsorbed: int = 0

    @property
    def options(self) -> frozenset[Resolve]:
        return resolve_options(self)

    @property
    def overwhelmed(self) -> bool:
        """Levels remain but nothing can absorb them: the GM decides what happens."""
        return self.stage is Stage.RESOLVE and not self.options


def take_hit(
    *,
    dv: int,
    kind: HarmKind | str,
    track: HarmTrack,
    current: Attributes,
    gear: Sequence[Gear] = (),
    av: int = 0,
    piercing: bool = False,
    high_impact: bool = False,
    crit: bool = False,
) -> Incoming:
    """Start the harm protocol for a hit: apply armor, then wait for mitigation."""
    kind = HarmKind(kind)
    levels = levels_after_armor(dv, av=av, piercing=piercing, high_impact=high_impact, crit=crit)
    return Incoming(
        kind=kind,
        levels=levels,
        remaining=levels,
        stage=Stage.MITIGATE if levels else Stage.DONE,
        track=track,
        current=current,
        gear=tuple(gear),
        steps=(f"{levels} level(s) of {kind.value} harm after armor",),
    )


def mitigate(
    incoming: Incoming, points: int = 0, *, spend_from: Mapping[Attribute | str, int] | None = None
) -> Incoming:
    """Spend current attribute points, one per level negated.

    "Spend Current Attributes (1-for-1)" names no attribute, so any current attribute pays and
    points may be mixed: ``spend_from`` maps each attribute to the points it gives. ``points``
    alone is the common case, all from the attribute matching the harm (BODY for physical).
    """
    if incoming.stage is not Stage.MITIGATE:
        raise FreeFallError("Mitigation comes once, straight after armor.", field="mitigate")
    if spend_from is None:
        spend_from = {incoming.kind.attribute: points}
    elif points:
        raise FreeFallError(
            "Give the points either as one number or per attribute, not both.", field="mitigate"
        )
    paid = {_attribute(a, field="mitigate"): p for a, p in spend_from.items()}
    current = incoming.current
    for a, p in paid.items():
        current = spend(current, a, p)
    total = sum(paid.values())
    _int(total, "Points spent", low=0, high=incoming.remaining, field="mitigate")
    remaining = incoming.remaining - total
    spent_text = " + ".join(f"{p} {a.label}" for a, p in paid.items() if p) or "nothing"
    return replace(
        incoming,
        current=current,
        remaining=remaining,
        mitigated=total,
        stage=Stage.RESOLVE if remaining else Stage.DONE,
        steps=incoming.steps + (f"spent {spent_text} to negate {total} level(s)",),
    )


def resolve_options(incoming: Incoming) -> frozenset[Resolve]:
    """The options open for the next level (with every slot temp, only PERM or BREAK_GEAR)."""
    if incoming.stage is not Stage.RESOLVE:
        return frozenset()
    opts = set()
    if incoming.track.count(SlotState.EMPTY):
        opts.add(Resolve.TEMP)
    if incoming.track.count(SlotState.TEMP):
        opts.add(Resolve.PERM)
    if any(g.bound and g.usable for g in incoming.gear):
        opts.add(Resolve.BREAK_GEAR)
    return frozenset(opts)


def resolve(
    incoming: Incoming, option: Resolve | str, *, slot: int | None = None, gear: str | None = None
) -> Incoming:
    """Absorb one remaining level with the chosen option (``slot``/``gear`` pick which; default first)."""
    if incoming.stage is not Stage.RESOLVE:
        raise FreeFallError("There is no harm level left to resolve.", field="resolve")
    try:
        option = Resolve(option)
    except ValueError:
        raise FreeFallError(f"{option!r} is not a way to resolve harm.", field="resolve") from None
    if option not in resolve_options(incoming):
        if option is Resolve.TEMP and incoming.track.count(SlotState.TEMP) == HARM_SLOTS:
            msg = "Every slot holds temporary harm: make one permanent or break gear."
        else:
            msg = {
                Resolve.TEMP: "No empty harm slot is left.",
                Resolve.PERM: "No temporary harm to make permanent.",
                Resolve.BREAK_GEAR: "No unbroken bound gear to sacrifice.",
            }[option]
        raise FreeFallError(msg, field="resolve")
    track, items, note = incoming.track, incoming.gear, ""
    if option is Resolve.TEMP:
        index = _pick_slot(track, SlotState.EMPTY, slot)
        track = track.set(index, HarmSlot(SlotState.TEMP, incoming.kind))
        note = f"temporary {incoming.kind.value} harm in slot {index + 1}"
    elif option is Resolve.PERM:
        index = _pick_slot(track, SlotState.TEMP, slot)
        # The existing harm hardens into a lasting one and keeps its kind.
        track = track.set(index, HarmSlot(SlotState.PERM, track.slots[index].kind))
        note = f"slot {index + 1} became permanent harm"
    else:
        index = _pick_gear(items, gear)
        broken = break_gear(items[index])
        items = items[:index] + (broken,) + items[index + 1 :]
        note = f"{broken.name} is now {broken.condition.value}"
    remaining = incoming.remaining - 1
    return replace(
        incoming,
        track=track,
        gear=items,
        remaining=remaining,
        stage=Stage.RESOLVE if remaining else Stage.DONE,
        steps=incoming.steps + (note,),
    )


def overwhelm(incoming: Incoming) -> Incoming:
    """End the protocol when no option can absorb the levels left; they are recorded as unabsorbed."""
    if not incoming.overwhelmed:
        raise FreeFallError("There is still a way to absorb this harm.", field="resolve")
    return replace(
        incoming,
        unabsorbed=incoming.remaining,
        remaining=0,
        stage=Stage.DONE,
        steps=incoming.steps + (f"{incoming.remaining} level(s) could not be absorbed",),
    )


def _pick_slot(track: HarmTrack, state: SlotState, slot: int | None) -> int:
    if slot is None:
        return next(i for i, s in enumerate(track.slots) if s.state is state)
    slot = _int(slot, "The slot", low=0, high=HARM_SLOTS - 1, field="resolve")
    if track.slots[slot].state is not state:
        raise FreeFallError(f"Slot {slot + 1} is not {state.value}.", field="resolve")
    return slot


def _pick_gear(items: tuple[Gear, ...], name: str | None) -> int:
    for i, g in enumerate(items):
        if g.bound and g.usable and (name is None or g.name.strip().lower() == name.strip().lower()):
            return i
    raise FreeFallError(f"{name!r} is not unbroken bound gear you carry.", field="resolve")
