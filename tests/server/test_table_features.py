"""What the browser table needs from the server: the turn clock in the protocol, the creator seating bots,
one live table per player, and hints at practice tables (off the event loop, within about a second)."""

from __future__ import annotations

import asyncio
import time

from server_helpers import Api, Player, ServerProcess, run


def test_the_turn_clock_travels_with_the_table(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3], turn_seconds=30)["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        snap = await p.connect()
        view = snap["view"]
        if view["to_move"] != 0:
            snap = await p.until(lambda m: m.get("view") is not None and m["view"]["to_move"] == 0,
                                 timeout=30)
        clock = snap["table"]["clock"]
        # A human's turn: the seat, the clock's length and what is left of it (a duration, not a time of day).
        assert clock["seat"] == 0 and clock["seconds"] == 30
        assert 25_000 <= clock["ms_left"] <= 30_000
        # After our move it is a bot's turn (no clock), or ours again with a fresh one.
        action = p.view["legal"][0]
        await p.send({"type": "action", "id": "c1", "action": action})
        moved = await p.until(lambda m: m["type"] == "update" and m["view"]["to_move"] != 0)
        assert moved["table"]["clock"] is None
        await p.close()

    run(main())


def test_no_clock_at_a_table_without_one(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3], turn_seconds=0)["id"]
    api.join(tid, seat=0)
    table = api.ok(api.get(f"/api/tables/{tid}"))
    assert table["status"] == "playing"

    async def main() -> None:
        p = Player(server, tid, api.token)
        snap = await p.connect()
        assert snap["table"]["clock"] is None
        await p.close()

    run(main())


def test_the_creator_fills_empty_seats_with_bots_and_the_game_starts(server: ServerProcess) -> None:
    creator, friend = Api.guest(server), Api.guest(server)
    table = creator.create_table(length="micro", private=True)
    tid = table["id"]
    creator.join(tid, seat=0)
    friend.join(tid, seat=2, invite=table["invite_code"])
    # Only the creator may, and only while the table is open.
    refused = friend.post(f"/api/tables/{tid}/bots")
    assert refused.status_code == 403, refused.text
    filled = creator.ok(creator.post(f"/api/tables/{tid}/bots"))
    assert filled["status"] == "playing"
    seats = filled["seats"]
    assert [s["bot"] for s in seats] == [False, True, False, True]
    assert [s["name"] for s in seats][1::2] == ["Bot 2", "Bot 4"]
    again = creator.post(f"/api/tables/{tid}/bots")
    assert again.status_code == 409 and "not taking players" in again.json()["detail"]


def test_a_player_sits_at_one_live_table_at_a_time(server: ServerProcess) -> None:
    api = Api.guest(server)
    first = api.create_table(length="micro")["id"]
    api.join(first, seat=0)
    other = Api.guest(server).create_table(length="micro")["id"]
    refused = api.post(f"/api/tables/{other}/join", {"seat": 1})
    assert refused.status_code == 409 and f"table {first}" in refused.json()["detail"]
    made = api.post("/api/tables", {"length": "micro"})
    assert made.status_code == 409
    # Leaving the open table frees the player for another.
    api.ok(api.post(f"/api/tables/{first}/leave"))
    assert api.post(f"/api/tables/{other}/join", {"seat": 1}).status_code == 200


def test_two_joins_at_once_seat_a_player_once(server: ServerProcess) -> None:
    api = Api.guest(server)
    a = Api.guest(server).create_table(length="micro")["id"]
    b = Api.guest(server).create_table(length="micro")["id"]

    async def main() -> list[int]:
        import httpx

        async with httpx.AsyncClient(base_url=server.base, headers=api.headers()) as client:
            answers = await asyncio.gather(*(client.post(f"/api/tables/{t}/join", json={"seat": 1})
                                             for t in (a, b, a, b)))
        return [r.status_code for r in answers]

    codes = run(main())
    assert codes.count(200) == 1, codes


def test_hints_at_a_practice_table_only_on_your_turn_within_a_second(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(ruleset="koutchina", length="mini", bot_seats=[1, 2, 3], turn_seconds=0)["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        snap = await p.connect()
        if snap["view"]["to_move"] != 0:
            # A bot may have moved since the snapshot: then the hint is ours; if not, refused as not our turn.
            early = api.post(f"/api/tables/{tid}/hint")
            assert early.status_code in (200, 409), early.text
            if early.status_code == 409:
                assert "your own turn" in early.json()["detail"]
            await p.until(lambda m: m.get("view") is not None and m["view"]["to_move"] == 0, timeout=30)
        legal = set(p.view["legal"])
        times = []
        for _ in range(2):  # the first one starts the hint process; both must answer within about a second
            start = time.perf_counter()
            res = api.ok(api.post(f"/api/tables/{tid}/hint"))
            times.append(time.perf_counter() - start)
        assert {row["action"] for row in res["actions"]} == legal
        assert res["best"] in legal and res["seat"] == 0
        for row in res["actions"]:
            assert abs(sum(row["tricks"]) - 1) < 0.02
        assert times[1] < 1.5, times
        await p.close()

    run(main())


def test_no_hints_with_another_person_at_the_table(server: ServerProcess) -> None:
    a, b = Api.guest(server), Api.guest(server)
    tid = a.create_table(length="micro", bot_seats=[2, 3], turn_seconds=0)["id"]
    a.join(tid, seat=0)
    b.join(tid, seat=1)
    refused = a.post(f"/api/tables/{tid}/hint")
    assert refused.status_code == 403 and "practice" in refused.json()["detail"]
    stranger = Api.guest(server).post(f"/api/tables/{tid}/hint")
    assert stranger.status_code == 409 and "no seat" in stranger.json()["detail"]
