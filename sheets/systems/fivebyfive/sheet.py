"""Five by Five 2.5 on the sheet: five ranked descriptors plus HP, 5x5 rolls with trumps and doubles tokens.

Campaign options (``campaign.options``, booleans, off when missing):

``fbf_advanced``
    The optional Advanced Descriptors rule: the builder lets a descriptor be marked advanced (every
    roll with it takes a -2 rank shift, and it may later climb to 25).
``fbf_aspects``
    The optional Aspects rule: four character-wide ratings (Agility, Brawn, Cognition, Determination),
    Average unless the player traded one down to Inferior to raise another to Superior at creation.
    Every roll names the aspect its action is based on (the roll options; encounter actions have their
    own default), and that aspect's rating shifts it one rank, untrained rolls included.

The builder posts the ranking as six hidden ``order`` inputs holding slot keys ("1".."5" for the
player's descriptors, "hp" for hit points), most important first; the engine's ``ranked_values`` turns
that order into 6/4/4/2/2/-5 and HP = value + 10. Up/down buttons are submit buttons named ``move``
("<slot>:up" or "<slot>:down"), so ranking works without JavaScript; static/fivebyfive/fivebyfive.js moves the
rows in place and adds dragging.

Experience (the SheetSystem XP methods; sheets/xp.py serves them; readings taken):

- Only the GM awards XP, 1 to 20 at a time (a session is worth 1, a hard one or a long arc's end 2);
  only the character's player spends it ("like money"): a rank up at the engine's price and caps, a
  new descriptor at 2 for 2 XP, or the poor descriptor traded for another weakness for 5 XP.
- Raising HP prices it on HP - 10, and current HP rises with the maximum: new hit points come unhurt.
- A spend carries what the player saw, so a double click or a stale tab is refused, not charged twice.
- What XP buys is not typed: maximum HP and each descriptor's value, name and exclusive action are
  build values and XP the GM's, typed only by the GM after creation (``value_kinds``, sheets/policy.py);
  so are aspects and the advanced flag, which a GM who turns the option on later sets on sheets already
  built. Current HP and the token are play state (the GM's, or the player's when the campaign lets them).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorDict

from campaigns.forms import IdField, WholeNumberField
from rules import fivebyfive as rules
from rules.dice import Outcome, Roller, RulesError
from sheets.contract import (
    Bar,
    Die,
    EditableField,
    RollButton,
    RollResult,
    SheetSystem,
    XpOffer,
    format_percent,
    rules_error_to_validation,
)
from sheets.policy import Kind
from sheets.services import character_change

from .models import ASPECT_NAMES, FiveByFiveDescriptor, FiveByFiveSheet

SLOTS = ("1", "2", "3", "4", "5")
HP_SLOT = "hp"
DEFAULT_ORDER = (*SLOTS, HP_SLOT)
PLACEHOLDERS = ("Amateur Chef", "Street Smarts", "Brawler", "Uncanny Reflexes", "Afraid of Heights")
OPTION_ADVANCED = "fbf_advanced"
OPTION_ASPECTS = "fbf_aspects"

EXCLUSIVE_CHOICES = [("", "None")] + [(a.value, a.value.capitalize()) for a in rules.ExclusiveAction]
RATING_CHOICES = tuple(
    (str(int(r)), r.name.capitalize() + (f" ({int(r):+d} shift)" if r else "")) for r in rules.AspectRating
)


def aspect_ratings(sheet) -> dict[rules.Aspect, rules.AspectRating]:
    """The sheet's four aspects as the engine reads them."""
    return {a: rules.AspectRating(getattr(sheet, a.value)) for a in rules.Aspect}


def aspect_rating(sheet, name: str) -> rules.AspectRating:
    """The rating of the aspect ``name`` ("" for none named: Average, no shift)."""
    return rules.AspectRating(getattr(sheet, name)) if name in ASPECT_NAMES else rules.AspectRating.AVERAGE


def aspect_choices(sheet) -> list[tuple[str, str]]:
    """Which aspect an action is based on, each with the character's rating, for a roll's options."""
    labels = dict(RATING_CHOICES)
    return [("", "None named (no shift)")] + [
        (a.value, f"{a.value.capitalize()}: {labels[str(getattr(sheet, a.value))]}") for a in rules.Aspect
    ]


WEAPON_CHOICES = [(w.name, f"{w.name} (DB {w.db}: {', '.join(w.examples)})") for w in rules.WEAPONS]
ARMOR_CHOICES = [(a.name, f"{a.name} (AV {a.av}: {', '.join(a.examples)})") for a in rules.ARMOR]
WEAPON_SHORT = tuple((w.name, f"{w.name} (DB {w.db})") for w in rules.WEAPONS)
ARMOR_SHORT = tuple((a.name, f"{a.name} (AV {a.av})") for a in rules.ARMOR)
WEAPON_DB = {w.name: w.db for w in rules.WEAPONS}
ARMOR_AV = {a.name: a.av for a in rules.ARMOR}
YES_NO = (("on", "yes"), ("", "no"))
TOKEN_CHOICES = (("on", "held"), ("", "none"))
OUTCOME_TONES = {"trump": "success", "success": "info", "failure": "secondary"}
OUTCOME_LABELS = {"trump": "trump", "success": "success", "failure": "failure"}


def _value_label(value: int) -> str:
    name = rules.RANK_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


def _truthy(raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    return str(raw or "").strip().lower() in ("on", "true", "1", "yes")


def _slot_values(data, name: str) -> list[str]:
    if data is None:
        return []
    if hasattr(data, "getlist"):
        return [str(v) for v in data.getlist(name)]
    value = data.get(name)
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [] if value in (None, "") else [str(value)]


class FiveByFiveBuilderForm(forms.Form):
    name = forms.CharField(max_length=80, label="Character name")
    order = forms.MultipleChoiceField(
        choices=[(slot, slot) for slot in DEFAULT_ORDER], widget=forms.MultipleHiddenInput, required=False
    )
    weapon = forms.ChoiceField(
        choices=WEAPON_CHOICES,
        initial="Light weapon",
        help_text="Its damage bonus (DB) is added to every damage die.",
    )
    armor = forms.ChoiceField(
        choices=ARMOR_CHOICES,
        initial="Light clothes",
        help_text="Its armor value (AV) lowers the damage you take.",
    )
    shield = forms.BooleanField(required=False, label="Shield (a second dodge each round)")
    offhand_dagger = forms.BooleanField(required=False, label="Off-hand dagger (a second dodge each round)")
    notes = forms.CharField(
        required=False, max_length=4000, widget=forms.Textarea(attrs={"rows": 3}), label="Background"
    )

    def __init__(self, data=None, *, advanced: bool = False, aspects: bool = False, **kwargs):
        self.moved = False
        if data is not None and data.get("move"):
            data = self._apply_move(data, str(data.get("move")))
        super().__init__(data, **kwargs)
        self.allow_advanced = advanced
        self.allow_aspects = aspects
        for slot, example in zip(SLOTS, PLACEHOLDERS, strict=True):
            self.fields[f"descriptor_{slot}"] = forms.CharField(
                max_length=rules.NAME_MAX_LENGTH,
                label=f"Descriptor {slot}",
                widget=forms.TextInput(attrs={"placeholder": f"e.g. {example}", "autocomplete": "off"}),
            )
            self.fields[f"exclusive_{slot}"] = forms.ChoiceField(
                choices=EXCLUSIVE_CHOICES, required=False, label="Exclusive action"
            )
            if advanced:
                self.fields[f"advanced_{slot}"] = forms.BooleanField(required=False, label="Advanced")
        if aspects:
            for name in ASPECT_NAMES:
                self.fields[f"aspect_{name}"] = forms.TypedChoiceField(
                    choices=RATING_CHOICES,
                    coerce=int,
                    initial=0,
                    required=False,
                    empty_value=0,
                    label=name.capitalize(),
                )

    # ----- ranking without JavaScript: a "move" submit reorders and shows the form again -----------

    def _apply_move(self, data, move: str):
        order = _slot_values(data, "order")
        if sorted(order) != sorted(DEFAULT_ORDER):
            order = list(DEFAULT_ORDER)
        slot, _, direction = move.partition(":")
        if slot in order and direction in ("up", "down"):
            index = order.index(slot)
            other = index - 1 if direction == "up" else index + 1
            if 0 <= other < len(order):
                order[index], order[other] = order[other], order[index]
        if hasattr(data, "setlist"):
            data = data.copy()
            data.setlist("order", order)
            data.pop("move", None)
        else:
            data = {**data, "order": order}
            data.pop("move", None)
        self.moved = True
        return data

    def full_clean(self):
        if self.moved:
            # A reorder is not an attempt to create: show the form again without complaints.
            self._errors = ErrorDict()
            self.cleaned_data = {}
            return
        super().full_clean()

    def is_valid(self):
        return not self.moved and super().is_valid()

    # ----- what the template draws ----------------------------------------------------------------

    def ranking(self) -> list[str]:
        order = _slot_values(self.data, "order") if self.is_bound else []
        return order if sorted(order) == sorted(DEFAULT_ORDER) else list(DEFAULT_ORDER)

    def ranking_rows(self) -> list[dict[str, Any]]:
        rows = []
        for position, slot in enumerate(self.ranking()):
            value = rules.CREATION_VALUES[position]
            row = {"slot": slot, "position": position + 1, "value": value, "is_hp": slot == HP_SLOT}
            if slot == HP_SLOT:
                row["display"] = f"{value + rules.HP_BONUS} HP"
                row["name"] = "Hit points (HP)"
            else:
                row["display"] = str(value)
                row["field"] = self[f"descriptor_{slot}"]
                row["exclusive"] = self[f"exclusive_{slot}"]
                row["advanced"] = self[f"advanced_{slot}"] if self.allow_advanced else None
                typed = self.data.get(f"descriptor_{slot}") if self.is_bound else ""
                row["name"] = (typed or "").strip() or f"descriptor {slot}"
                row["errors"] = self.slot_errors(slot)
            rows.append(row)
        return rows

    def aspect_fields(self) -> list[forms.BoundField]:
        return [self[f"aspect_{name}"] for name in ASPECT_NAMES] if self.allow_aspects else []

    @property
    def creation_values(self) -> str:
        return ",".join(str(v) for v in rules.CREATION_VALUES)

    @staticmethod
    def value_odds() -> list[tuple[str, str]]:
        """What each starting value is worth on a roll, for the builder's aside."""
        return [
            (_value_label(value), format_percent(rules.chance(value)))
            for value in sorted(set(rules.CREATION_VALUES) | {rules.UNTRAINED}, reverse=True)
        ]

    def slot_errors(self, slot: str) -> list[str]:
        errors = []
        for prefix in ("descriptor", "exclusive", "advanced"):
            errors += list(self.errors.get(f"{prefix}_{slot}", []))
        return errors

    # ----- the creation rules ---------------------------------------------------------------------

    def clean(self):
        data = super().clean()
        for slot in SLOTS:
            # Rules the campaign has not turned on are refused, not dropped: an import may carry them.
            if not self.allow_advanced and _truthy(self.data.get(f"advanced_{slot}")):
                self.add_error(f"descriptor_{slot}", "Advanced descriptors are not used in this campaign.")
        if not self.allow_aspects and any(
            str(self.data.get(f"aspect_{name}") or "0") != "0" for name in ASPECT_NAMES
        ):
            self.add_error(None, "Aspects are not used in this campaign: every aspect stays Average.")
        order = _slot_values(self.data, "order")
        if sorted(order) != sorted(DEFAULT_ORDER):
            self.add_error(
                "order", "Rank all six: your five descriptors and HP, each exactly once (use the arrows)."
            )
            return data
        names = {slot: data.get(f"descriptor_{slot}") for slot in SLOTS}
        seen = set()
        for slot, name in names.items():
            key = " ".join((name or "").split()).casefold()
            if key in (rules.HP_NAME.casefold(), "hit points"):
                self.add_error(f"descriptor_{slot}", "HP is already on every sheet; name something else.")
            elif key and key in seen:
                self.add_error(f"descriptor_{slot}", f"'{name.strip()}' is ranked twice.")
            seen.add(key)
        if self.errors:
            return data
        ranked = [rules.HP_NAME if slot == HP_SLOT else " ".join(names[slot].split()) for slot in order]
        exclusive = {}
        for slot in SLOTS:
            if data.get(f"exclusive_{slot}"):
                exclusive[ranked[order.index(slot)]] = rules.ExclusiveAction(data[f"exclusive_{slot}"])
        advanced = [ranked[order.index(slot)] for slot in SLOTS if data.get(f"advanced_{slot}")]
        try:
            built = rules.build_character(ranked, advanced=advanced, exclusive=exclusive)
        except rules.FieldError as error:
            raise ValidationError({self._field_for(error.field, order): str(error)}) from None
        data["aspects"] = {}
        if self.allow_aspects:
            ratings = {a: rules.AspectRating(data.get(f"aspect_{a.value}") or 0) for a in rules.Aspect}
            try:
                data["aspects"] = {a.value: int(r) for a, r in rules.validate_aspects(ratings).items()}
            except rules.FieldError as error:
                superior = [a.value for a, r in ratings.items() if r is rules.AspectRating.SUPERIOR]
                inferior = sum(r is rules.AspectRating.INFERIOR for r in ratings.values())
                raise ValidationError({f"aspect_{superior[inferior]}": str(error)}) from None
        data["built"] = built
        data["ranked_slots"] = order
        return data

    @staticmethod
    def _field_for(engine_field: str, order: list[str]) -> str:
        """The form field an engine error belongs on: "order[2]" or "descriptors[2].name" is a slot."""
        for prefix in ("order[", "descriptors["):
            if engine_field.startswith(prefix):
                index = int(engine_field[len(prefix) :].split("]", 1)[0])
                slot = order[index] if index < len(order) else ""
                if slot in SLOTS:
                    suffix = engine_field.split("]", 1)[1]
                    kind = {".exclusive": "exclusive", ".advanced": "advanced"}.get(suffix, "descriptor")
                    return f"{kind}_{slot}"
        return "order"


class FiveByFiveOptionsForm(forms.Form):
    shift = forms.TypedChoiceField(
        choices=[(n, f"{n:+d}" if n else "0 (none)") for n in range(-3, 4)],
        coerce=int,
        initial=0,
        label="Rank shift",
        widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
    )
    spend_token = forms.BooleanField(
        required=False,
        label="Spend the doubles token (5s trump too)",
        widget=forms.CheckboxInput(attrs={"class": "form-check-input"}),
    )

    def __init__(self, data=None, *, sheet=None, aspects: bool = False):
        super().__init__(data)
        if aspects:
            # The GM names the aspect the task is based on; its rating shifts every button, untrained too.
            self.fields["aspect"] = forms.ChoiceField(
                choices=aspect_choices(sheet),
                required=False,
                initial="",
                label="Aspect the task is based on",
                widget=forms.Select(attrs={"class": "form-select form-select-sm"}),
            )


class TimePassesForm(forms.Form):
    """The GM tells the sheet how long a dying character has gone untended."""

    minutes = WholeNumberField(
        min_value=1,
        max_value=600,
        label="Minutes pass",
        error_messages={
            "required": "Minutes pass: say how many minutes (1 to 600).",
            "invalid": "Minutes pass: a whole number from 1 to 600 (digits 0-9).",
            "min_value": "Minutes pass: at least 1 minute.",
            "max_value": "Minutes pass: at most 600 minutes at a time.",
        },
    )


class RestForm(forms.Form):
    """Days of natural recovery."""

    days = WholeNumberField(
        min_value=1,
        max_value=365,
        label="Days of rest",
        error_messages={
            "required": "Days of rest: say how many days (1 to 365).",
            "invalid": "Days of rest: a whole number from 1 to 365 (digits 0-9).",
            "min_value": "Days of rest: at least 1 day.",
            "max_value": "Days of rest: at most 365 days at a time.",
        },
    )


def dying_clock(sheet) -> dict[str, int] | None:
    """For a dying character: minutes to the next lost HP and to death, counting the minutes already run."""
    next_loss = rules.minutes_to_next_loss(sheet.hp)
    if next_loss is None:
        return None
    run = sheet.bled_minutes
    return {"next_loss": next_loss - run, "death": rules.minutes_to_death(sheet.hp) - run}


def time_passes(*, character, minutes: int, author, seen_version: int | None = None) -> str:
    """``minutes`` go by untended: a dying character bleeds by the book's clock. What happened, in words."""
    with character_change(
        character=character, author=author, reason=f"{minutes} minutes pass", seen_version=seen_version
    ) as record:
        sheet = FiveByFiveSheet.objects.get(pk=character.fivebyfive.pk)  # read again under the version lock
        if rules.condition(sheet.hp) != "dying":
            raise ValidationError(
                f"{character.name} is not dying (HP {sheet.hp}): time passing costs no HP."
            )
        before = sheet.hp
        sheet.hp, run = rules.bleed(before, sheet.bled_minutes + minutes)
        sheet.bleed_minutes, sheet.bleed_hp = run, (sheet.hp if run else None)
        sheet.save(update_fields=["hp", "bleed_minutes", "bleed_hp"])
        if sheet.hp == before:
            said = f"HP {before}, the next HP goes in {rules.minutes_to_next_loss(before) - run} minutes"
        else:
            said = f"HP {before} -> {sheet.hp}" + (" (dead)" if rules.condition(sheet.hp) == "dead" else "")
        record["reason"] = f"{minutes} minutes pass: {said}"
    character.fivebyfive = sheet
    return said


def rest(*, character, days: int, author, seen_version: int | None = None) -> str:
    """``days`` of natural recovery, 1 HP a day up to the maximum. What happened, in words."""
    with character_change(
        character=character, author=author, reason=f"Rested {days} days", seen_version=seen_version
    ) as record:
        sheet = FiveByFiveSheet.objects.get(pk=character.fivebyfive.pk)
        before = sheet.hp
        try:
            sheet.hp = rules.natural_recovery(before, days, max_hp=rules.hp_points(sheet.hp_rank))
        except RulesError as error:
            raise ValidationError(str(error)) from None
        sheet.save(update_fields=["hp"])
        said = f"HP {before} -> {sheet.hp}" if sheet.hp != before else f"HP {before}, nothing to recover"
        record["reason"] = f"Rested {days} days: {said}"
    character.fivebyfive = sheet
    return said


class FiveByFiveSystem(SheetSystem):
    key = "fivebyfive"
    label = "Five by Five 2.5"
    value_kinds = {
        FiveByFiveSheet: {
            **dict.fromkeys(("hp", "doubles_token", "bleed_minutes", "bleed_hp"), Kind.PLAY),
            **dict.fromkeys(("hp_rank", *ASPECT_NAMES), Kind.BUILD),
            **dict.fromkeys(("weapon", "weapon_db", "armor", "armor_av"), Kind.KIT),
            **dict.fromkeys(("shield", "offhand_dagger"), Kind.KIT),
            "xp": Kind.GM,  # awarded by the GM, spent at the book's prices (sheets/xp.py)
        },
        FiveByFiveDescriptor: dict.fromkeys(
            ("name", "value", "position", "exclusive_action", "advanced"), Kind.BUILD
        ),
    }
    demo_campaign = ("The Salt Road", "A caravan crosses the salt flats. Five by Five demo table.")
    campaign_options = (
        (
            "fbf_advanced",
            "Advanced descriptors",
            "Descriptors may be marked advanced: -2 rank shift, up to 25.",
        ),
        (
            "fbf_aspects",
            "Aspects",
            "Four aspects (Agility, Brawn, Cognition, Determination): an Inferior one buys a Superior "
            "one; the aspect an action is based on shifts it a rank.",
        ),
    )
    template = "fivebyfive/sheet.html"
    builder_template = "fivebyfive/builder.html"
    stylesheet = "fivebyfive/fivebyfive.css"

    # ----- builder ---------------------------------------------------------------------------------

    def builder_form(self, *, campaign, data=None, trusted=False):
        options = campaign.options or {}
        return FiveByFiveBuilderForm(
            data,
            advanced=bool(options.get(OPTION_ADVANCED)),
            aspects=bool(options.get(OPTION_ASPECTS)),
        )

    def create(self, *, character, cleaned_data):
        built: tuple[rules.Descriptor, ...] = cleaned_data["built"]
        hp = next(d for d in built if d.is_hp)
        weapon, armor = cleaned_data["weapon"], cleaned_data["armor"]
        FiveByFiveSheet.objects.create(
            character=character,
            hp_rank=hp.value,
            hp=rules.hp_points(hp.value),
            weapon=weapon,
            weapon_db=WEAPON_DB[weapon],
            armor=armor,
            armor_av=ARMOR_AV[armor],
            shield=bool(cleaned_data.get("shield")),
            offhand_dagger=bool(cleaned_data.get("offhand_dagger")),
            **cleaned_data.get("aspects", {}),
        )
        rows = []
        for position, descriptor in enumerate(built):
            if descriptor.is_hp:
                continue
            rows.append(
                FiveByFiveDescriptor(
                    character=character,
                    name=descriptor.name,
                    value=descriptor.value,
                    position=position,
                    exclusive_action=descriptor.exclusive.value if descriptor.exclusive else "",
                    advanced=descriptor.advanced,
                )
            )
        FiveByFiveDescriptor.objects.bulk_create(rows)

    def demo_form_data(self):
        return [
            {
                "name": "Larry Booker",
                "descriptor_1": "Street Smarts",
                "descriptor_2": "Amateur Chef",
                "descriptor_3": "Brawler",
                "exclusive_3": "attack",
                "descriptor_4": "Uncanny Reflexes",
                "exclusive_4": "dodge",
                "descriptor_5": "Stage Fright",
                "order": ["1", "2", "3", "hp", "4", "5"],
                "weapon": "Light weapon",
                "armor": "Medium clothes",
                "notes": "Cooks for the caravan and talks his way out of the rest.",
            },
            {
                "name": "Mara Quill",
                "descriptor_1": "Caravan Guard",
                "exclusive_1": "attack",
                "descriptor_2": "Field Medic",
                "exclusive_2": "healing",
                "descriptor_3": "Alertness",
                "exclusive_3": "steal initiative",
                "descriptor_4": "Salt-Flat Lore",
                "descriptor_5": "Reading Maps",
                "order": ["hp", "1", "2", "3", "4", "5"],
                "weapon": "Medium weapon",
                "armor": "Heavy clothes",
                "shield": True,
                "notes": "Has walked the Salt Road eleven times and lost the map every time.",
            },
        ]

    # ----- sheet -----------------------------------------------------------------------------------

    @staticmethod
    def _rows(character) -> list[FiveByFiveDescriptor]:
        return list(character.descriptors.all())

    def context(self, character):
        sheet = character.fivebyfive
        options = character.campaign.options or {}
        descriptors = []
        for row in self._rows(character):
            descriptors.append(
                {
                    "row": row,
                    "name": self.field(character, f"descriptor:{row.pk}:name"),
                    "value": self.field(character, f"descriptor:{row.pk}:value"),
                    "exclusive": self.field(character, f"descriptor:{row.pk}:exclusive"),
                    "advanced": (
                        self.field(character, f"descriptor:{row.pk}:advanced")
                        if options.get(OPTION_ADVANCED)
                        else None
                    ),
                    "raise_cost": self._raise_cost(row.value, advanced=row.advanced),
                }
            )
        return {
            "sheet": sheet,
            "descriptors": descriptors,
            "hp_field": self.field(character, "hp"),
            "hp_rank_field": self.field(character, "hp_rank"),
            "hp_max": rules.hp_points(sheet.hp_rank),
            "condition": rules.condition(sheet.hp),
            "token_field": self.field(character, "doubles_token"),
            # Rendered out of band after each roll and edit: the token and the spend option follow the sheet.
            "sheet_oob_template": "fivebyfive/sheet.html#oob",
            "xp_field": self.field(character, "xp"),
            "gear": [self.field(character, name) for name in ("weapon", "armor", "shield", "offhand_dagger")],
            "dodges": rules.dodges_per_round(shield=sheet.shield, offhand_dagger=sheet.offhand_dagger),
            "uses_aspects": bool(options.get(OPTION_ASPECTS)),
            "aspects": (
                [self.field(character, f"aspect:{name}") for name in ASPECT_NAMES]
                if options.get(OPTION_ASPECTS)
                else []
            ),
            "uses_advanced": bool(options.get(OPTION_ADVANCED)),
            "dying_clock": dying_clock(sheet),
            "time_form": TimePassesForm(prefix="time"),
            "rest_form": RestForm(prefix="rest"),
            "xp_award_help": "1 a session played, 1 more for a hard one or the end of a long arc.",
            "xp_help": "A new rank costs its value in XP; a new descriptor 2; trading the poor one 5. "
            "At most two descriptors at 12 and one at 16.",
        }

    @staticmethod
    def _raise_cost(value: int, *, advanced: bool = False) -> str:
        """What the next rank costs in XP, or why there is none."""
        if value == rules.POOR:
            return f"poor: trade it for {rules.POOR_SWAP_COST} XP"
        try:
            return f"next rank: {rules.improvement_cost(value, advanced=advanced)} XP"
        except RulesError:
            return "at the top"

    def _descriptor(self, character, ident: str) -> FiveByFiveDescriptor:
        try:
            pk = IdField().clean(ident)
        except ValidationError:
            raise KeyError(ident) from None
        row = next((r for r in character.descriptors.all() if r.pk == pk), None)  # loaded rows, no query
        if row is None:
            raise KeyError(ident)
        return row

    @staticmethod
    def _uses(character, option: str) -> bool:
        return bool((character.campaign.options or {}).get(option))

    def field(self, character, path):
        sheet = character.fivebyfive
        if path.startswith("aspect:") and self._uses(character, OPTION_ASPECTS):
            name = path.partition(":")[2]
            if name not in ASPECT_NAMES:
                raise KeyError(path)
            # Set at creation; afterwards the GM's (a sheet built before the table took up aspects, say).
            return EditableField(
                path,
                name.capitalize(),
                str(getattr(sheet, name)),
                input_type="select",
                choices=RATING_CHOICES,
                coerce=int,
                kind=self.kind_of(FiveByFiveSheet, name),
            )
        if path.startswith("descriptor:"):
            _, ident, attr = (path.split(":") + ["", ""])[:3]
            row = self._descriptor(character, ident)
            if attr == "name":
                return EditableField(
                    path,
                    "Descriptor name",
                    row.name,
                    input_type="text",
                    max_length=rules.NAME_MAX_LENGTH,
                    kind=self.kind_of(FiveByFiveDescriptor, "name"),
                )
            if attr == "value":
                ranks = rules.RANKS if row.advanced else rules.BASIC_RANKS
                return EditableField(
                    path,
                    f"{row.name} value",
                    row.value,
                    input_type="select",
                    choices=tuple((str(r), _value_label(r)) for r in ranks if r != rules.UNTRAINED),
                    coerce=int,
                    kind=self.kind_of(FiveByFiveDescriptor, "value"),
                )
            if attr == "exclusive":
                return EditableField(
                    path,
                    f"{row.name} exclusive action",
                    row.exclusive_action,
                    input_type="select",
                    choices=tuple(EXCLUSIVE_CHOICES),
                    kind=self.kind_of(FiveByFiveDescriptor, "exclusive_action"),
                )
            if attr == "advanced" and self._uses(character, OPTION_ADVANCED):
                return EditableField(
                    path,
                    f"{row.name} advanced",
                    "on" if row.advanced else "",
                    input_type="select",
                    choices=YES_NO,
                    kind=self.kind_of(FiveByFiveDescriptor, "advanced"),
                )
            raise KeyError(path)
        if path == "hp":
            return EditableField(
                path,
                "HP",
                sheet.hp,
                min=rules.DEAD_AT,
                max=rules.hp_points(sheet.hp_rank),
                kind=self.kind_of(FiveByFiveSheet, "hp"),
            )
        if path == "hp_rank":
            return EditableField(
                path,
                "Maximum HP",
                sheet.hp_rank,
                input_type="select",
                choices=tuple((str(r), f"{r + rules.HP_BONUS} (rank {r})") for r in rules.BASIC_RANKS),
                coerce=int,
                kind=self.kind_of(FiveByFiveSheet, "hp_rank"),
            )
        if path == "xp":
            return EditableField(
                path, "XP", sheet.xp, min=0, max=9999, kind=self.kind_of(FiveByFiveSheet, "xp")
            )
        if path == "doubles_token":
            return EditableField(
                path,
                "Doubles token",
                "on" if sheet.doubles_token else "",
                input_type="select",
                choices=TOKEN_CHOICES,
                kind=self.kind_of(FiveByFiveSheet, "doubles_token"),
            )
        if path == "weapon":
            return EditableField(
                path,
                "Weapon",
                sheet.weapon,
                input_type="select",
                choices=WEAPON_SHORT,
                kind=self.kind_of(FiveByFiveSheet, "weapon"),
            )
        if path == "armor":
            return EditableField(
                path,
                "Armor",
                sheet.armor,
                input_type="select",
                choices=ARMOR_SHORT,
                kind=self.kind_of(FiveByFiveSheet, "armor"),
            )
        if path in ("shield", "offhand_dagger"):
            label = "Shield" if path == "shield" else "Off-hand dagger"
            return EditableField(
                path,
                label,
                "on" if getattr(sheet, path) else "",
                input_type="select",
                choices=YES_NO,
                kind=self.kind_of(FiveByFiveSheet, path),
            )
        raise KeyError(path)

    def _check_descriptors(self, character, rows, hp_rank: int) -> None:
        """Refuse a sheet the rules do not allow (two poor descriptors, three 12s...)."""
        descriptors = [rules.Descriptor(row.name, row.value, row.advanced, None) for row in rows] + [
            rules.Descriptor(rules.HP_NAME, hp_rank)
        ]
        try:
            rules.validate_descriptors(descriptors)
        except RulesError as error:
            raise ValidationError(str(error)) from None

    def apply_edit(self, character, path, value):
        sheet = character.fivebyfive
        if path.startswith("aspect:"):
            name = path.partition(":")[2]
            ratings = {**aspect_ratings(sheet), rules.Aspect(name): rules.AspectRating(value)}
            try:
                rules.validate_aspects(ratings)
            except RulesError as error:
                raise ValidationError(str(error)) from None
            setattr(sheet, name, value)
            sheet.save(update_fields=[name])
            return
        if path.startswith("descriptor:"):
            attr = path.rsplit(":", 1)[1]
            rows = self._rows(character)
            row = next(r for r in rows if r.pk == self._descriptor(character, path.split(":")[1]).pk)
            if attr == "name":
                if value.casefold() in (rules.HP_NAME.casefold(), "hit points"):
                    raise ValidationError("HP is already on every sheet; name something else.")
                if any(r.pk != row.pk and r.name.casefold() == value.casefold() for r in rows):
                    raise ValidationError(f"'{value}' is already on this sheet.")
                row.name = value
            elif attr == "value":
                row.value = value
                self._check_descriptors(character, rows, sheet.hp_rank)
            elif attr == "advanced":
                row.advanced = value == "on"
                self._check_descriptors(character, rows, sheet.hp_rank)
            else:
                row.exclusive_action = value
            row.save()
            return
        if path == "hp_rank":
            self._check_descriptors(character, self._rows(character), value)
            sheet.hp_rank = value
            # A lower maximum drags current HP down with it; a higher one leaves the wounds alone.
            sheet.hp = min(sheet.hp, rules.hp_points(value))
        elif path in ("hp", "xp"):
            setattr(sheet, path, value)
        elif path == "weapon":
            sheet.weapon, sheet.weapon_db = value, WEAPON_DB[value]
        elif path == "armor":
            sheet.armor, sheet.armor_av = value, ARMOR_AV[value]
        else:
            # The yes/no lists (token, shield, off-hand dagger): "on" is yes.
            setattr(sheet, path, value == "on")
        sheet.save()

    # ----- rolls -----------------------------------------------------------------------------------

    def options_form(self, *, character, data=None):
        # A GM's roll request (no character) names no aspect: each sheet's own options do.
        if character is None:
            return FiveByFiveOptionsForm(data)
        return FiveByFiveOptionsForm(
            data, sheet=character.fivebyfive, aspects=self._uses(character, OPTION_ASPECTS)
        )

    def _aspect(self, character, options) -> tuple[str, rules.AspectRating]:
        """(aspect named in the options, its rating); none named, or the rule off: Average."""
        name = options.get("aspect") or ""
        if not self._uses(character, OPTION_ASPECTS) or name not in ASPECT_NAMES:
            return "", rules.AspectRating.AVERAGE
        return name, aspect_rating(character.fivebyfive, name)

    @staticmethod
    def _spending(character, options) -> tuple[bool, bool]:
        """(asked to spend a token, actually holds one to spend)."""
        asked = bool(options.get("spend_token"))
        return asked, asked and character.fivebyfive.doubles_token

    def _task_button(self, key, label, value, *, options, spend, asked, advanced=False, aspect=None, note=""):
        steps = options.get("shift") or 0
        aspect_name, rating = aspect or ("", rules.AspectRating.AVERAGE)
        target = rules.effective_value(value, steps=steps, advanced=advanced, aspect=rating)
        odds = rules.outcome_odds(target, doubles_token=spend)
        details = [note] if note else []
        if target is None:
            details.append("no chance after the shifts")
        elif target == rules.POOR:
            details.append("one die: only a trump succeeds")
        elif target == rules.UNTRAINED:
            details.append("only a trump succeeds")
        else:
            details.append(f"product {min(target, rules.MAX_TARGET)} or less")
        if advanced:
            details.append("advanced -2")
        if rating:
            details.append(f"{aspect_name} {int(rating):+d}")
        if spend:
            details.append("token: 5s trump")
        elif asked:
            details.append("no token to spend")
        return RollButton(
            key=key,
            label=label,
            chance=odds["trump"] + odds["success"],
            detail=" · ".join(details),
            picture=tuple(Bar(OUTCOME_LABELS[o], odds[o], OUTCOME_TONES[o]) for o in odds),
            group="Descriptors",
        )

    def buttons(self, character, options):
        sheet = character.fivebyfive
        asked, spend = self._spending(character, options)
        aspect = self._aspect(character, options)
        buttons = [
            self._task_button(
                f"descriptor:{row.pk}",
                f"{row.name} {row.value}",
                row.value,
                options=options,
                spend=spend,
                asked=asked,
                advanced=row.advanced,
                aspect=aspect,
                note=row.exclusive_action.capitalize() if row.exclusive_action else "",
            )
            for row in self._rows(character)
        ]
        buttons.append(
            self._task_button(
                "untrained",
                "Untrained 0",
                rules.UNTRAINED,
                options=options,
                spend=spend,
                asked=asked,
                aspect=aspect,
                note="anything not on the sheet",
            )
        )
        mean = rules.mean_damage(db=sheet.weapon_db, av=0, doubles_token=spend)
        buttons.append(
            RollButton(
                key="damage",
                label=f"Damage: {sheet.weapon or 'No weapon'}",
                chance=None,
                detail=f"1d6 + DB {sheet.weapon_db}, a 6 rolls again for +5 · average {float(mean):.1f}"
                + (" · token: 5s trump" if spend else ""),
                group="Combat",
            )
        )
        return buttons

    def roll(self, character, key, options, roller: Roller):
        sheet = character.fivebyfive
        asked, spend = self._spending(character, options)
        if asked and not spend:
            raise ValidationError("You hold no doubles token to spend: untick the option and roll again.")
        if key == "damage":
            return self._roll_damage(character, options, roller, spend)
        kind, _, ident = key.partition(":")
        if kind == "descriptor":
            try:
                row = self._descriptor(character, ident)
            except KeyError:
                raise KeyError(key) from None
            name, value, advanced = row.name, row.value, row.advanced
        elif key == "untrained":
            name, value, advanced = "Untrained", rules.UNTRAINED, False
        else:
            raise KeyError(key)
        steps = options.get("shift") or 0
        aspect_name, rating = self._aspect(character, options)
        try:
            result = rules.roll_task(
                roller,
                value,
                steps=steps,
                advanced=advanced,
                aspect=rating,
                doubles_token=spend,
                holding_token=sheet.doubles_token,
            )
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        odds = rules.outcome_odds(result.target, doubles_token=spend)
        trump_face = rules.TOKEN_TRUMP_FACE if spend else rules.TRUMP_FACE
        dice = tuple(Die(face, trump=face >= trump_face, sides=6) for face in result.faces)
        changes = self._token_changes(
            sheet, spent=result.token_spent, earned=result.token_earned, held=result.token_held
        )
        summary = self._task_summary(result)
        return RollResult(
            label=f"{name} {value}",
            request={
                "key": key,
                "shift": steps,
                "aspect": aspect_name,
                "spend_token": spend,
                "target": result.target,
            },
            dice=dice,
            outcome=result.outcome,
            summary=summary,
            chance=odds["trump"] + odds["success"],
            changes=changes,
            extra={
                "target": result.target,
                "doubles": result.doubles,
                "token_spent": result.token_spent,
                "token_earned": result.token_earned,
                "token_held": result.token_held,
            },
        )

    @staticmethod
    def _task_summary(result: rules.TaskRoll) -> str:
        if result.target is None:
            return "No chance after the shifts: nothing rolled, failure"
        faces = " × ".join(str(f) for f in result.faces)
        if result.trump:
            read = f"{faces}: trump"
        elif len(result.faces) == 2:
            read = f"{faces} = {result.faces[0] * result.faces[1]} vs {min(result.target, rules.MAX_TARGET)}"
        else:
            read = f"{faces}: a poor roll needs a trump"
        doubles = " · doubles!" if result.doubles else ""
        return f"{read}, {'success' if result.success else 'failure'}{doubles}"

    @staticmethod
    def _token_changes(sheet, *, spent: bool, earned: bool, held: bool) -> tuple[str, ...]:
        """Save the token the roll left the character holding, and say what happened to it."""
        changes = []
        if spent:
            changes.append("doubles token spent")
        if earned:
            changes.append("doubles token earned")
        if sheet.doubles_token != held:
            sheet.doubles_token = held
            sheet.save(update_fields=["doubles_token"])
        return tuple(changes)

    def _roll_damage(self, character, options, roller, spend: bool):
        sheet = character.fivebyfive
        try:
            result = rules.roll_damage(roller, db=sheet.weapon_db, av=0, doubles_token=spend)
        except RulesError as error:
            raise rules_error_to_validation(error) from None
        trump_face = rules.TOKEN_TRUMP_FACE if spend else rules.TRUMP_FACE
        dice = tuple(
            Die(face, trump=face >= trump_face, exploded=face >= trump_face, sides=6) for face in result.faces
        )
        trumps = len(result.faces) - 1
        # Damage chains never earn a token (no doubles in one die); they can only spend one.
        held = sheet.doubles_token and not spend
        changes = self._token_changes(sheet, spent=spend, earned=False, held=held)
        bonus = rules.DAMAGE_TRUMP_BONUS * trumps
        trump_note = f" + {bonus} ({trumps} trump{'s' if trumps > 1 else ''})" if trumps else ""
        summary = (
            f"{result.faces[-1]} + DB {sheet.weapon_db}{trump_note} = {result.damage} damage "
            "before the target's armor"
        )
        return RollResult(
            label=f"Damage: {sheet.weapon or 'No weapon'}",
            request={"key": "damage", "db": sheet.weapon_db, "spend_token": spend},
            dice=dice,
            outcome=Outcome.NONE,
            outcome_label="damage",
            summary=summary,
            total=result.damage,
            changes=changes,
            extra={"token_spent": spend, "token_held": held},
        )

    # ----- export and party ------------------------------------------------------------------------

    def export_data(self, character):
        sheet = character.fivebyfive
        rows = self._rows(character)[: len(SLOTS)]
        data: dict[str, Any] = {}
        positions = {}
        for slot, row in zip(SLOTS, rows, strict=False):
            data[f"descriptor_{slot}"] = row.name
            data[f"exclusive_{slot}"] = row.exclusive_action
            if row.advanced:
                data[f"advanced_{slot}"] = True
            positions[slot] = row.position
        # HP sits in the one place of the six that the descriptors left free.
        free = [p for p in range(len(DEFAULT_ORDER)) if p not in positions.values()]
        order = sorted(positions, key=positions.__getitem__)
        order.insert(min(free[0] if free else len(order), len(order)), HP_SLOT)
        data["order"] = order
        data.update(
            weapon=sheet.weapon,
            armor=sheet.armor,
            shield=sheet.shield,
            offhand_dagger=sheet.offhand_dagger,
        )
        data.update({f"aspect_{name}": getattr(sheet, name) for name in ASPECT_NAMES if getattr(sheet, name)})
        return data

    def play_problems(self, rows, campaign):
        sheet, descriptors = rows["fivebyfive"], rows["descriptors"]
        problems = []
        most = rules.hp_points(sheet.hp_rank)
        if sheet.hp > most:
            problems.append(f"HP ({sheet.hp}) is above the {most} its HP rank gives")
        if sheet.hp < rules.DEAD_AT:
            problems.append(f"HP ({sheet.hp}) is below {rules.DEAD_AT}, where a character is dead")
        if not rules.MIN_AV <= sheet.armor_av <= 0:
            problems.append(f"Armor AV ({sheet.armor_av}) must be from {rules.MIN_AV} to 0")
        if not 0 <= sheet.weapon_db <= 10:
            problems.append(f"Weapon DB ({sheet.weapon_db}) must be from 0 to 10")
        actions = {action for action, _ in EXCLUSIVE_CHOICES}
        for row in descriptors:
            cap = rules.ADVANCED_CAP if row.advanced else rules.BASIC_CAP
            if row.value > cap:
                problems.append(f"Descriptor {row.name}: {row.value} is above the cap of {cap}")
            if row.exclusive_action not in actions:
                problems.append(f"Descriptor {row.name}: {row.exclusive_action!r} is not an exclusive action")
        for value, what in ((rules.BASIC_CAP, "at 16"), (rules.POOR, "at -5 (poor)")):
            count = sum(row.value == value for row in descriptors)
            if count > 1:
                problems.append(f"Only one descriptor may stand {what}; the file has {count}")
        return problems

    def common_roll_keys(self):
        # Every sheet has these two: the untrained check (Five by Five: anything not on the sheet rolls
        # at 0, shifted by the aspect the GM names) and its weapon's damage. Descriptors are each sheet's own.
        return [("untrained", "Untrained (0)"), ("damage", "Weapon damage")]

    def party_summary(self, character):
        sheet = character.fivebyfive
        token = "token" if sheet.doubles_token else "no token"
        return f"HP {sheet.hp}/{rules.hp_points(sheet.hp_rank)} · {token}"

    # ----- experience: the GM awards it, the player spends it (sheets/xp.py) -----------------------

    def xp(self, character):
        return character.fivebyfive.xp

    def xp_award(self, *, character, amount, author):
        """The GM gives the character ``amount`` XP (a session is worth 1, a hard one 2)."""
        if not isinstance(amount, int) or not 1 <= amount <= self.xp_award_max:
            raise ValidationError(f"Award from 1 to {self.xp_award_max} XP at a time.")
        with character_change(character=character, author=author, reason=f"Awarded {amount} XP"):
            sheet = character.fivebyfive
            sheet.refresh_from_db(fields=["xp"])
            sheet.xp += amount
            sheet.save(update_fields=["xp"])

    def xp_spends(self, character):
        sheet = character.fivebyfive
        rows = self._rows(character)
        entries = [(str(row.pk), row.name, row.value, row.advanced) for row in rows]
        entries.append((HP_SLOT, rules.HP_NAME, sheet.hp_rank, False))
        offers = []
        for ident, name, value, advanced in entries:
            shown = rules.hp_points(value) if ident == HP_SLOT else value
            try:
                cost = rules.improvement_cost(value, advanced=advanced)
            except RulesError:
                why = "poor: trade it instead" if value == rules.POOR else "at the top"
                offers.append(XpOffer(f"raise:{ident}", f"{name} {shown} ({why})", None, str(value)))
                continue
            after = rules.hp_points(cost) if ident == HP_SLOT else cost
            offers.append(
                XpOffer(f"raise:{ident}", f"{name} {shown} → {after} ({cost} XP)", cost, str(value))
            )
        new = rules.NEW_DESCRIPTOR_COST
        # The count seen makes a second click (or another tab) a refusal, not a second new descriptor.
        for action, text in [("", "")] + [(a, f" for {a}") for a, _ in EXCLUSIVE_CHOICES if a]:
            key = f"add:{action}" if action else "add"
            label = f"New descriptor{text} at {new}, named below ({new} XP)"
            offers.append(XpOffer(key, label, new, str(len(rows)), needs_name=True))
        poor_ident, poor_name = self._poor(rows, sheet)
        if poor_ident:
            label = (
                f"Trade {poor_name} -5 for the weakness named below "
                f"({rules.POOR_SWAP_COST} XP, with the GM's approval)"
            )
            offers.append(XpOffer("trade", label, rules.POOR_SWAP_COST, poor_ident, needs_name=True))
        return offers

    @staticmethod
    def _saved_rows(character) -> list[FiveByFiveDescriptor]:
        """The descriptors as saved now (under character_change's lock), never a prefetched copy."""
        return list(FiveByFiveDescriptor.objects.filter(character=character))

    @staticmethod
    def _poor(rows, sheet) -> tuple[str, str]:
        """(slot key, name) of the poor descriptor; HP may be it. Blank when there is none to trade."""
        if sheet.hp_rank == rules.POOR:
            return HP_SLOT, rules.HP_NAME
        row = next((r for r in rows if r.value == rules.POOR), None)
        return (str(row.pk), row.name) if row else ("", "")

    @staticmethod
    def _rules_descriptors(rows, sheet) -> list[rules.Descriptor]:
        return [rules.Descriptor(row.name, row.value, row.advanced, None) for row in rows] + [
            rules.Descriptor(rules.HP_NAME, sheet.hp_rank)
        ]

    def xp_spend(self, *, character, key, expected, name="", author):
        """Raise a descriptor (or HP) a rank, add a new one at 2, or trade the poor one, at the book's price.

        ``expected`` is what the player saw (the value, the count of descriptors, the poor one): a second
        click or a stale tab is refused rather than paying twice. ValidationError: nothing is saved.
        """
        kind, _, ident = key.partition(":")
        if kind == "raise":
            return self._xp_raise(character, ident, expected, author)
        if kind == "add" and ident in {a for a, _ in EXCLUSIVE_CHOICES}:
            return self._xp_add(character, ident, expected, name, author)
        if kind == "trade" and not ident:
            return self._xp_trade(character, expected, name, author)
        raise KeyError(key)

    def _xp_raise(self, character, ident, expected, author) -> int:
        sheet = character.fivebyfive
        if ident == HP_SLOT:
            name = rules.HP_NAME
        else:
            try:
                name = self._descriptor(character, ident).name
            except KeyError:
                raise ValidationError("There is no such descriptor on this sheet.") from None
        with character_change(
            character=character, author=author, reason=f"Spent XP: raised {name}"
        ) as record:
            # Read again under character_change's lock, so two requests cannot both spend the same XP.
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            row = next((r for r in rows if str(r.pk) == ident), None)
            current = sheet.hp_rank if ident == HP_SLOT else row.value
            if str(current) != expected:
                shown = rules.hp_points(current) if ident == HP_SLOT else current
                raise ValidationError(f"{name} is {shown} now, not what you saw; look again before spending.")
            try:
                advancement = rules.improve(self._rules_descriptors(rows, sheet), name, xp=sheet.xp)
            except RulesError as error:
                raise ValidationError(f"{name} cannot be raised: {error}") from None
            raised = next(d for d in advancement.descriptors if d.name == name)
            if ident == HP_SLOT:
                # The new hit points come unhurt: current HP rises with the maximum.
                sheet.hp += rules.hp_points(raised.value) - rules.hp_points(sheet.hp_rank)
                sheet.hp_rank = raised.value
            else:
                row.value = raised.value
                row.save(update_fields=["value"])
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp", "hp", "hp_rank"])
            shown = rules.hp_points(raised.value) if ident == HP_SLOT else raised.value
            record["reason"] = f"Spent {advancement.cost} XP: {name} raised to {shown}"
        return advancement.cost

    @staticmethod
    def _new_name(name: str, what: str) -> str:
        name = " ".join((name or "").split())
        if not name:
            raise ValidationError(f"Type the name of the {what} in Name, then spend.")
        if name.casefold() in (rules.HP_NAME.casefold(), "hit points"):
            raise ValidationError("HP is already on every sheet; name something else.")
        return name

    def _xp_add(self, character, action, expected, name, author) -> int:
        name = self._new_name(name, "new descriptor")
        sheet = character.fivebyfive
        with character_change(character=character, author=author, reason=f"Spent XP: new {name}") as record:
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            if str(len(rows)) != expected:
                raise ValidationError("The descriptors changed since you looked; look again before spending.")
            taken = next((r.name for r in rows if r.name.casefold() == name.casefold()), None)
            if taken:
                raise ValidationError(f"'{taken}' is already on this sheet; name something new.")
            exclusive = rules.ExclusiveAction(action) if action else None
            try:
                advancement = rules.add_descriptor(
                    self._rules_descriptors(rows, sheet), name, exclusive=exclusive, xp=sheet.xp
                )
            except RulesError as error:
                raise ValidationError(f"{name} cannot be added: {error}") from None
            FiveByFiveDescriptor.objects.create(
                character=character,
                name=name,
                value=rules.NEW_DESCRIPTOR_COST,
                # After everything ranked at creation (HP took one of the six places).
                position=max([r.position for r in rows] + [len(DEFAULT_ORDER) - 1]) + 1,
                exclusive_action=action,
            )
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp"])
            record["reason"] = (
                f"Spent {advancement.cost} XP: new descriptor {name} {rules.NEW_DESCRIPTOR_COST}"
            )
        return advancement.cost

    def _xp_trade(self, character, expected, name, author) -> int:
        name = self._new_name(name, "new weakness")
        sheet = character.fivebyfive
        with character_change(
            character=character, author=author, reason="Spent XP: traded the poor one"
        ) as record:
            sheet.refresh_from_db()
            rows = self._saved_rows(character)
            ident, old = self._poor(rows, sheet)
            if not ident or ident != expected:
                raise ValidationError(
                    "Your poor descriptor changed since you looked; look again before spending."
                )
            try:
                advancement = rules.swap_poor(self._rules_descriptors(rows, sheet), name, xp=sheet.xp)
            except RulesError as error:
                raise ValidationError(f"{old} cannot be traded: {error}") from None
            if ident == HP_SLOT:
                # HP leaves the poor rank for untrained (10 HP, the new points unhurt); the weakness is new.
                sheet.hp += rules.hp_points(rules.UNTRAINED) - rules.hp_points(sheet.hp_rank)
                sheet.hp_rank = rules.UNTRAINED
                FiveByFiveDescriptor.objects.create(
                    character=character,
                    name=name,
                    value=rules.POOR,
                    position=max([r.position for r in rows] + [len(DEFAULT_ORDER) - 1]) + 1,
                )
            else:
                # The new weakness takes the old one's place; nothing of the old one carries over.
                row = next(r for r in rows if str(r.pk) == ident)
                row.name, row.exclusive_action, row.advanced = name, "", False
                row.save(update_fields=["name", "exclusive_action", "advanced"])
            sheet.xp -= advancement.cost
            sheet.save(update_fields=["xp", "hp", "hp_rank"])
            record["reason"] = f"Spent {advancement.cost} XP: traded {old} for {name}"
        return advancement.cost


system = FiveByFiveSystem()
