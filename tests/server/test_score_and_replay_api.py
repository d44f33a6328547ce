"""The two routes the browser scores through, so that no page scores by a ruleset's name:

- `POST /api/score`: one round typed by hand, scored as `estimation score --json` does, with `partners` each
  side's round score as `estimation score --partners --json` gives it (hand-worked below); a round that could
  not have happened, an unknown ruleset or kind, or a body off the schema is a 422 saying why.
- `GET /api/tables/{id}/replay`: a finished game's `estimation replay --json` document with each round's
  breakdown, `sides` in a partnership game, and the table's `seats` (which are bots); 409 before the end,
  as the record.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

import pytest
from server_helpers import Api, ServerProcess

import estimation
from estimation import replay_summary

#: koutchina, seat 1 calls 7, seat 0 takes the Dash Call, seats 2 and 3 estimate 2 and 1 (10 in all: Under by
#: 3, Risk level 1 on seat 3, the last estimator); tricks 1, 7, 4, 1. By hand: seat 0's Dash Call missed Under
#: -33; seat 1 made 7 as Caller 10 + 7 + 10 = 27; seat 2 missed by 2: -2; seat 3 made 1 with its Risk:
#: 10 + 1 + 10 = 21. Sides: 0+2 -33 - 2 = -35, 1+3 27 + 21 = 48.
ROUND = {"kind": "call", "caller": [1, 7], "dash": [0], "estimates": [[2, 2], [3, 1]], "tricks": [1, 7, 4, 1]}


def _cli(*args: str) -> Any:
    out = subprocess.run([sys.executable, "-m", "estimation", "score", "--json", *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_score_a_typed_round_with_partners(server: ServerProcess) -> None:
    api = Api(server)  # no sign-in: the calculator is for anyone
    alone = api.ok(api.post("/api/score", ROUND))
    assert [s["score"] for s in alone["seats"]] == [-33, 27, -2, 21]
    assert "sides" not in alone and alone["saaydeh"] is False and alone["next_multiplier"] == 1
    both = api.ok(api.post("/api/score", {**ROUND, "partners": True}))
    assert both["sides"] == {"seats": [[0, 2], [1, 3]], "scores": [-35, 48]}
    cli = _cli("--call", "1:7", "--dash-call", "0", "--estimates", "2:2,3:1", "--tricks", "1,7,4,1",
               "--partners")
    assert both["seats"] == cli["seats"] and both["sides"] == cli["sides"]

    # egyptian: a With seat and a Dash, the kind said; a Sa'aydeh doubles the next round in koutchina only.
    egyptian = {"ruleset": "egyptian", "kind": "auction", "caller": [0, 5], "with": [2], "dash": [3],
                "estimates": [[2, 5], [1, 2]], "tricks": [5, 2, 5, 1], "partners": True}
    got = api.ok(api.post("/api/score", egyptian))
    cli = _cli("--ruleset", "egyptian", "--kind", "auction", "--call", "0:5", "--with", "2", "--dash", "3",
               "--estimates", "2:5,1:2", "--tricks", "5,2,5,1", "--partners")
    assert got["seats"] == cli["seats"] and got["sides"] == cli["sides"]
    all_missed = {"kind": "fixed", "estimates": [[1, 5], [2, 5], [3, 5], [0, 5]], "tricks": [4, 3, 3, 3]}
    saaydeh = api.ok(api.post("/api/score", all_missed))
    assert saaydeh["saaydeh"] is True and saaydeh["next_multiplier"] == 2
    assert [s["score"] for s in saaydeh["seats"]] == [0, 0, 0, 0]
    # The kind may be left out where the ruleset works it out from the Call (as `estimation score` does).
    unsaid = {k: v for k, v in ROUND.items() if k != "kind"}
    assert api.ok(api.post("/api/score", unsaid))["seats"] == alone["seats"]


@pytest.mark.parametrize(("body", "says"), [
    ({**ROUND, "tricks": [1, 7, 4, 2]}, "total 14"),
    ({**ROUND, "estimates": [[2, 5], [3, 1]]}, "estimates total 13"),
    ({**ROUND, "ruleset": "bridge"}, "unknown ruleset"),
    ({**ROUND, "kind": "speed"}, "not 'speed'"),
    ({**ROUND, "with": [2]}, "With"),
    ({**ROUND, "multiplier": 3}, "multiplier"),
    ({"kind": "fixed", "estimates": [[1, 5], [2, 5], [3, 5]], "tricks": [4, 3, 3, 3]}, "every seat"),
    ({**ROUND, "caller": [1, 3]}, "4-13"),
    ({"kind": "fixed", "dash": [0], "estimates": [[1, 3], [2, 3], [3, 3]], "tricks": [3, 3, 3, 4]},
     "no Dash offer"),
])
def test_a_round_that_cannot_happen_is_a_422_saying_why(server: ServerProcess, body: dict[str, Any],
                                                        says: str) -> None:
    r = Api(server).post("/api/score", body)
    assert r.status_code == 422, r.text
    assert says in r.json()["detail"], r.json()


@pytest.mark.parametrize("body", [
    {**ROUND, "tricks": [1, 7, 4]},  # three seats
    {**ROUND, "tricks": ["1", 7, 4, 1]},  # a number as text
    {**ROUND, "estimates": [[5, 2]]},  # no seat 5
    {**ROUND, "estimates": [[2, 2, 2]]},
    {**ROUND, "dash": [0, 0, 0, 0, 0]},
    {**ROUND, "partners": "yes"},
    {**ROUND, "seed": 1},  # an unknown key
    {**ROUND, "caller": [1, 14]},
    [1, 2],
])
def test_a_body_off_the_schema_is_a_422(server: ServerProcess, body: Any) -> None:
    assert Api(server).post("/api/score", body).status_code == 422


def _finished_record(api: Api, table_id: int, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        r = api.get(f"/api/tables/{table_id}/record")
        if r.status_code == 200:
            return dict(r.json())
        assert r.status_code == 409 and time.monotonic() < deadline, r.text
        time.sleep(0.2)


def test_the_replay_of_a_partnership_game(server: ServerProcess) -> None:
    api = Api.guest(server)
    table = api.create_table(partners=True, length="micro", bot_seats=[1, 2, 3], bot_level="random")
    api.join(table["id"])
    assert api.get(f"/api/tables/{table['id']}/replay").status_code in (200, 409)
    api.ok(api.post(f"/api/tables/{table['id']}/leave"))  # a bot plays the seat: the bots finish the game
    record = _finished_record(api, table["id"])
    got = api.ok(api.get(f"/api/tables/{table['id']}/replay"))
    expected = replay_summary(estimation.load_record(record))
    seats = got.pop("seats")
    assert got == json.loads(json.dumps(expected))
    # With it, the seats (the record holds names only): which are bots, and the leaver who is not one.
    assert [s["bot"] for s in seats] == [False, True, True, True], seats
    assert seats[0]["left"] and [s["name"] for s in seats] == record["players"], seats
    assert got["sides"]["seats"] == [[0, 2], [1, 3]] and len(got["rounds"]) == 5
    totals = got["totals"]
    assert got["sides"]["totals"] == [totals[0] + totals[2], totals[1] + totals[3]]
    assert all(len(r["breakdown"]) == 4 for r in got["rounds"])
    assert api.get("/api/tables/2147483647/replay").status_code == 404
