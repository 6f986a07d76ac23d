"""Triad: one d20 against a Difficulty, floored by the current Body, Mind or Spirit.

Every roll is a pure function of the faces rolled (``check``, ``opposed``, ``team_check``,
``initiative``), so a roll log replays exactly; the ``roll_*`` functions only throw the dice
and call them. Exact odds come back as :class:`fractions.Fraction`. The creation rules
(point-buy tiers, the trait list, the sample characters) are module-level data, and
:func:`validate_character` checks a build for the character builder.

By concern, each module importing only those above it:

* ``vocabulary``: outcomes, abilities, the numbers and benchmarks, :class:`TriadError` and
  :class:`BuildError`, the small validators and edge (:func:`net_edge`, :func:`count_edge`);
* ``tasks``: task rolls (:func:`check`, :func:`chance`), exceptional tools, opposed rolls and team tasks;
* ``combat``: initiative, damage and armor, what an attack does instead of damage, NPCs and the
  bestiary;
* ``vitals``: characters in play (:class:`Vitals`, :func:`take_damage`, :func:`rest`, movement);
* ``traits``: the trait list and :func:`find_trait`;
* ``creation``: the tiers, :func:`validate_character` and the sample characters.

This package exports what the rest of the project reads; the modules' other names are theirs.
"""

from rules.triad.combat import (
    ARMOR,
    BESTIARY,
    DEADLY_BONUS,
    DISARM,
    GRAPPLE,
    OPPONENT_BENCHMARKS,
    STUN,
    TRIP,
    WEAPONS,
    AttackOutcome,
    Initiative,
    Npc,
    alternative,
    armor_rating,
    attack,
    damage,
    hazard_damage,
    hit_npc,
    initiative,
    initiative_order,
    npc_initiative,
    roll_initiative,
    stuns,
    weapon_damage,
    weapon_in_hand,
)
from rules.triad.creation import SAMPLE_CHARACTERS, TIERS, Build, SampleCharacter, validate_character
from rules.triad.tasks import (
    Side,
    chance,
    check,
    effective_ability,
    opposed,
    opposed_chance,
    roll_opposed,
    roll_task,
    roll_team,
    team_chance,
    team_check,
)
from rules.triad.traits import COMMON_ADV_TRAITS, TRAITS, TRAITS_BY_NAME, find_trait
from rules.triad.vitals import HARD_TO, Vitals, berserker_rage, move_feet, recover, rest, spend, take_damage
from rules.triad.vocabulary import (
    ABILITIES,
    ABILITY_MAX,
    ABILITY_MIN,
    ACTIONS_PER_TURN,
    BODY,
    CRAWL_FEET,
    CRITICAL,
    DIE,
    DIFFICULTY_BENCHMARKS,
    FAILURE,
    FUMBLE,
    MIND,
    MIXED,
    OUTCOMES,
    SPIRIT,
    SUCCESS,
    BuildError,
    EdgeReading,
    TriadError,
    count_edge,
    dice_for,
    net_edge,
    read_edge,
)

__all__ = [
    "ABILITIES",
    "ABILITY_MAX",
    "ABILITY_MIN",
    "ACTIONS_PER_TURN",
    "ARMOR",
    "AttackOutcome",
    "BESTIARY",
    "BODY",
    "Build",
    "BuildError",
    "EdgeReading",
    "COMMON_ADV_TRAITS",
    "CRAWL_FEET",
    "CRITICAL",
    "DEADLY_BONUS",
    "DIE",
    "DIFFICULTY_BENCHMARKS",
    "DISARM",
    "FAILURE",
    "FUMBLE",
    "GRAPPLE",
    "HARD_TO",
    "Initiative",
    "MIND",
    "MIXED",
    "Npc",
    "OPPONENT_BENCHMARKS",
    "OUTCOMES",
    "SAMPLE_CHARACTERS",
    "SPIRIT",
    "STUN",
    "SUCCESS",
    "SampleCharacter",
    "Side",
    "TIERS",
    "TRAITS",
    "TRAITS_BY_NAME",
    "TRIP",
    "TriadError",
    "Vitals",
    "WEAPONS",
    "alternative",
    "armor_rating",
    "attack",
    "berserker_rage",
    "chance",
    "check",
    "count_edge",
    "damage",
    "dice_for",
    "effective_ability",
    "find_trait",
    "hazard_damage",
    "hit_npc",
    "initiative",
    "initiative_order",
    "move_feet",
    "net_edge",
    "read_edge",
    "npc_initiative",
    "opposed",
    "opposed_chance",
    "recover",
    "rest",
    "roll_initiative",
    "roll_opposed",
    "roll_task",
    "roll_team",
    "spend",
    "stuns",
    "take_damage",
    "team_chance",
    "team_check",
    "validate_character",
    "weapon_damage",
    "weapon_in_hand",
]
