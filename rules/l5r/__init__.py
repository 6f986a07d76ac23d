"""Legend of the Five Rings Roll & Keep: pools, the Ten Dice Rule, raises and exact odds.

A pool ``XkY`` rolls X ten-sided dice and adds up the Y best. A die showing 10 is rolled
again and the new face added to the same die (an "exploding" die) before anything is kept.
Every odds figure here is an exact :class:`fractions.Fraction`: although exploding dice have
no upper bound, only finitely many outcomes fall short of a TN, so the tail can be lumped.

A skill roll with an emphasis that applies re-rolls each die whose first face is a 1, once, and keeps
the new die whatever it shows (L5R 4th edition, "Emphases"; ``reroll_ones``).

Where the seed stops (it has no combat), 4th edition's skirmish is played: Armor TN and Reduction, wound
ranks, initiative, the Actions of a Turn, Stances and Maneuvers (docs/rules.md, "Readings taken").

By concern, each module importing only those above it:

* ``ranks``: the limits, the rank and count checks every other module shares, the Ten Dice Rule and
  :class:`L5RFieldError`;
* ``traits``: traits and rings, the skill list, :func:`validate_character` and the difficulty table;
* ``odds``: the exact :func:`chance` of a pool against a TN and its :func:`total_curve`;
* ``pools``: the weapons and :class:`Pool`, with the pools of skills, traits, rings, damage and spells;
* ``rolling``: reading the dice, :func:`roll` and :func:`roll_pool` on the server, :func:`rekeep`;
* ``raises``: raises and TNs, second attempts, contests, cooperation and cumulative rolls;
* ``combat``: armor and Reduction, wound ranks, the Armor TN and initiative;
* ``skirmish``: 4th edition's Actions, Stances and Maneuvers;
* ``xp``: what ranks cost.

This package exports what the rest of the project reads; the modules' other names are theirs.
"""

from rules.dice import RulesError
from rules.l5r.combat import (
    ARMOR_MAX,
    ARMORS,
    DEAD,
    DOWN,
    OUT,
    REDUCTION_MAX,
    WoundLevel,
    armor_tn,
    can_attack,
    can_roll,
    initiative_pool,
    reduced_damage,
    wound_levels,
    wound_penalty,
    wound_rank,
)
from rules.l5r.odds import cache_clear, chance, total_curve
from rules.l5r.pools import (
    ARROWS,
    BOWS,
    UNARMED,
    WEAPONS,
    Pool,
    Weapon,
    bow_damage_pool,
    damage_pool,
    ring_pool,
    skill_pool,
    spell_pool,
    trait_pool,
)
from rules.l5r.raises import (
    RaisePlan,
    contest_winner,
    cumulative,
    group_effort_bonus,
    plan_raises,
    roped_team_bonuses,
    second_attempt_needs_new_situation,
    second_attempt_tn,
)
from rules.l5r.ranks import (
    MAX_ODDS_TARGET,
    RAISE_STEP,
    SECOND_ATTEMPT_PENALTY,
    SIDES,
    SKILL_MAX,
    SKILL_MIN,
    TEN_DICE,
    TRAIT_MAX,
    TRAIT_MIN,
    L5RFieldError,
    ten_dice,
)
from rules.l5r.rolling import RollResult, die_total, rekeep, resolve, roll, roll_pool
from rules.l5r.skirmish import (
    ACTION_COST,
    CENTER_INITIATIVE,
    DISARM_DAMAGE,
    GUARD_BONUS,
    GUARD_COST,
    MANEUVERS,
    MANEUVERS_BY_KEY,
    PRONE_ARMOR,
    TURN_ACTIONS,
    ActionKind,
    Maneuver,
    Stance,
    action_refusal,
    center_pool,
    feint_bonus,
    full_defense_bonus,
    full_defense_pool,
    maneuver_raises,
    prone_attack_pool,
    stance_armor_bonus,
    stance_attack_pool,
    stance_refusal,
)
from rules.l5r.traits import (
    RING_TRAITS,
    SKILLS,
    TRAITS,
    Ring,
    Skill,
    difficulty_name,
    ring_rank,
    rings,
    skill_info,
    validate_character,
)
from rules.l5r.xp import (
    EMPHASIS_XP,
    STARTING_SCHOOL_RANK,
    STARTING_XP,
    build_cost,
    skill_cost,
    trait_cost,
    void_cost,
)

__all__ = [
    "ACTION_COST",
    "ARMORS",
    "ARMOR_MAX",
    "ARROWS",
    "ActionKind",
    "BOWS",
    "CENTER_INITIATIVE",
    "DEAD",
    "DISARM_DAMAGE",
    "DOWN",
    "EMPHASIS_XP",
    "GUARD_BONUS",
    "GUARD_COST",
    "L5RFieldError",
    "MANEUVERS",
    "MANEUVERS_BY_KEY",
    "MAX_ODDS_TARGET",
    "Maneuver",
    "OUT",
    "PRONE_ARMOR",
    "Pool",
    "RAISE_STEP",
    "REDUCTION_MAX",
    "RING_TRAITS",
    "RaisePlan",
    "Ring",
    "RollResult",
    "RulesError",
    "SECOND_ATTEMPT_PENALTY",
    "SIDES",
    "SKILLS",
    "SKILL_MAX",
    "SKILL_MIN",
    "STARTING_SCHOOL_RANK",
    "STARTING_XP",
    "Skill",
    "Stance",
    "TEN_DICE",
    "TRAITS",
    "TRAIT_MAX",
    "TRAIT_MIN",
    "TURN_ACTIONS",
    "UNARMED",
    "WEAPONS",
    "Weapon",
    "WoundLevel",
    "action_refusal",
    "armor_tn",
    "bow_damage_pool",
    "build_cost",
    "cache_clear",
    "can_attack",
    "can_roll",
    "center_pool",
    "chance",
    "contest_winner",
    "cumulative",
    "damage_pool",
    "die_total",
    "difficulty_name",
    "feint_bonus",
    "full_defense_bonus",
    "full_defense_pool",
    "group_effort_bonus",
    "initiative_pool",
    "maneuver_raises",
    "plan_raises",
    "prone_attack_pool",
    "reduced_damage",
    "rekeep",
    "resolve",
    "ring_pool",
    "ring_rank",
    "rings",
    "roll",
    "roll_pool",
    "roped_team_bonuses",
    "second_attempt_needs_new_situation",
    "second_attempt_tn",
    "skill_cost",
    "skill_info",
    "skill_pool",
    "spell_pool",
    "stance_armor_bonus",
    "stance_attack_pool",
    "stance_refusal",
    "ten_dice",
    "total_curve",
    "trait_cost",
    "trait_pool",
    "validate_character",
    "void_cost",
    "wound_levels",
    "wound_penalty",
    "wound_rank",
]
