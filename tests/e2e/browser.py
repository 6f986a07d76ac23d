"""Find a Chromium the browser tests can drive, or install one by the means this machine allows.

``make test`` runs this as a script before the browser tests (``python tests/e2e/browser.py``); the
tests' ``browser`` fixture asks ``find_chromium`` for the same answer. Order of preference:

1. ``$CHROMIUM``, when set (a browser of your own);
2. Debian's ``/usr/bin/chromium``;
3. the Chromium Playwright downloaded before (``playwright install chromium``).

When none runs, it installs one, each attempt bounded in time so a machine without internet fails
fast: Debian's ``chromium`` through apt when running as root or with password-less sudo, else
Playwright's own download. Only when both fail does it stop, naming the one command that would fix it.
Plain Python and Playwright only, no Django: it runs before the test suite starts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

DEBIAN_CHROMIUM = "/usr/bin/chromium"
# Debian's packages the browser tests need: the browser, and a font so pages render text (screenshots
# and PDF output; a bare container has no font at all).
DEBIAN_PACKAGES = ("chromium", "fonts-dejavu-core")
# Seconds: the package lists and the install each get this long; a closed network fails well within it.
APT_UPDATE_SECONDS = 240
APT_INSTALL_SECONDS = 600
PLAYWRIGHT_SECONDS = 600
FIX = "sudo apt-get install chromium   (or, with internet: .venv/bin/playwright install chromium)"


def _runs(path: str | None) -> bool:
    """Whether ``path`` is a browser that starts and says its version within 30 s."""
    if not path or not os.path.isfile(path) or not os.access(path, os.X_OK):
        return False
    try:
        done = subprocess.run(  # noqa: S603 - a path we chose, no shell
            [path, "--headless", "--no-sandbox", "--version"], capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _playwright_chromium() -> str | None:
    """The Chromium Playwright installed before, if any (its path is known even when not installed)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as playwright:
            return playwright.chromium.executable_path
    except Exception:  # noqa: BLE001 - no driver, no browser: nothing found
        return None


def find_chromium() -> str | None:
    """The first browser of the preference order that runs, or None."""
    for path in (os.environ.get("CHROMIUM"), DEBIAN_CHROMIUM):
        if _runs(path):
            return path
    path = _playwright_chromium()
    return path if _runs(path) else None


def _step(command: list[str], seconds: int) -> bool:
    print("browser tests: " + " ".join(command), flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    try:
        return subprocess.run(command, timeout=seconds, env=env).returncode == 0  # noqa: S603
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"browser tests: gave up: {error}", flush=True)
        return False


def _apt_prefix() -> list[str] | None:
    """How to run apt here: directly as root, through password-less sudo, or not at all."""
    if not shutil.which("apt-get"):
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:  # noqa: S603, S607
        return ["sudo", "-n"]
    return None


def install_with_apt() -> bool:
    prefix = _apt_prefix()
    if prefix is None:
        return False
    # No retries and a short connect timeout: without a mirror in reach this fails in seconds.
    quick = ["-o", "Acquire::Retries=0", "-o", "Acquire::http::Timeout=20"]
    quick += ["-o", "Acquire::https::Timeout=20"]
    return _step([*prefix, "apt-get", "update", "-qq", *quick], APT_UPDATE_SECONDS) and _step(
        [*prefix, "apt-get", "install", "-y", "-qq", *quick, *DEBIAN_PACKAGES],
        APT_INSTALL_SECONDS,
    )


def install_with_playwright() -> bool:
    return _step([sys.executable, "-m", "playwright", "install", "chromium"], PLAYWRIGHT_SECONDS)


def ensure_chromium() -> str | None:
    found = find_chromium()
    if found:
        return found
    print("browser tests: no Chromium found; installing one", flush=True)
    for install in (install_with_apt, install_with_playwright):
        if install():
            found = find_chromium()
            if found:
                return found
    return None


def main() -> int:
    found = ensure_chromium()
    if found is None:
        print(f"browser tests: no Chromium could be found or installed here. Fix: {FIX}", file=sys.stderr)
        return 1
    print(f"browser tests: using {found}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
