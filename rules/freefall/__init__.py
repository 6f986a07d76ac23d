"""FREE/FALL A5: d20 pools, harm slots that eat dice, bound gear and hacking programs.

Everything here is a pure function over small frozen values, so the web layer can
replay any roll log or harm sequence. Readings of unclear seed text are written up
in ``docs/rules.md`` (section FREE/FALL A5).

By concern, each module importing only those above it:

* ``checks``: :class:`FreeFallError`, the pool and target numbers, one action's :func:`check` and its
  exact :func:`odds`;
* ``attributes``: Body, Mind and Ghost, :class:`Attributes` and :func:`spend`;
* ``gear``: gear and its tags, programs, and the :func:`binding` they put on the attributes;
* ``builder``: :func:`validate_build`, a new or edited character checked;
* ``harm``: the kinds of harm, the :class:`HarmTrack` and the harm protocol (:func:`take_hit`,
  :func:`mitigate`, :func:`resolve`);
* ``declaring``: actions and their prerequisites, :func:`validate_declaration` and
  :func:`resolution_order`;
* ``hacking``: a hacking roll (:func:`hack`) and its odds.

This package exports what the rest of the project reads; the modules' other names are theirs.
"""

from rules.freefall.attributes import ATTRIBUTE_MAX, ATTRIBUTE_MIN, Attribute, Attributes, spend
from rules.freefall.builder import NAME_MAX, Build, validate_build
from rules.freefall.checks import (
    BASE_POOL,
    DIE,
    FAILURE,
    GREATER,
    HARM_SLOTS,
    MIN_POOL,
    OUTCOMES,
    SUCCESS,
    Difficulty,
    FreeFallError,
    Odds,
    chance,
    check,
    die_chance,
    odds,
    pool,
    roll_check,
    successes_distribution,
)
from rules.freefall.declaring import Action, Declaration, Turn, resolution_order, validate_declaration
from rules.freefall.gear import (
    GEAR_TAGS,
    Gear,
    GearCondition,
    GearTag,
    Program,
    ProgramTier,
    ProgramType,
    armor_value,
    binding,
    break_gear,
    current_max,
    program_binding,
    repair_gear,
)
from rules.freefall.hacking import hack, hack_odds, roll_hack
from rules.freefall.harm import (
    EMPTY_SLOT,
    HarmKind,
    HarmSlot,
    HarmTrack,
    Incoming,
    Resolve,
    SlotState,
    Stage,
    levels_after_armor,
    mitigate,
    overwhelm,
    resolve,
    rest,
    take_hit,
)

__all__ = [
    "ATTRIBUTE_MAX",
    "ATTRIBUTE_MIN",
    "Action",
    "Attribute",
    "Attributes",
    "BASE_POOL",
    "Build",
    "DIE",
    "Declaration",
    "Difficulty",
    "EMPTY_SLOT",
    "FAILURE",
    "FreeFallError",
    "GEAR_TAGS",
    "GREATER",
    "Gear",
    "GearCondition",
    "GearTag",
    "HARM_SLOTS",
    "HarmKind",
    "HarmSlot",
    "HarmTrack",
    "Incoming",
    "MIN_POOL",
    "NAME_MAX",
    "OUTCOMES",
    "Odds",
    "Program",
    "ProgramTier",
    "ProgramType",
    "Resolve",
    "SUCCESS",
    "SlotState",
    "Stage",
    "Turn",
    "armor_value",
    "binding",
    "break_gear",
    "chance",
    "check",
    "current_max",
    "die_chance",
    "hack",
    "hack_odds",
    "levels_after_armor",
    "mitigate",
    "odds",
    "overwhelm",
    "pool",
    "program_binding",
    "repair_gear",
    "resolution_order",
    "resolve",
    "rest",
    "roll_check",
    "roll_hack",
    "spend",
    "successes_distribution",
    "take_hit",
    "validate_build",
    "validate_declaration",
]
