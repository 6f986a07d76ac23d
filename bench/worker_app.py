"""The app as bench/many_tables.py serves it under ``uvicorn --workers N``: each worker imports this.

``config.asgi``'s application in production mode, on the database and Redis the environment names, with
the bench's channel-layer prefix (LAYER_PREFIX) and the rate limits out of the way (the fairness bench
measures the limiter; here a few accounts play hundreds of tables).
"""

import os

import config.settings as project_settings

project_settings.CHANNEL_LAYERS["default"].setdefault("CONFIG", {})["prefix"] = os.environ["LAYER_PREFIX"]
try:
    from campaigns.limits import DEFAULT_RATE_LIMITS
except ImportError:
    DEFAULT_RATE_LIMITS = {}
project_settings.TABLE_RATE_LIMITS = {name: (10**9, 1) for name in {*DEFAULT_RATE_LIMITS, "roll", "chat"}}
project_settings.TABLE_SOCKETS_PER_USER = 10**6

from config.asgi import application  # noqa: E402,F401 (after the settings above)
