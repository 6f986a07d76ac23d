"""`manage.py backup` / `restore`: a consistent SQLite copy while writes go on, and a restore that works.

Also the LAN address helpers `make run` and the demo use, checked with loopback only: no test sends
traffic to another machine.
"""

import os
import sqlite3
import threading
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, connections

from campaigns import lan
from campaigns.management.commands import backup as backup_command
from campaigns.models import Campaign, FeedEntry
from campaigns.services import feed_entry_create
from tests.conftest import FRAME_WAIT


def rows_in(path: Path, table: str) -> int:
    copy = sqlite3.connect(path)
    try:
        return copy.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608 - our table names
    finally:
        copy.close()


@pytest.fixture
def sqlite_only():
    if connection.vendor != "sqlite":
        pytest.skip("the SQLite backup path; PostgreSQL's is pg_dump (checked below without a server)")


@pytest.mark.django_db(transaction=True)
def test_backup_while_the_table_writes_then_restore(sqlite_only, make_campaign, gm, tmp_path):
    campaign = make_campaign("triad", name="Saved table")
    assert connection.cursor().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    stop = threading.Event()
    written, failures = [], []

    def writer():
        # Its own connection, as a second server thread would have: it commits while the copy runs.
        try:
            while not stop.is_set():
                entry, _ = feed_entry_create(campaign=campaign, author=gm, label="Roll during the backup")
                written.append(entry.pk)
        except Exception as error:  # noqa: BLE001 - reported by the test below, not lost in the thread
            failures.append(error)
        finally:
            connections.close_all()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while len(written) < 20 and thread.is_alive():  # the backup starts with writes under way
            time.sleep(0.01)
        assert not failures, failures
        before = len(written)
        target = tmp_path / "copy.sqlite3"
        out = StringIO()
        call_command("backup", str(target), stdout=out)
        during = len(written)
        # The table goes on writing once the copy is done: it left no lock behind. (A small database
        # is copied in one step, often between two of the writer's commits, so whether one lands
        # inside the copy is chance; that the copy is one committed state is checked below.)
        deadline = time.monotonic() + FRAME_WAIT
        while len(written) <= during and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        after = len(written)
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive() and not failures, failures
    assert after > during  # the writes went on after the copy
    assert f"Backup written to {target}" in out.getvalue()

    # One committed state: at least every entry committed before the copy began, none half there.
    copied = rows_in(target, "campaigns_feedentry")
    assert before <= copied <= during + 1
    check = sqlite3.connect(target)
    assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    check.close()

    # Lose the table, then put the backup back.
    FeedEntry.objects.filter(campaign=campaign).delete()
    Campaign.objects.filter(pk=campaign.pk).update(name="Changed after the backup")
    call_command("restore", str(target), interactive=False, stdout=StringIO())
    connections.close_all()
    restored = Campaign.objects.get(pk=campaign.pk)
    assert restored.name == "Saved table"
    assert FeedEntry.objects.filter(campaign=campaign).count() == copied
    # The restored database takes writes as before.
    feed_entry_create(campaign=restored, author=gm, label="Roll after the restore")
    assert FeedEntry.objects.filter(campaign=campaign).count() == copied + 1


@pytest.mark.django_db(transaction=True)
def test_backup_never_overwrites_and_restore_refuses_a_stranger(sqlite_only, tmp_path):
    taken = tmp_path / "taken.sqlite3"
    taken.write_text("an older backup")
    with pytest.raises(CommandError, match="exists already"):
        call_command("backup", str(taken))
    assert taken.read_text() == "an older backup"

    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(CommandError, match="not a SQLite database"):
        call_command("restore", str(junk), interactive=False)
    other = tmp_path / "other.sqlite3"
    sqlite3.connect(other).execute("CREATE TABLE notes (text TEXT)").connection.close()
    with pytest.raises(CommandError, match="not one of this app's"):
        call_command("restore", str(other), interactive=False)
    with pytest.raises(CommandError, match="no backup file"):
        call_command("restore", str(tmp_path / "missing.sqlite3"), interactive=False)
    assert connection.cursor().execute("SELECT COUNT(*) FROM django_migrations").fetchone()[0] > 0


def test_backup_default_path_is_under_backups():
    path = backup_command.default_target("sqlite")
    assert path.parent.name == "backups" and path.name.startswith("tabletop-") and path.suffix == ".sqlite3"


def test_pg_dump_and_pg_restore_lines_keep_the_password_off_the_command_line(tmp_path):
    database = {"NAME": "tabletop", "HOST": "db", "PORT": 5432, "USER": "app", "PASSWORD": "s3cret"}
    dump, env = backup_command.postgres_command(database, "pg_dump", tmp_path / "t.dump")
    assert dump == [
        "pg_dump", "--host", "db", "--port", "5432", "--username", "app",
        "--format=custom", "--no-owner", f"--file={tmp_path / 't.dump'}", "tabletop",
    ]  # fmt: skip
    assert env["PGPASSWORD"] == "s3cret" and "s3cret" not in " ".join(dump)
    restore, _ = backup_command.postgres_command(database, "pg_restore", tmp_path / "t.dump")
    assert restore[0] == "pg_restore" and "--clean" in restore and "--dbname=tabletop" in restore
    assert restore[-1] == str(tmp_path / "t.dump")


# ----- LAN addresses (loopback only) -----------------------------------------------------------------


def test_only_addresses_another_machine_can_reach_count():
    assert not lan.is_usable("127.0.0.1") and not lan.is_usable("::1")
    assert not lan.is_usable("0.0.0.0") and not lan.is_usable("169.254.3.4")  # noqa: S104
    assert not lan.is_usable("not an address")
    assert lan.is_usable("192.168.1.20") and lan.is_usable("10.0.0.5")


def test_lan_addresses_drop_loopback_and_duplicates(monkeypatch):
    monkeypatch.setattr(lan, "_route_address", lambda: "127.0.0.1")
    monkeypatch.setattr(lan, "_hostname_addresses", lambda: ["127.0.1.1", "127.0.0.1"])
    assert lan.lan_addresses() == []
    # A loopback-only machine still gets a URL that works on itself.
    assert lan.serving_urls("0.0.0.0", 8123) == ["http://127.0.0.1:8123"]  # noqa: S104
    assert lan.serving_urls("127.0.0.1", 8123) == ["http://127.0.0.1:8123"]
    assert lan.serving_urls("::1", 8123) == ["http://[::1]:8123"]


def test_the_address_probe_sends_nothing():
    # Connecting a UDP socket only picks a route; whatever this machine has, the answer is an address.
    found = lan.lan_addresses()
    assert all(lan.is_usable(address) for address in found)


def test_demo_prints_the_address_it_serves_and_the_invite_links(db, monkeypatch):
    monkeypatch.setenv("HOST", "127.0.0.1")
    monkeypatch.setenv("PORT", "8765")
    out = StringIO()
    call_command("demo", stdout=out)
    text = out.getvalue()
    assert "Demo table ready at http://127.0.0.1:8765/" in text
    assert "HOST=0.0.0.0 lets the room join" in text
    for campaign in Campaign.objects.all():
        assert f"http://127.0.0.1:8765/join/{campaign.invite_token}/" in text


def test_debug_answers_on_this_machines_lan_addresses(client):
    # The request never leaves the process: the test client only sets the Host header.
    if "DJANGO_ALLOWED_HOSTS" in os.environ:
        pytest.skip("DJANGO_ALLOWED_HOSTS is set, so it alone decides")
    for address in lan.lan_addresses():
        assert client.get("/accounts/login/", HTTP_HOST=f"{address}:8000").status_code == 200
    assert client.get("/accounts/login/", HTTP_HOST="evil.example:8000").status_code == 400


@pytest.mark.django_db(transaction=True)
def test_a_backup_keeps_the_portraits_and_a_restore_puts_them_back(
    sqlite_only, make_campaign, player, tmp_path, settings
):
    settings.MEDIA_ROOT = tmp_path / "media"
    campaign = make_campaign("triad", players=[player])
    portraits = settings.MEDIA_ROOT / "portraits"
    portraits.mkdir(parents=True)
    (portraits / "4f1c.webp").write_bytes(b"RIFF-a-portrait")
    target = tmp_path / "copy.sqlite3"
    out = StringIO()
    call_command("backup", str(target), stdout=out)
    assert "1 uploaded file(s) copied" in out.getvalue()
    assert (tmp_path / "copy.sqlite3.media" / "portraits" / "4f1c.webp").read_bytes() == b"RIFF-a-portrait"

    # The disk with the uploads is lost; the restore puts them back with the database.
    (portraits / "4f1c.webp").unlink()
    Campaign.objects.filter(pk=campaign.pk).update(name="Changed after the backup")
    call_command("restore", str(target), interactive=False, stdout=StringIO())
    connections.close_all()
    assert (portraits / "4f1c.webp").read_bytes() == b"RIFF-a-portrait"
    assert Campaign.objects.get(pk=campaign.pk).name != "Changed after the backup"
