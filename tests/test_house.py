"""The house rules a newcomer relies on, checked: no module of the app or its benches is over 500 lines
unless its docstring says why (the words "Over 500 lines" and the reason)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The tests are left out: they mirror the code they test, a file per module or rule, read a test at a time.
CHECKED = ("campaigns", "sheets", "rules", "play", "config", "bench")
LIMIT = 500


def _modules():
    for package in CHECKED:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def too_long(path: Path) -> str:
    """What is wrong with ``path``'s length, or "" when nothing is."""
    text = path.read_text()
    lines = text.count("\n")
    top = text[: text.find('"""', 3) + 3] if text.startswith('"""') else ""
    if lines <= LIMIT or "Over 500 lines" in top:
        return ""
    return f"{path.name} has {lines} lines: split it by concern, or say why not at its top"


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_over_500_lines_without_its_reason_at_its_top(path):
    assert too_long(path) == ""


def test_the_check_finds_a_long_module_and_accepts_its_reason(tmp_path):
    body = "x = 1\n" * (LIMIT + 1)
    silent, explained = tmp_path / "silent.py", tmp_path / "explained.py"
    silent.write_text('"""A module."""\n' + body)
    explained.write_text('"""A module.\n\nOver 500 lines for one reason: a parser."""\n' + body)
    assert "split it by concern" in too_long(silent)
    assert too_long(explained) == ""
