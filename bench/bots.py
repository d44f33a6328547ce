"""Decision time of the strong bot at its default budget (or --samples N), one process, one bot.

    python bench/bots.py --games 3 [--samples 48]
    python bench/bots.py --legality koutchina:micro:1000 classic:full:1000

The first plays koutchina full games with the strong bot in seat 0 against three heuristic bots and
prints p50/p95/max of its decision times by phase and overall (wall time: run it on an idle machine).
The second plays GAMES games of each RULESET:LENGTH with four random, then four heuristic bots, every
action through the checked ``apply`` (an illegal one raises), beyond what the test suite can afford.
"""

from __future__ import annotations

import argparse
import time

import estimation
from estimation.bots import Budget, HeuristicBot, StrongBot


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--samples", type=int, default=None)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--legality", nargs="*", default=None)
    args = parser.parse_args()
    if args.legality:
        legality(args.legality)
        return
    budget = Budget()
    if args.samples:
        budget.samples = budget.play_samples = args.samples
    times: dict[str, list[float]] = {}
    for g in range(args.games):
        game = estimation.new_game("koutchina", "full", seed=args.seed + g)
        bots = [StrongBot(g, budget), HeuristicBot(), HeuristicBot(), HeuristicBot()]
        while not game.is_over:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            t0 = time.perf_counter()
            action = bots[seat].act(view)
            dt = time.perf_counter() - t0
            if seat == 0:
                times.setdefault(view["phase"], []).append(dt)
                times.setdefault("all", []).append(dt)
            game.apply(action)
    print(f"budget: {budget}")
    for phase, ts in times.items():
        ts.sort()
        n = len(ts)
        p95 = ts[min(n - 1, int(n * 0.95))]
        print(f"{phase:9s} n={n:5d}  p50 {ts[n // 2] * 1000:6.1f} ms  p95 {p95 * 1000:6.1f} ms"
              f"  max {ts[-1] * 1000:6.1f} ms  mean {sum(ts) / n * 1000:6.1f} ms")


def legality(specs: list[str]) -> None:
    from estimation.bots import make_bot

    for spec in specs:
        name, length, games = spec.split(":")
        for level in ("random", "heuristic"):
            t0 = time.perf_counter()
            actions = 0
            for g in range(int(games)):
                game = estimation.new_game(name, length, seed=60000 + g)
                bots = [make_bot(level, g * 4 + s) for s in range(4)]
                while not game.is_over:
                    seat = game.to_move
                    assert seat is not None
                    game.apply(bots[seat].act(game.view(seat)))
                    actions += 1
            print(f"{name} {length} {level}: {games} games, {actions} actions, no illegal action, "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
