"""Competitions: duplicate tournaments (RULES.md, Competitions; RECORD.md, `estimation-competition/1`).

Every table of a stage (and instance) plays the same boards, and each seat's round score is compared with
the same seat's at the other tables: matchpoints, then standings by percentage. This package sits beside
the engine and imports only downwards (engine, bots); the server, the command line and the tests call the
same pure functions, so a live standings page, an export and `estimation competition score` agree.

API for the server (names and signatures are stable):

- boards: ``board_seed(competition_seed, stage, instance=1) -> str`` -- the game seed of every table of
  that stage and instance (``estimation.new_game(ruleset, length, seed=board_seed(...))``).
- swiss: ``first_stage(entrant_ids, seed) -> list[Seats]``, ``next_stage(ranked_ids, previous_stages)
  -> list[Seats]``, ``table_sizes(n)``, ``seat_table(members, last_seat)``; a ``Seats`` is a 4-tuple of
  entrant id or None (a bot).
- robot: ``robot_instance(entry_number, instances) -> int``, ``robot_seats(entrant) -> Seats``.
- matchpoints: ``table_play(record, table=, stage=, instance=, seats=, left=) -> TablePlay`` (replays the
  record; ``left`` = {seat: rounds its table had finished when that seat's entrant left}),
  ``matchpoint_scores(scores)``, ``board_top(n)``, ``board_results(plays, rounds, adjustments) ->
  list[BoardResult]`` (every board), ``board_result(board_key, group_plays, adjustments)`` (one board, to
  refresh when a table finishes a round), ``entrant_boards(boards, plays, adjustments) ->
  list[EntrantBoard]`` (each entrant's MP/top per board), ``entrant_totals(results, entrant_ids)``.
- standings: ``standings(totals) -> list[StandingRow]``, ``percent(mp, top)``, ``fraction(mp, top)``,
  ``ranking(rows) -> list[int]`` (for ``next_stage``).
- export: ``table_entry(table, instance, seats, record, left=())``, ``score_stages(ruleset, length,
  stages, entrant_ids, adjustments) -> Scored``, ``build_export(name=, kind=, ruleset=, length=,
  bot_level=, instances=, entrants=, stages=, adjustments=()) -> CompetitionExport``,
  ``validate_export(doc)``, ``rounds_of(ruleset, length)``.
- check: ``check_export(doc) -> (Scored, Disagreement | None)``; ``Disagreement.line`` names the board
  and entrant.
- play: ``play_bot_table(ruleset, length, game_seed, players, levels, bot_seeds) -> record``,
  ``bot_seed(competition_seed, table, seat)``; simulate: ``simulate(kind=, entrants=, ...)``,
  ``check_settings(...)``, ``dumps``.
- traveller: ``table_lines(record or loaded Game) -> TableLines`` (a table's line on every board, one
  replay), ``traveller(board_result, {table: TableLines}, plays) -> list[TableTraveller]``
  (each table's seats, declarations, estimates, tricks, scores, MP on one board).
- types: ``Kind``, ``Seats``, ``BoardKey``, ``TablePlay``, ``BoardResult``, ``TableOnBoard``,
  ``EntrantBoard``, ``Adjustment`` (a director's adjustment: board + table/seat/score or entrant/mp +
  reason), the export's TypedDicts, ``CompetitionError`` (one-line message), ``as_seats(list)``.
"""

from __future__ import annotations

from .boards import board_seed
from .check import Disagreement, check_export
from .export import Scored, board_entries, build_export, rounds_of, score_stages, table_entry, validate_export
from .matchpoints import (
    board_result,
    board_results,
    board_top,
    entrant_boards,
    entrant_totals,
    matchpoint_scores,
    table_play,
)
from .play import bot_seed, play_bot_table
from .robot import robot_instance, robot_seats
from .simulate import check_settings, dumps, simulate
from .standings import fraction, percent, ranking, standings
from .swiss import first_stage, next_stage, seat_table, table_sizes
from .traveller import BoardLine, SeatOnBoard, TableLines, TableTraveller, table_lines, traveller
from .types import (
    FORMAT,
    KINDS,
    Adjustment,
    BoardEntry,
    BoardKey,
    BoardResult,
    CompetitionError,
    CompetitionExport,
    EntrantBoard,
    EntrantEntry,
    Kind,
    LeftEntry,
    Outcome,
    Seats,
    StageEntry,
    StandingRow,
    TableEntry,
    TableOnBoard,
    TablePlay,
    as_seats,
)

__all__ = [
    "FORMAT",
    "KINDS",
    "Adjustment",
    "BoardEntry",
    "BoardKey",
    "BoardLine",
    "BoardResult",
    "CompetitionError",
    "CompetitionExport",
    "Disagreement",
    "EntrantBoard",
    "EntrantEntry",
    "Kind",
    "LeftEntry",
    "Outcome",
    "Scored",
    "SeatOnBoard",
    "Seats",
    "StageEntry",
    "StandingRow",
    "TableEntry",
    "TableLines",
    "TableOnBoard",
    "TablePlay",
    "TableTraveller",
    "as_seats",
    "board_entries",
    "board_result",
    "board_results",
    "board_seed",
    "board_top",
    "bot_seed",
    "build_export",
    "check_export",
    "check_settings",
    "dumps",
    "entrant_boards",
    "entrant_totals",
    "first_stage",
    "fraction",
    "matchpoint_scores",
    "next_stage",
    "percent",
    "play_bot_table",
    "ranking",
    "robot_instance",
    "robot_seats",
    "rounds_of",
    "score_stages",
    "seat_table",
    "simulate",
    "standings",
    "table_entry",
    "table_lines",
    "table_play",
    "table_sizes",
    "traveller",
    "validate_export",
]
