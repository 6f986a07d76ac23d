"""The three attributes (Body, Mind, Ghost), one number for each, and spending current points."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.freefall.checks import FreeFallError, _int

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
