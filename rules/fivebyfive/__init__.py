"""Five by Five 2.5: descriptors on a rank ladder, 5x5 task rolls with trumps, combat and healing.

Every ``dice``/``faces`` argument is the faces actually rolled, so a roll log replays
through the pure functions here. The ``roll_*`` functions take a :class:`rules.dice.Roller`
and return frozen results that carry every face.

By concern, each module importing only those above it:

* ``ladder``: the ranks and the numbers, :class:`FieldError`, :func:`shift`, aspects, exclusive actions
  and :func:`effective_value`;
* ``checks``: the 5x5 :func:`check`, its odds (:func:`chance`) and :func:`roll_task`;
* ``chains``: trump chains (damage, healing, harm), their odds and the damage and healing rolls;
* ``conditions``: hit points in play, bleeding, damage and healing applied, rest;
* ``combat``: dodges, :func:`turn_order`, an attack's rolls, the weapon and armor tables;
* ``descriptors``: :class:`Descriptor`, HP, :func:`build_character` and :func:`validate_descriptors`;
* ``advancement``: :func:`improve`, :func:`add_descriptor` and :func:`swap_poor` with their XP costs.

This package exports what the rest of the project reads; the modules' other names are theirs.
"""

from rules.fivebyfive.advancement import add_descriptor, improve, improvement_cost, swap_poor
from rules.fivebyfive.chains import damage, harm, mean_damage, roll_damage, roll_healing, trump_total
from rules.fivebyfive.checks import TaskRoll, chance, check, dice_for, outcome_odds, roll_task
from rules.fivebyfive.combat import (
    ARMOR,
    WEAPONS,
    can_dodge,
    dodges_per_round,
    roll_after_hit,
    roll_attack,
    roll_to_hit,
    turn_order,
)
from rules.fivebyfive.conditions import (
    apply_damage,
    apply_healing,
    bleed,
    condition,
    minutes_to_death,
    minutes_to_next_loss,
    natural_recovery,
)
from rules.fivebyfive.descriptors import (
    Descriptor,
    build_character,
    hp_points,
    hp_rank,
    ranked_values,
    validate_descriptors,
)
from rules.fivebyfive.ladder import (
    ADVANCED_CAP,
    BASIC_CAP,
    BASIC_RANKS,
    CREATION_VALUES,
    DAMAGE_TRUMP_BONUS,
    DEAD_AT,
    HP_BONUS,
    HP_NAME,
    MAX_TARGET,
    MIN_AV,
    NAME_MAX_LENGTH,
    NEW_DESCRIPTOR_COST,
    POOR,
    POOR_SWAP_COST,
    RANK_NAMES,
    RANKS,
    TABLE_PERCENT,
    TOKEN_TRUMP_FACE,
    TRUMP_FACE,
    UNTRAINED,
    Aspect,
    AspectRating,
    ExclusiveAction,
    FieldError,
    effective_value,
    exclusive_action,
    shift,
    total_shift,
    validate_aspects,
)

__all__ = [
    "ADVANCED_CAP",
    "ARMOR",
    "Aspect",
    "AspectRating",
    "BASIC_CAP",
    "BASIC_RANKS",
    "CREATION_VALUES",
    "DAMAGE_TRUMP_BONUS",
    "DEAD_AT",
    "Descriptor",
    "ExclusiveAction",
    "FieldError",
    "HP_BONUS",
    "HP_NAME",
    "MAX_TARGET",
    "MIN_AV",
    "NAME_MAX_LENGTH",
    "NEW_DESCRIPTOR_COST",
    "POOR",
    "POOR_SWAP_COST",
    "RANKS",
    "RANK_NAMES",
    "TABLE_PERCENT",
    "TOKEN_TRUMP_FACE",
    "TRUMP_FACE",
    "TaskRoll",
    "UNTRAINED",
    "WEAPONS",
    "add_descriptor",
    "apply_damage",
    "apply_healing",
    "bleed",
    "build_character",
    "can_dodge",
    "chance",
    "check",
    "condition",
    "damage",
    "dice_for",
    "dodges_per_round",
    "effective_value",
    "exclusive_action",
    "harm",
    "hp_points",
    "hp_rank",
    "improve",
    "improvement_cost",
    "mean_damage",
    "minutes_to_death",
    "minutes_to_next_loss",
    "natural_recovery",
    "outcome_odds",
    "ranked_values",
    "roll_after_hit",
    "roll_attack",
    "roll_damage",
    "roll_healing",
    "roll_task",
    "roll_to_hit",
    "shift",
    "swap_poor",
    "total_shift",
    "trump_total",
    "turn_order",
    "validate_aspects",
    "validate_descriptors",
]
