"""Harm: its three kinds, the three shared slots, and the protocol a hit goes through (armor, then
mitigation, then each remaining level resolved)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from rules.freefall.attributes import Attribute, Attributes, _attribute, spend
from rules.freefall.checks import HARM_SLOTS, FreeFallError, _enum, _int, pool
from rules.freefall.gear import Gear, break_gear

# ---------------------------------------------------------------------------
# The harm protocol


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
