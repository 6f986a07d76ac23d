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
# The sheet's on/off values, each a select of two: its label and its options.
FLAGS = {
    "doubles_token": ("Doubles token", (("on", "held"), ("", "none"))),
    "shield": ("Shield", YES_NO),
    "offhand_dagger": ("Off-hand dagger", YES_NO),
}
# The weapon and the armor, each picked by name: its label, its options, and the number it sets with it.
KIT = {
    "weapon": ("Weapon", WEAPON_SHORT, "weapon_db", WEAPON_DB),
    "armor": ("Armor", ARMOR_SHORT, "armor_av", ARMOR_AV),
}


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

    def _kit_field(self, character, path, kit):
        label, choices, _, _ = KIT[kit]
        return EditableField(
            path,
            label,
            getattr(character.fivebyfive, kit),
            input_type="select",
            choices=choices,
            kind=self.kind_of(FiveByFiveSheet, kit),
        )

    def _save_kit(self, character, value, kit):
        _, _, number, numbers = KIT[kit]
        sheet = character.fivebyfive
        setattr(sheet, kit, value)
        setattr(sheet, number, numbers[value])
        sheet.save()

    def _flag_field(self, character, path, flag):
        label, choices = FLAGS[flag]
        return EditableField(
            path,
            label,
            "on" if getattr(character.fivebyfive, flag) else "",
            input_type="select",
            choices=choices,
            kind=self.kind_of(FiveByFiveSheet, flag),
        )

    def _save_flag(self, character, value, flag):
        setattr(character.fivebyfive, flag, value == "on")
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
        EditPath("<kit>", values={"kit": KIT}, field=_kit_field, save=_save_kit),
        EditPath("<flag>", values={"flag": FLAGS}, field=_flag_field, save=_save_flag),
    )
