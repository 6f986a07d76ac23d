"""FREE/FALL's export and import (the builder's form data) and the checks an imported file's play state must
pass."""

from __future__ import annotations

from rules import freefall
from rules.dice import RulesError

from .builder import builder_form_data
from .fields import ATTRIBUTE_LABELS, ATTRIBUTES, FreeFallFields, gear_rows_of


class FreeFallTransfer(FreeFallFields):
    """A character out to a file and back."""

    def import_form_data(self, data):
        return builder_form_data(
            name="",
            character_class=data.get("character_class", ""),
            specialty=data.get("specialty", ""),
            body=data.get("body"),
            mind=data.get("mind"),
            ghost=data.get("ghost"),
            gear=data.get("gear", []),
            programs=data.get("programs", []),
        )

    def export_data(self, character):
        sheet = character.freefall
        gear_rows = gear_rows_of(character)
        names = {row.pk: row.name for row in gear_rows}
        return {
            "character_class": sheet.character_class,
            "specialty": sheet.specialty,
            "body": sheet.body_perm,
            "mind": sheet.mind_perm,
            "ghost": sheet.ghost_perm,
            "gear": [
                {
                    "name": row.name,
                    "binds": row.binds,
                    "binding": row.binding,
                    "av": row.av,
                    "dv": row.dv,
                    "high_impact": row.high_impact,
                    "piercing": row.piercing,
                    "hardened": row.hardened,
                    "load_bearing": row.load_bearing,
                    "attached_to": names.get(row.attached_to_id, ""),
                }
                for row in gear_rows
            ],
            "programs": [
                {"name": p.name, "type": p.type, "tier": p.tier} for p in character.ff_programs.all()
            ],
        }

    def play_problems(self, rows, campaign):
        sheet = rows["freefall"]
        problems = []
        for attribute in ATTRIBUTES:
            perm, spent = getattr(sheet, f"{attribute}_perm"), getattr(sheet, f"{attribute}_spent")
            label = ATTRIBUTE_LABELS[attribute]
            if perm > freefall.ATTRIBUTE_MAX:
                problems.append(f"Permanent {label} ({perm}) is above {freefall.ATTRIBUTE_MAX}")
            if spent > perm:
                problems.append(f"{label} spent ({spent}) is more than permanent {label} ({perm})")
        for slot in range(1, freefall.HARM_SLOTS + 1):
            state, kind = getattr(sheet, f"harm{slot}_state"), getattr(sheet, f"harm{slot}_kind")
            try:
                freefall.HarmSlot(state, kind or None)
            except RulesError as error:
                problems.append(f"Harm slot {slot}: {error}")
        return problems
