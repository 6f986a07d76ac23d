"""Production mode passes Django's deployment checks; the defaults need no services."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*args, **env):
    # The browser tests allow sync ORM calls in their own process; a deployment check must not see that.
    skip = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    full_env = {k: v for k, v in os.environ.items() if k not in skip}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_mode_passes_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="x" * 20 + "a-real-looking-secret-key-0123456789abcdef",
        DJANGO_ALLOWED_HOSTS="table.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_production_mode_refuses_a_wildcard_host():
    result = run_manage("check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY="k" * 60, DJANGO_ALLOWED_HOSTS="*")
    assert result.returncode != 0
    assert "may not contain '*'" in result.stderr


def test_embedded_default_is_sqlite_and_in_memory_layer():
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = run_manage("shell", "-v", "0", "-c", code)
    assert result.stdout.split() == ["django.db.backends.sqlite3", "campaigns.layers.TableChannelLayer"]


def test_urls_switch_backends():
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = run_manage(
        "shell",
        "-v",
        "0",
        "-c",
        code,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "channels_redis.pubsub.RedisPubSubChannelLayer",
    ]
