from django.apps import AppConfig

from campaigns import hooks


class PlayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "play"
    verbose_name = "Play at the table"

    def ready(self) -> None:
        from . import encounter_views, request_views  # they need the models, ready only now

        register, table, sheet = hooks.register_panel, hooks.TABLE, hooks.SHEET
        register(place=table, name="encounter", render=encounter_views.table_encounter_panel, order=10)
        register(place=table, name="requests", render=request_views.table_requests_panel, order=20)
        register(place=sheet, name="requests", render=request_views.sheet_requests_panel)
