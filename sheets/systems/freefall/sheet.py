"""FREE/FALL A5 on the sheet: a d20 pool shrunk by harm, attributes bound by gear and programs, hacking.

The builder and its forms (builder.py), the sheet's fields and derived numbers (fields.py), rolls (rolls.py)
and export and import (transfer.py) live beside this module; the system joins them. The kit page is kit.py.
"""

from __future__ import annotations

from rules import freefall

from .builder import (
    FreeFallBuilder,
)
from .fields import gear_rows_of
from .rolls import FreeFallRolls
from .transfer import FreeFallTransfer


def _tags(item: freefall.Gear) -> list[tuple[str, str]]:
    """Each tag's name (with its number) and what it does, for the gear list."""
    out = []
    for tag in item.tags:
        name, text = freefall.GEAR_TAGS[tag]
        if tag is freefall.GearTag.ATTRIBUTE_BINDING:
            name = f"Binding {item.binding} {item.binds.label if item.binds else ''}".strip()
        elif tag is freefall.GearTag.LOAD_BEARING:
            name = f"Load Bearing {item.load_bearing}"
        out.append((name, text))
    return out


class FreeFallSystem(FreeFallBuilder, FreeFallRolls, FreeFallTransfer):
    key = "freefall"
    label = "FREE/FALL A5"
    demo_campaign = ("Neon Drop", "A heist in an arcology that never sleeps. FREE/FALL demo table.")
    template = "freefall/sheet.html"
    builder_template = "freefall/builder.html"
    stylesheet = "freefall/freefall.css"

    def context(self, character):
        sheet = character.freefall
        gear_rows = gear_rows_of(character)
        state = self.state(character, gear_rows=gear_rows)
        programs = list(character.ff_programs.all())
        names = {row.pk: row.name for row in gear_rows}
        return {
            "sheet": sheet,
            "ff": state,
            "attributes": [
                {
                    "key": a.value,
                    "label": a.label,
                    "covers": a.covers,
                    "perm": self.field(character, f"{a.value}_perm"),
                    "spent": self.field(character, f"{a.value}_spent"),
                    "binding": state.binding[a],
                    "current_max": state.current_max[a],
                    "current": state.current[a],
                }
                for a in freefall.Attribute
            ],
            "harm_slots": [
                {
                    "index": slot,
                    "state": self.field(character, f"harm{slot}_state"),
                    "kind": self.field(character, f"harm{slot}_kind"),
                    "filled": getattr(sheet, f"harm{slot}_state") != freefall.SlotState.EMPTY,
                }
                for slot in range(1, freefall.HARM_SLOTS + 1)
            ],
            "gear_items": [
                {
                    "row": row,
                    "tags": _tags(item),
                    "attached_to": names.get(row.attached_to_id, ""),
                    "condition": self.field(character, f"gear:{row.pk}:condition"),
                }
                for row, item in zip(gear_rows, state.gear, strict=True)
            ],
            "programs": [
                {
                    "row": row,
                    "type": freefall.ProgramType(row.type),
                    "tier": freefall.ProgramTier(row.tier),
                    "binding": freefall.program_binding(row.type, row.tier),
                    "compromised": self.field(character, f"program:{row.pk}:compromised"),
                }
                for row in programs
            ],
            "sheet_oob_template": "freefall/_live.html#oob",
        }

    def party_summary(self, character):
        state = self.state(character)
        return f"Harm {state.filled}/{freefall.HARM_SLOTS} · pool {state.pool}"


system = FreeFallSystem()
