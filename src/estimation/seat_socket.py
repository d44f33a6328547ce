"""A seat's table socket that resumes as the browser does: the protocol's reconnect rules as a Python client.

docs/protocol.md: a client whose socket closes, or that is told its table moved to another worker, connects
again with ``last_version`` and sends again every action it has no ack for, with the same ``id`` (the
server applies an id once). :class:`SeatSocket` does exactly that, in a task of its own, and keeps what a
checker needs afterwards: every ack's version, the errors, the latency of each ack, how often it connected
and was told to move. :class:`Seats` is a table's four of them, played one action at a time.

The cluster's tests (tests/server/test_cluster.py) and its soak (bench/soak.py) drive tables through a
balancer with these while workers die under them; one client serves both so that what the soak measures is
what the tests check. It needs the ``websockets`` package (the server extra).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Callable
from typing import Any

import websockets


class SeatSocket:
    """One seat's socket, read by a task of its own that reconnects (with its last version) whenever the
    socket closes or the server says the table moved, then sends again the actions it has no ack for."""

    def __init__(self, ws_base: str, table_id: int, token: str, changed: asyncio.Event) -> None:
        self.url = f"{ws_base}/ws/tables/{table_id}"
        self.token = token
        self.changed = changed  # set on every message and every connect or drop: the table looks again
        self.ws: Any = None
        self.seat = 0
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.connected = False
        self.acks: dict[str, int] = {}  # action id -> the version its ack named
        self.pending: dict[str, tuple[str, int]] = {}  # action id -> (action, version): no ack yet
        self.sent_at: dict[str, float] = {}
        self.latency: list[tuple[float, float]] = []  # (sent at, seconds to its ack)
        self.connections = 0  # welcomes: 1 without a reconnect
        self.moved = 0  # times told the table moved (at the hello or later)
        self.errors: list[dict[str, Any]] = []
        self.task: asyncio.Task[None] | None = None
        self.ids = 0

    @property
    def reconnects(self) -> int:
        return max(0, self.connections - 1)

    def error_codes(self) -> dict[str, int]:
        """How many errors of each code the server sent."""
        counts: dict[str, int] = {}
        for e in self.errors:
            code = str(e.get("code"))
            counts[code] = counts.get(code, 0) + 1
        return counts

    def start(self) -> None:
        self.task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        if self.ws is not None:
            self.ws.transport.abort()

    async def _connect(self) -> None:
        while True:
            try:
                ws = await websockets.connect(self.url, open_timeout=10, max_size=2**22, max_queue=None)
                hello: dict[str, Any] = {"type": "hello", "token": self.token}
                if self.version:
                    hello["last_version"] = self.version
                await ws.send(json.dumps(hello))
                first = json.loads(await asyncio.wait_for(ws.recv(), 15))
            except (OSError, websockets.exceptions.WebSocketException, TimeoutError):
                await asyncio.sleep(0.2)
                continue
            if first["type"] != "welcome":  # moved (to come back in retry_ms), or a worker going away
                if first["type"] == "moved":
                    self.moved += 1
                ws.transport.abort()
                await asyncio.sleep(first.get("retry_ms", 200) / 1000)
                continue
            self.ws, self.seat = ws, first["seat"]
            self.connections += 1
            return

    async def _run(self) -> None:
        while True:
            await self._connect()
            try:
                resent = False
                async for raw in self.ws:
                    msg = json.loads(raw)
                    self._handle(msg)
                    if msg["type"] == "moved":
                        self.moved += 1
                        break
                    if msg["type"] in ("snapshot", "resume") and not resent:
                        resent = True
                        self.connected = True
                        for action_id, (action, version) in list(self.pending.items()):
                            await self._send(action_id, action, version)
                    self.changed.set()
            except (websockets.exceptions.ConnectionClosed, OSError):
                pass
            self.connected = False
            self.changed.set()
            with contextlib.suppress(Exception):
                self.ws.transport.abort()

    def _handle(self, msg: dict[str, Any]) -> None:
        if msg.get("view") is not None:
            self.view = msg["view"]
        kind = msg["type"]
        if kind in ("update", "snapshot", "resume"):
            self.version = msg["version"]
        elif kind == "ack":
            self.acks[msg["id"]] = msg["version"]
            self.pending.pop(msg["id"], None)
            sent = self.sent_at.pop(msg["id"], None)
            if sent is not None:
                self.latency.append((sent, time.monotonic() - sent))
        elif kind == "error":
            self.errors.append(msg)
            self.pending.pop(str(msg.get("id")), None)

    async def _send(self, action_id: str, action: str, version: int) -> None:
        with contextlib.suppress(Exception):  # a socket closing under us: resent after the reconnect
            await self.ws.send(json.dumps({"type": "action", "id": action_id, "action": action,
                                           "version": version}))

    async def act(self, action: str) -> str:
        """Send ``action`` (now if connected, else at the reconnect); its id, to look for its ack."""
        self.ids += 1
        action_id = f"s{self.seat}-{self.ids}-{random.randrange(10**9)}"
        self.pending[action_id] = (action, self.version)
        self.sent_at[action_id] = time.monotonic()
        if self.connected:
            await self._send(action_id, action, self.version)
        return action_id

    async def chat(self, line: str) -> None:
        if self.connected:
            with contextlib.suppress(Exception):
                await self.ws.send(json.dumps({"type": "chat", "text": line}))


class Seats:
    """A table's four seat sockets (one per token, in seat order of joining), played one action at a time:
    each action acked and seen by all four before the next."""

    def __init__(self, ws_base: str, table_id: int, tokens: list[str]) -> None:
        self.id = table_id
        self.changed = asyncio.Event()
        self.clients = [SeatSocket(ws_base, table_id, t, self.changed) for t in tokens]
        self.sent: dict[str, tuple[int, str]] = {}  # action id -> (seat, action)
        self.rng = random.Random(table_id)

    def start(self) -> None:
        for c in self.clients:
            c.start()

    async def stop(self) -> None:
        for c in self.clients:
            await c.stop()

    def acked(self) -> dict[str, int]:
        return {k: v for c in self.clients for k, v in c.acks.items()}

    def settled(self) -> bool:
        """Every client connected and at the same version, which is at least every acked action's (an ack
        comes before the update that shows it)."""
        top = max([c.version for c in self.clients] + [v for c in self.clients for v in c.acks.values()])
        return all(c.connected and c.version == top and c.view is not None for c in self.clients)

    async def until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (True) or ``timeout`` seconds pass (False)."""
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.2))
        return True

    async def step(self, timeout: float) -> str | None:
        """One random legal action by the seat to move, once every client has settled, and its ack seen
        by all four. The action's id; None when the game is over. Raises AssertionError on a timeout."""
        if not await self.until(self.settled, timeout):
            raise AssertionError(f"table {self.id}: not settled in time; versions "
                                 f"{[(c.seat, c.version, c.connected) for c in self.clients]}")
        view = self.clients[0].view
        assert view is not None
        if view["over"]:
            return None
        seat = int(view["to_move"])
        mover = self.clients[seat]
        assert mover.view is not None and mover.view["legal"], mover.view
        action = str(self.rng.choice(mover.view["legal"]))
        action_id = await mover.act(action)
        self.sent[action_id] = (seat, action)
        if not await self.until(lambda: action_id in mover.acks or action_id not in mover.pending, timeout):
            raise AssertionError(f"table {self.id}: no ack for {action_id} in time")
        assert action_id in mover.acks, (action_id, mover.errors[-3:])
        version = mover.acks[action_id]
        if not await self.until(lambda: all(c.version >= version for c in self.clients), timeout):
            raise AssertionError(f"table {self.id}: version {version} not seen by every seat in time")
        return action_id
