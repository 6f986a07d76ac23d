"""The default run is safe (no debug, this installation's own key); HTTPS mode passes Django's deployment
checks; the defaults need no services."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


# What a deployment sets: each test starts without them, as a fresh `make run` does.
DEPLOYMENT = {
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DJANGO_HTTPS",
    "DJANGO_DATA_DIR",
    "HOST",
}


def run_python(*args, **env):
    # The browser tests allow sync ORM calls in their own process; a deployment check must not see that.
    skip = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "TABLETOP_STOCK", *DEPLOYMENT}
    full_env = {k: v for k, v in os.environ.items() if k not in skip}
    full_env.update(env)
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_manage(*args, **env):
    """A management command, as a deployment runs it: the checks need the whole app loaded."""
    return run_python("manage.py", *args, **env)


def settings_read(code: str, **env):
    """``code`` run where only the settings are read, as every process of a deployment reads them: the
    values come from config/settings.py alone (a management command would load every app first, six
    times the time, for the same values)."""
    return run_python("-c", code, DJANGO_SETTINGS_MODULE="config.settings", **env)


def test_https_mode_passes_check_deploy():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_HTTPS="1",
        DJANGO_SECRET_KEY="x" * 20 + "a-real-looking-secret-key-0123456789abcdef",
        DJANGO_ALLOWED_HOSTS="table.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_wildcard_host_is_refused():
    result = run_manage("check", DJANGO_SECRET_KEY="k" * 60, DJANGO_ALLOWED_HOSTS="*")
    assert result.returncode != 0
    assert "may not contain '*'" in result.stderr


SHOW = (
    "from django.conf import settings as s; "
    "print(s.DEBUG, s.SECRET_KEY, s.MIDDLEWARE[0], ','.join(s.ALLOWED_HOSTS), s.SESSION_COOKIE_SECURE)"
)


@pytest.mark.long
def test_the_default_run_has_no_debug_and_a_key_of_its_own(tmp_path):
    data = tmp_path / "data"
    result = settings_read(SHOW, DJANGO_DATA_DIR=str(data))
    debug, key, first_middleware, hosts, secure_cookie = result.stdout.split()
    assert debug == "False" and secure_cookie == "False"  # `make run` serves the room over plain HTTP
    assert key == (data / "secret_key").read_text()
    assert stat.S_IMODE((data / "secret_key").stat().st_mode) == 0o600
    assert first_middleware == "django.middleware.security.SecurityMiddleware"
    assert {"127.0.0.1", "localhost", "[::1]"} <= set(hosts.split(","))  # and this machine's LAN addresses
    again = settings_read(SHOW, DJANGO_DATA_DIR=str(data))
    assert again.stdout.split()[1] == key
    given = settings_read(SHOW, DJANGO_SECRET_KEY="e" * 50)
    assert given.stdout.split()[1] == "e" * 50


@pytest.mark.long
def test_workers_starting_at_once_agree_on_one_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in DEPLOYMENT}
    env["DJANGO_DATA_DIR"] = str(tmp_path / "data")
    code = "from django.conf import settings; print(settings.SECRET_KEY)"
    workers = [
        subprocess.Popen(  # noqa: S603 - this interpreter, fixed arguments
            [sys.executable, "-c", code],
            cwd=ROOT,
            env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    keys = {worker.communicate(timeout=120)[0].strip() for worker in workers}
    assert keys == {(tmp_path / "data" / "secret_key").read_text()}


def test_debug_is_asked_for_and_serves_this_machine_only():
    refused = run_manage("check", DJANGO_DEBUG="1", HOST="0.0.0.0")  # noqa: S104 - a bind refused
    assert refused.returncode != 0
    assert "serves this machine only: start it with HOST=127.0.0.1" in refused.stderr
    result = settings_read(SHOW, DJANGO_DEBUG="1", HOST="127.0.0.1")
    debug, _, first_middleware, hosts, _ = result.stdout.split()
    assert debug == "True"
    assert first_middleware == "campaigns.middleware.DebugServesLoopbackOnly"
    assert hosts == "127.0.0.1,localhost,[::1]"


def test_the_default_run_serves_its_static_files(client):
    # Without DEBUG and without collectstatic (WhiteNoise from the static folders): the page can look right.
    response = client.get("/static/css/app.css")
    assert response.status_code == 200
    assert b"".join(response.streaming_content)


def test_embedded_default_is_sqlite_and_in_memory_layer():
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = settings_read(code)
    assert result.stdout.split() == ["django.db.backends.sqlite3", "campaigns.layers.TableChannelLayer"]


def test_urls_switch_backends():
    code = (
        "from django.conf import settings; "
        "print(settings.DATABASES['default']['ENGINE'], settings.CHANNEL_LAYERS['default']['BACKEND'])"
    )
    result = settings_read(
        code,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/test",
        REDIS_URL="redis://127.0.0.1:6379/0",
    )
    assert result.stdout.split() == [
        "django.db.backends.postgresql",
        "channels_redis.pubsub.RedisPubSubChannelLayer",
    ]


def test_each_test_worker_hears_only_its_own_tables_on_redis(worker_id, settings):
    # Workers' test databases repeat campaign ids, and Redis pub/sub is shared: tests/conftest.py gives
    # each worker a prefix of its own (a test in one worker once could hear a table of the other's).
    config = settings.CHANNEL_LAYERS["default"].get("CONFIG", {})
    if worker_id == "master" or "prefix" not in config:
        pytest.skip("only on a Redis layer with several test workers (the PostgreSQL + Redis pass)")
    assert config["prefix"].endswith(f"-{worker_id}")
