"""Play chosen games of a duplicate tournament run (the tournament's own ``play_job``), into its records.

    python bench/tournament_games.py RULESET LENGTH LEVEL FIRST END RECORDS [--seed 2424]

Plays games FIRST..END-1 of the run with ``--seed SEED`` and ``--opponent heuristic``: LEVEL in each of
the four seats against three heuristic bots, the records written to RECORDS under the tournament's names
(``gameNNNN_LEVEL@seatS.json``), so ``bench/bot_duplicate.py`` pairs them with the run's own. Several
processes on different game ranges use more of a machine than one ``--workers 1`` run (issue 24's runs);
no baseline line-up is played.
"""

from __future__ import annotations

import argparse

from estimation.tournament.lineup import Job, play_job


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("ruleset", "length", "level"):
        parser.add_argument(name)
    parser.add_argument("first", type=int)
    parser.add_argument("end", type=int)
    parser.add_argument("records")
    parser.add_argument("--seed", type=int, default=2424)
    args = parser.parse_args()
    for index in range(args.first, args.end):
        for seat in range(4):
            play_job(Job(args.ruleset, args.length, args.seed, index, "heuristic", args.level, seat,
                         args.records))
            print(index, seat, flush=True)


if __name__ == "__main__":
    main()
