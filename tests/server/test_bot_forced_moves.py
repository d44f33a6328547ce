"""A bot's only legal action is played by the table itself: no bot process is asked and no view is built
for it (a fifth of the bots' moves), and the game is the one the bots would have played."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from estimation.server.config import Settings
from estimation.server.table.bot_pool import BotPool
from estimation.server.table.hints import HintPool
from estimation.server.table.reducer import BotAct, Create, TableSettings, create
from estimation.server.table.runtime import TableRuntime, runtime_of
from estimation.server.table.store import MemoryTableStore


class CountingPool(BotPool):
    """The real pool (moves made in its process), noting how many legal actions each asked view had."""

    def __init__(self) -> None:
        super().__init__(1)
        self.asked: list[int] = []

    async def choose(self, table_id: int, level: str, seed: int, view: dict[str, Any]) -> str:
        self.asked.append(len(view["legal"]))
        return await super().choose(table_id, level, seed, view)


class Host:
    def __init__(self) -> None:
        self.settings = Settings(database_url="sqlite+aiosqlite://", bot_delay=0.0)
        self.store = MemoryTableStore()
        self.hints = HintPool()
        self.bots = CountingPool()

    def table_changed(self, runtime: TableRuntime, events: list[dict[str, Any]]) -> None:
        pass

    def retire(self, runtime: TableRuntime) -> None:
        pass


# Rulesets where a leaver's seat is played on by a bot (in egyptian, leaving ends the match).
@pytest.mark.parametrize(("ruleset", "length"), [("koutchina", "micro"), ("classic", "full")])
def test_a_bots_only_legal_action_is_played_without_asking_a_bot(ruleset: str, length: str) -> None:
    async def go() -> None:
        host = Host()
        settings = TableSettings(ruleset, length, 0, turn_seconds=0, bot_seats=(1, 2, 3),
                                 bot_level="heuristic")
        state, events = create(Create(1, settings))
        table = runtime_of(host, await host.store.load(await host.store.create(state, events), 16)
                           or pytest.fail("not created"))
        moves: list[int] = []  # each bot move's count of legal actions, as the table commits it
        commit = table._change

        async def noting(change: Any) -> None:
            if isinstance(change, BotAct) and table.game is not None:
                moves.append(len(table.game.legal_actions()))
            await commit(change)

        table._change = noting  # type: ignore[method-assign]
        await table.join(1, "Ann", False, 0, False, None)
        assert table.status == "playing" and table.game is not None
        await table.leave(1)  # seat 0's bot plays on: four bots to the end
        for _ in range(1200):
            if table.game.is_over:
                break
            await asyncio.sleep(0.05)
        assert table.game.is_over, "the bots did not finish the game"
        forced = moves.count(1)
        assert forced > len(moves) // 10  # the last cards of every round at least
        assert sorted(host.bots.asked) == sorted(n for n in moves if n > 1)  # each other move asked once
        table.shutdown()
        host.bots.stop()

    asyncio.run(go())
