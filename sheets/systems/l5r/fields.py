"""The L5R sheet as drawn and edited: its context, each editable field by path, an edit's side effects,
and the write policy's kind of every stored value."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from campaigns.forms import row_id
from rules import l5r as rules
from sheets.contract import EditableField, SheetSystem
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
# A weapon's values edited in place: part -> (label, lowest, highest, a bow's?).
WEAPON_FIELDS = {
    "bow_strength": ("strength", 1, rules.TRAIT_MAX, True),
    "rolled": ("rolled dice", 0, rules.TEN_DICE, False),
    "kept": ("kept dice", 1, rules.TEN_DICE, False),
}

VALUE_KINDS = {
    L5RSheet: {
        **dict.fromkeys((*rules.TRAITS, "void", "school", "school_rank", "armor", "reduction"), Kind.BUILD),
        "void_spent": Kind.PLAY,
        "wounds": Kind.PLAY,
        "xp_awarded": Kind.GM,
    },
    L5RSkill: dict.fromkeys(("name", "rank", "trait", "emphasis"), Kind.BUILD),
    L5RWeapon: dict.fromkeys(("name", "rolled", "kept", "bow_strength"), Kind.BUILD),
}


class L5RFields(SheetSystem):
    """The sheet: what its template draws, and the fields a player or the GM edits in place."""

    def context(self, character):
        sheet = character.l5r
        ring_ranks = rules.rings(sheet.trait_values(), void=sheet.void)
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
                    "traits": [self.field(character, trait) for trait in rules.RING_TRAITS[ring]],
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
            "armor_tn": rules.armor_tn(sheet.reflexes, armor=sheet.armor),
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
            "unarmed": pool_text(rules.damage_pool(rules.UNARMED, sheet.strength), odd=odd),
            "odd_die_bonus": odd,
            # Rings and Void points left are derived: refresh them whenever an edit or a roll lands.
            "sheet_oob_template": "l5r/sheet.html#derived",
        }

    def _skill_pool_text(self, sheet, skill, odd: bool) -> str:
        trait = sheet.void if skill.trait == "void" else getattr(sheet, skill.trait, None)
        if trait is None:
            return "-"
        text = pool_text(rules.skill_pool(trait, skill.rank), odd=odd)
        return text if skill.rank else f"{text} unskilled"

    def _weapon_damage_text(self, sheet, weapon, odd: bool) -> str:
        if weapon.bow_strength is not None:
            return ", ".join(
                f"{arrow.name}: {pool_text(rules.bow_damage_pool(bow(weapon), arrow), odd=odd)}"
                for arrow in rules.ARROWS
            )
        return pool_text(rules.damage_pool(melee(weapon), sheet.strength), odd=odd)

    def field(self, character, path):
        sheet = character.l5r
        if path in rules.TRAITS or path == "void":
            # Players buy ranks with XP; typing one in is the GM's correction.
            return EditableField(
                path,
                trait_label(path),
                getattr(sheet, path),
                min=rules.TRAIT_MIN,
                max=rules.TRAIT_MAX,
                kind=self.kind_of(L5RSheet, path),
            )
        if path in ("armor", "reduction", "xp_awarded", "void_spent", "school_rank", "wounds"):
            label, top = {
                "armor": ("Armor TN bonus", rules.ARMOR_MAX),
                "reduction": ("Armor Reduction", rules.REDUCTION_MAX),
                "xp_awarded": ("XP awarded", XP_TOTAL_MAX),
                "void_spent": ("Void points spent", sheet.void),
                "school_rank": ("School rank", 10),
                "wounds": ("Wounds", WOUNDS_MAX),
            }[path]
            low = 1 if path == "school_rank" else 0
            return EditableField(
                path, label, getattr(sheet, path), min=low, max=top, kind=self.kind_of(L5RSheet, path)
            )
        if path == "school":
            return EditableField(
                path,
                "School",
                sheet.school,
                input_type="text",
                max_length=SCHOOL_MAX_LENGTH,
                kind=self.kind_of(L5RSheet, "school"),
            )
        kind, _, rest = path.partition(":")
        ident, _, part = rest.partition(":")
        if kind == "skill" and row_id(ident):
            skill = next((s for s in character.l5r_skills.all() if s.pk == row_id(ident)), None)
            if skill is not None and part == "rank":
                return EditableField(
                    path,
                    f"{skill.name} rank",
                    skill.rank,
                    min=rules.SKILL_MIN,
                    max=rules.SKILL_MAX,
                    kind=self.kind_of(L5RSkill, "rank"),
                )
            if skill is not None and part == "emphasis":
                return EditableField(
                    path,
                    f"{skill.name} emphasis",
                    skill.emphasis,
                    input_type="text",
                    max_length=EMPHASIS_MAX_LENGTH,
                    required=False,  # a skill may have no emphasis
                    kind=self.kind_of(L5RSkill, "emphasis"),  # each emphasis costs XP: bought with XP
                )
        if kind == "weapon" and row_id(ident):
            weapon = next((w for w in character.l5r_weapons.all() if w.pk == row_id(ident)), None)
            spec = WEAPON_FIELDS.get(part)
            # A bow has its strength; any other weapon its rolled and kept dice.
            if weapon is not None and spec is not None and (weapon.bow_strength is not None) == spec[3]:
                label, low, high, _ = spec
                return EditableField(
                    path,
                    f"{weapon.name} {label}",
                    getattr(weapon, part),
                    min=low,
                    max=high,
                    kind=self.kind_of(L5RWeapon, part),
                )
        raise KeyError(path)

    def apply_edit(self, character, path, value):
        kind, _, rest = path.partition(":")
        if kind == "skill":
            ident, _, part = rest.partition(":")
            skill = character.l5r_skills.get(pk=int(ident))
            if part == "emphasis" and value and not skill.rank:
                raise ValidationError(f"An emphasis needs at least one rank in {skill.name}.")
            setattr(skill, part, value)
            skill.save(update_fields=[part])
            return
        if kind == "weapon":
            ident, _, part = rest.partition(":")
            weapon = character.l5r_weapons.get(pk=int(ident))
            setattr(weapon, part, value)
            weapon.save(update_fields=[part])
            return
        sheet = character.l5r
        setattr(sheet, path, value)
        # A lower Void cannot leave more points spent than it has.
        sheet.void_spent = min(sheet.void_spent, sheet.void)
        sheet.save()
