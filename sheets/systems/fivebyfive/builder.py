"""The Five by Five builder: ranking five descriptors and HP, gear, and the optional rules' choices.

The builder posts the ranking as six hidden ``order`` inputs holding slot keys ("1".."5" for the
player's descriptors, "hp" for hit points), most important first; the engine's ``ranked_values`` turns
that order into 6/4/4/2/2/-5 and HP = value + 10. Up/down buttons are submit buttons named ``move``
("<slot>:up" or "<slot>:down"), so ranking works without JavaScript; static/fivebyfive/fivebyfive.js moves the
rows in place and adds dragging.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorDict

from rules import fivebyfive
from sheets.contract import SheetSystem, format_percent

from .fields import (
    ARMOR_AV,
    DEFAULT_ORDER,
    EXCLUSIVE_CHOICES,
    HP_SLOT,
    OPTION_ADVANCED,
    OPTION_ASPECTS,
    RATING_CHOICES,
    SLOTS,
    WEAPON_DB,
    _value_label,
)
from .models import ASPECT_NAMES, FiveByFiveDescriptor, FiveByFiveSheet

PLACEHOLDERS = ("Amateur Chef", "Street Smarts", "Brawler", "Uncanny Reflexes", "Afraid of Heights")

WEAPON_CHOICES = [(w.name, f"{w.name} (DB {w.db}: {', '.join(w.examples)})") for w in fivebyfive.WEAPONS]
ARMOR_CHOICES = [(a.name, f"{a.name} (AV {a.av}: {', '.join(a.examples)})") for a in fivebyfive.ARMOR]


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
                max_length=fivebyfive.NAME_MAX_LENGTH,
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
            value = fivebyfive.CREATION_VALUES[position]
            row = {"slot": slot, "position": position + 1, "value": value, "is_hp": slot == HP_SLOT}
            if slot == HP_SLOT:
                row["display"] = f"{value + fivebyfive.HP_BONUS} HP"
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
        return ",".join(str(v) for v in fivebyfive.CREATION_VALUES)

    @staticmethod
    def value_odds() -> list[tuple[str, str]]:
        """What each starting value is worth on a roll, for the builder's aside."""
        return [
            (_value_label(value), format_percent(fivebyfive.chance(value)))
            for value in sorted(set(fivebyfive.CREATION_VALUES) | {fivebyfive.UNTRAINED}, reverse=True)
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
            if key in (fivebyfive.HP_NAME.casefold(), "hit points"):
                self.add_error(f"descriptor_{slot}", "HP is already on every sheet; name something else.")
            elif key and key in seen:
                self.add_error(f"descriptor_{slot}", f"'{name.strip()}' is ranked twice.")
            seen.add(key)
        if self.errors:
            return data
        ranked = [fivebyfive.HP_NAME if slot == HP_SLOT else " ".join(names[slot].split()) for slot in order]
        exclusive = {}
        for slot in SLOTS:
            if data.get(f"exclusive_{slot}"):
                exclusive[ranked[order.index(slot)]] = fivebyfive.ExclusiveAction(data[f"exclusive_{slot}"])
        advanced = [ranked[order.index(slot)] for slot in SLOTS if data.get(f"advanced_{slot}")]
        try:
            built = fivebyfive.build_character(ranked, advanced=advanced, exclusive=exclusive)
        except fivebyfive.FieldError as error:
            raise ValidationError({self._field_for(error.field, order): str(error)}) from None
        data["aspects"] = {}
        if self.allow_aspects:
            ratings = {
                a: fivebyfive.AspectRating(data.get(f"aspect_{a.value}") or 0) for a in fivebyfive.Aspect
            }
            try:
                data["aspects"] = {a.value: int(r) for a, r in fivebyfive.validate_aspects(ratings).items()}
            except fivebyfive.FieldError as error:
                superior = [a.value for a, r in ratings.items() if r is fivebyfive.AspectRating.SUPERIOR]
                inferior = sum(r is fivebyfive.AspectRating.INFERIOR for r in ratings.values())
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


class FiveByFiveBuilder(SheetSystem):
    """Character creation: the builder form, the rows it creates, the demo characters."""

    def builder_form(self, *, campaign, data=None, trusted=False):
        options = campaign.options or {}
        return FiveByFiveBuilderForm(
            data,
            advanced=bool(options.get(OPTION_ADVANCED)),
            aspects=bool(options.get(OPTION_ASPECTS)),
        )

    def create(self, *, character, cleaned_data):
        built: tuple[fivebyfive.Descriptor, ...] = cleaned_data["built"]
        hp = next(d for d in built if d.is_hp)
        weapon, armor = cleaned_data["weapon"], cleaned_data["armor"]
        FiveByFiveSheet.objects.create(
            character=character,
            hp_rank=hp.value,
            hp=fivebyfive.hp_points(hp.value),
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
