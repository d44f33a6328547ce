"""The traveller: how every table played one board, side by side (RULES.md, Competitions, Traveller).

For each table of the board's stage and instance: who sat each seat, each seat's declarations (calls,
bids, Dash Calls, With, the declaration: the auction's moves of the deal that was played), its estimate,
tricks, round score and MP. Read from the table's record; the MP from the matchpointed board, so the
traveller shows exactly the figures the standings add up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, TypedDict

from ..actions import Action, Verb
from ..game import Game
from ..record import load_record
from .types import BoardResult, TablePlay

#: The auction's verbs: what a traveller shows as a seat's "calls or bids" (estimates have their column).
_AUCTION = frozenset({Verb.DASHCALL, Verb.CALL, Verb.PASS, Verb.DASH, Verb.BID, Verb.WITH, Verb.DECLARE})


class SeatOnBoard(TypedDict):
    seat: int
    entrant: int | None
    player: str
    declarations: list[str]
    estimate: int | None
    tricks: int | None
    score: int | None
    mp: int | None
    #: The seat's entrant had left before finishing the board: a bot played it (``score`` and ``mp`` are
    #: the seat's, compared as any), and the entrant's own MP on the board are 0.
    left: bool


class TableTraveller(TypedDict):
    """One table's line; ``trump``/``caller``/``multiplier`` are None when it did not finish the round."""

    table: int
    finished: bool
    trump: str | None
    caller: int | None
    multiplier: int | None
    seats: list[SeatOnBoard]


class Outcome(NamedTuple):
    """What a traveller shows of a finished round (the rest of its :class:`~estimation.results.RoundResult`
    is not kept: a server keeps 10,000 tables' lines)."""

    trump: str
    caller: int | None
    multiplier: int
    estimates: tuple[int, ...]
    tricks: tuple[int, ...]


class BoardLine(NamedTuple):
    """One table's play of one board, as a traveller shows it: its players, each seat's declarations (of
    the deal that was played, or of the deal in play) and the round's outcome (None: not finished)."""

    players: tuple[str, ...]
    declarations: tuple[tuple[str, ...], ...]
    result: Outcome | None


#: A table's :class:`BoardLine` on every board it has begun, by round.
TableLines = dict[int, BoardLine]


def table_lines(table: Mapping[str, Any] | Game) -> TableLines:
    """Every board's line of one table, from its record or the game loaded from it: one replay for all of
    its boards (a server keeps a finished table's lines, a few kB, instead of its game)."""
    game = table if isinstance(table, Game) else load_record(table)
    players = tuple(game.players)
    by_round: dict[int, list[Action]] = {}
    for deal in game.deal_log:
        by_round[deal[0]] = deal[3]  # a redealt round: the deal that was played is the last
    if game.round_no not in by_round or len(game.round_results) < game.round_no:
        by_round[game.round_no] = game.actions
    out: TableLines = {}
    for r, actions in sorted(by_round.items()):
        declarations = tuple(tuple(a.text.split(" ", 1)[1] for a in actions
                                   if a.seat == s and a.verb in _AUCTION) for s in range(4))
        done = game.round_results[r - 1] if len(game.round_results) >= r else None
        out[r] = BoardLine(players, declarations, None if done is None else Outcome(
            done.trump, done.caller, done.multiplier, done.estimates, done.tricks))
    return out


def traveller(board: BoardResult, tables: Mapping[int, TableLines],
              plays: Sequence[TablePlay] = ()) -> list[TableTraveller]:
    """Every table of ``board``, in table order (each table's :func:`table_lines`); ``plays`` (the tables
    as read for matchpoints) mark the seats whose entrant had left."""
    left = {p.table: p.left for p in plays
            if p.stage == board.board.stage and p.instance == board.board.instance}
    r = board.board.round
    out: list[TableTraveller] = []
    for line in board.tables:
        held = tables[line.table]
        mine = held.get(r)
        players = mine.players if mine is not None else next(iter(held.values())).players
        result = mine.result if mine is not None else None
        seats: list[SeatOnBoard] = []
        for s in range(4):
            seats.append({
                "seat": s, "entrant": line.seats[s], "player": players[s],
                "declarations": list(mine.declarations[s]) if mine is not None else [],
                "estimate": result.estimates[s] if result else None,
                "tricks": result.tricks[s] if result else None,
                "score": line.scores[s] if line.scores is not None else None,
                "mp": line.mp[s] if line.mp is not None else None,
                "left": left.get(line.table, {}).get(s, r) < r})
        out.append({"table": line.table, "finished": result is not None,
                    "trump": result.trump if result else None, "caller": result.caller if result else None,
                    "multiplier": result.multiplier if result else None, "seats": seats})
    return out
