"""Advantage and disadvantage on a Triad roll from the sheet: each source by name, how they cancel, and
the dice it makes, worked out once for both the summary the page shows before the roll and the roll.

The book (Triad l.16, l.53-55): advantage rolls two d20 and uses the higher, disadvantage two and uses the
lower; sources of each "cancel out on a 1-to-1 basis before making the die roll", whatever remains gives one
case of advantage or disadvantage, and no more than two dice are ever rolled.
"""

from __future__ import annotations

from typing import NamedTuple

from rules import triad
from rules.triad import EdgeReading


class EdgeSource(NamedTuple):
    """One reason a task rolls with advantage or disadvantage, and how many of each it adds."""

    name: str
    advantages: int = 0
    disadvantages: int = 0
    note: str = ""  # what it costs, for the summary before the roll

    @property
    def adds(self) -> str:
        """What the source adds: "+1 advantage", "+2 disadvantage"."""
        if self.advantages:
            return f"+{self.advantages} advantage"
        return f"+{self.disadvantages} disadvantage"


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def cancelling_text(reading: EdgeReading) -> str:
    """How the sources come out: "3 advantages against 1 disadvantage: 1 of each cancels, advantage
    remains"."""
    adv, dis = reading.advantages, reading.disadvantages
    if not adv and not dis:
        return "no advantage or disadvantage"
    left = "advantage" if reading.edge > 0 else "disadvantage"
    if adv and dis:
        counted = f"{plural(adv, 'advantage')} against {plural(dis, 'disadvantage')}"
        if not reading.edge:
            return f"{counted}: they cancel"
        each = f"{reading.cancelled} of each cancel{'s' if reading.cancelled == 1 else ''}"
        return f"{counted}: {each}, {left} remains"
    many = adv or dis
    return f"{plural(many, left)} count as one {left}" if many > 1 else f"1 {left}"


def dice_text(reading: EdgeReading, *, form: str = "before") -> str:
    """What the roll throws, before it ("rolls 2d20, keeps the higher"), on a button ("2d20, keep
    higher") or after it ("2d20, the higher kept"); one die is "rolls 1d20" or "1d20"."""
    dice = f"{reading.dice}d{triad.DIE}"
    if not reading.keeps:
        return f"rolls {dice}" if form == "before" else dice
    return {
        "before": f"rolls {dice}, keeps the {reading.keeps}",
        "button": f"{dice}, keep {reading.keeps}",
        "after": f"{dice}, the {reading.keeps} kept",
    }[form]


def feed_text(sources: tuple[EdgeSource, ...], reading: EdgeReading) -> str:
    """The roll's sources for its feed entry: "2d20, the higher kept: Berserker Rage +1 advantage"."""
    named = ", ".join(f"{source.name} {source.adds}" for source in sources)
    cancelled = " (they cancel)" if reading.cancelled and not reading.edge else ""
    return f"{dice_text(reading, form='after')}: {named}{cancelled}"
