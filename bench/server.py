"""Load generator for the game server: N tables of four WebSocket clients on loopback, in its own processes.

    python bench/server.py --db sqlite --tables 10,100,500 --seconds 30 --fast 1,8 --json out.json
    python bench/server.py --db postgresql ...        # a throwaway cluster from /usr/lib/postgresql/*/bin
    DATABASE_URL=postgresql+asyncpg://... python bench/server.py --db url ...   # an existing server

Starts a real `estimation serve` subprocess on 127.0.0.1 (a fresh SQLite file, or a fresh PostgreSQL
database), then for each N in --tables: N tables (created over REST by four guests each, ``koutchina``
``micro`` by default, no bots, no clock) whose four clients play one action per second per table, as
humans do; a table that ends is replaced by a new one (created and joined over REST by the same four
guests). After --warmup seconds it measures for --seconds:

* action-to-broadcast latency: from sending an action to receiving the ``update`` of that version, on
  the acting client ("actor") and on the three others ("others"), p50/p99/max;
* actions per second committed, errors, dropped connections;
* CPU of the server process, of the database server (PostgreSQL's processes; SQLite runs inside the
  server) and of this load generator, in percent of one core; the load average before and after.

Game ends: a ``micro`` game is about 280 actions, so at one action a second a table's game lasts about
290 s. With --ramp 290 the tables start spread over one game's length, and from then on games end (and new
tables are set up) at their natural rate, about 1.7 a second at 500 tables: the steady state, and what the
500-table target is measured on. With a short --ramp every game ends within the same few seconds, 290 s
later: --ramp 10 --warmup 260 puts 500 game ends and 500 new tables' set-ups (2,000 joins and connections)
inside one window, a worst case thirty times the natural rate (and then the generators' own set-up work,
not the server, is what a window measures first). The report counts the games that ended in the window.

--fast T: T tables whose clients act the moment it is their turn (no pacing; the server's per-connection
rate limit is raised for this run), reporting committed actions per second.

The clients do not offer permessage-deflate unless --deflate (browsers always offer it, and `estimation
serve` accepts it): on loopback compression is pure CPU on both sides, and the server's share of it is
measured separately with --deflate. --spy DIR samples the server with py-spy during each measured window.
The generator also reports how late its own event loops wake (their lag is inside every latency they
measure); --procs splits the tables between that many generator processes (default 2), so that one
process's stalls do not reach every table's measurement.

--workers 1,2,4 (PostgreSQL only): each run is a cluster instead of one server, `estimation serve --cluster`
workers behind HAProxy (server/cluster/launcher.py, as `estimation cluster` starts it), with the load sent to
HAProxy; the report adds the CPU of each worker, of HAProxy (and Redis, with --redis) and the CPU of the
whole server side (workers, PostgreSQL, HAProxy, Redis) per committed action. On a machine with fewer cores
than workers this measures the cluster's overhead, not a speed-up.

--practice N,...: N practice tables a run, each one person (the generator, thinking --think seconds once
its turn comes) and three of the server's bots at --level. Give them --ramp 60 (about one koutchina
``micro`` round): an auction's decisions cost the bots ten times a card's, and tables started within a
few seconds bid at the same moments round after round, so the bots' queue fills at every auction and
empties in the play (the 4.3 s tail of bot moves reported at 320 tables with the default ramp of 5 s was
that, with a third of the bots' core idle); real tables start when their people come.

Loopback only; every run is bounded by --seconds (plus set-up), and the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
import websockets
from websockets.asyncio.client import ClientConnection

from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database
from estimation.server.cluster.ports import free_port
from estimation.server.jsontext import loads  # orjson when installed: the generator parses every update

ROOT = Path(__file__).resolve().parents[1]


# --- the database -------------------------------------------------------------------------------------
class Postgres(ThrowawayCluster):
    """A throwaway cluster (as the server tests use) with PostgreSQL's default durability (fsync and
    synchronous_commit on) unless --pg-fast, and its processes for the CPU figures."""

    def __init__(self, fast: bool, log: str | None = None) -> None:
        # With --pg-log: every statement over 20 ms and every checkpoint, with their times, kept in ``log``.
        self.keep_log = log
        settings = {"log_min_duration_statement": "20", "log_checkpoints": "on"} if log else {}
        try:
            super().__init__(durable=not fast, prefix="estimation-bench-pg-", settings=settings)
        except FileNotFoundError as exc:
            raise SystemExit(str(exc)) from None

    def new_database(self, base: str) -> str:
        return create_database(base, prefix="bench_")

    def stop(self) -> None:
        if self.keep_log:
            with contextlib.suppress(OSError):
                shutil.copyfile(self.log_path, self.keep_log)
        super().stop()

    def processes(self) -> list[psutil.Process]:
        pid = self.postmaster_pid()
        try:
            main = psutil.Process(pid) if pid else None
            return [main, *main.children(recursive=True)] if main else []
        except psutil.Error:
            return []


# --- the server ---------------------------------------------------------------------------------------
def hub_figures(text: str) -> dict[str, Any]:
    """The server's Prometheus metrics by the hub's own names (``journal_rows``, ``writer_wait_max_ms``):
    ``estimation_`` and a counter's ``_total`` dropped, a gauge in seconds back in ms."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, Any] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels or not sample.name.startswith("estimation_"):
                continue
            key, value = sample.name.removeprefix("estimation_"), sample.value
            if family.type == "counter":
                key = key.removesuffix("_total")
            elif key.endswith("_seconds"):
                key, value = key.removesuffix("_seconds") + "_ms", round(1000 * value, 3)
            out[key] = int(value) if float(value).is_integer() and not key.endswith("_seconds") else value
    return out


class Server:
    def __init__(self, database_url: str, env: dict[str, str], profile: str | None = None) -> None:
        self.database_url = database_url
        self.profile = profile
        self.port = free_port()
        self.metrics_port = free_port()
        self.env = env
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = Path(tempfile.gettempdir()) / f"estimation-bench-server-{self.port}.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def start(self) -> None:
        # The REST lobby's per-client limits are off, and so are the per-address ones (new guests and
        # tables, sign-ins, sockets): one generator stands for thousands of clients behind one address,
        # and the set-up (guests, tables, joins) is not what is measured.
        env = {**os.environ, **UNLIMITED, "ESTIMATION_METRICS_PORT": str(self.metrics_port), **self.env,
               "DATABASE_URL": self.database_url}
        with open(self.log, "ab") as log:
            serve = ["serve", "--port", str(self.port), "--log-level", "warning"]
            # uvicorn re-raises SIGTERM after its shutdown; a Python handler turns it into SystemExit, so
            # cProfile gets to write its file.
            cmd = [sys.executable, "-m", "estimation", *serve] if not self.profile else [
                sys.executable, "-c", "import cProfile, signal, sys; "
                "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0)); out = sys.argv[1]; "
                "sys.argv = ['estimation', *sys.argv[2:]]; "
                "cProfile.run('from estimation.cli import main; main()', out)",
                self.profile, *serve]
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(ROOT))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited: {self.log.read_text()[-3000:]}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/api/health", timeout=1).status_code == 200:
                    return
            time.sleep(0.1)
        raise SystemExit("server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def server_procs(self) -> list[psutil.Process]:
        return [psutil.Process(self.proc.pid)] if self.proc is not None else []

    @property
    def postgres_url(self) -> str | None:
        return self.database_url if self.database_url.startswith("postgresql") else None

    def metrics_urls(self) -> list[str]:
        return [self.metrics_url]

    def extra_procs(self) -> dict[str, list[psutil.Process]]:
        return {}


#: The per-address and per-client limits that the load generator (thousands of clients from one address)
#: must not meet; the set-up is not what is measured.
UNLIMITED = {"ESTIMATION_BOT_DELAY": "0", "ESTIMATION_REST_RATE_PER_SECOND": "0",
             "ESTIMATION_CREATE_PER_MINUTE": "0", "ESTIMATION_SIGN_INS_PER_MINUTE": "0",
             "ESTIMATION_SOCKETS_PER_ADDRESS": "0", "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "0",
             "ESTIMATION_REST_ADDRESS_RATE_PER_SECOND": "0"}


class ClusterServer:
    """``--workers N``: N workers behind HAProxy on one database (the launcher's LocalCluster)."""

    def __init__(self, database_url: str, workers: int, env: dict[str, str], redis: bool) -> None:
        from estimation.server.cluster.launcher import LocalCluster

        self.cluster = LocalCluster(workers=workers, database_url=database_url,
                                    redis="start" if redis else "", env={**UNLIMITED, **env})
        self.proc: subprocess.Popen[bytes] | None = None  # no single server process

    @property
    def base(self) -> str:
        return self.cluster.url

    def start(self) -> None:
        try:
            self.cluster.start()
        except (FileNotFoundError, RuntimeError) as exc:
            raise SystemExit(f"cluster: {exc}") from None

    def stop(self) -> None:
        self.cluster.stop()

    def server_procs(self) -> list[psutil.Process]:
        return [psutil.Process(w.pid) for w in self.cluster.running if w.proc.poll() is None]

    @property
    def postgres_url(self) -> str | None:
        return self.cluster.database_url

    def metrics_urls(self) -> list[str]:
        return [w.metrics_url for w in self.cluster.running if w.proc.poll() is None]

    def extra_procs(self) -> dict[str, list[psutil.Process]]:
        out: dict[str, list[psutil.Process]] = {}
        for role, pid in self.cluster.processes():
            if role in ("haproxy", "redis"):
                with contextlib.suppress(psutil.Error):
                    main = psutil.Process(pid)
                    out[role] = [main, *main.children(recursive=True)]
        return out


# --- the clients --------------------------------------------------------------------------------------
@dataclass
class Stats:
    measuring: bool = False
    actor: list[float] = field(default_factory=list)
    others: list[float] = field(default_factory=list)
    #: Practice tables: from a bot's turn to its move reaching the person (the server's bot delay, the
    #: bot pool's queue and the bot's thought).
    bots: list[float] = field(default_factory=list)
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    dropped: int = 0
    games: int = 0
    #: Games that ended inside the measured window (each end is a table's own transaction, then a new
    #: table's set-up: the heaviest moments of a table's life).
    games_measured: int = 0
    #: Tables whose four clients are connected (each slot counts its first table once).
    ready: int = 0
    #: Slots whose first table could not be set up (given up after ``SETUP_TRIES``).
    failed: int = 0
    #: How late this generator's own event loop wakes a 10 ms sleep (its lag is part of every latency).
    lag: list[float] = field(default_factory=list)
    #: The slowest samples, to tell a stuck table from a stalled process: (seconds, wall clock time, table
    #: id, version, the table's actions so far).
    slowest: list[tuple[float, float, int, int, int]] = field(default_factory=list)

    def sample(self, into: list[float], seconds: float, table: TableState, version: int) -> None:
        into.append(seconds)
        if seconds > SLOW_SAMPLE:
            self.slowest.append((seconds, time.time(), table.id, version, table.actions))

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


#: Samples slower than this (seconds) are kept with where and when they happened.
SLOW_SAMPLE = 0.5
#: Tries to set up a slot's table (an HTTP error in the set-up starts it again with a new table).
SETUP_TRIES = 3


@dataclass
class TableState:
    period: float
    id: int = 0
    #: Actions sent at this table so far (a slow first action points at the table's set-up).
    actions: int = 0
    last_sent: float = 0.0
    #: (version the action will commit as, seat that sent it, when it was sent, measured?)
    pending: tuple[int, int, float, bool] | None = None
    over: bool = False
    #: A practice table's person: seconds it thinks once its turn comes (None: the table's own pace).
    think: float | None = None


class Client:
    def __init__(self, ws: ClientConnection, seat: int, table: TableState, stats: Stats,
                 rng: random.Random) -> None:
        self.ws = ws
        self.seat = seat
        self.table = table
        self.stats = stats
        self.rng = rng
        self.seen = 0  # highest version whose latency this client has recorded
        self.ids = 0
        self.acting: asyncio.Task[None] | None = None
        #: The seat to move in the last view and when it came, and its round (for the bots' pace).
        self.turn: tuple[int, float, int] | None = None

    async def run(self) -> None:
        try:
            async for raw in self.ws:
                now = time.perf_counter()
                msg = loads(raw)
                kind = msg["type"]
                if kind == "error":
                    self.stats.error(msg.get("code", "?"))
                    continue
                if kind not in ("update", "snapshot", "resume"):
                    continue
                version = msg["version"]
                pending = self.table.pending
                if pending is not None and version >= pending[0] > self.seen:
                    self.seen = pending[0]
                    if pending[3] and version == pending[0]:
                        self.stats.sample(self.stats.actor if pending[1] == self.seat else self.stats.others,
                                          now - pending[2], self.table, version)
                view = msg.get("view")
                if view is None:
                    continue
                turn = self.turn
                if (turn is not None and turn[0] != self.seat and turn[2] == view["round"]
                        and self.stats.measuring and self.table.think is not None):
                    self.stats.bots.append(now - turn[1])  # a bot's move: its delay, queue and thought
                self.turn = (view["to_move"], now, view["round"])
                if view["over"]:
                    self.table.over = True
                    return
                if view["to_move"] == self.seat and view["legal"] and self.acting is None:
                    self.acting = asyncio.create_task(self.act(version, view["legal"]))
        except websockets.ConnectionClosed:
            if not self.table.over:
                self.stats.dropped += 1

    async def act(self, version: int, legal: list[str]) -> None:
        try:
            if self.table.think is not None:
                await asyncio.sleep(self.table.think)  # a person at a practice table: its own pace
            else:
                due = self.table.last_sent + self.table.period
                wait = due - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
            self.ids += 1
            text = self.rng.choice(legal)
            sent = time.perf_counter()
            self.table.last_sent = sent
            self.table.pending = (version + 1, self.seat, sent, self.stats.measuring)
            self.table.actions += 1
            await self.ws.send(json.dumps({"type": "action", "id": f"b{self.ids}", "action": text,
                                           "version": version}))
            if self.stats.measuring:
                self.stats.actions += 1
        except websockets.ConnectionClosed:
            pass
        finally:
            self.acting = None


class Guests:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http
        self.count = 0

    async def new(self) -> str:
        self.count += 1
        r = await self.http.post("/api/guests", json={"name": f"Bench {self.count}"})
        r.raise_for_status()
        return str(r.json()["token"])


async def play_tables(server: Base, slot: int, tokens: list[str], args: argparse.Namespace,
                      period: float, stats: Stats, stop: asyncio.Event, http: httpx.AsyncClient) -> None:
    """One table slot: play a game; when it ends, start a new table with the same four guests."""
    rng = random.Random(slot)
    ws_base = server.base.replace("http://", "ws://")
    first = True
    practice = args.practice_now
    if practice:
        tokens = tokens[:1]  # one person; the server's bots in seats 1-3
    while not stop.is_set():
        auth = {"Authorization": f"Bearer {tokens[0]}"}
        r = await http.post("/api/tables", headers=auth, json={
            "ruleset": args.ruleset, "length": args.length, "turn_seconds": 0,
            "bot_seats": [1, 2, 3] if practice else [], "bot_level": args.level})
        r.raise_for_status()
        tid = r.json()["id"]
        for seat, token in enumerate(tokens):
            for _ in range(100):  # a cluster: 503 table_moved while the table goes to its hashed worker
                r = await http.post(f"/api/tables/{tid}/join", headers={"Authorization": f"Bearer {token}"},
                                    json={"seat": seat})
                if r.status_code != 503:
                    break
                await asyncio.sleep(0.1)
            r.raise_for_status()
        table = TableState(period=period, id=tid,
                           last_sent=time.perf_counter() - rng.random() * period,
                           think=period if practice else None)
        sockets: list[ClientConnection] = []
        clients: list[Client] = []
        try:
            for seat, token in enumerate(tokens):
                for _ in range(100):  # a cluster: told the table moved, come again
                    ws = await websockets.connect(f"{ws_base}/ws/tables/{tid}", open_timeout=60,
                                                  max_size=2**22, ping_interval=None,
                                                  compression="deflate" if args.deflate else None)
                    await ws.send(json.dumps({"type": "hello", "token": token}))
                    welcome = json.loads(await ws.recv())
                    if welcome["type"] != "moved":
                        break
                    stats.error("moved_at_hello")
                    await ws.close()
                    await asyncio.sleep(welcome["retry_ms"] / 1000)
                sockets.append(ws)
                assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
                clients.append(Client(ws, seat, table, stats, rng))
            if first:
                stats.ready += 1
                first = False
            tasks = [asyncio.create_task(c.run()) for c in clients]
            stopper = asyncio.create_task(stop.wait())
            await asyncio.wait([*tasks, stopper], return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if table.over:
                await asyncio.wait(tasks, timeout=5)
                stats.games += 1
                if stats.measuring:
                    stats.games_measured += 1
            for t in tasks:
                t.cancel()
        finally:
            for ws in sockets:
                with contextlib.suppress(Exception):
                    await ws.close()


async def watch_lag(stats: Stats, stop: asyncio.Event) -> None:
    while not stop.is_set():
        t0 = time.perf_counter()
        await asyncio.sleep(0.01)
        if stats.measuring:
            stats.lag.append(time.perf_counter() - t0 - 0.01)


def canary() -> float:
    """Milliseconds of this thread's own CPU time that a fixed piece of pure-Python work takes.

    Thread CPU time leaves out any wait for a core, so what moves it is how fast the machine runs Python
    (a busier host, other guests on it, caches shared with the processes under test). Timed before the
    generators start and through the measured window, it tells a slow run on a slow machine apart from a
    slow server: the same code has measured p99 under 100 ms and over 200 ms with nothing else changed.
    """
    started = time.thread_time()
    counts: dict[int, int] = {}
    for i in range(10_000):
        counts[i & 1023] = counts.get(i & 1023, 0) + i
    return 1000 * (time.thread_time() - started)


async def watch_canary(samples: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        samples.append(canary())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)


def run_queue_wait(pid: int) -> float:
    """Seconds the process's main thread (the server's event loop) has spent runnable but waiting for a
    CPU (Linux schedstat): the part of the latency that is the machine's, not the server's."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def cpu(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def work(procs: list[psutil.Process]) -> dict[str, float]:
    """Counts that a cold cache does not change, summed over ``procs``: read- and write-class system calls,
    voluntary context switches (a wait: the loop went to sleep with nothing to do) and involuntary ones
    (the scheduler took the core away), and the CPU split into user and system time. Two runs whose CPU an
    action differs while these an action agree did the same work at different prices (caches, a shared
    core), not different work."""
    out = {"reads": 0.0, "writes": 0.0, "waits": 0.0, "preempted": 0.0, "user": 0.0, "system": 0.0}
    for p in procs:
        with contextlib.suppress(psutil.Error):
            io, switches, t = p.io_counters(), p.num_ctx_switches(), p.cpu_times()
            out["reads"] += io.read_count
            out["writes"] += io.write_count
            out["waits"] += switches.voluntary
            out["preempted"] += switches.involuntary
            out["user"] += t.user
            out["system"] += t.system
    return out


def per_action(before: dict[str, float], after: dict[str, float], actions: int) -> dict[str, float]:
    """:func:`work`'s growth over a window, per committed action (CPU in ms)."""
    scale = {"user": 1000.0, "system": 1000.0}
    return {key: round(scale.get(key, 1.0) * (after[key] - before[key]) / max(1, actions), 3)
            for key in before}


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1000


class Base:
    """What a generator process needs of the server: its address."""

    def __init__(self, base: str) -> None:
        self.base = base


async def generate(base: str, first: int, count: int, period: float, args: argparse.Namespace,
                   ready: Any, measure: Any, stop_all: Any) -> dict[str, Any]:
    """One generator process's share: tables ``first`` .. ``first + count - 1``, played until ``stop_all``;
    latencies are kept while the coordinator's ``measure`` event is set."""
    stats = Stats()
    stop = asyncio.Event()
    server = Base(base)
    # Pooled connections expire before uvicorn's keep-alive (5 s) closes them: reusing one the server is
    # closing that moment fails the request with a read error.
    limits = httpx.Limits(max_connections=50, keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as http:
        guests = Guests(http)
        sem = asyncio.Semaphore(20)

        async def four() -> list[str]:
            async with sem:
                return [await guests.new() for _ in range(4)]

        tokens = await asyncio.gather(*(four() for _ in range(count)))
        async def slot(i: int) -> None:
            for attempt in range(SETUP_TRIES):
                try:
                    await play_tables(server, first + i, tokens[i], args, period, stats, stop, http)
                    return
                except Exception as exc:  # a table that could not be set up: counted, never silent
                    response = getattr(exc, "response", None)
                    status = getattr(response, "status_code", None) or getattr(response, "status", None)
                    stats.error(f"slot:{type(exc).__name__}" + (f":{status}" if status else ""))
                    if attempt == SETUP_TRIES - 1 or stop.is_set():
                        stats.failed += 1
                        return
                    await asyncio.sleep(1.0)

        slots = []
        for i in range(count):
            slots.append(asyncio.create_task(slot(i)))
            await asyncio.sleep(args.ramp / count)
        deadline = time.perf_counter() + 300
        while stats.ready + stats.failed < count and time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
        # The tables, sockets and guests made so far live to the end: out of the collector's sight, so that
        # the generator's own collections (inside every latency it measures) stay short.
        gc.collect()
        gc.freeze()
        ready.put(stats.ready)
        while not measure.is_set():
            await asyncio.sleep(0.02)
        lag_task = asyncio.create_task(watch_lag(stats, stop))
        stats.measuring = True
        while measure.is_set():
            await asyncio.sleep(0.02)
        stats.measuring = False
        while not stop_all.is_set():
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait(slots, timeout=30)
        for task in slots:
            task.cancel()
        lag_task.cancel()
    return {"actor": stats.actor, "others": stats.others, "bots": stats.bots, "lag": stats.lag,
            "actions": stats.actions,
            "errors": stats.errors, "dropped": stats.dropped, "games": stats.games, "slowest": stats.slowest,
            "games_measured": stats.games_measured}


def generator_process(base: str, first: int, count: int, period: float, args: argparse.Namespace,
                      ready: Any, measure: Any, stop_all: Any, results: Any) -> None:
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    results.put(asyncio.run(generate(base, first, count, period, args, ready, measure, stop_all)))


async def run_load(server: Server | ClusterServer, pg: Postgres | None, n: int, period: float,
                   args: argparse.Namespace) -> dict[str, Any]:
    """Start the generator processes (``--procs``, the tables split between them), wait until every table
    is seated and connected plus the warm-up, then measure the server for ``--seconds``."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    ready, results = ctx.Queue(), ctx.Queue()
    measure, stop_all = ctx.Event(), ctx.Event()
    procs = max(1, min(args.procs, n))
    shares = [n // procs + (1 if i < n % procs else 0) for i in range(procs)]
    workers = []
    first = 0
    idle_canary = [canary() for _ in range(30)]  # the machine before the generators start
    t_setup = time.perf_counter()
    for count in shares:
        w = ctx.Process(target=generator_process, args=(server.base, first, count, period, args, ready,
                                                         measure, stop_all, results), daemon=True)
        w.start()
        workers.append(w)
        first += count
    try:
        seated = sum([await asyncio.to_thread(ready.get, True, 600) for _ in workers])
        if seated < n:
            print(f"warning: only {seated} of {n} tables were seated in time; measuring those", flush=True)
        await asyncio.sleep(args.warmup)
        setup = time.perf_counter() - t_setup
        server_procs = server.server_procs()
        bot_procs = [c for p in server_procs for c in p.children(recursive=True)]  # the bots' and hints'
        extra = server.extra_procs()
        db_procs = pg.processes() if pg is not None else []
        gen_procs = [psutil.Process(w.pid) for w in workers if w.pid is not None]
        load_before = os.getloadavg()
        async with httpx.AsyncClient(timeout=120) as http:
            h0 = await metrics_sum(http, server.metrics_urls())
            wal0 = await wal_position(server.postgres_url)
            c0 = (cpu(server_procs), cpu(db_procs), cpu(gen_procs))
            k0 = (work(server_procs), work(db_procs))
            b0 = cpu(bot_procs)
            w0_cpu = [cpu([p]) for p in server_procs]
            e0 = {role: cpu(procs) for role, procs in extra.items()}
            q0 = sum(run_queue_wait(p.pid) for p in server_procs)
            spies: list[subprocess.Popen[bytes]] = []
            if args.spy:
                # A sampling profile of the measured window only (not the set-up), in collapsed-stack form:
                # one file a server process (worker i of a cluster of N: server-...-w<i>of<N>.txt).
                os.makedirs(args.spy, exist_ok=True)
                mode = "fast" if period == 0 else "human"
                exe = Path(sys.executable).with_name("py-spy")
                for i, proc in enumerate(server_procs):
                    tag = "" if len(server_procs) == 1 else f"-w{i}of{len(server_procs)}"
                    out = os.path.join(args.spy, f"server-{args.db_name}-{mode}-{n}{tag}.txt")
                    spies.append(subprocess.Popen(
                        [str(exe) if exe.exists() else "py-spy", "record", "--pid", str(proc.pid),
                         "--duration", str(int(args.seconds)), "--format", "raw", "--nonblocking", "--rate",
                         "200", "--output", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            canaries: list[float] = []
            canary_stop = asyncio.Event()
            canary_task = asyncio.create_task(watch_canary(canaries, canary_stop))
            w0 = time.perf_counter()
            measure.set()
            await asyncio.sleep(args.seconds)
            measure.clear()
            canary_stop.set()
            await canary_task
            wall = time.perf_counter() - w0
            c1 = (cpu(server_procs), cpu(db_procs), cpu(gen_procs))
            k1 = (work(server_procs), work(db_procs))
            b1 = cpu(bot_procs)
            w1_cpu = [cpu([p]) for p in server_procs]
            e1 = {role: cpu(procs) for role, procs in extra.items()}
            q1 = sum(run_queue_wait(p.pid) for p in server_procs)
            load_after = os.getloadavg()
            h1 = await metrics_sum(http, server.metrics_urls())
            wal1 = await wal_position(server.postgres_url)
        await asyncio.sleep(1.0)  # let the last measured updates arrive
        for spy in spies:
            await asyncio.to_thread(spy.wait)
        stop_all.set()
        parts = [await asyncio.to_thread(results.get, True, 120) for _ in workers]
    finally:
        stop_all.set()
        for w in workers:
            await asyncio.to_thread(w.join, 30)
            if w.is_alive():
                w.kill()
    stats = Stats()
    for part in parts:
        stats.actor += part["actor"]
        stats.others += part["others"]
        stats.bots += part["bots"]
        stats.lag += part["lag"]
        stats.actions += part["actions"]
        stats.dropped += part["dropped"]
        stats.games += part["games"]
        stats.games_measured += part["games_measured"]
        stats.slowest += [tuple(x) for x in part["slowest"]]
        for code, count in part["errors"].items():
            stats.errors[code] = stats.errors.get(code, 0) + count
    everyone = stats.actor + stats.others

    def delta(key: str) -> Any:
        """A hub figure's growth over the measured window (an int stays an int)."""
        return h1.get(key, 0) - h0.get(key, 0)

    extra_cpu = {role: round(100 * (e1[role] - e0[role]) / wall, 1) for role in e0}
    # The whole server side's CPU (workers, database, balancer, bus) per committed action.
    side = (c1[0] - c0[0]) + (c1[1] - c0[1]) + sum(e1[role] - e0[role] for role in e0)
    return {
        "workers": len(server_procs), "worker_cpu_pct": [round(100 * (b - a) / wall, 1)
                                                         for a, b in zip(w0_cpu, w1_cpu, strict=True)],
        "haproxy_cpu_pct": extra_cpu.get("haproxy"), "redis_cpu_pct": extra_cpu.get("redis"),
        "cpu_ms_per_action": round(1000 * side / max(1, stats.actions), 3),
        "wal_bytes_per_action": None if wal0 is None or wal1 is None else round(
            (wal1 - wal0) / max(1, stats.actions)),
        "workers_cpu_ms_per_action": round(1000 * (c1[0] - c0[0]) / max(1, stats.actions), 3),
        "db_cpu_ms_per_action": round(1000 * (c1[1] - c0[1]) / max(1, stats.actions), 3),
        # What the workers and the database did an action, in counts a cold cache does not change
        # (:func:`work`).
        "workers_work_per_action": per_action(k0[0], k1[0], stats.actions),
        "db_work_per_action": per_action(k0[1], k1[1], stats.actions),
        "tables": n, "tables_seated": seated, "period": period, "generator_processes": procs,
        "seconds": round(wall, 1),
        "setup_seconds": round(setup, 1),
        "actions": stats.actions, "actions_per_s": round(stats.actions / wall, 1),
        "games_finished": stats.games, "games_ended_in_window": stats.games_measured,
        "actor_p50_ms": pct(stats.actor, 0.5), "actor_p99_ms": pct(stats.actor, 0.99),
        "others_p50_ms": pct(stats.others, 0.5), "others_p99_ms": pct(stats.others, 0.99),
        "all_p99_ms": pct(everyone, 0.99), "max_ms": pct(everyone, 1.0),
        "samples": len(everyone),
        # Over 0.5 s, slowest first (at most 20): seconds, wall clock, table, version, table's actions so far.
        "slowest": sorted(stats.slowest, reverse=True)[:20],
        "generator_lag_p50_ms": pct(stats.lag, 0.5), "generator_lag_p99_ms": pct(stats.lag, 0.99),
        "server_cpu_pct": round(100 * (c1[0] - c0[0]) / wall, 1),
        "practice": args.practice_now, "level": args.level if args.practice_now else None,
        "bot_processes_cpu_pct": round(100 * (b1 - b0) / wall, 1),
        "bot_move_p50_ms": pct(stats.bots, 0.5), "bot_move_p99_ms": pct(stats.bots, 0.99),
        "bot_moves": len(stats.bots),
        "db_cpu_pct": round(100 * (c1[1] - c0[1]) / wall, 1) if pg is not None else None,
        "generator_cpu_pct": round(100 * (c1[2] - c0[2]) / wall, 1),
        "server_runq_wait_pct": round(100 * (q1 - q0) / wall, 1),
        # The machine's own speed: the same pure-Python work's CPU time before the load and during it.
        "canary_idle_ms": round(statistics.median(idle_canary), 3),
        "canary_p50_ms": round(statistics.median(canaries), 3) if canaries else None,
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
        "errors": stats.errors, "dropped": stats.dropped,
        "journal_rows_per_batch": round(delta("journal_rows") / max(1, delta("journal_batches")), 1),
        "journal_busy": delta("journal_busy"),
        "journal_ms_per_batch": round(
            1000 * delta("journal_write_seconds") / max(1, delta("journal_batches")), 2),
        "journal_slow_batches": delta("journal_slow_batches"),  # over 20 ms
        "journal_write_max_ms": h1.get("journal_write_max_ms"),  # since the server started
        "gc_reclaims": delta("gc_reclaims"),
        # SQLite's writer turn (the tables' own transactions): turns taken, mean and worst wait for one,
        # the longest held (these two since the server started), turns held over 50 ms, waits over 100 ms.
        "writer_turns": delta("writer_turns"),
        "writer_wait_mean_ms": round(1000 * delta("writer_wait_seconds") / max(1, delta("writer_turns")), 2),
        "writer_wait_max_ms": h1.get("writer_wait_max_ms"),
        "writer_hold_max_ms": h1.get("writer_hold_max_ms"),
        "writer_slow_turns": delta("writer_slow_turns"),
        "writer_slow_waits": delta("writer_slow_waits"),
    }


async def wal_position(url: str | None) -> int | None:
    """PostgreSQL's WAL insert position in bytes (the WAL written between two readings), None without it."""
    if url is None:
        return None
    import asyncpg  # type: ignore[import-untyped]

    from estimation.server.cluster.ownership import postgres_dsn

    conn = await asyncpg.connect(postgres_dsn(url))
    try:
        return int(await conn.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint"))
    finally:
        await conn.close()


async def metrics_sum(http: httpx.AsyncClient, urls: list[str]) -> dict[str, Any]:
    """The hub figures (:func:`hub_figures`) of every server process's metrics, numbers added up (the
    maxima: the largest)."""
    total: dict[str, Any] = {}
    for url in urls:
        with contextlib.suppress(httpx.HTTPError):
            for key, value in hub_figures((await http.get(url)).text).items():
                if isinstance(value, bool) or not isinstance(value, int | float):
                    continue
                total[key] = max(total.get(key, 0), value) if key.endswith("_max_ms") else (
                    total.get(key, 0) + value)
    return total


def show(db: str, r: dict[str, Any]) -> None:
    def ms(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    if r.get("cluster"):
        print(f"cluster N={r['workers']} workers, {r['tables_seated']}/{r['tables']} tables seated: "
              f"{r['actions_per_s']:.1f} actions/s  p99 actor {ms(r['actor_p99_ms'])} others "
              f"{ms(r['others_p99_ms'])} ms  cpu: workers {r['worker_cpu_pct']}% "
              f"PostgreSQL {r['db_cpu_pct']}% HAProxy {r['haproxy_cpu_pct']}% Redis {r['redis_cpu_pct']}%  "
              f"server side {r['cpu_ms_per_action']} ms CPU/action "
              f"(workers {r['workers_cpu_ms_per_action']}, PostgreSQL {r['db_cpu_ms_per_action']})  "
              f"WAL {r['wal_bytes_per_action']} bytes/action  "
              f"load {r['load_before'][0]}->{r['load_after'][0]}  "
              f"errors {r['errors']} dropped {r['dropped']}", flush=True)
        print(f"    an action, workers {r['workers_work_per_action']}  PostgreSQL {r['db_work_per_action']}  "
              f"journal rows a batch {r['journal_rows_per_batch']}", flush=True)
        return

    if r.get("practice"):
        print(f"{db:10} practice N={r['tables']:<4} ({r['level']}, person thinks {r['period']:g}s) "
              f"{r['actions_per_s']:.2f} person actions/s  person p50 {ms(r['actor_p50_ms'])} "
              f"p99 {ms(r['actor_p99_ms'])} max {ms(r['max_ms'])} ms  bot moves {r['bot_moves']}: "
              f"p50 {ms(r['bot_move_p50_ms'])} p99 {ms(r['bot_move_p99_ms'])} ms  "
              f"cpu: server {r['server_cpu_pct']}% bot processes {r['bot_processes_cpu_pct']}%  "
              f"load {r['load_before'][0]}->{r['load_after'][0]}  errors {r['errors']} "
              f"dropped {r['dropped']}", flush=True)
        return
    mode = "fast" if r["period"] == 0 else f"1 per {r['period']:g}s"
    db_cpu = "" if r["db_cpu_pct"] is None else f" db {r['db_cpu_pct']}%"
    print(f"{db:10} N={r['tables']:<4} {mode:10} {r['actions_per_s']:8.1f} actions/s  "
          f"games ended {r['games_ended_in_window']}  "
          f"actor p50 {ms(r['actor_p50_ms'])} p99 {ms(r['actor_p99_ms'])}  "
          f"others p50 {ms(r['others_p50_ms'])} p99 {ms(r['others_p99_ms'])}  max {ms(r['max_ms'])} ms  "
          f"cpu: server {r['server_cpu_pct']}%{db_cpu} generator {r['generator_cpu_pct']}%  "
          f"server loop waiting for a cpu {r['server_runq_wait_pct']}%  "
          f"canary {r['canary_idle_ms']}->{ms(r['canary_p50_ms'])} ms  "
          f"generators {r['generator_processes']}, lag p50 {ms(r['generator_lag_p50_ms'])} "
          f"p99 {ms(r['generator_lag_p99_ms'])}  "
          f"load {r['load_before'][0]}->{r['load_after'][0]}  errors {r['errors']} dropped {r['dropped']}  "
          f"journal rows/batch {r['journal_rows_per_batch']} ms/batch {r['journal_ms_per_batch']} "
          f"max {r['journal_write_max_ms']} over 20 ms {r['journal_slow_batches']} "
          f"busy {r['journal_busy']}  writer turns {r['writer_turns']:.0f} "
          f"wait mean {r['writer_wait_mean_ms']} max {r['writer_wait_max_ms']} "
          f"hold max {r['writer_hold_max_ms']} ms, held >50 ms {r['writer_slow_turns']:.0f}, "
          f"waited >100 ms {r['writer_slow_waits']:.0f}",
          flush=True)
    for seconds, _wall, table, version, done in r["slowest"][:3]:
        print(f"  slow: {1000 * seconds:.0f} ms at table {table}, version {version}, its action {done}",
              flush=True)


def profile(args: argparse.Namespace, db: str, n: int, mode: str) -> str | None:
    if not args.profile:
        return None
    os.makedirs(args.profile, exist_ok=True)
    return os.path.join(args.profile, f"server-{db}-{mode}-{n}.prof")


def bench_cluster(args: argparse.Namespace) -> list[dict[str, Any]]:
    """``--workers``: for each worker count and table count, a fresh database and a fresh cluster."""
    pg = None
    try:
        if args.db == "url":
            base_url = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        else:
            pg = Postgres(args.pg_fast, args.pg_log)
            base_url = pg.start()
        results = []
        for workers in args.workers:
            for each in args.tables:
                n = each * workers if args.per_worker else each
                url = create_database(base_url, prefix="bench_")
                server = ClusterServer(url, workers, {}, args.redis)
                server.start()
                try:
                    r = asyncio.run(run_load(server, pg, n, args.period, args))
                finally:
                    server.stop()
                r["db"], r["cluster"] = "postgresql", True
                show("cluster", r)
                results.append(r)
        return results
    finally:
        if pg is not None:
            pg.stop()


def bench_database(db: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    pg = None
    workdir = tempfile.mkdtemp(prefix="estimation-bench-")
    try:
        if db == "sqlite":
            url = f"sqlite+aiosqlite:///{workdir}/estimation.db"
        elif db == "postgresql":
            pg = Postgres(args.pg_fast, args.pg_log)
            url = pg.new_database(pg.start())
        else:
            url = os.environ["DATABASE_URL"]
        results = []

        def run(n: int, period: float, env: dict[str, str], mode: str) -> None:
            server = Server(url, env, profile(args, db, n, mode))
            server.start()
            try:
                r = asyncio.run(run_load(server, pg, n, period, args))
            finally:
                server.stop()
            r["db"] = db
            show(db, r)
            results.append(r)

        args.practice_now = False
        for n in args.tables:
            run(n, args.period, {}, "human")
        for n in args.fast:
            run(n, 0.0, {"ESTIMATION_RATE_PER_SECOND": "100000", "ESTIMATION_RATE_BURST": "100000"}, "fast")
        args.practice_now = True
        for n in args.practice:
            # The server's bots at their own pace (its bot delay), in its bot processes.
            run(n, args.think, {"ESTIMATION_BOT_DELAY": str(args.bot_delay)}, "practice")
        args.practice_now = False
        return results
    finally:
        if pg is not None:
            pg.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default="sqlite,postgresql",
                        help="comma list of sqlite, postgresql (a throwaway cluster), url ($DATABASE_URL)")
    parser.add_argument("--tables", default="10,100,500", help="human-pace runs: tables per run")
    parser.add_argument("--period", type=float, default=1.0, help="seconds between a table's actions")
    parser.add_argument("--fast", default="1", help="as-fast-as-possible runs: tables per run ('' for none)")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds after the last table starts")
    parser.add_argument("--ramp", type=float, default=5.0, help="seconds over which tables are started")
    parser.add_argument("--practice", default="",
                        help="practice-table runs: tables per run, each one person (thinking --think "
                             "seconds a move) and three of the server's bots at --level")
    parser.add_argument("--level", default="strong", help="the practice tables' bot level")
    parser.add_argument("--think", type=float, default=1.0, help="a practice table's person: seconds a move")
    parser.add_argument("--bot-delay", type=float, default=0.6,
                        help="practice runs: the server's bot delay (its default 0.6 s)")
    parser.add_argument("--ruleset", default="koutchina")
    parser.add_argument("--length", default="micro")
    parser.add_argument("--pg-fast", action="store_true",
                        help="PostgreSQL with fsync and synchronous_commit off")
    parser.add_argument("--pg-log", metavar="FILE",
                        help="keep PostgreSQL's log here (statements over 20 ms, checkpoints)")
    parser.add_argument("--deflate", action="store_true",
                        help="clients offer permessage-deflate (as browsers do); by default they do not")
    parser.add_argument("--procs", type=int, default=2,
                        help="load generator processes (the tables are split between them)")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--spy", metavar="DIR",
                        help="sample the server (every worker of a cluster) with py-spy during each measured "
                             "window (collapsed stacks in DIR; needs py-spy on PATH)")
    parser.add_argument("--profile", metavar="DIR",
                        help="run the server under cProfile, one .prof per run here")
    parser.add_argument("--workers", default="",
                        help="comma list of worker counts: clusters behind HAProxy on PostgreSQL "
                             "(--db postgresql or url), one run per count and --tables")
    parser.add_argument("--per-worker", action="store_true",
                        help="with --workers: --tables counts tables a worker (N workers carry N times as "
                             "many), to compare clusters at the same load a worker")
    parser.add_argument("--redis", action="store_true",
                        help="with --workers: start a Redis for the workers' bus (needs the Redis bus)")
    args = parser.parse_args()
    args.workers = [int(x) for x in args.workers.split(",") if x]
    args.tables = [int(x) for x in args.tables.split(",") if x]
    args.fast = [int(x) for x in args.fast.split(",") if x]
    args.practice = [int(x) for x in args.practice.split(",") if x]
    args.practice_now = False
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()
    print(f"cores {os.cpu_count()}  load average {os.getloadavg()}  python {sys.version.split()[0]}",
          flush=True)
    results = []
    if args.workers:
        if args.db not in ("postgresql", "url"):
            raise SystemExit("--workers runs on PostgreSQL: --db postgresql (a throwaway cluster) or url")
        args.db_name = "cluster"
        results.extend(bench_cluster(args))
    for db in args.db.split(",") if not args.workers else []:
        args.db_name = db
        results.extend(bench_database(db, args))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
