"""The character builder: a new or edited character's attributes, class, specialty, gear and programs
checked, with what they bind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules.freefall.attributes import ATTRIBUTE_MAX, ATTRIBUTE_MIN, Attribute, Attributes, _attribute
from rules.freefall.checks import FreeFallError, _int
from rules.freefall.gear import Gear, Program, ProgramTier, ProgramType, binding

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
