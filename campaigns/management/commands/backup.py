"""A consistent copy of the database while the app runs: SQLite's online backup API, or pg_dump; and
beside it a copy of the uploaded files (MEDIA_ROOT: portraits).

A plain file copy of a SQLite database in WAL mode can miss the writes still in the -wal file or catch
a page half written; the backup API copies through SQLite's own locking, so the copy is one committed
state even while players roll. PostgreSQL has pg_dump for the same job.

Uploaded files are written once under a fresh name and never changed (sheets/portraits.py), so copying
the folder after the database catches every file the copy names, bar one removed or replaced in the
seconds between the two (its sheet then shows the initial's badge).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections

# All pages in one step: the copy is one read transaction, so one snapshot. Under WAL a reader does not
# block writers, so the table keeps rolling meanwhile; copying in small steps instead would start over
# after every write from another connection, and a busy table would never let it finish.
PAGES_PER_STEP = -1


def default_target(engine: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    suffix = "sqlite3" if engine == "sqlite" else "dump"
    return Path(settings.BASE_DIR) / "backups" / f"tabletop-{stamp}.{suffix}"


def media_copy_of(backup: Path) -> Path:
    """Where a backup's uploaded files are kept: a folder beside it, named after it."""
    return backup.with_name(backup.name + ".media")


def copy_media(source: Path, target: Path) -> int:
    """Copy every file under ``source`` into ``target`` (kept where both have it); the count copied."""
    if not source.is_dir():
        return 0
    shutil.copytree(source, target, dirs_exist_ok=True)
    return sum(1 for path in target.rglob("*") if path.is_file())


def engine_of(alias: str) -> str:
    vendor = connections[alias].vendor
    if vendor not in {"sqlite", "postgresql"}:
        raise CommandError(f"No backup for a {vendor} database; use its own tools.")
    return vendor


def sqlite_copy(source_path: str, target_path: str) -> None:
    """Copy one SQLite database file to another through the backup API (both may be in use)."""
    source = sqlite3.connect(source_path, timeout=20)
    target = sqlite3.connect(target_path, timeout=20)
    try:
        with target:
            source.backup(target, pages=PAGES_PER_STEP)
    finally:
        target.close()
        source.close()


def postgres_command(settings_dict: dict, tool: str, path: Path) -> tuple[list[str], dict[str, str]]:
    """The pg_dump or pg_restore command line for this database, and its environment (the password goes
    in PGPASSWORD, never on the command line where `ps` would show it)."""
    args = [tool]
    for flag, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if settings_dict.get(key):
            args += [flag, str(settings_dict[key])]
    if tool == "pg_dump":
        args += ["--format=custom", "--no-owner", f"--file={path}", settings_dict["NAME"]]
    else:
        args += ["--clean", "--if-exists", "--no-owner", "--single-transaction"]
        args += [f"--dbname={settings_dict['NAME']}", str(path)]
    env = dict(os.environ)
    if settings_dict.get("PASSWORD"):
        env["PGPASSWORD"] = str(settings_dict["PASSWORD"])
    return args, env


def run_postgres_tool(command: BaseCommand, args: list[str], env: dict[str, str]) -> None:
    command.stdout.write("Running: " + " ".join(args))
    if shutil.which(args[0]) is None:
        raise CommandError(
            f"{args[0]} is not installed (apt-get install postgresql-client); run the line above by hand."
        )
    finished = subprocess.run(args, env=env, check=False)  # noqa: S603 - our own arguments, no shell
    if finished.returncode:
        raise CommandError(f"{args[0]} failed with exit status {finished.returncode}.")


class Command(BaseCommand):
    help = (
        "Write a consistent copy of the database while the app runs (SQLite: the online backup API; "
        "PostgreSQL: pg_dump --format=custom). Restore it with `manage.py restore PATH`."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", nargs="?", help="where to write it (default: backups/tabletop-<time>)")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database alias to copy")

    def handle(self, *args, path=None, database=DEFAULT_DB_ALIAS, **options):
        engine = engine_of(database)
        target = Path(path) if path else default_target(engine)
        if target.exists():
            raise CommandError(f"{target} exists already; pick a new name so no backup is overwritten.")
        target.parent.mkdir(parents=True, exist_ok=True)
        settings_dict = connections[database].settings_dict
        if engine == "sqlite":
            source = str(settings_dict["NAME"])
            if source == ":memory:" or not Path(source).exists():
                raise CommandError(f"There is no database file at {source} to back up.")
            sqlite_copy(source, str(target))
            check = sqlite3.connect(target)
            try:
                verdict = check.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                check.close()
            if verdict != "ok":
                raise CommandError(f"The copy at {target} failed SQLite's integrity check: {verdict}")
        else:
            run_postgres_tool(self, *postgres_command(settings_dict, "pg_dump", target))
        self.stdout.write(self.style.SUCCESS(f"Backup written to {target}"))
        media = media_copy_of(target)
        files = copy_media(Path(settings.MEDIA_ROOT), media)
        if files:
            self.stdout.write(self.style.SUCCESS(f"{files} uploaded file(s) copied to {media}"))
