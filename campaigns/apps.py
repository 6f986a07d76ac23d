from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.signals import user_logged_out
from django.db.models.signals import pre_save
from django.urls import register_converter


class CampaignsConfig(AppConfig):
    name = "campaigns"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Imported here, not at the top: they need the app registry (models, auth views) to be ready.
        from . import accounts, checks  # noqa: F401  (checks registers itself on import)
        from .forms import IdConverter

        # Before any app's urls.py is read (the game systems' are, in their own ready()).
        register_converter(IdConverter, "id")

        user_logged_out.connect(accounts.close_sockets_on_logout, dispatch_uid="campaigns-logout-sockets")
        pre_save.connect(
            accounts.close_sockets_on_password_change,
            sender=settings.AUTH_USER_MODEL,
            dispatch_uid="campaigns-password-sockets",
        )
