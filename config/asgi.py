import logging
import os

from django.core import checks
from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from campaigns.checks import TAG as DEPLOYMENT_CHECKS  # noqa: E402

# uvicorn runs no system checks; say at start-up what manage.py check would (a deaf multi-worker table).
for problem in checks.run_checks(tags=[DEPLOYMENT_CHECKS]):
    logging.getLogger("config.asgi").warning("%s", problem)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from campaigns.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
