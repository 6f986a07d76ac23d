"""System checks for how the app is deployed."""

from django.conf import settings
from django.core import checks

# channels' own in-memory layer, and the project's paced one (campaigns/layers.py): both per process.
IN_MEMORY_LAYERS = {"channels.layers.InMemoryChannelLayer", "campaigns.layers.TableChannelLayer"}
TAG = "channels"


@checks.register(TAG)
def in_memory_layer_with_several_workers(app_configs=None, **kwargs):
    """Each worker process has its own in-memory layer, so a table split over workers goes deaf.

    The worker count is settings.WEB_WORKERS, read from WEB_CONCURRENCY: the variable uvicorn and
    gunicorn both take as their default worker count, so setting it (rather than ``--workers``) lets
    this check see the number. Development (DEBUG on) runs one process and is left alone.
    """
    backend = settings.CHANNEL_LAYERS.get("default", {}).get("BACKEND", "")
    workers = getattr(settings, "WEB_WORKERS", 1)
    if settings.DEBUG or backend not in IN_MEMORY_LAYERS or workers <= 1:
        return []
    return [
        checks.Warning(
            f"{workers} workers share no channel layer: with the in-memory layer a roll reaches only "
            "the browsers connected to the worker that saved it.",
            hint="Set REDIS_URL so every worker uses one Redis layer, or run a single worker "
            "(WEB_CONCURRENCY=1).",
            id="campaigns.W001",
        )
    ]
