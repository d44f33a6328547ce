"""The turn clock as a person meets it (issue 22): never so short that a bot plays before they see their turn,
and held while a round's scores are on show (every page opens them when the round is scored), so that a
person reading the breakdown is not marked away."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import Api, Player, ServerProcess, run

LEAST = 5  # seconds: this server's shortest turn clock
READING = 3.0  # seconds: this server's time to read a round's scores before a person's clock runs


@pytest.fixture(scope="module")
def clock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path: Path = tmp_path_factory.mktemp("clockdb") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="clock",
                         env={"ESTIMATION_MIN_TURN_SECONDS": str(LEAST),
                              "ESTIMATION_ROUND_END_SECONDS": str(READING)})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_a_turn_clock_below_the_least_is_refused_with_its_reason(clock_server: ServerProcess) -> None:
    api = Api.guest(clock_server)
    assert api.ok(api.get("/api/table-limits"))["min_turn_seconds"] == LEAST
    r = api.post("/api/tables", {"length": "micro", "turn_seconds": 2})
    assert r.status_code == 422, r.text
    [err] = r.json()["detail"]
    assert err["type"] == "turn_seconds_too_short" and err["loc"] == ["body", "turn_seconds"]
    assert err["ctx"] == {"min": LEAST} and f"at least {LEAST} seconds" in err["msg"]
    for ok in (0, LEAST):  # no clock, and the least
        assert api.post("/api/tables", {"length": "micro", "turn_seconds": ok}).status_code == 201


def test_the_clock_waits_while_the_rounds_scores_are_on_show(clock_server: ServerProcess) -> None:
    api = Api.guest(clock_server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3], bot_level="random", turn_seconds=LEAST)["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(clock_server, tid, api.token)
        await p.connect()
        rng = random.Random(5)
        loop = asyncio.get_running_loop()
        # Play round 1 ourselves, in time; note when it is scored.
        while p.view is None or not p.view["results"]:
            if p.my_turn():
                await p.act(rng.choice(p.view["legal"]), p.version)
            await p.recv()
        scored = loop.time()
        if not p.my_turn():
            await p.until(lambda m: m["type"] == "update" and p.my_turn(), timeout=20)
        clock = p.messages[-1]["table"]["clock"]
        assert clock["seat"] == 0 and clock["seconds"] == LEAST
        # Our clock has its seconds after the reading time, not from now.
        waited = loop.time() - scored
        assert clock["ms_left"] > (LEAST + READING - waited - 0.5) * 1000, (clock, waited)
        # We do not act: the bot takes over only once reading time and clock have both run out.
        msg = await p.until(lambda m: m["type"] == "update" and any(
            e["kind"] == "away" and e["seat"] == 0 for e in m["events"]), timeout=30)
        took = loop.time() - scored
        assert took >= LEAST + READING - 0.5, took
        assert msg["table"]["seats"][0]["away"] is True
        await p.close()

    run(main())
