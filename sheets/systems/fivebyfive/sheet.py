"""Five by Five 2.5 on the sheet: five ranked descriptors plus HP, 5x5 rolls with trumps and doubles tokens.

Campaign options (``campaign.options``, booleans, off when missing):

``fbf_advanced``
    The optional Advanced Descriptors rule: the builder lets a descriptor be marked advanced (every
    roll with it takes a -2 rank shift, and it may later climb to 25).
``fbf_aspects``
    The optional Aspects rule. The model keeps an aspect rating on each descriptor row, so the reading
    taken here is per descriptor: a player rates each descriptor's governing aspect Inferior, Average or
    Superior, every Superior must be paid for with an Inferior, and the rating's +1/-1 rank shift is
    applied to every roll of that descriptor.

The builder posts the ranking as six hidden ``order`` inputs holding slot keys ("1".."5" for the
player's descriptors, "hp" for hit points), most important first; the engine's ``ranked_values`` turns
that order into 6/4/4/2/2/-5 and HP = value + 10. Up/down buttons are submit buttons named ``move``
("<slot>:up" or "<slot>:down"), so ranking works without JavaScript; static/fivebyfive/fivebyfive.js moves the
rows in place and adds dragging.

Experience (``xp_award``, ``xp_raise``; readings taken):

- Only the GM awards XP, 1 to 20 at a time (a session is worth 1, a hard one or a long arc's end 2);
  only the character's player spends it, one rank at a time, at the engine's price and caps.
- Raising HP prices it on HP - 10, and current HP rises with the maximum: new hit points come unhurt.
- A spend carries the value the player saw, so a double click or a stale tab is refused, not charged twice.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.utils import ErrorDict

from rules import fivebyfive as rules
from rules.dice import Outcome, Roller, RulesError
from sheets.contract import (
    Bar,
    Die,
    EditableField,
    RollButton,
    RollResult,
    SheetSystem,
    format_percent,
    rules_error_to_validation,
)
from sheets.services import character_change

from .models import FiveByFiveDescriptor, FiveByFiveSheet

SLOTS = ("1", "2", "3", "4", "5")
HP_SLOT = "hp"
DEFAULT_ORDER = (*SLOTS, HP_SLOT)
PLACEHOLDERS = ("Amateur Chef", "Street Smarts", "Brawler", "Uncanny Reflexes", "Afraid of Heights")
OPTION_ADVANCED = "fbf_advanced"
OPTION_ASPECTS = "fbf_aspects"

EXCLUSIVE_CHOICES = [("", "None")] + [(a.value, a.value.capitalize()) for a in rules.ExclusiveAction]
ASPECT_CHOICES = [
    ("", "Average"),
    (FiveByFiveDescriptor.Aspect.SUPERIOR, "Superior (+1 shift)"),
    (FiveByFiveDescriptor.Aspect.INFERIOR, "Inferior (-1 shift)"),
]
ASPECT_RATINGS = {
    "": rules.AspectRating.AVERAGE,
    FiveByFiveDescriptor.Aspect.AVERAGE: rules.AspectRating.AVERAGE,
    FiveByFiveDescriptor.Aspect.SUPERIOR: rules.AspectRating.SUPERIOR,
    FiveByFiveDescriptor.Aspect.INFERIOR: rules.AspectRating.INFERIOR,
}
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
                self.fields[f"aspect_{slot}"] = forms.ChoiceField(
                    choices=ASPECT_CHOICES, required=False, label="Aspect"
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
                row["aspect"] = self[f"aspect_{slot}"] if self.allow_aspects else None
                typed = self.data.get(f"descriptor_{slot}") if self.is_bound else ""
                row["name"] = (typed or "").strip() or f"descriptor {slot}"
                row["errors"] = self.slot_errors(slot)
            rows.append(row)
        return rows

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
        for prefix in ("descriptor", "exclusive", "advanced", "aspect"):
            errors += list(self.errors.get(f"{prefix}_{slot}", []))
        return errors

    # ----- the creation rules ---------------------------------------------------------------------

    def clean(self):
        data = super().clean()
        for slot in SLOTS:
            # Rules the campaign has not turned on are refused, not dropped: an import may carry them.
            if not self.allow_advanced and _truthy(self.data.get(f"advanced_{slot}")):
                self.add_error(f"descriptor_{slot}", "Advanced descriptors are not used in this campaign.")
            if not self.allow_aspects and self.data.get(f"aspect_{slot}") not in (None, "", "average"):
                self.add_error(f"descriptor_{slot}", "Aspects are not used in this campaign.")
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
        if self.allow_aspects:
            superior = [s for s in SLOTS if data.get(f"aspect_{s}") == FiveByFiveDescriptor.Aspect.SUPERIOR]
            inferior = [s for s in SLOTS if data.get(f"aspect_{s}") == FiveByFiveDescriptor.Aspect.INFERIOR]
            if len(superior) > len(inferior):
                raise ValidationError(
                    {
                        f"aspect_{superior[len(inferior)]}": (
                            "Each Superior must be paid for with an Inferior: "
                            f"{len(superior)} Superior but only {len(inferior)} Inferior."
                        )
                    }
                )
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


class FiveByFiveSystem(SheetSystem):
    key = "fivebyfive"
    label = "Five by Five 2.5"
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
            "Each descriptor's aspect is Inferior, Average or Superior (one rank shift).",
        ),
    )
    template = "fivebyfive/sheet.html"
    builder_template = "fivebyfive/builder.html"

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
        order: list[str] = cleaned_data["ranked_slots"]
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
        )
        rows = []
        for position, (slot, descriptor) in enumerate(zip(order, built, strict=True)):
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
                    aspect=cleaned_data.get(f"aspect_{slot}") or "",
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
                    "aspect_label": dict(ASPECT_CHOICES).get(row.aspect, "") if row.aspect else "",
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
            "uses_advanced": bool(options.get(OPTION_ADVANCED)),
            "xp_raise_options": xp_raise_options(character),
            "xp_award_max": XP_AWARD_MAX,
        }

    @staticmethod
    def _raise_cost(value: int, *, advanced: bool = False) -> str:
        """What the next rank costs in XP, or why there is none."""
        if value == rules.POOR:
            return "poor: swap it for 5 XP"
        try:
            return f"next rank: {rules.improvement_cost(value, advanced=advanced)} XP"
        except RulesError:
            return "at the top"

    def _descriptor(self, character, ident: str) -> FiveByFiveDescriptor:
        row = character.descriptors.filter(pk=int(ident) if ident.isdigit() else 0).first()
        if row is None:
            raise KeyError(ident)
        return row

    def field(self, character, path):
        sheet = character.fivebyfive
        if path.startswith("descriptor:"):
            _, ident, attr = (path.split(":") + ["", ""])[:3]
            row = self._descriptor(character, ident)
            if attr == "name":
                return EditableField(
                    path, "Descriptor name", row.name, input_type="text", max_length=rules.NAME_MAX_LENGTH
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
                )
            if attr == "exclusive":
                return EditableField(
                    path,
                    f"{row.name} exclusive action",
                    row.exclusive_action,
                    input_type="select",
                    choices=tuple(EXCLUSIVE_CHOICES),
                )
            raise KeyError(path)
        if path == "hp":
            return EditableField(path, "HP", sheet.hp, min=rules.DEAD_AT, max=rules.hp_points(sheet.hp_rank))
        if path == "hp_rank":
            return EditableField(
                path,
                "Maximum HP",
                sheet.hp_rank,
                input_type="select",
                choices=tuple((str(r), f"{r + rules.HP_BONUS} (rank {r})") for r in rules.BASIC_RANKS),
                coerce=int,
            )
        if path == "xp":
            return EditableField(path, "XP", sheet.xp, min=0, max=9999)
        if path == "doubles_token":
            return EditableField(
                path,
                "Doubles token",
                "on" if sheet.doubles_token else "",
                input_type="select",
                choices=TOKEN_CHOICES,
            )
        if path == "weapon":
            return EditableField(path, "Weapon", sheet.weapon, input_type="select", choices=WEAPON_SHORT)
        if path == "armor":
            return EditableField(path, "Armor", sheet.armor, input_type="select", choices=ARMOR_SHORT)
        if path in ("shield", "offhand_dagger"):
            label = "Shield" if path == "shield" else "Off-hand dagger"
            return EditableField(
                path, label, "on" if getattr(sheet, path) else "", input_type="select", choices=YES_NO
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
        return FiveByFiveOptionsForm(data)

    @staticmethod
    def _spending(character, options) -> tuple[bool, bool]:
        """(asked to spend a token, actually holds one to spend)."""
        asked = bool(options.get("spend_token"))
        return asked, asked and character.fivebyfive.doubles_token

    def _task_button(self, key, label, value, *, options, spend, asked, advanced=False, aspect="", note=""):
        steps = options.get("shift") or 0
        rating = ASPECT_RATINGS.get(aspect, rules.AspectRating.AVERAGE)
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
            details.append(f"aspect {int(rating):+d}")
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
        buttons = [
            self._task_button(
                f"descriptor:{row.pk}",
                f"{row.name} {row.value}",
                row.value,
                options=options,
                spend=spend,
                asked=asked,
                advanced=row.advanced,
                aspect=row.aspect,
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
            name, value, advanced, aspect = row.name, row.value, row.advanced, row.aspect
        elif key == "untrained":
            name, value, advanced, aspect = "Untrained", rules.UNTRAINED, False, ""
        else:
            raise KeyError(key)
        steps = options.get("shift") or 0
        rating = ASPECT_RATINGS.get(aspect, rules.AspectRating.AVERAGE)
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
            request={"key": key, "shift": steps, "spend_token": spend, "target": result.target},
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
            if row.aspect:
                data[f"aspect_{slot}"] = row.aspect
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
        return data

    def party_summary(self, character):
        sheet = character.fivebyfive
        token = "token" if sheet.doubles_token else "no token"
        return f"HP {sheet.hp}/{rules.hp_points(sheet.hp_rank)} · {token}"


system = FiveByFiveSystem()


# ----- experience: the GM awards it, the player spends it ------------------------------------------

#: The most XP one award may give: a session is worth 1 or 2, a long arc a few more.
XP_AWARD_MAX = 20


def _rules_descriptors(character) -> list[rules.Descriptor]:
    sheet = character.fivebyfive
    return [
        rules.Descriptor(row.name, row.value, row.advanced, None) for row in character.descriptors.all()
    ] + [rules.Descriptor(rules.HP_NAME, sheet.hp_rank)]


def xp_raise_options(character) -> list[dict[str, Any]]:
    """Every descriptor (and HP) with what raising it a rank costs, or why it cannot be raised."""
    sheet = character.fivebyfive
    rows = [(str(row.pk), row.name, row.value, row.advanced) for row in character.descriptors.all()]
    rows.append((HP_SLOT, rules.HP_NAME, sheet.hp_rank, False))
    options = []
    for key, name, value, advanced in rows:
        shown = rules.hp_points(value) if key == HP_SLOT else value
        try:
            cost = rules.improvement_cost(value, advanced=advanced)
        except RulesError:
            why = "poor: swap it instead" if value == rules.POOR else "at the top"
            label = f"{name} {shown} ({why})"
            options.append({"key": key, "value": value, "label": label, "cost": None})
            continue
        after = rules.hp_points(cost) if key == HP_SLOT else cost
        options.append(
            {"key": key, "value": value, "label": f"{name} {shown} → {after} ({cost} XP)", "cost": cost}
        )
    return options


def xp_award(*, character, amount: int, author) -> None:
    """The GM gives the character ``amount`` XP (a session is worth 1, a hard one 2)."""
    if not isinstance(amount, int) or not 1 <= amount <= XP_AWARD_MAX:
        raise ValidationError(f"Award from 1 to {XP_AWARD_MAX} XP at a time.")
    with character_change(character=character, author=author, reason=f"Awarded {amount} XP"):
        sheet = character.fivebyfive
        sheet.xp += amount
        sheet.save(update_fields=["xp"])


def xp_raise(*, character, key: str, expected_value: int, author) -> int:
    """Spend XP to raise one descriptor (or HP) a rank, with the engine's costs and caps; the cost.

    ``expected_value`` is the value the player saw: a second click (or another tab) finds it raised
    already and is refused, rather than paying twice. Raises ValidationError; nothing is then saved.
    """
    sheet = character.fivebyfive
    if key == HP_SLOT:
        name = rules.HP_NAME
    else:
        row = character.descriptors.filter(pk=int(key) if key.isdigit() else 0).first()
        if row is None:
            raise ValidationError("There is no such descriptor on this sheet.")
        name = row.name
    with character_change(character=character, author=author, reason=f"Spent XP: raised {name}") as record:
        # Read again under character_change's lock, so two requests cannot both spend the same XP.
        sheet.refresh_from_db()
        current = sheet.hp_rank if key == HP_SLOT else character.descriptors.get(pk=row.pk).value
        if current != expected_value:
            shown = rules.hp_points(current) if key == HP_SLOT else current
            raise ValidationError(f"{name} is {shown} now, not what you saw; look again before spending.")
        try:
            advancement = rules.improve(_rules_descriptors(character), name, xp=sheet.xp)
        except RulesError as error:
            raise ValidationError(f"{name} cannot be raised: {error}") from None
        raised = next(d for d in advancement.descriptors if d.name == name)
        if key == HP_SLOT:
            # The new hit points come unhurt: current HP rises with the maximum.
            sheet.hp += rules.hp_points(raised.value) - rules.hp_points(sheet.hp_rank)
            sheet.hp_rank = raised.value
        else:
            row.value = raised.value
            row.save(update_fields=["value"])
        sheet.xp -= advancement.cost
        sheet.save(update_fields=["xp", "hp", "hp_rank"])
        shown = rules.hp_points(raised.value) if key == HP_SLOT else raised.value
        record["reason"] = f"Spent {advancement.cost} XP: {name} raised to {shown}"
    return advancement.cost
