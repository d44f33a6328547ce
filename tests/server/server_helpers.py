"""Helpers for the server tests: a server subprocess, a REST client, a WebSocket player, and the checks."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from estimation.server.cluster.launcher import redis_answers
from estimation.server.cluster.ports import exited, free_port, start_retrying

ROOT = Path(__file__).resolve().parents[2]
_names = itertools.count(1)




class ServerProcess:
    """`estimation serve` as a child process: started, killed (SIGKILL too) and restarted on one database.

    Its Prometheus metrics are on a port of their own (``metrics_port``); :meth:`figures` reads them."""

    def __init__(self, database_url: str, name: str = "", env: dict[str, str] | None = None,
                 command: list[str] | None = None) -> None:
        #: What runs ``serve ...``: the installed package, or a script that registers more first.
        self.command = command or [sys.executable, "-m", "estimation"]
        self.database_url = database_url
        self.name = name
        self.port = free_port()
        self.metrics_port = free_port()
        # The per-address limits on creating guests, accounts and tables, on new sockets, on chat and on
        # REST over all of an address's sessions, and the spectators' chat per table, are off: every test's
        # players come from 127.0.0.1 (test_abuse_limits.py and test_shared_limits.py test the limits on
        # servers of their own).
        # Short turn clocks too, which start at once after a round (no time to read its scores): the tests
        # let a clock of a second or a few run out (test_round_end_clock.py tests the defaults).
        self.env = {"ESTIMATION_BOT_DELAY": "0", "ESTIMATION_CREATE_PER_MINUTE": "0",
                    "ESTIMATION_MIN_TURN_SECONDS": "1", "ESTIMATION_ROUND_END_SECONDS": "0",
                    "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "0",
                    "ESTIMATION_REST_ADDRESS_RATE_PER_SECOND": "0", "ESTIMATION_CHAT_ADDRESS_PER_SECOND": "0",
                    "ESTIMATION_SPECTATOR_CHAT_PER_SECOND": "0",
                    "ESTIMATION_METRICS_PORT": str(self.metrics_port), **(env or {})}
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = False

    @property
    def log_path(self) -> Path:
        return Path(os.environ.get("TMPDIR", "/tmp")) / f"estimation-server-{self.port}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> None:
        """Start the server and wait until it answers. A port that :func:`free_port` found free can be taken
        before the server binds it (by any process's outgoing connection: they draw from the same range);
        then a first start tries new ports, and a restart (clients know its port) the same port again."""
        start_retrying(lambda: self._start(timeout), None if self.started else self._new_ports)
        self.started = True

    def _new_ports(self) -> None:
        self.port, self.metrics_port = free_port(), free_port()
        self.env["ESTIMATION_METRICS_PORT"] = str(self.metrics_port)

    def _start(self, timeout: float) -> None:
        env = {**os.environ, **self.env, "DATABASE_URL": self.database_url}
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        logged = log.tell()
        self.proc = subprocess.Popen(
            [*self.command, "serve", "--port", str(self.port), "--log-level", "warning"],
            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(ROOT))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise exited("server", self.proc.returncode, self.log_path, logged)
            try:
                if httpx.get(self.base + "/api/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not start:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, exactly like a crash."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-5000:]
        except OSError:
            return ""

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def figures(self) -> dict[str, float]:
        """The server's metrics now (see :func:`parse_metrics`)."""
        response = httpx.get(self.metrics_url, timeout=30.0)
        assert response.status_code == 200, response.text
        return parse_metrics(response.text)


def parse_metrics(text: str) -> dict[str, float]:
    """Prometheus text as ``{sample: value}``, a sample named as exposed: ``estimation_sockets``,
    ``estimation_actions_total``, ``estimation_tables{status="playing"}``."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            out[sample.name + (f"{{{labels}}}" if labels else "")] = sample.value
    return out


REDIS_HELP = ("redis-server is needed for the bus tests and was not found: run `bash scripts/test.sh` as root"
              " (it installs the redis-server package)")


def start_redis() -> RedisProcess:
    """A started throwaway ``redis-server`` (stop it when done); the test FAILS without one, never skips."""
    import pytest

    try:
        redis = RedisProcess()
    except FileNotFoundError:
        pytest.fail(REDIS_HELP)
    redis.start()
    return redis


class RedisProcess:
    """A throwaway ``redis-server`` on a free port of 127.0.0.1 (nothing saved to disk): stopped, killed and
    started again on the same port, as a restarted Redis is."""

    def __init__(self) -> None:
        exe = shutil.which("redis-server") or "/usr/sbin/redis-server"
        if not os.path.exists(exe):
            raise FileNotFoundError("redis-server")
        self.exe = exe
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="estimation-redis-")
        self.proc: subprocess.Popen[bytes] | None = None
        self.started = False
        self.log_path = Path(self.dir) / "redis.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20.0) -> None:
        """Start it and wait for its PONG; a port taken before it bound it: new ports on a first start, the
        same port again on a restart (as :meth:`ServerProcess.start`)."""
        start_retrying(lambda: self._start(timeout), None if self.started else self._new_port)
        self.started = True

    def _new_port(self) -> None:
        self.port = free_port()

    def _start(self, timeout: float) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        logged = log.tell()
        self.proc = subprocess.Popen(
            [self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--daemonize", "no", "--loglevel", "warning"],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise exited("redis-server", self.proc.returncode, self.log_path, logged)
            if redis_answers(self.port):
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start: {self.log()}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        """SIGKILL: Redis goes without a word to its clients, as in a crash."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(10)

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return ""


class Api:
    """A small REST client that remembers one player's token."""

    def __init__(self, server: ServerProcess, token: str | None = None,
                 account: dict[str, Any] | None = None) -> None:
        self.server = server
        self.token = token
        self.account = account or {}
        self.http = httpx.Client(base_url=server.base, timeout=30.0)

    @property
    def id(self) -> int:
        return int(self.account["id"])

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        return self.http.get(path, headers={**self.headers(), **(headers or {})}, **kw)

    def post(self, path: str, body: Any = None, headers: dict[str, str] | None = None,
             **kw: Any) -> httpx.Response:
        return self.http.post(path, json=body if body is not None else {},
                              headers={**self.headers(), **(headers or {})}, **kw)

    def ok(self, response: httpx.Response) -> Any:
        assert response.status_code < 300, (response.status_code, response.text)
        return response.json() if response.content else None

    @classmethod
    def guest(cls, server: ServerProcess, name: str | None = None) -> Api:
        r = httpx.post(server.base + "/api/guests", json={"name": name or f"Guest {next(_names)}"})
        assert r.status_code == 201, r.text
        body = r.json()
        return cls(server, body["token"], body["account"])

    @classmethod
    def register(cls, server: ServerProcess, name: str | None = None, password: str = "correct horse") -> Api:
        name = name or f"player{next(_names)}x{random.randrange(10**9)}"
        # Password hashing runs at the lowest CPU priority (docs/security.md): on a busy machine a sign-up
        # waits for idle CPU longer than httpx's 5 s default, which is the design, not a fault.
        r = httpx.post(server.base + "/api/accounts", json={"name": name, "password": password}, timeout=60)
        assert r.status_code == 201, r.text
        body = r.json()
        return cls(server, body["token"], body["account"])

    def create_table(self, **rules: Any) -> dict[str, Any]:
        rules.setdefault("turn_seconds", 0)
        r = self.post("/api/tables", rules)
        assert r.status_code == 201, r.text
        return dict(r.json())

    def join(self, table_id: int, **body: Any) -> dict[str, Any]:
        return dict(self.ok(self.post(f"/api/tables/{table_id}/join", body)))


class Player:
    """A WebSocket client at one table: keeps every message it receives, and its latest view."""

    def __init__(self, server: ServerProcess, table_id: int, token: str | None, invite: str | None = None):
        self.server = server
        self.table_id = table_id
        self.token = token
        self.invite = invite
        self.ws: Any = None
        self.messages: list[dict[str, Any]] = []
        self.version = 0
        self.view: dict[str, Any] | None = None
        self.seat: int | None = None
        self.acks: dict[str, int] = {}
        self.sent: dict[str, str] = {}  # action id -> the action's text
        self.errors: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    async def connect(self, last_version: int | None = None) -> dict[str, Any]:
        # max_queue=None: a test client that does not read (a spectator that only chats) still takes what
        # the server sends off the wire; with a bounded queue it stopped reading, never saw the server's
        # answer to its close and waited out the 10 s close timeout.
        self.ws = await websockets.connect(f"{self.server.ws_base}/ws/tables/{self.table_id}",
                                           max_size=2**22, open_timeout=30, max_queue=None)
        hello: dict[str, Any] = {"type": "hello"}
        if self.token:
            hello["token"] = self.token
        if self.invite:
            hello["invite"] = self.invite
        if last_version is not None:
            hello["last_version"] = last_version
        await self.send(hello)
        welcome = await self.recv()
        assert welcome["type"] == "welcome", welcome
        self.seat = welcome["seat"]
        return await self.recv()

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def send(self, message: Any) -> None:
        await self.ws.send(message if isinstance(message, str | bytes) else json.dumps(message))

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        msg = json.loads(raw)
        self.messages.append(msg)
        if msg.get("view") is not None:
            self.view = msg["view"]
        if "version" in msg and msg["type"] in ("update", "snapshot", "resume"):
            self.version = msg["version"]
        if msg["type"] == "ack":
            self.acks[msg["id"]] = msg["version"]
        if msg["type"] == "error":
            self.errors.append(msg)
        return dict(msg)

    async def until(self, predicate: Any, timeout: float = 60.0) -> dict[str, Any]:
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"seat {self.seat}: condition not met; last {self.messages[-3:]}")
            msg = await self.recv(left)
            if predicate(msg):
                return msg

    async def act(self, text: str, version: int | None = None) -> str:
        action_id = f"a{next(self._ids)}-{random.randrange(10**6)}"
        msg: dict[str, Any] = {"type": "action", "id": action_id, "action": text}
        self.sent[action_id] = text
        if version is not None:
            msg["version"] = version
        await self.send(msg)
        return action_id

    def my_turn(self) -> bool:
        v = self.view
        return v is not None and not v["over"] and v["to_move"] == self.seat and bool(v["legal"])

    async def play_to_end(self, rng: random.Random, stop_after: int | None = None,
                          timeout: float = 120, stop_when: Any = None) -> int:
        """Play random legal actions whenever it is this seat's turn, until the game is over (or
        ``stop_after`` actions made, or ``stop_when(view)`` true: a leaver's moment, say).

        Waits for each action's ack before the next, as a careful client would; returns actions made.
        """
        made = 0
        deadline = asyncio.get_running_loop().time() + timeout
        while self.view is None or not self.view["over"]:
            if asyncio.get_running_loop().time() > deadline:
                raise TimeoutError(f"seat {self.seat}: game not over in time")
            if stop_after is not None and made >= stop_after:
                return made
            if stop_when is not None and self.view is not None and stop_when(self.view):
                return made
            if self.my_turn():
                assert self.view is not None
                text = rng.choice(self.view["legal"])
                action_id = await self.act(text, self.version)
                msg = await self.until(lambda m, a=action_id: (m["type"] == "ack" and m["id"] == a)
                                       or (m["type"] == "error" and m.get("id") == a))
                if msg["type"] == "error":
                    # A stale version (a bot or the clock moved first), a rate limit, or the game ended
                    # under us (an egyptian leaver ends the match) are the only refusals a well-behaved
                    # client can get; anything else is a server bug.
                    assert msg["code"] in ("stale", "not_your_turn", "rate_limited", "game_over"), msg
                    if msg["code"] == "rate_limited":
                        await asyncio.sleep(0.2)
                    continue
                made += 1
                # Wait for the update that carries our own version, so our view is current.
                version = msg["version"]
                if self.version < version:
                    await self.until(lambda m, v=version: m["type"] == "update" and m["version"] >= v)
            else:
                await self.recv(timeout=max(1.0, deadline - asyncio.get_running_loop().time()))
        return made


# --- checks ------------------------------------------------------------------------------------------
CARD = re.compile(r"(?<![0-9A-Z])([2-9TJQKA][SHDC])(?![0-9A-Z])")
DECLARATION = re.compile(r"^\d (call|bid|declare) ")


def _strings(obj: Any) -> Any:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _keys(obj: Any) -> Any:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _keys(v)


def deals_by_key(record: dict[str, Any]) -> dict[tuple[int, int], list[set[str]]]:
    """(round, deal number within the round) -> the four hands as sets of card texts."""
    out: dict[tuple[int, int], list[set[str]]] = {}
    counts: dict[int, int] = {}
    for deal in record["deals"]:
        r = deal["round"]
        counts[r] = counts.get(r, 0) + 1
        out[(r, counts[r])] = [set(h.split()) for h in deal["hands"]]
    return out


def check_hidden(seat: int | None, messages: list[dict[str, Any]], record: dict[str, Any]) -> int:
    """No message to ``seat`` names a card of another seat's hand before that card is played.

    Every view in every message is checked against the record's true hands for the view's deal; event lists
    may name only cards being played. Also: no message ever carries a seed. Returns the views checked.
    """
    hands = deals_by_key(record)
    checked = 0
    for msg in messages:
        assert "seed" not in set(_keys(msg)), msg
        view = msg.get("view")
        if view is not None:
            assert view["seat"] == seat, (seat, view["seat"])
            key = (view["round"], view["deal"])
            if key in hands:
                deal = hands[key]
                played = {a.split()[2] for a in view["actions"] if a.split()[1] == "play"}
                if seat is None:
                    assert view["hand"] is None
                else:
                    assert set(view["hand"]) == deal[seat] - played, (view["hand"], deal[seat], played)
                hidden = set().union(*(deal[s] for s in range(4) if s != seat)) - played
                for text in _strings(view):
                    if DECLARATION.match(text):
                        continue
                    leaked = set(CARD.findall(text)) & hidden
                    assert not leaked, f"seat {seat} was shown {leaked} in {text!r}"
                checked += 1
        for batch in _event_batches(msg):
            for ev in batch:
                for k, v in ev.items():
                    if k == "action":
                        continue
                    for text in _strings(v):
                        assert not CARD.findall(text), (ev, text)
    return checked


def _event_batches(msg: dict[str, Any]) -> Any:
    if msg.get("type") == "update":
        yield msg["events"]
    elif msg.get("type") == "resume":
        for item in msg["events"]:
            yield item["events"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def play_seat(server: ServerProcess, api: Api, table_id: int, seed: int, timeout: float = 300,
                    **stop: Any) -> Player:
    """``api``'s seat at ``table_id`` played with random legal actions (seeded) until the game is over, or
    until a stop (``stop_after``, ``stop_when``: :meth:`Player.play_to_end`); the player, still connected."""
    player = Player(server, table_id, api.token)
    await player.connect()
    await player.play_to_end(random.Random(seed), timeout=timeout, **stop)
    return player


async def play_seats(server: ServerProcess, seats: list[tuple[Api, int, int]], timeout: float = 300,
                     **stop: Any) -> None:
    """Several seats, each (api, table id, seed), played at once as :func:`play_seat` plays one; their
    sockets closed at the end."""
    async def one(api: Api, table_id: int, seed: int) -> None:
        player = await play_seat(server, api, table_id, seed, timeout, **stop)
        await player.close()
    await asyncio.gather(*(one(*seat) for seat in seats))


def execute(database_url: str, sql: str, **params: Any) -> int:
    """Change the server's database directly, behind its back (the tests' own connection); rows changed."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def go() -> int:
        engine = create_async_engine(database_url)
        try:
            async with engine.begin() as conn:
                return int((await conn.execute(text(sql), params)).rowcount)
        finally:
            await engine.dispose()

    return asyncio.run(go())


def query(database_url: str, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    """Read the server's database directly (the tests' own connection, never the server's)."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    async def go() -> list[tuple[Any, ...]]:
        engine = create_async_engine(database_url)
        try:
            async with engine.connect() as conn:
                return [tuple(r) for r in (await conn.execute(text(sql), params)).all()]
        finally:
            await engine.dispose()

    return list(asyncio.run(go()))


def ledger_totals(database_url: str) -> dict[str, int]:
    def one(sql: str) -> int:
        return int(query(database_url, sql)[0][0] or 0)

    return {
        "wallets": one("SELECT SUM(balance) FROM accounts"),
        "pots": one("SELECT SUM(pot) FROM tables"),
        # Coins issued: grants (sign-up, daily) less the wallets of deleted accounts, closed in the ledger.
        "grants": one("SELECT SUM(amount) FROM ledger WHERE kind IN ('grant', 'close')"),
        "negative": one("SELECT COUNT(*) FROM accounts WHERE balance < 0")
        + one("SELECT COUNT(*) FROM tables WHERE pot < 0"),
        "mismatched_wallets": one(
            "SELECT COUNT(*) FROM accounts a WHERE a.balance <> "
            "(SELECT COALESCE(SUM(l.amount), 0) FROM ledger l WHERE l.account_id = a.id)"),
        "double_payouts": one(
            "SELECT COUNT(*) FROM (SELECT key FROM ledger GROUP BY key HAVING COUNT(*) > 1) d"),
    }
