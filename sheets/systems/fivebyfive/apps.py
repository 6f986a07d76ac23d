from campaigns import hooks
from sheets import registry


class FiveByFiveConfig(registry.GameSystemConfig):
    name = "sheets.systems.fivebyfive"
    label = "fivebyfive"

    def ready(self) -> None:
        super().ready()
        from . import healing  # needs the models loaded, as the sheet module imported above does

        hooks.register_panel(
            place=hooks.SHEET, name="fivebyfive-healing", render=healing.healing_panel, order=20
        )
