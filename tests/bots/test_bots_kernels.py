"""The bots' fast paths agree with the reference engine.

- ``policy_rollout`` (the rollout kernel) plays exactly the cards ``choose_card`` picks when the same
  policy drives the checked engine, and ends with the engine's trick counts;
- the shadow game rebuilt from a view and the true hands is the real game's state;
- ``Scorer`` gives the engine's own round scores;
- the exact endgame solver with equivalent cards merged equals a plain max^n over every card.
"""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS, positions

import estimation
from estimation.actions import Action
from estimation.bots import shadow
from estimation.bots.knowledge import from_view
from estimation.bots.policy import choose_card, policy_rollout
from estimation.bots.search import solve
from estimation.bots.shadow import Scorer, round_scorer, shadow_game
from estimation.cards import SUIT_BITS, Card


def _play_phase_games(ruleset: str, length: str, seed: int) -> list[estimation.Game]:
    return [g for g in positions(ruleset, length, seed=seed, every=5) if g.phase == "play"]


def _engine_policy_playout(game: estimation.Game) -> list[int]:
    """Drive the checked engine with choose_card, seeing the true hands as the rollout does."""
    g = game.clone()
    targets = [e if e is not None else 0 for e in g.estimates]
    round_no = g.round_no
    while g.round_no == round_no and not g.is_over:
        seat = g.to_move
        assert seat is not None
        n = len(g.trick)
        later = [g.hands[(seat + i) & 3] for i in range(1, 4 - n)]
        outside = (g.hands[0] | g.hands[1] | g.hands[2] | g.hands[3]) & ~g.hands[seat]
        card = choose_card(g.hands[seat], g.trick, int(g.trump), targets[seat] - g.tricks_won[seat],
                           later, outside)
        g.apply(Action.play(seat, Card(card)))
    return list(g.round_results[len(game.round_results)].tricks)


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_policy_rollout_matches_the_engine(ruleset: str, length: str) -> None:
    games = _play_phase_games(ruleset, length, seed=11)
    assert games
    for game in games:
        state = game.play_state()
        targets = [e if e is not None else 0 for e in game.estimates]
        fast = policy_rollout(state.hands, state.trump, state.leader, state.trick, state.won, targets)
        assert fast == _engine_policy_playout(game)


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_shadow_game_rebuilds_the_state(ruleset: str, length: str) -> None:
    n = 0
    for game in positions(ruleset, length, seed=13, every=4):
        seat = game.to_move
        assert seat is not None
        info = from_view(game.view(seat))
        shadow = shadow_game(info, list(game.hands))
        for name in ("phase", "to_move", "estimates", "caller", "trick", "tricks_won", "leader", "hands",
                     "decl", "est_order", "multiplier", "kind", "dealer"):
            assert getattr(shadow, name) == getattr(game, name), name
        if game.phase == "play" or game.kind != "call" or game.caller is not None:
            assert shadow.trump == game.trump
        assert shadow.legal_actions() == game.legal_actions()
        n += 1
    assert n > 10


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_scorer_matches_the_engine(ruleset: str, length: str) -> None:
    rng = random.Random(5)
    for game in _play_phase_games(ruleset, length, seed=17)[:6]:
        info = from_view(game.view(game.to_move))
        scorer = Scorer(shadow_game(info, list(game.hands)))
        tricks, scores = _random_ending(game, rng)
        assert scorer(tricks) == scores


def _random_ending(game: estimation.Game, rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The round's final tricks and scores once ``game`` is played on at random from here."""
    g = game.clone()
    done = len(g.round_results)
    while len(g.round_results) == done:
        g.apply(rng.choice(g.legal_actions()))
    result = g.round_results[done]
    return tuple(result.tricks), tuple(result.scores)


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_a_rounds_shared_scorer_scores_later_positions_like_the_engine(ruleset: str, length: str) -> None:
    """``round_scorer`` hands every play decision of a round (any seat, any trick) the scorer built at
    the round's first: it must score each position's real ending as the engine does, be the same object
    within a round, and another one for another round."""
    rng = random.Random(9)
    shadow._round_scorers.clear()
    by_round: dict[tuple[int, int], Scorer] = {}
    for game in _play_phase_games(ruleset, length, seed=23):
        info = from_view(game.view(game.to_move))
        scorer = round_scorer(info, list(game.hands))
        assert by_round.setdefault((info.round, info.deal), scorer) is scorer
        tricks, scores = _random_ending(game, rng)
        assert scorer(tricks) == scores
    assert len(by_round) > 3 and len({id(s) for s in by_round.values()}) == len(by_round)


def test_the_round_scorers_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shadow, "ROUND_SCORERS", 2)
    shadow._round_scorers.clear()
    games = _play_phase_games("koutchina", "full", seed=31)
    rounds = {}
    for game in games:
        info = from_view(game.view(game.to_move))
        rounds.setdefault((info.round, info.deal), (info, list(game.hands)))
    first, *later = list(rounds.values())[:4]
    kept = round_scorer(*first)
    for info, hands in later:
        round_scorer(info, hands)
        assert len(shadow._round_scorers) <= 2
    assert round_scorer(*first) is not kept  # dropped as the least recently used, then built again


def _plain_maxn(hands: list[int], trump: int, leader: int, trick: list[int], won: list[int],
                scorer: Scorer) -> tuple[int, ...]:
    seat = (leader + len(trick)) & 3
    hand = hands[seat]
    if not hand:
        return scorer(won)
    legal = hand
    if trick and hand & SUIT_BITS[trick[0] // 13]:
        legal = hand & SUIT_BITS[trick[0] // 13]
    best: tuple[int, ...] | None = None
    for c in range(52):
        if not legal >> c & 1:
            continue
        hands[seat] = hand ^ (1 << c)
        full = [*trick, c]
        if len(full) == 4:
            from estimation.fast import trick_winner_index

            w = (leader + trick_winner_index(full, trump)) & 3
            won2 = list(won)
            won2[w] += 1
            v = _plain_maxn(hands, trump, w, [], won2, scorer)
        else:
            v = _plain_maxn(hands, trump, leader, full, won, scorer)
        if best is None or v[seat] > best[seat]:
            best = v
    hands[seat] = hand
    assert best is not None
    return best


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS[:3])
def test_endgame_solver_merges_only_equivalent_cards(ruleset: str, length: str) -> None:
    n = 0
    for seed in range(30):
        for game in _play_phase_games(ruleset, length, seed=seed):
            if game.hands[game.to_move].bit_count() > 3:
                continue
            info = from_view(game.view(game.to_move))
            scorer = Scorer(shadow_game(info, list(game.hands)))
            s = game.play_state()
            fast, _tricks = solve(list(s.hands), s.trump, s.leader, list(s.trick), list(s.won), scorer)
            plain = _plain_maxn(list(s.hands), s.trump, s.leader, list(s.trick), list(s.won), scorer)
            # Max^n ties may be broken differently; the seat to move gets the same value either way.
            assert fast[game.to_move] == plain[game.to_move]
            n += 1
        if n >= 15:
            break
    assert n > 0
