"""Games that start and finish all the time on one server, and its memory meanwhile (issue 25, "memory flat").

    python bench/churn.py --tables 10 --minutes 12 --json churn.json

Starts `estimation serve` on a fresh SQLite file (bots without delay, the per-address limits and the
per-socket rate off), then ``--tables`` guests each play practice tables one after another: a table with
three ``--bot`` bots (koutchina ``micro``, no clock), joined over REST, played over a WebSocket
(permessage-deflate, as browsers ask, unless --no-deflate) with a random legal action the moment it is the
guest's turn; a chat line at the start and a phrase at the end (--chat); then the finished table's record
and the finished tables' list over REST (--rest), and the next table: a rematch of the last one
(``--rematch``, the share of them) or a new one. ``--lobbies`` lobby sockets connect, listen for 30 s and
connect again. Every game ends with its sockets closed, so a server at this load sees a few games and a
dozen sockets end every second: what a finished table or a closed socket leaves behind shows as a slope in
a few minutes, where the cluster soak (bench/soak.py, an action a table a second) needs half an hour.

Every ``--sample`` seconds it prints the server's resident memory and a few of its metrics (tables in
memory, sockets, the collector's frozen objects and reclaims); at the end the least-squares slope of the
memory after ``--warmup`` seconds, in MB a minute. ``PYTHONPATH=/elsewhere/src`` runs the server of another
checkout (a git worktree of an older commit, to compare).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
import websockets
from server import hub_figures  # bench/server.py: the metrics text read once, by one parser
from soak import slope  # bench/soak.py: the same least-squares slope a minute

from estimation.server.cluster.ports import free_port


class Counts:
    def __init__(self) -> None:
        self.games = self.tables = self.rematches = self.actions = self.errors = 0


async def play(ws_base: str, table_id: int, token: str, args: argparse.Namespace, counts: Counts) -> None:
    """The guest's seat until the game is over."""
    async with websockets.connect(f"{ws_base}/ws/tables/{table_id}", max_size=2**22,
                                  compression=None if args.no_deflate else "deflate") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        seat, acted, ids, chatted = None, -1, 0, False
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "welcome":
                seat = msg["seat"]
                continue
            if msg["type"] == "error" and msg.get("code") != "chat_rate_limited":
                counts.errors += 1
                print(f"table {table_id}: {msg}", file=sys.stderr, flush=True)
                acted = -1  # and ask for the table again: the turn may still be ours
                await asyncio.sleep(0.2)
                await ws.send(json.dumps({"type": "sync", "last_version": 0}))
                continue
            view = msg.get("view")
            if msg["type"] not in ("update", "snapshot", "resume") or view is None:
                continue
            if args.chat and not chatted:
                chatted = True
                await ws.send(json.dumps({"type": "chat", "text": f"hello table {table_id}"}))
            if view.get("over"):
                counts.games += 1
                if args.chat:
                    await ws.send(json.dumps({"type": "chat", "phrase": "good_game"}))
                return
            if view.get("to_move") == seat and view.get("legal") and msg["version"] != acted:
                acted = msg["version"]
                ids += 1
                await ws.send(json.dumps({"type": "action", "id": f"a{ids}", "version": acted,
                                          "action": random.choice(view["legal"])}))
                counts.actions += 1


async def guest(i: int, base: str, ws_base: str, args: argparse.Namespace, stop: asyncio.Event,
                counts: Counts) -> None:
    """One guest's tables, one after another, until ``stop``."""
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        made = await http.post("/api/guests", json={"name": f"Churn {i} {random.randrange(10**6)}"})
        made.raise_for_status()
        token = made.json()["token"]
        me = {"Authorization": f"Bearer {token}"}
        last = None
        while not stop.is_set():
            try:
                if last is not None and random.random() < args.rematch:
                    r = await http.post(f"/api/tables/{last}/rematch", json={"stake": False}, headers=me)
                    r.raise_for_status()
                    table_id = r.json()["table"]["id"]
                    counts.rematches += 1
                else:
                    r = await http.post("/api/tables", headers=me, json={
                        "ruleset": "koutchina", "length": "micro", "bot_seats": [1, 2, 3],
                        "bot_level": args.bot, "turn_seconds": 0})
                    r.raise_for_status()
                    table_id = r.json()["id"]
                    (await http.post(f"/api/tables/{table_id}/join", json={"seat": 0},
                                     headers=me)).raise_for_status()
                counts.tables += 1
                await play(ws_base, table_id, token, args, counts)
                if args.rest:
                    await http.get(f"/api/tables/{table_id}/record", headers=me)
                    await http.get("/api/tables", params={"status": "finished"})
                last = table_id
            except Exception as exc:  # counted, shown, and the guest goes on
                counts.errors += 1
                print(f"guest {i}: {exc!r}"[:300], file=sys.stderr, flush=True)
                last = None
                await asyncio.sleep(1)


async def lobby(ws_base: str, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(Exception):
            async with websockets.connect(f"{ws_base}/ws/lobby", max_size=2**22) as ws:
                until = time.monotonic() + 30
                while time.monotonic() < until and not stop.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(ws.recv(), 1)
        await asyncio.sleep(0.5)


def figures(port: int) -> dict[str, Any]:
    """The server's unlabelled metrics by the hub's own names (bench/server.py's ``hub_figures``: a
    counter without its ``_total``); empty if the server does not answer."""
    try:
        return hub_figures(httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text)
    except httpx.HTTPError:
        return {}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="estimation-churn-"))
    port, metrics_port = free_port(), free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite+aiosqlite:///{workdir / 'churn.db'}",
           "ESTIMATION_BOT_DELAY": "0", "ESTIMATION_BOT_WORKERS": "1",
           "ESTIMATION_METRICS_PORT": str(metrics_port),
           "ESTIMATION_REST_RATE_PER_SECOND": "0", "ESTIMATION_REST_ADDRESS_RATE_PER_SECOND": "0",
           "ESTIMATION_CREATE_PER_MINUTE": "0", "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "0",
           "ESTIMATION_SOCKETS_PER_ADDRESS": "0", "ESTIMATION_CHAT_ADDRESS_PER_SECOND": "0",
           "ESTIMATION_OPEN_TABLES_PER_PLAYER": "0",
           # A guest acts the moment its turn comes, faster than a person's socket is allowed to.
           "ESTIMATION_RATE_PER_SECOND": "1000", "ESTIMATION_RATE_BURST": "2000"}
    with open(workdir / "server.log", "wb") as log:
        server = subprocess.Popen([sys.executable, "-m", "estimation", "serve", "--port", str(port),
                                   "--log-level", "info"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        for _ in range(600):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(base + "/api/health", timeout=1).status_code == 200:
                    break
            await asyncio.sleep(0.1)
        process = psutil.Process(server.pid)
        counts, stop = Counts(), asyncio.Event()
        tasks = [asyncio.create_task(guest(i, base, ws_base, args, stop, counts)) for i in range(args.tables)]
        tasks += [asyncio.create_task(lobby(ws_base, stop)) for _ in range(args.lobbies)]
        began = time.monotonic()
        samples: list[dict[str, Any]] = []
        while time.monotonic() - began < 60 * args.minutes:
            await asyncio.sleep(args.sample)
            metrics = await asyncio.to_thread(figures, metrics_port)
            rss_mb = round(process.memory_info().rss / 1e6, 2)
            row = {"t": round(time.monotonic() - began, 1), "rss_mb": rss_mb,
                   "games": counts.games, "tables": counts.tables, "rematches": counts.rematches,
                   "actions": counts.actions, "errors": counts.errors,
                   **{k: metrics.get(k) for k in ("tables_in_memory", "sockets", "gc_frozen", "gc_reclaims")}}
            samples.append(row)
            print(json.dumps(row), flush=True)
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(20)
        server.kill()
    kept = [s for s in samples if s["t"] >= args.warmup]
    minutes = (kept[-1]["t"] - kept[0]["t"]) / 60 if len(kept) > 1 else 0
    return {"tables": args.tables, "minutes": args.minutes, "warmup_s": args.warmup,
            "rss_mb_per_min": slope([(s["t"], s["rss_mb"]) for s in kept]),
            "games_per_min": (kept[-1]["games"] - kept[0]["games"]) / minutes if minutes else None,
            "rss_mb_first": kept[0]["rss_mb"] if kept else None,
            "rss_mb_last": kept[-1]["rss_mb"] if kept else None,
            "errors": counts.errors, "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=10, help="guests, each at one table at a time")
    parser.add_argument("--minutes", type=float, default=12)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--rematch", type=float, default=0.5, help="the share of tables that are a rematch")
    parser.add_argument("--chat", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--rest", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--no-deflate", action="store_true", help="the clients do not ask for compression")
    parser.add_argument("--lobbies", type=int, default=4)
    parser.add_argument("--sample", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=120.0)
    parser.add_argument("--json")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    rate = result["games_per_min"]
    print(f"\n{args.tables} tables, {args.minutes:g} min: {rate:.0f} games a minute after the first "
          f"{args.warmup:g} s; memory {result['rss_mb_first']:.0f} -> {result['rss_mb_last']:.0f} MB, "
          f"{result['rss_mb_per_min']:+.2f} MB a minute; errors {result['errors']}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
