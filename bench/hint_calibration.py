"""Are the hints' chances of making the estimate right? Brier score and a reliability table by decile.

    python bench/hint_calibration.py --games 12 --rate 0.5 --out docs/bots-results/hint-calibration
    python bench/hint_calibration.py --load OUT.json --fit src/estimation/hint_calibration.json
    python bench/hint_calibration.py --seed 45 ... --calibration src/estimation/hint_calibration.json

Four ``strong-fast`` bots play whole games of koutchina full, classic full and egyptian committee (seeds
``SEED * 1000 + i``). At a share ``--rate`` of the decisions where the seat to move knows its target (every
card it plays after the estimates, and the estimate itself), ``estimation.hint.hint`` (its default 64
deals, seeded by the decision's index) is asked for the view; the *prediction* is the hint's chance of
taking exactly the target in the row of the action the bot then takes (for an estimate: the number it
declares). The *outcome* is whether the seat made its estimate that round (the round's ``made``).

Printed and written to ``OUT.json`` / ``OUT.md`` (and ``OUT.png`` with matplotlib): the decisions, the Brier
score (mean of (p - made)^2) and that of a constant forecast (the base rate), and per decile of p: the
decisions, mean p, the observed share made, and the gap. With ``--fit FILE`` the script also fits the
recalibration map (:func:`estimation.hint.fit_calibration`: pooled-adjacent-violators, i.e. isotonic
regression, on the predictions of the first half of the games, by seed) and writes it to FILE; the
report then covers the second half only, raw and recalibrated.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from estimation.bots import make_bot
from estimation.game import Game
from estimation.hint import apply_calibration, fit_calibration, hint, load_calibration
from estimation.rulesets import get_ruleset

RULESETS = ("koutchina:full", "classic:full", "egyptian:committee")


def collect(spec: str, seed: int, rate: float, rng: random.Random) -> list[tuple[float, int]]:
    """(predicted chance of making, made) for the sampled decisions of one game."""
    name, length = spec.split(":")
    game = Game(get_ruleset(name), length, seed=seed)
    bots = [make_bot("strong-fast", seed * 4 + s) for s in range(4)]
    pending: list[tuple[int, int, float]] = []  # (round index, seat, p)
    index = 0
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        view = game.view(seat)
        text = bots[seat].act(view)
        phase = str(view["phase"])
        target = None
        if phase == "play":
            target = view["estimates"][seat] if "estimates" in view else None
        index += 1
        if (phase == "play" or phase == "estimate") and rng.random() < rate:
            h = hint(view, seed=index)
            row = next(r for r in h["actions"] if r["action"] == text)
            if phase == "estimate":
                target = int(text.split()[-1]) if text.split()[-1].isdigit() else None
            if target is not None:
                pending.append((len(game.round_results), seat, float(row["tricks"][int(target)])))
        game.apply(text)
    out = []
    for r, s, p in pending:
        out.append((p, int(bool(game.round_results[r].made[s]))))
    return out


def table(pairs: list[tuple[float, int]]) -> dict[str, Any]:
    n = len(pairs)
    base = sum(m for _, m in pairs) / n
    brier = sum((p - m) ** 2 for p, m in pairs) / n
    rows = []
    for d in range(10):
        lo, hi = d / 10, (d + 1) / 10
        xs = [(p, m) for p, m in pairs if lo <= p < hi or (d == 9 and p == 1.0)]
        if xs:
            mp = sum(p for p, _ in xs) / len(xs)
            obs = sum(m for _, m in xs) / len(xs)
            rows.append({"decile": f"{lo:.1f}-{hi:.1f}", "n": len(xs), "predicted": mp, "observed": obs,
                         "gap": obs - mp})
    worst = max((abs(r["gap"]) for r in rows if r["n"] >= 100), default=float("nan"))
    return {"decisions": n, "base_rate": base, "brier": brier,
            "brier_constant": sum((base - m) ** 2 for _, m in pairs) / n, "deciles": rows,
            "worst_gap_100": worst}


def markdown(title: str, t: dict[str, Any]) -> str:
    lines = [f"**{title}**: {t['decisions']} decisions, Brier {t['brier']:.4f} (constant forecast "
             f"{t['brier_constant']:.4f}), largest gap in a decile with >= 100 decisions "
             f"{t['worst_gap_100']:.3f}", "", "| predicted | decisions | mean predicted | observed | gap |",
             "|---|---|---|---|---|"]
    for r in t["deciles"]:
        lines.append(f"| {r['decile']} | {r['n']} | {r['predicted']:.3f} | {r['observed']:.3f} | "
                     f"{r['gap']:+.3f} |")
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
        xs = [r["predicted"] for r in t["deciles"]]
        ys = [r["observed"] for r in t["deciles"]]
        ax.plot(xs, ys, marker="o", label=f"{name} (Brier {t['brier']:.3f})")
    ax.set_xlabel("hint's chance of making the estimate (decile mean)")
    ax.set_ylabel("share of those decisions whose seat made it")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=8, help="games per ruleset")
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--out", default="hint-calibration")
    parser.add_argument("--fit", default=None, help="fit the recalibration on the first half; write it here")
    parser.add_argument("--calibration", default=None, help="also report through this recalibration map")
    parser.add_argument("--load", default=None, help="the predictions of an earlier run's OUT.json instead "
                                                      "of playing games")
    args = parser.parse_args()
    by_game: list[list[tuple[float, int]]] = []
    if args.load:
        by_game = [[(float(p), int(m)) for p, m in xs]
                   for xs in json.loads(Path(args.load).read_text(encoding="utf-8"))["pairs"]]
    for spec in RULESETS if not args.load else ():
        for g in range(args.games):
            seed = args.seed * 1000 + g
            by_game.append(collect(spec, seed, args.rate, random.Random(seed)))
            print(f"{spec} game {g}: {sum(len(x) for x in by_game)} decisions so far", flush=True)
    tables: dict[str, dict[str, Any]] = {}
    md = []
    if args.fit:
        fit_on = [x for i, xs in enumerate(by_game) if i % 2 == 0 for x in xs]
        test = [x for i, xs in enumerate(by_game) if i % 2 == 1 for x in xs]
        cal = fit_calibration(fit_on)
        Path(args.fit).write_text(json.dumps(cal, indent=1) + "\n", encoding="utf-8")
        tables["raw (held-out half)"] = table(test)
        tables["recalibrated (held-out half)"] = table([(apply_calibration(cal, p), m) for p, m in test])
    else:
        pairs = [x for xs in by_game for x in xs]
        tables["raw"] = table(pairs)
        if args.calibration:
            cal = load_calibration(Path(args.calibration))
            tables["recalibrated"] = table([(apply_calibration(cal, p), m) for p, m in pairs])
    for name, t in tables.items():
        md.append(markdown(name, t))
    text = "\n".join(md)
    print(text)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(text, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"args": vars(args), "tables": tables,
                                                    "pairs": by_game}), encoding="utf-8")
    if plot(tables, out.with_suffix(".png")):
        print(f"plot: {out.with_suffix('.png')}")


if __name__ == "__main__":
    main()
