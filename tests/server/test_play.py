"""Whole games over real WebSockets against a real server, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import random

import pytest
from server_helpers import Api, Player, ServerProcess, check_hidden, run

import estimation


def test_four_clients_play_a_whole_micro_game_and_a_spectator_watches(server: ServerProcess) -> None:
    apis = [Api.register(server) for _ in range(3)] + [Api.guest(server)]
    table = apis[0].create_table(ruleset="koutchina", length="micro")
    tid = table["id"]
    for seat, api in enumerate(apis):
        assert api.join(tid, seat=seat)["seat"] == seat

    async def main() -> tuple[list[Player], Player]:
        players = [Player(server, tid, api.token) for api in apis]
        spectator = Player(server, tid, None)
        for p in players:
            await p.connect()
        await spectator.connect()
        assert [p.seat for p in players] == [0, 1, 2, 3] and spectator.seat is None
        rngs = [random.Random(s) for s in range(4)]
        made = await asyncio.gather(*(p.play_to_end(r) for p, r in zip(players, rngs, strict=True)))
        assert sum(made) == len(players[0].view["actions"]) or sum(made) > 200  # every action by a human
        await spectator.until(lambda m: m.get("view") is not None and m["view"]["over"])
        for p in [*players, spectator]:
            await p.close()
        return players, spectator

    players, spectator = run(main())
    record = apis[0].ok(apis[0].get(f"/api/tables/{tid}/record"))
    assert "seed" not in record
    game = estimation.load_record(record)
    assert game.is_over and game.rounds == 5
    final = players[0].view
    assert final is not None and final["totals"] == list(game.totals)
    assert spectator.view is not None and spectator.view["hand"] is None
    # Hidden information: every message to every seat, and to the spectator.
    checked = sum(check_hidden(p.seat, p.messages, record) for p in players)
    checked += check_hidden(None, spectator.messages, record)
    assert checked > 4 * 5 * 52
    # History and stats for each human.
    for seat, api in enumerate(apis):
        games = api.ok(api.get(f"/api/players/{api.id}/games"))
        assert games[0]["table_id"] == tid and games[0]["total"] == game.totals[seat]
        assert games[0]["place"] == game.places[seat]
        stats = api.ok(api.get(f"/api/players/{api.id}/stats"))
        assert stats["games"] == 1 and stats["average_score"] == game.totals[seat]
        made_rounds = sum(1 for r in game.round_results if r.made[seat])
        assert stats["make_rate"] == round(made_rounds / 5, 4)
    table_now = apis[0].ok(apis[0].get(f"/api/tables/{tid}"))
    assert table_now["status"] == "finished"


def test_one_client_with_three_bots_plays_a_mini_game(server: ServerProcess) -> None:
    api = Api.guest(server)
    table = api.create_table(ruleset="koutchina", length="mini", bot_seats=[0, 2, 3], bot_level="random")
    tid = table["id"]
    assert api.join(tid)["seat"] == 1

    async def main() -> Player:
        p = Player(server, tid, api.token)
        await p.connect()
        await p.play_to_end(random.Random(5), timeout=240)
        await p.close()
        return p

    p = run(main())
    record = api.ok(api.get(f"/api/tables/{tid}/record"))
    game = estimation.load_record(record)
    assert game.is_over and game.rounds == 10
    check_hidden(1, p.messages, record)
    bot_moves = [e for m in p.messages if m["type"] == "update" for e in m["events"]
                 if e["kind"] == "action" and e["bot"]]
    assert {e["seat"] for e in bot_moves} == {0, 2, 3}


@pytest.mark.parametrize(("ruleset", "length", "partners"), [
    ("koutchina", "micro", True), ("egyptian", "committee", True), ("classic", "full", False)])
def test_no_message_shows_a_hidden_card_in_any_ruleset(server: ServerProcess, ruleset: str, length: str,
                                                       partners: bool) -> None:
    """The hidden-information check over a whole game of every ruleset, with partners too: a partner's
    hand is as hidden as an opponent's (seat 1's partner is seat 3, a bot here). The koutchina game
    without partners is the test above."""
    api = Api.guest(server)
    tid = api.create_table(ruleset=ruleset, length=length, partners=partners, bot_seats=[0, 2, 3],
                           bot_level="random")["id"]
    assert api.join(tid)["seat"] == 1

    async def main() -> Player:
        p = Player(server, tid, api.token)
        await p.connect()
        await p.play_to_end(random.Random(len(ruleset) + partners), timeout=240)
        await p.close()
        return p

    p = run(main())
    record = api.ok(api.get(f"/api/tables/{tid}/record"))
    assert record.get("partners", False) is partners and estimation.load_record(record).is_over
    assert check_hidden(1, p.messages, record) >= 100


def test_lobby_lists_open_tables_and_keeps_private_ones_private(server: ServerProcess) -> None:
    api = Api.guest(server)
    other = Api.guest(server)
    public = api.create_table(ruleset="classic")
    private = api.create_table(private=True)
    assert private["invite_code"] and public["invite_code"] is None
    listed = {t["id"] for t in other.ok(other.get("/api/tables"))}
    assert public["id"] in listed and private["id"] not in listed
    assert other.get(f"/api/tables/{private['id']}").status_code == 404
    invite = {"X-Invite-Code": private["invite_code"]}
    assert other.get(f"/api/tables/{private['id']}", headers=invite).status_code == 200
    r = other.post(f"/api/tables/{private['id']}/join", {})
    assert r.status_code == 404 and r.json()["code"] == "no_such_table"  # as if it were not there
    assert other.join(private["id"], invite=private["invite_code"])["seat"] == 0
    rulesets = other.ok(other.get("/api/rulesets"))
    assert {r["name"] for r in rulesets} == set(estimation.RULESETS)
    assert other.ok(other.get("/api/bots"))["levels"] == ["random", "heuristic", "strong"]
    # A measurement level (weaker than strong and no cheaper) is not offered, and a table asking for it is
    # refused with the levels it may have.
    r = other.post("/api/tables", {"ruleset": "koutchina", "bot_seats": [1], "bot_level": "strong-fast"})
    assert r.status_code == 422 and "known: random, heuristic, strong" in r.text, r.text
    # Leaving an unstarted table frees the seat; the last human out abandons it.
    other.ok(other.post(f"/api/tables/{private['id']}/leave"))
    assert other.ok(other.http.get(f"/api/tables/{private['id']}", headers=invite))["status"] == "abandoned"


def test_a_private_tables_record_is_as_private_as_the_table(server: ServerProcess) -> None:
    api = Api.guest(server)
    table = api.create_table(ruleset="koutchina", length="micro", bot_seats=[0, 2, 3], bot_level="random",
                             private=True)
    tid, invite = table["id"], table["invite_code"]
    assert invite
    api.join(tid, invite=invite)

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        await p.play_to_end(random.Random(7), timeout=240)
        await p.close()

    run(main())
    stranger = Api.guest(server)
    assert stranger.get(f"/api/tables/{tid}/record").status_code == 404
    assert Api(server).get(f"/api/tables/{tid}/record").status_code == 404  # no token at all
    record = stranger.ok(stranger.get(f"/api/tables/{tid}/record", headers={"X-Invite-Code": invite}))
    # Never in a query string (it would be in every access log): there it is not an invite at all.
    assert stranger.get(f"/api/tables/{tid}/record", params={"invite": invite}).status_code == 404
    assert api.ok(api.get(f"/api/tables/{tid}/record")) == record  # a player needs no invite
    assert estimation.load_record(record).is_over and "seed" not in record
