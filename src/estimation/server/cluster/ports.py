"""Ports for the children a test, a benchmark or ``estimation cluster`` starts on 127.0.0.1 (workers,
PostgreSQL, Redis): one found free, and what to do when another process takes it first.

Finding a port free and the child binding it are two moments; in between, any process's outgoing
connection may draw the same port from the ephemeral range. The child then exits saying its address was in
use, and its starter tries again on a new port (a restart, whose port clients know, tries the same one).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def free_port() -> int:
    """A port of 127.0.0.1 that was free a moment ago. Another process can take it before ours binds it
    (every outgoing connection draws a port from the same range): a child that exits saying so
    (:func:`said_port_taken`) is started again on new ports, :data:`PORT_ATTEMPTS` times at most."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: Starts tried when a child finds the port :func:`free_port` gave it taken.
PORT_ATTEMPTS = 5


class PortTaken(RuntimeError):
    """A child process could not bind its port: another process took it first."""


def said_port_taken(said: str) -> bool:
    """Whether a child's last words (uvicorn's, redis-server's) are that its port was in use."""
    return "address already in use" in said.lower()


def exited(who: str, code: int | None, log: Path, offset: int) -> RuntimeError:
    """The error for a child that exited before it served: :class:`PortTaken` if its log since ``offset``
    says its port was in use (its starter tries again), else a plain error with its last words."""
    said = said_since(log, offset)
    if said_port_taken(said):
        return PortTaken(f"{who}: {said[-2000:]}")
    return RuntimeError(f"{who} exited with {code}:\n{said[-3000:]}")


def said_since(path: Path, offset: int) -> str:
    """What a child wrote to its log at ``path`` after ``offset`` (earlier starts share the file)."""
    try:
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")
    except OSError:
        return ""


def start_retrying(start: Callable[[], T], new_ports: Callable[[], None] | None) -> T:
    """``start()``, again while it raises :class:`PortTaken` (:data:`PORT_ATTEMPTS` times at most): after
    ``new_ports()``, or, when that is None (a restart: clients know the port), on the same port a second
    later."""
    for attempt in range(PORT_ATTEMPTS):
        try:
            return start()
        except PortTaken:
            if attempt == PORT_ATTEMPTS - 1:
                raise
            if new_ports is None:
                time.sleep(1.0)
            else:
                new_ports()
    raise AssertionError("unreachable")
