"""Hit points in play: healthy, unconscious, dying or dead, bleeding by the minute, damage and healing
applied, and rest."""

from __future__ import annotations

from rules.dice import RulesError
from rules.fivebyfive.ladder import DEAD_AT, _is_int

# --------------------------------------------------------------------------- conditions


def condition(hp: int) -> str:
    """'healthy' above 0, 'unconscious' at 0, 'dying' from -1 to -9, 'dead' at -10 or below."""
    if not _is_int(hp):
        raise RulesError(f"Hit points are a whole number, not {hp!r}.")
    if hp > 0:
        return "healthy"
    if hp == 0:
        return "unconscious"
    return "dying" if hp > DEAD_AT else "dead"


def minutes_to_next_loss(hp: int) -> int | None:
    """Minutes until a dying character loses the next HP (10 + current HP); None if not dying."""
    return 10 + hp if condition(hp) == "dying" else None


def minutes_to_death(hp: int) -> int | None:
    """Minutes a dying character has left without healing; None if not dying."""
    if condition(hp) != "dying":
        return None
    return sum(10 + h for h in range(hp, DEAD_AT, -1))


def bleed(hp: int, minutes: int) -> tuple[int, int]:
    """(HP, minutes already run toward the next loss) after ``minutes`` untended.

    The minutes left over count toward the next loss, so time told in pieces bleeds like time told at
    once; they are 0 for anyone not dying (nothing is counting).
    """
    if not _is_int(minutes) or minutes < 0:
        raise RulesError(f"Elapsed time is a whole number of minutes, 0 or more, not {minutes!r}.")
    condition(hp)
    while condition(hp) == "dying" and minutes >= 10 + hp:
        minutes -= 10 + hp
        hp -= 1
    return hp, minutes if condition(hp) == "dying" else 0


def apply_damage(hp: int, amount: int) -> int:
    """HP after taking ``amount`` damage or harm."""
    condition(hp)
    if not _is_int(amount) or amount < 0:
        raise RulesError(f"Damage is a whole number 0 or more, not {amount!r}.")
    return hp - amount


def apply_healing(hp: int, amount: int, *, max_hp: int) -> int:
    """HP after healing ``amount``: never above the maximum, and the dead stay dead."""
    if condition(hp) == "dead":
        raise RulesError("A dead character cannot be healed.")
    if not _is_int(amount) or amount < 0:
        raise RulesError(f"Healing is a whole number 0 or more, not {amount!r}.")
    return max(hp, min(max_hp, hp + amount))


def natural_recovery(hp: int, days: int, *, max_hp: int) -> int:
    """HP after ``days`` of rest: 1 HP a day up to the maximum; the dying need healing first."""
    if not _is_int(days) or days < 0:
        raise RulesError(f"Days of rest are a whole number, 0 or more, not {days!r}.")
    state = condition(hp)
    if state == "dead":
        raise RulesError("A dead character does not recover.")
    if state == "dying":
        raise RulesError("A dying character loses HP by the minute and needs healing before resting.")
    return max(hp, min(max_hp, hp + days))
