"""Matchpoints and standings: the hand-worked board in tests/records/competitions/, and the edge cases
of RULES.md, Competitions (n = 1, a leaver, an egyptian table ended by a leaver, exact-fraction ties,
top 0, a director's adjustments)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from estimation.competition import (
    BoardKey,
    CompetitionError,
    TablePlay,
    board_result,
    board_results,
    board_top,
    check_export,
    entrant_boards,
    entrant_totals,
    matchpoint_scores,
    percent,
    standings,
)

HERE = Path(__file__).resolve().parent
WORKED = HERE.parent / "records" / "competitions" / "board_worked.json"


def _play(table: int, seats: tuple[int | None, ...], *rounds: tuple[int, ...],
          left: dict[int, int] | None = None, ended_by: int | None = None, stage: int = 1,
          instance: int = 1) -> TablePlay:
    a, b, c, d = seats
    return TablePlay(table, stage, instance, (a, b, c, d), tuple(rounds), dict(left or {}), ended_by)


# --------------------------------------------------------------------------- the hand-worked board

def test_the_hand_worked_board() -> None:
    doc = json.loads(WORKED.read_text())
    expected = json.loads(WORKED.with_name("board_worked.expected.json").read_text())
    scored, disagreement = check_export(doc)
    assert disagreement is None  # the file's own (hand-written) boards and standings follow too
    board = scored.boards[0]
    assert tuple(board.board) == (1, 1, 1)
    assert board.top == expected["top"]
    finished = [t.table for t in board.tables if t.scores is not None]
    assert finished == expected["tables_finished"]
    for line in board.tables:
        want_scores = expected["scores"][str(line.table)]
        want_mp = expected["mp"][str(line.table)]
        assert (None if line.scores is None else list(line.scores)) == want_scores, line.table
        assert (None if line.mp is None else list(line.mp)) == want_mp, line.table
    mine = {eb.entrant: eb for eb in scored.results if eb.board == board.board}
    for entrant, want in expected["entrants"].items():
        eb = mine[int(entrant)]
        assert (eb.mp, eb.top, eb.outcome) == (want["mp"], want["top"], want["outcome"]), entrant
    rows = {r["entrant"]: r for r in scored.standings}
    for entrant, want in expected["percent"].items():
        assert rows[int(entrant)]["percent"] == want, entrant
    for entrant, want in expected["place"].items():
        assert rows[int(entrant)]["place"] == want, entrant


def test_the_worked_board_is_described_in_the_records_readme() -> None:
    readme = (HERE.parent / "records" / "README.md").read_text()
    assert "`competitions/board_worked`" in readme


# --------------------------------------------------------------------------- matchpoints

def test_two_per_score_beaten_one_per_tie() -> None:
    assert matchpoint_scores([(10, 0, 5, 5), (5, 0, 5, 7), (5, 0, 9, 6)]) == [
        (4, 2, 1, 0), (1, 2, 1, 4), (1, 2, 4, 2)]


def test_a_board_played_by_one_table_counts_for_nobody() -> None:
    plays = [_play(1, (1, 2, 3, 4), (10, -5, 3, 0)), _play(2, (5, 6, 7, 8))]  # table 2 not finished
    boards = board_results(plays, rounds=1)
    assert boards[0].top == 0
    assert boards[0].tables[0].mp == (0, 0, 0, 0)
    totals = entrant_totals(entrant_boards(boards, plays))
    assert all(v == (0, 0) for v in totals.values())


def test_a_leaver_scores_zero_from_the_board_it_left_and_the_bot_still_counts_for_others() -> None:
    # entrant 2 left table 1 during round 2 (after 1 round); a bot played seat 1 on and scored 50 there
    plays = [_play(1, (1, 2, 3, 4), (0, 0, 0, 0), (0, 50, 0, 0), left={1: 1}),
             _play(2, (5, 6, 7, 8), (0, 0, 0, 0), (0, 10, 0, 0))]
    boards = board_results(plays, rounds=2)
    results = {(eb.board.round, eb.entrant): eb for eb in entrant_boards(boards, plays)}
    assert (results[(1, 2)].mp, results[(1, 2)].top, results[(1, 2)].outcome) == (1, 2, "played")
    assert (results[(2, 2)].mp, results[(2, 2)].top, results[(2, 2)].outcome) == (0, 2, "left")
    assert results[(2, 6)].mp == 0  # beaten by the bot in the leaver's seat
    assert entrant_totals(results.values())[2] == (1, 4)


def test_an_egyptian_table_ended_by_a_leaver_has_no_result_for_the_others() -> None:
    plays = [_play(1, (1, 2, 3, 4), (5, 5, 5, 5), left={2: 1}, ended_by=2),
             _play(2, (5, 6, 7, 8), (1, 1, 1, 1), (1, 1, 1, 1)),
             _play(3, (9, 10, 11, 12), (9, 9, 9, 9), (0, 0, 0, 0))]
    boards = board_results(plays, rounds=2)
    assert [b.top for b in boards] == [4, 2]
    results = {(eb.board.round, eb.entrant): eb for eb in entrant_boards(boards, plays)}
    assert (results[(2, 3)].mp, results[(2, 3)].top, results[(2, 3)].outcome) == (0, 2, "left")
    assert (results[(2, 1)].mp, results[(2, 1)].top, results[(2, 1)].outcome) == (0, 0, "no result")
    assert (results[(2, 5)].mp, results[(2, 5)].top) == (2, 2)


def test_bots_are_compared_and_never_ranked() -> None:
    plays = [_play(1, (1, None, None, None), (0, 9, 9, 9)), _play(2, (2, None, None, None), (1, 0, 0, 0))]
    boards = board_results(plays, rounds=1)
    assert boards[0].tables[0].mp == (0, 2, 2, 2)
    assert set(entrant_totals(entrant_boards(boards, plays))) == {1, 2}


def test_adjustments_replace_a_score_or_set_an_entrants_mp() -> None:
    plays = [_play(1, (1, 2, 3, 4), (10, 0, 0, 0)), _play(2, (5, 6, 7, 8), (0, 0, 0, 0))]
    adjust_score = [{"stage": 1, "instance": 1, "round": 1, "table": 2, "seat": 0, "score": 20,
                     "reason": "revoke"}]
    boards = board_results(plays, 1, adjust_score)  # type: ignore[arg-type]
    assert boards[0].tables[0].mp == (0, 1, 1, 1) and boards[0].tables[1].scores == (20, 0, 0, 0)
    adjust_mp = [{"stage": 1, "instance": 1, "round": 1, "entrant": 6, "mp": 2, "reason": "slow play"}]
    results = entrant_boards(board_results(plays, 1), plays, adjust_mp)  # type: ignore[arg-type]
    six = next(eb for eb in results if eb.entrant == 6)
    assert (six.mp, six.top, six.outcome) == (2, 2, "adjusted")
    with pytest.raises(CompetitionError, match=r"MP must be 0\.\.2"):
        entrant_boards(board_results(plays, 1), plays, [{**adjust_mp[0], "mp": 3}])  # type: ignore[list-item]
    with pytest.raises(CompetitionError, match="no table 9"):
        board_results(plays, 1, [{**adjust_score[0], "table": 9}])  # type: ignore[list-item]


# --------------------------------------------------------------------------- standings

def test_exact_fraction_ties_share_a_place_and_near_misses_do_not() -> None:
    rows = standings({1: (1, 3), 2: (2, 6), 3: (33, 100), 4: (2, 3), 5: (0, 0)})
    assert [(r["entrant"], r["place"]) for r in rows] == [(4, 1), (1, 2), (2, 2), (3, 4), (5, 5)]
    assert [r["percent"] for r in rows] == [66.67, 33.33, 33.33, 33.0, 0.0]
    # 1/3 and 3333/10000 both show 33.33 but are not equal: different places
    rows = standings({1: (1, 3), 2: (3333, 10000)})
    assert [r["place"] for r in rows] == [1, 2]


def _fraction_standings(totals: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """(entrant, place) as RULES.md says: by the exact fraction, ties sharing the best place."""
    exact = {e: Fraction(mp, top) if top else Fraction(0) for e, (mp, top) in totals.items()}
    order = sorted(totals, key=lambda e: (-exact[e], e))
    out: list[tuple[int, int]] = []
    for i, e in enumerate(order):
        tied = i and exact[e] == exact[order[i - 1]]
        out.append((e, out[-1][1] if tied else i + 1))
    return out


@given(st.lists(st.tuples(st.integers(0, (1 << 26) - 1), st.integers(1, 1000)), min_size=1, max_size=40),
       st.booleans())
def test_standings_order_and_ties_are_the_exact_fractions(pairs: list[tuple[int, int]], big: bool) -> None:
    # Neighbouring fractions with tops up to 2**26 - 1 (the largest the float key takes), equal ones
    # with different tops, and tops past it (fractions then).
    totals: dict[int, tuple[int, int]] = {}
    for top, k in pairs:
        top = top + (1 << 26) if big else top
        mp = top * k // 1000
        for e, (m, t) in enumerate([(mp, top), (max(0, mp - 1), top), (mp * 2, top * 2), (mp, top + 1)]):
            if t and m <= t:
                totals[4 * len(totals) + e] = (m, t)
    rows = standings(totals)
    assert [(r["entrant"], r["place"]) for r in rows] == _fraction_standings(totals)


def test_top_zero_is_zero_percent_and_ties_with_zero_mp() -> None:
    assert percent(0, 0) == 0.0
    rows = standings({1: (0, 0), 2: (0, 8)})
    assert [r["place"] for r in rows] == [1, 1]


def test_percent_rounds_halves_up_from_the_exact_fraction() -> None:
    assert percent(1, 800) == 0.13  # 0.125 exactly
    assert percent(1, 8) == 12.5
    assert percent(52, 72) == 72.22
    assert Fraction(100 * 52, 72) > Fraction(7222, 100)


def test_a_board_key_names_itself() -> None:
    assert BoardKey(2, 3, 4).label() == "stage 2, round 4"
    assert BoardKey(2, 3, 4).label(True) == "stage 2, instance 3, round 4"


def test_the_checker_accepts_ties_in_any_order_and_either_rounding_of_a_half() -> None:
    doc = json.loads(WORKED.read_text())
    rows = doc["standings"]
    rows[0], rows[1] = rows[1], rows[0]  # 9 and 12 share 1st
    assert check_export(doc)[1] is None
    rows[2]["percent"] = 75.004  # not a 2-decimal rounding
    found = check_export(doc)[1]
    assert found is not None
    assert found.line == "standings: entrant 3: percent 75.004 in the file, 75.0 from the records"
    rows[2]["percent"] = 75.0
    rows[2], rows[5] = rows[5], rows[2]  # a 25% entrant above a 75% one
    found = check_export(doc)[1]
    assert found is not None and "standings are best first" in found.line


def test_a_leaver_cannot_have_left_after_more_rounds_than_its_table_finished() -> None:
    doc = json.loads(WORKED.read_text())
    doc["stages"][0]["tables"][2]["left"] = [{"seat": 1, "rounds": 2}]
    with pytest.raises(CompetitionError, match="seat 1 left after 2 rounds"):
        check_export(doc)


def _naive(scores: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """RULES.md word for word: against every other table, 2 for a win and 1 for a tie."""
    return [tuple(sum(2 if row[s] > other[s] else 1 if row[s] == other[s] else 0
                      for u, other in enumerate(scores) if u != t) for s in range(4))
            for t, row in enumerate(scores)]


@given(st.lists(st.tuples(*[st.integers(-5, 5)] * 4), min_size=1, max_size=30))
def test_matchpoints_by_sorting_are_the_rule_word_for_word(scores: list[tuple[int, ...]]) -> None:
    assert matchpoint_scores(scores) == _naive(scores)
    top = board_top(len(scores))
    for row in matchpoint_scores(scores):
        assert all(0 <= mp <= top for mp in row)
    # every pair of tables shares out 2 MP per seat
    assert sum(sum(row) for row in matchpoint_scores(scores)) == 4 * len(scores) * (len(scores) - 1)


def test_one_board_alone_is_the_same_as_in_the_whole() -> None:
    plays = [_play(1, (1, 2, 3, 4), (1, 2, 3, 4), (0, 0, 0, 0)), _play(2, (5, 6, 7, 8), (4, 3, 2, 1)),
             _play(3, (9, 10, 11, 12), (1, 1, 1, 1), (5, 0, 0, 0))]
    every = board_results(plays, rounds=2)
    assert board_result(BoardKey(1, 1, 2), plays) == every[1]
    with pytest.raises(CompetitionError, match="no such board"):
        board_results(plays, 2, [{"stage": 1, "instance": 1, "round": 3, "entrant": 1, "mp": 0,  # type: ignore[list-item]
                                  "reason": "x"}])
