"""Bots for the tournament, and one game of a line-up.

The tournament seats levels the server never does: ``omniscient`` (reads every hand) and the strong bot's
ablations (``strong-noevidence``: the same pool of deals as the strong bot, kept with equal weights instead
of the declarations' (common random numbers: with the same seed both draw the same pool at every
position); ``strong-random``: random instead of target-aware rollouts; ``strong-tight``: the declarations
weighed with half the sigmas, from three times the pool; ``strong-seat``: in a partnership game, every
candidate judged by the seat's own score instead of its side's). ``strong@N`` runs the strong bot at N
deals per decision.

In a partnership tournament (``partners``) a line-up's candidate holds a whole side (seats s and s + 2)
against two opponents, and its score is the side's.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots import Bot, HeuristicBot, RandomBot, StrongBot
from ..bots.omniscient import OmniscientBot
from ..bots.strong import default_budget
from ..bots.strong2 import RaceBudget, Strong2Bot
from ..game import Game
from ..rulesets import get_ruleset

TOURNAMENT_LEVELS = ("random", "heuristic", "strong-fast", "strong-fast-plus", "strong", "strong-full",
                     "strong-noevidence", "strong-random", "strong-tight", "strong-seat", "omniscient",
                     "ismcts")


def check_level(level: str) -> None:
    """Raise ``ValueError`` for a name :func:`tournament_bot` would refuse."""
    base, _, samples = level.partition("@")
    if base not in TOURNAMENT_LEVELS or (samples and not samples.isdigit()):
        raise ValueError(f"unknown tournament level {level!r} (known: {', '.join(TOURNAMENT_LEVELS)}, "
                         "optionally with @SAMPLES)")


def tournament_bot(level: str, seed: int, game: Game) -> Bot:
    """A bot of ``level`` for one seat of ``game``.

    Only ``omniscient`` reads hidden cards from ``game``; ``ismcts`` redeals them from the seat's
    information before it searches (see :mod:`estimation.research.ismcts_seat`)."""
    base, _, samples = level.partition("@")
    budget = default_budget()  # the `strong` bot's own (every ablation below races as it does)
    if samples:
        budget.samples = budget.play_samples = int(samples)
    if base == "random":
        return RandomBot(seed)
    if base == "heuristic":
        return HeuristicBot(seed)
    if base == "strong-fast":
        race = RaceBudget()
        if samples:
            race.play_deals = race.declaration_deals = int(samples)
        return Strong2Bot(seed, race, name=level)
    if base == "strong-fast-plus":
        race = RaceBudget.plus()
        if samples:
            race.play_deals = race.declaration_deals = race.batch = int(samples)
        return Strong2Bot(seed, race, name=level)
    if base == "strong":
        # Counted in deals only: the 0.8 s wall-clock safety cap, reached on a starved machine, would
        # make the reference weaker and its games depend on the load (the strong-fast levels have no cap).
        budget.max_seconds = float("inf")
        return StrongBot(seed, budget, name=level)
    if base == "strong-full":
        # `strong` without the declarations' race: every candidate on every deal (the reference the race
        # was measured against, docs/bots.md).
        budget.max_seconds = float("inf")
        budget.race_z = 0.0
        return StrongBot(seed, budget, name=level)
    if base == "strong-noevidence":
        budget.evidence = False
        return StrongBot(seed, budget, name=level)
    if base == "strong-tight":
        budget.evidence_scale = 0.5
        budget.oversample = 6
        return StrongBot(seed, budget, name=level)
    if base == "strong-random":
        budget.rollout = "random"
        return StrongBot(seed, budget, name=level)
    if base == "strong-seat":
        budget.for_side = False
        return StrongBot(seed, budget, name=level)
    if base == "omniscient":
        return OmniscientBot(game, seed)
    if base == "ismcts":
        # OpenSpiel's ISMCTS (the research extra); @N is its number of simulations per decision.
        from ..research.ismcts_seat import DEFAULT_SIMULATIONS, ISMCTSSeat

        return ISMCTSSeat(game, seed, int(samples) if samples else DEFAULT_SIMULATIONS)
    raise ValueError(f"unknown tournament level {level!r} (known: {', '.join(TOURNAMENT_LEVELS)}, "
                     "optionally with @SAMPLES)")


@dataclass(slots=True)
class Job:
    """One game: ``candidate`` in ``seat`` against three ``opponent`` bots, or (seat None) four opponents.

    With ``partners`` the game is a partnership game and ``seat`` is a side (0: seats 0 and 2, 1: seats 1
    and 3), both of whose seats the candidate holds."""

    ruleset: str
    length: str | None
    seed: int
    index: int
    opponent: str
    candidate: str | None
    seat: int | None
    records: str | None
    partners: bool = False

    @property
    def label(self) -> str:
        where = "side" if self.partners else "seat"
        return "baseline" if self.candidate is None else f"{self.candidate}@{where}{self.seat}"

    @property
    def candidate_seats(self) -> tuple[int, ...]:
        return candidate_seats(self.seat, self.partners)


def candidate_seats(seat: int | None, partners: bool) -> tuple[int, ...]:
    """The seats a line-up's candidate holds: ``seat``, or with partners both seats of side ``seat``."""
    if seat is None:
        return ()
    return (seat, seat + 2) if partners else (seat,)


@dataclass(slots=True)
class GameResult:
    """Per round (list index) and seat: score, made, Dash Call; and the candidate's decision times."""

    index: int
    candidate: str | None
    seat: int | None
    scores: list[list[int]] = field(default_factory=list)
    made: list[list[bool]] = field(default_factory=list)
    dash_calls: list[list[int]] = field(default_factory=list)
    estimates: list[list[int]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    partners: bool = False


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def play_job(job: Job) -> GameResult:
    """Play one game of the line-up to the end; write its record if asked."""
    mine = job.candidate_seats
    levels = [job.candidate if s in mine and job.candidate else job.opponent for s in range(4)]
    game = Game(get_ruleset(job.ruleset), job.length, seed=game_seed(job.seed, job.index), players=levels,
                partners=job.partners)
    bots = [tournament_bot(levels[s], game_seed(job.seed, job.index) * 4 + s, game) for s in range(4)]
    result = GameResult(job.index, job.candidate, job.seat, partners=job.partners)
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        t0 = time.perf_counter()
        text = bots[seat].act(view)
        elapsed = time.perf_counter() - t0
        if seat in mine:
            result.times.append(elapsed)
        game.apply(text)
    for r in game.round_results:
        result.scores.append(list(r.scores))
        result.made.append(list(r.made))
        result.dash_calls.append(list(r.dash_calls))
        result.estimates.append(list(r.estimates))
    if job.records is not None:
        path = Path(job.records) / f"game{job.index:04d}_{job.label}.json"
        record: dict[str, Any] = game.record(include_seed=True)
        path.write_text(json.dumps(record), encoding="utf-8")
    return result
