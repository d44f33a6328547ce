"""The reference scorer against the worked examples of the Koutchina sources (seeds 000 and 004)."""

import pytest
from reference_scorer import next_multiplier, places, risk_level, score_round, seat_score


def test_caller_on_5():
    assert seat_score(5, 5, caller_or_with=True) == 25
    assert seat_score(5, 5, caller_or_with=True, only_winner=True) == 35
    assert seat_score(5, 3, caller_or_with=True) == -12


def test_plain_estimates():
    assert seat_score(3, 3) == 13
    assert seat_score(3, 5) == -2
    assert seat_score(4, 3) == -1
    assert seat_score(0, 0) == 10  # a plain Dash made
    assert seat_score(0, 2) == -2  # a plain Dash missed: minus the tricks


def test_last_estimator_on_risk():
    level = risk_level(15)
    assert level == 1
    assert seat_score(1, 1, risk=level) == 21
    assert seat_score(1, 2, risk=level) == -11


@pytest.mark.parametrize(
    ("total", "level"),
    [
        (12, 0),
        (14, 0),
        (10, 1),
        (11, 1),
        (15, 1),
        (16, 1),
        (8, 2),
        (9, 2),
        (17, 2),
        (18, 2),
        (7, 3),
        (0, 3),
        (19, 3),
        (30, 3),
    ],
)
def test_risk_levels(total, level):
    assert risk_level(total) == level


def test_total_13_is_impossible():
    with pytest.raises(ValueError):
        risk_level(13)


def test_dash_call_values():
    assert seat_score(0, 0, dash_call=True, over=False) == 33
    assert seat_score(0, 1, dash_call=True, over=False) == -33
    assert seat_score(0, 0, dash_call=True, over=True) == 25
    assert seat_score(0, 3, dash_call=True, over=True) == -25
    # never Caller, With or Risk; but only winner / only loser
    assert seat_score(0, 0, dash_call=True, over=False, only_winner=True) == 43
    assert seat_score(0, 1, dash_call=True, over=True, only_loser=True) == -35


def test_worked_round():
    # seat 0 Dash Calls, seat 1 calls 7S, seat 2 estimates 2, seat 3 (last) estimates 1: total 10.
    kwargs = dict(caller=1, last_estimator=3, dash_callers=[0])
    assert score_round([0, 7, 2, 1], [1, 7, 4, 1], **kwargs) == [-33, 27, -2, 21]
    assert score_round([0, 7, 2, 1], [1, 7, 4, 1], multiplier=2, **kwargs) == [-66, 54, -4, 42]


def test_only_winner_and_only_loser_in_a_round():
    # fixed round, Caller on 5 the only maker: 35
    assert score_round([5, 4, 4, 1], [5, 3, 3, 2], caller=0, last_estimator=3) == [35, -1, -1, -1]
    # a made Dash Call counts as a make: the only misser takes -10
    assert score_round([0, 5, 2, 3], [0, 5, 2, 6], caller=1, last_estimator=3, dash_callers=[0]) == [
        33,
        25,
        12,
        -3 - 10 - 10,
    ]


def test_saaydeh():
    assert score_round([2, 1, 1, 1], [13, 0, 0, 0], caller=0, last_estimator=0, multiplier=2) == [0] * 4
    assert next_multiplier(1, True) == 2
    assert next_multiplier(2, True) == 4
    assert next_multiplier(4, True) == 4
    assert next_multiplier(4, False) == 1
    assert next_multiplier(1, False) == 1


def test_places_competition_ranking():
    assert places([40, 40, 12, -3]) == [1, 1, 3, 4]
    assert places([-3, 12, 40, 40]) == [4, 3, 1, 1]
    assert places([0, 0, 0, 0]) == [1, 1, 1, 1]
    assert places([5, 1, 1, 0]) == [1, 2, 2, 4]
