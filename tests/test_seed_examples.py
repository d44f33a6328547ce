"""Every worked example of seeds 000 (rules page) and 004 (score calculator), by name.

Each runs twice: through the public API (`estimation.score_typed_round`) and through `estimation score`.
The rounds around each example are the smallest legal ones that hold it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

import estimation


@dataclass(frozen=True)
class Example:
    name: str
    kind: str
    estimates: tuple[tuple[int, int], ...]
    tricks: tuple[int, int, int, int]
    seat: int  # the seat the example is about
    expected: int
    caller: tuple[int, int] | None = None
    dash_calls: tuple[int, ...] = ()
    multiplier: int = 1

    def cli_args(self) -> list[str]:
        args = ["score", "--json", "--estimates", ",".join(f"{s}:{e}" for s, e in self.estimates),
                "--tricks", ",".join(map(str, self.tricks)), "--multiplier", str(self.multiplier)]
        if self.caller is None:
            args.append("--fixed")
        else:
            args += ["--call", f"{self.caller[0]}:{self.caller[1]}"]
        for s in self.dash_calls:
            args += ["--dash-call", str(s)]
        return args


EXAMPLES = [
    # "a Caller on 5 who takes 5 scores 25": Caller 0 on 5; others 3,3,4 (total 15); two others make.
    Example("caller_on_5_takes_5_scores_25", "call", ((1, 3), (2, 3), (3, 4)), (5, 3, 3, 2), 0, 25,
            caller=(0, 5)),
    # "- 35 as the only player to make it"
    Example("caller_on_5_only_maker_scores_35", "call", ((1, 3), (2, 3), (3, 4)), (5, 2, 4, 2), 0, 35,
            caller=(0, 5)),
    # "taking 3 costs -2 - 10 = -12" (two others make, so no only-loser ten)
    Example("caller_on_5_takes_3_scores_minus_12", "call", ((1, 3), (2, 3), (3, 4)), (3, 3, 4, 3), 0, -12,
            caller=(0, 5)),
    # "A player on 3 who takes 3 scores 13"
    Example("player_on_3_takes_3_scores_13", "call", ((1, 3), (2, 3), (3, 4)), (5, 3, 1, 4), 1, 13,
            caller=(0, 5)),
    # "taking 5 scores -2"
    Example("player_on_3_takes_5_scores_minus_2", "call", ((1, 3), (2, 3), (3, 4)), (5, 5, 1, 2), 1, -2,
            caller=(0, 5)),
    # "The last estimator on 1 with a total of 15 (Risk) scores 21 taking 1"
    Example("last_on_1_total_15_risk_takes_1_scores_21", "call", ((1, 4), (2, 4), (3, 1)), (6, 2, 4, 1),
            3, 21, caller=(0, 6)),
    # "and -11 taking 2"
    Example("last_on_1_total_15_risk_takes_2_scores_minus_11", "call", ((1, 4), (2, 4), (3, 1)),
            (6, 4, 1, 2), 3, -11, caller=(0, 6)),
    # "A Dash Call in an Under round: +33 made"
    Example("dash_call_under_made_33", "call", ((2, 2), (3, 2)), (0, 6, 3, 4), 0, 33, caller=(1, 6),
            dash_calls=(0,)),
    # "-33 missed"
    Example("dash_call_under_missed_minus_33", "call", ((2, 2), (3, 2)), (1, 6, 2, 4), 0, -33,
            caller=(1, 6), dash_calls=(0,)),
    # Seed 004: "+25 in an Over round ... -25"
    Example("dash_call_over_made_25", "call", ((2, 5), (3, 4)), (0, 6, 5, 2), 0, 25, caller=(1, 6),
            dash_calls=(0,)),
    Example("dash_call_over_missed_minus_25", "call", ((2, 5), (3, 4)), (2, 6, 5, 0), 0, -25,
            caller=(1, 6), dash_calls=(0,)),
    # Seed 004: "3 estimated and 3 taken scores 13, and 0 estimated with nothing taken scores 10"
    Example("calculator_3_of_3_scores_13", "fixed", ((0, 3), (1, 5), (2, 0), (3, 3)), (3, 6, 0, 4), 0, 13),
    Example("calculator_0_of_0_scores_10", "fixed", ((0, 3), (1, 5), (2, 0), (3, 3)), (3, 6, 0, 4), 2, 10),
    # Seed 004: "3 estimated and 5 taken is -2, 4 estimated and 3 taken is -1"
    Example("calculator_3_taking_5_scores_minus_2", "fixed", ((0, 3), (1, 5), (2, 4), (3, 3)),
            (5, 5, 3, 0), 0, -2),
    Example("calculator_4_taking_3_scores_minus_1", "fixed", ((0, 3), (1, 5), (2, 4), (3, 3)),
            (5, 5, 3, 0), 2, -1),
]

# The worked round of seeds 000 and 004: seat 0 Dash Calls, seat 1 calls 7S, seat 2 estimates 2,
# seat 3 estimates 1 (total 10, Under, Risk). Tricks 1, 7, 4, 1.
WORKED = {"kind": "call", "caller": (1, 7), "dash_calls": (0,), "estimates": ((2, 2), (3, 1)),
          "tricks": (1, 7, 4, 1)}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_seed_example_through_the_api(example: Example) -> None:
    result = estimation.score_typed_round(
        kind=example.kind, estimates=example.estimates, tricks=example.tricks, caller=example.caller,
        dash_calls=example.dash_calls, multiplier=example.multiplier)
    assert result[example.seat].score == example.expected


def run_cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "estimation", *args], capture_output=True, text=True,
                          check=False)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.name)
def test_seed_example_through_estimation_score(example: Example) -> None:
    proc = run_cli(example.cli_args())
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[example.seat]["score"] == example.expected


def test_worked_round_scores_27_minus_2_minus_33_21() -> None:
    result = estimation.score_typed_round(**WORKED)  # type: ignore[arg-type]
    assert [s.score for s in result] == [-33, 27, -2, 21]
    caller, player_on_2, dash_caller, last = result[1], result[2], result[0], result[3]
    assert (caller.base, caller.caller_with) == (17, 10)
    assert player_on_2.base == -2
    assert dash_caller.dash_call == -33
    assert (last.base, last.risk) == (11, 10)
    assert all(s.only == 0 for s in result), "two made, two missed: no only winner or loser"


def test_worked_round_after_a_saaydeh_doubles_to_54_minus_4_minus_66_42() -> None:
    result = estimation.score_typed_round(**WORKED, multiplier=2)  # type: ignore[arg-type]
    assert [s.score for s in result] == [-66, 54, -4, 42]


def test_worked_round_through_estimation_score() -> None:
    args = ["score", "--call", "1:7", "--dash-call", "0", "--estimates", "2:2,3:1", "--tricks", "1,7,4,1"]
    proc = run_cli(args)
    assert proc.returncode == 0, proc.stderr
    assert "Round score" in proc.stdout and "-33" in proc.stdout and "+27" in proc.stdout
    proc = run_cli([*args, "--json", "--multiplier", "2"])
    assert [s["score"] for s in json.loads(proc.stdout)] == [-66, 54, -4, 42]


def test_saaydeh_scores_nothing() -> None:
    """Seeds: if all four miss, nobody scores that round."""
    result = estimation.score_typed_round(kind="fixed", estimates=((0, 3), (1, 5), (2, 4), (3, 3)),
                                          tricks=(4, 4, 3, 2))
    assert [s.score for s in result] == [0, 0, 0, 0]


@pytest.mark.parametrize(("args", "message"), [
    (["--fixed", "--estimates", "0:3,1:5,2:4,3:3", "--tricks", "4,4,4,2"], "tricks total 14"),
    (["--fixed", "--estimates", "0:3,1:5,2:4,3:1", "--tricks", "4,4,4,1"], "total 13"),
    (["--fixed", "--estimates", "0:0,1:0,2:0,3:9", "--tricks", "4,4,4,1"], "three seats on zero"),
    (["--call", "1:7", "--estimates", "2:8,3:1,0:2", "--tricks", "1,7,4,1"], "outside 0-7"),
    (["--call", "1:7", "--estimates", "3:1,2:2,0:2", "--tricks", "1,7,4,1"], "from the seat after"),
    (["--call", "1:3", "--estimates", "2:1,3:1,0:2", "--tricks", "1,7,4,1"], "4-13"),
    (["--estimates", "2:1", "--tricks", "1,7,4,1"], "--call"),
    (["--fixed", "--estimates", "0:3,1:5,2:4,3:3", "--tricks", "4,4,4"], "four numbers"),
    (["--fixed", "--estimates", "0:3,1:x", "--tricks", "4,4,4,1"], "SEAT:NUMBER"),
])
def test_impossible_rounds_are_refused_clearly(args: list[str], message: str) -> None:
    proc = run_cli(["score", *args])
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""
