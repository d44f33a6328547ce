"""Process CPU time a decision of one bot level, over whole games, by ruleset and kind of decision.

    python bench/bot_cpu.py --level strong --games 2
    python bench/bot_cpu.py --level strong-v1 --games 1 --rulesets egyptian:committee --json out.json

A practice table: seat 0 is a heuristic bot (standing in for the person), seats 1-3 are LEVEL (``--seats``
changes that); every game is played to its end through the checked ``apply``. Each of LEVEL's decisions
is timed with ``time.process_time()`` (this process's CPU, not wall time: the machine is shared, and other
processes' work does not count, though cache and frequency effects of a loaded machine still show). The
view is built outside the timed part (the server builds it anyway); parsing it is inside.

Kinds of decision: the phase of the view (``dash``, ``auction``, ``declare``, ``estimate``, ``play``),
with ``play`` split into ``play-forced`` (a single legal card) and ``play``. Printed per ruleset and kind:
decisions, mean, p50, p95, max (ms), and per ruleset the CPU a bot seat spends a round. ``--json`` writes
every figure and the raw per-decision times.

LEVEL is any tournament level (``strong-fast``, ``strong``, ``heuristic``, ``strong@N``, ``ismcts@N``...).
Games use seeds ``SEED * 1000 + i`` (not the strength runs' seeds).

The strong bot's sampling and play run compiled when numba is installed (the ``fast`` extra);
``ESTIMATION_KERNEL=python`` measures the pure-Python code. Loading the kernels (importing numba, reading
their cached machine code, or compiling them the first time) is once a process: it is timed apart, before
the games, and printed, not charged to the first decisions.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import estimation
from estimation.bots.search import compiled_kernels
from estimation.game import Game
from estimation.rulesets import get_ruleset
from estimation.tournament.lineup import tournament_bot

RULESETS = ("koutchina:full", "classic:full", "egyptian:committee")


def percentile(xs: list[float], q: float) -> float:
    ys = sorted(xs)
    if not ys:
        return float("nan")
    return ys[min(len(ys) - 1, int(len(ys) * q))]


def kind_of(view: dict[str, Any]) -> str:
    phase = str(view["phase"])
    if phase == "play" and len(view["legal"]) == 1:
        return "play-forced"
    return phase


def play(level: str, ruleset: str, length: str, seed: int, seats: set[int]) -> tuple[
        dict[str, list[float]], int]:
    """One game; LEVEL's CPU seconds a decision by kind, and the number of rounds played."""
    game = Game(get_ruleset(ruleset), length, seed=seed)
    bots = [tournament_bot(level if s in seats else "heuristic", seed * 4 + s, game) for s in range(4)]
    out: dict[str, list[float]] = {}
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        t0 = time.process_time()
        text = bots[seat].act(view)
        dt = time.process_time() - t0
        if seat in seats:
            out.setdefault(kind_of(view), []).append(dt)
        game.apply(text)
    return out, len(game.round_results)


def load_kernel() -> float | None:
    """CPU seconds to load the compiled kernels (every one of them); None when the Python code runs."""
    t0 = time.process_time()
    if compiled_kernels() is None:
        return None
    return time.process_time() - t0


def row(name: str, xs: list[float]) -> dict[str, Any]:
    n = len(xs)
    return {"kind": name, "n": n, "mean_ms": sum(xs) / n * 1000 if n else float("nan"),
            "p50_ms": percentile(xs, 0.5) * 1000, "p95_ms": percentile(xs, 0.95) * 1000,
            "max_ms": max(xs) * 1000 if xs else float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="strong-fast")
    parser.add_argument("--games", type=int, default=1, help="games per ruleset")
    parser.add_argument("--seed", type=int, default=24)
    parser.add_argument("--rulesets", nargs="*", default=list(RULESETS), help="RULESET:LENGTH ...")
    parser.add_argument("--seats", default="1,2,3", help="the seats LEVEL holds (the rest: heuristic)")
    parser.add_argument("--json", default=None, help="write the figures and raw times here")
    args = parser.parse_args()
    seats = {int(s) for s in args.seats.split(",")}
    report: dict[str, Any] = {"level": args.level, "games": args.games, "seed": args.seed,
                              "seats": sorted(seats), "estimation": estimation.__file__, "rulesets": {}}
    everything: list[float] = []
    load = load_kernel()
    report["kernel_load_cpu_s"] = load
    print("kernels: " + ("pure Python" if load is None else f"compiled, loaded in {load:.2f} s of CPU"))
    print(f"level {args.level}: process CPU a decision (ms), seats {sorted(seats)}, {args.games} game(s) "
          "per ruleset")
    print(f"{'ruleset':20s} {'kind':12s} {'n':>6s} {'mean':>7s} {'p50':>7s} {'p95':>7s} {'max':>7s}")
    for spec in args.rulesets:
        name, length = spec.split(":")
        by_kind: dict[str, list[float]] = {}
        rounds = 0
        for g in range(args.games):
            times, r = play(args.level, name, length, args.seed * 1000 + g, seats)
            rounds += r
            for k, xs in times.items():
                by_kind.setdefault(k, []).extend(xs)
        every = [x for xs in by_kind.values() for x in xs]
        everything.extend(every)
        rows = [row("all", every)] + [row(k, by_kind[k]) for k in sorted(by_kind)]
        seat_round = sum(every) / (rounds * len(seats)) if rounds else float("nan")
        report["rulesets"][spec] = {"rounds": rounds, "cpu_a_seat_a_round_s": seat_round, "rows": rows,
                                    "raw": by_kind}
        for r_ in rows:
            print(f"{spec:20s} {r_['kind']:12s} {r_['n']:6d} {r_['mean_ms']:7.2f} {r_['p50_ms']:7.2f} "
                  f"{r_['p95_ms']:7.2f} {r_['max_ms']:7.1f}")
        print(f"{spec:20s} CPU a bot seat a round: {seat_round:.3f} s ({rounds} rounds)", flush=True)
    total = row("all", everything)
    report["all"] = total
    print(f"{'all rulesets':20s} {'all':12s} {total['n']:6d} {total['mean_ms']:7.2f} {total['p50_ms']:7.2f} "
          f"{total['p95_ms']:7.2f} {total['max_ms']:7.1f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f)


if __name__ == "__main__":
    main()
