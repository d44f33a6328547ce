"""The table reducer in memory, like ``Game.apply``: random commands keep the table's invariants, conserve
coins, and a refused command changes nothing."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from estimation.server.table.reducer import (
    Abandon,
    Act,
    BotAct,
    Command,
    Join,
    Joins,
    Leave,
    LinkRematch,
    Rename,
    Rules,
    ScheduleBots,
    SeatBots,
    SeatState,
    SetAway,
    TableError,
    TableState,
    Unchanged,
    coin_moves,
    reduce,
)

ACCOUNTS = range(1, 7)
GUESTS = {5, 6}
WALLET = 100


def fresh(ruleset: str, length: str, stake: int, private: bool) -> TableState:
    rules = Rules(ruleset=ruleset, length=length, stake=stake, private=private, invite_code="code",
                  bot_level="random", turn_seconds=30)
    return TableState(rules, 1, "open", 0, 0, tuple(SeatState() for _ in range(4)), None)


def fingerprint(table: TableState) -> str:
    game = None if table.game is None else table.game.record(include_seed=True)
    return json.dumps([table.status, table.version, table.pot, [repr(s) for s in table.seats], game,
                       table.bots_at, table.rematch_id], sort_keys=True, default=str)


def check_invariants(table: TableState) -> None:
    assert table.pot >= 0
    humans = [s.account_id for s in table.seats if s.account_id is not None and not s.left]
    assert len(humans) == len(set(humans)), "a player sits at most once at a table"
    if table.status == "open":
        assert table.game is None
        assert table.pot == table.rules.stake * sum(s.staked for s in table.seats)
    if table.status in ("playing", "finished"):
        assert table.game is not None and all(s.taken for s in table.seats)
    if table.status == "playing":
        assert table.game is not None and not table.game.is_over
        # every stake stays in the pot while the game is played, a leaver's too
        assert table.pot == table.rules.stake * sum(s.staked and s.account_id is not None
                                                    for s in table.seats)
    if table.status == "finished":
        assert table.game is not None and table.game.is_over
        assert table.pot == 0, "a finished game has paid its whole pot out"
    assert all(not s.staked or s.account_id is not None for s in table.seats), "only a person stakes"
    if table.status == "abandoned":
        assert table.pot == 0


def play_to_end(table: TableState, pick: int) -> list[Command]:
    """Bot moves (a person's clock running out) until the game ends."""
    commands: list[Command] = []
    while table.status == "playing" and table.game is not None:
        game = table.game
        seat = game.to_move
        assert seat is not None
        legal = game.legal_actions()
        command = BotAct(seat, legal[pick % len(legal)].text, timeout=True)
        table, _ = reduce(table, command)
        commands.append(command)
    return commands


@st.composite
def commands(draw: st.DrawFn, table: TableState) -> Command:
    kind = draw(st.sampled_from(["join", "join", "join", "bots", "act", "act", "bot", "away", "leave",
                                 "abandon", "quick", "rematch", "rename"]))
    account = draw(st.sampled_from(list(ACCOUNTS)))
    seat = draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**63 - 1))
    if kind == "join":
        return Join(account, f"p{account}", account in GUESTS, draw(st.none() | st.integers(0, 3)),
                    draw(st.booleans()), draw(st.sampled_from([None, "code", "nope"])), seed)
    if kind == "bots":
        return SeatBots(draw(st.sampled_from([1, account])), seed)
    if kind in ("act", "bot"):
        game = table.game
        text = "0 pass"
        version: int | None = None
        if game is not None and game.to_move is not None and draw(st.integers(0, 4)) > 0:
            legal = game.legal_actions()
            if legal:
                text = legal[draw(st.integers(0, len(legal) - 1))].text
            seat = game.to_move if draw(st.integers(0, 5)) > 0 else seat
            version = draw(st.sampled_from([None, table.version, table.version - 1]))
        if kind == "act":
            return Act(seat, text, version)
        return BotAct(seat, text, draw(st.booleans()))
    if kind == "away":
        return SetAway(seat, draw(st.booleans()))
    if kind == "leave":
        return Leave(account)
    if kind == "quick":
        return ScheduleBots(dt.datetime(2026, 1, 1) + dt.timedelta(seconds=draw(st.integers(0, 99))))
    if kind == "rematch":
        return LinkRematch(draw(st.integers(1, 3)), draw(st.sampled_from([None, table.rematch_id, 2])))
    if kind == "rename":
        return Rename(account, "Deleted player")
    return Abandon("test")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.sampled_from([("koutchina", "micro"), ("egyptian", "standard")]), st.integers(0, 9),
       st.booleans())
def test_random_commands_keep_invariants_conserve_coins_and_refusals_change_nothing(
        data: st.DataObject, rules: tuple[str, str], stake: int, private: bool) -> None:
    table = fresh(*rules, stake, private)
    wallets = dict.fromkeys(ACCOUNTS, WALLET)
    total = sum(wallets.values())
    for _ in range(data.draw(st.integers(1, 40))):
        if table.status == "abandoned":
            break
        command = data.draw(commands(table))
        if table.status == "playing" and data.draw(st.integers(0, 9)) == 0:
            for step in play_to_end(table, data.draw(st.integers(0, 50))):
                table = apply(table, step, wallets)
            continue
        table = apply(table, command, wallets)
        assert sum(wallets.values()) + table.pot == total, "coins are conserved"
    assert sum(wallets.values()) + table.pot == total


def apply(table: TableState, command: Command, wallets: dict[int, int]) -> TableState:
    before = fingerprint(table)
    try:
        after, events = reduce(table, command)
    except (TableError, Unchanged):
        assert fingerprint(table) == before, f"a refused {command} changed the table"
        return table
    assert fingerprint(table) == before, "reduce changed the table it was given"
    assert after.version == table.version + 1
    assert events, "every change has events"
    for account, coins in coin_moves(table, after, events).items():
        wallets[account] += coins
    check_invariants(after)
    if isinstance(command, Rename):
        mine = [i for i, s in enumerate(after.seats) if s.account_id == command.account_id]
        assert mine and all(after.seats[i].name == command.name for i in mine)
        assert after.game is None or all(after.game.players[i] == command.name for i in mine)
        assert [s.name for i, s in enumerate(after.seats) if i not in mine] == [
            s.name for i, s in enumerate(table.seats) if i not in mine]
    if isinstance(command, LinkRematch):
        assert table.status == "finished" and after.rematch_id == command.rematch_id
    return after


def test_a_full_table_starts_and_a_finished_game_pays_the_pot() -> None:
    table = fresh("koutchina", "micro", 10, False)
    for account in (1, 2, 3, 4):
        table, events = reduce(table, Join(account, f"p{account}", stake=True, seed=42))
    assert table.status == "playing" and table.pot == 40
    assert [e["kind"] for e in events] == ["join", "start"]
    wallets = dict.fromkeys((1, 2, 3, 4), 0)
    while table.status == "playing":
        before = table
        game = table.game
        assert game is not None and game.to_move is not None
        table, events = reduce(table, BotAct(game.to_move, game.legal_actions()[0].text, timeout=True))
        for account, coins in coin_moves(before, table, events).items():
            wallets[account] += coins
    assert table.status == "finished"
    assert events[-1]["kind"] == "over" and sum(events[-1]["payout"].values()) == 40
    assert sum(wallets.values()) == 40 and table.pot == 0


def test_joins_seat_as_the_joins_one_by_one_in_one_version() -> None:
    joins = [Join(account, f"p{account}", seat=4 - account, seed=42) for account in (1, 2, 3, 4)]
    one_by_one = fresh("koutchina", "micro", 0, False)
    expected: list[dict[str, object]] = []
    for join in joins:
        one_by_one, events = reduce(one_by_one, join)
        expected.extend(events)
    start = fresh("koutchina", "micro", 0, False)
    together, events = reduce(start, Joins(tuple(joins)))
    assert events == expected and together.version == start.version + 1
    assert together.seats == one_by_one.seats and together.status == "playing"
    assert together.game is not None and one_by_one.game is not None
    assert together.game.record() == one_by_one.game.record()
    with pytest.raises(Unchanged):
        reduce(start, Joins(()))


@pytest.mark.parametrize("command,code", [
    (Act(0, "0 pass"), "not_started"),
    (SeatBots(2), "forbidden"),
    (Leave(9), "not_seated"),
    (Join(5, "guest", is_guest=True, stake=True), "guest_cannot_stake"),
])
def test_refusals_say_why(command: Command, code: str) -> None:
    table = fresh("koutchina", "micro", 5, False)
    with pytest.raises(TableError) as refused:
        reduce(table, command)
    assert refused.value.code == code


def test_an_away_seat_comes_back_with_its_own_action() -> None:
    table = fresh("koutchina", "micro", 0, False)
    table, _ = reduce(table, Join(1, "a", seed=3))
    table, _ = reduce(table, SeatBots(1, seed=3))
    game = table.game
    assert game is not None
    while game.to_move != 0:
        seat = game.to_move
        assert seat is not None
        table, _ = reduce(table, BotAct(seat, game.legal_actions()[0].text))
        game = table.game
        assert game is not None
    table, events = reduce(table, SetAway(0, True))
    assert table.seats[0].away and events == [{"kind": "away", "seat": 0, "away": True}]
    with pytest.raises(Unchanged):
        reduce(table, SetAway(0, True))
    table, events = reduce(table, Act(0, game.legal_actions()[0].text, table.version))
    assert not table.seats[0].away
    assert [e["kind"] for e in events][:2] == ["away", "action"]
