"""Pool the duplicate comparison of two levels over several rulesets, from tournament records.

    python bench/bot_duplicate.py A_KOUTCHINA/records strong B_KOUTCHINA/records strong-v1 \\
        A_CLASSIC/records strong B_CLASSIC/records strong-v1 ...

Arguments come in fours (records folder and level of A, records folder and level of B), one four per
ruleset; each four is two ``estimation tournament`` runs with the same ``--seed``, ``--ruleset`` and
``--length`` (or one run with both levels as candidates). The pairing is the tournament's own
(:func:`estimation.tournament.stats.paired`): per round of deals, A in seat s minus B in seat s, averaged
over the seats both sat in; only games both runs have finished count (a run stopped early still pairs).
Prints each ruleset's difference and the pooled one over every round, each with its normal 95% interval.
LEVEL ``baseline`` for B means the run's baseline line-up (four copies of its opponent): A against the
opponent in the same seats, as the tournament's "diff vs opponent".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from estimation.record import load_record
from estimation.tournament.combine import record_scores
from estimation.tournament.stats import Interval


def baseline_scores(folder: Path) -> dict[tuple[int, int, int], int]:
    """(game, round, seat) -> score of the opponent level in the baseline line-up (four of it)."""
    out: dict[tuple[int, int, int], int] = {}
    for path in sorted(folder.glob("game*_baseline.json")):
        index = int(path.name[4:8])
        game = load_record(json.loads(path.read_text(encoding="utf-8")))
        for i, result in enumerate(game.round_results):
            for seat in range(4):
                out[(index, i, seat)] = result.scores[seat]
    return out


def per_round(folder_a: Path, level_a: str, folder_b: Path, level_b: str) -> list[float]:
    a = record_scores(folder_a, level_a)
    b = baseline_scores(folder_b) if level_b == "baseline" else record_scores(folder_b, level_b)
    rounds: dict[tuple[int, int], list[int]] = {}
    for key, value in a.items():
        if key in b:
            rounds.setdefault(key[:2], []).append(value - b[key])
    # A round counts only when both levels sat in all four seats (the games both runs finished).
    return [sum(v) / len(v) for v in rounds.values() if len(v) == 4]


def main(argv: list[str]) -> None:
    if not argv or len(argv) % 4:
        raise SystemExit(__doc__)
    pooled: list[float] = []
    for i in range(0, len(argv), 4):
        fa, la, fb, lb = argv[i:i + 4]
        diffs = per_round(Path(fa), la, Path(fb), lb)
        pooled.extend(diffs)
        print(f"{fa}: {la} - {lb}: {Interval.of(diffs)} per round (n={len(diffs)} rounds)")
    total = Interval.of(pooled)
    print(f"pooled: {total} per round (n={len(pooled)} rounds)")


if __name__ == "__main__":
    main(sys.argv[1:])
