"""A small tournament smoke run (records, results, PNG) and the hint API and command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import estimation
from estimation.cli import app
from estimation.hint import hint
from estimation.tournament import Config, run
from estimation.tournament.combine import compare


def test_tournament_smoke_run_writes_records_and_a_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    config = Config(candidates=["strong@2", "heuristic"], opponent="random", ruleset="koutchina",
                    length="micro", games=2, seed=3, out=tmp_path)
    report = run(config)
    records = sorted((tmp_path / "records").glob("*.json"))
    assert len(records) == 2 * (1 + 2 * 4)  # per game: the baseline and every candidate in every seat
    for path in records[:3]:
        game = estimation.load_record(json.loads(path.read_text()))
        assert game.is_over
    assert (tmp_path / "scores.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["rounds"] == 10
    assert [lv["level"] for lv in results["levels"]] == ["strong@2", "heuristic"]
    assert report.levels[0].diff.n == 10  # one paired difference per round of deals
    assert report.pairs[0][2].n == 10
    assert report.levels[0].decisions > 0 and report.levels[0].p95 >= report.levels[0].p50
    # Pairing two levels from the records (as across two runs with one seed) is the harness's own pair.
    records_dir = tmp_path / "records"
    again = compare(records_dir, "strong@2", records_dir, "heuristic")
    pair = report.pairs[0][2]
    assert (again.n, again.mean, again.low) == (pair.n, pytest.approx(pair.mean), pytest.approx(pair.low))


def test_same_seeds_same_tournament(tmp_path: Path) -> None:
    config = Config(candidates=["strong@2"], opponent="heuristic", length="micro", games=1, seed=4)
    a = run(config)
    b = run(config)
    assert a.levels[0].scores == b.levels[0].scores


def test_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown tournament level"):
        run(Config(candidates=["grandmaster"]))


def _view_to_move(seed: int, actions: int) -> dict[str, object]:
    game = estimation.new_game("koutchina", "mini", seed=seed)
    bot = estimation.bots.HeuristicBot()
    for _ in range(actions):
        game.apply(bot.act(game.view(game.to_move)))
    return game.view(game.to_move)


@pytest.mark.parametrize("actions", [0, 6, 30])
def test_hint_covers_every_legal_action(actions: int) -> None:
    view = _view_to_move(2, actions)
    result = hint(view, samples=4, seed=1)
    assert [row["action"] for row in result["actions"]] == view["legal"]
    assert result["best"] in view["legal"]
    for row in result["actions"]:
        assert len(row["tricks"]) == 14
        assert abs(sum(row["tricks"]) - 1) < 0.01 or result["phase"] != "play"


def test_hint_is_deterministic() -> None:
    view = _view_to_move(5, 20)
    assert hint(view, samples=4, seed=9) == hint(view, samples=4, seed=9)


def test_hint_command() -> None:
    out = CliRunner().invoke(app, ["hint", "--seed", "3", "--advance", "25", "--samples", "3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["actions"]
    table = CliRunner().invoke(app, ["hint", "--seed", "3", "--samples", "3"])
    assert table.exit_code == 0 and "rates best" in table.output


def test_tournament_command(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = CliRunner().invoke(app, ["tournament", "--candidates", "heuristic", "--opponent", "random",
                                   "--length", "micro", "--games", "1", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "diff vs random" in out.output
    assert (tmp_path / "scores.png").exists()
