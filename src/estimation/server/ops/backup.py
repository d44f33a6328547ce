"""Backups of the server's database and their restore, for ``estimation backup`` and ``estimation restore``.

A backup is taken while the server runs and is consistent: SQLite's online backup API copies the pages
under a read transaction (a commit in progress is either wholly in the copy or not at all), and
``pg_dump`` reads one snapshot. A table in progress in the backup resumes, after a restore, at the last
version it had committed when the backup began: the journal and the table rows are in the same copy.

What each path loses at most is in docs/deploy.md: a backup loses what was committed after it started;
PostgreSQL's continuous archiving loses at most the WAL segment not yet archived.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit


class BackupError(Exception):
    """A backup or restore that cannot be done, with the reason in one line for the command line."""


@dataclass(frozen=True)
class Target:
    """Where a database URL points: a SQLite file, or a PostgreSQL database in libpq's form."""

    kind: str  # "sqlite" or "postgresql"
    location: str  # the file's path, or a ``postgresql://`` URL that pg_dump and pg_restore accept


def parse_url(url: str) -> Target:
    """The server's SQLAlchemy URL as a target: ``sqlite+aiosqlite:///path`` or ``postgresql+asyncpg://...``
    (the driver suffix is SQLAlchemy's; libpq's tools take the plain scheme)."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme == "sqlite":
        path = unquote(url.split(":///", 1)[1]) if ":///" in url else ""
        if not path or path == ":memory:":
            raise BackupError(f"a SQLite database in memory has nothing to back up: {url}")
        return Target("sqlite", path)
    if scheme in ("postgresql", "postgres"):
        return Target("postgresql", parts._replace(scheme="postgresql").geturl())
    raise BackupError(f"unknown database URL (sqlite+aiosqlite:///... or postgresql+asyncpg://...): {url}")


def _pg_tool(name: str) -> str:
    """``pg_dump`` or ``pg_restore``: on the PATH, else the newest of Debian's /usr/lib/postgresql/N/bin."""
    found = shutil.which(name)
    if found:
        return found
    from ..cluster.pgcluster import find_bindir

    bindir = find_bindir()
    if bindir is not None and (bindir / name).exists():
        return str(bindir / name)
    raise BackupError(f"{name} was not found: install PostgreSQL's client tools (Debian: postgresql-client)")


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise BackupError(f"{Path(cmd[0]).name} failed: {last}")


def _sqlite_copy(source_path: str | Path, dest_path: str | Path) -> None:
    """Copy one SQLite database into another through the online backup API, never as a file: a copy taken
    during a commit (or with the WAL not yet checkpointed) is not a database."""
    source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True)
    try:
        try:
            source.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise BackupError(f"{source_path} is not a SQLite database: {exc}") from None
        dest = sqlite3.connect(dest_path)
        try:
            source.backup(dest)
        finally:
            dest.close()
    finally:
        source.close()


def backup(url: str, out: Path) -> Target:
    """Write a consistent copy of the database at ``url`` to ``out`` while the server may be running."""
    target = parse_url(url)
    if out.exists():
        raise BackupError(f"{out} exists: a backup never overwrites a file")
    if target.kind == "sqlite":
        if not Path(target.location).is_file():
            raise BackupError(f"no SQLite database at {target.location}")
        _sqlite_copy(target.location, out)
    else:
        # The custom format: compressed, and pg_restore can restore it into an empty database.
        _run([_pg_tool("pg_dump"), "--format=custom", "--no-owner", f"--file={out}", target.location])
    return target


def restore(backup_file: Path, url: str, force: bool = False) -> Target:
    """Restore ``backup_file`` into the database at ``url``, which must be empty (or ``force``: replaced).

    Refusing a database that holds data is the default because a restore over a live database would
    silently drop every game played since the backup."""
    target = parse_url(url)
    if not backup_file.is_file():
        raise BackupError(f"no backup file at {backup_file}")
    if target.kind == "sqlite":
        dest_path = Path(target.location)
        if dest_path.exists() and dest_path.stat().st_size > 0 and not force:
            raise BackupError(f"{dest_path} exists: restore into a new file, or pass --force to replace it")
        for suffix in ("-wal", "-shm"):
            stale = Path(f"{dest_path}{suffix}")
            if stale.exists():
                os.unlink(stale)
        _sqlite_copy(backup_file, dest_path)
    else:
        cmd = [_pg_tool("pg_restore"), "--no-owner", "--exit-on-error", f"--dbname={target.location}"]
        if force:
            cmd[1:1] = ["--clean", "--if-exists"]
        _run([*cmd, str(backup_file)])
    return target
