"""SIGKILL the server right after an ack and in mid bot play; restart; nothing acked is lost or doubled."""

from __future__ import annotations

import random
import time

import pytest
from server_helpers import Api, Player, ServerProcess, ledger_totals, query, run

import estimation


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request: pytest.FixtureRequest, database_url_factory):  # type: ignore[no-untyped-def]
    proc = ServerProcess(database_url_factory(request.param), name=request.param)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_kill_after_ack_and_mid_play_then_resume_exactly(fresh_server: ServerProcess) -> None:
    server = fresh_server
    api = Api.register(server)
    tid = api.create_table(stake=10, bot_seats=[1, 2, 3], length="micro")["id"]
    api.join(tid, seat=0, stake=True)
    rng = random.Random(11)
    acked: list[tuple[int, str]] = []  # (version, action text) of every action the server acked to us

    async def act_once_then_kill() -> tuple[int, list[str]]:
        p = Player(server, tid, api.token)
        await p.connect(last_version=None)
        while not p.my_turn():
            await p.recv()
        assert p.view is not None
        text = rng.choice(p.view["legal"])
        action_id = await p.act(text, p.version)
        ack = await p.until(lambda m: m["type"] == "ack" and m["id"] == action_id)
        server.kill()  # right after the ack: the action must have been committed before it
        acked.append((ack["version"], text))
        return ack["version"], p.view["actions"]

    journalled = 0  # kills after which the table's state was past its last record snapshot
    for _ in range(3):
        version, _seen = run(act_once_then_kill())
        ((db_version, record_version),) = query(
            server.database_url, "SELECT version, record_version FROM tables WHERE id = :t", t=tid)
        assert db_version >= version and record_version is not None and record_version <= db_version
        journalled += record_version < db_version
        server.start()

        async def check(version: int = version) -> None:
            p = Player(server, tid, api.token)
            snap = await p.connect()
            assert snap["version"] >= version
            await p.close()

        run(check())

    # The restarts above resumed from a snapshot plus the journalled actions (not a record at every version).
    assert journalled >= 1

    # Now leave the game to the bots, and kill the server at random moments while they play it out (and
    # pay the pot): each restart resumes the bots from the last commit.
    api.ok(api.post(f"/api/tables/{tid}/leave"))
    for _ in range(3):
        time.sleep(rng.uniform(0.05, 0.4))
        server.kill()
        server.start()
    deadline = time.monotonic() + 120
    while api.ok(api.get(f"/api/tables/{tid}"))["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish the game after the restarts"
        time.sleep(0.2)
    record = api.ok(api.get(f"/api/tables/{tid}/record"))
    game = estimation.load_record(record)  # replays and checks every action: a doubled one is illegal
    assert game.is_over
    # Every acked action is in the record, at its version's position (version 1 was the start).
    texts = [a for deal in record["deals"] for a in deal["actions"]]
    for version, text in acked:
        assert texts[version - 2] == text, (version, text)
    books = ledger_totals(server.database_url)
    assert books["wallets"] + books["pots"] == books["grants"] and books["double_payouts"] == 0
    assert books["mismatched_wallets"] == 0
