"""The `estimation-competition/1` export (RECORD.md): building it from the tables' records, reading it back.

What RECORD.md names is always there with exactly its keys. Two extension keys (docs/competitions.md)
carry what a checker and an audit trail need and RECORD.md has no field for: ``boards`` (every board's
scores and MP, so a disagreement can be named board by board) and ``adjustments`` (a director's
adjustments with their reasons). A table may carry ``left`` (who left it, after how many rounds).
Readers ignore keys they do not know, as for records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rulesets import RULESETS, get_ruleset
from .matchpoints import board_results, entrant_boards, entrant_totals, table_play
from .standings import standings
from .types import (
    FORMAT,
    KINDS,
    Adjustment,
    BoardEntry,
    BoardResult,
    CompetitionError,
    CompetitionExport,
    EntrantBoard,
    EntrantEntry,
    Kind,
    LeftEntry,
    Seats,
    StageEntry,
    StandingRow,
    TableEntry,
    TablePlay,
    as_seats,
)

_TOP_KEYS = ("format", "name", "kind", "ruleset", "length", "bot_level", "instances", "entrants", "stages",
             "standings")
_ROW_KEYS = ("entrant", "mp", "top", "percent", "place")


@dataclass(frozen=True, slots=True)
class Scored:
    """Everything a competition's records come to: each table read, each board matchpointed, each
    entrant's board results, and the standings."""

    plays: list[TablePlay]
    boards: list[BoardResult]
    results: list[EntrantBoard]
    standings: list[StandingRow]


def table_entry(table: int, instance: int, seats: Seats, record: dict[str, Any],
                left: Sequence[LeftEntry] = ()) -> TableEntry:
    """One table of a stage, as the export holds it."""
    entry: TableEntry = {"table": table, "instance": instance, "seats": list(seats), "record": record}
    if left:
        entry["left"] = list(left)
    return entry


def rounds_of(ruleset: str, length: str) -> int:
    """How many rounds (boards per stage) a ruleset's length has."""
    return len(get_ruleset(ruleset).lengths[length])


def score_stages(ruleset: str, length: str, stages: Sequence[StageEntry],
                 entrant_ids: Sequence[int] = (), adjustments: Sequence[Adjustment] = ()) -> Scored:
    """Replay every table's record and matchpoint every board: the one computation behind live
    standings, the export and `estimation competition score`."""
    plays = [
        table_play(t["record"], table=t["table"], stage=s["stage"], instance=t["instance"],
                   seats=as_seats(t["seats"]), left={x["seat"]: x["rounds"] for x in t.get("left", [])})
        for s in stages for t in s["tables"]]
    boards = board_results(plays, rounds_of(ruleset, length), adjustments)
    results = entrant_boards(boards, plays, adjustments)
    return Scored(plays, boards, results, standings(entrant_totals(results, entrant_ids)))


def board_entries(boards: Sequence[BoardResult]) -> list[BoardEntry]:
    """The ``boards`` extension key: each board's top and each table's scores and MP."""
    return [{"stage": b.board.stage, "instance": b.board.instance, "round": b.board.round, "top": b.top,
             "tables": [{"table": t.table, "scores": None if t.scores is None else list(t.scores),
                         "mp": None if t.mp is None else list(t.mp)} for t in b.tables]}
            for b in boards]


def build_export(*, name: str, kind: Kind, ruleset: str, length: str, bot_level: str, instances: int,
                 entrants: Sequence[EntrantEntry], stages: Sequence[StageEntry],
                 adjustments: Sequence[Adjustment] = ()) -> CompetitionExport:
    """The whole export, standings and boards computed from the records (never taken on trust)."""
    scored = score_stages(ruleset, length, stages, [e["id"] for e in entrants], adjustments)
    doc: CompetitionExport = {
        "format": FORMAT, "name": name, "kind": kind, "ruleset": ruleset, "length": length,
        "bot_level": bot_level, "instances": instances, "entrants": list(entrants), "stages": list(stages),
        "standings": scored.standings, "boards": board_entries(scored.boards)}
    if adjustments:
        doc["adjustments"] = list(adjustments)
    validate_export(doc)
    return doc


def _int(x: Any) -> bool:
    return type(x) is int


def validate_export(doc: Any) -> CompetitionExport:
    """``doc`` if it has the shape of `estimation-competition/1`; else :class:`CompetitionError` with
    one line saying where (records are checked by replaying them, in :func:`score_stages`)."""
    def fail(where: str, why: str) -> CompetitionError:
        return CompetitionError(why if where == "the file" else f"{where}: {why}")

    if not isinstance(doc, dict):
        raise fail("the file", f"a competition is a JSON object, not {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        raise fail("the file", f"unknown format {doc.get('format')!r} (expected {FORMAT!r})")
    missing = [k for k in _TOP_KEYS if k not in doc]
    if missing:
        raise fail("the file", f"missing {', '.join(missing)}")
    for key in ("name", "bot_level"):
        if not isinstance(doc[key], str):
            raise fail(key, "must be a string")
    if not isinstance(doc["kind"], str) or doc["kind"] not in KINDS:
        raise fail("kind", f"{doc['kind']!r} is not one of {', '.join(KINDS)}")
    if not isinstance(doc["ruleset"], str) or doc["ruleset"] not in RULESETS:
        raise fail("ruleset", f"unknown ruleset {doc['ruleset']!r}")
    if not isinstance(doc["length"], str) or doc["length"] not in get_ruleset(doc["ruleset"]).lengths:
        raise fail("length", f"unknown length {doc['length']!r} for {doc['ruleset']}")
    instances = doc["instances"]
    if not _int(instances) or instances < 1 or (doc["kind"] == "swiss" and instances != 1):
        raise fail("instances", f"must be 1 in swiss and 1 or more in robot, not {instances!r}")
    entrants = doc["entrants"]
    if not isinstance(entrants, list):
        raise fail("entrants", "must be a list")
    ids: set[int] = set()
    for i, e in enumerate(entrants, start=1):
        if not isinstance(e, dict) or not _int(e.get("id")) or not isinstance(e.get("name"), str):
            raise fail(f"entrant {i}", 'each entrant is {"id": integer, "name": string}')
        if e["id"] in ids:
            raise fail(f"entrant {e['id']}", "listed twice")
        ids.add(e["id"])
    _validate_stages(doc, ids, fail)
    rows = doc["standings"]
    if not isinstance(rows, list):
        raise fail("standings", "must be a list")
    for i, row in enumerate(rows, start=1):
        if (not isinstance(row, dict) or any(k not in row for k in _ROW_KEYS)
                or not all(_int(row[k]) for k in ("entrant", "mp", "top", "place"))
                or type(row["percent"]) not in (int, float)):
            raise fail(f"standings row {i}", "must have integer entrant, mp, top, place and a number percent")
    for key in ("boards", "adjustments"):
        if key in doc and not isinstance(doc[key], list):
            raise fail(key, "must be a list")
    for i, board in enumerate(doc.get("boards", []), start=1):
        if not _board_entry_ok(board):
            raise fail(f"board {i}", "needs integer stage, instance, round, top and tables of integer table "
                                     "with four integer scores and mp (or null)")
    for i, adj in enumerate(doc.get("adjustments", []), start=1):
        if (not isinstance(adj, dict) or not all(_int(adj.get(k)) for k in ("stage", "instance", "round"))
                or not isinstance(adj.get("reason"), str)
                or not (all(_int(adj.get(k)) for k in ("table", "seat", "score"))
                        or all(_int(adj.get(k)) for k in ("entrant", "mp")))):
            raise fail(f"adjustment {i}", "needs stage, instance, round, reason and either table, seat "
                                          "and score or entrant and mp")
    checked: CompetitionExport = doc  # type: ignore[assignment]
    return checked


def _board_entry_ok(board: Any) -> bool:
    def four_or_null(x: Any) -> bool:
        return x is None or (isinstance(x, list) and len(x) == 4 and all(_int(v) for v in x))

    return (isinstance(board, dict) and all(_int(board.get(k)) for k in ("stage", "instance", "round", "top"))
            and isinstance(board.get("tables"), list)
            and all(isinstance(t, dict) and _int(t.get("table")) and four_or_null(t.get("scores"))
                    and four_or_null(t.get("mp")) for t in board["tables"]))


def _validate_stages(doc: dict[str, Any], ids: set[int], fail: Any) -> None:
    stages = doc["stages"]
    if not isinstance(stages, list):
        raise fail("stages", "must be a list")
    tables_seen: set[int] = set()
    robot = doc["kind"] == "robot"
    if robot and len(stages) > 1:
        raise fail("stages", "a robot competition has one stage")
    for n, stage in enumerate(stages, start=1):
        if (not isinstance(stage, dict) or stage.get("stage") != n
                or not isinstance(stage.get("tables"), list)):
            raise fail(f"stage {n}", f'must be {{"stage": {n}, "tables": [...]}}')
        seated: set[int] = set()
        for t in stage["tables"]:
            where = f"stage {n}, table {t.get('table') if isinstance(t, dict) else '?'}"
            if not isinstance(t, dict) or not _int(t.get("table")) or not _int(t.get("instance")):
                raise fail(where, "a table has integer table and instance")
            if t["table"] in tables_seen:
                raise fail(where, "table numbers are unique in a competition")
            tables_seen.add(t["table"])
            if not 1 <= t["instance"] <= doc["instances"]:
                raise fail(where, f"instance {t['instance']} is not 1..{doc['instances']}")
            seats = t.get("seats")
            if (not isinstance(seats, list) or len(seats) != 4
                    or not all(s is None or (_int(s) and s in ids) for s in seats)):
                raise fail(where, "seats are four entrant ids of this competition or null")
            people = [s for s in seats if s is not None]
            if robot and (seats[0] is None or len(people) != 1):
                raise fail(where, "a robot table has its entrant in seat 0 and bots in seats 1-3")
            if seated & set(people) or len(set(people)) != len(people):
                raise fail(where, "an entrant sits at two tables (or seats) in one stage")
            seated.update(people)
            record = t.get("record")
            if not isinstance(record, dict):
                raise fail(where, "record must be an estimation-record/1 object")
            if record.get("ruleset") != doc["ruleset"] or record.get("length", get_ruleset(
                    doc["ruleset"]).default_length) != doc["length"]:
                raise fail(where, f"the record is not {doc['ruleset']} {doc['length']}")
            for x in t.get("left", []):
                if not isinstance(x, dict) or not _int(x.get("seat")) or not _int(x.get("rounds")):
                    raise fail(where, 'left entries are {"seat": 0-3, "rounds": N}')
