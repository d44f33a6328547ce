"""Placement with ties (ruling 10), the stake split (ruling 11), and both by side with partners."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import estimation
from estimation import placements, split_pot
from estimation.results import outcomes, side_places, standings
from estimation.stakes import split_pot_by_side


def test_competition_ranking_from_the_ruling() -> None:
    assert placements([40, 40, 12, -3]) == [1, 1, 3, 4]


def test_leaver_is_fourth_and_the_rest_rank_among_themselves() -> None:
    # RECORD.md: totals 40, 40, 12, -3 with seat 0 leaving place 4, 1, 2, 3.
    assert placements([40, 40, 12, -3], leaver=0) == [4, 1, 2, 3]


def test_pot_28_at_60_30_10_pays_18_8_2() -> None:
    assert split_pot(7, [0, 1, 2, 3], [50, 20, 10, -5]) == {0: 18, 1: 8, 2: 2, 3: 0}


def test_two_stakers_winner_takes_all() -> None:
    assert split_pot(10, [1, 3], [5, 50, 60, -2]) == {1: 20, 3: 0}


def test_three_stakers_70_30() -> None:
    assert split_pot(10, [0, 1, 2], [30, 20, 10, 99]) == {0: 21, 1: 9, 2: 0}


def test_bots_never_stake_so_only_stakers_are_ranked() -> None:
    # Seat 3 (a bot) is first at the table but not a staker: seats 0-2 share 70/30.
    assert split_pot(10, [0, 1, 2], [10, 20, 30, 500]) == {2: 21, 1: 9, 0: 0}


def test_one_staker_is_refunded() -> None:
    assert split_pot(25, [2], [0, 0, -10, 0]) == {2: 25}


def test_tied_stakers_split_the_places_they_span() -> None:
    # Pot 40 at 60/30/10: tied first pair shares 24 + 12 = 36 -> 18 each; third 4; last 0.
    assert split_pot(10, [0, 1, 2, 3], [50, 50, 10, 0]) == {0: 18, 1: 18, 2: 4, 3: 0}


def test_tied_split_is_floored_and_the_rest_goes_to_the_best_placed_lowest_seat() -> None:
    # Pot 28: places 2-3 tied share floor(28 x 40%) = 11 -> 5 each; first 16 + the 2 left = 18.
    assert split_pot(7, [0, 1, 2, 3], [90, 20, 20, -5]) == {0: 18, 1: 5, 2: 5, 3: 0}
    # Pot 36, two tied first: floor(36 x 90%) = 32 -> 16 each (not (21 + 10) / 2 = 15); third 3; the
    # coin left over goes to the lower seat of the tied pair.
    assert split_pot(9, [0, 1, 2, 3], [7, 30, 5, 30]) == {1: 17, 3: 16, 0: 3, 2: 0}
    # All four tied: the whole pot split evenly.
    assert split_pot(7, [0, 1, 2, 3], [5, 5, 5, 5]) == {0: 7, 1: 7, 2: 7, 3: 7}


def test_a_leaver_forfeits_and_is_placed_last_among_stakers() -> None:
    # Seat 0 led on points but left: it takes the last staker's share (nothing).
    assert split_pot(10, [0, 1, 2, 3], [99, 30, 20, 10], leavers=[0]) == {0: 0, 1: 24, 2: 12, 3: 4}


def test_two_leavers_rank_among_themselves_below_every_stayer() -> None:
    assert split_pot(10, [0, 1, 2, 3], [99, 50, 20, 10], leavers=[0, 1]) == {2: 24, 3: 12, 0: 4, 1: 0}


def test_only_a_staker_can_leave_a_stake() -> None:
    with pytest.raises(ValueError):
        split_pot(10, [0, 1], [0, 0, 0, 0], leavers=[2])


@given(st.integers(0, 10_000), st.sets(st.integers(0, 3), min_size=1),
       st.lists(st.integers(-300, 300), min_size=4, max_size=4), st.sets(st.integers(0, 3)))
def test_the_pot_is_paid_exactly_once(stake: int, stakers: set[int], totals: list[int],
                                      leavers: set[int]) -> None:
    leavers &= stakers
    paid = split_pot(stake, stakers, totals, leavers)
    assert set(paid) == stakers
    assert sum(paid.values()) == stake * len(stakers)
    assert all(v >= 0 for v in paid.values())
    if len(stakers) > 1:
        # better placed never gets less than worse placed
        rank = {s: (s in leavers, -totals[s]) for s in stakers}
        for a in stakers:
            for b in stakers:
                if rank[a] < rank[b]:
                    assert paid[a] >= paid[b]


def test_new_game_refuses_unknown_ruleset_length_and_player_count() -> None:
    with pytest.raises(ValueError, match="unknown ruleset"):
        estimation.new_game("whist")
    with pytest.raises(ValueError, match="unknown length"):
        estimation.new_game("koutchina", "huge")
    with pytest.raises(ValueError, match="four"):
        estimation.new_game(players=["a", "b", "c"])


def test_a_finished_game_refuses_every_action() -> None:
    import random

    from tests.helpers import CANDIDATES, play_random

    game = estimation.new_game(seed=5)
    play_random(game, random.Random(5))
    for action in CANDIDATES[:50]:
        with pytest.raises(estimation.GameOverError):
            game.apply(action)


# --- partnerships (RULES.md, Partnerships) -----------------------------------------------------------------


def test_side_standings() -> None:
    # Seats 0+2 against 1+3: 40 + 12 = 52 against 40 - 3 = 37.
    assert side_places([40, 40, 12, -3]) == [1, 2]
    assert standings([40, 40, 12, -3], partners=True) == [1, 2, 1, 2]
    assert standings([10, 5, 0, 5], partners=True) == [1, 1, 1, 1]  # level sides both 1st
    # An egyptian leaver's side is 2nd whatever its total.
    assert standings([40, 40, 12, -3], partners=True, leaver=2) == [2, 1, 2, 1]
    assert outcomes([1, 2, 1, 2], partners=True) == ["win", "loss", "win", "loss"]
    assert outcomes([1, 1, 1, 1], partners=True) == ["draw"] * 4
    assert outcomes([1, 2, 1, 2], partners=True, leavers=frozenset({0})) == ["loss", "loss", "win", "loss"]
    assert outcomes([1, 1, 3, 4], partners=False) == ["draw", "draw", "loss", "loss"]


def test_a_partnership_game_keeps_every_seat_score_and_ranks_by_side() -> None:
    import random

    alone = estimation.new_game("classic", seed=5)
    paired = estimation.new_game("classic", seed=5, partners=True)
    rng = random.Random(5)
    while not alone.is_over:
        action = rng.choice(alone.legal_actions())
        alone.apply(action)
        paired.apply(action)
    assert paired.totals == alone.totals and paired.round_results == alone.round_results
    a, b = alone.totals[0] + alone.totals[2], alone.totals[1] + alone.totals[3]
    assert paired.sides == {"seats": [[0, 2], [1, 3]], "totals": [a, b],
                            "places": [1, 1] if a == b else [1, 2] if a > b else [2, 1]}
    assert alone.sides is None and "sides" not in estimation.replay_summary(alone)


def test_partnership_pot_by_side() -> None:
    # The winning side's stakers share the whole pot evenly; the leftover coin to the lower seat.
    assert split_pot_by_side(5, [0, 1, 2], [1, 2]) == {0: 8, 1: 0, 2: 7}
    assert split_pot_by_side(5, [0, 1, 2, 3], [2, 1]) == {0: 0, 1: 10, 2: 0, 3: 10}
    # Level sides: every staker shares; P1: every coin left over to the lowest seat sharing.
    assert split_pot_by_side(5, [0, 1, 2, 3], [1, 1], leavers=[3]) == {0: 8, 1: 6, 2: 6, 3: 0}
    # The winners' only staker left: the pot goes to the other side's stakers who stayed.
    assert split_pot_by_side(10, [0, 1], [1, 2], leavers=[0]) == {0: 0, 1: 20}
    # One staker in all: refunded; every staker left: each gets the stake back.
    assert split_pot_by_side(10, [3], [1, 2]) == {3: 10}
    assert split_pot_by_side(10, [0, 1], [1, 2], leavers=[0, 1]) == {0: 10, 1: 10}
    with pytest.raises(ValueError):
        split_pot_by_side(10, [0, 1], [1, 2], leavers=[2])


@given(st.integers(0, 500), st.sets(st.integers(0, 3)), st.sampled_from([[1, 2], [2, 1], [1, 1]]),
       st.sets(st.integers(0, 3)))
def test_a_partnership_pot_is_paid_exactly(stake: int, stakers: set[int], sides: list[int],
                                           leaving: set[int]) -> None:
    leavers = leaving & stakers
    paid = split_pot_by_side(stake, stakers, sides, leavers)
    assert set(paid) == stakers and sum(paid.values()) == stake * len(stakers)
    assert all(v >= 0 for v in paid.values())
    if len(stakers) > 1 and stakers - leavers:
        assert all(paid[s] == 0 for s in leavers)
