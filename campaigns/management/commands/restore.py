"""Put a backup made by `manage.py backup` back in place of the database, and its uploaded files back
under MEDIA_ROOT (files already there stay: their names are never reused)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections

from .backup import copy_media, engine_of, media_copy_of, postgres_command, run_postgres_tool, sqlite_copy


def check_sqlite_backup(path: Path) -> None:
    """Refuse a file that is not a whole SQLite database of this app before it overwrites anything."""
    try:
        backup = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            verdict = backup.execute("PRAGMA integrity_check").fetchone()[0]
            tables = {row[0] for row in backup.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            backup.close()
    except sqlite3.DatabaseError as error:
        raise CommandError(f"{path} is not a SQLite database: {error}") from None
    if verdict != "ok":
        raise CommandError(f"{path} failed SQLite's integrity check: {verdict}")
    if "django_migrations" not in tables:
        raise CommandError(f"{path} is a SQLite database, but not one of this app's.")


class Command(BaseCommand):
    help = (
        "Replace the database with a backup from `manage.py backup` (SQLite: the backup API in reverse; "
        "PostgreSQL: pg_restore --clean). Stop the server first, then run `manage.py migrate`."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="the backup file to restore")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, help="the database alias to replace")
        parser.add_argument(
            "--noinput", "--no-input", action="store_false", dest="interactive", help="do not ask first"
        )

    def handle(self, *args, path, database=DEFAULT_DB_ALIAS, interactive=True, **options):
        engine = engine_of(database)
        source = Path(path)
        if not source.is_file():
            raise CommandError(f"There is no backup file at {source}.")
        settings_dict = connections[database].settings_dict
        if engine == "sqlite":
            check_sqlite_backup(source)
        if interactive:
            answer = input(f"Replace everything in the {engine} database with {source}? Type 'yes': ")
            if answer.strip().lower() != "yes":
                raise CommandError("Restore cancelled; nothing changed.")
        # This process's own connection must not hold a transaction or a stale view of the old file.
        connections[database].close()
        if engine == "sqlite":
            sqlite_copy(str(source), str(settings_dict["NAME"]))
        else:
            run_postgres_tool(self, *postgres_command(settings_dict, "pg_restore", source))
        media = media_copy_of(source)
        if media.is_dir():
            copy_media(media, Path(settings.MEDIA_ROOT))
            self.stdout.write(self.style.SUCCESS(f"Uploaded files put back from {media}."))
        self.stdout.write(self.style.SUCCESS(f"Restored {source}. Run `manage.py migrate` if it is older."))
