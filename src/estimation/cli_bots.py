"""`estimation hint` and `estimation tournament`: the bot commands, on their own typer app."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from .cli_common import UnreadableFile, read_record_file
from .errors import EstimationError, RecordError
from .game import Game
from .record import load_record
from .rulesets import DEFAULT_RULESET, get_ruleset

bots_app = typer.Typer()


@bots_app.command()
def hint(
    record: Annotated[Path | None, typer.Argument(help="A record of a game in progress (default: a new "
                                                       "seeded game, see --seed and --advance).")] = None,
    ruleset: Annotated[str, typer.Option(help="Ruleset of the new game.")] = DEFAULT_RULESET,
    length: Annotated[str | None, typer.Option(help="Length of the new game.")] = None,
    seed: Annotated[int, typer.Option(help="Deal seed of the new game.")] = 1,
    advance: Annotated[int, typer.Option(help="Actions the heuristic bots make first in the new game.")] = 0,
    samples: Annotated[int | None, typer.Option(help="Deals sampled per action (default: the strong "
                                                     "bot's budget).")] = None,
    sample_seed: Annotated[int, typer.Option(help="Seed of the sampler.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the hint as JSON.")] = False,
) -> None:
    """For the seat to move: the chance of each trick count and the expected score of every legal action."""
    # The bots (and the hint, the tournament) are imported by the command that uses them: they build their
    # tables on import (a tenth of a second), which every other command would wait for.
    from .bots.heuristic import HeuristicBot
    from .hint import hint as make_hint

    try:
        if record is not None:
            game = load_record(read_record_file(record))
        else:
            game = Game(get_ruleset(ruleset), length, seed=seed)
            bot = HeuristicBot()
            for _ in range(advance):
                if game.is_over:
                    break
                seat = game.to_move
                game.apply(bot.act(game.view(seat)))
        if game.is_over:
            raise ValueError("the game is over: there is nothing to hint")
        seat = game.to_move
        view = game.view(seat)
        result = make_hint(view, samples=samples, seed=sample_seed)
    except (ValueError, EstimationError, RecordError, UnreadableFile) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(result))
        return
    console = Console(highlight=False)
    console.print(f"Seat {result['seat']} · {result['phase']} · hand {' '.join(view['hand'])}")
    if view["trump"]:
        console.print(f"Trump {view['trump']} · estimates {view['estimates']} · tricks "
                      f"{[m['tricks'] for m in view['markers']]}")
    table = Table(title=f"Hint ({result['samples']} sampled deals per action)")
    table.add_column("action")
    table.add_column("E\\[score]", justify="right")
    table.add_column("E\\[tricks]", justify="right")
    table.add_column("P(tricks): the likely counts")
    for row in sorted(result["actions"], key=lambda r: -r["expected_score"]):
        likely = sorted(((p, k) for k, p in enumerate(row["tricks"]) if p >= 0.05), reverse=True)[:5]
        mark = " *" if row["action"] == result["best"] else ""
        table.add_row(row["action"].split(" ", 1)[1] + mark, f"{row['expected_score']:+.1f}",
                      f"{row['expected_tricks']:.2f}",
                      "  ".join(f"{k}:{p:.0%}" for p, k in sorted(likely, key=lambda x: x[1])))
    console.print(table)
    console.print("* the action the strong bot's machinery rates best")


@bots_app.command()
def tournament(
    candidates: Annotated[str, typer.Option(help="Comma-separated levels rotated through the seats: random, "
                                                 "heuristic, strong, strong-full, strong-noevidence, "
                                                 "strong-random, strong-seat, omniscient (LEVEL@N: N deals "
                                                 "per decision).")] = "strong",
    opponent: Annotated[str, typer.Option(help="The level of the three other seats.")] = "heuristic",
    ruleset: Annotated[str, typer.Option(help="Ruleset.")] = DEFAULT_RULESET,
    length: Annotated[str | None, typer.Option(help="Length (default: full for koutchina).")] = None,
    games: Annotated[int, typer.Option(min=1, help="Games (each one set of deals) per line-up.")] = 4,
    seed: Annotated[int, typer.Option(help="Base seed of the deals.")] = 1,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 1,
    out: Annotated[Path, typer.Option(help="Folder for records, results.json and scores.png.")] = Path(
        "tournament-out"),
    partners: Annotated[bool, typer.Option(
        "--partners", help="Partnership games: each candidate holds a side (seats s and s+2) against two "
                           "opponents; scores are side scores.")] = False,
) -> None:
    """Duplicate tournament: each candidate in every seat vs three opponents, on the same deals."""
    from .tournament import Config, run
    from .tournament.runner import make_jobs

    try:
        rs = get_ruleset(ruleset)
        if length is None:
            length = "full" if "full" in rs.lengths else rs.default_length
        config = Config(candidates=[c.strip() for c in candidates.split(",") if c.strip()],
                        opponent=opponent, ruleset=ruleset, length=length, games=games, seed=seed,
                        workers=workers, out=out, partners=partners)
        total = len(make_jobs(config))
        console = Console(highlight=False, width=max(140, Console().width))
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("games"), TimeElapsedColumn(), TimeRemainingColumn(),
                      console=console) as progress:
            task = progress.add_task("duplicate", total=total)

            def done(job: object, _r: object) -> None:
                progress.update(task, advance=1, description=f"{getattr(job, 'label', '')}")

            report = run(config, done)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2) from None
    where = ("both sides (partners; side scores)" if partners else "all 4 seats")
    table = Table(title=f"Duplicate: {ruleset} {length}, {report.rounds} rounds ({games} games), "
                        f"each candidate in {where} vs {2 if partners else 3} x {opponent}")
    for col in ("level", "mean/round", f"diff vs {opponent} (95% CI)", "make rate", "Dash Calls made",
                "decision p50", "p95", "max"):
        table.add_column(col, justify="left" if col == "level" else "right")
    for s in [report.baseline, *report.levels]:
        is_base = s is report.baseline
        table.add_row(
            s.level + ((" (both sides)" if partners else " (all four seats)") if is_base else ""),
            f"{s.mean:+.2f}",
            "" if is_base else str(s.diff), f"{s.make_rate:.1%}",
            f"{s.dash_made}/{s.dash_calls}" if s.dash_calls else "0",
            "" if is_base else f"{s.p50 * 1000:.0f} ms", "" if is_base else f"{s.p95 * 1000:.0f} ms",
            "" if is_base else f"{s.max_time * 1000:.0f} ms")
    console.print(table)
    for a, b, interval in report.pairs:
        console.print(f"{a} - {b}, same seats and deals: {interval} per round (n={interval.n})")
    if report.plot is not None:
        console.print(f"Records, results.json and scores.png in {out}/")
    else:
        console.print(f"Records and results.json in {out}/. No scores.png: the plot needs matplotlib, "
                      "the tournament extra: pip install -e '.[tournament]'", markup=False)
