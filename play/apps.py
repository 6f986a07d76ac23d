from django.apps import AppConfig
from django.db.models.signals import post_delete

from campaigns import hooks


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Play at the table"

    def ready(self) -> None:
        from . import (  # models first
            encounter_panel,
            encounter_views,
            portraits,
            request_views,
            saved_roll_views,
        )

        combatant = self.get_model("Combatant")
        post_delete.connect(portraits.combatant_deleted, sender=combatant, dispatch_uid="npc-portrait-file")

        register, table, sheet = hooks.register_panel, hooks.TABLE, hooks.SHEET
        register(place=table, name="turn", render=encounter_views.table_turn_panel, order=5)
        register(place=sheet, name="turn", render=encounter_views.sheet_turn_panel, order=-10)
        register(place=table, name="encounter", render=encounter_panel.table_encounter_panel, order=10)
        hooks.register_seat_views(panel="encounter", render=encounter_panel.seat_views)
        register(place=table, name="requests", render=request_views.table_requests_panel, order=20)
        register(place=sheet, name="requests", render=request_views.sheet_requests_panel)
        register(place=table, name="saved", render=saved_roll_views.table_panel, order=25)
        register(place=sheet, name="saved", render=saved_roll_views.sheet_panel, order=10)
