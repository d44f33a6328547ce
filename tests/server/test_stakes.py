"""Wallets, the ledger and the pot (RULES.md ruling 11) over many random staked games, on both databases."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from server_helpers import Api, Player, ServerProcess, ledger_totals, run

import estimation


def wait_status(api: Api, tid: int, status: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        table = api.ok(api.get(f"/api/tables/{tid}"))
        if table["status"] == status:
            return dict(table)
        time.sleep(0.2)
    raise TimeoutError(f"table {tid} never became {status}")


def check_books(server: ServerProcess) -> None:
    books = ledger_totals(server.database_url)
    # Coins are neither made nor lost: wallets + open pots == grants, and each wallet is its ledger's sum.
    assert books["wallets"] + books["pots"] == books["grants"], books
    assert books["mismatched_wallets"] == 0, books
    assert books["negative"] == 0, books


def test_guests_cannot_stake_and_wallets_must_cover_the_stake(server: ServerProcess) -> None:
    owner = Api.register(server)
    guest = Api.guest(server)
    tid = owner.create_table(stake=50)["id"]
    r = guest.post(f"/api/tables/{tid}/join", {"stake": True})
    assert r.status_code == 403 and r.json()["code"] == "guest_cannot_stake"
    assert guest.join(tid, stake=False)["seat"] == 0  # a guest may sit at a staked table without staking
    rich = owner.ok(owner.get("/api/me"))["balance"]
    big = owner.create_table(stake=rich + 1)["id"]
    r = owner.post(f"/api/tables/{big}/join", {"stake": True})
    assert r.status_code == 402 and r.json()["code"] == "wallet"
    assert owner.ok(owner.get("/api/me"))["balance"] == rich
    check_books(server)


def test_random_staked_games_pay_the_pot_exactly_once_and_keep_the_books(server: ServerProcess) -> None:
    rng = random.Random(2024)
    players = [Api.register(server) for _ in range(4)]
    for game_no in range(5):
        stake = rng.randint(1, 40)
        humans = rng.randint(1, 3)
        bots = rng.sample(range(4), 4 - humans)
        seats = [s for s in range(4) if s not in bots]
        stakers = {s for s in seats if rng.random() < 0.8}
        leaver = rng.choice(seats) if rng.random() < 0.4 else None
        tid = players[0].create_table(stake=stake, bot_seats=bots, length="micro")["id"]
        seated = dict(zip(seats, players, strict=False))
        for seat, api in seated.items():
            api.join(tid, seat=seat, stake=seat in stakers)
        check_books(server)

        async def play(tid: int = tid, seated: dict[int, Api] = seated, leaver: int | None = leaver,
                       game_no: int = game_no) -> None:
            clients = {seat: Player(server, tid, api.token) for seat, api in seated.items()}
            for c in clients.values():
                await c.connect()

            async def leave_soon(c: Player) -> None:
                await c.play_to_end(random.Random(game_no), stop_after=2)
                await c.send({"type": "leave"})
                await c.until(lambda m: m["type"] == "snapshot" and m["view"] is not None)

            await asyncio.gather(*(leave_soon(c) if s == leaver
                                   else c.play_to_end(random.Random(game_no * 10 + s))
                                   for s, c in clients.items()))
            for c in clients.values():
                await c.close()

        run(play())
        table = wait_status(players[0], tid, "finished")
        assert table["pot"] == 0
        record = players[0].ok(players[0].get(f"/api/tables/{tid}/record"))
        game = estimation.load_record(record)
        staking = sorted(stakers)
        leavers = [leaver] if leaver in stakers else []
        expected = estimation.split_pot(stake, staking, game.totals, leavers)
        payouts = {row["seat"]: row["amount"] for row in ledger_rows(server, tid, "payout")}
        assert payouts == expected, (payouts, expected)
        check_books(server)
    # A table abandoned before it starts refunds every stake.
    tid = players[0].create_table(stake=25, bot_seats=[3])["id"]
    before = [p.ok(p.get("/api/me"))["balance"] for p in players[:2]]
    for seat, api in enumerate(players[:2]):
        api.join(tid, seat=seat, stake=True)
    assert players[0].ok(players[0].get(f"/api/tables/{tid}"))["pot"] == 50
    for api in players[:2]:
        api.ok(api.post(f"/api/tables/{tid}/leave"))
    assert wait_status(players[0], tid, "abandoned")["pot"] == 0
    assert [p.ok(p.get("/api/me"))["balance"] for p in players[:2]] == before
    kinds = [row["kind"] for row in players[0].ok(players[0].get("/api/me/ledger"))[:2]]
    assert kinds == ["refund", "stake"]
    check_books(server)


def test_egyptian_leaver_ends_the_match_and_forfeits(server: ServerProcess) -> None:
    if "egyptian" not in estimation.RULESETS:  # pragma: no cover - the ruleset lands with the engine
        raise AssertionError("the egyptian ruleset is not registered")
    a, b = Api.register(server), Api.register(server)
    tid = a.create_table(ruleset="egyptian", stake=10, bot_seats=[2, 3])["id"]
    a.join(tid, seat=0, stake=True)
    b.join(tid, seat=1, stake=True)

    async def main() -> None:
        pa, pb = Player(server, tid, a.token), Player(server, tid, b.token)
        await pa.connect()
        await pb.connect()
        await pb.send({"type": "leave"})
        over = await pa.until(lambda m: m["type"] == "update"
                              and any(e["kind"] == "over" for e in m["events"]))
        ended = next(e for e in over["events"] if e["kind"] == "over")
        assert ended["ended"] == {"reason": "left", "seat": 1}
        assert ended["places"][1] == 4
        assert ended["payout"] == {"0": 20, "1": 0}
        await pa.close()
        await pb.close()
        # A client that (re)connects after the end, on any device, gets the split in the table's facts.
        late = Player(server, tid, a.token)
        snapshot = await late.connect()
        assert snapshot["table"]["status"] == "finished"
        assert snapshot["table"]["payout"] == {"0": 20, "1": 0}
        await late.close()
        # ... and so does the lobby's list of finished tables.
        listed = next(t for t in a.ok(a.get("/api/tables", params={"status": "finished", "limit": 100}))
                      if t["id"] == tid)
        assert listed["payout"] == {"0": 20, "1": 0} and listed["pot"] == 0

    run(main())
    record = a.ok(a.get(f"/api/tables/{tid}/record"))
    assert record["ended"] == {"reason": "left", "seat": 1}
    # Left before its first round was scored: the match counts for nobody (RULES.md egyptian ruling 9;
    # issue 25, B6), though the pot is paid.
    for api in (a, b):
        stats = api.ok(api.get(f"/api/players/{api.id}/stats"))
        assert stats["egyptian"]["games"] == 0 and stats["egyptian"]["level_points"] == 0
    check_books(server)


def ledger_rows(server: ServerProcess, table_id: int, kind: str) -> list[dict[str, Any]]:
    from server_helpers import query

    rows = query(server.database_url,
                 "SELECT s.seat, l.amount FROM ledger l JOIN seats s ON s.table_id = l.table_id "
                 "AND s.account_id = l.account_id WHERE l.table_id = :t AND l.kind = :k", t=table_id, k=kind)
    return [{"seat": r[0], "amount": r[1]} for r in rows]
