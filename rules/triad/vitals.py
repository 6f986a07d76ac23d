"""Characters in play: their current and maximum scores, damage taken (stun, the Hard To ... traits,
dying and death), points spent and recovered, Berserker Rage and movement."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from rules.triad.combat import stuns
from rules.triad.vocabulary import (
    ABILITIES,
    ABILITY_MIN,
    ACTIONS_PER_TURN,
    BODY,
    CRAWL_FEET,
    MIND,
    MOVE_FEET,
    SPIRIT,
    TriadError,
    _ability_name,
    _int,
)

# ---------------------------------------------------------------------------
# Characters in play: damage, dying, recovery
# ---------------------------------------------------------------------------

#: The trait that saves each ability once when it drops to 0.
HARD_TO = {BODY: "Hard To Kill", MIND: "Hard To Confuse", SPIRIT: "Hard To Unnerve"}


@dataclass(frozen=True)
class Vitals:
    """A character's scores in play: fully-rested maximums, current values, and flags."""

    max_body: int
    max_mind: int
    max_spirit: int
    body: int
    mind: int
    spirit: int
    traits: frozenset[str] = frozenset()
    #: Abilities whose Hard To ... trait has fired and not yet been restored by full recovery.
    spent: frozenset[str] = frozenset()
    dead: bool = False

    def __post_init__(self) -> None:
        for a in ABILITIES:
            top = _int(self.maximum(a), f"Maximum {a.title()}", low=ABILITY_MIN, field=a)
            _int(self.current(a), f"Current {a.title()}", low=0, high=top, field=a)

    @classmethod
    def fresh(cls, *, body: int, mind: int, spirit: int, traits: Iterable[str] = ()) -> Vitals:
        """A fully rested character."""
        return cls(body, mind, spirit, body, mind, spirit, traits=frozenset(traits))

    def maximum(self, ability: str) -> int:
        return getattr(self, "max_" + _ability_name(ability))

    def current(self, ability: str) -> int:
        return getattr(self, _ability_name(ability))

    @property
    def dying(self) -> bool:
        """Any ability at 0: the character cannot act and only crawls."""
        return not self.dead and any(self.current(a) == 0 for a in ABILITIES)


@dataclass(frozen=True)
class DamageReport:
    """What one hit did to a character."""

    vitals: Vitals
    lost: int
    stunned: bool
    #: The Hard To ... trait that fired, if any.
    saved_by: str | None = None

    @property
    def dying(self) -> bool:
        return self.vitals.dying

    @property
    def dead(self) -> bool:
        return self.vitals.dead


def take_damage(vitals: Vitals, points: int, *, ability: str = BODY) -> DamageReport:
    """Apply one attack's damage (after armor) to an ability, with stun, Hard To ..., dying, death."""
    ability = _ability_name(ability)
    points = _int(points, "The damage", low=0, field="damage")
    if vitals.dead:
        raise TriadError("That character is already dead.")
    if points == 0:
        return DamageReport(vitals=vitals, lost=0, stunned=False)
    if vitals.dying:  # any new damage finishes off a dying character
        return DamageReport(vitals=replace(vitals, dead=True), lost=points,
                            stunned=stuns(points))
    left = max(0, vitals.current(ability) - points)
    spent, saved_by = vitals.spent, None
    trait = HARD_TO[ability]
    if left == 0 and trait in vitals.traits and ability not in spent:
        left = max(1, vitals.maximum(ability) // 2)
        spent, saved_by = spent | {ability}, trait
    new = replace(vitals, spent=spent, **{ability: left})
    return DamageReport(vitals=new, lost=points, stunned=stuns(points), saved_by=saved_by)


def spend(vitals: Vitals, ability: str, points: int = 1) -> Vitals:
    """Pay ability points (extra effort, a failed task's cost) without the damage rules."""
    ability = _ability_name(ability)
    points = _int(points, "The points spent", low=0)
    if points > vitals.current(ability):
        raise TriadError(f"Only {vitals.current(ability)} {ability.title()} points are left.",
                         field=ability)
    return replace(vitals, **{ability: vitals.current(ability) - points})


def recover(vitals: Vitals, points: Mapping[str, int]) -> Vitals:
    """Add rested points back to chosen abilities, never above their maximums."""
    if vitals.dead:
        raise TriadError("The dead do not recover.")
    changes, spent = {}, set(vitals.spent)
    for name, add in points.items():
        a = _ability_name(name)
        add = _int(add, f"Recovered {a.title()}", low=0, field=a)
        value = vitals.current(a) + add
        if value > vitals.maximum(a):
            raise TriadError(f"{a.title()} cannot recover past its maximum of "
                             f"{vitals.maximum(a)}.", field=a)
        changes[a] = value
        if value == vitals.maximum(a):
            spent.discard(a)  # back to full: the Hard To ... trait is ready again
    return replace(vitals, spent=frozenset(spent), **changes)


def rest(vitals: Vitals, hours: int, split: Mapping[str, int] | None = None) -> Vitals:
    """Rest for whole hours: 1 point each, spread as the player splits them (default Body,
    then Mind, then Spirit); points with nowhere to go are lost."""
    hours = _int(hours, "The hours of rest", low=0, field="hours")
    if split is None:
        split, left = {}, hours
        for a in ABILITIES:
            add = min(left, vitals.maximum(a) - vitals.current(a))
            split[a], left = add, left - add
    elif sum(split.values()) > hours:
        raise TriadError(f"{hours} hours of rest recover only {hours} points.", field="hours")
    return recover(vitals, split)


def berserker_rage(vitals: Vitals, source: str) -> Vitals:
    """Berserker Rage: move 1 point from Mind or Spirit into Body, up to Body's maximum."""
    source = _ability_name(source)
    if source == BODY:
        raise TriadError("Berserker Rage feeds Body from Mind or Spirit.", field="ability")
    if vitals.body >= vitals.max_body:
        raise TriadError("Body is already at its maximum.", field="body")
    return replace(spend(vitals, source, 1), body=vitals.body + 1)


def move_feet(*, moves: int = 1, trait: str | None = None, restrained: bool = False,
              dying: bool = False) -> int:
    """Distance covered by move actions this turn (Fast doubles, Fast (Extreme) triples)."""
    moves = _int(moves, "The number of move actions", low=0, high=ACTIONS_PER_TURN)
    if restrained:
        return 0
    if dying:
        return CRAWL_FEET
    factor = {None: 1, "Fast": 2, "Fast (Extreme)": 3}.get(trait)
    if factor is None:
        raise TriadError(f"{trait!r} does not change movement.", field="trait")
    return moves * MOVE_FEET * factor
