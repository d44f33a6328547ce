"""Real servers for the server tests: `estimation serve` as a subprocess on 127.0.0.1, SQLite and PostgreSQL.

The PostgreSQL server is a throwaway cluster started here from the installed binaries (or the one named by
TEST_DATABASE_URL). A machine without PostgreSQL FAILS these tests, it never skips them: scripts/test.sh
installs the Debian package when it is missing.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import ServerProcess, free_port

PG_HELP = ("PostgreSQL is needed for the server tests and was not found: run `bash scripts/test.sh` as root "
           "(it installs the postgresql package), or set TEST_DATABASE_URL=postgresql+asyncpg://...")


def _pg_bindir() -> Path | None:
    def version(path: str) -> int:
        name = Path(path).parent.parent.name
        return int(name) if name.isdigit() else 0

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _as_postgres(cmd: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the postgres user then."""
    if os.geteuid() != 0:
        return cmd
    return ["runuser", "-u", "postgres", "--", *cmd]


@pytest.fixture(scope="session")
def postgres_base() -> Iterator[str]:
    """A URL (without a database name) of a running PostgreSQL server."""
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        yield given.rsplit("/", 1)[0]
        return
    bindir = _pg_bindir()
    if bindir is None:
        pytest.fail(PG_HELP)
    workdir = tempfile.mkdtemp(prefix="estimation-pg-")
    data = os.path.join(workdir, "data")
    if os.geteuid() == 0:
        shutil.chown(workdir, "postgres", "postgres")
    port = free_port()
    subprocess.run(_as_postgres([str(bindir / "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
                                 "--no-sync", "-E", "UTF8"]), check=True, capture_output=True)
    opts = f"-p {port} -k {workdir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    log = os.path.join(workdir, "log")
    subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", data, "-o", opts, "-l", log, "-w", "start"]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_as_postgres([str(bindir / "pg_ctl"), "-D", data, "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(workdir, ignore_errors=True)


def new_postgres_database(base: str) -> str:
    """A fresh, empty database on the test server, so that each server under test starts from nothing."""
    import asyncpg

    name = "est_" + uuid.uuid4().hex[:12]
    dsn = base.replace("postgresql+asyncpg://", "postgresql://") + "/postgres"

    async def create() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return f"{base}/{name}"


@pytest.fixture(scope="session")
def database_url_factory(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    def make(kind: str) -> str:
        if kind == "sqlite":
            path = tmp_path_factory.mktemp("db") / "estimation.db"
            return f"sqlite+aiosqlite:///{path}"
        base = request.getfixturevalue("postgres_base")
        return new_postgres_database(base)

    return make


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, database_url_factory) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    """One real server per database for the whole session; tests make their own players and tables."""
    proc = ServerProcess(database_url_factory(request.param), name=request.param)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()
