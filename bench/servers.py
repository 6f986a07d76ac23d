"""The servers the benches start, and the processes they watch.

* The **floor**: a framework-free ASGI app under uvicorn (bench/table.py's floor). An HTTP POST in (its
  body read), one draw from ``secrets``, an entry of the app's entry frame's size sent to every socket
  at the table, a response of the app's response's size; a bench-only trigger socket that sends an
  entry to a table on request. Run as a script: ``python bench/servers.py PORT ENTRY_SIZE RESPONSE_SIZE``.
* The **app**: ``config.asgi`` under uvicorn in production mode, on the in-memory layer or Redis, its
  rate limits out of the way, with the same bench-only trigger socket (``APP_LAUNCHER``) and Django's
  minimum (bench/minimum.py) installed.

And what every bench does with them: a free port, the server's environment, waiting for it to listen,
stopping it, its CPU so far, and a file limit high enough for hundreds of sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 20000), hard))


# ---------------------------------------------------------------------------------------------------
# The floor: the same protocol work without the framework
# ---------------------------------------------------------------------------------------------------


def floor_app(entry_size: int, response_size: int):
    tables: dict[str, set[asyncio.Queue]] = {}
    seqs: dict[str, int] = {}
    system_random = secrets.SystemRandom()
    response_body = b"x" * response_size

    def frame(table: str, face: int) -> str:
        seqs[table] = seq = seqs.get(table, 0) + 1
        head = json.dumps({"type": "entry", "seq": seq, "face": face, "html": ""})
        return head[:-2] + "x" * max(0, entry_size - len(head)) + '"}'

    def broadcast(table: str, text: str) -> None:
        for queue in tables.get(table, ()):
            queue.put_nowait(text)

    async def http(scope, receive, send):
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        table = scope["path"].split("/")[2]  # /roll/<table>/
        broadcast(table, frame(table, system_random.randint(1, 20)))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/html"),
                    (b"content-length", str(len(response_body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": response_body})

    async def websocket(scope, receive, send):
        path = scope["path"]
        message = await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        if path == "/bench/trigger/":
            while True:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    return
                table = json.loads(message["text"])["table"]
                broadcast(table, frame(table, 0))
        table = path.split("/")[2]  # /ws/<table>/table/
        queue: asyncio.Queue = asyncio.Queue()
        tables.setdefault(table, set()).add(queue)
        await send({"type": "websocket.send", "text": '{"type": "ready"}'})

        async def pump():
            while True:
                await send({"type": "websocket.send", "text": await queue.get()})

        pumping = asyncio.create_task(pump())
        try:
            while (await receive())["type"] != "websocket.disconnect":
                pass
        finally:
            pumping.cancel()
            tables[table].discard(queue)

    async def app(scope, receive, send):
        if scope["type"] == "http":
            await http(scope, receive, send)
        elif scope["type"] == "websocket":
            await websocket(scope, receive, send)

    return app


def serve_floor(port: int, entry_size: int, response_size: int) -> None:
    import uvicorn

    uvicorn.run(
        floor_app(entry_size, response_size),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="off",
        ws_per_message_deflate=False,
        # The same websocket implementation as the app's (BENCH_UVICORN_WS: compare uvicorn's).
        ws=os.environ.get("BENCH_UVICORN_WS", "auto"),
    )


def floor_argv(port: int, entry_size: int, response_size: int) -> list[str]:
    """What ``python`` runs to serve the floor (this file as a script)."""
    return [str(Path(__file__).resolve()), str(port), str(entry_size), str(response_size)]


# ---------------------------------------------------------------------------------------------------
# The app
# ---------------------------------------------------------------------------------------------------

# The app under uvicorn: its layer, rate limits out of the way, and a bench-only trigger socket.
APP_LAUNCHER = r"""
import json, os, sys
import config.settings as project_settings
layer = sys.argv[2]
if layer == "redis":
    project_settings.CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = os.environ["LAYER_PREFIX"]
else:
    project_settings.CHANNEL_LAYERS = {"default": {"BACKEND": "campaigns.layers.TableChannelLayer"}}
try:  # every budget the limiter knows, out of the way (the fairness bench measures the limiter)
    from campaigns.limits import DEFAULT_RATE_LIMITS
except ImportError:
    DEFAULT_RATE_LIMITS = {}
project_settings.TABLE_RATE_LIMITS = {name: (10**9, 1) for name in {*DEFAULT_RATE_LIMITS, "roll", "chat"}}
project_settings.TABLE_SOCKETS_PER_USER = 10**6

from config.asgi import application as app_application
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.routing import ProtocolTypeRouter
from campaigns import realtime

class Trigger(AsyncWebsocketConsumer):
    # Bench only: group_send a ready-made public entry event to a table, as realtime.entry_event would.
    async def receive(self, text_data=None, bytes_data=None):
        request = json.loads(text_data)
        seq = request["seq"]
        frame = json.dumps({"type": "entry", "seq": seq, "html": os.environ["SAMPLE_HTML"]})
        await self.channel_layer.group_send(realtime.table_group(request["table"]), {
            "type": "feed.entry", "seq": seq, "visibility": "public", "author_id": 0,
            "frames": {"full": frame},
        })

trigger_app = Trigger.as_asgi()

sys.path.insert(0, "bench")
import minimum
minimum.install()
table_app = app_application.application_mapping["websocket"]

async def websocket(scope, receive, send):
    app = trigger_app if scope["path"] == "/bench/trigger/" else table_app
    return await app(scope, receive, send)

application = ProtocolTypeRouter({"http": app_application, "websocket": websocket})

import uvicorn
uvicorn.run(application, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning", lifespan="off",
            ws_per_message_deflate=False, ws=os.environ.get("BENCH_UVICORN_WS", "auto"))
"""


def app_argv(port: int, layer: str) -> list[str]:
    """What ``python`` runs to serve the app on ``layer`` ("memory" or "redis")."""
    return ["-c", APP_LAUNCHER, str(port), layer]


def app_env(**settings: str) -> dict[str, str]:
    """The app servers' environment: this process's, in production mode as a table is served (plain
    HTTP on loopback: no HTTPS redirect), logging errors only; ``settings`` (the database, the layer)
    on top."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "DJANGO_DEBUG")}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="ERROR",
        **settings,
    )
    return env


def in_process_app(prefix: str) -> None:
    """Set up this process as the app a profiling bench drives in-process (Django's test client or its
    handler called directly): a throwaway SQLite database, migrated; production mode, as a table is
    served (no per-query debug bookkeeping); every rate budget out of the way (the limiter is
    bench/fairness.py's to measure)."""
    import uuid

    folder = tempfile.mkdtemp(prefix=f"{prefix}-")
    os.environ["SQLITE_PATH"] = str(Path(folder) / f"{prefix}.sqlite3")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    os.environ.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=f"{prefix}-only-" + uuid.uuid4().hex * 2,
        DJANGO_ALLOWED_HOSTS="testserver",
        DJANGO_SECURE_SSL_REDIRECT="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        LOG_LEVEL="ERROR",
    )
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from campaigns.limits import DEFAULT_RATE_LIMITS

    settings.TABLE_RATE_LIMITS = {name: (10**9, 1) for name in DEFAULT_RATE_LIMITS}
    call_command("migrate", verbosity=0)


# ---------------------------------------------------------------------------------------------------
# The processes
# ---------------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if process.poll() is not None:
            raise SystemExit(f"server on port {port} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"server on port {port} did not start") from None
            time.sleep(0.1)


def stop(process: subprocess.Popen, seconds: float = 10) -> None:
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str], **popen) -> Iterator[subprocess.Popen]:
    """``python argv`` from the repository's root, once it listens on ``port``; stopped on the way out."""
    process = subprocess.Popen([sys.executable, *argv], cwd=ROOT, env=env, **popen)
    try:
        wait_for_port(port, process)
        yield process
    finally:
        stop(process)


def process_cpu(pid: int) -> float:
    """The CPU seconds a process has used so far, every thread (Linux: /proc/<pid>/stat)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    raise_fd_limit()
    serve_floor(*(int(arg) for arg in sys.argv[1:4]))
