"""Five by Five's sheet values: the ranking's slots, the choice lists, the in-place fields and their edits,
and which kind of value each one is for the write policy (``value_kinds``, sheets/policy.py)."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from campaigns.forms import IdField
from rules import fivebyfive
from rules.dice import RulesError
from sheets.contract import EditableField, SheetSystem
from sheets.edits import EditPath, option_on
from sheets.policy import Kind

from .models import ASPECT_NAMES, FiveByFiveDescriptor, FiveByFiveSheet

SLOTS = ("1", "2", "3", "4", "5")
HP_SLOT = "hp"
DEFAULT_ORDER = (*SLOTS, HP_SLOT)
OPTION_ADVANCED = "fbf_advanced"
OPTION_ASPECTS = "fbf_aspects"

EXCLUSIVE_CHOICES = [("", "None")] + [(a.value, a.value.capitalize()) for a in fivebyfive.ExclusiveAction]
RATING_CHOICES = tuple(
    (str(int(r)), r.name.capitalize() + (f" ({int(r):+d} shift)" if r else ""))
    for r in fivebyfive.AspectRating
)


def aspect_ratings(sheet) -> dict[fivebyfive.Aspect, fivebyfive.AspectRating]:
    """The sheet's four aspects as the engine reads them."""
    return {a: fivebyfive.AspectRating(getattr(sheet, a.value)) for a in fivebyfive.Aspect}


def aspect_rating(sheet, name: str) -> fivebyfive.AspectRating:
    """The rating of the aspect ``name`` ("" for none named: Average, no shift)."""
    return (
        fivebyfive.AspectRating(getattr(sheet, name))
        if name in ASPECT_NAMES
        else fivebyfive.AspectRating.AVERAGE
    )


WEAPON_SHORT = tuple((w.name, f"{w.name} (DB {w.db})") for w in fivebyfive.WEAPONS)
ARMOR_SHORT = tuple((a.name, f"{a.name} (AV {a.av})") for a in fivebyfive.ARMOR)
WEAPON_DB = {w.name: w.db for w in fivebyfive.WEAPONS}
ARMOR_AV = {a.name: a.av for a in fivebyfive.ARMOR}
YES_NO = (("on", "yes"), ("", "no"))
TOKEN_CHOICES = (("on", "held"), ("", "none"))
#: The yes/no gear on the sheet: attribute -> label.
GEAR_FLAGS = {"shield": "Shield", "offhand_dagger": "Off-hand dagger"}


def _value_label(value: int) -> str:
    name = fivebyfive.RANK_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


def _descriptor_rows(character) -> list[FiveByFiveDescriptor]:
    return list(character.descriptors.all())


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

    _rows = staticmethod(_descriptor_rows)

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
        return option_on(character, option)

    def _check_descriptors(self, character, rows, hp_rank: int) -> None:
        """Refuse a sheet the rules do not allow (two poor descriptors, three 12s...)."""
        descriptors = [fivebyfive.Descriptor(row.name, row.value, row.advanced, None) for row in rows] + [
            fivebyfive.Descriptor(fivebyfive.HP_NAME, hp_rank)
        ]
        try:
            fivebyfive.validate_descriptors(descriptors)
        except RulesError as error:
            raise ValidationError(str(error)) from None

    def _check_edited_row(self, character, row) -> None:
        """The rules' check of the sheet's descriptors with ``row`` as just edited."""
        rows = [row if other.pk == row.pk else other for other in self._rows(character)]
        self._check_descriptors(character, rows, character.fivebyfive.hp_rank)

    def _aspect_field(self, character, path, aspect):
        # Set at creation; afterwards the GM's (a sheet built before the table took up aspects, say).
        return EditableField(
            path,
            aspect.capitalize(),
            str(getattr(character.fivebyfive, aspect)),
            input_type="select",
            choices=RATING_CHOICES,
            coerce=int,
            kind=self.kind_of(FiveByFiveSheet, aspect),
        )

    def _save_aspect(self, character, value, aspect):
        sheet = character.fivebyfive
        ratings = {**aspect_ratings(sheet), fivebyfive.Aspect(aspect): fivebyfive.AspectRating(value)}
        try:
            fivebyfive.validate_aspects(ratings)
        except RulesError as error:
            raise ValidationError(str(error)) from None
        setattr(sheet, aspect, value)
        sheet.save(update_fields=[aspect])

    def _descriptor_name_field(self, character, path, row):
        return EditableField(
            path,
            "Descriptor name",
            row.name,
            input_type="text",
            max_length=fivebyfive.NAME_MAX_LENGTH,
            kind=self.kind_of(FiveByFiveDescriptor, "name"),
        )

    def _save_descriptor_name(self, character, value, row):
        if value.casefold() in (fivebyfive.HP_NAME.casefold(), "hit points"):
            raise ValidationError("HP is already on every sheet; name something else.")
        if any(r.pk != row.pk and r.name.casefold() == value.casefold() for r in self._rows(character)):
            raise ValidationError(f"'{value}' is already on this sheet.")
        row.name = value
        row.save()

    def _descriptor_value_field(self, character, path, row):
        ranks = fivebyfive.RANKS if row.advanced else fivebyfive.BASIC_RANKS
        return EditableField(
            path,
            f"{row.name} value",
            row.value,
            input_type="select",
            choices=tuple((str(r), _value_label(r)) for r in ranks if r != fivebyfive.UNTRAINED),
            coerce=int,
            kind=self.kind_of(FiveByFiveDescriptor, "value"),
        )

    def _save_descriptor_value(self, character, value, row):
        row.value = value
        self._check_edited_row(character, row)
        row.save()

    def _exclusive_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} exclusive action",
            row.exclusive_action,
            input_type="select",
            choices=tuple(EXCLUSIVE_CHOICES),
            kind=self.kind_of(FiveByFiveDescriptor, "exclusive_action"),
        )

    def _save_exclusive(self, character, value, row):
        row.exclusive_action = value
        row.save()

    def _advanced_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} advanced",
            "on" if row.advanced else "",
            input_type="select",
            choices=YES_NO,
            kind=self.kind_of(FiveByFiveDescriptor, "advanced"),
        )

    def _save_advanced(self, character, value, row):
        row.advanced = value == "on"
        self._check_edited_row(character, row)
        row.save()

    def _hp_field(self, character, path):
        sheet = character.fivebyfive
        return EditableField(
            path,
            "HP",
            sheet.hp,
            min=fivebyfive.DEAD_AT,
            max=fivebyfive.hp_points(sheet.hp_rank),
            kind=self.kind_of(FiveByFiveSheet, "hp"),
        )

    def _save_hp(self, character, value):
        character.fivebyfive.hp = value
        character.fivebyfive.save()

    def _hp_rank_field(self, character, path):
        return EditableField(
            path,
            "Maximum HP",
            character.fivebyfive.hp_rank,
            input_type="select",
            choices=tuple((str(r), f"{r + fivebyfive.HP_BONUS} (rank {r})") for r in fivebyfive.BASIC_RANKS),
            coerce=int,
            kind=self.kind_of(FiveByFiveSheet, "hp_rank"),
        )

    def _save_hp_rank(self, character, value):
        sheet = character.fivebyfive
        self._check_descriptors(character, self._rows(character), value)
        sheet.hp_rank = value
        # A lower maximum drags current HP down with it; a higher one leaves the wounds alone.
        sheet.hp = min(sheet.hp, fivebyfive.hp_points(value))
        sheet.save()

    def _xp_field(self, character, path):
        return EditableField(
            path, "XP", character.fivebyfive.xp, min=0, max=9999, kind=self.kind_of(FiveByFiveSheet, "xp")
        )

    def _save_xp(self, character, value):
        character.fivebyfive.xp = value
        character.fivebyfive.save()

    def _token_field(self, character, path):
        return EditableField(
            path,
            "Doubles token",
            "on" if character.fivebyfive.doubles_token else "",
            input_type="select",
            choices=TOKEN_CHOICES,
            kind=self.kind_of(FiveByFiveSheet, "doubles_token"),
        )

    def _save_token(self, character, value):
        character.fivebyfive.doubles_token = value == "on"
        character.fivebyfive.save()

    def _weapon_field(self, character, path):
        return EditableField(
            path,
            "Weapon",
            character.fivebyfive.weapon,
            input_type="select",
            choices=WEAPON_SHORT,
            kind=self.kind_of(FiveByFiveSheet, "weapon"),
        )

    def _save_weapon(self, character, value):
        sheet = character.fivebyfive
        sheet.weapon, sheet.weapon_db = value, WEAPON_DB[value]
        sheet.save()

    def _armor_field(self, character, path):
        return EditableField(
            path,
            "Armor",
            character.fivebyfive.armor,
            input_type="select",
            choices=ARMOR_SHORT,
            kind=self.kind_of(FiveByFiveSheet, "armor"),
        )

    def _save_armor(self, character, value):
        sheet = character.fivebyfive
        sheet.armor, sheet.armor_av = value, ARMOR_AV[value]
        sheet.save()

    def _gear_flag_field(self, character, path, attribute):
        return EditableField(
            path,
            GEAR_FLAGS[attribute],
            "on" if getattr(character.fivebyfive, attribute) else "",
            input_type="select",
            choices=YES_NO,
            kind=self.kind_of(FiveByFiveSheet, attribute),
        )

    def _save_gear_flag(self, character, value, attribute):
        setattr(character.fivebyfive, attribute, value == "on")
        character.fivebyfive.save()

    # Each path's field and save are the methods above, called with the system as their self.
    edit_paths = (
        EditPath(
            "aspect:<aspect>",
            values={"aspect": ASPECT_NAMES},
            option=OPTION_ASPECTS,
            field=_aspect_field,
            save=_save_aspect,
        ),
        EditPath(
            "descriptor:<id>:name",
            rows=_descriptor_rows,
            field=_descriptor_name_field,
            save=_save_descriptor_name,
        ),
        EditPath(
            "descriptor:<id>:value",
            rows=_descriptor_rows,
            field=_descriptor_value_field,
            save=_save_descriptor_value,
        ),
        EditPath(
            "descriptor:<id>:exclusive", rows=_descriptor_rows, field=_exclusive_field, save=_save_exclusive
        ),
        EditPath(
            "descriptor:<id>:advanced",
            rows=_descriptor_rows,
            option=OPTION_ADVANCED,
            field=_advanced_field,
            save=_save_advanced,
        ),
        EditPath("hp", field=_hp_field, save=_save_hp),
        EditPath("hp_rank", field=_hp_rank_field, save=_save_hp_rank),
        EditPath("xp", field=_xp_field, save=_save_xp),
        EditPath("doubles_token", field=_token_field, save=_save_token),
        EditPath("weapon", field=_weapon_field, save=_save_weapon),
        EditPath("armor", field=_armor_field, save=_save_armor),
        EditPath(
            "<attribute>", values={"attribute": GEAR_FLAGS}, field=_gear_flag_field, save=_save_gear_flag
        ),
    )
