"""Issue 15, findings 1, 9 and 10: a seat is its player's only while seated; a private table is, to an
outsider, exactly a missing one, and its games stay out of other people's view of history; an action id
means one action. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
import websockets
from server_helpers import Api, Player, ServerProcess, query, run


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def restartable(request: pytest.FixtureRequest, database_url_factory) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    """A server of this module's own, to kill and start again."""
    proc = ServerProcess(database_url_factory(request.param), name=request.param)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


async def _drain(p: Player, seconds: float = 0.5) -> list[dict[str, Any]]:
    got = []
    try:
        while True:
            got.append(await p.recv(seconds))
    except TimeoutError:
        return got


async def _my_turn(p: Player, timeout: float = 30) -> None:
    if not p.my_turn():
        await p.until(lambda m: m.get("view") is not None and p.my_turn(), timeout=timeout)


def _leave_takes_the_seat_from_the_other_socket(server: ServerProcess, over_rest: bool) -> None:
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)  # the table starts: seat 0 is ours, the bots wait for us (no clock)

    async def main() -> None:
        first, second = Player(server, tid, api.token), Player(server, tid, api.token)
        await first.connect()
        await second.connect()  # opened before the leave: the one that kept the seat
        assert first.seat == second.seat == 0
        await _my_turn(first)
        await _drain(second)
        assert first.view is not None
        ours = first.view["legal"][0]  # what seat 0 could play before leaving
        if over_rest:
            api.ok(api.post(f"/api/tables/{tid}/leave"))
        else:
            await first.send({"type": "leave"})
        # The other socket hears of the leave as a spectator: no hand, no legal actions, from that update on.
        leave = await second.until(lambda m: m["type"] == "update" and any(
            e["kind"] == "leave" for e in m["events"]))
        view = leave["view"]
        assert view["seat"] is None and view["hand"] is None and view["legal"] == []
        # It cannot act for the seat any more, nor claim to be back.
        await second.send({"type": "action", "id": "after-leave", "action": ours})
        err = await second.until(lambda m: m["type"] == "error")
        assert err["code"] == "not_seated", err
        await second.send({"type": "back"})
        assert (await second.until(lambda m: m["type"] == "error"))["code"] == "not_seated"
        # And everything it is sent from now on is a spectator's view, to the end of the game.
        await second.send({"type": "sync", "last_version": 0})
        resumed = await second.until(lambda m: m["type"] in ("resume", "snapshot"))
        assert resumed["view"]["seat"] is None and resumed["view"]["hand"] is None
        over = await second.until(lambda m: m.get("view") is not None and m["view"]["over"], timeout=120)
        assert over["view"]["seat"] is None
        later = second.messages[second.messages.index(leave):]
        assert all(m["view"]["hand"] is None for m in later if m.get("view") is not None)
        await first.close()
        await second.close()

    run(main())
    # The journal: from the leave on, every move of seat 0 was a bot's.
    batches = [json.loads(data) for (data,) in query(
        server.database_url, "SELECT data FROM events WHERE table_id = :t ORDER BY version", t=tid)]
    events = [e for batch in batches for e in batch]
    left = next(i for i, e in enumerate(events) if e["kind"] == "leave")
    after = [e for e in events[left:] if e["kind"] == "action" and e["seat"] == 0]
    assert after and all(e["bot"] for e in after)


def test_a_ws_leave_takes_the_seat_from_every_socket(server: ServerProcess) -> None:
    _leave_takes_the_seat_from_the_other_socket(server, over_rest=False)


def test_a_rest_leave_takes_the_seat_from_every_socket(server: ServerProcess) -> None:
    _leave_takes_the_seat_from_the_other_socket(server, over_rest=True)


def test_a_seat_given_to_another_player_is_not_seen_by_the_first(server: ServerProcess) -> None:
    """Leave an open table, somebody else takes the seat: the first player's socket sees no hand of theirs."""
    first, second, third, fourth = (Api.guest(server) for _ in range(4))
    tid = first.create_table(length="micro", bot_seats=[3])["id"]
    first.join(tid, seat=0)
    second.join(tid, seat=1)

    async def main() -> None:
        watcher = Player(server, tid, first.token)
        await watcher.connect()
        assert watcher.seat == 0
        first.ok(first.post(f"/api/tables/{tid}/leave"))
        third.join(tid, seat=0)  # the same seat, another player
        fourth.join(tid, seat=2)  # and the game starts
        started = await watcher.until(lambda m: m["type"] == "update" and any(
            e["kind"] == "start" for e in m["events"]))
        assert started["view"]["seat"] is None and started["view"]["hand"] is None
        await watcher.send({"type": "action", "id": "steal", "action": "0 nodash"})
        assert (await watcher.until(lambda m: m["type"] == "error"))["code"] == "not_seated"
        await watcher.close()

    run(main())


def test_a_private_table_answers_an_outsider_exactly_as_a_missing_one(server: ServerProcess) -> None:
    owner, outsider = Api.guest(server), Api.guest(server)
    private = owner.create_table(private=True, bot_seats=[1, 2, 3])["id"]
    owner.join(private, seat=0)  # playing now: an outsider must not learn even that
    missing = 2_000_000_000

    async def hello(table_id: int, token: str | None) -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_base}/ws/tables/{table_id}") as ws:
            await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
            return dict(json.loads(await ws.recv()))

    async def main() -> None:
        for token in (None, outsider.token):
            assert await hello(private, token) == await hello(missing, token)
            assert (await hello(private, token))["code"] == "no_such_table"

    run(main())
    for method, path in (("GET", ""), ("GET", "/view"), ("GET", "/record"), ("POST", "/join"),
                         ("POST", "/leave"), ("POST", "/bots"), ("POST", "/hint"), ("GET", "/rematch"),
                         ("POST", "/rematch"), ("POST", "/rematch/decline"), ("GET", "/chat")):
        answers = []
        for table_id in (private, missing):
            url = f"/api/tables/{table_id}{path}"
            r = outsider.post(url, {}) if method == "POST" else outsider.get(url)
            answers.append((r.status_code, r.json()))
        assert answers[0] == answers[1], (method, path, answers)
        assert answers[0][0] == 404


def test_an_outsider_cannot_report_a_private_tables_chat(server: ServerProcess) -> None:
    """Issue 25, B10: reporting a message of a private table one cannot see answers as a missing message
    (it was 201: an oracle for the table's chat ids); its players, and the invite's holder, can report."""
    owner, outsider, invited = Api.guest(server), Api.guest(server), Api.guest(server)
    table = owner.create_table(private=True)
    owner.join(table["id"], seat=0)

    async def main() -> None:
        p = Player(server, table["id"], owner.token)
        await p.connect()
        await p.send({"type": "chat", "text": "just us"})
        await p.until(lambda m: m["type"] == "chat")
        await p.close()

    run(main())
    said = owner.ok(owner.get(f"/api/tables/{table['id']}/chat"))["messages"][0]["id"]
    missing = 2_000_000_000
    answers = [outsider.post(f"/api/chat/messages/{m}/report", {"reason": "spam"}) for m in (said, missing)]
    assert [a.status_code for a in answers] == [404, 404], [a.text for a in answers]
    assert answers[0].json() == answers[1].json()
    code = {"X-Invite-Code": table["invite_code"]}
    assert invited.post(f"/api/chat/messages/{said}/report", {}, headers=code).status_code == 201


def test_private_games_are_not_in_other_peoples_view_of_history(server: ServerProcess) -> None:
    api = Api.guest(server)
    table = api.create_table(length="micro", bot_seats=[1, 2, 3], private=True)
    api.join(table["id"], seat=0)

    async def main() -> None:
        p = Player(server, table["id"], api.token)
        await p.connect()
        await p.play_to_end(random.Random(11), timeout=240)
        await p.close()

    run(main())
    mine = api.ok(api.get(f"/api/players/{api.id}/games"))
    assert [g["table_id"] for g in mine] == [table["id"]]  # the player sees their own private game
    assert api.ok(api.get(f"/api/players/{api.id}/stats"))["games"] == 1
    for viewer in (Api.guest(server), Api(server)):  # another player, and nobody signed in
        assert viewer.ok(viewer.get(f"/api/players/{api.id}/games")) == []
        stats = viewer.ok(viewer.get(f"/api/players/{api.id}/stats"))
        assert stats["games"] == 0 and stats["average_score"] is None
        finished = viewer.ok(viewer.get("/api/tables", params={"status": "finished", "limit": 100}))
        assert table["id"] not in {t["id"] for t in finished}


def test_a_stake_is_an_integer_and_nothing_else(server: ServerProcess) -> None:
    api = Api.register(server)
    for stake in ("10", 10.0, True, None, [10]):
        r = api.post("/api/tables", {"stake": stake, "turn_seconds": 0})
        assert r.status_code == 422, (stake, r.status_code, r.text)
    for body in ({"private": 1}, {"private": "true"}, {"turn_seconds": "60"}, {"bot_seats": ["1"]},
                 {"bot_seats": [1.0]}, {"ruleset": 7}):
        assert api.post("/api/tables", body).status_code == 422, body
    tid = api.create_table(stake=10)["id"]
    for body in ({"seat": "0"}, {"seat": 0.0}, {"seat": False}, {"stake": 1}, {"stake": "true"}):
        assert api.post(f"/api/tables/{tid}/join", body).status_code == 422, body
    assert api.join(tid, seat=0, stake=True)["table"]["pot"] == 10


def test_an_action_id_used_again_for_another_action_is_an_error(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        await _my_turn(p)
        assert p.view is not None
        first = p.view["legal"][0]
        await p.send({"type": "action", "id": "same", "action": first})
        ack = await p.until(lambda m: m["type"] == "ack")
        await p.until(lambda m: m["type"] == "update" and m["version"] >= ack["version"])
        await _my_turn(p)
        other = next((a for a in p.view["legal"] if a != first), "0 play AS")
        before = p.version
        await p.send({"type": "action", "id": "same", "action": other})
        err = await p.until(lambda m: m["type"] in ("error", "ack"))
        assert err["type"] == "error" and err["code"] == "id_reused" and err["id"] == "same", err
        assert repr(first) in err["message"]
        # The same action under the same id is still a harmless resend.
        await p.send({"type": "action", "id": "same", "action": first})
        dup = await p.until(lambda m: m["type"] == "ack")
        assert dup["duplicate"] is True and dup["version"] == ack["version"]
        # Nothing moved meanwhile: the new action was not applied, and it is still ours to play.
        await p.send({"type": "sync", "last_version": before})
        resumed = await p.until(lambda m: m["type"] == "resume")
        assert resumed["version"] == before and resumed["view"]["legal"]
        await p.close()

    run(main())


def test_an_action_id_survives_a_restart_with_its_action(restartable: ServerProcess) -> None:
    """The id's action is in the journal: after a restart a different action under it is still refused."""
    server = restartable
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def act() -> str:
        p = Player(server, tid, api.token)
        await p.connect()
        await _my_turn(p)
        assert p.view is not None
        text = p.view["legal"][0]
        await p.send({"type": "action", "id": "kept", "action": text})
        await p.until(lambda m: m["type"] == "ack")
        await p.close()
        return str(text)

    async def again(text: str) -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        await _my_turn(p)
        assert p.view is not None
        other = p.view["legal"][0]
        await p.send({"type": "action", "id": "kept", "action": other})
        assert (await p.until(lambda m: m["type"] == "error"))["code"] == "id_reused"
        await p.send({"type": "action", "id": "kept", "action": text})
        assert (await p.until(lambda m: m["type"] == "ack"))["duplicate"] is True
        await p.close()

    text = run(act())
    server.kill()
    server.start()
    run(again(text))
