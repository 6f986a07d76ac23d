"""The registry of sheet systems: one per campaigns.models.System value."""

from . import fivebyfive, freefall, l5r, triad
from .base import SheetSystem

SYSTEMS: dict[str, SheetSystem] = {
    module.system.key: module.system for module in (fivebyfive, freefall, l5r, triad)
}


def system_for(campaign) -> SheetSystem:
    return SYSTEMS[campaign.system]
