"""Cluster mode without processes: the generated HAProxy configuration is valid and routes what it should,
SQLite is refused, and the bus hook names the Redis bus."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from estimation.server import Settings
from estimation.server.bus import InMemoryBus
from estimation.server.bus_choice import open_bus
from estimation.server.cluster import HAPROXY_HELP, Backend, find_haproxy, haproxy_config
from estimation.server.hub import Hub
from estimation.server.ownership import Ownership
from estimation.server.social import Social


def test_haproxy_config_is_valid(tmp_path: Path) -> None:
    haproxy = find_haproxy()
    if haproxy is None:
        pytest.fail(HAPROXY_HELP + ": run `bash scripts/test.sh` as root")
    text = haproxy_config("127.0.0.1:8000", [Backend("w1", "10.0.0.1:8001"), Backend("w2", "10.0.0.2:8001")])
    path = tmp_path / "haproxy.cfg"
    path.write_text(text)
    checked = subprocess.run([haproxy, "-c", "-f", str(path)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "balance hash path,field(4,/)" in text and "hash-type consistent" in text
    assert "track tables/w1" in text and "balance roundrobin" in text


@pytest.mark.parametrize(("path", "table"), [
    ("/ws/tables/17", True), ("/api/tables/17/join", True), ("/api/tables/17", True),
    ("/api/tables", False), ("/api/tables/", False), ("/api/tables/x1", False), ("/api/guests", False),
    ("/ws/lobby", False), ("/", False),
])
def test_table_routes(path: str, table: bool) -> None:
    """The frontend's ACL (read back from the configuration) picks exactly the routes of one table, and the
    hash key (the 4th field of the path) is the table id for both the socket and the REST routes."""
    text = haproxy_config("127.0.0.1:8000", [Backend("w1", "127.0.0.1:8001")])
    pattern = re.search(r"acl table_route path_reg (\S+)", text)
    assert pattern is not None
    assert bool(re.search(pattern.group(1), path)) is table
    if table:
        assert path.split("/")[3] == "17"


def test_cluster_refuses_sqlite(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", cluster=True)
    with pytest.raises(ValueError, match="PostgreSQL"):
        Hub(settings, Social)
    with pytest.raises(ValueError, match="PostgreSQL"):
        Ownership(settings.database_url, 2.0)


def test_serve_cluster_refuses_sqlite(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from estimation.cli import app

    result = CliRunner().invoke(app, ["serve", "--cluster", "--database-url",
                                      f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"])
    assert result.exit_code == 2
    assert "cluster mode needs PostgreSQL" in result.output


def test_bus_hook() -> None:
    assert isinstance(open_bus(""), InMemoryBus)
    with pytest.raises(ValueError, match="unknown bus URL"):
        open_bus("kafka://x")
