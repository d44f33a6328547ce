"""Matchpoints (RULES.md, Competitions): each board compared seat by seat across the tables that played it.

A board is one round of one stage (and instance). Its comparison group is the tables of that stage and
instance that finished the round. Each seat's round score (as it counts in the totals, multiplier
included) earns 2 MP for every other table whose same seat it beats and 1 for every tie; the top is
2(n - 1) for n tables, and a board with n = 1 counts for nobody. Bots' seats are compared like any
other, so a bot that took over a leaver's seat still sets the bar for the other tables.

Everything here is a pure function of the tables' records (read once into :class:`TablePlay`) and the
director's adjustments, so the server's live standings, the export and `estimation competition score`
all compute the same figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..errors import RecordError
from ..record import load_record
from .types import (
    Adjustment,
    BoardKey,
    BoardResult,
    CompetitionError,
    EntrantBoard,
    Seats,
    TableOnBoard,
    TablePlay,
)


def table_play(record: Mapping[str, Any], *, table: int, stage: int, instance: int, seats: Seats,
               left: Mapping[int, int] | None = None) -> TablePlay:
    """Replay ``record`` with the checked engine and keep each finished round's four scores.

    ``left``: seat -> rounds the table had finished when that seat's entrant left. An ``egyptian``
    record's ``ended`` leaver is added to it (at the rounds the record finished). Raises
    :class:`CompetitionError` naming the table and the replay's ``deal D, action K`` when the record
    breaks a rule.
    """
    try:
        game = load_record(record)
    except RecordError as exc:
        raise CompetitionError(f"stage {stage}, table {table}: {exc.line}") from None
    scores = tuple(tuple(r.scores) for r in game.round_results)
    leavers = dict(left or {})
    ended_by = game.leaver
    if ended_by is not None:
        if leavers.get(ended_by, len(scores)) != len(scores):
            raise CompetitionError(f"stage {stage}, table {table}: seat {ended_by} ended the match after "
                                   f"{len(scores)} rounds, not {leavers[ended_by]}")
        leavers[ended_by] = len(scores)
    for seat, rounds in leavers.items():
        if seat not in (0, 1, 2, 3) or not 0 <= rounds <= len(game.schedule):
            raise CompetitionError(f"stage {stage}, table {table}: a leaver is a seat 0-3 and the rounds "
                                   f"its table had finished, not seat {seat!r} after {rounds!r}")
        if rounds > len(scores):
            raise CompetitionError(f"stage {stage}, table {table}: seat {seat} left after {rounds} rounds, "
                                   f"but the table has finished only {len(scores)}")
        if seats[seat] is None:
            raise CompetitionError(f"stage {stage}, table {table}: seat {seat} is a bot's, nobody left it")
    return TablePlay(table=table, stage=stage, instance=instance, seats=seats, scores=scores,
                     left=leavers, ended_by=ended_by)


def matchpoint_scores(scores: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    """The MP of every seat at each of n tables (``scores[t][seat]``): 2 per score beaten, 1 per tie,
    among the same seat at the other tables. With n = 1 every seat gets 0 (and the top is 0).

    Counted per seat from how many tables scored each value (2 x the scores below + the equal ones less
    itself), so a robot instance of 10,000 tables costs n log n, not n squared."""
    maps: list[dict[int, int]] = []
    for seat in range(4):
        counts = Counter([row[seat] for row in scores])
        mp_of: dict[int, int] = {}
        below = 0
        for value in sorted(counts):
            mp_of[value] = 2 * below + counts[value] - 1
            below += counts[value]
        maps.append(mp_of)
    m0, m1, m2, m3 = maps
    return [(m0[a], m1[b], m2[c], m3[d]) for a, b, c, d in scores]


def board_top(tables_finished: int) -> int:
    """2(n - 1), and 0 when n <= 1: a board played by one table counts for nobody."""
    return 2 * (tables_finished - 1) if tables_finished > 1 else 0


def _groups(plays: Iterable[TablePlay]) -> dict[tuple[int, int], list[TablePlay]]:
    groups: dict[tuple[int, int], list[TablePlay]] = {}
    for p in plays:
        groups.setdefault((p.stage, p.instance), []).append(p)
    for g in groups.values():
        g.sort(key=lambda p: p.table)
    return dict(sorted(groups.items()))


def board_results(plays: Sequence[TablePlay], rounds: int,
                  adjustments: Sequence[Adjustment] = ()) -> list[BoardResult]:
    """Every board of every stage and instance present in ``plays`` (rounds 1..``rounds`` each), in
    order of stage, instance, round. Score adjustments (``table`` + ``seat`` + ``score``) replace a
    seat's score before the board is matchpointed."""
    out: list[BoardResult] = []
    for (stage, instance), group in _groups(plays).items():
        for r in range(1, rounds + 1):
            out.append(board_result(BoardKey(stage, instance, r), group, adjustments))
    known = {b.board for b in out}
    for adj in adjustments:
        key = BoardKey(adj["stage"], adj["instance"], adj["round"])
        if key not in known:
            raise CompetitionError(f"adjustment on {key.label(True)}: the competition has no such board")
    return out


def board_result(board: BoardKey, group: Sequence[TablePlay],
                 adjustments: Sequence[Adjustment] = ()) -> BoardResult:
    """One board, from the tables of its stage and instance (``group``, in table order; others are
    ignored): what a server refreshes when a table finishes a round, without touching the other boards."""
    group = [p for p in group if p.stage == board.stage and p.instance == board.instance]
    replaced = _replaced_scores(board, group, adjustments) if adjustments else {}
    r = board.round
    finished = [p for p in group if len(p.scores) >= r]
    scores = [p.scores[r - 1] for p in finished]
    if replaced:
        scores = [tuple(replaced.get((p.table, s), row[s]) for s in range(4))
                  for p, row in zip(finished, scores, strict=True)]
    mps = iter(matchpoint_scores(scores))
    rows = iter(scores)
    return BoardResult(board, board_top(len(finished)), tuple(
        TableOnBoard(p.table, p.seats, next(rows), next(mps)) if len(p.scores) >= r
        else TableOnBoard(p.table, p.seats, None, None) for p in group))


def _replaced_scores(board: BoardKey, group: Sequence[TablePlay],
                     adjustments: Sequence[Adjustment]) -> dict[tuple[int, int], int]:
    """(table, seat) -> the adjusted score, for the score adjustments of ``board``."""
    by_table = {p.table: p for p in group}
    replaced: dict[tuple[int, int], int] = {}
    for adj in adjustments:
        if "score" not in adj or BoardKey(adj["stage"], adj["instance"], adj["round"]) != board:
            continue
        play = by_table.get(adj.get("table", -1))
        seat = adj.get("seat")
        if play is None or seat not in (0, 1, 2, 3):
            raise CompetitionError(f"adjustment on {board.label(True)}: no table {adj.get('table')!r} with "
                                   f"seat {seat!r} there")
        if len(play.scores) < board.round:
            raise CompetitionError(f"adjustment on {board.label(True)}: table {play.table} did not finish "
                                   "the round (adjust an entrant's MP instead)")
        assert seat is not None
        replaced[(play.table, seat)] = adj["score"]
    return replaced


def entrant_boards(boards: Sequence[BoardResult], plays: Sequence[TablePlay],
                   adjustments: Sequence[Adjustment] = ()) -> list[EntrantBoard]:
    """Each entrant's MP and top on each board of the seats it held (bots' seats are not listed).

    A seat whose entrant had left before finishing the board (``left``: a leaver, a robot entrant who
    withdrew or whose window closed) scores 0 MP against the board's top. An entrant whose table did not
    finish the board for any other reason has no result on it (MP 0, top 0): its table is still playing
    (live standings), or it was ended by another seat's leaver (``egyptian``).
    MP adjustments (``entrant`` + ``mp``) then set an entrant's MP on a board (0..top).
    """
    by_table = {(p.stage, p.instance, p.table): p for p in plays}
    out: list[EntrantBoard] = []
    for board in boards:
        key = board.board
        for line in board.tables:
            play = by_table[(key.stage, key.instance, line.table)]
            for seat, entrant in enumerate(line.seats):
                if entrant is None:
                    continue
                left_after = play.left.get(seat)
                if left_after is not None and left_after < key.round:
                    out.append(EntrantBoard(key, entrant, line.table, seat, 0, board.top, "left"))
                elif line.mp is not None:
                    out.append(EntrantBoard(key, entrant, line.table, seat, line.mp[seat], board.top,
                                            "played"))
                else:
                    out.append(EntrantBoard(key, entrant, line.table, seat, 0, 0, "no result"))
    for adj in adjustments:
        if "mp" not in adj:
            continue
        key = BoardKey(adj["stage"], adj["instance"], adj["round"])
        who = adj.get("entrant")
        hits = [i for i, eb in enumerate(out) if eb.board == key and eb.entrant == who]
        if not hits:
            raise CompetitionError(f"adjustment on {key.label(True)}: entrant {who!r} did not play it")
        eb = out[hits[0]]
        if not 0 <= adj["mp"] <= eb.top:
            raise CompetitionError(f"adjustment on {key.label(True)}: entrant {who} MP must be 0..{eb.top}, "
                                   f"not {adj['mp']}")
        out[hits[0]] = EntrantBoard(key, eb.entrant, eb.table, eb.seat, adj["mp"], eb.top, "adjusted")
    return out


def entrant_totals(results: Iterable[EntrantBoard],
                   entrants: Iterable[int] = ()) -> dict[int, tuple[int, int]]:
    """Each entrant's (MP, top) summed over its boards; ``entrants`` listed with (0, 0) if never seated."""
    totals = {e: (0, 0) for e in entrants}
    for eb in results:
        mp, top = totals.get(eb.entrant, (0, 0))
        totals[eb.entrant] = (mp + eb.mp, top + eb.top)
    return totals
