"""The registry of sheet systems: one per campaigns.models.System value."""

from .base import SheetSystem


def _registry() -> dict[str, SheetSystem]:
    from . import triad

    systems = [triad.system]
    for name in ("fivebyfive", "l5r", "freefall"):
        try:
            module = __import__(f"sheets.systems.{name}", fromlist=["system"])
        except ModuleNotFoundError:
            continue
        systems.append(module.system)
    return {system.key: system for system in systems}


SYSTEMS: dict[str, SheetSystem] = _registry()


def system_for(campaign) -> SheetSystem:
    return SYSTEMS[campaign.system]
