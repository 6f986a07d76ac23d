"""Five by Five's sheet values: the ranking's slots, the choice lists, the in-place fields and their edits,
and which kind of value each one is for the write policy (``value_kinds``, sheets/policy.py)."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from campaigns.forms import IdField
from rules import fivebyfive as rules
from rules.dice import RulesError
from sheets.contract import EditableField, SheetSystem
from sheets.policy import Kind

from .models import ASPECT_NAMES, FiveByFiveDescriptor, FiveByFiveSheet

SLOTS = ("1", "2", "3", "4", "5")
HP_SLOT = "hp"
DEFAULT_ORDER = (*SLOTS, HP_SLOT)
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


WEAPON_SHORT = tuple((w.name, f"{w.name} (DB {w.db})") for w in rules.WEAPONS)
ARMOR_SHORT = tuple((a.name, f"{a.name} (AV {a.av})") for a in rules.ARMOR)
WEAPON_DB = {w.name: w.db for w in rules.WEAPONS}
ARMOR_AV = {a.name: a.av for a in rules.ARMOR}
YES_NO = (("on", "yes"), ("", "no"))
TOKEN_CHOICES = (("on", "held"), ("", "none"))


def _value_label(value: int) -> str:
    name = rules.RANK_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


class FiveByFiveFields(SheetSystem):
    """The editable fields of the sheet and what an edit of each may change."""

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

    @staticmethod
    def _rows(character) -> list[FiveByFiveDescriptor]:
        return list(character.descriptors.all())

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
