"""Partnership tables (RULES.md, Partnerships) through the REST API and the table socket, on both databases.

- `POST /api/tables {"partners": true}`: seats 0+2 against 1+3; a player who asks for no seat sits opposite
  a human who has no partner yet; the record carries `"partners": true` and `estimation replay --json` gives
  the sides.
- An egyptian leaver ends the match and the leaver's side is 2nd whatever its total; the staked pot is paid
  by side (hand-worked below); history and stats take the side's result, level points per player by it
  (a leaver's loss pays 4).
- Random staked partnership games pay exactly `split_pot_by_side` and keep the books.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from server_helpers import Api, Player, ServerProcess, run
from test_stakes import check_books, ledger_rows, wait_status

import estimation
from estimation.stakes import split_pot_by_side

SRC = Path(__file__).resolve().parents[2] / "src"


def replay_json(record: dict[str, Any], tmp: Path) -> dict[str, Any]:
    path = tmp / "record.json"
    path.write_text(json.dumps(record))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    out = subprocess.run([sys.executable, "-m", "estimation", "replay", str(path), "--json"],
                         capture_output=True, text=True, timeout=120, env=env, check=True)
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def test_a_partnership_table_seats_partners_opposite(server: ServerProcess) -> None:
    a, b = Api.register(server), Api.register(server)
    table = a.create_table(partners=True, length="micro")
    assert table["partners"] is True
    tid = table["id"]
    assert a.join(tid)["seat"] == 0
    assert b.join(tid)["seat"] == 2  # opposite the human who has no partner yet: they play together
    listed = next(t for t in a.ok(a.get("/api/tables")) if t["id"] == tid)
    assert listed["partners"] is True
    filled = a.ok(a.post(f"/api/tables/{tid}/bots"))
    assert [s["bot"] for s in filled["seats"]] == [False, True, False, True]
    view = a.ok(a.get(f"/api/tables/{tid}/view"))["view"]
    assert view["partners"] is True and view["sides"]["seats"] == [[0, 2], [1, 3]]
    rulesets = {r["name"]: r for r in a.ok(a.get("/api/rulesets"))}
    assert rulesets["egyptian"]["verbs"]["auction"] == "bid"
    assert rulesets["koutchina"]["verbs"]["join"] is None
    assert rulesets["egyptian"]["offer_role"] == "dash" and rulesets["classic"]["risk_levels"] == 2
    for api in (a, b):
        api.ok(api.post(f"/api/tables/{tid}/leave"))  # bots play both seats on: a koutchina table goes on


def test_egyptian_leaver_side_is_second_and_the_pot_is_paid_by_side(server: ServerProcess,
                                                                    tmp_path: Path) -> None:
    """Hand-worked: a (seat 0), b (seat 1) and c (seat 2) stake 5 each, a bot plays seat 3. Seat 1 leaves at
    once: the match ends, seat 1's side (1+3) is 2nd whatever its total, so side 0+2 wins. Its stakers a and
    c stayed: they share the pot of 15 evenly, 7 each, and the coin left over goes to the lower seat: 8 / 7.
    b takes nothing. Places 1, 2, 1, 2. No round was scored: the match counts for nobody's history or level
    points."""
    a, b, c = Api.register(server), Api.register(server), Api.register(server)
    tid = a.create_table(ruleset="egyptian", stake=5, bot_seats=[3], partners=True)["id"]
    for seat, api in enumerate((a, b, c)):
        api.join(tid, seat=seat, stake=True)

    async def main() -> dict[str, Any]:
        pa, pb = Player(server, tid, a.token), Player(server, tid, b.token)
        await pa.connect()
        await pb.connect()
        await pb.send({"type": "leave"})
        over = await pa.until(lambda m: m["type"] == "update"
                              and any(e["kind"] == "over" for e in m["events"]))
        await pa.close()
        await pb.close()
        return next(e for e in over["events"] if e["kind"] == "over")

    ended = run(main())
    assert ended["ended"] == {"reason": "left", "seat": 1}
    assert ended["places"] == [1, 2, 1, 2]
    assert ended["sides"]["places"] == [1, 2] and ended["sides"]["seats"] == [[0, 2], [1, 3]]
    assert ended["payout"] == {"0": 8, "1": 0, "2": 7}
    table = wait_status(a, tid, "finished")
    assert table["payout"] == {"0": 8, "1": 0, "2": 7} and table["pot"] == 0 and table["partners"] is True
    payouts = {row["seat"]: row["amount"] for row in ledger_rows(server, tid, "payout")}
    assert payouts == {0: 8, 1: 0, 2: 7}
    record = a.ok(a.get(f"/api/tables/{tid}/record"))
    assert record["partners"] is True and record["ended"] == {"reason": "left", "seat": 1}
    replayed = replay_json(record, tmp_path)
    assert replayed["places"] == [1, 2, 1, 2] and replayed["sides"]["places"] == [1, 2]
    assert replayed["complete"] is False
    # Left before its first round was scored: the match counts for nobody (RULES.md, egyptian ruling 9;
    # issue 25, B6): in no one's games or stats, no level points; the pot is still paid as above.
    for api in (a, b, c):
        assert tid not in {g["table_id"] for g in api.ok(api.get(f"/api/players/{api.id}/games"))}
        level = api.ok(api.get(f"/api/players/{api.id}/stats"))["levels"]["egyptian"]
        assert level["games"] == 0 and level["level_points"] == 0
    check_books(server)


def test_random_staked_partnership_games_pay_by_side(server: ServerProcess, tmp_path: Path) -> None:
    rng = random.Random(16)
    players = [Api.register(server) for _ in range(4)]
    for game_no in range(3):
        stake = rng.randint(1, 30)
        humans = rng.randint(2, 4)
        seats = sorted(rng.sample(range(4), humans))
        bots = [s for s in range(4) if s not in seats]
        stakers = {s for s in seats if rng.random() < 0.8}
        leaver = rng.choice(seats) if rng.random() < 0.5 else None
        tid = players[0].create_table(stake=stake, bot_seats=bots, length="micro", partners=True)["id"]
        seated = dict(zip(seats, players, strict=False))
        for seat, api in seated.items():
            api.join(tid, seat=seat, stake=seat in stakers)

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
        assert game.partners and game.sides is not None
        leavers = [leaver] if leaver in stakers else []
        expected = split_pot_by_side(stake, sorted(stakers), game.sides["places"], leavers)
        payouts = {row["seat"]: row["amount"] for row in ledger_rows(server, tid, "payout")}
        assert payouts == expected, (payouts, expected)
        assert sum(payouts.values()) == stake * len(stakers)
        replayed = replay_json(record, tmp_path)
        assert replayed["sides"] == game.sides and replayed["places"] == game.places
        for seat, api in seated.items():
            row = next(g for g in api.ok(api.get(f"/api/players/{api.id}/games")) if g["table_id"] == tid)
            assert row["place"] == game.places[seat] and row["partners"] is True
            assert row["side_total"] == game.sides["totals"][seat % 2]
        check_books(server)
