"""The game systems a campaign can play, as this layer knows them.

The systems live above this layer (``sheets/systems/<name>/``). Each registers what a campaign needs of
it here when Django loads it (``sheets.registry.GameSystemConfig.ready``): its key and label, the
optional rules a GM can turn on, and how those rules change the dice box. So a campaign offers every
installed system without this layer importing any of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class NumberOption:
    """A number the GM sets per campaign (a starting budget), kept in Campaign.options as an int."""

    key: str
    label: str
    help_text: str
    default: int
    min_value: int
    max_value: int

    def value(self, options: dict[str, Any] | None) -> int:
        """The campaign's number, or the default while the GM has set none."""
        value = (options or {}).get(self.key)
        return self.default if isinstance(value, bool) or not isinstance(value, int) else value


#: An on/off rule: (Campaign.options key, label, help text); or a number the GM sets.
Option = tuple[str, str, str] | NumberOption


def option_parts(option: Option) -> tuple[str, str, str, NumberOption | None]:
    """key, label, help text and, for a number, its NumberOption (None for an on/off switch)."""
    if isinstance(option, NumberOption):
        return option.key, option.label, option.help_text, option
    key, label, help_text = option
    return key, label, help_text, None


#: Options every campaign has, whatever its system (Campaign.options keys), off until the GM turns them on.
PLAYERS_ADJUST_PLAY_STATE = "players_adjust_play_state"
SHOW_NPC_NUMBERS = "show_npc_numbers"
TABLE_OPTIONS: tuple[Option, ...] = (
    (
        PLAYERS_ADJUST_PLAY_STATE,
        "Players adjust their own play state",
        "Players may type their own HP, wounds, Void and the like on their sheets; each such edit is a line "
        "in your feed with the old and new value. Off: only play and you change them.",
    ),
    (
        SHOW_NPC_NUMBERS,
        "Players see NPC numbers",
        "NPCs' HP, defences and damage taken show in the feed and the encounter for everyone. "
        "Off: only you see them.",
    ),
)


@dataclass(frozen=True)
class GameSystem:
    key: str
    label: str
    # The optional rules a GM sets per campaign: on/off switches and numbers (see Option).
    options: tuple[Option, ...] = ()
    # Campaign.options -> keyword arguments for rules.notation.roll and chance (house rules on dice).
    dice_box_options: Callable[[dict[str, Any]], dict[str, Any]] = field(default=lambda options: {})


_systems: dict[str, GameSystem] = {}


def register(system: GameSystem) -> None:
    _systems[system.key] = system


def choices() -> list[tuple[str, str]]:
    """Choices for Campaign.system, in the order settings.GAME_SYSTEMS lists the systems."""
    return [(system.key, system.label) for system in _systems.values()]


def campaign_options(key: str) -> tuple[Option, ...]:
    """Every option a campaign of this system offers: the table's own, then the system's."""
    return TABLE_OPTIONS + get(key).options


def get(key: str) -> GameSystem:
    """The registered system; KeyError for a key no installed system has."""
    return _systems[key]
