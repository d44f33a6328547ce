"""`estimation competition simulate` and `estimation competition score`: duplicate competitions offline.

``simulate`` plays a whole competition of bot entrants through :mod:`estimation.competition` (the functions
the server calls) and writes `estimation-competition/1`; ``score`` recomputes a file's matchpoints and
standings from its records alone, prints them with every board's traveller, and exits 1 on the first
figure that does not follow (as `estimation replay` names the first bad action). Bad input is one line on
stderr and exit 1, never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from .cli_common import UnreadableFile, read_record_file
from .competition import (
    BoardKey,
    CompetitionError,
    Scored,
    check_export,
    check_settings,
    dumps,
    simulate,
    table_lines,
    traveller,
)
from .errors import RecordError
from .rulesets import DEFAULT_RULESET

competition_app = typer.Typer(help="Duplicate competitions: simulate one with bots, or check and score a "
                                   "competition file.", no_args_is_help=True)


def _fail(message: str, code: int = 1) -> typer.Exit:
    print(f"error: {message}", file=sys.stderr)
    return typer.Exit(code)


@competition_app.command("simulate")
def simulate_command(
    out: Annotated[Path, typer.Option(help="Where to write the estimation-competition/1 file.")],
    kind: Annotated[str, typer.Option(help="swiss (stages, grouped by standing) or robot (each entrant "
                                           "alone against three bots).")] = "swiss",
    entrants: Annotated[int, typer.Option(min=1, help="How many bot entrants.")] = 16,
    stages: Annotated[int, typer.Option(min=1, help="Stages (swiss).")] = 3,
    instances: Annotated[int, typer.Option(min=1, help="Deal sets (robot).")] = 1,
    ruleset: Annotated[str, typer.Option(help="Ruleset.")] = DEFAULT_RULESET,
    length: Annotated[str | None, typer.Option(help="Length (default: the ruleset's).")] = None,
    level: Annotated[str, typer.Option(help="Bot level of every entrant and filler: random, heuristic, "
                                            "strong.")] = "random",
    seed: Annotated[int, typer.Option(help="Competition seed: the same seed writes the same file.")] = 1,
) -> None:
    """Play a whole competition of bot entrants and write its export."""
    console = Console(stderr=True)
    try:
        check_settings(kind=kind, entrants=entrants, ruleset=ruleset, length=length, level=level,
                       stages=stages if kind == "swiss" else 1,
                       instances=instances if kind == "robot" else 1)
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("tables"), TimeElapsedColumn(), console=console) as progress:
            task = progress.add_task(f"{kind} {ruleset}", total=None)

            def done(played: int, total: int) -> None:
                progress.update(task, completed=played, total=total)

            doc = simulate(kind="swiss" if kind == "swiss" else "robot", entrants=entrants,
                           stages=stages if kind == "swiss" else 1,
                           instances=instances if kind == "robot" else 1, ruleset=ruleset, length=length,
                           level=level, seed=seed, on_table=done)
    except CompetitionError as exc:
        raise _fail(str(exc), 2) from None
    try:
        out.write_text(dumps(doc), encoding="utf-8")
    except OSError as exc:
        raise _fail(f"cannot write {out}: {exc.strerror or exc}") from None
    tables = sum(len(s["tables"]) for s in doc["stages"])
    best = doc["standings"][0]
    print(f"wrote {out}: {doc['kind']} {doc['ruleset']} {doc['length']}, {entrants} entrants, {tables} "
          f"tables; 1st: entrant {best['entrant']} {best['percent']:.2f}%")


@competition_app.command("score")
def score_command(
    file: Annotated[Path, typer.Argument(help="An estimation-competition/1 JSON file.")],
    travellers: Annotated[bool, typer.Option(help="Print every board's traveller.")] = True,
    board: Annotated[str | None, typer.Option(help="Only this board's traveller: STAGE:ROUND, or "
                                                   "STAGE:INSTANCE:ROUND with instances.")] = None,
) -> None:
    """Recompute every board's matchpoints and the standings from the records; exit 1 if the file's
    figures do not follow from them."""
    only = None
    if board is not None:
        parts = board.split(":")
        if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts):
            raise _fail(f"--board is STAGE:ROUND or STAGE:INSTANCE:ROUND, not {board!r}", 2)
        numbers = [int(p) for p in parts]
        only = BoardKey(numbers[0], 1, numbers[1]) if len(numbers) == 2 else BoardKey(*numbers)
    try:
        doc = read_record_file(file)
        scored, disagreement = check_export(doc)
    except UnreadableFile as exc:
        raise _fail(str(exc)) from None
    except RecordError as exc:  # the file is not JSON (read_record_file's whole-file fault)
        raise _fail(f"{file}: {exc.reason}") from None
    except CompetitionError as exc:
        raise _fail(f"{file}: {exc}") from None
    if disagreement is not None:
        raise _fail(f"{file}: {disagreement.line}")
    if only is not None and only not in {b.board for b in scored.boards}:
        raise _fail(f"{file}: there is no board {only.label(True)}")
    console = Console() if sys.stdout.isatty() else Console(width=120)
    _print_standings(console, doc, scored)
    if only is not None:
        _print_travellers(console, doc, scored, only)
    elif travellers:
        _print_travellers(console, doc, scored)
    console.print(f"Every figure follows from the {len(scored.plays)} tables' records.")


def _print_standings(console: Console, doc: dict[str, Any], scored: Scored) -> None:
    names = {e["id"]: e["name"] for e in doc["entrants"]}
    console.print(f"[bold]{doc['name']}[/bold] ({doc['kind']}, {doc['ruleset']} {doc['length']}, "
                  f"{len(doc['entrants'])} entrants)", markup=True, highlight=False)
    table = Table(title="Standings")
    for col in ("place", "entrant", "name", "MP", "top", "%"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for row in scored.standings:
        table.add_row(str(row["place"]), str(row["entrant"]), names.get(row["entrant"], "?"), str(row["mp"]),
                      str(row["top"]), f"{row['percent']:.2f}")
    console.print(table)


def _print_travellers(console: Console, doc: dict[str, Any], scored: Scored,
                      only: BoardKey | None = None) -> None:
    games = {t["table"]: table_lines(t["record"]) for s in doc["stages"] for t in s["tables"]}
    many = doc["instances"] > 1
    for board in scored.boards:
        if only is not None and board.board != only:
            continue
        table = Table(title=f"{board.board.label(many)}: traveller (top {board.top})")
        for col in ("table", "seat", "player", "calls/bids", "est", "tricks", "score", "MP"):
            table.add_column(col, justify="left" if col in ("player", "calls/bids") else "right")
        for i, line in enumerate(traveller(board, games, scored.plays)):
            if i:
                table.add_section()
            for seat in line["seats"]:
                who = seat["player"]
                if seat["entrant"] is not None:
                    who += f" (#{seat['entrant']}, left: a bot played)" if seat["left"] else \
                        f" (#{seat['entrant']})"
                score = _cell(seat["score"])
                if line["multiplier"] not in (None, 1) and seat["score"] is not None:
                    score += f" (x{line['multiplier']})"
                table.add_row(str(line["table"]), str(seat["seat"]), who, " ".join(seat["declarations"]),
                              _cell(seat["estimate"]), _cell(seat["tricks"]), score,
                              _cell(seat["mp"]) if line["finished"] else "not finished")
        console.print(table)


def _cell(value: int | None) -> str:
    return "" if value is None else str(value)
