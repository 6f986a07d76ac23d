"""The shape every system's sheet takes, so views, builder and feed call the same names on each.

A system module subclasses :class:`SheetSystem` and fills in the marked section. The generic views in
``sheets/views.py`` handle permissions, versions, transactions and rendering; a system only knows its
own rows and rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError

from campaigns.rendering import format_percent
from rules.dice import Roller, RulesError

EXPORT_FORMAT = "tabletop-character"
EXPORT_VERSION = 1


@dataclass(frozen=True)
class Bar:
    """One bar of a distribution picture: an outcome and its exact chance."""

    label: str
    chance: Fraction
    tone: str = "secondary"  # a Bootstrap colour name: success, danger, warning, info, secondary


@dataclass(frozen=True)
class Curve:
    """P(total >= t) over a range of t, with the target marked (the L5R picture)."""

    points: tuple[tuple[int, Fraction], ...]
    target: int


@dataclass(frozen=True)
class RollButton:
    """A rollable thing on the sheet with its exact chance under the current options."""

    key: str  # stable id the roll view receives, e.g. "ability:body" or "skill:12"
    label: str  # what the player reads, e.g. "Amateur Chef 4"
    chance: Fraction | None  # chance of success; None where "success" means nothing (a damage roll)
    detail: str = ""  # e.g. "7k3" or "2 dice vs 11+"
    picture: tuple[Bar, ...] | Curve | None = None
    group: str = ""  # heading the button is listed under

    @property
    def percent(self) -> str:
        return format_percent(self.chance)


@dataclass(frozen=True)
class Die:
    """One die as the feed shows it."""

    face: int
    kept: bool = True
    exploded: bool = False  # the face was part of a chain that exploded (L5R tens, 5x5 trumps)
    trump: bool = False
    sides: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "face": self.face,
            "kept": self.kept,
            "exploded": self.exploded,
            "trump": self.trump,
            "sides": self.sides,
        }


@dataclass(frozen=True)
class RollOutcome:
    """What a roll did: saved whole as the feed entry's result."""

    label: str
    request: dict[str, Any]
    dice: tuple[Die, ...]
    outcome: str  # e.g. "success", "critical", "failure"
    summary: str  # one line a player reads: "Body 12 vs 15: 17, success"
    chance: Fraction | None = None
    total: int | None = None
    changes: tuple[str, ...] = ()  # what changed on the sheet: "doubles token earned"
    extra: dict[str, Any] = field(default_factory=dict)

    def result(self) -> dict[str, Any]:
        return {**stored_result(self.dice, self.outcome, self.total, self.changes), **self.extra}


def stored_result(dice, outcome: str, total: int | None, changes) -> dict[str, Any]:
    """A roll's result as a feed entry stores it (the shape campaigns/rendering.py draws)."""
    return {
        "dice": [die.as_dict() for die in dice],
        "outcome": outcome,
        "total": total,
        "changes": list(changes),
    }


@dataclass(frozen=True)
class EditableField:
    """A value edited in place on the sheet."""

    path: str  # e.g. "name", "body", "descriptor:12:name"
    label: str
    value: Any
    input_type: str = "number"  # number, text, select, checkbox
    min: int | None = None
    max: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    max_length: int | None = None

    @property
    def display(self) -> str:
        if self.input_type == "select":
            return dict(self.choices).get(str(self.value), str(self.value)) or "-"
        if self.input_type == "checkbox":
            return "yes" if self.value else "no"
        return "-" if self.value in (None, "") else str(self.value)


def parse_int(raw: str, *, label: str, low: int | None = None, high: int | None = None) -> int:
    """A whole number from typed text, or a ValidationError a player can read."""
    text = (raw or "").strip()
    try:
        value = int(text)
    except ValueError:
        raise ValidationError(f"{label} must be a whole number.") from None
    if low is not None and value < low:
        raise ValidationError(f"{label} must be at least {low}.")
    if high is not None and value > high:
        raise ValidationError(f"{label} must be at most {high}.")
    return value


def parse_text(raw: str, *, label: str, max_length: int, required: bool = True) -> str:
    text = " ".join((raw or "").split())
    if required and not text:
        raise ValidationError(f"{label} cannot be empty.")
    if len(text) > max_length:
        raise ValidationError(f"{label} can be at most {max_length} characters.")
    return text


def rules_error_to_validation(error: RulesError) -> ValidationError:
    """Engine errors carry a field name; forms want it as a ValidationError on that field."""
    field_name = getattr(error, "field", None)
    return ValidationError({field_name: str(error)} if field_name else str(error))


class SheetSystem:
    """Base of the four systems' sheets."""

    #: campaigns.models.System value
    key: ClassVar[str]
    label: ClassVar[str]
    #: The page template; it extends sheets/sheet.html and fills its blocks.
    template: ClassVar[str]
    builder_template: ClassVar[str] = "sheets/builder.html"
    #: The demo table's campaign: (name, description).
    demo_campaign: ClassVar[tuple[str, str]] = ("Demo table", "")
    #: Optional rules a GM turns on for a campaign: (Campaign.options key, label, help text).
    campaign_options: ClassVar[tuple[tuple[str, str, str], ...]] = ()

    # ----- what each system provides -------------------------------------------------------------

    def builder_form(self, *, campaign, data=None, trusted: bool = False) -> forms.Form:
        """The creation form; its clean() enforces every creation rule of the system.

        ``trusted`` marks data from the rulebook's own samples and the demo, which may use allowances a
        GM would have to grant (a Triad character outside the tiers).
        """
        raise NotImplementedError

    def create(self, *, character, cleaned_data: dict[str, Any]) -> None:
        """Save the system's rows for a freshly saved Character (inside the builder's transaction)."""
        raise NotImplementedError

    def context(self, character) -> dict[str, Any]:
        """Everything the sheet template needs beyond the character (prefetched rows)."""
        raise NotImplementedError

    def field(self, character, path: str) -> EditableField:
        """The editable field at ``path``; KeyError if there is none."""
        raise NotImplementedError

    def apply_edit(self, character, path: str, raw: str) -> None:
        """Validate ``raw`` and save it at ``path``; ValidationError with a message if it is bad."""
        raise NotImplementedError

    def options_form(self, *, character, data=None) -> forms.Form:
        """The roll options panel (rank shift, advantage, TN, raises...)."""
        raise NotImplementedError

    def buttons(self, character, options: dict[str, Any]) -> list[RollButton]:
        """Every rollable thing on the sheet with its exact chance under ``options``."""
        raise NotImplementedError

    def roll(self, character, key: str, options: dict[str, Any], roller: Roller) -> RollOutcome:
        """Roll ``key`` with the engine and save what the roll changes on the sheet; KeyError if unknown."""
        raise NotImplementedError

    def export_data(self, character) -> dict[str, Any]:
        """The system's part of the export: the same field names the builder form takes."""
        raise NotImplementedError

    def import_form_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """Turn an export's system part back into builder form data (validated by the builder)."""
        return data

    def sample_form_data(self, key: str) -> dict[str, Any]:
        """Builder data for one of the rulebook's sample characters; KeyError when there is none."""
        raise KeyError(key)

    def demo_form_data(self) -> list[dict[str, Any]]:
        """Builder data for the demo table's characters, one per demo player."""
        raise NotImplementedError

    def dice_box_options(self, campaign_options: dict[str, Any]) -> dict[str, Any]:
        """How the campaign's optional rules change the table's dice box (rules.notation keywords)."""
        return {}

    def common_roll_keys(self) -> list[tuple[str, str]]:
        """Roll keys every character of the system has (the GM can ask for exactly that roll)."""
        return []

    def party_summary(self, character) -> str:
        """The key numbers the GM's party panel shows (HP, abilities, harm, wounds)."""
        return ""
