"""Issue 19 against real servers on SQLite and PostgreSQL: chat, the live lobby, quick play, rematch,
profiles, leaderboards and accounts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import Any

import httpx
import pytest
import websockets
from server_helpers import Api, Player, ServerProcess, execute, ledger_totals, query, run


def egyptian_level(profile: dict[str, Any]) -> dict[str, Any]:
    """The profile's level panel of egyptian, the one ruleset that keeps level points (the only entry)."""
    assert [lv["ruleset"] for lv in profile["levels"]] == ["egyptian"], profile["levels"]
    return dict(profile["levels"][0])


def two_humans(server: ServerProcess, **rules: Any) -> tuple[int, Api, Api]:
    a, b = Api.register(server), Api.register(server)
    tid = a.create_table(bot_seats=[2, 3], length="micro", **rules)["id"]
    a.join(tid, seat=0)
    b.join(tid, seat=1)
    return tid, a, b


def chats(p: Player) -> list[dict[str, Any]]:
    return [m for m in p.messages if m["type"] == "chat"]


async def drain(p: Player, seconds: float = 0.3) -> None:
    try:
        while True:
            await p.recv(seconds)
    except TimeoutError:
        return


# --- chat ----------------------------------------------------------------------------------------------
def test_chat_channels_limits_mutes_reports_and_moderators(server: ServerProcess) -> None:
    tid, a, b = two_humans(server)
    watcher = Api.guest(server)
    mod = Api.register(server)
    execute(server.database_url, "UPDATE accounts SET moderator = :t WHERE id = :i", t=True, i=mod.id)

    async def main() -> None:
        pa, pb, ps = (Player(server, tid, api.token) for api in (a, b, watcher))
        for p in (pa, pb, ps):
            await p.connect()
        presence = await pa.until(lambda m: m["type"] == "presence" and m["spectators"] == 1)
        assert presence["seats"][:2] == [True, True]
        await pa.send({"type": "chat", "text": "  <img src=x onerror=alert(1)>  "})
        got = await pb.until(lambda m: m["type"] == "chat")
        assert got["text"] == "<img src=x onerror=alert(1)>" and got["channel"] == "players"
        assert got["seat"] == 0 and got["account_id"] == a.id and got["name"] == a.account["name"]
        assert (await ps.until(lambda m: m["type"] == "chat"))["id"] == got["id"]  # spectators read it
        # A spectator writes in the spectators' channel; a player who hides it does not get it.
        await pb.send({"type": "chat_prefs", "hide_spectators": True})
        await pb.until(lambda m: m["type"] == "chat_prefs")
        await ps.send({"type": "chat", "phrase": "good_luck"})
        spect = await pa.until(lambda m: m["type"] == "chat" and m["channel"] == "spectators")
        assert spect["phrase"] == "good_luck" and spect["text"] is None and spect["seat"] is None
        # Refusals: length, control characters, an unknown phrase, extra fields, an anonymous spectator.
        for bad, code in [({"text": "x" * 201}, "bad_chat"), ({"text": "a\u0007b"}, "bad_chat"),
                          ({"text": "\u202eevil"}, "bad_chat"), ({"phrase": "cheat"}, "bad_phrase"),
                          ({"text": "hi", "view": {"hand": ["AS"]}}, "bad_message"),
                          ({"text": "hi", "phrase": "bye"}, "bad_message"), ({"text": 5}, "bad_message")]:
            await pb.send({"type": "chat", "id": "c", **bad})
            err = await pb.until(lambda m: m["type"] == "error")
            assert err["code"] == code, (bad, err)
        anon = Player(server, tid, None)
        await anon.connect()
        await anon.send({"type": "chat", "text": "hi"})
        assert (await anon.until(lambda m: m["type"] == "error"))["code"] == "unauthorized"
        await anon.close()
        await drain(pb)
        assert not [m for m in pb.messages if m["type"] == "chat" and m["channel"] == "spectators"]
        # The rate limit is per player: a burst of 5, then refusals (the earlier one used 1 of them).
        for i in range(6):
            await pa.send({"type": "chat", "text": f"spam {i}"})
        await drain(pa, 0.5)
        limited = [m for m in pa.messages if m["type"] == "error" and m["code"] == "chat_rate_limited"]
        assert 1 <= len(limited) <= 2, [m for m in pa.messages if m["type"] == "error"]
        # Mute: b mutes a; a's messages no longer reach b (and the mute is remembered).
        assert b.ok(b.http.put("/api/me/mutes", json={"muted": [a.id, b.id, 10**9]},
                               headers=b.headers())) == {"muted": [{"id": a.id, "name": a.account["name"]}]}
        await pb.until(lambda m: m["type"] == "mutes")
        seen = len(chats(pb))
        await asyncio.sleep(2.1)  # a's bucket has a token again
        await pa.send({"type": "chat", "text": "can b hear me?"})
        await ps.until(lambda m: m["type"] == "chat" and m["text"] == "can b hear me?")
        await drain(pb)
        assert len(chats(pb)) == seen
        for p in (pa, pb, ps):
            await p.close()

    run(main())
    assert b.ok(b.get("/api/me/mutes"))["muted"][0]["id"] == a.id
    # The table's chat, stored: in order, both channels; a muted player's lines are left out for b.
    everyone = httpx.get(f"{server.base}/api/tables/{tid}/chat").json()["messages"]
    texts = [m["text"] or m["phrase"] for m in everyone]
    assert texts[0] == "<img src=x onerror=alert(1)>" and "good_luck" in texts and "can b hear me?" in texts
    assert all(m["account_id"] != a.id for m in b.ok(b.get(f"/api/tables/{tid}/chat"))["messages"])
    # Report a message; a moderator sees it, removes it and silences its author everywhere.
    first = everyone[0]
    r = b.post(f"/api/chat/messages/{first['id']}/report", {"reason": "spam"})
    assert r.status_code == 201
    assert b.post(f"/api/chat/messages/{first['id']}/report", {}).status_code == 200
    assert a.post(f"/api/chat/messages/{first['id']}/report", {}).status_code == 422
    assert b.get("/api/moderation/reports").status_code == 403
    reports = mod.ok(mod.get("/api/moderation/reports", params={"limit": 100}))
    mine = next(x for x in reports if x["message"]["id"] == first["id"])
    assert mine["reason"] == "spam" and mine["reporter_id"] == b.id
    gone = mod.http.delete(f"/api/moderation/messages/{first['id']}", headers=mod.headers())
    assert gone.status_code == 204
    removed = httpx.get(f"{server.base}/api/tables/{tid}/chat").json()["messages"][0]
    assert removed["removed"] and removed["text"] is None
    assert mod.ok(mod.http.put(f"/api/moderation/players/{a.id}", json={"silenced": True},
                               headers=mod.headers()))["silenced"] is True
    assert b.http.put(f"/api/moderation/players/{a.id}", json={"silenced": False},
                      headers=b.headers()).status_code == 403

    async def silenced() -> None:
        pa = Player(server, tid, a.token)
        await pa.connect()
        await pa.send({"type": "chat", "text": "let me speak"})
        assert (await pa.until(lambda m: m["type"] == "error"))["code"] == "silenced"
        await pa.close()

    run(silenced())
    assert len(httpx.get(f"{server.base}/api/tables/{tid}/chat").json()["messages"]) == len(everyone)
    assert httpx.get(f"{server.base}/api/chat/phrases").json()["max_chars"] == 200


def test_a_private_tables_chat_is_as_private_as_the_table(server: ServerProcess) -> None:
    a = Api.register(server)
    table = a.create_table(private=True, bot_seats=[1, 2, 3], length="micro")
    assert httpx.get(f"{server.base}/api/tables/{table['id']}/chat").status_code == 404
    assert a.get(f"/api/tables/{table['id']}/chat").status_code == 200
    assert httpx.get(f"{server.base}/api/tables/{table['id']}/chat",
                     headers={"X-Invite-Code": table["invite_code"]}).status_code == 200


# --- the live lobby ------------------------------------------------------------------------------------
def test_the_lobby_socket_pushes_table_changes(server: ServerProcess) -> None:
    a, b = Api.guest(server), Api.guest(server)

    async def main() -> None:
        async with websockets.connect(f"{server.ws_base}/ws/lobby", open_timeout=30) as ws:
            first = json.loads(await ws.recv())
            assert first["type"] == "lobby" and isinstance(first["tables"], list)
            await ws.send(json.dumps({"type": "hello", "token": a.token}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            tid = a.create_table(bot_seats=[3], length="micro")["id"]

            async def next_about(pred: Any) -> dict[str, Any]:
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
                    if pred(msg):
                        return dict(msg)

            created = await next_about(lambda m: m["type"] == "table" and m["table"]["id"] == tid)
            assert created["table"]["status"] == "open" and created["table"]["seats"][3]["bot"]
            a.join(tid, seat=0)
            joined = await next_about(lambda m: m["type"] == "table" and m["table"]["id"] == tid
                                      and m["table"]["seats"][0]["name"] == a.account["name"])
            assert "clock" not in joined["table"] and joined["table"]["ruleset"] == "koutchina"
            b.join(tid, seat=1)
            await next_about(lambda m: m["type"] == "table" and m["table"]["id"] == tid
                             and m["table"]["seats"][1]["account_id"] == b.id)
            await asyncio.to_thread(a.post, f"/api/tables/{tid}/bots")
            playing = await next_about(lambda m: m["type"] == "table" and m["table"]["id"] == tid
                                       and m["table"]["status"] == "playing")
            assert [s["bot"] for s in playing["table"]["seats"]] == [False, False, True, True]
            await ws.send(json.dumps({"type": "ping", "id": "p"}))
            await next_about(lambda m: m["type"] == "pong")
            await ws.send(json.dumps({"type": "nope"}))
            assert (await next_about(lambda m: m["type"] == "error"))["code"] == "unknown_type"
            for raw, code in ((b"\x00binary", "bad_message"), ("not json", "bad_json"),
                              ("[" * 5000, "bad_message"),
                              (json.dumps({"type": "hello", "token": 5}), "bad_message")):
                await ws.send(raw)
                assert (await next_about(lambda m: m["type"] == "error"))["code"] == code, raw
            for api in (a, b):
                api.ok(api.post(f"/api/tables/{tid}/leave"))
            # Two leavers: bots play on to the end, and the table leaves the lobby.
            await next_about(lambda m: m["type"] == "table_removed" and m["id"] == tid)

    run(main())


# --- quick play ----------------------------------------------------------------------------------------
def test_quick_play_seats_people_together_then_bots_fill_after_the_wait(quick_server: ServerProcess) -> None:
    server = quick_server
    a, b = Api.guest(server), Api.guest(server)
    first = a.ok(a.post("/api/quickplay", {"ruleset": "egyptian", "length": "committee"}))
    assert first["created"] and first["table"]["status"] == "open" and 0 < first["bots_in_ms"] <= 3000
    tid = first["table"]["id"]
    again = a.ok(a.post("/api/quickplay", {"ruleset": "egyptian", "length": "committee"}))
    assert again["table"]["id"] == tid and again["seat"] == first["seat"] and not again["created"]
    second = b.ok(b.post("/api/quickplay", {"ruleset": "egyptian", "length": "committee"}))
    assert second["table"]["id"] == tid and second["seat"] != first["seat"]  # the fullest table
    c = Api.guest(server)
    other = c.ok(c.post("/api/quickplay", {"ruleset": "koutchina"}))
    assert other["table"]["id"] != tid and other["table"]["length"] == "micro"
    assert a.post("/api/quickplay", {"ruleset": "nope"}).status_code == 422

    async def main() -> None:
        p = Player(server, tid, a.token)
        await p.connect()
        wait = await p.until(lambda m: m["type"] == "quickplay", timeout=5)
        assert wait["table_id"] == tid and wait["bots_in_ms"] <= 3000
        start = await p.until(lambda m: m["type"] == "update"
                              and any(e["kind"] == "start" for e in m["events"]), timeout=15)
        assert [s["bot"] for s in start["table"]["seats"]].count(True) == 2
        await p.close()

    run(main())
    table = a.ok(a.get(f"/api/tables/{tid}"))
    assert table["status"] == "playing" and table["bot_level"] == "heuristic"


@pytest.fixture(scope="module")
def quick_server(database_url_factory: Any) -> Any:
    proc = ServerProcess(database_url_factory("sqlite"), name="quick",
                         env={"ESTIMATION_QUICKPLAY_WAIT_SECONDS": "3"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


# --- rematch and profiles ------------------------------------------------------------------------------
def _play_out(server: ServerProcess, tid: int, apis: list[Api], seed: int) -> list[Player]:
    async def main() -> list[Player]:
        players = [Player(server, tid, api.token) for api in apis]
        for p in players:
            await p.connect()
        await asyncio.gather(*(p.play_to_end(random.Random(seed + i)) for i, p in enumerate(players)))
        for p in players:
            await p.close()
        return players

    return list(run(main()))


def test_rematch_seats_the_same_people_and_bots(server: ServerProcess) -> None:
    tid, a, b = two_humans(server)
    _play_out(server, tid, [a, b], 5)
    outsider = Api.register(server)
    assert outsider.post(f"/api/tables/{tid}/rematch").status_code == 403

    async def main() -> dict[str, Any]:
        pb = Player(server, tid, b.token)
        await pb.connect()
        made = await asyncio.to_thread(lambda: a.ok(a.post(f"/api/tables/{tid}/rematch")))
        note = await pb.until(lambda m: m["type"] == "rematch")
        assert note["table_id"] == made["table"]["id"] and note["by"] == a.id and note["reply"] == "accept"
        await pb.close()
        return dict(made)

    made = run(main())
    assert made["created"] and made["seat"] == 0 and made["table"]["private"]
    new = made["table"]
    assert [s["bot"] for s in new["seats"]] == [False, False, True, True]
    assert (new["ruleset"], new["length"], new["turn_seconds"]) == ("koutchina", "micro", 0)
    again = a.ok(a.post(f"/api/tables/{tid}/rematch"))
    assert again["table"]["id"] == new["id"] and not again["created"]
    joined = b.ok(b.post(f"/api/tables/{tid}/rematch"))
    assert joined["seat"] == 1 and joined["table"]["status"] == "playing"
    state = b.ok(b.get(f"/api/tables/{tid}/rematch"))
    assert {p["account_id"]: p["reply"] for p in state["players"]} == {a.id: "accept", b.id: "accept"}
    # Profiles: the finished game, with its replay.
    profile = a.ok(a.get(f"/api/players/{a.id}/profile"))
    assert profile["games"] >= 1 and profile["recent"][0]["table_id"] == tid
    assert profile["recent"][0]["replay"] == f"/api/tables/{tid}/record"
    assert a.get(profile["recent"][0]["replay"]).status_code == 200
    assert profile["average_score"] == round(profile["average_score"], 1)
    assert profile["by_ruleset"]["koutchina"]["games"] >= 1 and egyptian_level(profile)["points"] == 0
    assert httpx.get(f"{server.base}/api/players/999999999/profile").status_code == 404


def test_a_declined_rematch_is_recorded_and_announced(server: ServerProcess) -> None:
    tid, a, b = two_humans(server)
    assert a.post(f"/api/tables/{tid}/rematch").status_code == 409  # not finished
    _play_out(server, tid, [a, b], 9)
    made = a.ok(a.post(f"/api/tables/{tid}/rematch"))
    state = b.ok(b.post(f"/api/tables/{tid}/rematch/decline"))
    assert {p["account_id"]: p["reply"] for p in state["players"]} == {a.id: "accept", b.id: "decline"}
    # a leaves the rematch too: nobody is left, it is abandoned, and asking again makes a new one.
    a.ok(a.post(f"/api/tables/{made['table']['id']}/leave"))
    remade = a.ok(a.post(f"/api/tables/{tid}/rematch"))
    assert remade["created"] and remade["table"]["id"] != made["table"]["id"]
    assert {p["account_id"]: p["reply"] for p in remade["rematch"]["players"]} == {a.id: "accept", b.id: None}
    # a, at the open rematch, seats bots in b's seat.
    started = a.ok(a.post(f"/api/tables/{remade['table']['id']}/bots"))
    assert started["status"] == "playing"


def test_a_rematchs_kept_seat_waits_for_its_player(server: ServerProcess) -> None:
    """Issue 25, B9: someone holding the rematch's invite code could take a player's kept seat before that
    player answered. Now the seat waits for its player's answer: taken by them, or freed by their decline."""
    tid, a, b = two_humans(server)
    _play_out(server, tid, [a, b], 13)
    made = a.ok(a.post(f"/api/tables/{tid}/rematch"))
    new, code = made["table"]["id"], made["table"]["invite_code"]
    c = Api.register(server)
    for body in ({"seat": 1, "invite": code}, {"invite": code}):  # b's seat, or any seat: b's is the only one
        r = c.post(f"/api/tables/{new}/join", body)
        assert r.status_code == 409, (body, r.status_code, r.text)
    assert b.ok(b.post(f"/api/tables/{tid}/rematch"))["seat"] == 1
    # Declined, the seat is anyone's with the code.
    tid2, d, e = two_humans(server)
    _play_out(server, tid2, [d, e], 17)
    made = d.ok(d.post(f"/api/tables/{tid2}/rematch"))
    new, code = made["table"]["id"], made["table"]["invite_code"]
    assert c.post(f"/api/tables/{new}/join", {"seat": 1, "invite": code}).status_code == 409
    e.ok(e.post(f"/api/tables/{tid2}/rematch/decline"))
    assert c.ok(c.post(f"/api/tables/{new}/join", {"seat": 1, "invite": code}))["seat"] == 1


def test_leaving_an_egyptian_match_farms_no_level_points(server: ServerProcess) -> None:
    """Issue 25, B6 (RULES.md, egyptian ruling 9): create a table with three bots, join, leave, again and
    again, gave 4 level points a match (80 in 0.9 s, first on the level leaderboard); two accounts leaving
    at once traded draws. A match a leaver ends before its first round is scored counts for nobody; a
    leaver's match after that is a loss that pays nothing."""
    farmer = Api.register(server)
    for _ in range(3):
        tid = farmer.create_table(ruleset="egyptian", length="committee", bot_seats=[1, 2, 3])["id"]
        farmer.join(tid, seat=0)
        farmer.ok(farmer.post(f"/api/tables/{tid}/leave"))
    nothing = {"ruleset": "egyptian", "points": 0, "badge": False, "games": 0, "wins": 0, "draws": 0,
               "losses": 0}
    assert egyptian_level(farmer.ok(farmer.get(f"/api/players/{farmer.id}/profile"))) == nothing
    assert farmer.ok(farmer.get(f"/api/players/{farmer.id}/stats"))["games"] == 0
    board = farmer.ok(farmer.get("/api/leaderboards/egyptian", params={"by": "level", "limit": 100}))
    assert farmer.id not in {e["account_id"] for e in board["entries"]}
    # Two accounts at one table: one leaves at once; nobody's match counts.
    a, b = Api.register(server), Api.register(server)
    tid = a.create_table(ruleset="egyptian", length="committee", bot_seats=[2, 3])["id"]
    a.join(tid, seat=0)
    b.join(tid, seat=1)
    b.ok(b.post(f"/api/tables/{tid}/leave"))
    for who in (a, b):
        assert egyptian_level(who.ok(who.get(f"/api/players/{who.id}/profile"))) == nothing
    # After a round is scored, leaving is a loss that pays nothing; the one who stayed is paid.
    c, d = Api.register(server), Api.register(server)
    tid = c.create_table(ruleset="egyptian", length="committee", bot_seats=[2, 3])["id"]
    c.join(tid, seat=0)
    d.join(tid, seat=1)

    async def first_round() -> None:
        ps = [Player(server, tid, c.token), Player(server, tid, d.token)]
        for p in ps:
            await p.connect()
        rng = random.Random(5)
        deadline = asyncio.get_running_loop().time() + 120
        while not any(p.view is not None and (p.view["round"] > 1 or p.view["over"]) for p in ps):
            assert asyncio.get_running_loop().time() < deadline, "the first round was never scored"
            for p in ps:
                if p.my_turn():
                    await p.play_to_end(rng, stop_after=1, timeout=60)
                else:
                    with contextlib.suppress(TimeoutError):
                        await p.recv(0.2)
        for p in ps:
            await p.close()

    run(first_round())
    d.ok(d.post(f"/api/tables/{tid}/leave"))
    level = egyptian_level(d.ok(d.get(f"/api/players/{d.id}/profile")))
    assert level == {"ruleset": "egyptian", "points": 0, "badge": False, "games": 1, "wins": 0, "draws": 0,
                     "losses": 1}
    stayed = egyptian_level(c.ok(c.get(f"/api/players/{c.id}/profile")))
    assert stayed["games"] == 1 and stayed["points"] in (30, 10, 4)


# --- leaderboards --------------------------------------------------------------------------------------
def test_the_leaderboard_route_ranks_and_pages(server: ServerProcess) -> None:
    for by in ("winrate", "level"):
        page = httpx.get(f"{server.base}/api/leaderboards/koutchina", params={"by": by, "limit": 5}).json()
        assert page["by"] == by and page["days"] == 30 and len(page["entries"]) <= 5
        assert [e["rank"] for e in page["entries"]] == list(range(1, len(page["entries"]) + 1))
        if by == "level":
            points = [e["level_points"] for e in page["entries"]]
            assert points == sorted(points, reverse=True)
    assert httpx.get(f"{server.base}/api/leaderboards/nope").status_code == 404
    assert httpx.get(f"{server.base}/api/leaderboards/egyptian", params={"by": "x"}).status_code == 422


# --- accounts ------------------------------------------------------------------------------------------
def test_password_name_and_signing_out_everywhere(server: ServerProcess) -> None:
    a = Api.register(server, password="first password")
    other = Api(server, a.ok(httpx.post(server.base + "/api/sessions", json={
        "name": a.account["name"], "password": "first password"}))["token"])
    assert a.http.put("/api/me/password",
                      json={"old_password": "wrong one", "new_password": "second one at last"},
                      headers=a.headers()).status_code == 403
    assert a.http.put("/api/me/password",
                      json={"old_password": "first password", "new_password": "second one at last"},
                      headers=a.headers()).status_code == 204
    assert other.get("/api/me").status_code == 401  # the other session was signed out
    assert httpx.post(server.base + "/api/sessions", json={
        "name": a.account["name"], "password": "first password"}).status_code == 401
    assert httpx.post(server.base + "/api/sessions", json={
        "name": a.account["name"], "password": "second one at last"}).status_code == 200
    # Names: unique among accounts, validated as at sign-up.
    b = Api.register(server)
    assert a.http.put("/api/me/name", json={"name": b.account["name"].upper()},
                      headers=a.headers()).status_code == 409
    assert a.http.put("/api/me/name", json={"name": "bad\nname"}, headers=a.headers()).status_code == 422
    new_name = f"Renamed {a.id}"
    assert a.ok(a.http.put("/api/me/name", json={"name": new_name}, headers=a.headers()))["name"] == new_name
    assert httpx.post(server.base + "/api/sessions",
                      json={"name": new_name, "password": "second one at last"}).status_code == 200
    assert a.http.delete("/api/me/sessions", headers=a.headers()).status_code == 204
    assert a.get("/api/me").status_code == 401


def test_the_daily_grant_tops_up_once_under_concurrent_requests(server: ServerProcess) -> None:
    a = Api.register(server)
    tid = a.create_table(stake=300, bot_seats=[1, 2], length="micro")["id"]
    a.join(tid, seat=0, stake=True)
    assert a.ok(a.get("/api/me"))["balance"] == 700

    async def burst() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
            answers = await asyncio.gather(*(client.post("/api/me/daily-grant", headers=a.headers())
                                             for _ in range(12)))
        return [r.json() for r in answers if r.status_code == 200]

    answers = run(burst())
    assert len(answers) == 12 and sorted(x["granted"] for x in answers) == [0] * 11 + [300]
    assert a.ok(a.get("/api/me"))["balance"] == 1000
    grants = query(server.database_url,
                   "SELECT amount FROM ledger WHERE account_id = :a AND key LIKE 'daily:%'",
                   a=a.id)
    assert grants == [(300,)]
    a.ok(a.post(f"/api/tables/{tid}/leave"))  # the stake comes back: 1300, and no second grant today
    assert a.ok(a.post("/api/me/daily-grant"))["granted"] == 0
    assert a.ok(a.get("/api/me"))["balance"] == 1300
    assert Api.guest(server).post("/api/me/daily-grant").status_code == 403
    books = ledger_totals(server.database_url)
    assert books["wallets"] + books["pots"] == books["grants"] and books["mismatched_wallets"] == 0


def test_a_deleted_account_is_anonymised_closed_and_cannot_sign_in(server: ServerProcess) -> None:
    a = Api.register(server, password="delete me please")
    name = a.account["name"]
    tid = a.create_table(bot_seats=[1, 2, 3], length="micro")["id"]
    a.join(tid, seat=0)
    assert a.http.request("DELETE", "/api/me", json={"password": "delete me please"},
                          headers=a.headers()).status_code == 409  # seated at a live table
    _play_out(server, tid, [a], 3)
    wrong = a.http.request("DELETE", "/api/me", json={"password": "wrong"}, headers=a.headers())
    assert wrong.status_code == 403
    assert a.http.request("DELETE", "/api/me", json={"password": "delete me please"},
                          headers=a.headers()).status_code == 204
    assert a.get("/api/me").status_code == 401
    assert httpx.post(server.base + "/api/sessions", json={"name": name, "password": "delete me please"}
                      ).status_code == 401
    # Games stay, under the anonymous name; the wallet is closed in the ledger and the books balance.
    record = httpx.get(f"{server.base}/api/tables/{tid}/record").json()
    assert record["players"][0] == "Deleted player" and name not in json.dumps(record)
    table = httpx.get(f"{server.base}/api/tables/{tid}").json()
    assert table["seats"][0]["name"] == "Deleted player"
    profile = httpx.get(f"{server.base}/api/players/{a.id}/profile").json()
    assert profile["deleted"] and profile["name"] == "Deleted player" and profile["games"] == 1
    rows = query(server.database_url, "SELECT kind, amount FROM ledger WHERE account_id = :a ORDER BY id",
                 a=a.id)
    assert rows == [("grant", 1000), ("close", -1000)]
    events = query(server.database_url, "SELECT data FROM events WHERE table_id = :t AND action IS NULL",
                   t=tid)
    assert all(name not in e[0] for e in events)
    books = ledger_totals(server.database_url)
    assert books["wallets"] + books["pots"] == books["grants"] and books["mismatched_wallets"] == 0
    # The name is free again.
    Api.register(server, name=name)
