"""Real servers for the server tests: `estimation serve` as a subprocess on 127.0.0.1, SQLite and PostgreSQL.

The PostgreSQL server is a throwaway cluster started here from the installed binaries (or the one named by
TEST_DATABASE_URL), and Redis a throwaway ``redis-server``. A machine without PostgreSQL or Redis FAILS these
tests, it never skips them: scripts/test.sh installs the Debian packages when they are missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from server_helpers import RedisProcess, ServerProcess, start_redis

from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database

PG_HELP = ("PostgreSQL is needed for the server tests and was not found: run `bash scripts/test.sh` as root "
           "(it installs the postgresql package), or set TEST_DATABASE_URL=postgresql+asyncpg://...")


@pytest.fixture(scope="session")
def postgres_base() -> Iterator[str]:
    """A URL (without a database name) of a running PostgreSQL server."""
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        yield given.rsplit("/", 1)[0]
        return
    try:
        cluster = ThrowawayCluster(durable=False)
    except FileNotFoundError:
        pytest.fail(PG_HELP)
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisProcess]:
    """One Redis for the session's tests that do not restart it (each uses a prefix of its own)."""
    redis = start_redis()
    try:
        yield redis
    finally:
        redis.stop()


@pytest.fixture(scope="module")
def module_redis() -> Iterator[RedisProcess]:
    """A Redis of the test module's own, which its tests may kill and start again."""
    redis = start_redis()
    try:
        yield redis
    finally:
        redis.stop()


@pytest.fixture()
def own_redis() -> Iterator[RedisProcess]:
    """A Redis of the test's own, to stop, kill and start again."""
    redis = start_redis()
    try:
        yield redis
    finally:
        redis.stop()


def new_postgres_database(base: str) -> str:
    """A fresh, empty database on the test server, so that each server under test starts from nothing."""
    return create_database(base)


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
