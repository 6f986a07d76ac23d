"""A fight's numbers: initiative, damage and armor, what an attack may do instead of damage, and the
GM's NPCs (one Difficulty each, worn down by damage) with the seed's benchmarks and bestiary."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from rules.dice import Outcome, Roller, check_faces
from rules.triad.tasks import TaskResult, _kept
from rules.triad.vocabulary import (
    ABILITIES,
    CRITICAL,
    DIE,
    FAILURE,
    FUMBLE,
    MIXED,
    NPC_INITIATIVE_BONUS,
    OUTCOMES,
    STUN_THRESHOLD,
    SUCCESS,
    TriadError,
    _edge,
    _int,
    dice_for,
)

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
