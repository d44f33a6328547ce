"""Reconnecting with a last version, resending an acked action, and the turn clock handing a move to a bot."""

from __future__ import annotations

import asyncio
import random

from server_helpers import Api, Player, ServerProcess, check_hidden, run

import estimation


def test_reconnect_gets_missed_events_or_a_snapshot_and_resent_actions_are_not_doubled(
        server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        rng = random.Random(3)
        await p.play_to_end(rng, stop_after=3)
        # Resend the last acked action under the same id: acked again with the same version, not applied.
        acked_id, acked_version = list(p.acks.items())[-1]
        before = p.version
        await p.send({"type": "action", "id": acked_id, "action": p.sent[acked_id]})
        dup = await p.until(lambda m: m["type"] == "ack" and m["id"] == acked_id)
        assert dup["version"] == acked_version and dup.get("duplicate") is True
        last_seen = p.version
        assert last_seen >= before
        await p.close()
        # While away from the socket the bots cannot move past our turn (no clock): wait for our turn
        # through a spectator, then come back with the last version we saw.
        watcher = Player(server, tid, None)
        await watcher.connect()
        if watcher.view is None or watcher.view["to_move"] != 0:
            await watcher.until(lambda m: m.get("view") is not None and m["view"]["to_move"] == 0, timeout=30)
        await watcher.close()
        back = Player(server, tid, api.token)
        resumed = await back.connect(last_version=last_seen)
        assert resumed["type"] == "resume" and resumed["from"] == last_seen
        versions = [item["version"] for item in resumed["events"]]
        assert versions == list(range(last_seen + 1, resumed["version"] + 1))
        assert resumed["view"]["seat"] == 0
        # A version from the future, or none at all, gets a full snapshot.
        other = Player(server, tid, api.token)
        snap = await other.connect(last_version=10**9)
        assert snap["type"] == "snapshot" and snap["version"] == resumed["version"]
        await other.close()
        await back.play_to_end(rng)
        # Far behind (more versions than the server buffers): a snapshot, not a partial event list.
        late = Player(server, tid, api.token)
        msg = await late.connect(last_version=1)
        assert msg["type"] == "snapshot" and msg["view"]["over"]
        await late.close()
        await back.close()
        record = api.ok(api.get(f"/api/tables/{tid}/record"))
        game = estimation.load_record(record)
        assert game.is_over
        # Every action exactly once: the record's actions are the actions the events announced.
        for player in (p, back):
            check_hidden(0, player.messages, record)

    run(main())


def test_sync_request_and_missed_events_replay_in_order(server: ServerProcess) -> None:
    apis = [Api.guest(server) for _ in range(2)]
    tid = apis[0].create_table(bot_seats=[2, 3])["id"]
    for seat, api in enumerate(apis):
        api.join(tid, seat=seat)

    async def main() -> None:
        a, b = (Player(server, tid, api.token) for api in apis)
        await a.connect()
        await b.connect()
        start = a.version
        rng = random.Random(9)
        task = asyncio.create_task(b.play_to_end(random.Random(1), stop_after=4))
        await a.play_to_end(rng, stop_after=4)
        await task
        await a.send({"type": "sync", "last_version": start})
        resumed = await a.until(lambda m: m["type"] == "resume")
        versions = [item["version"] for item in resumed["events"]]
        assert versions == list(range(start + 1, resumed["version"] + 1))
        actions = [e["action"] for item in resumed["events"] for e in item["events"] if e["kind"] == "action"]
        assert actions == resumed["view"]["actions"][-len(actions):]
        await a.close()
        await b.close()

    run(main())


def test_turn_clock_times_out_to_a_bot_move_and_marks_the_seat_away(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(bot_seats=[1, 2, 3], turn_seconds=1)["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        # Do nothing: the clock runs out and a bot plays seat 0's move, marking it away.
        msg = await p.until(lambda m: m["type"] == "update" and any(
            e["kind"] == "action" and e["seat"] == 0 for e in m["events"]), timeout=20)
        kinds = [(e["kind"], e.get("seat"), e.get("away")) for e in msg["events"]]
        assert ("away", 0, True) in kinds
        assert next(e for e in msg["events"] if e["kind"] == "action")["bot"] is True
        assert msg["table"]["seats"][0]["away"] is True
        # Back at the table: the seat is ours again.
        await p.send({"type": "back"})
        back = await p.until(lambda m: m["type"] == "update" and any(
            e["kind"] == "away" and e["away"] is False for e in m["events"]), timeout=20)
        assert back["table"]["seats"][0]["away"] is False
        await p.close()

    run(main())
