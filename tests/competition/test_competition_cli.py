"""`estimation competition simulate` and `score`: they agree on every kind and ruleset, the same seed
writes the same bytes, a tampered file exits 1 naming the board and entrant, and bad input is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from estimation.cli import app

CASES = [
    ("swiss", "koutchina", "micro"), ("robot", "koutchina", "micro"),
    ("swiss", "egyptian", "committee"), ("robot", "egyptian", "committee"),
    ("swiss", "classic", "full"), ("robot", "classic", "full"),
]


def _simulate(out: Path, kind: str, ruleset: str, length: str, seed: int = 5, entrants: int = 9) -> Result:
    size = ["--stages", "2"] if kind == "swiss" else ["--instances", "2"]
    return CliRunner().invoke(app, ["competition", "simulate", "--kind", kind, "--entrants", str(entrants),
                                    *size, "--ruleset", ruleset, "--length", length, "--level", "random",
                                    "--seed", str(seed), "--out", str(out)])


def _score(path: Path, *extra: str) -> Result:
    return CliRunner().invoke(app, ["competition", "score", str(path), *extra])


@pytest.fixture(scope="module")
def swiss_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("comp") / "swiss.json"
    result = _simulate(out, "swiss", "koutchina", "micro", entrants=16)
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize(("kind", "ruleset", "length"), CASES)
def test_score_agrees_with_simulate(tmp_path: Path, kind: str, ruleset: str, length: str) -> None:
    out = tmp_path / "c.json"
    made = _simulate(out, kind, ruleset, length)
    assert made.exit_code == 0, made.output
    doc = json.loads(out.read_text())
    assert doc["format"] == "estimation-competition/1" and doc["kind"] == kind
    assert doc["instances"] == (2 if kind == "robot" else 1)
    if kind == "robot":
        assert [t["instance"] for t in doc["stages"][0]["tables"]] == [1, 2] * 4 + [1]
        assert all(t["seats"][1:] == [None, None, None] for t in doc["stages"][0]["tables"])
    else:
        assert len(doc["stages"]) == 2
        assert [sum(s is None for s in t["seats"]) for t in doc["stages"][0]["tables"]] == [1, 1, 1]
    scored = _score(out)
    assert scored.exit_code == 0, scored.output
    assert "Standings" in scored.stdout and "traveller" in scored.stdout
    assert f"follows from the {sum(len(s['tables']) for s in doc['stages'])} tables' records" in scored.stdout


def test_the_same_seed_writes_the_same_bytes(tmp_path: Path) -> None:
    for kind in ("swiss", "robot"):
        a, b, c = tmp_path / f"{kind}a.json", tmp_path / f"{kind}b.json", tmp_path / f"{kind}c.json"
        assert _simulate(a, kind, "koutchina", "micro", seed=3).exit_code == 0
        assert _simulate(b, kind, "koutchina", "micro", seed=3).exit_code == 0
        assert _simulate(c, kind, "koutchina", "micro", seed=4).exit_code == 0
        assert a.read_bytes() == b.read_bytes()
        assert a.read_bytes() != c.read_bytes()


def test_the_export_has_exactly_the_keys_of_record_md(swiss_file: Path) -> None:
    doc = json.loads(swiss_file.read_text())
    assert set(doc) == {"format", "name", "kind", "ruleset", "length", "bot_level", "instances", "entrants",
                        "stages", "standings", "boards"}
    table = doc["stages"][0]["tables"][0]
    assert set(table) == {"table", "instance", "seats", "record"}
    assert set(doc["standings"][0]) == {"entrant", "mp", "top", "percent", "place"}
    assert set(doc["entrants"][0]) == {"id", "name"}


def _tampered(src: Path, dst: Path, change: Any) -> Path:
    doc = json.loads(src.read_text())
    change(doc)
    dst.write_text(json.dumps(doc))
    return dst


def _one_error_line(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


def test_a_changed_board_mp_is_named_by_board_and_entrant(swiss_file: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> None:
        line = doc["boards"][7]["tables"][2]  # stage 2, round 3, the third table of the stage
        line["mp"][1] += 1
    doc = json.loads(swiss_file.read_text())
    board = doc["boards"][7]
    table = board["tables"][2]["table"]
    entrant = next(t["seats"][1] for s in doc["stages"] for t in s["tables"] if t["table"] == table)
    line = _one_error_line(_score(_tampered(swiss_file, tmp_path / "t.json", change)))
    where = f"stage {board['stage']}, round {board['round']}: table {table} seat 1 (entrant {entrant})"
    assert f"{where}: mp " in line
    assert "from the records" in line


def test_a_changed_standings_mp_is_named_by_entrant(swiss_file: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["standings"][4]["mp"] -= 2
    entrant = json.loads(swiss_file.read_text())["standings"][4]["entrant"]
    line = _one_error_line(_score(_tampered(swiss_file, tmp_path / "t.json", change)))
    assert line.startswith(f"error: {tmp_path / 't.json'}: standings: entrant {entrant}: mp ")


def test_a_changed_round_score_is_named_by_board_and_entrant(swiss_file: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["boards"][0]["tables"][0]["scores"][2] = 999
    doc = json.loads(swiss_file.read_text())
    entrant = doc["stages"][0]["tables"][0]["seats"][2]
    line = _one_error_line(_score(_tampered(swiss_file, tmp_path / "t.json", change)))
    assert f"stage 1, round 1: table 1 seat 2 (entrant {entrant}): score 999 in the file" in line


def test_tables_dealt_other_cards_are_caught(swiss_file: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> None:
        record = doc["stages"][0]["tables"][1]["record"]
        first = record["deals"][0]
        first["hands"][0], first["hands"][1] = first["hands"][1], first["hands"][0]
        first["actions"] = []
        record["deals"] = [first]  # a table still playing its first deal, on other cards
    line = _one_error_line(_score(_tampered(swiss_file, tmp_path / "t.json", change)))
    assert "stage 1, round 1: table 2: deal 1 of the round is not the one table 1 was dealt" in line


def test_a_record_that_does_not_replay_names_its_deal_and_action(swiss_file: Path, tmp_path: Path) -> None:
    def change(doc: dict[str, Any]) -> None:
        actions = doc["stages"][1]["tables"][0]["record"]["deals"][0]["actions"]
        actions[4] = "0 play ZZ"
    doc = json.loads(swiss_file.read_text())
    table = doc["stages"][1]["tables"][0]["table"]
    line = _one_error_line(_score(_tampered(swiss_file, tmp_path / "t.json", change)))
    assert f"stage 2, table {table}: deal 1, action 5 (\"0 play ZZ\"): " in line


@pytest.mark.parametrize(("name", "content", "says"), [
    ("missing.json", None, "there is no file"),
    ("not.json", "{not json", "not valid JSON"),
    ("array.json", "[1, 2]", "a competition is a JSON object"),
    ("record.json", json.dumps({"format": "estimation-record/1", "ruleset": "koutchina", "players": ["a"] * 4,
                                "deals": []}), "unknown format 'estimation-record/1'"),
    ("keys.json", json.dumps({"format": "estimation-competition/1"}), "missing name, kind"),
    ("binary.json", "\udcff", "not UTF-8"),
])
def test_bad_input_is_one_line_and_exit_1(tmp_path: Path, name: str, content: str | None, says: str) -> None:
    path = tmp_path / name
    if content == "\udcff":
        path.write_bytes(b"\xff\xfe\x00")
    elif content is not None:
        path.write_text(content)
    line = _one_error_line(_score(path))
    assert line.startswith("error: ") and says in line, line


def test_simulate_refuses_bad_settings_in_one_line(tmp_path: Path) -> None:
    for args in (["--kind", "knockout"], ["--level", "genius"], ["--ruleset", "whist"],
                 ["--ruleset", "classic", "--length", "micro"]):
        out = str(tmp_path / "x.json")
        result = CliRunner().invoke(app, ["competition", "simulate", *args, "--out", out])
        assert result.exit_code == 2, (args, result.output)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
        assert not (tmp_path / "x.json").exists()


def test_one_boards_traveller_marks_the_leaver_and_the_table_still_playing() -> None:
    worked = Path(__file__).resolve().parent.parent / "records" / "competitions" / "board_worked.json"
    result = _score(worked, "--board", "1:1")
    assert result.exit_code == 0, result.output
    assert "stage 1, round 1: traveller (top 4)" in result.stdout
    assert "stage 1, round 2" not in result.stdout
    assert "Entrant 10 (#10, left: a bot played)" in result.stdout
    assert result.stdout.count("not finished") == 4
    assert "no board stage 1, instance 1, round 9" in _one_error_line(_score(worked, "--board", "1:9"))
    assert _score(worked, "--board", "first").exit_code == 2
