"""Helpers shared by the encounter tests (tests/campaigns/test_encounter_*.py)."""

from campaigns.systems import SHOW_NPC_NUMBERS
from rules.dice import FixedFaces, Roller


def roller(*faces):
    """A roller that shows exactly these faces, in order."""
    return Roller(FixedFaces(faces))


def reload(encounter):
    """The encounter fresh from the database, and its combatants by name."""
    encounter.refresh_from_db()
    return encounter, {c.name: c for c in encounter.combatants.all()}


def show_npc_numbers(campaign):
    """Turn on the campaign's "Players see NPC numbers": odds against an NPC, which tell its numbers,
    show to players only then (tests/campaigns/test_npc_numbers.py plays the default, off)."""
    campaign.options = {**campaign.options, SHOW_NPC_NUMBERS: True}
    campaign.save(update_fields=["options"])
