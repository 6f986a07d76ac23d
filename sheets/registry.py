"""The registry of game systems.

``settings.GAME_SYSTEMS`` is the one list of them: each entry is a package ``sheets/systems/<name>/``
and a Django app whose AppConfig is a :class:`GameSystemConfig`. By convention a package holds
``models.py`` (its rows), ``sheet.py`` (``system``, a :class:`~sheets.contract.SheetSystem`),
``combat.py`` (``combat``, a :class:`~sheets.combat.CombatRules`), its templates under
``templates/<name>/`` and, optionally, ``urls.py`` for views only that system has. This module finds them;
nothing else in the app names a system.
"""

from __future__ import annotations

from importlib import import_module

from django.apps import AppConfig, apps

from campaigns import systems as campaign_systems


class GameSystemConfig(AppConfig):
    """The AppConfig of one game system package; ``label`` is the key campaigns store."""

    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        self.sheet = import_module(f"{self.name}.sheet").system
        self.combat = import_module(f"{self.name}.combat").combat
        try:
            self.urls = import_module(f"{self.name}.urls")
        except ModuleNotFoundError as missing:
            if missing.name != f"{self.name}.urls":
                raise
            self.urls = None
        if self.sheet.key != self.label:
            raise ValueError(f"{self.name}: the sheet system's key must be the app label {self.label!r}")
        self.verbose_name = self.sheet.label
        campaign_systems.register(
            campaign_systems.GameSystem(
                key=self.label,
                label=self.sheet.label,
                options=self.sheet.campaign_options,
                dice_box_options=self.sheet.dice_box_options,
            )
        )


def game_systems() -> list[GameSystemConfig]:
    """Every installed game system, in settings order."""
    return [config for config in apps.get_app_configs() if isinstance(config, GameSystemConfig)]


def _config(key: str) -> GameSystemConfig:
    config = apps.get_app_config(key)
    if not isinstance(config, GameSystemConfig):
        raise LookupError(f"{key!r} is not a game system")
    return config


def system_for(campaign):
    """The sheet system (builder, sheet, rolls) of the campaign's game system."""
    return _config(campaign.system).sheet


def combat_for(campaign):
    """The combat rules of the campaign's game system."""
    return _config(campaign.system).combat


def is_system_model(model) -> bool:
    """Whether a model belongs to a game system (its rows are part of a character's sheet)."""
    return isinstance(apps.get_app_config(model._meta.app_label), GameSystemConfig)
