"""Five by Five's export (the builder's form data) and the checks an imported file's play state must pass."""

from __future__ import annotations

from typing import Any

from rules import fivebyfive

from .fields import DEFAULT_ORDER, EXCLUSIVE_CHOICES, HP_SLOT, SLOTS, FiveByFiveFields
from .models import ASPECT_NAMES


class FiveByFiveTransfer(FiveByFiveFields):
    """A character out to a file and back."""

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
        data.update({f"aspect_{name}": getattr(sheet, name) for name in ASPECT_NAMES if getattr(sheet, name)})
        return data

    def play_problems(self, rows, campaign):
        sheet, descriptors = rows["fivebyfive"], rows["descriptors"]
        problems = []
        most = fivebyfive.hp_points(sheet.hp_rank)
        if sheet.hp > most:
            problems.append(f"HP ({sheet.hp}) is above the {most} its HP rank gives")
        if sheet.hp < fivebyfive.DEAD_AT:
            problems.append(f"HP ({sheet.hp}) is below {fivebyfive.DEAD_AT}, where a character is dead")
        if not fivebyfive.MIN_AV <= sheet.armor_av <= 0:
            problems.append(f"Armor AV ({sheet.armor_av}) must be from {fivebyfive.MIN_AV} to 0")
        if not 0 <= sheet.weapon_db <= 10:
            problems.append(f"Weapon DB ({sheet.weapon_db}) must be from 0 to 10")
        actions = {action for action, _ in EXCLUSIVE_CHOICES}
        for row in descriptors:
            cap = fivebyfive.ADVANCED_CAP if row.advanced else fivebyfive.BASIC_CAP
            if row.value > cap:
                problems.append(f"Descriptor {row.name}: {row.value} is above the cap of {cap}")
            if row.exclusive_action not in actions:
                problems.append(f"Descriptor {row.name}: {row.exclusive_action!r} is not an exclusive action")
        for value, what in ((fivebyfive.BASIC_CAP, "at 16"), (fivebyfive.POOR, "at -5 (poor)")):
            count = sum(row.value == value for row in descriptors)
            if count > 1:
                problems.append(f"Only one descriptor may stand {what}; the file has {count}")
        return problems
