"""The ASGI application: HTTP through Django in one worker thread per request, the table's websocket.

Django's own ASGIHandler runs its middleware in async mode: every ``process_request`` and
``process_response`` of a sync middleware (all of ours, WhiteNoise included) is a hop to a thread and
back, about twenty per request, and every request gets a new thread, so a new database connection
(CONN_MAX_AGE never applies). Those hops and the connection were about half the CPU of a dice-box
roll served under uvicorn (docs/performance.md). :class:`OneHopHandler` runs the whole request as
WSGI runs it, the middleware in sync mode, in one hop to a worker thread kept between requests (and
with it its database connection); broadcasts the request commits are collected there and sent from
the event loop, with no second hop back onto the loop to reach the channel layer.
"""

import asyncio
import gc
import logging
import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import django
from asgiref.sync import sync_to_async
from django.core import checks, signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import connections
from django.http import FileResponse
from django.urls import get_resolver, set_script_prefix

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django must be set up before anything imports models (the consumers do).
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402

from campaigns import realtime  # noqa: E402
from campaigns.checks import TAG as DEPLOYMENT_CHECKS  # noqa: E402

logger = logging.getLogger("config.asgi")


class WorkerThreads:
    """Single-thread executors lent to one request at a time, at most ``limit`` of them.

    A request's every step runs on its executor's one thread (the database connection is per thread:
    the request's own, and ``request_finished`` closes it where it was opened), and the thread is
    kept for the next request. Past the limit a request waits for a free one, so a burst cannot open
    more database connections than there are threads.
    """

    def __init__(self, limit: int):
        self.limit = limit
        self.idle: list[ThreadPoolExecutor] = []
        self.made = 0
        self.waiting: deque[asyncio.Future] = deque()

    async def take(self) -> ThreadPoolExecutor:
        if self.idle:
            return self.idle.pop()  # the most recently used: its thread and connection are warm
        if self.made < self.limit:
            self.made += 1
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="http")
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give(waiter.result())  # handed over just as the request was cancelled
            raise

    def give(self, executor: ThreadPoolExecutor) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(executor)
                return
        self.idle.append(executor)


class OneHopHandler(ASGIHandler):
    """Django's ASGI handler with the request served in one hop to a kept worker thread.

    In the thread: ``request_started``, the request, the middleware in sync mode, the view, the
    template's render, and for an answer held in memory ``close()`` (``request_finished``, which
    closes a connection past its age or broken) too. On the loop: reading the body, the broadcasts
    the request committed, sending the answer; a streamed answer (a static file, a download) is
    closed on the same thread once sent. A client leaving mid-request does not cancel a sync view
    (it never could), so there is no disconnect watcher either.
    """

    def __init__(self, threads: int):
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.threads = WorkerThreads(threads)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        executor = await self.threads.take()
        try:
            response, broadcasts = await sync_to_async(
                self.respond, thread_sensitive=False, executor=executor
            )(scope, body_file)
            # The entry reaches the table before the roller's answer is sent: the click's feedback.
            # What is built after the answer (a panel's digest, realtime.panel_changed) follows it.
            now, later = realtime.answer_first(broadcasts)
            await realtime.send_collected(now)
            in_thread = partial(sync_to_async, thread_sensitive=False, executor=executor)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:
                    await in_thread(response.close)()
                if later:
                    await realtime.send_collected(await in_thread(realtime.build_later)(later))
        finally:
            body_file.close()
            self.threads.give(executor)

    def close_threads(self) -> None:
        """End the idle worker threads, closing their database connections first (server shutdown:
        a kept connection would otherwise outlive the server, and block dropping a test database)."""
        idle, self.threads.idle = self.threads.idle, []
        for executor in idle:
            executor.submit(connections.close_all).result()
            executor.shutdown()
        self.threads.made -= len(idle)

    def respond(self, scope, body_file):
        """The request's sync part, in its worker thread: (the response, the broadcasts to send)."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        with realtime.collected_broadcasts() as broadcasts:
            request, response = self.create_request(scope, body_file)
            if request is not None:
                response = self.get_response(request)
                response._handler_class = self.__class__
                if isinstance(response, FileResponse):
                    response.block_size = self.chunk_size
        if not response.streaming:
            response.close()  # the body is in memory; request_finished runs on this thread
        return response, list(broadcasts)


# Stock mode (settings.TABLETOP_STOCK) serves through Django's own handler; broadcasts are then sent
# from the request's thread as they commit (campaigns/realtime.py).
django_asgi_app = ASGIHandler() if settings.TABLETOP_STOCK else OneHopHandler(threads=settings.HTTP_THREADS)

# uvicorn runs no system checks; say at start-up what manage.py check would (a deaf multi-worker table).
for problem in checks.run_checks(tags=[DEPLOYMENT_CHECKS]):
    logger.warning("%s", problem)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from campaigns.routing import websocket_urlpatterns  # noqa: E402


async def lifespan(scope, receive, send):
    """Start-up and shutdown, for a server that announces them (uvicorn does unless told not to)."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await asyncio.to_thread(django_asgi_app.close_threads)
            await send({"type": "lifespan.shutdown.complete"})
            return


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        "lifespan": lifespan,
    }
)


# What start-up loaded (Django, every app, every view through the URLconf) lives as long as the
# process; frozen, the collector's full passes no longer walk it. Unfrozen, each full collection walked
# some 100,000 objects and held every table for 50 to 100 ms (bench/table.py, broadcast leg at N = 256:
# the p99 of 90 to 120 ms was those passes; docs/performance.md).
if not settings.TABLETOP_STOCK:
    get_resolver().url_patterns  # noqa: B018 (imports every view module now, so it is frozen too)
    gc.collect()
    gc.freeze()
