"""Helpers shared by the encounter tests (tests/campaigns/test_encounter_*.py)."""

from rules.dice import FixedFaces, Roller


def roller(*faces):
    """A roller that shows exactly these faces, in order."""
    return Roller(FixedFaces(faces))


def reload(encounter):
    """The encounter fresh from the database, and its combatants by name."""
    encounter.refresh_from_db()
    return encounter, {c.name: c for c in encounter.combatants.all()}
