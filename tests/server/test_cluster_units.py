"""Cluster mode's parts: the generated HAProxy configuration is valid and routes what it should, SQLite is
refused, the bus hook names the Redis bus, and `estimation cluster` outlives a killed worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from server_helpers import ROOT

from estimation.server import Settings
from estimation.server.cluster.bus import InMemoryBus
from estimation.server.cluster.bus_choice import open_bus
from estimation.server.cluster.launcher import HAPROXY_HELP, Backend, find_haproxy, haproxy_config
from estimation.server.cluster.ownership import Ownership
from estimation.server.cluster.pgcluster import create_database
from estimation.server.hub import Hub
from estimation.server.social.service import Social


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


def _children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, with their command lines (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            out.append((int(entry.name), cmdline))
    return out


def test_the_cluster_command_outlives_a_killed_worker(postgres_base: str) -> None:
    """`estimation cluster`: a worker SIGKILLed is reported and the cluster goes on serving through the
    balancer (a try-out may kill one to watch the others take over); Ctrl-C then stops everything."""
    if find_haproxy() is None:
        pytest.fail(HAPROXY_HELP + ": run `bash scripts/test.sh` as root")
    cmd = [sys.executable, "-m", "estimation", "cluster", "--workers", "2", "--port", "0", "--redis", "",
           "--database-url", create_database(postgres_base)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(ROOT))
    try:
        assert proc.stdout is not None and proc.stderr is not None
        line = proc.stdout.readline()
        url = re.search(r"at (http://[\d.:]+)/", line)
        assert url, line
        workers = [pid for pid, cmdline in _children(proc.pid) if " serve " in cmdline]
        assert len(workers) == 2, _children(proc.pid)
        os.kill(workers[0], signal.SIGKILL)
        said = proc.stderr.readline()
        assert re.match(r"worker w\d exited \(-9\): the others take over its tables", said), said
        assert proc.poll() is None, "the cluster stopped with one worker left"
        deadline = time.monotonic() + 15  # the balancer's health checks take the dead one out
        while httpx.get(f"{url.group(1)}/api/health", timeout=5).status_code != 200:
            assert time.monotonic() < deadline, "nothing served after a worker died"
            time.sleep(0.2)
        for _ in range(6):  # every request now reaches the live worker
            assert httpx.get(f"{url.group(1)}/api/health", timeout=5).status_code == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0
        assert all(not Path(f"/proc/{pid}").exists() for pid in workers[1:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
