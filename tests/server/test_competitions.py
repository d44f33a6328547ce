"""Competitions over the API (issue 23): entry, a swiss of two stages played to the end with a leaver and
a director's adjustment, a robot competition left and resumed, and exports the core's checker accepts."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from server_helpers import Api, ServerProcess, play_seat, play_seats, run

import estimation
from estimation.competition import board_seed, check_export


def competition(director: Api, **spec: Any) -> dict[str, Any]:
    body = {"name": "Test Cup", "ruleset": "koutchina", "length": "micro", "bot_level": "random",
            "turn_seconds": 0, **spec}
    r = director.post("/api/competitions", body)
    assert r.status_code == 201, r.text
    return dict(r.json())


def wait_for(check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.2)
    raise TimeoutError("condition not met")


def test_private_competition_is_entered_by_invite_only(server: ServerProcess) -> None:
    director, friend, outsider = Api.guest(server), Api.guest(server), Api.guest(server)
    comp = competition(director, private=True, starts_in=3600)
    cid, code = comp["id"], comp["invite_code"]
    assert code and comp["manager"] is True
    # An outsider cannot tell it from no competition at all: the same 404 on every route, never listed.
    missing = outsider.get("/api/competitions/999999")
    for response in (outsider.get(f"/api/competitions/{cid}"),
                     outsider.post(f"/api/competitions/{cid}/register"),
                     outsider.get(f"/api/competitions/{cid}/standings"),
                     outsider.post(f"/api/competitions/{cid}/register", {"invite": "wrong-code"})):
        assert response.status_code == 404 and response.json() == missing.json(), response.text
    assert cid not in [c["id"] for c in outsider.ok(outsider.get("/api/competitions"))]
    # With the code: seen, and entered; then it is listed for the entrant, and the code is the director's.
    seen = friend.ok(friend.get(f"/api/competitions/{cid}", headers={"X-Invite-Code": code}))
    assert seen["invite_code"] is None and seen["manager"] is False
    entered = friend.ok(friend.post(f"/api/competitions/{cid}/register", {"invite": code}))
    assert entered["entrants"] == 1 and entered["mine"]["entry"] is not None
    assert cid in [c["id"] for c in friend.ok(friend.get("/api/competitions"))]
    assert friend.post(f"/api/competitions/{cid}/register", {"invite": code}).status_code == 409
    # Withdraw before the start, and back in; the director cannot start a swiss too small to score.
    assert friend.ok(friend.post(f"/api/competitions/{cid}/withdraw"))["entrants"] == 0
    assert friend.ok(friend.post(f"/api/competitions/{cid}/register", {"invite": code}))["entrants"] == 1
    assert friend.post(f"/api/competitions/{cid}/start").status_code == 403
    too_few = director.post(f"/api/competitions/{cid}/start")
    assert too_few.status_code == 409 and "at least 5" in too_few.json()["detail"]
    # Bad requests are 4xx with a message, never a 500.
    for bad in ({"name": ""}, {"name": "x", "kind": "robot"}, {"name": "x", "ruleset": "nope"},
                {"name": "x", "bot_level": "nope"}, {"name": "x", "stages": 0},
                {"name": "x", "window_seconds": 60}):
        r = director.post("/api/competitions", bad)
        assert r.status_code == 422 and r.json()["detail"], (bad, r.text)


def test_an_erased_entrant_is_anonymous_in_every_competition_it_entered(server: ServerProcess) -> None:
    director, gone, stays = Api.guest(server), Api.guest(server, "Soon Gone"), Api.guest(server, "Stays")
    cid = competition(director, starts_in=3600)["id"]
    for api in (gone, stays):
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    before = director.ok(director.get(f"/api/competitions/{cid}"))  # read, and its rows kept
    assert sorted(e["name"] for e in before["entrants_list"]) == ["Soon Gone", "Stays"]
    r = gone.http.delete("/api/me", headers=gone.headers())
    assert r.status_code == 204, r.text
    after = director.ok(director.get(f"/api/competitions/{cid}"))
    assert sorted(e["name"] for e in after["entrants_list"]) == ["Deleted player", "Stays"]
    assert "Soon Gone" not in str(after)
    assert "Soon Gone" not in director.get(f"/api/competitions/{cid}/standings").text


def test_swiss_two_stages_with_a_leaver_and_an_adjustment(server: ServerProcess) -> None:
    director = Api.guest(server, "Director")
    people = [Api.guest(server, f"Entrant {i}") for i in range(5)]
    comp = competition(director, stages=2, starts_in=3600)
    cid = comp["id"]
    for api in people:
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    started = director.ok(director.post(f"/api/competitions/{cid}/start"))
    assert started["status"] == "running" and started["stage"] == 1 and started["tables"] == 2
    mine = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"] for api in people}
    tables = sorted({m["table_id"] for m in mine.values()})
    assert len(tables) == 2
    # Same seed, same deals: both tables of the stage play from the stage's board seed.
    records: dict[int, Any] = {}
    leaver = next(api for api in people if sum(m["table_id"] == mine[api.id]["table_id"]
                                               for m in mine.values()) == 3)
    # Nobody watches a competition table while its stage is on, not even the director.
    assert director.get(f"/api/tables/{tables[0]}").status_code == 404
    assert director.get(f"/api/tables/{tables[0]}/view").status_code == 404

    async def stage_one() -> None:
        async def one(api: Api, i: int) -> None:
            tid = mine[api.id]["table_id"]
            if api is leaver:
                await play_seat(server, api, tid, i, stop_after=3)
                api.ok(api.post(f"/api/tables/{tid}/leave"))
                return
            player = await play_seat(server, api, tid, i)
            await player.close()
        await asyncio.gather(*(one(api, i) for i, api in enumerate(people)))

    run(stage_one())
    # The stage is over at both tables: stage 2 is seated, without the leaver (it left the competition).
    after = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["stage"] == 2 and c)
    assert after["entrants"] == 5
    rows = {r["entrant"]: r for r in after["standings"]}
    leaver_entry = mine[leaver.id]["entry"]
    assert rows[leaver_entry]["left"] is True
    # The leaver scored 0 MP on every board its table had not finished when it left.
    summary = leaver.ok(leaver.get(f"/api/competitions/{cid}/me"))
    assert summary["boards"] == [b for b in summary["boards"] if b["stage"] == 1]
    traveller = leaver.get(f"/api/competitions/{cid}/boards/1/5")
    assert traveller.status_code == 200  # stage 1 is over everywhere: open to all
    # The traveller comes a page at a time, by default the viewer's own table's page; the leaver's seat
    # on a board after it left is marked (a bot played it).
    page = traveller.json()
    assert page["tables_total"] == 2 and page["offset"] == 0 and page["mine"] == mine[leaver.id]["table_id"]
    own = leaver.ok(leaver.get(f"/api/competitions/{cid}/boards/1/5?limit=1"))
    assert [t["table"] for t in own["tables"]] == [own["mine"]] and own["offset"] == tables.index(own["mine"])
    other = leaver.ok(leaver.get(f"/api/competitions/{cid}/boards/1/5?limit=1&offset={1 - own['offset']}"))
    assert [t["table"] for t in other["tables"]] != [own["mine"]] and other["tables_total"] == 2
    seat = next(s for t in page["tables"] for s in t["seats"] if s["entrant"] == mine[leaver.id]["entry"])
    assert seat["left"] is True
    assert leaver.get(f"/api/competitions/{cid}/boards/1/5?limit=0").status_code == 422
    for tid in tables:
        records[tid] = director.ok(director.get(f"/api/tables/{tid}/record"))
    hands = [next(d["hands"] for d in records[tid]["deals"] if d["round"] == 1) for tid in tables]
    assert hands[0] == hands[1], "every table of a stage holds the same cards on a board"
    game = estimation.new_game("koutchina", "micro", board_seed(0, 1))  # another seed deals other cards
    assert [game.hand_text(s) for s in range(4)] != hands[0]
    assert director.get(f"/api/tables/{tables[0]}").status_code == 200  # watchable once the stage is over
    # Stage 2: four entrants, each at a seat other than its stage-1 seat where the table allows.
    stage2 = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"] for api in people}
    assert stage2[leaver.id]["table_id"] is None or stage2[leaver.id]["table_id"] in tables
    playing = [api for api in people if api is not leaver]
    new_tables = {stage2[api.id]["table_id"] for api in playing}
    assert not new_tables & set(tables)
    # Fair play: before finishing a board of stage 2, its traveller is closed to an entrant.
    first = playing[0]
    assert first.get(f"/api/competitions/{cid}/boards/2/1").status_code == 403

    run(play_seats(server, [(api, stage2[api.id]["table_id"], 100 + i) for i, api in enumerate(playing)]))
    done = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["status"]
                    == "finished" and c)
    board = first.ok(first.get(f"/api/competitions/{cid}/boards/2/1"))
    line = board["tables"][0]
    assert {"table", "finished", "trump", "caller", "seats"} <= set(line)
    assert {"player", "declarations", "estimate", "tricks", "score", "mp"} <= set(line["seats"][0])
    # A director's adjustment with a reason: in the standings' audit trail, and in the MP.
    target = done["standings"][-1]
    r = first.post(f"/api/competitions/{cid}/adjustments",
                   {"stage": 2, "round": 1, "entrant": target["entrant"], "mp": 0, "reason": "x"})
    assert r.status_code == 403
    bad = director.post(f"/api/competitions/{cid}/adjustments",
                        {"stage": 2, "round": 1, "entrant": target["entrant"], "mp": 999, "reason": "x"})
    assert bad.status_code == 422, bad.text
    top = board["top"]
    adjusted = director.ok(director.post(f"/api/competitions/{cid}/adjustments", {
        "stage": 1, "round": 1, "entrant": target["entrant"], "mp": top, "reason": "revoke: misclick"}))
    assert adjusted["adjustments"][-1]["reason"] == "revoke: misclick"
    assert adjusted["adjustments"][-1]["by"] == "Director"
    # The export: checked by the core's checker against its own records.
    doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
    assert doc["format"] == "estimation-competition/1" and len(doc["stages"]) == 2
    _scored, disagreement = check_export(doc)
    assert disagreement is None
    assert [r["entrant"] for r in doc["standings"]] == [r["entrant"] for r in adjusted["standings"]]
    assert all("seed" not in t["record"] for s in doc["stages"] for t in s["tables"])
    assert any(t.get("left") for t in doc["stages"][0]["tables"])


def test_robot_competition_left_and_resumed_to_the_end(server: ServerProcess) -> None:
    director, me = Api.guest(server, "Robot Director"), Api.guest(server, "Solo")
    comp = competition(director, kind="robot", window_seconds=600, starts_in=0, entry_limit=1,
                       instances=1)
    cid = comp["id"]
    me.ok(me.post(f"/api/competitions/{cid}/register"))
    wait_for(lambda: me.ok(me.get(f"/api/competitions/{cid}"))["status"] == "running", 10)
    tid = me.ok(me.post(f"/api/competitions/{cid}/play"))["table_id"]

    async def first_part() -> int:
        player = await play_seat(server, me, tid, 1, stop_after=4)
        await player.close()
        return player.version

    run(first_part())
    # Stepping away is not leaving: the table waits for its entrant (no clock, no bot for seat 0).
    view = wait_for(lambda: (v := me.ok(me.get(f"/api/tables/{tid}/view")))["view"]["to_move"] == 0 and v, 10)
    assert not view["view"]["over"] and view["table"]["clock"] is None and view["table"]["turn_seconds"] == 0
    time.sleep(2.0)
    later = me.ok(me.get(f"/api/tables/{tid}/view"))
    assert later["version"] == view["version"] and not later["table"]["seats"][0]["away"]
    # Coming back: the same table, and on to the end; with the entry limit reached it finishes then.
    assert me.ok(me.post(f"/api/competitions/{cid}/play"))["table_id"] == tid

    run(play_seats(server, [(me, tid, 2)]))
    done = wait_for(lambda: (c := me.ok(me.get(f"/api/competitions/{cid}")))["status"] == "finished" and c)
    assert done["standings"][0]["entrant"] == done["mine"]["entry"]
    summary = me.ok(me.get(f"/api/competitions/{cid}/me"))
    assert len(summary["boards"]) == 5 and all(b["top"] == 0 for b in summary["boards"])  # alone: n = 1
    doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
    assert doc["kind"] == "robot" and doc["stages"][0]["tables"][0]["seats"] == [done["mine"]["entry"], None,
                                                                                None, None]
    assert check_export(doc)[1] is None


def test_a_swiss_survives_a_crash_mid_stage(database_url_factory: Any) -> None:
    """SIGKILL in the middle of stage 1: the tables come back (same board seed, same deals), the players
    go on, stage 2 is seated once and the competition ends with an export that checks out."""
    server = ServerProcess(database_url_factory("sqlite"), name="crash")
    server.start()
    try:
        director = Api.guest(server, "Crash Director")
        people = [Api.guest(server, f"Crash {i}") for i in range(5)]
        cid = competition(director, stages=2, starts_in=3600)["id"]
        for api in people:
            api.ok(api.post(f"/api/competitions/{cid}/register"))
        director.ok(director.post(f"/api/competitions/{cid}/start"))
        mine = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"]["table_id"] for api in people}

        def some(**stop: Any) -> None:
            run(play_seats(server, [(api, mine[api.id], 50 + i) for i, api in enumerate(people)], **stop))

        some(stop_after=2)
        server.kill()
        server.start()  # on the same port and database
        some()
        wait_for(lambda: director.ok(director.get(f"/api/competitions/{cid}"))["stage"] == 2)
        mine = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"]["table_id"] for api in people}
        some()
        wait_for(lambda: director.ok(director.get(f"/api/competitions/{cid}"))["status"] == "finished")
        doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
        assert [len(s["tables"]) for s in doc["stages"]] == [2, 2]
        stage1 = doc["stages"][0]["tables"]
        assert stage1[0]["record"]["deals"][0]["hands"] == stage1[1]["record"]["deals"][0]["hands"]
        assert check_export(doc)[1] is None
    finally:
        server.stop()
