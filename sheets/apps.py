from django.apps import AppConfig

from campaigns import hooks


class SheetsConfig(AppConfig):
    name = "sheets"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import portraits, recent, selectors, views  # they need the models, ready only now

        hooks.register_roll_subjects(selectors.roll_subjects)
        hooks.register_table_characters(selectors.player_characters)
        hooks.register_feed_portrait(portraits.feed_portrait)
        hooks.register_panel(place=hooks.TABLE, name="party", render=views.party_panel, order=30)
        hooks.register_panel(place=hooks.SHEET, name="recent", render=recent.recent_rolls_panel, order=90)
