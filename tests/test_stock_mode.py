"""TABLETOP_STOCK=1 serves with the framework as shipped, and the speed layer is off in every part:
Django's own ASGI handler, channels' own in-memory layer and dispatch, no frozen objects. CI runs the
non-browser suite once in that mode, so each part of the speed layer can be switched off when an upgrade
breaks it (docs/architecture.md, "The speed layer")."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PARTS = """
import gc, config.asgi as asgi
from channels.layers import get_channel_layer
from campaigns.consumers import TableConsumer
handler = type(asgi.django_asgi_app)
print(handler.__module__ + "." + handler.__name__)
print(type(get_channel_layer()).__module__ + "." + type(get_channel_layer()).__name__)
print(sorted(TableConsumer._WITHOUT_HOP))
print(gc.get_freeze_count() > 0)
from django.forms.renderers import get_default_renderer
print(type(get_default_renderer()).__module__ + "." + type(get_default_renderer()).__name__)
"""


def parts(stock: bool) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "TABLETOP_STOCK"}}
    if stock:
        env["TABLETOP_STOCK"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", PARTS], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split("\n")[:5]


@pytest.mark.parametrize(
    ("stock", "expected"),
    [
        (
            True,
            [
                "django.core.handlers.asgi.ASGIHandler",
                "channels.layers.InMemoryChannelLayer",
                "[]",
                "False",
                "django.forms.renderers.DjangoTemplates",
            ],
        ),
        (
            False,
            [
                "config.asgi.OneHopHandler",
                "campaigns.layers.TableChannelLayer",
                None,
                "True",
                "campaigns.form_renderer.FormRenderer",
            ],
        ),
    ],
)
def test_each_part_of_the_speed_layer_follows_the_switch(stock, expected):
    got = parts(stock)
    assert [g if e is not None else None for g, e in zip(got, expected, strict=True)] == expected
    if not stock:
        assert "feed.entry" in got[2]  # the consumer skips channels' per-message hop for the broadcasts
