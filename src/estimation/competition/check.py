"""Checking an export against its records: the first figure that does not follow from them.

As `estimation replay` names the first action that breaks a rule, this names the first board (stage,
round, and instance when there are several) and entrant whose figures in the file differ from what the
records give; then the first standings row. It also checks that every table of a stage and instance was
dealt the same board (hands and dealer for each round and deal index), the premise of duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..cards import mask_of, parse_hand
from .export import Scored, score_stages, validate_export
from .types import BoardKey, CompetitionExport, StandingRow


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Where a file's figures part from its records. ``board`` is None for the standings (or a deal);
    ``entrant`` None for a bot's seat."""

    board: BoardKey | None
    entrant: int | None
    table: int | None
    seat: int | None
    what: str
    with_instance: bool = False

    @property
    def line(self) -> str:
        """One line for a person: ``stage 1, round 3: table 2, seat 1 (entrant 5): mp 4 in the file, 6
        from the records``."""
        parts = []
        if self.board is not None:
            parts.append(self.board.label(self.with_instance))
        else:
            parts.append("standings")
        who = []
        if self.table is not None:
            who.append(f"table {self.table}")
        if self.seat is not None:
            who.append(f"seat {self.seat}")
        if self.entrant is not None:
            who.append(f"entrant {self.entrant}" if not who else f"(entrant {self.entrant})")
        elif self.seat is not None:
            who.append("(a bot)")
        head = parts[0] + (": " + " ".join(who) if who else "")
        return f"{head}: {self.what}"


def check_export(doc: Any) -> tuple[Scored, Disagreement | None]:
    """Recompute ``doc`` from its records; the figures and the first disagreement (None: it all follows).

    Raises :class:`~estimation.competition.types.CompetitionError` (one line) on a file that cannot be
    scored at all: not the format, or a record that does not replay.
    """
    comp = validate_export(doc)
    scored = score_stages(comp["ruleset"], comp["length"], comp["stages"],
                          [e["id"] for e in comp["entrants"]], comp.get("adjustments", []))
    return scored, (_dealt_alike(comp) or _boards_agree(comp, scored) or _standings_agree(comp, scored))


def _dealt_alike(comp: CompetitionExport) -> Disagreement | None:
    first: dict[tuple[int, int, int, int], tuple[int, int, tuple[int, ...]]] = {}
    many = comp["instances"] > 1
    for stage in comp["stages"]:
        for t in stage["tables"]:
            count: dict[int, int] = {}
            for deal in t["record"]["deals"]:
                r = deal["round"]
                k = count.get(r, 0)
                count[r] = k + 1
                dealt = (deal["dealer"], tuple(mask_of(parse_hand(h)) for h in deal["hands"]))
                key = (stage["stage"], t["instance"], r, k)
                if key not in first:
                    first[key] = (t["table"], *dealt)
                elif first[key][1:] != dealt:
                    return Disagreement(BoardKey(stage["stage"], t["instance"], r), None, t["table"], None,
                                        f"deal {k + 1} of the round is not the one table {first[key][0]} "
                                        "was dealt (every table of a stage plays the same boards)", many)
    return None


def _boards_agree(comp: CompetitionExport, scored: Scored) -> Disagreement | None:
    if "boards" not in comp:
        return None
    many = comp["instances"] > 1
    given = {(b.get("stage"), b.get("instance"), b.get("round")): b for b in comp["boards"]
             if isinstance(b, dict)}
    for board in scored.boards:
        key = board.board
        entry = given.get((key.stage, key.instance, key.round))
        if entry is None:
            return Disagreement(key, None, None, None, "the board is missing from the file's boards", many)
        if entry.get("top") != board.top:
            return Disagreement(key, None, None, None,
                                f"top {entry.get('top')!r} in the file, {board.top} from the records", many)
        lines = {t.get("table"): t for t in entry.get("tables", []) if isinstance(t, dict)}
        for line in board.tables:
            mine = lines.get(line.table)
            if mine is None:
                return Disagreement(key, None, line.table, None, "the table is missing from the board", many)
            for what, want in (("score", line.scores), ("mp", line.mp)):
                got = mine.get("scores" if what == "score" else "mp")
                if want is None or got is None or not isinstance(got, list) or len(got) != 4:
                    if got != (None if want is None else list(want)):
                        return Disagreement(key, None, line.table, None,
                                            f"{what}s {got!r} in the file, "
                                            f"{None if want is None else list(want)} from the records", many)
                    continue
                for seat in range(4):
                    if got[seat] != want[seat]:
                        return Disagreement(key, line.seats[seat], line.table, seat,
                                            f"{what} {got[seat]!r} in the file, {want[seat]} from the "
                                            "records", many)
    return None


def _standings_agree(comp: CompetitionExport, scored: Scored) -> Disagreement | None:
    """Row by row in the records' order. Entrants sharing a place may be listed in any order (RECORD.md
    says only "best first"), and a ``percent`` exactly halfway may be rounded either way; everything else
    must be exactly what the records give."""
    given: dict[int, StandingRow] = {}
    for i, row in enumerate(comp["standings"], start=1):
        if row["entrant"] in given:
            return Disagreement(None, row["entrant"], None, None, f"listed twice (row {i})")
        given[row["entrant"]] = row
    for want in scored.standings:
        got = given.pop(want["entrant"], None)
        if got is None:
            return Disagreement(None, want["entrant"], None, None, "missing from the file's standings")
        for key in ("mp", "top", "place"):
            if got[key] != want[key]:
                return Disagreement(None, want["entrant"], None, None,
                                    f"{key} {got[key]!r} in the file, "
                                    f"{want[key]} from the records")
        if not _rounds_to(got["percent"], want["mp"], want["top"]):
            return Disagreement(None, want["entrant"], None, None,
                                f"percent {got['percent']!r} in the file, {want['percent']} from the records")
    if given:
        return Disagreement(None, next(iter(given)), None, None, "a standings row for no entrant")
    places = [row["place"] for row in comp["standings"]]
    for i in range(1, len(places)):
        if places[i] < places[i - 1]:
            row = comp["standings"][i]
            return Disagreement(None, row["entrant"], None, None,
                                f"row {i + 1} (place {places[i]}) is listed after place {places[i - 1]}: "
                                "standings are best first")
    return None


def _rounds_to(shown: float, mp: int, top: int) -> bool:
    """``shown`` is ``100 * mp / top`` to 2 decimals (0 when top is 0), a half rounded either way."""
    value = Fraction(repr(shown))
    if not top:
        return value == 0
    exact = Fraction(100 * mp, top)
    return (value * 100).denominator == 1 and abs(value - exact) <= Fraction(1, 200)
