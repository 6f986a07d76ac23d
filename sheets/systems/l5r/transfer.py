"""L5R characters in and out: the export, an import checked by the builder against the budget plus the
XP awarded since, and the seed's two named characters for the demo."""

from __future__ import annotations

from typing import Any

from rules import l5r
from sheets.contract import SheetSystem

from .base import SKILL_FIELDS, WEAPON_CHOICES, odd_die_bonus
from .builder import L5RBuilderForm
from .xp import starting_xp


class L5RTransfer(SheetSystem):
    """Export, import and the demo's sample characters."""

    def demo_form_data(self):
        # The seed's two named characters: Bayushi Shinai (Reflexes 3, Kyujutsu 4, a yumi) and
        # Isawa Tishi (Fire 3, rank 1 of the Isawa Shugenja School).
        shinai = {
            "name": "Bayushi Shinai",
            "school": "Bayushi Bushi School",
            "school_rank": 1,
            "stamina": 2,
            "willpower": 2,
            "strength": 2,
            "perception": 3,
            "agility": 3,
            "intelligence": 2,
            "reflexes": 3,
            "awareness": 3,
            "void": 2,
            "skill_kyujutsu": 4,
            "skill_kenjutsu": 2,
            "skill_defense": 1,
            "skill_iaijutsu": 1,
            "skill_sincerity": 2,
            "skill_sincerity_emphasis": "Deceit",
            "skill_stealth": 1,
            "weapons": ["katana", "wakizashi", "yumi"],
            "notes": "A Scorpion archer who never shows the same face twice.",
        }
        # Tishi is built within the usual 40 XP (36); Shinai, the seed's archer, costs 69, past it.
        tishi = {
            "name": "Isawa Tishi",
            "school": "Isawa Shugenja School",
            "school_rank": 1,
            "stamina": 2,
            "willpower": 2,
            "strength": 2,
            "perception": 2,
            "agility": 3,
            "intelligence": 3,
            "reflexes": 2,
            "awareness": 2,
            "void": 2,
            "skill_spellcraft": 2,
            "skill_lore": 2,
            "skill_lore_emphasis": "Theology",
            "skill_calligraphy": 1,
            "skill_meditation": 1,
            "skill_medicine": 1,
            "skill_etiquette": 1,
            "weapons": ["tanto"],
            "notes": "A Phoenix shugenja with a temper as hot as her Fire.",
        }
        return [shinai, tishi]

    def export_data(self, character):
        sheet = character.l5r
        data: dict[str, Any] = {trait: getattr(sheet, trait) for trait in l5r.TRAITS}
        data.update(void=sheet.void, school=sheet.school, school_rank=sheet.school_rank, armor=sheet.armor)
        data["reduction"] = sheet.reduction
        by_name = {skill.name.lower(): skill for skill in character.l5r_skills.all()}
        for name, info in SKILL_FIELDS.items():
            skill = by_name.get(info.name.lower())
            if skill is not None and skill.rank:
                data[name] = skill.rank
                if skill.emphasis:
                    data[f"{name}_emphasis"] = skill.emphasis
        names = {w.name.lower(): key for key, w in WEAPON_CHOICES.items()}
        weapons = character.l5r_weapons.all()
        data["weapons"] = [names[w.name.lower()] for w in weapons if w.name.lower() in names]
        return data

    def import_form_data(self, data):
        # Only the builder's own field names pass through; everything is validated by the builder.
        allowed = {"school", "school_rank", "void", "armor", "reduction", "weapons", *l5r.TRAITS}
        allowed |= set(SKILL_FIELDS) | {f"{name}_emphasis" for name in SKILL_FIELDS}
        form_data = {key: value for key, value in data.items() if key in allowed}
        if not isinstance(form_data.get("weapons", []), list):
            form_data["weapons"] = [str(form_data["weapons"])]
        return form_data

    def import_builder_form(self, *, campaign, data, play):
        # A played character's ranks cost the budget plus the XP the GM awarded since (xp_left's sum).
        awarded = ((play or {}).get("l5r") or {}).get("xp_awarded") if isinstance(play, dict) else None
        extra = awarded if isinstance(awarded, int) and not isinstance(awarded, bool) and awarded > 0 else 0
        budget = starting_xp(campaign) + extra
        return L5RBuilderForm(data, odd_die_bonus=odd_die_bonus(campaign), budget=budget)
