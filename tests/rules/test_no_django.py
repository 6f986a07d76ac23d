"""The rules engine is pure Python: importing any of its modules pulls in nothing from Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def rules_modules() -> list[str]:
    """Every module in rules/ and its packages, found on disk so modules added later are covered too."""
    return sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "rules").rglob("*.py")
    )


def test_the_rules_package_has_modules():
    modules = rules_modules()
    assert "rules" in modules
    assert "rules.dice" in modules
    assert {"rules.l5r", "rules.l5r.odds", "rules.notation.tree"} <= set(modules)


def test_importing_every_rules_module_loads_no_django():
    modules = rules_modules()
    code = (
        f"import {', '.join(modules)}\n"
        "import sys\n"
        "leaked = sorted(m for m in sys.modules if m.startswith('django'))\n"
        "assert not leaked, leaked\n"
    )
    # a fresh interpreter, so nothing imported by pytest or its plugins can hide a leak
    completed = subprocess.run(  # noqa: S603 - fixed interpreter and generated code
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
