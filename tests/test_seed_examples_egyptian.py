"""Every worked example of seed 002 (`egyptian`), and the `classic` table of seed 003, by name.

Each example runs three ways: through the independent reference scorer (tests/reference_scorer_egyptian.py,
tests/reference_scorer_classic.py, no engine code), through the public API
(`estimation.score_typed_round(ruleset=...)`) and through `python -m estimation score --ruleset ... --json`.
The rounds around each example are small legal rounds that hold it (RULES.md `egyptian` 6: With seats
estimate first, then the others, from the seat after the Caller; never 13; at most two on zero).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import reference_scorer_classic as classic_ref
import reference_scorer_egyptian as egyptian_ref

import estimation

SRC = Path(__file__).resolve().parent.parent / "src"


@dataclass(frozen=True)
class Example:
    name: str
    kind: str
    estimates: tuple[tuple[int, int], ...]  # (seat, estimate) in order, without the Caller and Dash seats
    tricks: tuple[int, int, int, int]
    seat: int  # the seat the example is about
    expected: int
    caller: tuple[int, int] | None = None
    dash: tuple[int, ...] = ()
    withs: tuple[int, ...] = ()
    multiplier: int = 1
    ruleset: str = "egyptian"

    def estimate_array(self) -> list[int]:
        est = [0, 0, 0, 0]
        if self.caller is not None:
            est[self.caller[0]] = self.caller[1]
        for seat, value in self.estimates:
            est[seat] = value
        return est

    def reference(self) -> list[int]:
        est = self.estimate_array()
        last = self.estimates[-1][0]
        if self.ruleset == "egyptian":
            caller = None if self.kind == "nobid" else self.caller[0]
            return egyptian_ref.score_round(
                est, self.tricks, caller=caller, last_estimator=last, with_seats=self.withs,
                dash_seats=self.dash,
            )
        if self.caller is None:  # a fixed round: the highest estimate, ties to the earliest
            caller = next(s for s, e in self.estimates if e == max(est))
        else:
            caller = self.caller[0]
        return classic_ref.score_round(
            est, self.tricks, caller=caller, last_estimator=last, dash_callers=self.dash,
            multiplier=self.multiplier,
        )

    def cli_args(self) -> list[str]:
        args = ["score", "--json", "--ruleset", self.ruleset, "--kind", self.kind,
                "--estimates", ",".join(f"{s}:{e}" for s, e in self.estimates),
                "--tricks", ",".join(map(str, self.tricks)), "--multiplier", str(self.multiplier)]
        if self.caller is not None:
            args += ["--call", f"{self.caller[0]}:{self.caller[1]}"]
        for s in self.dash:
            args += ["--dash-call", str(s)]
        for s in self.withs:
            args += ["--with", str(s)]
        return args


E = Example
EGYPTIAN = [
    # "a bid of four made is 17" (an ordinary estimate; three seats make, so no only-maker ten)
    E("bid_of_4_made_is_17", "auction", ((1, 4), (2, 3), (3, 2)), (5, 4, 2, 2), 1, 17, caller=(0, 5)),
    # "and a bid of six made is 19"
    E("bid_of_6_made_is_19", "auction", ((1, 6), (2, 1), (3, 0)), (5, 6, 1, 1), 1, 19, caller=(0, 7)),
    # "Add 10 more if you are the Call": a Call of 5 made with another maker: 13 + 5 + 10
    E("call_of_5_made_is_28", "auction", ((1, 3), (2, 3), (3, 1)), (5, 3, 2, 3), 0, 28, caller=(0, 5)),
    # "or if you bid With and called the Call's own number"
    E("with_on_the_call_number_made_is_28", "auction", ((1, 5), (2, 1), (3, 0)), (5, 5, 2, 1), 1, 28,
      caller=(0, 5), withs=(1,)),
    # a With seat on another number is an ordinary estimate: 13 + 2
    E("with_seat_on_another_number_is_ordinary", "auction", ((1, 2), (2, 3), (3, 2)), (5, 2, 3, 3), 1, 15,
      caller=(0, 5), withs=(1,)),
    # "they stack, so a lone Call one out loses 21": -1 - 10 (Call) - 10 (only misser)
    E("lone_call_one_out_loses_21", "auction", ((1, 3), (2, 2), (3, 1)), (7, 3, 2, 1), 0, -21, caller=(0, 6)),
    E("lone_call_one_under_loses_21", "auction", ((1, 3), (2, 2), (3, 3)), (5, 3, 2, 3), 0, -21,
      caller=(0, 6)),
    # "Add 10 more if you were the only player at the table to make your bid": Call of 5 alone: 28 + 10
    E("call_only_maker_is_38", "auction", ((1, 3), (2, 3), (3, 1)), (5, 4, 4, 0), 0, 38, caller=(0, 5)),
    # "41 points for eight, 42 for nine, 43 for ten, and on by one from there"
    E("super_call_8_made_is_41", "auction", ((1, 2), (2, 1), (3, 0)), (8, 2, 2, 1), 0, 41, caller=(0, 8)),
    E("super_call_9_made_is_42", "auction", ((1, 2), (2, 1), (3, 0)), (9, 2, 1, 1), 0, 42, caller=(0, 9)),
    E("super_call_10_made_is_43", "auction", ((1, 1), (2, 1), (3, 2)), (10, 1, 1, 1), 0, 43, caller=(0, 10)),
    E("super_call_11_made_is_44", "auction", ((1, 1), (2, 0), (3, 0)), (11, 1, 1, 0), 0, 44, caller=(0, 11)),
    # "A failed Super Call costs 20 plus the difference"
    E("super_call_8_failed_by_2_is_minus_22", "auction", ((1, 2), (2, 2), (3, 0)), (6, 2, 2, 3), 0, -22,
      caller=(0, 8)),
    # the only-maker ten stacks on a Super Call's line (RULES.md egyptian 8)
    E("super_call_9_only_maker_is_52", "auction", ((1, 1), (2, 1), (3, 0)), (9, 2, 0, 2), 0, 52,
      caller=(0, 9)),
    # With keeps its +-10 on a Super Call
    E("with_on_a_super_call_missed_is_minus_16", "auction", ((1, 8), (2, 0), (3, 1)), (8, 2, 2, 1), 1, -16,
      caller=(0, 8), withs=(1,)),
    # "It pays 23 if the four estimates come to less than thirteen ... and 13 if they come to more"
    E("dash_under_made_is_23", "auction", ((1, 3), (2, 2)), (5, 4, 4, 0), 3, 23, caller=(0, 5), dash=(3,)),
    E("dash_over_made_is_13", "auction", ((1, 4), (2, 3)), (7, 4, 2, 0), 3, 13, caller=(0, 7), dash=(3,)),
    # "A failed Dash costs the tricks you took, and ten more if the table had under-bid"
    E("dash_over_failed_is_minus_tricks", "auction", ((1, 4), (2, 3)), (7, 3, 1, 2), 3, -2, caller=(0, 7),
      dash=(3,)),
    E("dash_under_failed_is_minus_tricks_minus_10", "auction", ((1, 3), (2, 2)), (5, 3, 2, 3), 3, -13,
      caller=(0, 5), dash=(3,)),
    # "A Dash counts in that census ... but does not collect the ten itself"
    E("dash_only_maker_takes_no_ten", "auction", ((1, 3), (2, 2)), (6, 4, 3, 0), 3, 23, caller=(0, 5),
      dash=(3,)),
    E("dash_made_spoils_the_only_maker_ten", "auction", ((1, 3), (2, 2)), (5, 4, 4, 0), 0, 28, caller=(0, 5),
      dash=(3,)),
    E("dash_only_misser_takes_no_ten", "auction", ((1, 4), (2, 4)), (4, 4, 4, 1), 3, -11, caller=(0, 4),
      dash=(3,)),
    # "The last caller is at RISK when ... eleven or fewer ... on the low side there is no such condition"
    E("risk_low_side_on_0_made_is_23", "auction", ((1, 3), (2, 4), (3, 0)), (4, 3, 6, 0), 3, 23,
      caller=(0, 4)),
    E("risk_low_side_missed_is_minus_diff_minus_10", "auction", ((1, 3), (2, 3), (3, 1)), (4, 3, 4, 2), 3,
      -11,      caller=(0, 4)),
    # "or fifteen or more. On the high side they must call at least two themselves to earn it"
    E("risk_high_side_on_2_made_is_25", "auction", ((1, 5), (2, 3), (3, 2)), (6, 3, 2, 2), 3, 25,
      caller=(0, 6)),
    E("no_risk_high_side_on_1", "auction", ((1, 4), (2, 3), (3, 1)), (7, 4, 2, 0), 3, -1, caller=(0, 7)),
    E("no_risk_at_total_12", "auction", ((1, 3), (2, 2), (3, 2)), (5, 4, 1, 3), 3, -1, caller=(0, 5)),
    # speed rounds score like auction rounds
    E("speed_super_call_8_made_is_41", "speed", ((1, 2), (2, 1), (3, 0)), (8, 2, 2, 1), 0, 41, caller=(0, 8)),
    # "In a round nobody bid on ... 13 plus their number if they make it and the difference if they do not"
    E("nobid_made_is_13_plus_n_no_only_maker", "nobid", ((2, 3), (3, 2), (0, 1), (1, 0)), (6, 0, 4, 3),
      1, 13),
    E("nobid_missed_is_minus_diff", "nobid", ((2, 3), (3, 2), (0, 1), (1, 0)), (6, 0, 4, 3), 0, -5),
    E("nobid_last_at_low_total_no_risk", "nobid", ((2, 3), (3, 5), (0, 1), (1, 0)), (1, 0, 3, 9), 1, 13),
    E("nobid_dash_seat_is_an_ordinary_0", "nobid", ((2, 5), (0, 6)), (7, 1, 5, 0), 3, 13, dash=(1, 3)),
    E("nobid_dash_seat_failed_is_minus_tricks", "nobid", ((2, 5), (0, 6)), (7, 1, 5, 0), 1, -1, dash=(1, 3)),
]

CLASSIC = [
    # Declarer ("Player won the bidding round"): estimate + 20
    E("declarer_made_is_20_plus_estimate", "call", ((2, 3), (3, 2), (0, 1)), (2, 5, 3, 3), 1, 25,
      caller=(1, 5), ruleset="classic"),
    E("declarer_missed_is_minus_diff_minus_10", "call", ((2, 3), (3, 2), (0, 2)), (1, 6, 3, 3), 1, -11,
      caller=(1, 5), ruleset="classic"),
    E("regular_made_is_10_plus_estimate", "call", ((2, 3), (3, 2), (0, 1)), (2, 5, 3, 3), 2, 13,
      caller=(1, 5), ruleset="classic"),
    E("risk_missed_is_minus_diff_minus_10", "call", ((2, 3), (3, 2), (0, 1)), (2, 5, 3, 3), 0, -11,
      caller=(1, 5), ruleset="classic"),
    E("with_risk_made_is_30_plus_estimate", "call", ((2, 2), (3, 1), (0, 4)), (4, 4, 2, 3), 0, 34,
      caller=(1, 4), ruleset="classic"),
    E("with_risk_missed_is_minus_20", "call", ((2, 2), (3, 1), (0, 4)), (6, 4, 2, 1), 0, -32,
      caller=(1, 4), ruleset="classic"),
    E("with_double_risk_made_is_40_plus_estimate", "call", ((2, 0), (3, 1), (0, 4)), (4, 4, 0, 5), 0, 44,
      caller=(1, 4), ruleset="classic"),
    E("with_double_risk_missed_is_minus_30", "call", ((2, 0), (3, 1), (0, 4)), (8, 4, 0, 1), 0, -44,
      caller=(1, 4), ruleset="classic"),
    E("double_risk_is_the_cap", "call", ((2, 0), (3, 0), (0, 1)), (1, 4, 0, 8), 0, 31, caller=(1, 4),
      ruleset="classic"),
    E("dash_call_made_is_33", "call", ((3, 3), (0, 1)), (2, 0, 6, 5), 1, 33, caller=(2, 6), dash=(1,),
      ruleset="classic"),
    E("dash_call_missed_flat_23_only_loser_is_minus_33", "call", ((3, 2), (0, 1)), (1, 3, 7, 2), 1, -33,
      caller=(2, 7), dash=(1,), ruleset="classic"),
    E("declarer_8_made_is_40_plus_estimate", "call", ((2, 8), (3, 0), (0, 1)), (3, 8, 2, 0), 1, 48,
      caller=(1, 8), ruleset="classic"),
    E("with_on_8_keeps_minus_10", "call", ((2, 8), (3, 0), (0, 1)), (3, 8, 2, 0), 2, -16, caller=(1, 8),
      ruleset="classic"),
    E("declarer_9_missed_is_minus_20", "call", ((2, 1), (3, 1), (0, 0)), (4, 7, 1, 1), 1, -22, caller=(1, 9),
      ruleset="classic"),
    E("plain_dash_under_made_is_20", "call", ((2, 0), (3, 1), (0, 4)), (4, 4, 0, 5), 2, 20, caller=(1, 4),
      ruleset="classic"),
    E("plain_dash_under_missed_with_risk", "call", ((2, 1), (3, 1), (0, 0)), (4, 7, 1, 1), 0, -24,
      caller=(1, 9), ruleset="classic"),
    E("plain_dash_over_made_is_10", "call", ((2, 8), (3, 0), (0, 1)), (3, 8, 2, 0), 3, 10, caller=(1, 8),
      ruleset="classic"),
    E("fixed_declarer_8_last_with_risk_is_58", "fixed", ((1, 0), (2, 2), (3, 1), (0, 8)), (8, 0, 2, 3), 0, 58,
      ruleset="classic"),
    E("fixed_plain_dash_under_made_is_20", "fixed", ((1, 0), (2, 2), (3, 1), (0, 8)), (8, 0, 2, 3), 1, 20,
      ruleset="classic"),
    E("doubled_round", "call", ((2, 3), (3, 2), (0, 1)), (2, 5, 3, 3), 1, 50, caller=(1, 5), multiplier=2,
      ruleset="classic"),
]

ALL = EGYPTIAN + CLASSIC


def _id(example: Example) -> str:
    return f"{example.ruleset}-{example.name}"


@pytest.mark.parametrize("example", ALL, ids=_id)
def test_reference_scorer(example):
    assert example.reference()[example.seat] == example.expected


@pytest.mark.parametrize("example", ALL, ids=_id)
def test_public_api(example):
    result = estimation.score_typed_round(
        ruleset=example.ruleset,
        kind=example.kind,
        estimates=list(example.estimates),
        tricks=list(example.tricks),
        caller=example.caller,
        dash_calls=list(example.dash),
        with_seats=list(example.withs),
        multiplier=example.multiplier,
    )
    scores = [s.score for s in result]
    assert scores[example.seat] == example.expected
    assert scores == example.reference()


@pytest.mark.parametrize("example", ALL, ids=_id)
def test_cli(example):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    res = subprocess.run(
        [sys.executable, "-m", "estimation", *example.cli_args()],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert res.returncode == 0, res.stderr
    scores = [seat["score"] for seat in json.loads(res.stdout)]
    assert scores[example.seat] == example.expected
    assert scores == example.reference()


def test_level_points():
    assert egyptian_ref.level_points(1, tied=False) == 30
    assert egyptian_ref.level_points(1, tied=True) == 10
    assert egyptian_ref.level_points(2, tied=False) == 4


def test_leaver_is_placed_last():
    # RECORD.md: totals 40, 40, 12, -3 with seat 0 leaving: places 4, 1, 2, 3
    assert egyptian_ref.places([40, 40, 12, -3], leaver=0) == [4, 1, 2, 3]
    assert egyptian_ref.places([40, 40, 12, -3]) == [1, 1, 3, 4]


def test_risk_rule():
    assert egyptian_ref.at_risk(11, 0)
    assert egyptian_ref.at_risk(15, 2)
    assert not egyptian_ref.at_risk(15, 1)
    assert not egyptian_ref.at_risk(12, 5)
    assert not egyptian_ref.at_risk(14, 5)
    assert classic_ref.risk_level(7) == 2
    assert classic_ref.risk_level(16) == 1
    assert classic_ref.risk_level(14) == 0
