"""Regret of search budgets on positions, judged by the old search at a large budget (issue 24's tuning).

    python bench/bot_regret.py '{"strong-fast": {}, "c64": {"batch": 64, "play_deals": 64, \\
        "declaration_deals": 64}}' 300 80 256

Positions: decisions with two or more candidates in heuristic games of koutchina full, classic full and
egyptian committee (seeds 5000 on, their first 6 rounds; a seeded share of the card plays and of the
declarations), NPLAY card plays and NDECL declarations. The judge: `strong-v1`'s evaluation of every
candidate on JUDGE deals, without a time cap. For each position and each configuration (``RaceBudget``
keyword arguments of the new search; ``v1`` is `strong-v1` at its default budget) the regret is the
judge's score of its best candidate minus the judge's score of the configuration's choice. Printed: the
mean regret by kind (play, declaration), its difference with `strong-v1`'s on the same positions with a
95% interval, and the mean process CPU a decision (the play's carried deals drawn first, as in a game).
Regrets are measured under the search's model (heuristic opponents), as the tournaments are.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from typing import Any

from estimation.bots import Budget, HeuristicBot, RaceBudget, Strong2Bot, StrongBot, particles
from estimation.bots.knowledge import from_view
from estimation.bots.search import candidates_for, evaluate
from estimation.game import Game
from estimation.rulesets import get_ruleset

RULESETS = (("koutchina", "full"), ("classic", "full"), ("egyptian", "committee"))


def positions(nplay: int, ndecl: int) -> list[tuple[dict[str, Any], bool]]:
    rng = random.Random(7)
    out: list[tuple[dict[str, Any], bool]] = []
    plays = decls = 0
    g = 0
    while plays < nplay or decls < ndecl:
        name, length = RULESETS[g % 3]
        game = Game(get_ruleset(name), length, seed=5000 + g)
        g += 1
        bots = [HeuristicBot(s) for s in range(4)]
        while not game.is_over and game.round_no <= 6:
            seat = game.to_move
            assert seat is not None
            view = game.view(seat)
            info = from_view(view)
            if len(candidates_for(info)) > 1:
                play = info.phase == "play"
                if play and rng.random() < 0.08 and plays < nplay:
                    out.append((view, True))
                    plays += 1
                elif not play and rng.random() < 0.4 and decls < ndecl:
                    out.append((view, False))
                    decls += 1
            game.apply(bots[seat].act(view))
    return out


def main(argv: list[str]) -> None:
    if len(argv) < 3:
        raise SystemExit(__doc__)
    configs: dict[str, dict[str, Any]] = json.loads(argv[0])
    nplay, ndecl = int(argv[1]), int(argv[2])
    judge_n = int(argv[3]) if len(argv) > 3 else 256
    pos = positions(nplay, ndecl)
    names = ["v1", *configs]
    regret: dict[str, dict[str, list[float]]] = {n: {"play": [], "decl": []} for n in names}
    cpu: dict[str, dict[str, float]] = {n: {"play": 0.0, "decl": 0.0} for n in names}
    for i, (view, play) in enumerate(pos):
        info = from_view(view)
        kind = "play" if play else "decl"
        judge = evaluate(info, candidates_for(info), Budget(samples=judge_n, play_samples=judge_n,
                                                            max_seconds=math.inf), random.Random(f"judge{i}"))
        score = {e.action.text: e.mean_score for e in judge}
        top = max(score.values())
        for name in names:
            particles._CACHE.clear()
            bot: StrongBot | Strong2Bot
            if name == "v1":
                bot = StrongBot(11)
            else:
                bot = Strong2Bot(11, RaceBudget(**configs[name]))
                if play:
                    particles.play_deals(info, bot.budget.play_deals, bot.budget.oversample)
            t0 = time.process_time()
            action = bot.act(view)
            cpu[name][kind] += time.process_time() - t0
            regret[name][kind].append(top - score[action])
    for name in names:
        parts = []
        for kind, xs in regret[name].items():
            d = [a - b for a, b in zip(xs, regret["v1"][kind], strict=True)]
            m = sum(d) / len(d)
            half = 1.96 * math.sqrt(sum((y - m) ** 2 for y in d) / (len(d) - 1) / len(d))
            parts.append(f"{kind}: n {len(xs)} regret {sum(xs) / len(xs):.3f}, vs v1 {m:+.3f} ± {half:.3f}, "
                         f"CPU {cpu[name][kind] / len(xs) * 1000:.1f} ms")
        print(f"{name:8s} " + "; ".join(parts), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
