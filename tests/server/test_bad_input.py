"""Bad input over the WebSocket: an error to that connection only, and nothing changes."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from server_helpers import Api, Player, ServerProcess, run


def _table_with_two_humans(server: ServerProcess) -> tuple[int, list[Api]]:
    apis = [Api.guest(server) for _ in range(2)]
    tid = apis[0].create_table(bot_seats=[2, 3])["id"]
    for seat, api in enumerate(apis):
        api.join(tid, seat=seat)
    return tid, apis


async def _quiet(p: Player, seconds: float = 0.3) -> list[dict[str, object]]:
    """Whatever arrives within ``seconds`` (the other connection must get nothing from our errors)."""
    got = []
    try:
        while True:
            got.append(await p.recv(seconds))
    except TimeoutError:
        return got


def test_bad_messages_get_an_error_for_that_connection_only_and_change_nothing(server: ServerProcess) -> None:
    tid, apis = _table_with_two_humans(server)

    async def main() -> None:
        a, b = (Player(server, tid, api.token) for api in apis)
        await a.connect()
        await b.connect()
        await _quiet(a)
        await _quiet(b)
        version = a.version
        view = a.view
        assert view is not None
        to_move = view["to_move"]
        mover, other = (a, b) if to_move == a.seat else (b, a)
        if to_move not in (a.seat, b.seat):  # a bot is to move: wait for a human turn
            msg = await a.until(lambda m: m.get("view") is not None and m["view"]["to_move"] in (0, 1))
            version = msg["version"]
            mover, other = (a, b) if msg["view"]["to_move"] == 0 else (b, a)
            await _quiet(b if mover is a else a)
            await _quiet(mover)
            version = mover.version
        assert mover.view is not None
        legal = mover.view["legal"]
        illegal_play = next(f"{mover.seat} play {c}" for c in ("2C", "3C", "4C", "AS", "KS")
                            if f"{mover.seat} play {c}" not in legal)
        cases = [
            ("not json at all", "bad_json"),
            ("[" * 5000, "too_large"),
            ("[" * 3000, "bad_json"),
            (json.dumps({"type": "x" * 10}), "unknown_type"),
            (json.dumps([1, 2, 3]), "bad_message"),
            (json.dumps({"kind": "action"}), "bad_message"),
            (json.dumps({"type": "action", "id": 5, "action": legal[0]}), "bad_message"),
            (json.dumps({"type": "action", "id": "x", "action": 7}), "bad_message"),
            (json.dumps({"type": "action", "id": "x", "action": legal[0], "version": "1"}), "bad_message"),
            (json.dumps({"type": "action", "id": "x", "action": legal[0], "version": True}), "bad_message"),
            (json.dumps({"type": "action", "id": "y" * 65, "action": legal[0]}), "bad_message"),
            (json.dumps({"type": "action", "id": "x1", "action": "florp"}), "invalid"),
            (json.dumps({"type": "action", "id": "x2", "action": illegal_play}), "illegal"),
            (json.dumps({"type": "action", "id": "x3", "action": legal[0], "version": version - 1}), "stale"),
            (json.dumps({"type": "hello"}), "already_joined"),
            (json.dumps({"type": "sync", "last_version": -1}), "bad_message"),
        ]
        other_seat = other.seat
        cases.append((json.dumps({"type": "action", "id": "x4", "action": legal[0].replace(
            f"{mover.seat} ", f"{other_seat} ", 1)}), "not_your_seat"))
        for raw, code in cases:
            await mover.send(raw)
            err = await mover.recv(10)
            assert err["type"] == "error" and err["code"] == code, (raw[:60], err)
        # The other seat acting out of turn.
        await other.send({"type": "action", "id": "o1", "action": legal[0].replace(
            f"{mover.seat} ", f"{other_seat} ", 1)})
        err = await other.recv(10)
        assert err["code"] == "not_your_turn" and err["id"] == "o1"
        await mover.ws.send(b"\x00\x01binary")
        assert (await mover.recv(10))["code"] == "bad_message"
        # Nothing changed, and nobody else heard about any of it.
        assert await _quiet(other) == []
        await mover.send({"type": "sync", "last_version": version})
        resumed = await mover.recv(10)
        assert resumed["type"] == "resume" and resumed["version"] == version and resumed["events"] == []
        # A legal action still goes through after all that.
        action_id = await mover.act(legal[0], version)
        ack = await mover.until(lambda m: m["type"] == "ack")
        assert ack["id"] == action_id and ack["version"] == version + 1
        await a.close()
        await b.close()

    run(main())


def test_hello_is_required_and_unknown_tables_and_tokens_are_refused(server: ServerProcess) -> None:
    tid, _apis = _table_with_two_humans(server)

    async def main() -> None:
        import websockets

        async with websockets.connect(f"{server.ws_base}/ws/tables/{tid}") as ws:
            await ws.send(json.dumps({"type": "action", "id": "a", "action": "0 est 1"}))
            assert json.loads(await ws.recv())["code"] == "hello_first"
            await ws.send(json.dumps({"type": "hello", "token": "nonsense"}))
            assert json.loads(await ws.recv())["code"] == "unauthorized"
            await ws.send(json.dumps({"type": "ping", "id": "p"}))
            assert json.loads(await ws.recv()) == {"type": "pong", "id": "p"}
        for path in ("999999", "abc", "-1", "1" * 40):
            async with websockets.connect(f"{server.ws_base}/ws/tables/{path}") as ws:
                await ws.send(json.dumps({"type": "hello"}))
                assert json.loads(await ws.recv())["code"] == "no_such_table"
        # A spectator cannot act.
        p = Player(server, tid, None)
        await p.connect()
        await p.send({"type": "action", "id": "s", "action": "0 est 1"})
        assert (await p.until(lambda m: m["type"] == "error"))["code"] == "not_seated"
        await p.close()

    run(main())


def test_flooding_is_rate_limited_per_connection(server: ServerProcess) -> None:
    tid, apis = _table_with_two_humans(server)

    async def main() -> None:
        a, b = (Player(server, tid, api.token) for api in apis)
        await a.connect()
        await b.connect()
        await _quiet(b)
        for i in range(120):
            await a.send({"type": "ping", "id": f"p{i}"})
        replies = []
        for _ in range(120):
            replies.append(await a.recv(10))
        limited = [r for r in replies if r["type"] == "error" and r["code"] == "rate_limited"]
        assert len(limited) >= 40
        assert all(r["id"].startswith("p") for r in limited)
        # The other connection is not limited, and heard nothing.
        assert await _quiet(b) == []
        await b.send({"type": "ping", "id": "b"})
        assert (await b.recv(10))["type"] == "pong"
        await a.close()
        await b.close()

    run(main())


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
MESSAGES = st.one_of(
    st.text(max_size=200),
    JSONISH.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["action", "sync", "back", "leave", "hello", "ping", "x"])},
        optional={"id": JSONISH, "action": st.text(max_size=20) | JSONISH, "version": JSONISH,
                  "last_version": JSONISH, "token": JSONISH}).map(json.dumps),
)


def test_fuzzed_garbage_never_breaks_a_table(server: ServerProcess) -> None:
    """Hypothesis garbage on a seated connection: every reply is an error (or a harmless answer), the
    connection stays open, the table's version moves only by the bots' own moves, and a 500 never happens."""
    api = Api.guest(server)
    tid = api.create_table(bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def session(batch: list[str]) -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        before = p.version
        for raw in batch:
            if '"leave"' in raw:
                continue  # leaving is a legitimate request, tested elsewhere
            await p.send(raw)
        await p.send({"type": "ping", "id": "end"})
        await p.until(lambda m: m["type"] == "pong" and m.get("id") == "end", timeout=20)
        # Only our own seat can move this table (bots wait for seat 0 with no clock): any change is ours,
        # and a change can only come from a legal action text, which garbage almost never is.
        for m in p.messages:
            if m["type"] == "ack":
                assert m["version"] > before
        await p.close()

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(MESSAGES, min_size=1, max_size=15))
    def fuzz(batch: list[str]) -> None:
        run(session(batch))

    fuzz()
    assert api.ok(api.get("/api/health"))["ok"]
