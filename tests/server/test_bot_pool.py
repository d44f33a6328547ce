"""The bots' process pool: a bot's move is computed in another process, from the seat's view alone."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any

import pytest

from estimation import new_game
from estimation.server.bot_pool import BotPool, bot_seed


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
            pid = await asyncio.get_running_loop().run_in_executor(pool._executor(), _pid, view)
            return moves, pid
        finally:
            pool.stop()

    moves, pid = asyncio.run(go())
    legal = {str(a) for a in game.legal_actions()}
    assert all(m in legal for m in moves)
    assert pid != os.getpid()


def test_the_same_seed_makes_the_same_move_and_a_failing_bot_plays_the_first_legal_action(
        caplog: pytest.LogCaptureFixture) -> None:
    game = new_game("classic", "full", 11, ["a", "b", "c", "d"])
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)

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
    assert failed == str(view["legal"][0])
    assert "no-such-level" in caplog.text
