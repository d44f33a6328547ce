"""Paired differences across two tournament runs, from their records.

The bots are deterministic given their seed and the deals depend only on the tournament's seed, so a
level measured in one run and another level measured in a second run with the same ``--seed`` sat in the
same seats on the same deals: their records pair exactly as if they had been candidates of one run. This
lets a costly comparison be split into runs (or a new candidate be compared with a kept run) without
replaying the unchanged level.

    python -m estimation.tournament.combine RUN_A/records LEVEL_A RUN_B/records LEVEL_B
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from ..record import load_record
from .stats import Interval, paired

_NAME = re.compile(r"game(\d+)_(.+)@seat(\d)\.json")


def record_scores(folder: Path, level: str) -> dict[tuple[int, int, int], int]:
    """(game index, round index, seat) -> the score of ``level`` in that seat, from a run's records."""
    out: dict[tuple[int, int, int], int] = {}
    for path in sorted(folder.glob(f"game*_{level}@seat*.json")):
        found = _NAME.fullmatch(path.name)
        if found is None or found.group(2) != level:
            continue
        index, seat = int(found.group(1)), int(found.group(3))
        game = load_record(json.loads(path.read_text(encoding="utf-8")))
        for i, result in enumerate(game.round_results):
            out[(index, i, seat)] = result.scores[seat]
    return out


def compare(folder_a: Path, level_a: str, folder_b: Path, level_b: str) -> Interval:
    """``level_a - level_b`` in the same seats on the same deals, with the harness's own rule."""
    return paired(record_scores(folder_a, level_a), record_scores(folder_b, level_b))


def main(argv: list[str]) -> None:
    if len(argv) != 4:
        raise SystemExit(__doc__)
    folder_a, level_a, folder_b, level_b = argv
    interval = compare(Path(folder_a), level_a, Path(folder_b), level_b)
    print(f"{level_a} - {level_b}, same seats and deals: {interval} per round (n={interval.n})")


if __name__ == "__main__":
    main(sys.argv[1:])
