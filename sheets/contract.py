"""The shape every system's sheet takes, so views, builder and feed call the same names on each.

A system module subclasses :class:`SheetSystem` and fills in the marked section. The generic views in
``sheets/views.py`` handle permissions, versions, transactions and rendering; a system only knows its
own rows and rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError

from campaigns.forms import WholeNumberField
from campaigns.rendering import OUTCOME_WORDS, format_percent
from campaigns.systems import Option
from rules.dice import Outcome, Roller, RulesError

from .edits import EditPath, find_edit_path
from .policy import Kind

EXPORT_FORMAT = "tabletop-character"
#: Version 2 carries the play state (``sheets/transfer.py``); version 1 files (the build alone) still import.
EXPORT_VERSION = 2
IMPORT_VERSIONS = (1, 2)


@dataclass(frozen=True)
class Bar:
    """One bar of a distribution picture: an outcome and its exact chance."""

    label: str
    chance: Fraction
    tone: str = "secondary"  # a Bootstrap colour name: success, danger, warning, info, secondary


@dataclass(frozen=True)
class Curve:
    """P(total >= t) over a range of t, with the target marked (for totals against a target number)."""

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
    exploded: bool = False  # the face was part of a chain that exploded (a die rolled again on its best face)
    trump: bool = False
    sides: int = 0
    #: Where each die is read on its own against a target (FREE/FALL): 1 it made it, 0 it did not.
    successes: int | None = None

    def as_dict(self) -> dict[str, Any]:
        stored = {
            "face": self.face,
            "kept": self.kept,
            "exploded": self.exploded,
            "trump": self.trump,
            "sides": self.sides,
        }
        if self.successes is not None:
            stored["successes"] = self.successes
        return stored


@dataclass(frozen=True)
class RollResult:
    """What a roll did, or one line an encounter writes: saved whole as a feed entry's result.

    A sheet roll (:meth:`SheetSystem.roll`) and an encounter line (``sheets.combat.CombatRules``) are the
    same thing to the feed; the outcome travels as an :class:`Outcome` from the engine to the stored
    entry, and its colour is looked up from it (``campaigns.rendering.OUTCOME_TONES``), never read from text.
    """

    label: str
    summary: str  # one line a player reads: "Body 12 vs 15: 17, success"
    dice: tuple[Die, ...] = ()
    outcome: Outcome = Outcome.NONE
    # The system's own word for the outcome ("hit", "greater success"); blank: the outcome's name.
    outcome_label: str = ""
    total: int | None = None
    chance: Fraction | None = None
    changes: tuple[str, ...] = ()  # what changed on the sheet: "doubles token earned"
    request: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # system-specific facts kept with the result
    character: Any = None  # the sheets.Character the line is about, if it has a sheet
    secret: bool = False  # the GM's side rolled in secret: only the GM sees it

    def __post_init__(self):
        # A bare string would store whatever text a system typed; the enum is the only way in.
        if not isinstance(self.outcome, Outcome):
            raise TypeError(f"A roll's outcome must be an Outcome, not {self.outcome!r}.")

    def result(self) -> dict[str, Any]:
        """The result as a feed entry stores it (the shape campaigns/rendering.py draws)."""
        return {
            **self.extra,
            "dice": [die.as_dict() for die in self.dice],
            "outcome": self.outcome.value,
            "outcome_label": self.outcome_label,
            "total": self.total,
            "changes": list(self.changes),
        }


def seen_text(text: str) -> str:
    """Text as an editor's ``seen`` compares it: a browser sends every line break of a form as CRLF."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class EditableField:
    """A value edited in place on the sheet; :meth:`formfield` is how a typed value is read."""

    path: str  # e.g. "name", "body", "descriptor:12:name"
    label: str
    value: Any
    input_type: str = "number"  # number, text, textarea, select, checkbox
    min: int | None = None
    max: int | None = None
    choices: tuple[tuple[str, str], ...] = ()
    max_length: int | None = None
    #: Whether a text may be left blank is the field's rule (a name may not, notes may).
    required: bool = True
    #: What a chosen option becomes (int for a rank picked from a list); options arrive as text.
    coerce: Callable[[str], Any] = str
    #: What the value is, for the write policy (sheets/policy.py): who may type it. A field no system
    #: classified is the GM's. A system takes it from its ``value_kinds`` (the row's stored field).
    kind: Kind = Kind.GM

    @property
    def as_seen(self) -> str:
        """The value as an editor carries it back (``seen``): how an edit knows its value did not move."""
        return seen_text("" if self.value is None else str(self.value))

    @property
    def display(self) -> str:
        if self.input_type == "select":
            return dict(self.choices).get(str(self.value), str(self.value)) or "-"
        if self.input_type == "checkbox":
            return "yes" if self.value else "no"
        return "-" if self.value in (None, "") else str(self.value)

    def formfield(self) -> forms.Field:
        """The form field that turns the typed text into this path's value, with messages naming it."""
        label = self.label
        if self.input_type == "checkbox":
            return forms.BooleanField(required=False, label=label)
        if self.input_type == "select":
            listed = f"Choose one of the listed options for {label}."
            # An option whose value is "" (none, no) makes a blank choice valid; otherwise blank is refused.
            return forms.TypedChoiceField(
                choices=self.choices,
                coerce=self.coerce,
                required="" not in dict(self.choices),
                label=label,
                error_messages={"required": listed, "invalid_choice": _literal(listed)},
            )
        if self.input_type in ("text", "textarea"):
            # A text area keeps the line breaks typed in it; a one-line text tidies them away.
            return (SingleLineField if self.input_type == "text" else forms.CharField)(
                max_length=self.max_length,
                required=self.required,
                label=label,
                error_messages={
                    "required": f"{label} cannot be empty.",
                    "max_length": _literal(f"{label} can be at most {self.max_length} characters."),
                },
            )
        number = WholeNumberField(min_value=self.min, max_value=self.max, label=label)
        whole = f"{label} must be a whole number written in the digits 0-9."
        # The bounds are read back from the field: an open end still has the database's safe limit.
        number.error_messages.update(
            invalid=whole,
            required=whole,
            min_value=_literal(f"{label} must be at least {number.min_value}."),
            max_value=_literal(f"{label} must be at most {number.max_value}."),
        )
        return number


@dataclass(frozen=True)
class XpOffer:
    """One thing a player may buy with XP now, or why not (``cost`` None, ``label`` says why)."""

    key: str  # the system's id of the spend, e.g. "raise:12" or "add"
    label: str  # what the player reads: "Brawler 4 → 6 (6 XP)"
    cost: int | None
    #: The value the player saw, sent back with the spend: a stale tab or a second click is refused.
    seen: str = ""
    #: The spend takes a name the player types (a new descriptor, a new weakness).
    needs_name: bool = False

    @property
    def choice(self) -> str:
        return f"{self.key}@{self.seen}"


def _literal(message: str) -> str:
    """A message Django will %-format with the validator's params: a "%" typed in a name stays a "%"."""
    return message.replace("%", "%%")


class SingleLineField(forms.CharField):
    """Text on one line: runs of spaces, tabs and line breaks become one space (a pasted name stays tidy)."""

    def to_python(self, value):
        return " ".join(super().to_python(value).split())


class FieldEditForm(forms.Form):
    """One in-place edit: a single ``value`` read by the path's own form field."""

    def __init__(self, field: EditableField, data=None):
        super().__init__(data)
        self.fields["value"] = field.formfield()

    def value(self) -> Any:
        """The cleaned, typed value; ValidationError with the field's message when the text is bad."""
        if not self.is_valid():
            raise ValidationError(list(self.errors["value"]))
        return self.cleaned_data["value"]


def rules_error_to_validation(error: RulesError) -> ValidationError:
    """Engine errors carry a field name; forms want it as a ValidationError on that field."""
    field_name = getattr(error, "field", None)
    return ValidationError({field_name: str(error)} if field_name else str(error))


class SheetSystem:
    """Base of every system's sheet."""

    #: campaigns.models.System value
    key: ClassVar[str]
    label: ClassVar[str]
    #: The page template; it extends sheets/sheet.html and fills its blocks.
    template: ClassVar[str]
    builder_template: ClassVar[str] = "sheets/builder.html"
    #: The system's own stylesheet (a static path under its package), loaded by its sheet and builder.
    stylesheet: ClassVar[str] = ""
    #: Drawn under the sheet's result of the last roll (with ``entry``, ``variant`` and the sheet's
    #: context): what the player may still do with that roll (L5R: keep other dice, try again).
    after_roll_template: ClassVar[str] = ""
    #: Drawn above the roll buttons with ``roll_summary`` (:meth:`roll_summary` for the options the
    #: buttons were priced with) and refreshed with them as the player types: what the rolls will count
    #: before one is made (Triad: each advantage and disadvantage source; L5R: the dice kept).
    roll_summary_template: ClassVar[str] = ""
    #: The demo table's campaign: (name, description).
    demo_campaign: ClassVar[tuple[str, str]] = ("Demo table", "")
    #: The demo campaign's optional rules (Campaign.options), so its sample characters fit its limits.
    demo_options: ClassVar[dict[str, Any]] = {}
    #: Optional rules a GM sets for a campaign: (Campaign.options key, label, help text) for an on/off
    #: switch, or a campaigns.systems.NumberOption for a number (a starting budget).
    campaign_options: ClassVar[tuple[Option, ...]] = ()
    #: What each stored value of the system's rows is (sheets/policy.py): {model: {attname: Kind}}. The
    #: history's undo asks it for every value a change touched; a field left out is the GM's.
    value_kinds: ClassVar[dict[type, dict[str, Kind]]] = {}
    #: The values edited in place on the sheet, each path with its field and its save (sheets/edits.py);
    #: :meth:`field` finds them. The name and notes every sheet has are ``sheets/edit.py``'s.
    edit_paths: ClassVar[tuple[EditPath, ...]] = ()

    def kind_of(self, model: type, attname: str) -> Kind:
        """The kind of one stored value, for the EditableField that types it."""
        return self.value_kinds.get(model, {}).get(attname, Kind.GM)

    def field(self, character, path: str) -> EditableField:
        """The editable field at ``path`` among :attr:`edit_paths`; KeyError if there is none."""
        declared, args = find_edit_path(self.edit_paths, character, path)
        return declared.field(self, character, path, **args)

    # ----- what each system provides -------------------------------------------------------------

    def builder_form(self, *, campaign, data=None, trusted: bool = False) -> forms.Form:
        """The creation form; its clean() enforces every creation rule of the system.

        ``trusted`` marks the demo's data, which may use allowances a GM would have to grant (a character
        outside a system's usual limits); the samples a builder offers are held to the campaign's rules.
        """
        raise NotImplementedError

    def create(self, *, character, cleaned_data: dict[str, Any]) -> None:
        """Save the system's rows for a freshly saved Character (inside the builder's transaction)."""
        raise NotImplementedError

    def context(self, character) -> dict[str, Any]:
        """Everything the sheet template needs beyond the character (prefetched rows)."""
        raise NotImplementedError

    def options_form(self, *, character, data=None) -> forms.Form:
        """The roll options panel (rank shift, advantage, TN, raises...)."""
        raise NotImplementedError

    def buttons(self, character, options: dict[str, Any]) -> list[RollButton]:
        """Every rollable thing on the sheet with its exact chance under ``options``.

        Reads the character's own rows, its campaign's options and ``options``, nothing else: a roll's
        answer leaves the page's buttons alone while those hold still (sheets/views.py _buttons_drawn).
        """
        raise NotImplementedError

    def roll_summary(self, character, options: dict[str, Any]) -> Any:
        """What :attr:`roll_summary_template` draws under ``options``, as the roll counts; None: nothing.
        Reads what :meth:`buttons` reads, nothing else."""
        return None

    def roll(self, character, key: str, options: dict[str, Any], roller: Roller) -> RollResult:
        """Roll ``key`` with the engine and save what the roll changes on the sheet; KeyError if unknown."""
        raise NotImplementedError

    def export_data(self, character) -> dict[str, Any]:
        """The system's part of the export: the same field names the builder form takes."""
        raise NotImplementedError

    def import_form_data(self, data: dict[str, Any]) -> dict[str, Any]:
        """Turn an export's system part back into builder form data (validated by the builder)."""
        return data

    def import_builder_form(
        self, *, campaign, data: dict[str, Any], play: dict[str, Any] | None
    ) -> forms.Form:
        """The builder form an imported build is checked by; ``play`` is the file's play state when the GM
        imports it whole (None for a player's import, held to the creation rules, and for a file of the
        build alone). A system whose play changes what the builder counts (XP awarded since creation)
        widens the builder's limits by it here, and only by it."""
        return self.builder_form(campaign=campaign, data=data)

    def play_problems(self, rows: dict[str, Any], campaign) -> list[str]:
        """What an imported play state breaks between values no single field checks (current above its
        maximum, more spent than there is), each message naming the value. ``rows`` maps each relation
        from the character (``character.<name>``) to its restored row, or list of rows, not yet saved."""
        return []

    def sample_characters(self, campaign) -> dict[str, Any]:
        """The rulebook's sample characters this campaign's builder accepts, by key (each with a ``name``):
        the builder page offers them in one click."""
        return {}

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
        """Rolls the GM can ask any character of the system for: (request key, label)."""
        return []

    def request_roll_key(self, character, key: str) -> str:
        """This sheet's own roll key for a request key from :meth:`common_roll_keys`.

        The same key where every sheet has that button (an ability); a system whose buttons carry row
        ids maps a key by name onto the character's row (an L5R skill the sheet has, else untrained).
        """
        return key

    def request_buttons(self, character, key: str, options: dict[str, Any]) -> list[RollButton]:
        """The buttons that answer a request for ``key`` (blank: the player picks any) under its options."""
        buttons = self.buttons(character, options)
        if not key:
            return buttons
        own = self.request_roll_key(character, key)
        return [button for button in buttons if button.key == own]

    def answer_text(self, result: dict[str, Any]) -> str:
        """One answer in a request's group result, from the entry's stored result: "17, success"."""
        outcome = result.get("outcome_label") or OUTCOME_WORDS.get(result.get("outcome"), "")
        total = result.get("total")
        return ", ".join(str(part) for part in (total, outcome) if part not in (None, ""))

    def party_summary(self, character) -> str:
        """The key numbers the GM's party panel shows (HP, abilities, harm, wounds)."""
        return ""

    # ----- experience (optional): the GM awards it, the player spends it (sheets/xp.py) -------------

    #: The most XP one award may give.
    xp_award_max: ClassVar[int] = 20

    def xp(self, character) -> int | None:
        """The character's unspent XP; None when the system has no experience to award or spend."""
        return None

    def xp_award(self, *, character, amount: int, author) -> None:
        """Give ``amount`` XP (already within 1..xp_award_max), recorded through character_change."""
        raise NotImplementedError

    def xp_spends(self, character) -> list[XpOffer]:
        """Everything the character could buy with XP, priced, with the reason when it cannot."""
        return []

    def xp_spend(self, *, character, key: str, expected: str, name: str = "", author) -> int:
        """Buy the offer ``key`` if it still reads ``expected``; the cost. KeyError for an unknown key,
        ValidationError (nothing saved) when the rules or the XP refuse it."""
        raise KeyError(key)
