"""Gear and its tags, hacking programs and their tiers, and what they bind of each attribute."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.freefall.attributes import Attribute, Attributes, _attribute
from rules.freefall.checks import FreeFallError, _enum

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
