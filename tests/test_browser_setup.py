"""How `make test` gets its browser (tests/e2e/browser.py): found first, installed only when missing,
apt before Playwright's download, and a stop naming the fix when neither works. The installers are
replaced by recorders here: CI's machine has a browser already, so this is where the fresh-machine path
is checked on every run."""

import pytest

from tests.e2e import browser


@pytest.fixture
def machine(monkeypatch):
    """A machine whose browsers and installers the test sets: which paths run, what each install does."""
    state = {"runs": set(), "calls": [], "apt": None, "playwright": None, "playwright_path": "/pw/chrome"}

    def install(name, gives):
        def run():
            state["calls"].append(name)
            if state[name]:
                state["runs"].add(gives)
            return bool(state[name])

        return run

    monkeypatch.delenv("CHROMIUM", raising=False)
    monkeypatch.setattr(browser, "_runs", lambda path: path in state["runs"])
    monkeypatch.setattr(browser, "_playwright_chromium", lambda: state["playwright_path"])
    monkeypatch.setattr(browser, "install_with_apt", install("apt", browser.DEBIAN_CHROMIUM))
    monkeypatch.setattr(browser, "install_with_playwright", install("playwright", "/pw/chrome"))
    return state


def test_a_browser_already_there_is_used_and_nothing_is_installed(machine):
    machine["runs"].add(browser.DEBIAN_CHROMIUM)
    assert browser.ensure_chromium() == browser.DEBIAN_CHROMIUM
    assert machine["calls"] == []


def test_a_browser_of_ones_own_comes_first(machine, monkeypatch):
    monkeypatch.setenv("CHROMIUM", "/opt/my/chrome")
    machine["runs"] |= {"/opt/my/chrome", browser.DEBIAN_CHROMIUM}
    assert browser.find_chromium() == "/opt/my/chrome"


def test_playwrights_earlier_download_is_found(machine):
    machine["runs"].add("/pw/chrome")
    assert browser.ensure_chromium() == "/pw/chrome"
    assert machine["calls"] == []


def test_a_fresh_machine_gets_debians_chromium_through_apt(machine):
    machine["apt"] = True
    assert browser.ensure_chromium() == browser.DEBIAN_CHROMIUM
    assert machine["calls"] == ["apt"]


def test_without_apt_playwrights_download_is_tried(machine):
    machine["apt"], machine["playwright"] = False, True
    assert browser.ensure_chromium() == "/pw/chrome"
    assert machine["calls"] == ["apt", "playwright"]


def test_with_neither_it_stops_naming_the_one_fix(machine, capsys):
    machine["apt"] = machine["playwright"] = False
    assert browser.main() == 1
    assert "sudo apt-get install chromium" in capsys.readouterr().err


def test_apt_is_used_only_as_root_or_with_passwordless_sudo(monkeypatch):
    monkeypatch.setattr(browser.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(browser.os, "geteuid", lambda: 1000)

    class Refused:
        returncode = 1

    monkeypatch.setattr(browser.subprocess, "run", lambda *a, **k: Refused())
    assert browser._apt_prefix() is None
    monkeypatch.setattr(browser.os, "geteuid", lambda: 0)
    assert browser._apt_prefix() == []


def test_the_real_finder_answers_on_this_machine():
    # Whatever this machine has, the answer is a path that runs or None: never an exception.
    found = browser.find_chromium()
    assert found is None or browser._runs(found)
