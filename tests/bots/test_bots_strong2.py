"""`strong-fast`: its kernel, its carried deals, its race and its determinism.

- ``policy_rollout`` (inlined) plays exactly what ``policy_rollout_reference`` (one ``choose_card`` a card)
  plays, on random positions;
- the play's carried deals stay consistent with the view at every position of games of every ruleset
  (without the safety net that replaces an inconsistent one), and are a pure function of the view: a cold
  cache gives the same deals as one warmed by every earlier position;
- the scorer built once a deal scores like one built at the position;
- the race keeps the leader and drops a candidate that is worse on every deal;
- two bots with the same seed play the same game; ``strong`` too.
"""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS

import estimation
from estimation.actions import Action
from estimation.bots import HeuristicBot, RaceBudget, Strong2Bot, StrongBot, make_bot, particles
from estimation.bots.knowledge import from_game
from estimation.bots.particles import play_deals
from estimation.bots.policy import policy_rollout, policy_rollout_reference
from estimation.bots.sampler import consistent
from estimation.bots.shadow import Scorer, shadow_game
from estimation.bots.strong2 import race
from estimation.cards import SUIT_BITS, Card


def _position(rng: random.Random) -> tuple[list[int], int, int, list[int], list[int], list[int]]:
    cards = list(range(52))
    rng.shuffle(cards)
    done = rng.randrange(13)
    left = 13 - done
    hands = [0, 0, 0, 0]
    for s in range(4):
        for c in cards[s * left:(s + 1) * left]:
            hands[s] |= 1 << c
    leader = rng.randrange(4)
    trick: list[int] = []
    for i in range(rng.randrange(4)):
        s = (leader + i) & 3
        pool = hands[s]
        if trick and pool & SUIT_BITS[trick[0] // 13]:
            pool &= SUIT_BITS[trick[0] // 13]
        c = rng.choice([x for x in range(52) if pool >> x & 1])
        hands[s] ^= 1 << c
        trick.append(c)
    won = [0, 0, 0, 0]
    for _ in range(done):
        won[rng.randrange(4)] += 1
    targets = [rng.randrange(8) for _ in range(4)]
    return hands, rng.randrange(5), leader, trick, won, targets


def test_inlined_rollout_plays_like_the_reference() -> None:
    rng = random.Random(24)
    for _ in range(3000):
        hands, trump, leader, trick, won, targets = _position(rng)
        assert policy_rollout(hands, trump, leader, trick, won, targets) == policy_rollout_reference(
            hands, trump, leader, trick, won, targets)


def _heuristic_games(ruleset: str, length: str, seed: int, rounds: int = 3):  # type: ignore[no-untyped-def]
    """Positions (game clones) of a heuristic game's first ``rounds`` rounds, in the play phase."""
    game = estimation.new_game(ruleset, length, seed=seed)
    bots = [HeuristicBot(s) for s in range(4)]
    while not game.is_over and game.round_no <= rounds:
        seat = game.to_move
        assert seat is not None
        if str(game.phase) == "play":
            yield game.clone()
        game.apply(bots[seat].act(game.view(seat)))


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
def test_carried_deals_fit_the_view_and_depend_on_it_alone(ruleset: str, length: str,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = []
    monkeypatch.setattr(particles, "sample_hands", lambda info, rng: fresh.append(1) or [])
    checked = 0
    for i, game in enumerate(_heuristic_games(ruleset, length, seed=300)):
        seat = game.to_move
        assert seat is not None
        info = from_game(game, seat)
        warm = play_deals(info, 6)
        assert all(consistent(info, h) for h in warm)  # and the safety net never fired
        if i % 5 == 0:
            particles._CACHE.clear()
            assert play_deals(info, 6) == warm
        checked += 1
    assert checked > 20
    assert not fresh


def test_the_scorer_of_a_deal_scores_like_one_built_at_the_position() -> None:
    rng = random.Random(5)
    firsts: dict[tuple[int, int], Scorer] = {}
    for game in _heuristic_games("koutchina", "full", seed=8, rounds=4):
        seat = game.to_move
        assert seat is not None
        info = from_game(game, seat)
        hands = list(game.hands)
        here = Scorer(shadow_game(info, hands))
        first = firsts.setdefault((info.round, info.deal), here)
        for _ in range(3):
            tricks = [0, 0, 0, 0]
            for _t in range(13):
                tricks[rng.randrange(4)] += 1
            assert first(tricks) == here(tricks)


def test_race_keeps_the_leader_and_drops_the_clearly_worse() -> None:
    a = Action.play(0, Card(0))
    b = Action.play(0, Card(1))
    c = Action.play(0, Card(2))
    deals = [[i, 0, 0, 0] for i in range(16)]

    def sim(action: Action, hands: list[int]) -> tuple[float, int]:
        noise = hands[0] % 3
        if action is a:
            return 10.0 + noise, 1
        if action is b:
            return 0.0 + noise, 1
        return 10.0 + noise + (1 if hands[0] % 2 else -1), 2

    out = race([a, b, c], deals, sim, batch=4, z=2.0)
    assert [e.action for e in out] == [a, c]  # b: 10 worse on every deal; c: level with a
    assert all(e.n == 16 for e in out)


@pytest.mark.parametrize("level", ["strong-fast", "strong"])
def test_same_seed_same_game(level: str) -> None:
    def one() -> list[str]:
        particles._CACHE.clear()
        game = estimation.new_game("koutchina", "micro", seed=31)
        if level == "strong-fast":
            small = RaceBudget(play_deals=6, declaration_deals=4, batch=2)
            bots = [Strong2Bot(40 + s, small) for s in range(4)]
        else:
            bots = [StrongBot(40 + s) for s in range(4)]
            for bot in bots:
                bot.budget.samples = bot.budget.play_samples = 3
        played = []
        while not game.is_over and game.round_no <= 2:
            seat = game.to_move
            assert seat is not None
            text = bots[seat].act(game.view(seat))
            played.append(text)
            game.apply(text)
        return played

    assert one() == one()
    assert make_bot(level, 1).name == level
