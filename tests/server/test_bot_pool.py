"""The bots' process pool: a bot's move is computed in another process, from the seat's view alone."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from server_helpers import Api, Player, ServerProcess, run

from estimation import new_game
from estimation.bots import make_bot
from estimation.server.table.bot_pool import BotPool, bot_seed


def _pid(_view: dict[str, Any]) -> int:
    return os.getpid()


def test_a_bot_moves_in_another_process_and_its_move_is_legal() -> None:
    game = new_game("koutchina", "micro", 7, ["a", "b", "c", "d"])
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)

    async def go() -> tuple[list[str], int]:
        pool = BotPool(1)
        try:
            moves = [await pool.choose(1, level, bot_seed(1, seat, 0), view)
                     for level in ("random", "heuristic", "strong")]
            pid = await pool.pool.run(_pid, view)
            return moves, pid
        finally:
            pool.stop()

    moves, pid = asyncio.run(go())
    legal = {str(a) for a in game.legal_actions()}
    assert all(m in legal for m in moves)
    assert pid != os.getpid()


def test_the_same_seed_makes_the_same_move_and_a_failing_bot_plays_the_heuristics_action(
        caplog: pytest.LogCaptureFixture) -> None:
    """A bot that raises (once, a strong bot's sampler in a tight position) must not stop the table: the
    heuristic moves for it, not the first legal action (a position where the two differ)."""
    game = new_game("classic", "full", 11, ["a", "b", "c", "d"])
    while True:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        heuristic = make_bot("heuristic", 1).act(view)
        if heuristic != view["legal"][0]:
            break
        game.apply(heuristic)

    async def go() -> tuple[str, str, str]:
        pool = BotPool(2)
        try:
            a = await pool.choose(3, "random", bot_seed(3, seat, 5), view)
            b = await pool.choose(3, "random", bot_seed(3, seat, 5), view)
            failed = await pool.choose(3, "no-such-level", 1, view)
            return a, b, failed
        finally:
            pool.stop()

    with caplog.at_level(logging.ERROR, logger="estimation.server"):
        a, b, failed = asyncio.run(go())
    assert a == b
    assert failed == heuristic
    assert "no-such-level" in caplog.text


def _niceness(_view: dict[str, Any]) -> int:
    return os.nice(0)


def test_the_bots_processes_run_at_the_niceness_they_are_given() -> None:
    """``ESTIMATION_BOT_NICENESS``: bots on every core, below the loop (docs/performance.md)."""
    view = {"ruleset": "koutchina"}

    async def go(niceness: int) -> int:
        pool = BotPool(1, niceness)
        try:
            return await pool.pool.run(_niceness, view)
        finally:
            pool.stop()

    mine = os.nice(0)
    assert asyncio.run(go(5)) == mine + 5
    assert asyncio.run(go(0)) == mine


# --- the pools die with the server ---------------------------------------------------------------------


def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    return children


def _descendants(pid: int) -> set[int]:
    children, found, todo = _children(), set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie, or a pid gone, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process tree from /proc")
def test_a_killed_servers_bot_and_hint_processes_die_with_it(tmp_path: Path) -> None:
    """SIGKILL `estimation serve` once its bots have moved (and a practice table has warmed the hint
    process): within a few seconds, not one process it started is left."""
    server = ServerProcess(f"sqlite+aiosqlite:///{tmp_path / 'kill.db'}", name="kill")
    server.start()
    try:
        api = Api.guest(server)
        table = api.create_table(bot_seats=[1, 2, 3], length="micro", bot_level="random")
        api.join(table["id"], seat=0)

        async def until_a_bot_moved() -> None:
            player = Player(server, table["id"], api.token)
            await player.connect()
            rng = random.Random(3)
            while not any(e.get("kind") == "action" and e.get("bot")
                          for m in player.messages if m["type"] == "update" for e in m["events"]):
                if player.my_turn():
                    assert player.view is not None
                    await player.act(rng.choice(player.view["legal"]), player.version)
                await player.recv()
            await player.close()

        run(until_a_bot_moved())
        assert server.proc is not None
        started = _descendants(server.proc.pid)
        deadline = time.monotonic() + 30
        while len(started) < 3 and time.monotonic() < deadline:  # the fork server, a bot and the hint worker
            time.sleep(0.2)
            started = _descendants(server.proc.pid)
        assert len(started) >= 3, started
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:120] for pid in started if _alive(pid)}
    assert not left, f"processes of the killed server still running: {left}"
