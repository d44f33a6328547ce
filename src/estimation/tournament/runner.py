"""Running the line-ups (in worker processes when asked) and collecting the report."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..rulesets import DEFAULT_RULESET
from .lineup import GameResult, Job, check_level, play_job
from .stats import Interval, LevelSummary, paired, seat_scores, summarise


@dataclass(slots=True)
class Config:
    candidates: list[str]
    opponent: str = "heuristic"
    ruleset: str = DEFAULT_RULESET
    length: str | None = "full"
    games: int = 4
    seed: int = 1
    workers: int = 1
    out: Path | None = None
    #: Partnership games: each candidate holds a side (both seats) against two opponents.
    partners: bool = False


@dataclass(slots=True)
class Report:
    config: Config
    baseline: LevelSummary
    levels: list[LevelSummary]
    #: (a, b, interval of a - b in the same seats on the same deals), for every pair of candidates
    pairs: list[tuple[str, str, Interval]] = field(default_factory=list)
    rounds: int = 0
    #: Where the plot was drawn, or None: no ``out`` folder, or matplotlib (the tournament extra) missing.
    plot: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        def level(s: LevelSummary) -> dict[str, Any]:
            d = asdict(s)
            d.pop("scores")
            return d

        config = asdict(self.config)
        config["out"] = None if self.config.out is None else str(self.config.out)
        out: dict[str, Any] = _finite({
            "config": config,
            "rounds": self.rounds,
            "baseline": level(self.baseline),
            "levels": [level(s) for s in self.levels],
            "pairs": [{"a": a, "b": b, **asdict(i)} for a, b, i in self.pairs],
        })
        return out


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by None (JSON's null).

    The statistics use NaN for "no value" (the baseline's difference with itself, a level that made no
    decision, an interval of one round), but NaN is not JSON: ``json.dumps`` writes a bare ``NaN`` that
    strict readers (browsers' ``JSON.parse``, jq) refuse.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def make_jobs(config: Config) -> list[Job]:
    records = None
    if config.out is not None:
        records = str(config.out / "records")
    jobs: list[Job] = []
    places = range(2) if config.partners else range(4)  # sides, or seats
    for index in range(config.games):
        jobs.append(Job(config.ruleset, config.length, config.seed, index, config.opponent, None, None,
                        records, config.partners))
        for cand in config.candidates:
            for seat in places:
                jobs.append(Job(config.ruleset, config.length, config.seed, index, config.opponent, cand,
                                seat, records, config.partners))
    return jobs


def run(config: Config, on_done: Callable[[Job, GameResult], None] | None = None) -> Report:
    """Play every line-up of every game and summarise; ``on_done`` is called after each game."""
    for level in [config.opponent, *config.candidates]:
        check_level(level)  # refuse a misspelt name before any work
    if config.out is not None:
        (config.out / "records").mkdir(parents=True, exist_ok=True)
    jobs = make_jobs(config)
    results: list[tuple[Job, GameResult]] = []
    if config.workers <= 1:
        for job in jobs:
            r = play_job(job)
            results.append((job, r))
            if on_done:
                on_done(job, r)
    else:
        with ProcessPoolExecutor(max_workers=config.workers) as pool:
            futures = {pool.submit(play_job, job): job for job in jobs}
            for fut in as_completed(futures):
                job = futures[fut]
                r = fut.result()
                results.append((job, r))
                if on_done:
                    on_done(job, r)
    baseline = [r for j, r in results if j.candidate is None]
    by_level = {c: [r for j, r in results if j.candidate == c] for c in config.candidates}
    report = Report(
        config=config,
        baseline=summarise(config.opponent, baseline, baseline),
        levels=[summarise(c, by_level[c], baseline) for c in config.candidates],
        rounds=sum(len(r.scores) for r in baseline),
    )
    cands = config.candidates
    for i, a in enumerate(cands):
        for b in cands[i + 1:]:
            report.pairs.append((a, b, paired(seat_scores(by_level[a]), seat_scores(by_level[b]))))
    if config.out is not None:
        report.plot = write_outputs(report, config.out)
    return report


def write_outputs(report: Report, out: Path) -> Path | None:
    """results.json (strict JSON: ``allow_nan=False`` refuses any NaN left), then the plot if it can be drawn.

    Returns the plot's path, or None when matplotlib (the ``tournament`` extra) is not installed: the
    results are written first and kept either way, since the games behind them may have taken hours.
    """
    (out / "results.json").write_text(json.dumps(report.to_dict(), indent=1, allow_nan=False),
                                      encoding="utf-8")
    path = out / "scores.png"
    try:
        plot(report, path)
    except PlotUnavailable:
        return None
    return path


class PlotUnavailable(ImportError):
    """matplotlib, which only the plot needs, is not installed (``pip install -e '.[tournament]'``)."""


def plot(report: Report, path: Path) -> None:
    """Box plots and histograms of the per-round scores of each level in its seats.

    Raises :class:`PlotUnavailable` when matplotlib cannot be imported.
    """
    try:
        import matplotlib
    except ImportError as exc:
        raise PlotUnavailable(f"the plot needs matplotlib: {exc}") from exc

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = [(f"{report.baseline.level} (baseline)", report.baseline.scores)]
    series += [(s.level, s.scores) for s in report.levels]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    ax1.boxplot([s for _, s in series], showmeans=True)
    ax1.set_xticks(range(1, len(series) + 1), [n for n, _ in series], rotation=20)
    ax1.set_ylabel("score per round")
    ax1.set_title("Score per round (box: quartiles, triangle: mean)")
    every = sorted(x for _, scores in series for x in scores) or [0]
    low = every[int(len(every) * 0.005)] // 5 * 5
    high = every[int(len(every) * 0.995)] // 5 * 5 + 10
    bins = list(range(low, high, 5))
    for name, scores in series:
        ax2.hist(scores, bins=bins, histtype="step", label=name, density=True)
    ax2.set_xlabel("score per round (the outer 1% cut off)")
    ax2.set_title(f"{report.config.ruleset} {report.config.length}, {report.rounds} rounds, "
                  f"vs {report.config.opponent}")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
