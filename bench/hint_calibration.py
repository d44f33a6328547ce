"""Are the hints' chances of making the estimate right? Brier score and a reliability table by decile.

    nice -n 10 python bench/hint_calibration.py --games 6 --seed 44 --out results/hint/fit44
    nice -n 10 python bench/hint_calibration.py --games 6 --seed 45 --out results/hint/heldout45
    python bench/hint_calibration.py --load results/hint/fit44.json \
        --fit src/estimation/hint_calibration.json --out results/hint/fit
    python bench/hint_calibration.py --load results/hint/heldout45.json \
        --calibration src/estimation/hint_calibration.json --one-map-from results/hint/fit44.json \
        --out docs/bots-results/hint-calibration

Four ``strong-fast`` bots play whole games of koutchina full, classic full and egyptian committee (seeds
``SEED * 1000 + i``, a game of each ruleset in turn). At a share ``--rate`` of the decisions where the seat
to move knows its target (every card it plays after the estimates, and the estimate itself), the hint for
the view (its default 64 deals, seeded by the decision's index) is computed for the action the bot then
takes (``hint(view, only=action)``: the full hint's row at a fraction of the work); the *prediction* is
that row's raw chance of taking exactly the target (for an estimate: the number declared). The *outcome*
is whether the seat made its estimate that round. Every decision is kept in ``OUT.json`` (``games``:
ruleset, seed and ``[p, made, phase, cards left, round, seat]`` rows, rewritten after every game), so a
fit or a report can be redone from it with ``--load``.

Printed and written to ``OUT.md`` (and ``OUT.png`` with matplotlib): the decisions, the Brier score (mean
of (p - made)^2), that of a constant forecast (the base rate), and per decile of p: the decisions, mean
p, the observed share made with its 95% interval, and the gap. The interval is clustered by the seat's
round (every decision of a seat in a round shares one outcome, so the decisions are not independent).
``--fit FILE`` fits the recalibration (:func:`estimation.hint.fit_calibrations`: an isotonic map per
group of decisions) on all the decisions and writes it to FILE (the report is then in-sample);
``--calibration FILE`` reports the decisions raw and through the maps in FILE (held out: from other
seeds than the fit's); ``--one-map-from FIT.json`` adds the report through a single map for all
decisions (:func:`estimation.hint.fit_calibration`, as before the groups) fitted on FIT.json.
``--seeds`` keeps only some games of ``--load``: a fit on some games of a run, a report on the others.
``--cross-fit`` reports every decision through maps fitted on the games of the other seeds (a game of
each ruleset a seed), so all the decisions are held out from the map that judges them: the measurement
when one run must serve for both the fit and the report.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
from pathlib import Path
from typing import Any

from estimation.bots import make_bot
from estimation.game import Game
from estimation.hint import (
    GROUPS,
    apply_calibration,
    calibration_group,
    fit_calibration,
    fit_calibrations,
    hint,
    load_calibration,
    recalibrate,
)
from estimation.rulesets import get_ruleset

RULESETS = ("koutchina:full", "classic:full", "egyptian:committee")


def collect(spec: str, seed: int, rate: float, rng: random.Random) -> list[list[Any]]:
    """``[p, made, phase, tricks left, round, seat]`` for the sampled decisions of one game.

    ``p`` is the raw chance (the hint's ``tricks[target]`` in the row of the action taken), computed by
    ``hint(view, only=action)``: the same row as the full hint at a fraction of the work. ``phase`` and
    ``tricks left`` (cards in the seat's hand) are what the recalibration may depend on; ``round`` and
    ``seat`` identify the outcome shared by a seat's decisions of a round (the intervals' clusters).
    """
    name, length = spec.split(":")
    game = Game(get_ruleset(name), length, seed=seed)
    bots = [make_bot("strong-fast", seed * 4 + s) for s in range(4)]
    pending: list[list[Any]] = []
    index = 0
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        text = bots[seat].act(view)
        phase = str(view["phase"])
        index += 1
        if phase in ("play", "estimate") and rng.random() < rate:
            target = view["estimates"][seat] if phase == "play" else (
                int(text.split()[-1]) if text.split()[-1].isdigit() else None)
            if target is not None:
                row = hint(view, seed=index, only=text)["actions"][0]
                pending.append([float(row["tricks"][int(target)]), 0, phase, len(view["hand"]),
                                len(game.round_results), seat])
        game.apply(text)
    for d in pending:
        d[1] = int(bool(game.round_results[d[4]].made[d[5]]))
    return pending


def table(rows: list[tuple[float, int, tuple[int, int, int]]]) -> dict[str, Any]:
    """Brier scores and the reliability by decile of ``(p, made, cluster)`` rows (cluster: the seat's
    round, whose decisions share an outcome); the intervals are 1.96 cluster-robust standard errors."""
    n = len(rows)
    base = sum(m for _, m, _ in rows) / n
    deciles = []
    for d in range(10):
        xs = [r for r in rows if min(9, int(r[0] * 10)) == d]
        if not xs:
            continue
        mp = sum(p for p, _, _ in xs) / len(xs)
        obs = sum(m for _, m, _ in xs) / len(xs)
        residual: dict[tuple[int, int, int], float] = {}
        for _, m, c in xs:
            residual[c] = residual.get(c, 0.0) + m - obs
        g = len(residual)
        se = math.sqrt(g / (g - 1) * sum(r * r for r in residual.values())) / len(xs) if g > 1 else 0.0
        deciles.append({"decile": f"{d / 10:.1f}-{(d + 1) / 10:.1f}", "n": len(xs), "clusters": g,
                        "predicted": mp, "observed": obs, "low": obs - 1.96 * se, "high": obs + 1.96 * se,
                        "gap": obs - mp})
    worst = max((abs(r["gap"]) for r in deciles if r["n"] >= 100), default=float("nan"))
    return {"decisions": n, "base_rate": base, "brier": sum((p - m) ** 2 for p, m, _ in rows) / n,
            "brier_constant": sum((base - m) ** 2 for _, m, _ in rows) / n, "deciles": deciles,
            "worst_gap_100": worst}


def markdown(title: str, t: dict[str, Any]) -> str:
    lines = [f"**{title}**: {t['decisions']} decisions, Brier {t['brier']:.4f} (constant forecast "
             f"{t['brier_constant']:.4f}), largest gap in a decile with >= 100 decisions "
             f"{t['worst_gap_100']:.3f}", "",
             "| predicted | decisions (seat-rounds) | mean predicted | observed [95% interval] | gap |",
             "|---|---|---|---|---|"]
    for r in t["deciles"]:
        lines.append(f"| {r['decile']} | {r['n']} ({r['clusters']}) | {r['predicted']:.3f} | "
                     f"{r['observed']:.3f} [{r['low']:.3f}, {r['high']:.3f}] | {r['gap']:+.3f} |")
    return "\n".join(lines) + "\n"


def plot(tables: dict[str, dict[str, Any]], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect")
    for name, t in tables.items():
        ds = t["deciles"]
        err = [[r["observed"] - r["low"] for r in ds], [r["high"] - r["observed"] for r in ds]]
        ax.errorbar([r["predicted"] for r in ds], [r["observed"] for r in ds], yerr=err, marker="o",
                    capsize=2, label=f"{name} (Brier {t['brier']:.3f})")
    ax.set_xlabel("hint's chance of making the estimate (decile mean)")
    ax.set_ylabel("share of those decisions whose seat made it (95%)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def read_games(path: str) -> list[dict[str, Any]]:
    """The games (and their decisions) of a run's OUT.json, or of its gzipped copy (docs/bots-results)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        games: list[dict[str, Any]] = json.load(f)["games"]
    return games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games per ruleset")
    parser.add_argument("--first-game", type=int, default=0,
                        help="start at this game (seed SEED * 1000 + it): more games for an earlier run")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--rate", type=float, default=1.0)
    parser.add_argument("--out", default="hint-calibration")
    parser.add_argument("--fit", default=None, help="fit the recalibration on these decisions; write it here")
    parser.add_argument("--calibration", default=None, help="also report through this recalibration")
    parser.add_argument("--one-map-from", default=None, help="also report through one map for all decisions "
                        "fitted on the decisions of this OUT.json (against the maps per group)")
    parser.add_argument("--load", nargs="+", default=None,
                        help="the decisions of earlier runs' OUT.json files instead of playing games")
    parser.add_argument("--cross-fit", action="store_true", help="also report every game through the maps "
                        "(per group, and one for all) fitted on the games of the other seeds")
    parser.add_argument("--seeds", default=None, help="with --load: only the games of these seeds "
                        "(comma-separated), e.g. to fit on some games of a run and report the others")
    args = parser.parse_args()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    games: list[dict[str, Any]] = []
    if args.load:
        for path in args.load:
            loaded = read_games(path)
            games += [x for x in loaded if not args.seeds or str(x["seed"]) in args.seeds.split(",")]
    for g in range(args.first_game, args.first_game if args.load else args.games):
        for spec in RULESETS:  # a game of each in turn: a run cut short still covers every ruleset
            seed = args.seed * 1000 + g
            games.append({"ruleset": spec, "seed": seed,
                          "decisions": collect(spec, seed, args.rate, random.Random(seed))})
            print(f"{spec} game {g}: {sum(len(x['decisions']) for x in games)} decisions so far", flush=True)
            out.with_suffix(".json").write_text(json.dumps({"args": vars(args), "games": games}),
                                                encoding="utf-8")
    rows = [(float(d[0]), int(d[1]), str(d[2]), int(d[3]), (k, int(d[4]), int(d[5])))
            for k, x in enumerate(games) for d in x["decisions"]]
    cal = None
    if args.fit:
        cal = fit_calibrations([(p, m, phase, left) for p, m, phase, left, _ in rows])
        Path(args.fit).write_text(json.dumps(cal, indent=1) + "\n", encoding="utf-8")
    elif args.calibration:
        cal = load_calibration(Path(args.calibration))
    tables = {"raw": table([(p, m, c) for p, m, _, _, c in rows])}
    label = "a map per group (in-sample)" if args.fit else "a map per group"
    if cal is not None:
        tables[label] = table(
            [(recalibrate(cal, p, phase, left), m, c) for p, m, phase, left, c in rows])
    if args.one_map_from:
        fit_on = read_games(args.one_map_from)
        one = fit_calibration([(float(d[0]), int(d[1])) for x in fit_on for d in x["decisions"]])
        tables["one map for all decisions"] = table(
            [(apply_calibration(one, p), m, c) for p, m, _, _, c in rows])
    if args.cross_fit:  # every game through maps fitted on the other seeds' games: all of them held out
        grouped: list[tuple[float, int, tuple[int, int, int]]] = []
        single: list[tuple[float, int, tuple[int, int, int]]] = []
        for seed in sorted({x["seed"] for x in games}):
            fit_on = [r for r in rows if games[r[4][0]]["seed"] != seed]
            held = [r for r in rows if games[r[4][0]]["seed"] == seed]
            fold = fit_calibrations([(p, m, phase, left) for p, m, phase, left, _ in fit_on])
            one = fit_calibration([(p, m) for p, m, _, _, _ in fit_on])
            grouped += [(recalibrate(fold, p, phase, left), m, c) for p, m, phase, left, c in held]
            single += [(apply_calibration(one, p), m, c) for p, m, _, _, c in held]
        tables["a map per group (cross-fitted)"] = table(grouped)
        tables["one map for all decisions (cross-fitted)"] = table(single)
    groups: dict[str, dict[str, Any]] = {}
    for group in GROUPS:  # group by group, raw and through its map: what a map per group corrects
        xs = [r for r in rows if calibration_group(r[2], r[3]) == group]
        if xs:
            groups[f"raw, {group}"] = table([(p, m, c) for p, m, _, _, c in xs])
            if cal is not None:
                groups[f"{label}, {group}"] = table(
                    [(recalibrate(cal, p, phase, left), m, c) for p, m, phase, left, c in xs])
    text = "\n".join(markdown(name, t) for name, t in {**tables, **groups}.items())
    print(text)
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    kept = {} if args.load else {"games": games}  # a loaded run's decisions stay in its own file
    out.with_suffix(".json").write_text(json.dumps({"args": vars(args), "tables": tables, "groups": groups,
                                                    **kept}), encoding="utf-8")
    if plot({k: t for k, t in tables.items() if "in-sample" not in k}, out.with_suffix(".png")):
        print(f"plot: {out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
