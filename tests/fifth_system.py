"""A fifth game system added by the steps of docs/architecture.md ("Adding a fifth system"), in a
throwaway copy of this checkout, and every suite that runs over the installed systems run with five.

Run with ``.venv/bin/python tests/fifth_system.py`` (``make test-fifth-system``; CI runs it). The fifth
system is Triad's sheet package copied as ``tetrad`` over Triad's engine (step 1, a new engine, is the
system author's own work and is tested in tests/rules/). Each step below names the one it follows:

2. ``sheets/systems/tetrad/`` is Triad's package with every name its own (app label, models, templates,
   static files, URL names), its migrations made anew by ``makemigrations tetrad``;
3. and 4. its ``sheet.py``, ``combat.py`` and templates come with the copy;
5. ``sheets.systems.tetrad`` is added to ``GAME_SYSTEMS``, and nothing else is edited;
6. the import contracts and the contract suites (the sheet's, the in-place edits', the combat's) run,
   and every one must have run its tests for ``tetrad`` too.

The copy is deleted afterwards; this checkout is never touched. Exit status 0 when all of it passed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NEW = "tetrad"
SKIPPED = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.sqlite3*", "data", "media", "backups")
SUITES = [
    "tests/sheets/test_system_contract.py",
    "tests/sheets/test_edit_paths.py",
    "tests/campaigns/test_combat_contract.py",
]


def renamed(text: str) -> str:
    """Triad's package text with every name of its own made the fifth system's, over Triad's engine."""
    text = text.replace("triad", NEW).replace("Triad", NEW.capitalize()).replace("TRIAD", NEW.upper())
    # The engine stays Triad's: ``rules.triad``, read under the package's own name.
    text = re.sub(rf"\bfrom rules import {NEW}\b", f"from rules import triad as {NEW}", text)
    return re.sub(rf"\brules\.{NEW}\b", "rules.triad", text)


def add_system(copy: Path) -> None:
    source, package = copy / "sheets/systems/triad", copy / f"sheets/systems/{NEW}"
    shutil.copytree(source, package, ignore=SKIPPED)
    for migration in (package / "migrations").glob("0*.py"):
        migration.unlink()
    for folder in ("templates", "static"):
        (package / folder / "triad").rename(package / folder / NEW)
    for path in package.rglob("*"):
        if path.is_file() and path.suffix in (".py", ".html", ".css", ".js"):
            path.write_text(renamed(path.read_text()))
        if path.is_file() and "triad" in path.name:
            path.rename(path.with_name(path.name.replace("triad", NEW)))
    settings = copy / "config/settings.py"
    text = settings.read_text()
    listed = '    "sheets.systems.triad",\n'
    if listed not in text:
        raise SystemExit("config/settings.py no longer lists Triad as this script expects")
    settings.write_text(text.replace(listed, listed + f'    "sheets.systems.{NEW}",\n'))


def run(copy: Path, *command: str) -> subprocess.CompletedProcess:
    print("$", " ".join(command), flush=True)
    return subprocess.run(command, cwd=copy, text=True, capture_output=True)


def main() -> int:
    venv = ROOT / ".venv/bin"
    with tempfile.TemporaryDirectory(prefix="fifth-system-") as where:
        copy = Path(where) / "app"
        shutil.copytree(ROOT, copy, ignore=SKIPPED)
        add_system(copy)
        steps = [
            (str(venv / "python"), "manage.py", "makemigrations", NEW),
            (str(venv / "lint-imports"),),
            (str(venv / "pytest"), "-n", "auto", "-p", "no:cacheprovider", "-v", *SUITES),
        ]
        for step in steps:
            done = run(copy, *step)
            if done.returncode != 0:
                print(done.stdout[-6000:], done.stderr[-3000:], sep="\n")
                print(f"The fifth system failed at: {' '.join(step)}")
                return 1
        passed = re.findall(rf"PASSED (tests/\S+\[[^\]]*\b{NEW}\b[^\]]*\])", done.stdout)
        suites_run = {test.split("::")[0] for test in passed}
        print(done.stdout.strip().splitlines()[-1])
        missing = set(SUITES) - suites_run
        if missing:
            print(f"No test of {NEW} ran in: {', '.join(sorted(missing))}")
            return 1
        print(f"The fifth system ({NEW}) passed {len(passed)} contract tests in {len(suites_run)} suites.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
