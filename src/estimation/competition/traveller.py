"""The traveller: how every table played one board, side by side (RULES.md, Competitions, Traveller).

For each table of the board's stage and instance: who sat each seat, each seat's declarations (calls,
bids, Dash Calls, With, the declaration: the auction's moves of the deal that was played), its estimate,
tricks, round score and MP. Read from the table's record; the MP from the matchpointed board, so the
traveller shows exactly the figures the standings add up.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from ..actions import Verb
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


def traveller(board: BoardResult, tables: Mapping[int, Mapping[str, Any] | Game],
              plays: Sequence[TablePlay] = ()) -> list[TableTraveller]:
    """Every table of ``board``, in table order. ``tables`` maps a table number to its record, or to the
    game already loaded from it (:func:`~estimation.record.load_record`: one replay for many boards);
    ``plays`` (the tables as read for matchpoints) mark the seats whose entrant had left."""
    left = {p.table: p.left for p in plays
            if p.stage == board.board.stage and p.instance == board.board.instance}
    r = board.board.round
    out: list[TableTraveller] = []
    for line in board.tables:
        held = tables[line.table]
        game = held if isinstance(held, Game) else load_record(held)
        played = [d for d in game.deal_log if d[0] == r]
        if played:
            actions = played[-1][3]
        elif game.round_no == r:
            actions = game.actions
        else:
            actions = []
        result = game.round_results[r - 1] if len(game.round_results) >= r else None
        seats: list[SeatOnBoard] = []
        for s in range(4):
            seats.append({
                "seat": s, "entrant": line.seats[s], "player": game.players[s],
                "declarations": [a.text.split(" ", 1)[1] for a in actions
                                 if a.seat == s and a.verb in _AUCTION],
                "estimate": result.estimates[s] if result else None,
                "tricks": result.tricks[s] if result else None,
                "score": line.scores[s] if line.scores is not None else None,
                "mp": line.mp[s] if line.mp is not None else None,
                "left": left.get(line.table, {}).get(s, r) < r})
        out.append({"table": line.table, "finished": result is not None,
                    "trump": result.trump if result else None, "caller": result.caller if result else None,
                    "multiplier": result.multiplier if result else None, "seats": seats})
    return out
