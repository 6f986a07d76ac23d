"""Triad: one d20 against a Difficulty, floored by the current Body, Mind or Spirit.

Every roll is a pure function of the faces rolled (``check``, ``opposed``, ``team_check``,
``initiative``), so a roll log replays exactly; the ``roll_*`` functions only throw the dice
and call them. Exact odds come back as :class:`fractions.Fraction`. The creation rules
(point-buy tiers, the trait list, the sample characters) are module-level data, and
:func:`validate_character` checks a build for the character builder.

Over 500 lines on purpose: this is the whole Triad engine, one namespace its callers read as
``rules.triad.X``, in sections (tasks, opposed and team rolls, initiative, damage, what an attack does
instead of damage, characters in play, NPCs, and the seed's data: traits, tiers, samples); about a third
of it is the seed's lists, which belong beside the rules that read them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache, lru_cache

from rules.dice import Outcome, Roller, RulesError, check_faces

# ---------------------------------------------------------------------------
# Vocabulary
# ---------------------------------------------------------------------------

CRITICAL = Outcome.CRITICAL
SUCCESS = Outcome.SUCCESS
MIXED = Outcome.MIXED
FAILURE = Outcome.FAILURE
FUMBLE = Outcome.FUMBLE
#: Best first; every distribution in this module uses these keys.
OUTCOMES = (CRITICAL, SUCCESS, MIXED, FAILURE, FUMBLE)

BODY = "body"
MIND = "mind"
SPIRIT = "spirit"
ABILITIES = (BODY, MIND, SPIRIT)

ABILITY_MIN = 1
ABILITY_MAX = 20
DIE = 20
#: A result this far above the Difficulty (or the opposing total) is a critical.
CRITICAL_MARGIN = 5
#: Losing this many points to a single attack stuns the target for its next turn.
STUN_THRESHOLD = 5
#: NPCs do not roll initiative; they act at Difficulty + this.
NPC_INITIATIVE_BONUS = 5
#: Feet covered by one move action, and by a dying character's whole turn.
MOVE_FEET = 30
CRAWL_FEET = 5
ACTIONS_PER_TURN = 2
TURN_ACTIONS = ("task", "move", "evade")

#: Ability score benchmarks (score -> what it means), for help text on the sheet.
ABILITY_BENCHMARKS = {
    5: "poor: untrained, no talent for it",
    10: "fair: trained or talented, a working professional",
    15: "excellent: a master, the best around",
    20: "great: legendary, among the best in the world",
}

#: Task Difficulty benchmarks: Difficulty -> (label, the chance the seed quotes for a bare d20).
DIFFICULTY_BENCHMARKS = {
    1: ("trivial", "95% success"),
    5: ("easy", "75% success"),
    10: ("moderate", "50% success"),
    15: ("hard", "25% success"),
    20: ("extreme", "5% mixed"),
}


class TriadError(RulesError):
    """A Triad rule was asked something it cannot answer; ``field`` names the culprit if known."""

    def __init__(self, message: str, *, field: str | None = None):
        super().__init__(message)
        self.field = field


class BuildError(TriadError):
    """A character build breaks a creation rule; ``field`` names the builder field at fault."""


# ---------------------------------------------------------------------------
# Small validators
# ---------------------------------------------------------------------------


def _int(value: object, what: str, *, low: int | None = None, high: int | None = None,
         field: str | None = None, error: type[TriadError] = TriadError) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"{what} must be a whole number, not {value!r}.", field=field)
    if low is not None and value < low:
        raise error(f"{what} cannot be below {low} (got {value}).", field=field)
    if high is not None and value > high:
        raise error(f"{what} cannot be above {high} (got {value}).", field=field)
    return value


def _edge(edge: object) -> int:
    if isinstance(edge, bool) or edge not in (-1, 0, 1):
        raise TriadError(f"Edge must be -1 (disadvantage), 0 or +1 (advantage), not {edge!r}.")
    return int(edge)  # type: ignore[call-overload]


def _ability_name(name: object) -> str:
    if not isinstance(name, str) or name.lower() not in ABILITIES:
        raise TriadError(f"{name!r} is not an ability; use Body, Mind or Spirit.", field="ability")
    return name.lower()


def dice_for(edge: int) -> int:
    """How many d20s a task roll with this edge takes: one, or two with (dis)advantage."""
    return 1 if _edge(edge) == 0 else 2


# ---------------------------------------------------------------------------
# Advantage and disadvantage
# ---------------------------------------------------------------------------


def net_edge(advantages: int, disadvantages: int) -> int:
    """Cancel advantage and disadvantage sources one for one: +1, 0 or -1."""
    adv = _int(advantages, "The number of advantages", low=0)
    dis = _int(disadvantages, "The number of disadvantages", low=0)
    return (adv > dis) - (adv < dis)


def count_edge(*, adv_traits: int = 0, advantages: int = 0, disadvantages: int = 0,
               extra_effort: bool = False, stunned: bool = False, evading: bool = False) -> int:
    """Count every source of edge on one task roll (traits, effort, stun, evasion) and net it."""
    adv = (_int(adv_traits, "The number of (Adv.) traits", low=0)
           + _int(advantages, "The number of advantages", low=0)
           + bool(extra_effort) + bool(evading))
    dis = _int(disadvantages, "The number of disadvantages", low=0) + bool(stunned)
    return net_edge(adv, dis)


# ---------------------------------------------------------------------------
# Task rolls
# ---------------------------------------------------------------------------


def _kept(faces: tuple[int, ...], edge: int) -> int:
    if edge > 0:
        return max(faces)
    if edge < 0:
        return min(faces)
    return faces[0]


def _grade(total: int, difficulty: int, *, fumbled: bool, adv_trait: bool) -> Outcome:
    if fumbled:
        return FUMBLE
    if total >= difficulty + CRITICAL_MARGIN:
        return CRITICAL
    if total > difficulty:
        return SUCCESS
    if total == difficulty:
        return SUCCESS if adv_trait else MIXED
    return FAILURE


@dataclass(frozen=True)
class TaskResult:
    """One task roll: every face thrown, the die kept, the total and its outcome."""

    ability: int
    difficulty: int
    faces: tuple[int, ...]
    kept: int
    total: int
    outcome: Outcome
    edge: int = 0
    adv_trait: bool = False

    @property
    def succeeded(self) -> bool:
        """Whether the task got done (a mixed result succeeds, at a price)."""
        return self.outcome in (CRITICAL, SUCCESS, MIXED)

    @property
    def failed(self) -> bool:
        """Whether the character suffers the failure's consequence (mixed results do too)."""
        return self.outcome in (MIXED, FAILURE, FUMBLE)

    @property
    def margin(self) -> int:
        """Total minus Difficulty: negative when the roll fell short."""
        return self.total - self.difficulty


def check(ability: int, difficulty: int, dice: Iterable[int], *, edge: int = 0,
          adv_trait: bool = False) -> TaskResult:
    """Grade a task roll from the faces thrown: total = max(kept die, current ability)."""
    ability = _int(ability, "The ability score", low=0, field="ability")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    edge = _edge(edge)
    faces = check_faces(dice, sides=DIE, count=dice_for(edge))
    kept = _kept(faces, edge)
    total = max(kept, ability)
    # The kept die decides the fumble: advantage ignores a lone 1, disadvantage keeps it.
    outcome = _grade(total, difficulty, fumbled=kept == 1, adv_trait=bool(adv_trait))
    return TaskResult(ability=ability, difficulty=difficulty, faces=faces, kept=kept,
                      total=total, outcome=outcome, edge=edge, adv_trait=bool(adv_trait))


def roll_task(roller: Roller, *, ability: int, difficulty: int, edge: int = 0,
              adv_trait: bool = False) -> TaskResult:
    """Throw the dice for a task roll and grade it.

    ``edge`` is the net edge with every source already counted: for extra effort pass
    ``count_edge(..., extra_effort=True)``, and pay its point with ``spend`` after the roll.
    """
    faces = roller.dice(dice_for(edge), DIE)
    return check(ability, difficulty, faces, edge=edge, adv_trait=adv_trait)


@cache
def kept_distribution(edge: int = 0) -> dict[int, Fraction]:
    """Exact odds of each face being the kept die for this edge."""
    edge = _edge(edge)
    n = DIE
    if edge == 0:
        return {k: Fraction(1, n) for k in range(1, n + 1)}
    if edge > 0:  # the higher of two: P(max = k) = (k^2 - (k-1)^2) / n^2
        return {k: Fraction(k * k - (k - 1) ** 2, n * n) for k in range(1, n + 1)}
    return {k: Fraction((n + 1 - k) ** 2 - (n - k) ** 2, n * n) for k in range(1, n + 1)}


def _side_states(ability: int, edge: int) -> dict[tuple[int, bool], Fraction]:
    """Odds of each (total, fumbled) pair for one roller."""
    states: dict[tuple[int, bool], Fraction] = {}
    for kept, p in kept_distribution(edge).items():
        key = (max(kept, ability), kept == 1)
        states[key] = states.get(key, Fraction(0)) + p
    return states


def _blank() -> dict[str, Fraction]:
    return {o: Fraction(0) for o in OUTCOMES}


def chance(ability: int, difficulty: int, *, edge: int = 0,
           adv_trait: bool = False) -> dict[str, Fraction]:
    """Exact odds of each of the five outcomes of a task roll; they sum to 1."""
    ability = _int(ability, "The ability score", low=0, field="ability")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    return dict(_chance(ability, difficulty, _edge(edge), bool(adv_trait)))


@lru_cache(maxsize=4096)
def _chance(ability: int, difficulty: int, edge: int, adv_trait: bool) -> dict[str, Fraction]:
    odds = _blank()
    for (total, fumbled), p in _side_states(ability, edge).items():
        odds[_grade(total, difficulty, fumbled=fumbled, adv_trait=adv_trait)] += p
    return odds


# ---------------------------------------------------------------------------
# Exceptional tools, extra effort
# ---------------------------------------------------------------------------


def effective_ability(current: int, *, tool: int | None = None) -> int:
    """The score a task uses: an exceptional tool's rating replaces the current score outright."""
    current = _int(current, "The ability score", low=0, field="ability")
    if tool is None:
        return current
    return _int(tool, "The tool's ability rating", low=1, high=ABILITY_MAX, field="tool")


# ---------------------------------------------------------------------------
# Opposed rolls and teamwork
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Side:
    """One participant in an opposed or team roll: current ability, edge, and (Adv.) trait."""

    ability: int
    edge: int = 0
    adv_trait: bool = False

    def __post_init__(self) -> None:
        _int(self.ability, "The ability score", low=0, field="ability")
        _edge(self.edge)


@dataclass(frozen=True)
class OpposedResult:
    """An opposed roll: both sides' faces and totals, who won, and by how much."""

    a: TaskResult
    b: TaskResult
    #: "a", "b", or None when neither side wins (a tie, or both fumble).
    winner: str | None
    margin: int
    #: The winner beat the loser by 5 or more (double damage if harm was at stake).
    critical: bool

    @property
    def outcome(self) -> Outcome:
        """Side a's outcome, one of OUTCOMES."""
        return self.a.outcome


def _side_roll(side: Side, dice: Iterable[int]) -> tuple[tuple[int, ...], int, int]:
    faces = check_faces(dice, sides=DIE, count=dice_for(side.edge))
    kept = _kept(faces, side.edge)
    return faces, kept, max(kept, side.ability)


def _opposed_grade(total_a: int, fumble_a: bool, adv_a: bool,
                   total_b: int, fumble_b: bool, adv_b: bool) -> tuple[Outcome, Outcome, str | None]:
    """Outcomes for a and b and the winner; fumbles lose outright, ties are mixed for both."""
    if fumble_a and fumble_b:
        return FUMBLE, FUMBLE, None
    if fumble_a or fumble_b:
        win, lose_total, win_total = ("b", total_a, total_b) if fumble_a else ("a", total_b, total_a)
        grade = CRITICAL if win_total >= lose_total + CRITICAL_MARGIN else SUCCESS
        return (FUMBLE, grade, "b") if win == "b" else (grade, FUMBLE, "a")
    if total_a == total_b:
        # An (Adv.) trait turns a tie into a win only when the other side lacks one.
        if adv_a and not adv_b:
            return SUCCESS, FAILURE, "a"
        if adv_b and not adv_a:
            return FAILURE, SUCCESS, "b"
        return MIXED, MIXED, None
    grade = CRITICAL if abs(total_a - total_b) >= CRITICAL_MARGIN else SUCCESS
    return (grade, FAILURE, "a") if total_a > total_b else (FAILURE, grade, "b")


def opposed(a: Side, dice_a: Iterable[int], b: Side, dice_b: Iterable[int]) -> OpposedResult:
    """Settle an opposed roll from both sides' faces: the higher total wins."""
    faces_a, kept_a, total_a = _side_roll(a, dice_a)
    faces_b, kept_b, total_b = _side_roll(b, dice_b)
    out_a, out_b, winner = _opposed_grade(total_a, kept_a == 1, a.adv_trait,
                                          total_b, kept_b == 1, b.adv_trait)
    res_a = TaskResult(ability=a.ability, difficulty=total_b, faces=faces_a, kept=kept_a,
                       total=total_a, outcome=out_a, edge=a.edge, adv_trait=a.adv_trait)
    res_b = TaskResult(ability=b.ability, difficulty=total_a, faces=faces_b, kept=kept_b,
                       total=total_b, outcome=out_b, edge=b.edge, adv_trait=b.adv_trait)
    margin = abs(total_a - total_b) if winner else 0
    return OpposedResult(a=res_a, b=res_b, winner=winner, margin=margin,
                         critical=CRITICAL in (out_a, out_b))


def roll_opposed(roller: Roller, a: Side, b: Side) -> OpposedResult:
    """Throw both sides' dice for an opposed roll."""
    dice_a = roller.dice(dice_for(a.edge), DIE)
    dice_b = roller.dice(dice_for(b.edge), DIE)
    return opposed(a, dice_a, b, dice_b)


def opposed_chance(a: Side, b: Side) -> dict[str, Fraction]:
    """Exact odds of each outcome for side a in an opposed roll against side b."""
    odds = _blank()
    states_b = _side_states(b.ability, b.edge)
    for (ta, fa), pa in _side_states(a.ability, a.edge).items():
        for (tb, fb), pb in states_b.items():
            out_a, _, _ = _opposed_grade(ta, fa, a.adv_trait, tb, fb, b.adv_trait)
            odds[out_a] += pa * pb
    return odds


@dataclass(frozen=True)
class TeamResult:
    """A team task: each member's faces, the best single number, and the shared outcome."""

    members: tuple[Side, ...]
    faces: tuple[tuple[int, ...], ...]
    difficulty: int
    total: int
    outcome: Outcome
    adv_trait: bool = False


def team_check(members: Sequence[Side], dice: Sequence[Iterable[int]], difficulty: int, *,
               adv_trait: bool = False) -> TeamResult:
    """Grade a team task: the best ability or kept die counts, and any member's fumble sinks it."""
    members = tuple(members)
    if not members:
        raise TriadError("A team needs at least one member.", field="members")
    if len(dice) != len(members):
        raise TriadError(f"Each of the {len(members)} team members needs their own dice.",
                         field="dice")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    faces, totals, fumbled = [], [], False
    for side, rolled in zip(members, dice, strict=True):
        f, kept, total = _side_roll(side, rolled)
        faces.append(f)
        totals.append(total)
        fumbled = fumbled or kept == 1
    total = max(totals)
    outcome = _grade(total, difficulty, fumbled=fumbled, adv_trait=bool(adv_trait))
    return TeamResult(members=members, faces=tuple(faces), difficulty=difficulty, total=total,
                      outcome=outcome, adv_trait=bool(adv_trait))


def roll_team(roller: Roller, members: Sequence[Side], difficulty: int, *,
              adv_trait: bool = False) -> TeamResult:
    """Throw every member's dice for a team task."""
    dice = [roller.dice(dice_for(m.edge), DIE) for m in members]
    return team_check(members, dice, difficulty, adv_trait=adv_trait)


def team_chance(members: Sequence[Side], difficulty: int, *,
                adv_trait: bool = False) -> dict[str, Fraction]:
    """Exact odds of each outcome of a team task."""
    members = tuple(members)
    if not members:
        raise TriadError("A team needs at least one member.", field="members")
    difficulty = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    states = [_side_states(m.ability, m.edge) for m in members]
    tops = range(0, max(max(t for t, _ in s) for s in states) + 1)

    def clean_at_most(t: int) -> Fraction:
        # P(nobody fumbles and every member's total <= t): members roll independently.
        prod = Fraction(1)
        for s in states:
            prod *= sum((p for (tot, f), p in s.items() if not f and tot <= t), Fraction(0))
        return prod

    odds = _blank()
    clean = [clean_at_most(t) for t in tops]
    for t in tops:
        p = clean[t] - (clean[t - 1] if t else 0)
        if p:
            odds[_grade(t, difficulty, fumbled=False, adv_trait=bool(adv_trait))] += p
    odds[FUMBLE] = 1 - clean[-1]
    return odds


# ---------------------------------------------------------------------------
# Initiative
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Initiative:
    """One combatant's initiative: the value and everything the tie-breaks look at."""

    name: str
    value: int
    #: The kept die; 0 for an NPC, who does not roll.
    die: int = 0
    body: int = 0
    mind: int = 0
    spirit: int = 0
    faces: tuple[int, ...] = ()
    npc: bool = False

    def sort_key(self) -> tuple[int, int, int, int, int]:
        """Higher acts first: value, then die, then current Body, Mind, Spirit."""
        return (self.value, self.die, self.body, self.mind, self.spirit)


def initiative(name: str, dice: Iterable[int], *, body: int, mind: int, spirit: int,
               edge: int = 0) -> Initiative:
    """A character's initiative: the kept d20 or the best current ability, whichever is higher."""
    edge = _edge(edge)
    faces = check_faces(dice, sides=DIE, count=dice_for(edge))
    scores = [_int(v, f"Current {a.title()}", low=0, field=a)
              for a, v in zip(ABILITIES, (body, mind, spirit), strict=True)]
    kept = _kept(faces, edge)
    return Initiative(name=name, value=max([kept, *scores]), die=kept, body=scores[0],
                      mind=scores[1], spirit=scores[2], faces=faces)


def roll_initiative(roller: Roller, name: str, *, body: int, mind: int, spirit: int,
                    edge: int = 0) -> Initiative:
    """Throw a character's initiative die (Danger Sense gives advantage, stun disadvantage)."""
    return initiative(name, roller.dice(dice_for(edge), DIE), body=body, mind=mind,
                      spirit=spirit, edge=edge)


def npc_initiative(name: str, difficulty: int) -> Initiative:
    """An NPC's fixed initiative, Difficulty + 5; it rolls no die and its Difficulty stands in
    for every ability in the tie-breaks."""
    d = _int(difficulty, "The Difficulty", low=0, field="difficulty")
    return Initiative(name=name, value=d + NPC_INITIATIVE_BONUS, die=0, body=d, mind=d,
                      spirit=d, npc=True)


def initiative_order(entries: Iterable[Initiative]) -> list[Initiative]:
    """Turn order, first to act first; a tie that survives every tie-break keeps listed order."""
    return sorted(entries, key=Initiative.sort_key, reverse=True)


# ---------------------------------------------------------------------------
# Damage
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Tier:
    """A damage or armor rating: its name, the points, and example gear."""

    name: str
    points: int
    examples: tuple[str, ...]


#: Weapon damage by severity.
WEAPONS = {
    "light": Tier("Light", 3, ("punches", "kicks", "clubs", "knives")),
    "medium": Tier("Medium", 6, ("swords", "two-handed melee weapons", "claws", "bites",
                                 "crossbows", "most firearms")),
    "heavy": Tier("Heavy", 9, ("huge melee weapons", "heavy crossbows", "huge claws",
                               "machineguns")),
    "superheavy": Tier("Superheavy", 15, ("artillery", "bombs", "explosions", "giant claws")),
}

#: Armor as the positive number of damage points it stops.
ARMOR = {
    "none": Tier("No Armor", 0, ("ordinary clothing",)),
    "light": Tier("Light", 2, ("leather jacket", "flak jacket", "thick animal hide")),
    "medium": Tier("Medium", 4, ("chainmail", "ballistic vest", "space suit")),
    "heavy": Tier("Heavy", 6, ("full platemail", "bomb squad suit", "heavy space suit")),
    "superheavy": Tier("Superheavy", 12, ("dragonscale", "sci-fi battlesuit", "light mecha")),
}

#: Extra damage from the Deadly trait (doubled with the rest on a critical: 3, or 6).
DEADLY_BONUS = 3


def weapon_damage(tier: str) -> int:
    """Damage points of a weapon tier by name (light, medium, heavy, superheavy)."""
    key = str(tier).lower()
    if key not in WEAPONS:
        raise TriadError(f"{tier!r} is not a weapon tier; use one of "
                         f"{', '.join(WEAPONS)}.", field="weapon")
    return WEAPONS[key].points


def armor_rating(tier: str) -> int:
    """Damage points stopped by an armor tier by name (none, light, medium, heavy, superheavy)."""
    key = str(tier).lower()
    if key not in ARMOR:
        raise TriadError(f"{tier!r} is not an armor tier; use one of "
                         f"{', '.join(ARMOR)}.", field="armor")
    return ARMOR[key].points


def damage(base: int, *, armor: int = 0, critical: bool = False) -> int:
    """Points lost: base (doubled on a critical) less armor, never below 0."""
    base = _int(base, "The damage", low=0, field="damage")
    armor = _int(armor, "The armor rating", low=0, field="armor")
    return max(0, base * (2 if critical else 1) - armor)


def stuns(points_lost: int) -> bool:
    """Whether losing this many points to one attack stuns the target for its next turn."""
    return _int(points_lost, "The points lost", low=0) >= STUN_THRESHOLD


@dataclass(frozen=True)
class AttackOutcome:
    """What an attack task did: points the target loses and points the attacker loses."""

    outcome: Outcome
    to_target: int
    to_attacker: int

    @property
    def target_stunned(self) -> bool:
        return self.to_target >= STUN_THRESHOLD

    @property
    def attacker_stunned(self) -> bool:
        return self.to_attacker >= STUN_THRESHOLD


def attack(outcome: Outcome | str, *, weapon: int, target_armor: int = 0, deadly: bool = False,
           counter: int = 0, attacker_armor: int = 0) -> AttackOutcome:
    """Damage both ways from an attack's outcome: hits hurt the target, misses let it hit back.

    ``counter`` is the damage the target deals when it can fight back (0 when it cannot);
    a mixed result does both, a critical doubles the attacker's damage (Deadly included).
    """
    if outcome not in OUTCOMES:
        raise TriadError(f"{outcome!r} is not a task outcome.", field="outcome")
    base = _int(weapon, "The weapon damage", low=0, field="weapon") + (DEADLY_BONUS if deadly else 0)
    hit = outcome in (CRITICAL, SUCCESS, MIXED)
    missed = outcome in (MIXED, FAILURE, FUMBLE)
    to_target = damage(base, armor=target_armor, critical=outcome == CRITICAL) if hit else 0
    to_attacker = damage(counter, armor=attacker_armor) if missed else 0
    return AttackOutcome(outcome=Outcome(outcome), to_target=to_target, to_attacker=to_attacker)


def hazard_damage(result: TaskResult, *, points: int, severe_points: int | None = None,
                  severe_by: int = 7) -> int:
    """Damage from a roll to avoid harm: none on a success, ``points`` on a failure, and
    ``severe_points`` when the roll fell short by ``severe_by`` or more (before armor)."""
    points = _int(points, "The hazard damage", low=0)
    if result.outcome in (CRITICAL, SUCCESS):
        return 0
    if severe_points is not None and result.difficulty - result.total >= severe_by:
        return _int(severe_points, "The severe hazard damage", low=0)
    return points


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


# ---------------------------------------------------------------------------
# Instead of damage: grapple, disarm, trip, stun
# ---------------------------------------------------------------------------

#: What an attack may declare instead of damage (l.125, and l.191's Stunning Strikes).
GRAPPLE = "grapple"
DISARM = "disarm"
TRIP = "trip"
STUN = "stun"
#: The condition each leaves on a target it hits.
ALTERNATIVES = {GRAPPLE: "grappled", DISARM: "disarmed", TRIP: "prone", STUN: "stunned"}
#: What a disarmed fighter hits with: punches and kicks.
UNARMED = "light"


def alternative(outcome: Outcome | str, intent: str, *, counter: int = 0,
                attacker_armor: int = 0) -> tuple[str | None, int]:
    """An attack declared for ``intent`` instead of damage: (the condition it leaves on the target, or
    None on a miss; the points the attacker takes back). It hits and misses as a damaging attack does
    (a mixed result does both), but deals no damage, so nothing is doubled on a critical."""
    if intent not in ALTERNATIVES:
        raise TriadError(f"{intent!r} is not something an attack can do instead of damage.",
                         field="intent")
    done = attack(outcome, weapon=0, counter=counter, attacker_armor=attacker_armor)
    hit = done.outcome in (CRITICAL, SUCCESS, MIXED)
    return (ALTERNATIVES[intent] if hit else None), done.to_attacker


def weapon_in_hand(tier: str, *, disarmed: bool = False) -> int:
    """The damage a fighter's blows deal: its weapon's, or a disarmed fighter's fists (Light); no weapon
    at all (``""``) deals none."""
    if not tier:
        return 0
    return weapon_damage(UNARMED if disarmed else tier)


# ---------------------------------------------------------------------------
# NPCs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Npc:
    """A GM-run foe rated by one Difficulty, which damage wears down."""

    name: str
    difficulty: int
    armor: int = 0
    weapon: int = 0
    unconscious: bool = False

    def __post_init__(self) -> None:
        _int(self.difficulty, "The Difficulty", low=0, field="difficulty")
        _int(self.armor, "The armor rating", low=0, field="armor")
        _int(self.weapon, "The weapon damage", low=0, field="weapon")

    @property
    def down(self) -> bool:
        """At Difficulty 0 the NPC is out: slain, or unconscious if the final blow spared it."""
        return self.difficulty == 0

    @property
    def slain(self) -> bool:
        return self.down and not self.unconscious

    @property
    def initiative(self) -> int:
        return self.difficulty + NPC_INITIATIVE_BONUS


def hit_npc(npc: Npc, points: int, *, spare: bool = False) -> Npc:
    """Lower an NPC's Difficulty by damage already reduced by armor; ``spare`` knocks it out."""
    points = _int(points, "The damage", low=0, field="damage")
    left = max(0, npc.difficulty - points)
    return replace(npc, difficulty=left, unconscious=left == 0 and bool(spare))


#: Rule-of-thumb foes: Difficulty -> (armor tier, weapon tier) for a typical opponent.
OPPONENT_BENCHMARKS = {
    1: ("minimal", "none", None),
    5: ("minor", "light", "light"),
    10: ("moderate", "light", "heavy"),
    15: ("major", "heavy", "heavy"),
    20: ("mighty", "superheavy", "superheavy"),
}

#: The GM reference bestiary: category -> Difficulty -> example foes.
BESTIARY = {
    "Human enemies": {
        1: ("children",),
        5: ("common people, typically unarmed",),
        10: ("guard, soldier, thugs (light armor, heavy weapon)",
             "angry mob of a dozen (no armor, heavy weapon)"),
        15: ("elite soldier, supervillain (heavy armor, heavy weapon)",
             "rioting crowd of hundreds (no armor, heavy weapon)"),
        20: ("supervillain mastermind (superheavy armor, superheavy weapon)",),
    },
    "Animals & dinosaurs": {
        1: ("tiny animal: rat, small snake, songbird",),
        5: ("small predator: anaconda, dog, eagle, wolverine", "large beast: horse"),
        10: ("medium predator: bear, lion, tiger", "huge beast: mammoth, triceratops"),
        15: ("large predator: great white shark, tyrannosaurus rex",),
        20: ("giant predator: a building-tall kaiju",),
    },
    "Monsters of horror": {
        5: ("fiend (imp)", "zombie (slow walker)"),
        10: ("fiend (soldier)", "ghoul", "incubus/succubus", "werewolf", "vampire (young)"),
        15: ("fiend (commander)", "fallen angel", "flesh golem", "vampire (elder)"),
        20: ("fiend (a lord of Hell)", "elder god (Great Cthulhu)"),
    },
    "Monsters of fantasy": {
        5: ("faerie", "goblin", "orc", "skeleton", "zombie"),
        10: ("chimera", "dragon (young)", "elemental", "giant", "mage", "orc leader"),
        15: ("archmage", "dragon (adult)", "great worm", "iron golem", "sphinx"),
        20: ("demigod", "dragon (ancient)", "kraken", "undead archmage"),
    },
    "Monsters of sci-fi": {
        5: ("utility robot (not built for combat)",),
        10: ("soldier robot", "space trooper (light armor, heavy weapon)"),
        15: ("cyborg assassin", "heavy trooper (heavy armor, heavy weapon)"),
        20: ("advanced battlesuit", "light mecha (superheavy armor, superheavy weapon)"),
    },
}


# ---------------------------------------------------------------------------
# Traits
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Trait:
    """A trait from the list: ``adv`` traits give advantage (and win ties) on related tasks."""

    name: str
    summary: str
    adv: bool
    #: The ability a related task usually rolls against; None when the trait bends a rule instead.
    ability: str | None


def _t(name: str, adv: bool, ability: str | None, summary: str) -> Trait:
    return Trait(name=name, summary=summary, adv=adv, ability=ability)


TRAITS: tuple[Trait, ...] = (
    _t("Administration", False, SPIRIT,
       "Knows how to work officials and bureaucracies, public or corporate, and how to grease palms."),
    _t("Alluring", True, SPIRIT,
       "Striking looks and manner: draws admirers, keeps friends warm, sticks in strangers' minds."),
    _t("Antiquarian", True, MIND,
       "Tracks down rare old books, forgotten lore and the writings of little-known scholars."),
    _t("Artist", True, SPIRIT, "Makes paintings, sculpture and other fine artwork."),
    _t("Awareness", True, MIND,
       "Sharp senses and sharp instincts: notices things, reads people, feels what they feel."),
    _t("Backstabber", True, BODY,
       "Strikes hard from hiding or ambush when the target does not know where they are."),
    _t("Berserker Rage", False, BODY,
       "Battle frenzy: once a turn shift 1 point from Mind or Spirit into Body (up to its "
       "maximum) and gain advantage on the next Body task."),
    _t("Brawling/Martial Artist", True, BODY,
       "Fights well with bare hands: strikes, throws, holds and wrestling."),
    _t("Celebrity", True, SPIRIT, "Famous for past deeds; people know the name and the face."),
    _t("Charm", True, SPIRIT, "Talks people round, lies convincingly and performs well."),
    _t("Clergy", True, MIND,
       "Knows a faith's teachings, rituals, hierarchy and holy writings."),
    _t("Cover Identities", False, None,
       "Holds papers and a full backstory for several false names, each with friends who "
       "never learn the truth; handy for shady work done unrecognised."),
    _t("Criminal", True, SPIRIT,
       "Has contacts in the underworld and a file with the police."),
    _t("Danger Sense", False, None,
       "Feels trouble coming; rolls initiative with advantage."),
    _t("Deadly", False, None,
       "A successful attack deals 3 extra points of damage, 6 on a critical."),
    _t("Detective", True, MIND,
       "Reads clues, spots fakes, and knows criminal law and how the police work."),
    _t("Dilettante", True, MIND,
       "Knows fine art, luxury goods, fashionable artists and what is in vogue."),
    _t("Eidetic Memory", False, MIND,
       "Recalls what was seen or read, dates and small details, with near-perfect accuracy."),
    _t("Engineer", True, MIND,
       "Designs machines and buildings; understands materials and power systems."),
    _t("Escape Artist", True, BODY,
       "Wriggles free of cuffs, nets, straitjackets and any other bonds."),
    _t("Espionage", True, MIND,
       "Handles codes and ciphers, surveillance gear, signals and photo intelligence, and "
       "mind-bending interrogation."),
    _t("Farmer", True, BODY,
       "Grows crops, raises livestock and gets produce sold."),
    _t("Fast (Extreme)", False, None, "Each move covers three times the normal distance."),
    _t("Fast", False, None, "Each move covers twice the normal distance."),
    _t("Finance", True, MIND,
       "Invests, sizes up companies and budgets, and moves money between accounts."),
    _t("Fluent With Millions", False, MIND,
       "Speaks dozens of languages and can make themself understood anywhere; no help with "
       "codes, ciphers or dead tongues."),
    _t("Guns", True, BODY, "A good shot with pistols, rifles and similar firearms."),
    _t("Hacker", True, MIND,
       "Breaks into secured networks, copies or changes data, and sabotages electronics."),
    _t("Heavy Weapons", True, BODY,
       "Operates vehicle-mounted guns, field artillery and squad support weapons."),
    _t("Honorable", True, SPIRIT,
       "Known for keeping their word, dealing fairly and doing the right thing."),
    _t("Influential", True, SPIRIT,
       "Knows people at every level of society and can call in news and favours from odd quarters."),
    _t("Insane", True, SPIRIT,
       "Known to be wild and unpredictable, acting without regard for anyone else."),
    _t("Journalist", True, MIND,
       "Writes articles and broadcast scripts, interviews sources, researches, finds experts."),
    _t("Magical", False, SPIRIT,
       "Channels supernatural power: casts spells and sways otherworldly beings."),
    _t("Medical Expert", True, MIND,
       "Diagnoses and treats, does forensic work, knows drugs and biology research."),
    _t("Military Tactics", True, MIND,
       "Handles camouflage, maps, demolitions and electronic countermeasures."),
    _t("Musician", True, SPIRIT,
       "Sings, plays instruments, writes songs and performs for a crowd."),
    _t("Natural Sciences", True, MIND,
       "Deep knowledge of biology, chemistry, physics, geology, astronomy and the like."),
    _t("Occult", True, MIND,
       "Knows the hidden truth about cults, secret orders, rituals and unnatural beings."),
    _t("Physique", True, BODY, "Very strong, tough and enduring."),
    _t("Psionics", False, MIND,
       "Wields psychic powers: telepathy, telekinesis and extrasensory perception."),
    _t("Social Sciences", True, MIND,
       "Deep knowledge of psychology, anthropology, sociology, economics and politics."),
    _t("Starship Ops", True, MIND,
       "Pilots small and large spacecraft, plots faster-than-light jumps, runs the sensors."),
    _t("Stealth", True, BODY, "Moves and acts without being seen or heard."),
    _t("Streetwise", True, SPIRIT,
       "Gets on with locals, gambles, and picks up news from informal contacts."),
    _t("Survival", True, BODY,
       "Practical know-how of the wild: weather, animals and plants."),
    _t("Swiftness", True, BODY, "Quick on their feet, with fast reflexes and nimble hands."),
    _t("Swords", True, BODY,
       "Fights well with long blades: cuts, thrusts and parries."),
    _t("Tactics", True, MIND,
       "Leads troops: coordinates squads or fleets against an enemy force."),
    _t("Thief", True, BODY,
       "Slips bonds, forges papers, opens locks and safes, picks pockets, beats alarms."),
    _t("Trade", True, SPIRIT,
       "Values cargo, strikes business deals and closes sales."),
    _t("Vehicle Ops", True, BODY,
       "Drives and pilots cars, speeders, boats, aircraft and hovercraft."),
    _t("Vengeful", True, SPIRIT, "Known to be merciless to enemies; never forgives."),
    _t("War Hero", True, SPIRIT,
       "Decorated veteran whose record other soldiers recognise at once."),
    _t("Willpower", True, SPIRIT, "Strong-minded, focused and hard to turn from a purpose."),
    _t("Stunning Strikes", True, BODY,
       "Lands blows that stun instead of harm: the target suffers disadvantage for a turn."),
    _t("Secret Access", True, SPIRIT,
       "Through loyalty or blackmail, gets well-placed people to share what they hide."),
    _t("Hideous", True, SPIRIT,
       "Frightful looks and unsettling habits; good for intimidation and terror."),
    _t("Hard To Kill", False, BODY,
       "The first time Body drops to 0, it bounces back to half its maximum; ready again "
       "once Body is fully restored."),
    _t("Hard To Confuse", False, MIND,
       "The first time Mind drops to 0, it bounces back to half its maximum; ready again "
       "once Mind is fully restored."),
    _t("Hard To Unnerve", False, SPIRIT,
       "The first time Spirit drops to 0, it bounces back to half its maximum; ready again "
       "once Spirit is fully restored."),
    _t("Relentless", False, BODY,
       "Each time an attack drops a foe to 0, make another attack at a new target in reach; "
       "keep going until a target stays standing or none are left."),
)

TRAITS_BY_NAME: dict[str, Trait] = {t.name: t for t in TRAITS}
ADV_TRAITS: tuple[str, ...] = tuple(t.name for t in TRAITS if t.adv)
#: The seven common advantage traits the rules single out.
COMMON_ADV_TRAITS = ("Awareness", "Charm", "Physique", "Stealth", "Survival", "Swiftness",
                     "Willpower")


def find_trait(name: str) -> Trait:
    """Look a trait up by name, ignoring case, spacing and a trailing "(Adv.)"."""
    if not isinstance(name, str):
        raise TriadError(f"{name!r} is not a trait name.", field="traits")
    key = " ".join(name.replace("(Adv.)", "").split()).lower()
    for trait in TRAITS:
        if trait.name.lower() == key:
            return trait
    raise TriadError(f"{name.strip()!r} is not on the Triad trait list.", field="traits")


# ---------------------------------------------------------------------------
# Character creation
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CreationTier:
    """A point-buy tier: ability points to divide, traits to choose, powers (superheroes)."""

    key: str
    name: str
    points: int
    traits: int
    powers: int = 0
    superhero: bool = False


TIERS: dict[str, CreationTier] = {t.key: t for t in (
    CreationTier("ordinary", "Ordinary", 30, 3),
    CreationTier("heroic", "Heroic", 35, 5),
    CreationTier("elite", "Elite", 40, 7),
    CreationTier("epic", "Epic", 45, 9),
    CreationTier("street_level_superhero", "Street-Level Superhero", 35, 3, 2, True),
    CreationTier("minor_superhero", "Minor Superhero", 40, 3, 4, True),
    CreationTier("major_superhero", "Major Superhero", 50, 5, 6, True),
)}


def tiers_matching(points: int, traits: int, powers: int = 0) -> tuple[str, ...]:
    """Keys of every tier whose totals these counts hit exactly."""
    return tuple(k for k, t in TIERS.items()
                 if (t.points, t.traits, t.powers) == (points, traits, powers))


@dataclass(frozen=True)
class Build:
    """A checked character build."""

    tier: str | None
    body: int
    mind: int
    spirit: int
    traits: tuple[str, ...]
    powers: tuple[str, ...]
    points: int
    in_tier: bool
    #: Tiers whose totals the build hits exactly (more than one can match, e.g. 35/5/0).
    matching_tiers: tuple[str, ...]
    #: Player-readable reasons the build is out of tier (empty when in tier).
    problems: tuple[str, ...] = field(default=())


def validate_character(*, tier: str | None, body: int, mind: int, spirit: int,
                       traits: Iterable[str] = (), powers: Iterable[str] = (),
                       custom_traits: Iterable[str] = (),
                       allow_out_of_tier: bool = False) -> Build:
    """Check a build against its tier: exact points, trait and power counts, 1-20 scores.

    Raises :class:`BuildError` whose ``field`` is one of tier, body, mind, spirit, points,
    traits, powers. With ``allow_out_of_tier`` totals may miss the tier (or tier may be None);
    the returned :class:`Build` then says so in ``in_tier`` and ``problems``.
    """
    tier_info = None
    if tier is not None and tier != "":
        if tier not in TIERS:
            raise BuildError(f"{tier!r} is not a Triad tier; choose one of "
                             f"{', '.join(t.name for t in TIERS.values())}.", field="tier")
        tier_info = TIERS[tier]
    elif not allow_out_of_tier:
        raise BuildError("Choose a tier.", field="tier")
    scores = [_int(v, a.title(), low=ABILITY_MIN, high=ABILITY_MAX, field=a, error=BuildError)
              for a, v in zip(ABILITIES, (body, mind, spirit), strict=True)]

    if isinstance(traits, str):
        raise BuildError("Traits must be a list of names.", field="traits")
    names: list[str] = []
    for raw in traits:
        try:
            trait = find_trait(raw)
        except TriadError as exc:
            raise BuildError(str(exc), field="traits") from None
        if trait.name in names:
            raise BuildError(f"{trait.name} is listed twice.", field="traits")
        names.append(trait.name)
    # A GM may approve traits of the table's own; they count toward the tier like listed ones.
    for raw in custom_traits:
        if not isinstance(raw, str) or not raw.strip():
            raise BuildError("Every custom trait needs a name.", field="traits")
        clean = " ".join(raw.replace("(Adv.)", "").split())
        if clean.lower() in (n.lower() for n in names):
            raise BuildError(f"{clean} is listed twice.", field="traits")
        names.append(clean)

    if isinstance(powers, str):
        raise BuildError("Powers must be a list of names.", field="powers")
    power_names: list[str] = []
    for raw in powers:
        if not isinstance(raw, str) or not raw.strip():
            raise BuildError("Every power needs a name.", field="powers")
        clean = " ".join(raw.split())
        if clean.lower() in (p.lower() for p in power_names):
            raise BuildError(f"{clean} is listed twice.", field="powers")
        power_names.append(clean)

    points = sum(scores)
    matching = tiers_matching(points, len(names), len(power_names))
    problems: list[tuple[str, str]] = []
    if tier_info is None:
        if not matching:
            problems.append(("tier", f"{points} ability points, {len(names)} traits and "
                             f"{len(power_names)} powers match no tier."))
    else:
        if points != tier_info.points:
            problems.append(("points", f"{tier_info.name} characters divide exactly "
                             f"{tier_info.points} points among Body, Mind and Spirit; "
                             f"this one has {points}."))
        if len(names) != tier_info.traits:
            problems.append(("traits", f"{tier_info.name} characters take exactly "
                             f"{tier_info.traits} traits; this one has {len(names)}."))
        if len(power_names) != tier_info.powers:
            problems.append(("powers", f"{tier_info.name} characters take exactly "
                             f"{tier_info.powers} powers; this one has {len(power_names)}."))
    if problems and not allow_out_of_tier:
        key, message = problems[0]
        raise BuildError(message, field=key)
    return Build(tier=tier_info.key if tier_info else None, body=scores[0], mind=scores[1],
                 spirit=scores[2], traits=tuple(names), powers=tuple(power_names),
                 points=points, in_tier=not problems, matching_tiers=matching,
                 problems=tuple(m for _, m in problems))


@dataclass(frozen=True)
class SampleCharacter:
    """A ready-made character from the seed, for one-click creation."""

    key: str
    name: str
    source: str
    background: str
    body: int
    mind: int
    spirit: int
    traits: tuple[str, ...]
    #: The tier the sample fits, or None when its totals match no tier.
    tier: str | None
    powers: tuple[str, ...] = ()

    def build(self) -> Build:
        """Validate the sample the way the builder would (out-of-tier samples allowed)."""
        return validate_character(tier=self.tier, body=self.body, mind=self.mind,
                                  spirit=self.spirit, traits=self.traits, powers=self.powers,
                                  allow_out_of_tier=self.tier is None)


SAMPLE_CHARACTERS: dict[str, SampleCharacter] = {s.key: s for s in (
    SampleCharacter(
        key="van_helsing", name="Abraham Van Helsing",
        source="Bram Stoker's Dracula (1897)",
        background=("Dutch scholar past sixty, white-haired and bespectacled; professor of law "
                    "and philosophy, student of metaphysics, devout Catholic. He and his wife "
                    "drifted apart after their son died."),
        body=8, mind=15, spirit=13,
        traits=("Hard To Unnerve", "Medical Expert", "Natural Sciences", "Occult", "Willpower"),
        tier=None),
    SampleCharacter(
        key="zheng_yi_sao", name="Zheng Yi Sao",
        source="historical figure, early 1800s",
        background=("Chinese woman around thirty, the Pirate Queen of the South China Sea "
                    "from 1801 to 1810. A commanding presence at the head of some 300 ships "
                    "and a devoted pirate army up to 40,000 strong."),
        body=10, mind=12, spirit=13,
        traits=("Criminal", "Honorable", "Swiftness", "Swords", "Tactics"),
        tier="heroic"),
)}
