"""Browser tests: Debian's chromium driven by Playwright against a live ASGI server (uvicorn)."""

import os
import socket
import threading
import time

import pytest

from .browser import FIX, find_chromium

# How long a test waits for the page's own signal (an htmx swap, a frame, a flag the page clears) before
# it fails. Long, so a loaded CPU is never mistaken for a bug: a passing test waits only as long as the
# page takes. Playwright's own defaults (5 s for expect) are outrun on a busy machine.
SIGNAL_TIMEOUT_MS = 30_000

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make for setup
# and checks are plain synchronous code, so Django's async-safety guard does not apply to them.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """The real ASGI app under uvicorn in a thread, so websockets work; can be stopped and restarted."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self._server = None
        self._thread = None

    def start(self) -> None:
        import uvicorn

        from config.asgi import application

        config = uvicorn.Config(
            application, host="127.0.0.1", port=self.port, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the live server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
            self._thread.join(timeout=15)
            self._server = None
            from config.asgi import django_asgi_app

            # Its kept HTTP threads' database connections would outlive the test database (Django's own
            # handler, in stock mode, keeps none).
            if hasattr(django_asgi_app, "close_threads"):
                django_asgi_app.close_threads()


@pytest.fixture
def asgi_server(transactional_db, settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    server = LiveServer(free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=SIGNAL_TIMEOUT_MS)

    chromium = find_chromium()
    if chromium is None:
        pytest.fail(f"No Chromium to drive: `make test` installs one, or: {FIX}")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser, asgi_server):
    """Open a page in a fresh browser context (its own cookies: its own user)."""
    contexts = []

    def open_page(*, width: int = 1280, height: int = 900):
        context = browser.new_context(base_url=asgi_server.url, viewport={"width": width, "height": height})
        context.set_default_timeout(SIGNAL_TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: pytest.fail(f"JavaScript error on the page: {error}"))
        return page

    yield open_page
    for context in contexts:
        context.close()


def log_in(page, username: str, password: str) -> None:
    """Signed in as ``username`` and on the dashboard, where the login form leads. The session is made by
    Django's own ``login()`` and handed to the page as its cookie: the form's round trips, repeated for
    every user of every test, were time spent testing the same form again (test_campaign_flow.py takes
    the form itself in the browser, tests/campaigns/test_campaigns.py its throttling)."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    user = get_user_model().objects.get(username=username)
    assert user.check_password(password), "the password the test would type is not the user's"
    client = Client()
    client.force_login(user)
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    page.context.add_cookies(
        [{"name": settings.SESSION_COOKIE_NAME, "value": session, "domain": "127.0.0.1", "path": "/"}]
    )
    page.goto("/dashboard/")
