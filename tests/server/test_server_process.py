"""The tests' own server process: a port taken between finding it free and binding it is not a failure."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
from server_helpers import ServerProcess


def test_a_server_whose_port_was_taken_before_it_bound_starts_on_another(tmp_path: Path) -> None:
    """CI once failed a test at set-up: its server's port, found free, had been taken by the time the
    server bound it (outgoing connections draw their ports from the same range)."""
    proc = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'taken.db'}", name="taken")
    taken = proc.port
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", taken))
        squatter.listen()
        proc.start()
        try:
            assert proc.port != taken
            assert httpx.get(proc.base + "/api/health", timeout=5.0).status_code == 200
        finally:
            proc.stop()
