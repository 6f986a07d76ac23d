"""The L5R sheet as drawn and edited: its context, each editable field by path, an edit's side effects,
and the write policy's kind of every stored value."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from rules import l5r
from sheets.contract import EditableField, SheetSystem
from sheets.edits import EditPath
from sheets.policy import Kind

from .base import (
    ELEMENTAL_RINGS,
    EMPHASIS_MAX_LENGTH,
    RING_LABELS,
    SCHOOL_MAX_LENGTH,
    WOUNDS_MAX,
    bow,
    melee,
    odd_die_bonus,
    pool_text,
    trait_label,
    wound_note,
    wound_state,
)
from .models import L5RSheet, L5RSkill, L5RWeapon
from .xp import XP_TOTAL_MAX, sheet_cost, starting_xp, xp_left

# Ranks are bought with XP; the school, the armor and the weapons' dice are the builder's; a GM corrects.
#: The sheet's numbers edited in place besides the ranks: attribute -> (label, lowest, highest), where a
#: highest of None is the sheet's Void (no more points spent than it has).
SHEET_NUMBERS = {
    "armor": ("Armor TN bonus", 0, l5r.ARMOR_MAX),
    "reduction": ("Armor Reduction", 0, l5r.REDUCTION_MAX),
    "xp_awarded": ("XP awarded", 0, XP_TOTAL_MAX),
    "void_spent": ("Void points spent", 0, None),
    "school_rank": ("School rank", 1, 10),
    "wounds": ("Wounds", 0, WOUNDS_MAX),
}
#: A weapon's values edited in place: part -> (label, lowest, highest).
WEAPON_NUMBERS = {
    "bow_strength": ("strength", 1, l5r.TRAIT_MAX),
    "rolled": ("rolled dice", 0, l5r.TEN_DICE),
    "kept": ("kept dice", 1, l5r.TEN_DICE),
}

VALUE_KINDS = {
    L5RSheet: {
        **dict.fromkeys((*l5r.TRAITS, "void", "school", "school_rank", "armor", "reduction"), Kind.BUILD),
        "void_spent": Kind.PLAY,
        "wounds": Kind.PLAY,
        "xp_awarded": Kind.GM,
    },
    L5RSkill: dict.fromkeys(("name", "rank", "trait", "emphasis"), Kind.BUILD),
    L5RWeapon: dict.fromkeys(("name", "rolled", "kept", "bow_strength"), Kind.BUILD),
}


def _skills(character):
    return character.l5r_skills.all()


def _bows(character):
    return [weapon for weapon in character.l5r_weapons.all() if weapon.bow_strength is not None]


def _dice_weapons(character):
    """The weapons with rolled and kept dice: every one but a bow."""
    return [weapon for weapon in character.l5r_weapons.all() if weapon.bow_strength is None]


class L5RFields(SheetSystem):
    """The sheet: what its template draws, and the fields a player or the GM edits in place."""

    def context(self, character):
        sheet = character.l5r
        ring_ranks = l5r.rings(sheet.trait_values(), void=sheet.void)
        skills = list(character.l5r_skills.all())
        weapons = list(character.l5r_weapons.all())
        odd = odd_die_bonus(character.campaign)
        return {
            "sheet": sheet,
            "rings": [
                {
                    "ring": ring.value,
                    "label": RING_LABELS[ring],
                    "rank": ring_ranks[ring],
                    "traits": [self.field(character, trait) for trait in l5r.RING_TRAITS[ring]],
                }
                for ring in ELEMENTAL_RINGS
            ],
            "void_field": self.field(character, "void"),
            "void_spent_field": self.field(character, "void_spent"),
            "void_left": max(0, sheet.void - sheet.void_spent),
            "school_fields": [self.field(character, "school"), self.field(character, "school_rank")],
            "wounds_field": self.field(character, "wounds"),
            "wound_rank": wound_state(sheet),
            "wound_note": wound_note(wound_state(sheet)),
            "armor_field": self.field(character, "armor"),
            "reduction_field": self.field(character, "reduction"),
            "armor_tn": l5r.armor_tn(sheet.reflexes, armor=sheet.armor),
            "xp_help": (
                "A trait costs 4 x its new rank, Void 6 x, a skill its new rank, an emphasis 2. "
                "Left to spend: the table's starting budget + XP awarded - what the ranks cost."
            ),
            "l5r_xp": {
                "budget": starting_xp(character.campaign),
                "awarded": sheet.xp_awarded,
                "spent": sheet_cost(sheet, skills),
                "left": xp_left(character, skills),
            },
            "skills": [
                {
                    "row": skill,
                    "rank": self.field(character, f"skill:{skill.pk}:rank"),
                    "emphasis": self.field(character, f"skill:{skill.pk}:emphasis"),
                    "trait_label": trait_label(skill.trait),
                    "pool": self._skill_pool_text(sheet, skill, odd),
                }
                for skill in skills
            ],
            "weapons": [
                {
                    "row": weapon,
                    "fields": [
                        self.field(character, f"weapon:{weapon.pk}:{part}")
                        for part in (
                            ("bow_strength",) if weapon.bow_strength is not None else ("rolled", "kept")
                        )
                    ],
                    "damage": self._weapon_damage_text(sheet, weapon, odd),
                }
                for weapon in weapons
            ],
            "unarmed": pool_text(l5r.damage_pool(l5r.UNARMED, sheet.strength), odd=odd),
            "odd_die_bonus": odd,
            # Rings and Void points left are derived: refresh them whenever an edit or a roll lands.
            "sheet_oob_template": "l5r/sheet.html#derived",
        }

    def _skill_pool_text(self, sheet, skill, odd: bool) -> str:
        trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait, None)
        if trait is None:
            return "-"
        text = pool_text(l5r.skill_pool(trait, skill.rank), odd=odd)
        return text if skill.rank else f"{text} unskilled"

    def _weapon_damage_text(self, sheet, weapon, odd: bool) -> str:
        if weapon.bow_strength is not None:
            return ", ".join(
                f"{arrow.name}: {pool_text(l5r.bow_damage_pool(bow(weapon), arrow), odd=odd)}"
                for arrow in l5r.ARROWS
            )
        return pool_text(l5r.damage_pool(melee(weapon), sheet.strength), odd=odd)

    def _rank_field(self, character, path, attribute):
        # Players buy ranks with XP; typing one in is the GM's correction.
        return EditableField(
            path,
            trait_label(attribute),
            getattr(character.l5r, attribute),
            min=l5r.TRAIT_MIN,
            max=l5r.TRAIT_MAX,
            kind=self.kind_of(L5RSheet, attribute),
        )

    def _number_field(self, character, path, attribute):
        sheet = character.l5r
        label, low, high = SHEET_NUMBERS[attribute]
        return EditableField(
            path,
            label,
            getattr(sheet, attribute),
            min=low,
            max=sheet.void if high is None else high,
            kind=self.kind_of(L5RSheet, attribute),
        )

    def _school_field(self, character, path, attribute):
        return EditableField(
            path,
            "School",
            getattr(character.l5r, attribute),
            input_type="text",
            max_length=SCHOOL_MAX_LENGTH,
            kind=self.kind_of(L5RSheet, attribute),
        )

    def _save_on_sheet(self, character, value, attribute):
        sheet = character.l5r
        setattr(sheet, attribute, value)
        # A lower Void cannot leave more points spent than it has.
        sheet.void_spent = min(sheet.void_spent, sheet.void)
        sheet.save()

    def _skill_rank_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} rank",
            row.rank,
            min=l5r.SKILL_MIN,
            max=l5r.SKILL_MAX,
            kind=self.kind_of(L5RSkill, "rank"),
        )

    def _save_skill_rank(self, character, value, row):
        row.rank = value
        row.save(update_fields=["rank"])

    def _emphasis_field(self, character, path, row):
        return EditableField(
            path,
            f"{row.name} emphasis",
            row.emphasis,
            input_type="text",
            max_length=EMPHASIS_MAX_LENGTH,
            required=False,  # a skill may have no emphasis
            kind=self.kind_of(L5RSkill, "emphasis"),  # each emphasis costs XP: bought with XP
        )

    def _save_emphasis(self, character, value, row):
        if value and not row.rank:
            raise ValidationError(f"An emphasis needs at least one rank in {row.name}.")
        row.emphasis = value
        row.save(update_fields=["emphasis"])

    def _weapon_field(self, character, path, row, part):
        label, low, high = WEAPON_NUMBERS[part]
        return EditableField(
            path,
            f"{row.name} {label}",
            getattr(row, part),
            min=low,
            max=high,
            kind=self.kind_of(L5RWeapon, part),
        )

    def _save_weapon(self, character, value, row, part):
        setattr(row, part, value)
        row.save(update_fields=[part])

    # Each path's field and save are the methods above, called with the system as their self.
    edit_paths = (
        EditPath(
            "<attribute>",
            values={"attribute": (*l5r.TRAITS, "void")},
            field=_rank_field,
            save=_save_on_sheet,
        ),
        EditPath(
            "<attribute>", values={"attribute": SHEET_NUMBERS}, field=_number_field, save=_save_on_sheet
        ),
        EditPath("<attribute>", values={"attribute": ("school",)}, field=_school_field, save=_save_on_sheet),
        EditPath("skill:<id>:rank", rows=_skills, field=_skill_rank_field, save=_save_skill_rank),
        EditPath("skill:<id>:emphasis", rows=_skills, field=_emphasis_field, save=_save_emphasis),
        # A bow has its strength; any other weapon its rolled and kept dice.
        EditPath(
            "weapon:<id>:<part>",
            values={"part": ("bow_strength",)},
            rows=_bows,
            field=_weapon_field,
            save=_save_weapon,
        ),
        EditPath(
            "weapon:<id>:<part>",
            values={"part": ("rolled", "kept")},
            rows=_dice_weapons,
            field=_weapon_field,
            save=_save_weapon,
        ),
    )
