"""What a newcomer hit in the terminal tools: the play prompt, trick 13, bot names, hint on a saved game in
progress, the Sa'aydeh in `estimation score`, the tournament without matplotlib and its JSON, the record
format's docs living in the repository, a replay of a file that is not there, and the round view's Over /
Under."""

from __future__ import annotations

import io
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import estimation
from estimation import Action, Game
from estimation.bots import Bot, HeuristicBot, RandomBot
from estimation.calculator import next_multiplier, score_typed_round
from estimation.cli import app, save_record, write_atomically
from estimation.play_terminal import TerminalGame, move_lines, number_span, over_under_line, resolve_move
from estimation.tournament import Config, run
from estimation.tournament.runner import Report, write_outputs

ROOT = Path(__file__).resolve().parent.parent


def _legal(game: Game) -> list[Action]:
    return list(game.legal_actions())


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=100, highlight=False, color_system=None), out


# --- 1. the estimate prompt is grouped --------------------------------------------------------------


def test_a_fixed_rounds_44_estimates_are_two_short_lines() -> None:
    game = estimation.new_game("koutchina", "micro", seed=7)
    legal = _legal(game)
    assert len(legal) == 44  # est 0..13 and five Super Calls on each of 8..13
    assert move_lines(legal) == ["est 0..13", "est 8..13: NT S H D C   (a Super Call, e.g. est 8 NT)"]


def test_calls_are_grouped_by_number_with_their_trumps() -> None:
    game = estimation.new_game("classic", seed=2)
    while game.view(game.to_move)["phase"] != "auction":
        game.apply(next(a for a in _legal(game) if a.text.endswith("nodash")))
    lines = move_lines(_legal(game))
    assert lines is not None and lines[0] == "pass"
    assert lines[1].startswith("call 4..13: C D H S NT")
    game.apply(f"{game.to_move} call 7S")
    lines = move_lines(_legal(game))
    assert lines is not None
    assert lines[1].startswith("call 7: NT · 8..13: C D H S NT")


def test_cards_and_plain_choices_stay_numbered() -> None:
    game = estimation.new_game("koutchina", "micro", seed=7)
    while game.view(game.to_move)["phase"] != "play":
        game.apply(HeuristicBot(1).act(game.view(game.to_move)))
    assert move_lines(_legal(game)) is None


@pytest.mark.parametrize(("numbers", "text"), [
    (range(14), "0..13"), ([0, 1, 2, 3, 4, 6, 7, 8], "0..8 (not 5)"), ([5], "5"),
    ([1, 2, 3, 9, 10, 12], "1..3, 9..10, 12"),
])
def test_number_span(numbers: list[int], text: str) -> None:
    assert number_span(list(numbers)) == text


def test_typed_moves_are_understood_in_their_short_forms() -> None:
    game = estimation.new_game("koutchina", "micro", seed=7)
    legal = _legal(game)
    assert resolve_move("3", legal, numbered=False) == "est 3"
    assert resolve_move("est 9 h", legal, numbered=False) == "est 9 H"
    assert resolve_move("9h", legal, numbered=False) == "est 9 H"
    assert resolve_move("8 nt", legal, numbered=False) == "est 8 NT"
    assert resolve_move("99", legal, numbered=False) is None  # no estimate: the typing help, not an error
    assert resolve_move("bogus", legal, numbered=False) is None
    classic = estimation.new_game("classic", seed=2)
    while classic.view(classic.to_move)["phase"] != "auction":
        classic.apply(next(a for a in _legal(classic) if a.text.endswith("nodash")))
    assert resolve_move("7s", _legal(classic), numbered=False) == "call 7S"
    assert resolve_move("call 10 nt", _legal(classic), numbered=False) == "call 10NT"
    assert resolve_move("PASS", _legal(classic), numbered=False) == "pass"
    assert resolve_move("3", _legal(classic), numbered=False) is None  # no estimate is legal in an auction


def _estimate_prompt(game: Game) -> str:
    """What `estimation play` prints for the human's first estimate (the human then quits)."""
    console, out = _console()
    bots: dict[int, Bot] = {s: RandomBot(s) for s in (1, 2, 3)}
    TerminalGame(game, 0, bots, console, ask=lambda _prompt: "quit").run()
    text = out.getvalue()
    return text[text.index("Your move"):text.index("Game abandoned")]


def test_the_estimate_prompt_is_short_and_readable() -> None:
    prompt = _estimate_prompt(estimation.new_game("koutchina", "micro", seed=7))
    lines = [line for line in prompt.splitlines() if line.strip()]
    assert len(lines) == 3, prompt
    assert "est 0..13" in prompt and "[44]" not in prompt and "est 8..13: NT S H D C" in prompt


def test_a_bare_number_is_an_estimate_at_the_table() -> None:
    game = estimation.new_game("koutchina", "micro", seed=7)
    answers = iter(["99", "2", "quit"])
    console, out = _console()
    TerminalGame(game, 0, {s: HeuristicBot(s) for s in (1, 2, 3)}, console,
                 ask=lambda _prompt: next(answers)).run()
    assert game.estimates[0] == 2
    assert "Type a move as shown" in out.getvalue()  # "99" got the help


# --- 2. trick 13 names its winner ---------------------------------------------------------------------


def test_every_trick_shows_its_winner_and_the_winners_add_up_to_the_tricks() -> None:
    game = estimation.new_game("koutchina", "micro", seed=11, players=["You", "Bot 2", "Bot 3", "Bot 4"])
    me = HeuristicBot(99)
    console, out = _console()
    TerminalGame(game, 0, {s: HeuristicBot(s) for s in (1, 2, 3)}, console,
                 ask=lambda _prompt: me.act(game.view(0)).split(" ", 1)[1]).run()
    assert game.is_over
    text = out.getvalue()
    per_round = re.split(r"Round \d+ scored", text)[:-1]
    assert len(per_round) == len(game.round_results) == 5
    for r, (chunk, result) in enumerate(zip(per_round, game.round_results, strict=True)):
        tricks = re.findall(r"^  trick (\d+): .*$", chunk, flags=re.M)
        assert tricks == [str(k) for k in range(1, 14)], f"round {r + 1}"
        winners = re.findall(r"^  trick \d+: .*→ (.+?)\s*$", chunk, flags=re.M)
        assert len(winners) == 13, f"round {r + 1}: a trick without its winner"
        count = Counter(winners)
        assert [count[n] for n in game.players] == list(result.tricks), f"round {r + 1}"


# --- 3. bots are named as the browser names them --------------------------------------------------


@pytest.mark.parametrize(("seat", "players"), [
    (0, ["You", "Bot 2", "Bot 3", "Bot 4"]),
    (2, ["Bot 1", "Bot 2", "You", "Bot 4"]),
])
def test_bots_are_named_by_seat_like_the_server(tmp_path: Path, seat: int, players: list[str]) -> None:
    path = tmp_path / "game.json"
    out = CliRunner().invoke(app, ["play", "--length", "micro", "--seed", "3", "--seat", str(seat),
                                   "--save", str(path)], input="quit\n")
    assert out.exit_code == 0, out.output
    # The server names the bot in seat s "Bot {s + 1}" (server/hub.py); the terminal now does too.
    assert json.loads(path.read_text())["players"] == players
    assert "Bot 1" not in out.output if seat == 0 else "Bot 3" not in out.output


# --- 4. --save keeps the record after every move, so hint works mid-game ------------------------------


def test_save_writes_the_record_after_every_action(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game = estimation.new_game("koutchina", "micro", seed=5)
    seen: list[int] = []

    def after(g: Game) -> None:
        save_record(g, path)
        record = json.loads(path.read_text())
        seen.append(sum(len(d["actions"]) for d in record["deals"]))

    me = HeuristicBot(4)
    console, _ = _console()
    TerminalGame(game, 0, {s: HeuristicBot(s) for s in (1, 2, 3)}, console,
                 ask=lambda _prompt: me.act(game.view(0)).split(" ", 1)[1], after_action=after).run()
    assert seen == list(range(len(seen)))  # before the first action, then one more action each time
    assert estimation.load_record(json.loads(path.read_text())).is_over
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left behind


def test_an_atomic_write_that_fails_keeps_the_old_file(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.json"
    path.write_text("old", encoding="utf-8")

    def broken(_src: str, _dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_atomically(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_the_readme_hint_example_works_on_a_game_in_progress(tmp_path: Path) -> None:
    """README: `estimation play ... --save game.json`, then `estimation hint game.json`, as real processes."""
    path = tmp_path / "game.json"
    play = subprocess.Popen([sys.executable, "-m", "estimation", "play", "--length", "micro", "--seed", "7",
                             "--bots", "heuristic", "--save", str(path)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while True:  # the human (seat 0) to move in the saved record: play waits at its prompt
            assert time.monotonic() < deadline, "play --save wrote no record of the game in progress"
            if path.exists() and estimation.load_record(json.loads(path.read_text())).to_move == 0:
                break
            time.sleep(0.05)
        hint = subprocess.run([sys.executable, "-m", "estimation", "hint", str(path), "--samples", "3"],
                              capture_output=True, text=True, timeout=120, check=False)
        assert hint.returncode == 0, hint.stderr
        assert hint.stdout.startswith("Seat 0 · estimate")
        assert "rates best" in hint.stdout
    finally:
        stdout, stderr = play.communicate("quit\n", timeout=60)
    assert play.returncode == 0, stderr
    assert "Game abandoned" in stdout


# --- 5. estimation score names a Sa'aydeh and the next multiplier ----------------------------------------

SAAYDEH = ["score", "--fixed", "--estimates", "1:2,2:5,3:0,0:4", "--tricks", "3,7,1,2"]


@pytest.mark.parametrize(("multiplier", "following"), [(1, 2), (2, 4), (4, 4)])
def test_score_names_the_saaydeh_and_the_next_multiplier(multiplier: int, following: int) -> None:
    out = CliRunner().invoke(app, [*SAAYDEH, "--multiplier", str(multiplier)])
    assert out.exit_code == 0, out.output
    assert "Sa'aydeh" in out.output
    assert f"the next round counts x{following}" in " ".join(out.output.split())


def test_score_of_a_round_someone_made_says_nothing_of_a_saaydeh() -> None:
    out = CliRunner().invoke(app, ["score", "--fixed", "--estimates", "1:3,2:7,3:0,0:4",
                                   "--tricks", "4,3,6,0", "--multiplier", "2"])
    assert out.exit_code == 0, out.output
    assert "Sa'aydeh" not in out.output and "+28" in out.output  # seat 0 made 4, scored at x2


def test_the_calculators_next_multiplier_is_the_engines() -> None:
    """Random games have plenty of Sa'aydehs: after each round the engine's multiplier is the calculator's."""
    checked = Counter[bool]()
    for seed in range(6):
        game = estimation.new_game("koutchina", "mini", seed=seed)
        bot = RandomBot(seed)
        done = 0
        while not game.is_over:
            game.apply(bot.act(game.view(game.to_move)))
            if len(game.round_results) > done and not game.is_over:
                result = game.round_results[-1]
                done = len(game.round_results)
                assert game.multiplier == next_multiplier("koutchina", result.multiplier, result.breakdown)
                checked[result.saaydeh] += 1
    assert checked[True] >= 3 and checked[False] >= 3
    scores = score_typed_round(kind="fixed", estimates=[(1, 2), (2, 5), (3, 0), (0, 4)], tricks=[3, 7, 1, 2])
    assert next_multiplier("egyptian", 1, scores) == 1  # egyptian has no Sa'aydeh


# --- 6. the tournament without matplotlib ------------------------------------------------------------


def test_tournament_without_matplotlib_keeps_the_results(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    out = CliRunner().invoke(app, ["tournament", "--candidates", "heuristic", "--opponent", "random",
                                   "--length", "micro", "--games", "1", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert out.exception is None
    text = " ".join(out.output.split())
    assert "diff vs random" in text
    assert "the plot needs matplotlib" in text and "pip install -e '.[tournament]'" in text
    assert json.loads((tmp_path / "results.json").read_text())["rounds"] == 5
    assert len(list((tmp_path / "records").glob("*.json"))) == 5
    assert not (tmp_path / "scores.png").exists()


# --- 7. results.json is JSON --------------------------------------------------------------------------


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_results_json_has_no_nan(tmp_path: Path) -> None:
    report = run(Config(candidates=["heuristic"], opponent="random", length="micro", games=1, seed=2,
                        out=tmp_path))
    assert math.isnan(report.baseline.diff.mean)  # the statistics do use NaN for "no value"
    results = _strict((tmp_path / "results.json").read_text())
    assert results["baseline"]["diff"]["mean"] is None
    assert results["baseline"]["p50"] is None  # the baseline's seats made no timed decision
    assert results["levels"][0]["diff"]["n"] == 5


def test_the_results_writer_refuses_nan_outright(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A NaN that ever slipped past to_dict would fail loudly rather than write `NaN` into results.json."""
    report = run(Config(candidates=["heuristic"], opponent="random", length="micro", games=1, seed=2))
    monkeypatch.setattr(Report, "to_dict", lambda self: {"slipped": float("nan")})
    with pytest.raises(ValueError, match="JSON compliant"):
        write_outputs(report, tmp_path)


# --- 8. the record format is documented in the repository --------------------------------------------


def _links(path: Path) -> list[str]:
    return re.findall(r"\]\(([^)#\s]+)", path.read_text(encoding="utf-8"))


def test_record_format_links_stay_inside_the_repository() -> None:
    record_doc = ROOT / "docs" / "record.md"
    assert record_doc.read_text(encoding="utf-8").startswith("# The game record: `estimation-record/1`")
    found = 0
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for link in _links(doc):
            if "record.md" in link.lower():
                target = (doc.parent / link).resolve()
                assert target == record_doc, f"{doc.name} links {link}, outside the repository"
                found += 1
    assert found >= 2  # README's table and docs/rules.md


# --- 7. a file that is not there is said plainly ----------------------------------------------------------


def test_replay_of_a_missing_file_says_so_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "no-such-game.json"
    out = CliRunner().invoke(app, ["replay", str(path)])
    assert out.exit_code == 1
    assert out.stdout == ""
    assert out.stderr == f"error: there is no file {path}\n"  # not a record's fault: no "deal 0, action 0"
    folder = CliRunner().invoke(app, ["replay", str(tmp_path), "--json"])
    assert folder.exit_code == 1 and folder.stdout == ""
    assert folder.stderr == f"error: {tmp_path} is a folder, not a record file\n"


def test_a_file_that_is_no_record_is_still_the_records_fault(tmp_path: Path) -> None:
    """RECORD.md: a record that is not well formed (bad JSON) is `deal 0, action 0` on one line, exit 1."""
    path = tmp_path / "broken.json"
    path.write_text("{not json", encoding="utf-8")
    out = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert out.exit_code == 1 and out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith('deal 0, action 0 (""): not valid JSON')


def test_hint_on_a_missing_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "gone.json"
    out = CliRunner().invoke(app, ["hint", str(path)])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr == f"error: there is no file {path}\n"


# --- 8. the round view says Over or Under, and by how many ---------------------------------------------


@pytest.mark.parametrize(("ruleset", "length", "seed"), [
    ("koutchina", "micro", 11), ("egyptian", "committee", 4), ("classic", None, 9),
])
def test_the_round_view_says_over_or_under_by_how_many(ruleset: str, length: str | None, seed: int) -> None:
    """At each of the human's turns in the play the view shows the estimates' total and how far it is Over or
    Under 13; before the estimates are all in it shows none. The totals are the game's own estimates."""
    game = estimation.new_game(ruleset, length, seed=seed, players=["You", "Bot 2", "Bot 3", "Bot 4"])
    me = HeuristicBot(7)
    expected: list[tuple[str, str, str]] = []
    turns = 0

    def ask(_prompt: str) -> str:
        nonlocal turns
        turns += 1
        if game.phase is estimation.Phase.PLAY:
            total = sum(e for e in game.estimates if e is not None)
            assert total != 13
            expected.append((str(total), "Over" if total > 13 else "Under", str(abs(total - 13))))
        if turns > 60:  # a few rounds are enough
            return "quit"
        return me.act(game.view(0)).split(" ", 1)[1]

    console, out = _console()
    TerminalGame(game, 0, {s: HeuristicBot(s) for s in (1, 2, 3)}, console, ask=ask).run()
    shown = re.findall(r"^Estimates total (\d+) · (Over|Under) by (\d+)$", out.getvalue(), flags=re.M)
    assert len(expected) > 10 and len(expected) < turns  # the play's turns, not the declarations'
    assert shown == expected


def test_over_under_line_reads_the_view() -> None:
    game = estimation.new_game("koutchina", "micro", seed=3)
    assert over_under_line(game.view(None)) is None  # the Dash Call offer: no estimate yet
    while game.phase is not estimation.Phase.PLAY:
        game.apply(HeuristicBot(1).act(game.view(game.to_move)))
    total = sum(e for e in game.estimates if e is not None)
    word = "Over" if total > 13 else "Under"
    assert over_under_line(game.view(None)) == f"Estimates total {total} · {word} by {abs(total - 13)}"
