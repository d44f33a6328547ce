"""Competitions on the other rulesets, over the API (SQLite and PostgreSQL): an `egyptian` swiss on the
`committee` length with a leaver mid-stage (whose leaving ends its table: egyptian ruling 9), an
`egyptian` entrant removed by the director before any board, and a `classic` robot competition.

Every figure asserted is derived here from the tables' records (replayed with the engine) and compared
with what the server says: the standings, the travellers, the summary, the export and the command line's
`estimation competition score`."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from server_helpers import ROOT, Api, ServerProcess, play_seat, play_seats, run
from test_competitions import competition, wait_for

from estimation.competition import check_export
from estimation.record import load_record
from estimation.rulesets import RULESETS


def round_scores(record: dict[str, Any]) -> list[tuple[int, ...]]:
    """A table's round scores (as they count in the totals), replayed from its record by the engine."""
    return [tuple(r.scores) for r in load_record(record).round_results]


def mp_by_hand(scores: list[tuple[int, ...]], seat: int) -> list[int]:
    """Each table's MP for ``seat`` on one board: 2 a score beaten, 1 a tie (RULES.md, Matchpoints)."""
    mine = [s[seat] for s in scores]
    return [sum(2 if x > y else x == y for j, y in enumerate(mine) if j != i) for i, x in enumerate(mine)]


def expected_standings(doc: dict[str, Any]) -> dict[int, tuple[int, int]]:
    """Every entrant's (MP, top) from the export's records alone, worked by hand: each board's group is
    the tables that finished the round; a seat whose entrant left before the round scores 0 of the top; a
    table ended by another seat's leaver has no result there."""
    totals = {e["id"]: (0, 0) for e in doc["entrants"]}
    rounds = len(RULESETS[doc["ruleset"]].lengths[doc["length"]])
    for stage in doc["stages"]:
        tables = stage["tables"]
        played = {t["table"]: round_scores(t["record"]) for t in tables}
        for instance in {t["instance"] for t in tables}:
            group = [t for t in tables if t["instance"] == instance]
            for r in range(1, rounds + 1):
                finished = [t for t in group if len(played[t["table"]]) >= r]
                top = 2 * (len(finished) - 1) if len(finished) > 1 else 0
                for seat in range(4):
                    mps = mp_by_hand([played[t["table"]][r - 1] for t in finished], seat)
                    by_table = {t["table"]: mp for t, mp in zip(finished, mps, strict=True)}
                    for t in group:
                        entrant = t["seats"][seat]
                        if entrant is None:
                            continue
                        gone = {x["seat"]: x["rounds"] for x in t.get("left", [])}
                        mp, tp = totals[entrant]
                        if gone.get(seat, rounds) < r:
                            totals[entrant] = (mp, tp + top)  # left before the board: 0 of the top
                        elif t["table"] in by_table:
                            totals[entrant] = (mp + by_table[t["table"]], tp + top)
    return totals


def score_command(doc: dict[str, Any], tmp: Path) -> str:
    """`estimation competition score` on the export: it must accept every figure (exit 0)."""
    path = tmp / "export.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-m", "estimation", "competition", "score", str(path),
                           "--no-travellers"], capture_output=True, text=True, cwd=str(ROOT), timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def egyptian_stats(api: Api) -> dict[str, Any]:
    return dict(api.ok(api.get(f"/api/players/{api.id}/stats"))["levels"]["egyptian"])


def test_egyptian_committee_swiss_with_a_leaver(server: ServerProcess, tmp_path: Path) -> None:
    """Nine entrants, three tables of three: a leaver after three boards ends its table (egyptian); it
    scores 0 of the top on the ten boards left, its two table-mates have no result there, its match pays
    no level points; stage 2 seats the eight others; standings, travellers, summary and export agree."""
    director = Api.guest(server, "Egypt Director")
    people = [Api.guest(server, f"Cairo {i}") for i in range(9)]
    cid = competition(director, ruleset="egyptian", length="committee", stages=2, starts_in=3600)["id"]
    for api in people:
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    started = director.ok(director.post(f"/api/competitions/{cid}/start"))
    assert started["tables"] == 3
    assert started["rounds"] == len(RULESETS["egyptian"].lengths["committee"]) == 13
    mine = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"] for api in people}
    leaver = people[0]
    leaver_table, leaver_entry = mine[leaver.id]["table_id"], mine[leaver.id]["entry"]
    mates = [api for api in people[1:] if mine[api.id]["table_id"] == leaver_table]
    assert len(mates) == 2
    before = {api.id: egyptian_stats(api) for api in [leaver, *mates]}
    boards_before_leaving = 3

    async def stage_one() -> None:
        async def one(api: Api, i: int) -> None:
            tid = mine[api.id]["table_id"]
            if api is leaver:
                player = await play_seat(server, api, tid, i,
                                         stop_when=lambda v: v["round"] > boards_before_leaving)
                api.ok(api.post(f"/api/tables/{tid}/leave"))
            else:
                player = await play_seat(server, api, tid, i)
            await player.close()
        await asyncio.gather(*(one(api, i) for i, api in enumerate(people)))

    run(stage_one())
    # Stage 2 is seated table by table: two tables for the eight who stayed (the leaver left the
    # competition), never a third.
    after = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["stage"] == 2
                     and c["tables"] >= 2 and c)
    assert after["tables"] == 2
    stage2 = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"] for api in people[1:]}
    assert all(m["table_id"] is not None for m in stage2.values())
    assert leaver.ok(leaver.get(f"/api/competitions/{cid}"))["mine"]["table_id"] in (None, leaver_table)

    # Its table ended when it left (egyptian ruling 9): the record stops after the boards it finished.
    record = director.ok(director.get(f"/api/tables/{leaver_table}/record"))
    assert len(round_scores(record)) == boards_before_leaving
    # A board after it left: its table is listed unfinished (no figures), the leaver's seat marked as
    # left and its table-mates' not; the leaver's summary shows 0 of the top there, its table-mates' no
    # result (neither MP nor top).
    late = boards_before_leaving + 1
    board = leaver.ok(leaver.get(f"/api/competitions/{cid}/boards/1/{late}"))
    assert board["top"] == 2 and board["tables_total"] == 3 and board["mine"] == leaver_table
    lines = {t["table"]: t for t in board["tables"]}
    ended = lines.pop(leaver_table)
    assert ended["finished"] is False and all(s["mp"] is None and s["score"] is None for s in ended["seats"])
    assert [s["left"] for s in ended["seats"]] == [s["entrant"] == leaver_entry for s in ended["seats"]]
    finished = list(lines.values())
    group = [tuple(x["score"] for x in t["seats"]) for t in finished]
    for i, line in enumerate(finished):
        assert line["finished"] is True
        assert all(len(s["declarations"]) >= 1 for s in line["seats"])  # the calls column (bids, passes)
        assert [s["mp"] for s in line["seats"]] == [mp_by_hand(group, seat)[i] for seat in range(4)]
    gone = leaver.ok(leaver.get(f"/api/competitions/{cid}/me"))
    late_boards = [b for b in gone["boards"] if b["round"] > boards_before_leaving]
    assert len(late_boards) == 13 - boards_before_leaving
    assert all(b["mp"] == 0 and b["top"] == 2 and b["outcome"] == "left" for b in late_boards)
    for mate in mates:
        theirs = mate.ok(mate.get(f"/api/competitions/{cid}/me"))["boards"]
        stage1 = [b for b in theirs if b["stage"] == 1]
        assert [b["round"] for b in stage1 if b["top"]] == list(range(1, boards_before_leaving + 1))
        assert all(b["outcome"] == "no result" and b["mp"] == 0 for b in stage1 if b["round"] > 3)
    # The early boards' traveller: the leaver's table is there, side by side with the other two.
    early = leaver.ok(leaver.get(f"/api/competitions/{cid}/boards/1/1"))
    assert early["tables_total"] == 3 and early["mine"] == leaver_table and early["top"] == 4
    # Level points: the leaver's match is a loss that pays nothing; its table-mates' is scored as usual.
    stats = egyptian_stats(leaver)
    assert stats["losses"] == before[leaver.id]["losses"] + 1
    assert stats["level_points"] == before[leaver.id]["level_points"]
    points = RULESETS["egyptian"].level_points
    assert points is not None
    for mate in mates:
        got = egyptian_stats(mate)
        assert got["games"] == before[mate.id]["games"] + 1
        assert got["level_points"] - before[mate.id]["level_points"] in (points["win"], points["draw"],
                                                                         points["loss"])

    run(play_seats(server, [(api, stage2[api.id]["table_id"], 100 + i) for i, api in enumerate(people[1:])]))
    done = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["status"]
                    == "finished" and c)
    doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
    scored, disagreement = check_export(doc)
    assert disagreement is None
    by_hand = expected_standings(doc)
    shown = {r["entrant"]: (r["mp"], r["top"]) for r in done["standings"]}
    assert shown == by_hand == {r["entrant"]: (r["mp"], r["top"]) for r in doc["standings"]}
    assert [r["entrant"] for r in scored.standings] == [r["entrant"] for r in done["standings"]]
    rows = {r["entrant"]: r for r in done["standings"]}
    assert rows[leaver_entry]["left"] is True
    assert by_hand[leaver_entry][1] == 4 * 3 + 2 * 10  # 3 boards of 3 tables, 10 of 2 (the leaver's 0s)
    ended = next(t for t in doc["stages"][0]["tables"] if t["table"] == leaver_table)
    assert ended["left"] == [{"seat": ended["seats"].index(leaver_entry), "rounds": boards_before_leaving}]
    out = score_command(doc, tmp_path)
    assert "Every figure follows" in out


def test_egyptian_entrant_removed_before_any_board(server: ServerProcess) -> None:
    """The director removes an entrant of an egyptian table before its first board: a bot takes the seat
    and the table plays on (a removal is the director's act, not a leaver's: the other three keep their
    boards); the removed entrant scores 0 of the top on every board and is not ranked above anyone."""
    director = Api.guest(server, "Removal Director")
    people = [Api.guest(server, f"Giza {i}") for i in range(5)]
    cid = competition(director, ruleset="egyptian", length="committee", stages=1, starts_in=3600)["id"]
    for api in people:
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    director.ok(director.post(f"/api/competitions/{cid}/start"))
    mine = {api.id: api.ok(api.get(f"/api/competitions/{cid}"))["mine"] for api in people}
    seated = [m["table_id"] for m in mine.values()]
    sizes = {t: seated.count(t) for t in seated}
    removed = next(api for api in people if sizes[mine[api.id]["table_id"]] == 3)
    table_id, entry = mine[removed.id]["table_id"], mine[removed.id]["entry"]
    before = director.ok(director.get(f"/api/competitions/{cid}/standings"))
    assert all(r["top"] == 0 for r in before)
    after = director.ok(director.post(f"/api/competitions/{cid}/entrants/{entry}/remove"))
    assert next(r for r in after["standings"] if r["entrant"] == entry)["removed"] is True
    view = director.ok(removed.get(f"/api/tables/{table_id}/view"))
    assert view["table"]["status"] == "playing" and not view["view"]["over"]
    assert view["view"]["ended"] is None  # not ended: the table plays on

    run(play_seats(server, [(api, mine[api.id]["table_id"], 200 + i) for i, api in enumerate(people)
                            if api is not removed]))
    done = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["status"]
                    == "finished" and c)
    doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
    assert check_export(doc)[1] is None
    by_hand = expected_standings(doc)
    assert {r["entrant"]: (r["mp"], r["top"]) for r in done["standings"]} == by_hand
    assert by_hand[entry] == (0, 13 * 2)
    table = next(t for t in doc["stages"][0]["tables"] if t["table"] == table_id)
    assert len(round_scores(table["record"])) == 13  # every board played: the bot sat in
    assert table["left"] == [{"seat": table["seats"].index(entry), "rounds": 0}]
    assert done["standings"][-1]["entrant"] == entry


def test_classic_robot_competition_to_the_end(server: ServerProcess, tmp_path: Path) -> None:
    """Two entrants each play `classic full` (18 boards) at their own table against three bots; the
    competition ends when both have; each board's MP follow from the two records; export and command
    line agree."""
    director = Api.guest(server, "Classic Director")
    people = [Api.guest(server, f"Classic {i}") for i in range(2)]
    cid = competition(director, kind="robot", ruleset="classic", length="full", window_seconds=900,
                      starts_in=0, entry_limit=2, instances=1)["id"]
    for api in people:
        api.ok(api.post(f"/api/competitions/{cid}/register"))
    wait_for(lambda: director.ok(director.get(f"/api/competitions/{cid}"))["status"] == "running", 10)
    tables = {api.id: api.ok(api.post(f"/api/competitions/{cid}/play"))["table_id"] for api in people}
    assert len(set(tables.values())) == 2

    run(play_seats(server, [(api, tables[api.id], 300 + i) for i, api in enumerate(people)]))
    done = wait_for(lambda: (c := director.ok(director.get(f"/api/competitions/{cid}")))["status"]
                    == "finished" and c)
    doc = director.ok(director.get(f"/api/competitions/{cid}/export"))
    assert doc["ruleset"] == "classic" and doc["kind"] == "robot"
    assert check_export(doc)[1] is None
    rounds = len(RULESETS["classic"].lengths["full"])
    records = {t["seats"][0]: round_scores(t["record"]) for t in doc["stages"][0]["tables"]}
    assert all(len(s) == rounds for s in records.values())
    # Each board by hand: seat 0 against seat 0 at the other table.
    a, b = sorted(records)
    mp_a = sum(mp_by_hand([records[a][r], records[b][r]], 0)[0] for r in range(rounds))
    shown = {r["entrant"]: r for r in done["standings"]}
    assert (shown[a]["mp"], shown[a]["top"]) == (mp_a, 2 * rounds)
    assert shown[a]["mp"] + shown[b]["mp"] == 2 * rounds  # a tie is 1 each, a win 2 and 0
    assert expected_standings(doc) == {e: (r["mp"], r["top"]) for e, r in shown.items()}
    # A board's traveller: both tables, seat 0's MP as worked out; the summary agrees with the standings.
    me = people[0]
    summary = me.ok(me.get(f"/api/competitions/{cid}/me"))
    assert sum(x["mp"] for x in summary["boards"]) == shown[summary["entrant"]]["mp"]
    board = me.ok(me.get(f"/api/competitions/{cid}/boards/1/1"))
    assert board["tables_total"] == 2 and board["top"] == 2
    for line in board["tables"]:
        entrant = line["seats"][0]["entrant"]
        other = b if entrant == a else a
        assert line["seats"][0]["mp"] == mp_by_hand([records[entrant][0], records[other][0]], 0)[0]
    assert "Every figure follows" in score_command(doc, tmp_path)
