"""A soak of the cluster (issue 25, point 5): tables played for a long time while workers are killed and
Redis restarts; memory and open files over time, acknowledged actions lost, coins conserved, and the
tables' latency with chat at every table. Figures in docs/performance.md.

    python bench/soak.py --tables 200 --minutes 30 --kill-every 180 --chat-from 0.66
    python bench/soak.py --tables 40 --minutes 6 --kill-every 90          # a short run

Starts ``estimation cluster``'s parts (server/cluster/launcher.py): a throwaway PostgreSQL, a redis-server
of its own (so that it can restart it on the same port), HAProxy and --workers workers. --tables tables of
four registered players each, staked (--stake coins a seat, so that coins move), are played by this
process through the balancer, one action a table every --period seconds, as people play: every action
waits for its ack and for all four sockets to show it. A client whose socket closes, or is told the table
moved, reconnects with its last version and sends again the actions it has no ack for, with their ids
(as the browser does). A game that ends is followed by a new table for the same four.

Every --kill-every seconds a random worker is killed (SIGKILL) and a new one started in its place;
Redis is killed and started again once, half-way. From --chat-from (a fraction of the run) on, every
table also has a chat line a second, its seats taking turns.

Every --sample seconds: each process's resident memory and open files (workers by life, HAProxy, Redis,
PostgreSQL's processes together). At the end:

* the slope of each worker life's memory and open files after its first --warmup seconds (a least-squares
  line; a life needs four samples), the median and the largest, and the same for HAProxy and PostgreSQL;
* the same memory slope over each stretch of a worker life between disturbances (a kill, the Redis
  restart, the chat's start), from --quiet-after seconds into the life (its tables' first game: their
  events and history fill) and --settle seconds after the disturbance, for stretches of --stretch seconds
  or more: where a leak shows, apart from the jumps of taking over a killed worker's tables;
* every table's journal checked against what this process was told: versions 0..N with no gap, every
  acknowledged action exactly once at the version its ack named, no action that was not sent;
* the coins: wallets plus pots equal the grants, no balance or pot below zero, no payout twice;
* the ack latency (send to ack, on the acting client), p50/p99/max, before and after the chat starts,
  leaving out the actions sent within --settle seconds after a kill or the Redis restart (those wait for
  the table to come back: counted apart).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from estimation.seat_socket import Seats, SeatSocket
from estimation.server.cluster.launcher import LocalCluster
from estimation.server.cluster.ports import free_port


class Redis:
    """A redis-server on a fixed port, killed and started again on the same port."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server") or "/usr/bin/redis-server"
        self.proc = subprocess.Popen(
            [server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)],
            stdout=open(self.workdir / "redis.log", "ab"), stderr=subprocess.STDOUT)  # noqa: SIM115
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), 0.5):
                return
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)


class Rest:
    """REST through the balancer; a 503 (the table changing workers, a worker just killed) is tried again."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.http = httpx.AsyncClient(base_url=base, timeout=30.0)
        self.token = token

    async def call(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        for _ in range(200):
            try:
                r = await self.http.request(method, path, json=body, headers=headers)
            except httpx.HTTPError:
                await asyncio.sleep(0.25)
                continue
            if r.status_code in (502, 503):
                await asyncio.sleep(0.25)
                continue
            if r.status_code >= 300:
                raise RuntimeError(f"{method} {path}: {r.status_code} {r.text}")
            return r.json()
        raise RuntimeError(f"{method} {path}: still unavailable")


class Table(Seats):
    """Four seat sockets at one table (estimation.seat_socket), one action every ``period`` seconds."""

    async def play(self, period: float, stop: asyncio.Event, chatting: asyncio.Event) -> bool:
        """Until the game ends (True) or ``stop`` (False)."""
        self.start()
        lines = 0
        while not stop.is_set():
            began = time.monotonic()
            if not await self.until(self.settled, 60):
                continue
            view = self.clients[0].view
            assert view is not None
            if view["over"]:
                return True
            mover = self.clients[view["to_move"]]
            if mover.view is None or not mover.view.get("legal"):
                await asyncio.sleep(0.05)
                continue
            action = self.rng.choice(mover.view["legal"])
            action_id = await mover.act(action)
            self.sent[action_id] = (view["to_move"], action)
            def settled(a: str = action_id, m: SeatSocket = mover) -> bool:
                return a in m.acks or a not in m.pending

            await self.until(settled, 120)
            if chatting.is_set():
                lines += 1
                # A line a second at the table, from each seat in turn (a person may say one every 2 s).
                await self.clients[lines % 4].chat(f"line {lines}")
            await asyncio.sleep(max(0.0, period - (time.monotonic() - began)))
        return False


async def register(base: str, n: int) -> list[str]:
    rest = Rest(base)
    tokens = []
    for i in range(n):
        body = await rest.call("POST", "/api/accounts", {"name": f"soak{i}x{random.randrange(10**6)}",
                                                         "password": "correct horse battery staple"})
        tokens.append(body["token"])
    return tokens


async def new_table(base: str, tokens: list[str], stake: int) -> int:
    people = [Rest(base, t) for t in tokens]
    made = await people[0].call("POST", "/api/tables", {"ruleset": "koutchina", "length": "micro",
                                                        "stake": stake, "turn_seconds": 0})
    for seat, rest in enumerate(people):
        await rest.call("POST", f"/api/tables/{made['id']}/join", {"seat": seat, "stake": stake > 0})
    return int(made["id"])


async def seat_group(cluster: LocalCluster, tokens: list[str], args: argparse.Namespace, stop: asyncio.Event,
                     chatting: asyncio.Event, played: list[Table]) -> None:
    """One group of four: a table after another until ``stop``."""
    while not stop.is_set():
        table = Table(cluster.ws_url, await new_table(cluster.url, tokens, args.stake), tokens)
        played.append(table)
        try:
            await table.play(args.period, stop, chatting)
        finally:
            await table.stop()


def processes(cluster: LocalCluster, redis: Redis) -> dict[str, list[psutil.Process]]:
    out: dict[str, list[psutil.Process]] = {}
    for w in cluster.running:
        if w.proc.poll() is None:
            with contextlib.suppress(psutil.Error):
                out[f"worker {w.name}"] = [psutil.Process(w.proc.pid)]
    if cluster.haproxy is not None:
        with contextlib.suppress(psutil.Error):
            main = psutil.Process(cluster.haproxy.pid)
            out["haproxy"] = [main, *main.children(recursive=True)]
    if redis.proc is not None and redis.proc.poll() is None:
        with contextlib.suppress(psutil.Error):
            out["redis"] = [psutil.Process(redis.proc.pid)]
    pg = getattr(cluster, "_pg", None)
    pid = pg.postmaster_pid() if pg is not None else None
    if pid:
        with contextlib.suppress(psutil.Error):
            main = psutil.Process(pid)
            out["postgresql"] = [main, *main.children(recursive=True)]
    return out


def sample(cluster: LocalCluster, redis: Redis, began: float) -> list[dict[str, Any]]:
    rows = []
    for name, procs in processes(cluster, redis).items():
        rss = fds = 0
        for p in procs:
            with contextlib.suppress(psutil.Error):
                rss += p.memory_info().rss
                fds += p.num_fds()
        rows.append({"t": time.monotonic() - began, "who": name, "rss_mb": rss / 1e6, "fds": fds})
    return rows


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope, per minute."""
    if len(points) < 4:
        return None
    xs, ys = [p[0] / 60 for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return None if den == 0 else sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den


async def check(url: str, tables: list[Table]) -> dict[str, Any]:
    engine = create_async_engine(url)
    bad: list[str] = []
    acked = 0
    try:
        async with engine.connect() as conn:
            for table in tables:
                rows = (await conn.execute(text(
                    "SELECT version, action_id FROM events WHERE table_id = :t ORDER BY version"),
                    {"t": table.id})).all()
                versions = [r[0] for r in rows]
                if versions != list(range(len(versions))):
                    bad.append(f"table {table.id}: versions with a gap")
                by_id: dict[str, list[int]] = {}
                for version, action_id in rows:
                    if action_id is not None:
                        by_id.setdefault(action_id, []).append(version)
                for action_id, version in table.acked().items():
                    acked += 1
                    if by_id.get(action_id) != [version]:
                        bad.append(f"table {table.id}: acked {action_id} at {version}, journal "
                                   f"{by_id.get(action_id)}")
                stray = set(by_id) - set(table.sent)
                if stray:
                    bad.append(f"table {table.id}: actions never sent {sorted(stray)[:3]}")

            async def one(sql: str) -> int:
                return int((await conn.execute(text(sql))).scalar() or 0)

            coins = {
                "wallets": await one("SELECT SUM(balance) FROM accounts"),
                "pots": await one("SELECT SUM(pot) FROM tables"),
                "grants": await one("SELECT SUM(amount) FROM ledger WHERE kind IN ('grant', 'close')"),
                "negative": await one("SELECT COUNT(*) FROM accounts WHERE balance < 0")
                + await one("SELECT COUNT(*) FROM tables WHERE pot < 0"),
                "double_payouts": await one(
                    "SELECT COUNT(*) FROM (SELECT key FROM ledger GROUP BY key HAVING COUNT(*) > 1) d"),
                "games_finished": await one("SELECT COUNT(*) FROM tables WHERE status = 'finished'"),
            }
    finally:
        await engine.dispose()
    coins["conserved"] = coins["wallets"] + coins["pots"] == coins["grants"]
    return {"acked": acked, "lost_or_doubled": len(bad), "first_faults": bad[:10], "coins": coins}


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def soak(args: argparse.Namespace, cluster: LocalCluster, redis: Redis) -> dict[str, Any]:
    began = time.monotonic()
    tokens = await register(cluster.url, 4 * args.tables)
    print(f"{len(tokens)} players registered in {time.monotonic() - began:.0f} s", flush=True)
    stop, chatting = asyncio.Event(), asyncio.Event()
    played: list[Table] = []
    groups = [asyncio.create_task(seat_group(cluster, tokens[4 * i:4 * i + 4], args, stop, chatting, played))
              for i in range(args.tables)]
    began = time.monotonic()
    end = began + 60 * args.minutes
    samples: list[dict[str, Any]] = []
    disturbances: list[tuple[float, str]] = []
    next_kill = began + args.kill_every
    next_sample = began
    redis_restarted = False
    killed = 0
    while time.monotonic() < end:
        now = time.monotonic()
        if now >= next_sample:
            samples.extend(sample(cluster, redis, began))
            next_sample += args.sample
        if args.chat_from < 1 and not chatting.is_set() and now - began >= args.chat_from * 60 * args.minutes:
            chatting.set()
            disturbances.append((now, "chat starts"))
        if not redis_restarted and now - began >= 30 * args.minutes:
            disturbances.append((now, "redis restart"))
            redis.kill()
            await asyncio.sleep(1.0)
            redis.start()
            redis_restarted = True
            print(f"{now - began:.0f} s: Redis restarted", flush=True)
        if args.kill_every and now >= next_kill:
            victim = random.choice([w for w in cluster.running if w.proc.poll() is None])
            disturbances.append((now, f"kill {victim.name}"))
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait(10)
            killed += 1
            await asyncio.to_thread(cluster.add_worker)
            await asyncio.to_thread(cluster.wait_in_ring)
            print(f"{now - began:.0f} s: killed {victim.name}, started a new worker", flush=True)
            next_kill += args.kill_every
        await asyncio.sleep(0.5)
    stop.set()
    # Each table stops after its action in flight (its ack waited for); a group still setting up a table
    # through a balancer that answers 503 is cut off after a while (its table counts as played so far).
    _done, late = await asyncio.wait(groups, timeout=90)
    for group in late:
        group.cancel()
    await asyncio.gather(*groups, return_exceptions=True)
    samples.extend(sample(cluster, redis, began))
    # The latencies, apart from the actions sent just after a disturbance.
    kills = [t for t, what in disturbances if what.startswith(("kill", "redis"))]
    chat_at = next((t for t, what in disturbances if what == "chat starts"), None)
    quiet: dict[str, list[float]] = {"before chat": [], "with chat": []}
    after_disturbance: list[float] = []
    for table in played:
        for c in table.clients:
            for sent, took in c.latency:
                if any(k <= sent <= k + args.settle for k in kills):
                    after_disturbance.append(took)
                else:
                    phase = "with chat" if chat_at is not None and sent >= chat_at else "before chat"
                    quiet[phase].append(took)
    latency = {name: {"n": len(v), "p50_ms": 1000 * (pct(v, 0.5) or 0), "p99_ms": 1000 * (pct(v, 0.99) or 0),
                      "max_ms": 1000 * max(v, default=0)} for name, v in
               [*quiet.items(), ("within the settle time of a kill or restart", after_disturbance)]}
    by_life: dict[str, list[dict[str, Any]]] = {}
    for row in samples:
        by_life.setdefault(row["who"], []).append(row)
    slopes: dict[str, dict[str, float | None]] = {}
    for who, rows in by_life.items():
        first = rows[0]["t"]
        kept = [r for r in rows if r["t"] - first >= args.warmup]
        slopes[who] = {"samples": len(kept), "life_s": rows[-1]["t"] - first,
                       "rss_mb_per_min": slope([(r["t"], r["rss_mb"]) for r in kept]),
                       "fds_per_min": slope([(r["t"], r["fds"]) for r in kept]),
                       "rss_mb_last": rows[-1]["rss_mb"], "fds_last": rows[-1]["fds"]}
    stretches = quiet_stretches(by_life, [t for t, _ in disturbances], began, args)
    assert cluster.database_url is not None
    checked = await check(cluster.database_url, played)
    return {"tables": args.tables, "minutes": args.minutes, "kill_every_s": args.kill_every, "killed": killed,
            "groups_cut_off": len(late),
            "redis_restarted": redis_restarted, "tables_played": len(played),
            "reconnects": sum(c.reconnects for t in played for c in t.clients),
            "errors": {code: sum(c.error_codes().get(code, 0) for t in played for c in t.clients)
                       for code in sorted({k for t in played for c in t.clients for k in c.error_codes()})},
            "latency": latency, "slopes": slopes, "stretches": stretches, "check": checked,
            "samples": samples,
            "disturbances": [(round(t - began, 1), what) for t, what in disturbances]}


def quiet_stretches(by_life: dict[str, list[dict[str, Any]]], disturbed: list[float], began: float,
                    args: argparse.Namespace) -> list[dict[str, Any]]:
    """Each worker life's memory slope between disturbances (see the module's docstring)."""
    marks = sorted(t - began for t in disturbed)
    out: list[dict[str, Any]] = []
    for who, rows in by_life.items():
        if not who.startswith("worker"):
            continue
        born = rows[0]["t"]
        quiet = born + args.quiet_after
        edges = sorted({quiet, *(m + args.settle for m in marks if m + args.settle > quiet)})
        for start in edges:
            end = min([m for m in marks if m > start] + [rows[-1]["t"] + 1])
            kept = [r for r in rows if start <= r["t"] < end]
            if len(kept) >= 4 and kept[-1]["t"] - kept[0]["t"] >= args.stretch:
                out.append({"who": who, "from_s": round(kept[0]["t"], 1), "to_s": round(kept[-1]["t"], 1),
                            "rss_mb_per_min": slope([(r["t"], r["rss_mb"]) for r in kept]),
                            "fds_per_min": slope([(r["t"], r["fds"]) for r in kept]),
                            "rss_mb": (kept[0]["rss_mb"], kept[-1]["rss_mb"])})
    return out


def show(result: dict[str, Any]) -> None:
    print(f"\n{result['tables']} tables, {result['minutes']} min, {result['killed']} workers killed, Redis "
          f"restarted: {result['redis_restarted']}; {result['tables_played']} tables played, "
          f"{result['reconnects']} reconnects, errors answered {result['errors']}, groups cut off at the "
          f"end {result['groups_cut_off']}")
    for name, figures in result["latency"].items():
        print(f"  ack latency {name}: n {figures['n']}, p50 {figures['p50_ms']:.0f} ms, "
              f"p99 {figures['p99_ms']:.0f} ms, max {figures['max_ms']:.0f} ms")
    lives = {k: v for k, v in result["slopes"].items() if k.startswith("worker")}
    rss = [v["rss_mb_per_min"] for v in lives.values() if v["rss_mb_per_min"] is not None]
    fds = [v["fds_per_min"] for v in lives.values() if v["fds_per_min"] is not None]
    if rss:
        print(f"  worker lives with a slope: {len(rss)}; memory MB/min median {statistics.median(rss):+.2f}, "
              f"largest {max(rss, key=abs):+.2f}; open files/min median {statistics.median(fds):+.2f}, "
              f"largest {max(fds, key=abs):+.2f}")
    quiet = [x for x in result["stretches"] if x["rss_mb_per_min"] is not None]
    if quiet:
        rss = [x["rss_mb_per_min"] for x in quiet]
        fds = [x["fds_per_min"] for x in quiet]
        print(f"  worker between disturbances: {len(quiet)} stretches, memory MB/min median "
              f"{statistics.median(rss):+.2f} ({min(rss):+.2f} to {max(rss):+.2f}), open files/min median "
              f"{statistics.median(fds):+.2f} ({min(fds):+.2f} to {max(fds):+.2f})")
        for x in quiet:
            first, last = x["rss_mb"]
            print(f"    {x['who']} {x['from_s']:.0f}-{x['to_s']:.0f} s: {x['rss_mb_per_min']:+.2f} MB/min "
                  f"({first:.0f} -> {last:.0f} MB), open files {x['fds_per_min']:+.2f}/min")
    for who in ("haproxy", "redis", "postgresql"):
        s = result["slopes"].get(who)
        if s and s["rss_mb_per_min"] is not None:
            print(f"  {who}: memory {s['rss_mb_per_min']:+.2f} MB/min (last {s['rss_mb_last']:.0f} MB), "
                  f"open files {s['fds_per_min']:+.2f}/min (last {s['fds_last']})")
    c = result["check"]
    print(f"  acknowledged actions {c['acked']:,}: lost or doubled {c['lost_or_doubled']} "
          f"{c['first_faults']}")
    print(f"  coins: {c['coins']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--kill-every", type=float, default=180, help="seconds; 0: never")
    parser.add_argument("--period", type=float, default=1.0, help="seconds between a table's actions")
    parser.add_argument("--stake", type=int, default=10)
    parser.add_argument("--chat-from", type=float, default=0.66, help="fraction of the run; 1: no chat")
    parser.add_argument("--sample", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=60.0)
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--quiet-after", type=float, default=300.0,
                        help="seconds into a worker's life before its memory counts between disturbances")
    parser.add_argument("--stretch", type=float, default=100.0,
                        help="the shortest stretch between disturbances that gets a slope (seconds)")
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"estimation-soak-{os.getpid()}"
    workdir.mkdir(parents=True, exist_ok=True)
    redis = Redis(workdir)
    redis.start()
    env = {"ESTIMATION_BOT_DELAY": "0", "ESTIMATION_CREATE_PER_MINUTE": "0",
           "ESTIMATION_SIGN_INS_PER_MINUTE": "0", "ESTIMATION_REST_RATE_PER_SECOND": "0",
           "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "0",
           "ESTIMATION_CHAT_ADDRESS_PER_SECOND": "0", "ESTIMATION_JOURNAL_KEEP_SECONDS": "86400",
           # Every client is on 127.0.0.1: the per-address socket cap (64) would turn most of them away.
           "ESTIMATION_SOCKETS_PER_ADDRESS": "100000"}
    cluster = LocalCluster(workers=args.workers, lease_seconds=args.lease, env=env, redis=redis.url,
                           workdir=workdir)
    try:
        cluster.start()
        result = asyncio.run(soak(args, cluster, redis))
        show(result)
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
    finally:
        cluster.stop()
        redis.kill()


if __name__ == "__main__":
    main()
