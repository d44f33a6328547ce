"""The egyptian ruleset through the public API: phases, With, declarations, nobid rounds, leavers."""

from __future__ import annotations

import random

import pytest

import estimation
from estimation import IllegalActionError, Phase
from estimation.rulesets.egyptian import Egyptian
from tests.helpers import play_random

level_points = Egyptian.match_level_points


def fresh(seed: int = 1, length: str = "standard") -> estimation.Game:
    return estimation.new_game("egyptian", length, seed=seed)


def offers(game: estimation.Game, takers: tuple[int, ...] = ()) -> None:
    """Answer the blind Dash offer: the seats in ``takers`` take it."""
    while game.phase is Phase.DASH:
        seat = game.to_move
        game.apply(f"{seat} {'dash' if seat in takers else 'nodash'}")


def test_everyone_passing_is_a_nobid_round_estimated_from_the_dealer() -> None:
    game = fresh()
    dealer = game.dealer
    offers(game)
    for _ in range(4):
        game.apply(f"{game.to_move} pass")
    assert game.phase is Phase.ESTIMATE and game.kind == "nobid"
    assert str(game.trump) == "NT" and game.caller is None
    assert game.est_order == tuple((dealer + i) % 4 for i in range(4))
    assert {a.number for a in game.legal_actions()} == set(range(14))
    estimates = [3, 3, 3]
    for e in estimates:
        game.apply(f"{game.to_move} est {e}")
    # the last estimator may not make 13
    assert f"{game.to_move} est 4" not in [a.text for a in game.legal_actions()]
    game.apply(f"{game.to_move} est 5")
    assert game.phase is Phase.PLAY and game.to_move == dealer  # the dealer leads
    while game.round_no == 1:
        game.apply(random.Random(len(game.actions)).choice(game.legal_actions()))
    result = game.round_results[0]
    assert result.kind == "nobid" and result.caller is None and result.risk == 0
    for b in result.breakdown:
        assert (b.caller_with, b.only, b.risk) == (0, 0, 0)
        assert b.score == (13 + b.estimate if b.made else -abs(b.tricks - b.estimate))


def test_with_joins_and_a_higher_bid_voids_it() -> None:
    game = fresh(seed=2)
    offers(game)
    first = game.to_move
    assert first is not None
    with pytest.raises(IllegalActionError, match="no standing bid"):
        game.apply(f"{first} with")
    game.apply(f"{first} bid 5H")
    second = game.to_move
    game.apply(f"{second} with")
    assert game.decl.with_seats == [second]
    third = game.to_move
    assert third not in (first, second)
    game.apply(f"{third} bid 6C")
    assert game.decl.with_seats == []  # voided, but still in the auction
    fourth = game.to_move
    game.apply(f"{fourth} pass")
    # the turn comes back round to the seats whose With was voided (and the first bidder)
    assert game.to_move == first
    game.apply(f"{first} with")
    game.apply(f"{second} pass")
    assert game.phase is Phase.DECLARE and game.to_move == third
    with pytest.raises(IllegalActionError, match="never lower"):
        game.apply(f"{third} declare 5S")
    game.apply(f"{third} declare 7S")
    # With seats estimate first, then the others, in seat order after the Caller
    assert game.est_order[0] == first
    assert game.estimates[third] == 7 and str(game.trump) == "S"


def test_speed_round_bids_name_the_fixed_trump_and_only_8_plus_changes_it() -> None:
    game = fresh(seed=3, length="standard")
    rng = random.Random(3)
    while game.round_no < 14:
        game.apply(rng.choice(game.legal_actions()))
    assert game.spec.kind == "speed" and str(game.spec.trump) == "NT"
    offers(game)
    seat = game.to_move
    bids = [a for a in game.legal_actions() if a.verb == "bid"]
    assert bids and all(str(a.trump) == "NT" for a in bids)
    with pytest.raises(IllegalActionError, match="names NT"):
        game.apply(f"{seat} bid 5S")
    game.apply(f"{seat} bid 5NT")
    while game.phase is Phase.AUCTION:
        game.apply(f"{game.to_move} pass")
    declares = {a.text.split()[-1] for a in game.legal_actions()}
    assert "7NT" in declares and "7S" not in declares and "8S" in declares and "13C" in declares


def test_a_leaver_ends_the_match_and_cannot_win() -> None:
    game = fresh(seed=4)
    rng = random.Random(4)
    while game.round_no < 3:
        game.apply(rng.choice(game.legal_actions()))
    for _ in range(7):
        game.apply(rng.choice(game.legal_actions()))
    leader = max(range(4), key=lambda s: game.totals[s])
    game.end_match_left(leader)
    assert game.is_over and game.to_move is None and game.legal_actions() == ()
    assert game.places[leader] == 4
    summary = estimation.replay_summary(game)
    assert summary["complete"] is False and summary["places"][leader] == 4
    record = game.record()
    assert record["ended"] == {"reason": "left", "seat": leader}
    loaded = estimation.load_record(record)
    assert loaded.is_over and loaded.places == game.places and loaded.record() == record
    assert level_points(game.places, leader)[leader] == 0  # a leaver's match pays nothing (issue 25, B6)


def test_leaving_does_not_end_a_koutchina_match() -> None:
    game = estimation.new_game(seed=1)
    with pytest.raises(IllegalActionError, match="replaced"):
        game.end_match_left(2)
    assert not game.is_over


def test_level_points_win_draw_loss() -> None:
    assert level_points([1, 2, 3, 4]) == [30, 4, 4, 4]
    assert level_points([1, 1, 3, 4]) == [10, 10, 4, 4]
    assert level_points([4, 1, 2, 3], leaver=0) == [0, 30, 4, 4]
    assert level_points([1, 2, 3, 4], leaver=0) == [0, 4, 4, 4]  # never a win, whatever the places
    # Partners: by the side's place; a leaver's side is placed 2nd, and the leaver's loss pays 4 too.
    assert level_points([1, 2, 1, 2], partners=True) == [30, 4, 30, 4]
    assert level_points([1, 1, 1, 1], partners=True) == [10, 10, 10, 10]
    assert level_points([2, 1, 2, 1], leaver=0, partners=True) == [0, 30, 4, 30]


def test_a_ruleset_without_level_points_pays_none() -> None:
    assert estimation.RULESETS["koutchina"].match_level_points([1, 2, 3, 4]) is None


def test_egyptian_never_multiplies() -> None:
    for seed in range(30):
        game = fresh(seed=seed, length="committee")
        play_random(game, random.Random(seed))
        assert all(r.multiplier == 1 and not r.saaydeh for r in game.round_results)
        assert {r.kind for r in game.round_results} <= {"auction", "nobid"}
