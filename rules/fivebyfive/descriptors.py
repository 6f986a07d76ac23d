"""Descriptors: one line of the sheet, HP as a rank and as points, a new character's six ranked
descriptors, and the rules a sheet's set must keep."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rules.dice import RulesError
from rules.fivebyfive.ladder import (
    ADVANCED_CAP,
    BASIC_CAP,
    CREATION_VALUES,
    HP_BONUS,
    HP_NAME,
    MAX_LEGENDARY,
    MAX_TWELVES,
    NAME_MAX_LENGTH,
    POOR,
    RANKS,
    UNTRAINED,
    ExclusiveAction,
    FieldError,
    _is_int,
    _rank,
)

# --------------------------------------------------------------------------- descriptors


@dataclass(frozen=True)
class Descriptor:
    """One line of the sheet. For HP, ``value`` is the rank; the sheet shows rank + 10 hit points."""

    name: str
    value: int
    advanced: bool = False
    exclusive: ExclusiveAction | None = None

    @property
    def is_hp(self) -> bool:
        return self.name.strip().casefold() == HP_NAME.casefold()

    @property
    def hp(self) -> int | None:
        return self.value + HP_BONUS if self.is_hp else None


def hp_points(rank: int) -> int:
    """Hit points for an HP descriptor at ``rank`` (rank + 10)."""
    return _rank(rank, what="An HP rank") + HP_BONUS


def hp_rank(points: int) -> int:
    """The ladder rank behind a hit point maximum (points - 10)."""
    if not _is_int(points):
        raise RulesError(f"Hit points are a whole number, not {points!r}.")
    return _rank(points - HP_BONUS, what="Hit points less 10")


def ranked_values(order: Sequence[str]) -> dict[str, int]:
    """Creation values for six names (most important first, one 'HP'): 6,4,4,2,2,-5; HP +10."""
    names = list(order)
    if len(names) != len(CREATION_VALUES):
        raise FieldError(
            f"Rank exactly six descriptors (five of your own plus HP), not {len(names)}.", field="order"
        )
    seen: set[str] = set()
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise FieldError("Every descriptor needs a name.", field=f"order[{i}]")
        if len(name) > NAME_MAX_LENGTH:
            raise FieldError(f"Keep descriptor names to {NAME_MAX_LENGTH} characters.", field=f"order[{i}]")
        key = name.strip().casefold()
        if key in seen:
            raise FieldError(f"'{name.strip()}' is ranked twice.", field=f"order[{i}]")
        seen.add(key)
    if HP_NAME.casefold() not in seen:
        raise FieldError("HP must be ranked among the six descriptors.", field="order")
    return {
        name: value + (HP_BONUS if name.strip().casefold() == HP_NAME.casefold() else 0)
        for name, value in zip(names, CREATION_VALUES, strict=True)
    }


def build_character(
    order: Sequence[str],
    *,
    advanced: Iterable[str] = (),
    exclusive: Mapping[str, ExclusiveAction] | None = None,
) -> tuple[Descriptor, ...]:
    """The six starting descriptors from a ranking (HP kept as its rank), validated for creation."""
    values = ranked_values(order)
    adv = {a.strip().casefold() for a in advanced}
    excl = {k.strip().casefold(): v for k, v in (exclusive or {}).items()}
    known = {n.strip().casefold() for n in values}
    for extra in (adv | set(excl)) - known:
        raise FieldError(f"'{extra}' is not one of the ranked descriptors.", field="order")
    out = tuple(
        Descriptor(
            name.strip(),
            CREATION_VALUES[i],
            name.strip().casefold() in adv,
            excl.get(name.strip().casefold()),
        )
        for i, name in enumerate(values)
    )
    validate_descriptors(out, creation=True)
    return out


def validate_descriptors(descriptors: Sequence[Descriptor], *, creation: bool = False) -> None:
    """Raise FieldError unless the set is legal: one HP, one poor, caps on 12s and 16s, ranks in range."""
    ds = list(descriptors)
    seen: dict[str, int] = {}
    for i, d in enumerate(ds):
        f = f"descriptors[{i}]"
        if not isinstance(d, Descriptor):
            raise FieldError("Each entry must be a descriptor.", field=f)
        if not isinstance(d.name, str) or not d.name.strip():
            raise FieldError("Every descriptor needs a name.", field=f"{f}.name")
        if len(d.name) > NAME_MAX_LENGTH:
            raise FieldError(f"Keep descriptor names to {NAME_MAX_LENGTH} characters.", field=f"{f}.name")
        key = d.name.strip().casefold()
        if key in seen:
            raise FieldError(f"'{d.name.strip()}' appears twice.", field=f"{f}.name")
        seen[key] = i
        if not _is_int(d.value) or d.value not in RANKS:
            raise FieldError(
                f"{d.name.strip()}: {d.value!r} is not a rank on the ladder ({', '.join(map(str, RANKS))}).",
                field=f"{f}.value",
            )
        if d.value == UNTRAINED and not d.is_hp:
            raise FieldError(
                f"{d.name.strip()}: untrained (0) is everyone's default; leave it off the sheet.",
                field=f"{f}.value",
            )
        cap = ADVANCED_CAP if d.advanced else BASIC_CAP
        if d.value > cap:
            raise FieldError(
                f"{d.name.strip()}: a basic descriptor stops at 16; only advanced "
                f"descriptors reach {d.value}.",
                field=f"{f}.value",
            )
        if d.is_hp and d.advanced:
            raise FieldError("HP cannot be an advanced descriptor.", field=f"{f}.advanced")
        if d.exclusive is not None and not isinstance(d.exclusive, ExclusiveAction):
            raise FieldError(f"{d.name.strip()}: pick one exclusive action at most.", field=f"{f}.exclusive")
        if d.is_hp and d.exclusive is not None:
            raise FieldError("HP cannot improve an exclusive action.", field=f"{f}.exclusive")
    hp = [i for i, d in enumerate(ds) if d.is_hp]
    if len(hp) != 1:
        raise FieldError("The sheet needs exactly one HP descriptor.", field="descriptors")
    named = len(ds) - 1
    if creation and named != 5:
        raise FieldError(
            f"A new character has five descriptors besides HP, not {named}.", field="descriptors"
        )
    if named < 5:
        raise FieldError(
            f"A character keeps at least five descriptors besides HP, not {named}.", field="descriptors"
        )
    if creation and sorted(d.value for d in ds) != sorted(CREATION_VALUES):
        raise FieldError(
            "A new character's descriptors are ranked 6, 4, 4, 2, 2 and -5 (poor).", field="descriptors"
        )
    poor = [d for d in ds if d.value == POOR]
    if len(poor) != 1:
        raise FieldError(
            f"A character has exactly one poor (-5) descriptor, not {len(poor)}.", field="descriptors"
        )
    twelves = sum(d.value == 12 for d in ds)
    if twelves > MAX_TWELVES:
        raise FieldError(f"At most {MAX_TWELVES} descriptors can be master (12).", field="descriptors")
    legendary = sum(d.value >= 16 for d in ds)
    if legendary > MAX_LEGENDARY:
        raise FieldError("At most one descriptor can be legendary (16) or higher.", field="descriptors")
