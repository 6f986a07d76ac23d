"""Characters: one base row per character, and each system's own rows in its module."""

from .base import Character, StaleVersion
from .fivebyfive import FiveByFiveDescriptor, FiveByFiveSheet
from .freefall import FreeFallGear, FreeFallProgram, FreeFallSheet
from .history import SheetChange
from .l5r import L5RSheet, L5RSkill, L5RWeapon
from .triad import TriadSheet, TriadTrait

__all__ = [
    "Character",
    "StaleVersion",
    "FiveByFiveDescriptor",
    "FiveByFiveSheet",
    "FreeFallGear",
    "FreeFallProgram",
    "FreeFallSheet",
    "L5RSheet",
    "SheetChange",
    "L5RSkill",
    "L5RWeapon",
    "TriadSheet",
    "TriadTrait",
]
