"""The `estimation` command: its root app, with the record and game commands (replay, score, play).

The other commands live in their own modules, each on its own typer app that imports nothing from this one;
the root adds them below (``app.add_typer``), so the command is a tree: this module at the top, the
sub-apps under it, :mod:`estimation.cli_common` under them for what more than one of them uses.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .calculator import CalculatorError, is_saaydeh, next_multiplier, score_typed_round, side_scores
from .cli_bots import bots_app
from .cli_common import UnreadableFile, read_record_file
from .cli_competition import competition_app
from .cli_moderator import moderator_app
from .cli_server import server_app
from .errors import RecordError
from .game import Game
from .record import load_record, replay_summary
from .results import SIDES
from .rulesets import DEFAULT_RULESET, RULESETS, get_ruleset
from .scoring import SeatScore

app = typer.Typer(
    help="Estimation: the four-player trick-taking card game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# The sub-apps. Without a name their commands are the root's own (`estimation hint`); a group of commands
# gets a name (`estimation NAME COMMAND`): app.add_typer(its_app, name="NAME").
app.add_typer(bots_app)
app.add_typer(moderator_app)
app.add_typer(server_app)
app.add_typer(competition_app, name="competition")


def main() -> None:
    app()


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="An estimation-record/1 JSON file.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the docs/record.md JSON summary.")] = False,
) -> None:
    """Check every action of a record against the rules and print the result."""
    try:
        game = load_record(read_record_file(file))
    except UnreadableFile as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(1) from None
    except RecordError as exc:
        print(exc.line, file=sys.stderr)
        raise typer.Exit(1) from None
    summary = replay_summary(game)
    if as_json:
        for r in summary["rounds"]:
            r.pop("breakdown", None)
        print(json.dumps(summary))
        return
    _print_score_sheet(game.players, summary)


def _side_name(players: tuple[str, ...] | list[str], side: int) -> str:
    a, b = SIDES[side]
    return f"{players[a]} & {players[b]}"


def _print_score_sheet(players: tuple[str, ...], summary: dict[str, Any]) -> None:
    console = _console()
    table = Table(title="Score sheet", show_lines=False)
    table.add_column("Round", justify="right")
    table.add_column("Kind")
    table.add_column("Trump")
    table.add_column("x", justify="right")
    for name in players:
        table.add_column(name, justify="right")
    running = [0, 0, 0, 0]
    for r in summary["rounds"]:
        cells = []
        for s in range(4):
            running[s] += r["scores"][s]
            mark = "*" if r["caller"] == s else ""
            made = "" if r["made"][s] else " x"
            cells.append(f"{mark}{r['estimates'][s]}/{r['tricks'][s]}{made}  {r['scores'][s]:+d} = "
                         f"{running[s]}")
        kind = r["kind"] + (" (Sa'aydeh)" if r["saaydeh"] else "")
        table.add_row(str(r["round"]), kind, r["trump"], str(r["multiplier"]), *cells)
    console.print(table)
    places = summary["places"]
    console.print("Final standings:" if summary["complete"] else "Standings so far (game in progress):")
    sides = summary.get("sides")
    if sides is not None:  # partners: standings by side, each seat's total beside it
        for side in sorted(range(2), key=lambda i: sides["places"][i]):
            a, b = sides["seats"][side]
            console.print(f"  {sides['places'][side]}. {_side_name(players, side)}  {sides['totals'][side]} "
                          f"({players[a]} {summary['totals'][a]}, {players[b]} {summary['totals'][b]})")
    else:
        for s in sorted(range(4), key=lambda s: places[s]):
            console.print(f"  {places[s]}. {players[s]}  {summary['totals'][s]}")
    console.print("Cells: estimate/tricks (x = missed), round score = running total; * the Caller.")


def _parse_pairs(text: str, what: str) -> list[tuple[int, int]]:
    pairs = []
    for item in filter(None, (p.strip() for p in text.split(","))):
        seat_text, sep, value = item.partition(":")
        if not sep or not seat_text.isdigit() or not value.isdigit():
            raise CalculatorError(f"{what}: write SEAT:NUMBER pairs, e.g. 2:3,3:1 (got {item!r})")
        if int(seat_text) > 3:
            raise CalculatorError(f"{what}: seats are 0-3, not {seat_text}")
        pairs.append((int(seat_text), int(value)))
    return pairs


def _parse_ints(text: str, what: str) -> list[int]:
    try:
        return [int(x) for x in text.replace(",", " ").split()]
    except ValueError:
        raise CalculatorError(f"{what}: write numbers separated by commas, e.g. 1,7,4,1") from None


@app.command()
def score(
    estimates: Annotated[str, typer.Option(
        help="SEAT:EST in the order they were made, e.g. '2:2,3:1' (call round: not the Caller "
             "nor Dash Callers; fixed round: all four).")],
    tricks: Annotated[str, typer.Option(help="Tricks taken by seats 0,1,2,3, e.g. '1,7,4,1'.")],
    call: Annotated[str | None, typer.Option(
        help="The Call in a call round as SEAT:NUMBER, e.g. '1:7'. Leave out for a fixed round.")] = None,
    dash_call: Annotated[list[int] | None, typer.Option(
        "--dash-call", "--dash", help="A seat that took the offer to sit out on zero (a Dash Call; egyptian: "
                                      "the Dash); repeat for two.")
    ] = None,
    with_seat: Annotated[list[int] | None, typer.Option(
        "--with", help="A seat that bid With on the winning bid, in a ruleset with that bid (egyptian); "
                       "repeat.")] = None,
    fixed: Annotated[bool, typer.Option("--fixed", help="A fixed round (no Call): --kind fixed.")] = False,
    kind: Annotated[str | None, typer.Option(
        help="The round's kind, one of its ruleset's: " + "; ".join(
            f"{' or '.join(c.round_kinds)} ({name})" for name, c in RULESETS.items()) + ".")] = None,
    multiplier: Annotated[int, typer.Option(help="The round's multiplier: 1, 2 or 4.")] = 1,
    ruleset: Annotated[str, typer.Option(help=f"One of: {', '.join(RULESETS)}.")] = DEFAULT_RULESET,
    partners: Annotated[bool, typer.Option(
        "--partners", help="A partnership game: also each side's round score (seats 0+2, 1+3).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Score one round played with real cards, with each seat's breakdown (and each side's, --partners)."""
    try:
        rules = get_ruleset(ruleset)
        caller = None
        if call is not None:
            pairs = _parse_pairs(call, "--call")
            if len(pairs) != 1:
                raise CalculatorError("--call is one SEAT:NUMBER, e.g. 1:7")
            caller = pairs[0]
        if kind is None:
            if fixed:
                if caller is not None:
                    raise CalculatorError("give --call SEAT:NUMBER for a call round, or --fixed for a fixed "
                                          "round, not both")
                kind = "fixed"
            else:
                kind = rules.default_kind(caller is not None)
                if kind is None:
                    raise CalculatorError("give --call SEAT:NUMBER for a call round, or --fixed for a fixed "
                                          "round (or --kind)")
        result = score_typed_round(
            ruleset=ruleset, kind=kind,
            estimates=_parse_pairs(estimates, "--estimates"), tricks=_parse_ints(tricks, "--tricks"),
            caller=caller, dash_calls=dash_call or [], with_seats=with_seat or [], multiplier=multiplier)
    except (CalculatorError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    if as_json:
        lines = [s.to_dict() for s in result]
        if partners:  # the seats' lines as always, and each side's round score beside them
            print(json.dumps({"seats": lines, "sides": {"seats": [list(side) for side in SIDES],
                                                        "scores": side_scores(result)}}))
        else:
            print(json.dumps(lines))
        return
    _print_breakdown(result, multiplier, rules.score_lines,
                     saaydeh_next=next_multiplier(ruleset, multiplier, result)
                     if is_saaydeh(ruleset, result) else None)
    if partners:
        a, b = side_scores(result)
        _console().print(f"Sides: seats 0+2 {a:+d}, seats 1+3 {b:+d} (a side's round score is the sum of its "
                         "two seats').")


def _console() -> Console:
    """A console wide enough for the score tables even when the output is piped."""
    return Console() if sys.stdout.isatty() else Console(width=120)


#: What each score sheet heading means (the legend under the table).
_LINE_MEANINGS = {"C/W": "Caller or With", "Only": "only winner/loser", "Risk": "the last estimator's Risk",
                  "DCall": "Dash Call", "Dash": "Dash (a Dash seat, or a plain Dash Under)"}


def _print_breakdown(result: tuple[SeatScore, ...], multiplier: int, lines: dict[str, str],
                     saaydeh_next: int | None = None) -> None:
    """The breakdown table, with the score sheet lines the ruleset uses (``lines``: field -> heading);
    ``saaydeh_next``: the next round's multiplier when this round is a Sa'aydeh.

    A Sa'aydeh is scored times 0, and a bare "x 0" column reads like a typing mistake: the title and
    a closing line name it and say what it does to the next round.
    """
    table = Table(title="Round score" + (" — Sa'aydeh" if saaydeh_next is not None else ""))
    for col in ("Seat", "Role", "Est", "Won", "Made", *lines.values(), "Sum", "x", "Score"):
        table.add_column(col, justify="left" if col in ("Role", "Made") else "right")
    for s in result:
        table.add_row(str(s.seat), s.role, str(s.estimate), str(s.tricks), "yes" if s.made else "no",
                      *(f"{getattr(s, field):+d}" for field in lines), f"{s.subtotal:+d}",
                      str(s.multiplier), f"{s.score:+d}")
    console = _console()
    console.print(table)
    legend = "; ".join(f"{h}: {_LINE_MEANINGS[h]}" for h in lines.values() if h in _LINE_MEANINGS)
    console.print(f"{legend};\nSum x multiplier = Score.")
    if saaydeh_next is not None:
        console.print(f"Sa'aydeh: all four seats missed, so nobody scores this round (its x{multiplier} "
                      f"becomes x0); the next round counts x{saaydeh_next}.")


@app.command()
def play(
    ruleset: Annotated[str, typer.Option(help=f"One of: {', '.join(RULESETS)}.")] = DEFAULT_RULESET,
    length: Annotated[str | None, typer.Option(help="The ruleset's length (default: its default).")] = None,
    bots: Annotated[str, typer.Option(help="The three opponents' level.")] = "random",
    seat: Annotated[int, typer.Option(min=0, max=3, help="Your seat, 0-3.")] = 0,
    name: Annotated[str, typer.Option(help="Your name at the table.")] = "You",
    seed: Annotated[int | None, typer.Option(help="Deal seed, to replay the same cards.")] = None,
    save: Annotated[Path | None, typer.Option(
        help="Keep the game's record here, rewritten after every move (so `estimation hint FILE` works "
             "on the game in progress).")] = None,
    partners: Annotated[bool, typer.Option(
        "--partners", help="Play in partnership: you and the bot opposite (seat+2) against the other two.")
    ] = False,
) -> None:
    """Play a game in the terminal against three bots."""
    # Imported by the command that uses them: the bots build their tables on import (a tenth of a
    # second), which every other command would wait for.
    from .bots import make_bot
    from .play_terminal import TerminalGame

    try:
        players = [bot_name(s) for s in range(4)]
        players[seat] = name
        game = Game(get_ruleset(ruleset), length, seed=seed, players=players, partners=partners)
        opponents = {s: make_bot(bots, None if seed is None else seed * 4 + s) for s in range(4) if s != seat}
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    console = Console(highlight=False)
    after_action: Callable[[Game], None] | None = None
    if save is not None:
        try:
            save_record(game, save)  # a path that cannot be written is refused before the first move
        except OSError as exc:
            print(f"error: cannot write {save}: {exc.strerror or exc}", file=sys.stderr)
            raise typer.Exit(2) from None
        after_action = functools.partial(save_record, path=save)
        console.print(f"The record is kept in {save} after every move: in another terminal, "
                      f"`estimation hint {save}` rates your options.")
    TerminalGame(game, seat, opponents, console, after_action=after_action).run()
    if save is not None:
        console.print(f"Record written to {save}")


def bot_name(seat: int) -> str:
    """The name of a bot in ``seat``: the server's (``Bot 1``..``Bot 4`` by seat, seat s is ``Bot s+1``).

    The terminal and the browser name the same seat the same way, so a game told about in one reads
    the same in the other.
    """
    return f"Bot {seat + 1}"


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename.

    The record is rewritten after every move while ``estimation hint`` may be reading it from another
    terminal: a reader sees the old record or the new one, never half a file.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes the file private; a record is a plain file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    """The process's umask (read by setting it, then setting it back: there is no other way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def save_record(game: Game, path: Path) -> None:
    """The game's record so far (a game in progress is a valid record), written atomically."""
    write_atomically(path, json.dumps(game.record(), indent=1))

