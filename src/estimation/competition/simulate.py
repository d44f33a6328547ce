"""A whole competition of bot entrants, through the same functions a server calls.

Swiss: stage 1 by :func:`~estimation.competition.swiss.first_stage`, each later stage by
:func:`~estimation.competition.swiss.next_stage` on the standings so far (computed from the records by
:func:`~estimation.competition.export.score_stages`), every table on its stage's board seed. Robot: each
entrant in seat 0 of its own table, instances in turn of entry. Deterministic: the same arguments give the
same export, byte for byte once written by :func:`dumps`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..bots import LEVELS
from ..rulesets import get_ruleset
from .boards import board_seed
from .export import build_export, score_stages, table_entry
from .play import bot_seed, play_bot_table
from .robot import robot_instance, robot_seats
from .standings import ranking
from .swiss import first_stage, next_stage, table_sizes
from .types import KINDS, CompetitionError, CompetitionExport, EntrantEntry, Kind, Seats, StageEntry

#: Called after each table with (tables played, tables in all).
Progress = Callable[[int, int], None]


def simulate(*, kind: Kind, entrants: int, ruleset: str, length: str | None, level: str, seed: int,
             stages: int = 1, instances: int = 1, on_table: Progress | None = None) -> CompetitionExport:
    """Play the competition and return its export. Raises :class:`CompetitionError` on bad settings."""
    length = check_settings(kind=kind, entrants=entrants, ruleset=ruleset, length=length, level=level,
                            stages=stages, instances=instances)
    people: list[EntrantEntry] = [{"id": i, "name": f"Entrant {i}"} for i in range(1, entrants + 1)]
    names = {e["id"]: e["name"] for e in people}
    ids = [e["id"] for e in people]
    total = stages * len(table_sizes(entrants)) if kind == "swiss" else entrants
    played = 0

    def play(table: int, stage: int, instance: int, seats: Seats) -> dict[str, Any]:
        nonlocal played
        players = [names[e] if e is not None else f"Bot ({level})" for e in seats]
        record = play_bot_table(ruleset, length, board_seed(seed, stage, instance), players, [level] * 4,
                                [bot_seed(seed, table, s) for s in range(4)])
        played += 1
        if on_table is not None:
            on_table(played, total)
        return record

    done: list[StageEntry] = []
    if kind == "robot":
        tables = []
        for n, e in enumerate(ids, start=1):
            inst = robot_instance(n, instances)
            tables.append(table_entry(n, inst, robot_seats(e), play(n, 1, inst, robot_seats(e))))
        done.append({"stage": 1, "tables": tables})
    else:
        history: list[list[Seats]] = []
        number = 0
        for stage in range(1, stages + 1):
            if stage == 1:
                seating = first_stage(ids, seed)
            else:
                ranked = ranking(score_stages(ruleset, length, done, ids).standings)
                seating = next_stage(ranked, history)
            history.append(seating)
            tables = []
            for seats in seating:
                number += 1
                tables.append(table_entry(number, 1, seats, play(number, stage, 1, seats)))
            done.append({"stage": stage, "tables": tables})
    name = f"Simulated {kind}: {entrants} x {level}, {ruleset} {length}, seed {seed}"
    return build_export(name=name, kind=kind, ruleset=ruleset, length=length, bot_level=level,
                        instances=instances, entrants=people, stages=done)


def check_settings(*, kind: str, entrants: int, ruleset: str, length: str | None, level: str, stages: int,
                   instances: int) -> str:
    """The length to play (the ruleset's default for None); :class:`CompetitionError` on a bad setting,
    before anything is played."""
    if kind not in KINDS:
        raise CompetitionError(f"unknown kind {kind!r} (known: {', '.join(KINDS)})")
    try:
        rs = get_ruleset(ruleset)
    except ValueError as exc:
        raise CompetitionError(str(exc)) from None
    length = length or rs.default_length
    if length not in rs.lengths:
        raise CompetitionError(f"unknown length {length!r} for {ruleset} (known: {', '.join(rs.lengths)})")
    if level not in LEVELS:
        raise CompetitionError(f"unknown bot level {level!r} (known: {', '.join(LEVELS)})")
    if entrants < 1:
        raise CompetitionError("a competition needs at least one entrant")
    if kind == "swiss" and (stages < 1 or instances != 1):
        raise CompetitionError("a swiss competition has 1 or more stages and 1 instance")
    if kind == "robot" and (stages != 1 or instances < 1):
        raise CompetitionError("a robot competition has 1 stage and 1 or more instances")
    return length


def dumps(doc: CompetitionExport) -> str:
    """The export as the file holds it: compact JSON with one newline, the same bytes for the same doc."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"
