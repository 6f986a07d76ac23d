"""The map holds: every module, file and dotted name docs/architecture.md points at exists."""

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAP = (ROOT / "docs" / "architecture.md").read_text()
PACKAGES = ("campaigns", "sheets", "play", "rules", "config", "django.db", "django.conf")
# A short name in the text ("chain.seal", "transaction.on_commit") is read in each package in turn.
PREFIXES = ("", *(f"{package}." for package in PACKAGES))

# `campaigns/counters.py`, `templates/play/_turn_panel.html`, `static/js/table.js`: a path in the tree.
TOP = "campaigns|sheets|play|rules|config|bench|tests|templates|static|docs"
PATHS = sorted(set(re.findall(rf"`((?:{TOP})/[\w./<>-]+)`", MAP)))
# `realtime.panel_changed`, `play.encounters.numbers_shown`: a module and a name in it.
DOTTED = sorted(
    set(re.findall(r"`((?:[a-z_]+\.)+[A-Za-z_]+)`", MAP))
    # Channel-layer event types, a browser property, a file; and a setting a deployment may add (the
    # limiter reads it if it is there: campaigns/limits.py).
    - {"feed.entry", "feed.hidden", "member.removed", "panel.changed", "document.hidden", "table.js"}
    - {"settings.TABLE_RATE_LIMITS"}
)


@pytest.mark.parametrize("path", [p for p in PATHS if "<" not in p])
def test_each_path_the_map_names_exists(path):
    assert (ROOT / path.rstrip("/")).exists(), path


def resolves(dotted: str) -> bool:
    if re.fullmatch(r"[a-z]+\.[A-Z][a-z]\w*", dotted) and _model(dotted) is not None:
        return True  # a model as Django names it: "sheets.Character"
    parts = dotted.split(".")
    for prefix in PREFIXES:
        for split in range(len(parts) - 1, -1, -1):
            module = (prefix + ".".join(parts[:split])).strip(".")
            if not module:
                continue
            try:
                found = importlib.import_module(module)
            except ImportError:
                continue
            for name in parts[split:]:
                found = getattr(found, name, None)
            if found is not None:
                return True
    return False


def _model(label: str):
    from django.apps import apps

    try:
        return apps.get_model(label)
    except LookupError:
        return None


@pytest.mark.parametrize("dotted", [d for d in DOTTED if not d.endswith((".py", ".html", ".css", ".toml"))])
def test_each_dotted_name_the_map_names_exists(dotted):
    assert resolves(dotted), dotted
