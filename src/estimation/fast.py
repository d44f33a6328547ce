"""The unchecked fast path for simulations: trick play on bare ints.

:class:`PlayState` is a play-phase position (hands as masks, trick so far, tricks won). Bots copy it and play
out the rest of the deal thousands of times per decision, so the rollout loop touches nothing but ints and
two lookup tables. It follows exactly the rules of :meth:`estimation.game.Game.apply` (a test compares them).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from .cards import RANKS_OF, SUIT_MASK
from .rulesets.base import GameState

NO_TRUMP: Final = 4


class PlayState:
    """A play-phase position. ``trick`` holds the cards played so far to the current trick, leader first."""

    __slots__ = ("hands", "leader", "trick", "trump", "won")

    def __init__(self, hands: list[int], trump: int, leader: int, trick: list[int],
                 won: list[int]) -> None:
        self.hands = hands
        self.trump = trump
        self.leader = leader
        self.trick = trick
        self.won = won

    @classmethod
    def from_game(cls, game: GameState) -> PlayState:
        return cls(list(game.hands), int(game.trump), game.leader, list(game.trick),
                   list(game.tricks_won))

    def copy(self) -> PlayState:
        return PlayState(list(self.hands), self.trump, self.leader, list(self.trick), list(self.won))

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) & 3

    @property
    def is_done(self) -> bool:
        return not any(self.hands) and not self.trick

    def legal_mask(self) -> int:
        hand = self.hands[(self.leader + len(self.trick)) & 3]
        if self.trick:
            shift = (self.trick[0] // 13) * 13
            follow = hand & (SUIT_MASK << shift)
            if follow:
                return follow
        return hand

    def play(self, card: int) -> int | None:
        """Play ``card`` for the seat to move (unchecked); returns the trick's winner when it completes."""
        seat = (self.leader + len(self.trick)) & 3
        self.hands[seat] ^= 1 << card
        trick = self.trick
        trick.append(card)
        if len(trick) < 4:
            return None
        winner = (self.leader + trick_winner_index(trick, self.trump)) & 3
        self.won[winner] += 1
        self.leader = winner
        self.trick = []
        return winner

    def rollout_random(self, rng: random.Random) -> list[int]:
        """Play the deal out with uniform random legal cards; tricks won per seat. ``self`` is kept."""
        return random_rollout(self.hands, self.trump, self.leader, self.trick, self.won, rng.random)


def trick_winner_index(trick: list[int] | tuple[int, ...], trump: int) -> int:
    best = trick[0]
    best_i = 0
    for i in (1, 2, 3):
        c = trick[i]
        if c // 13 == best // 13:
            if c > best:
                best, best_i = c, i
        elif c // 13 == trump:
            best, best_i = c, i
    return best_i


def random_rollout(hands: list[int], trump: int, leader: int, trick: list[int], won: list[int],
                   rnd: Callable[[], float]) -> list[int]:
    """The rollout kernel; arguments are copied, never mutated."""
    h = list(hands)
    won = list(won)
    cards = list(trick)
    ranks_of = RANKS_OF
    while True:
        seat = (leader + len(cards)) & 3
        hand = h[seat]
        if not hand:
            return won
        if cards:
            base = (cards[0] // 13) * 13
            suit_bits = (hand >> base) & 0x1FFF
            if suit_bits:
                ranks = ranks_of[suit_bits]
                card = base + ranks[int(rnd() * len(ranks))]
            else:
                card = _pick_any(hand, rnd)
        else:
            card = _pick_any(hand, rnd)
        h[seat] = hand ^ (1 << card)
        cards.append(card)
        if len(cards) == 4:
            # trick_winner_index, inlined: one call less per trick is 7% of a rollout.
            best = cards[0]
            best_i = 0
            for i in (1, 2, 3):
                c = cards[i]
                if c // 13 == best // 13:
                    if c > best:
                        best, best_i = c, i
                elif c // 13 == trump:
                    best, best_i = c, i
            leader = (leader + best_i) & 3
            won[leader] += 1
            cards = []


def _pick_any(hand: int, rnd: Callable[[], float]) -> int:
    k = int(rnd() * hand.bit_count())
    for base in (0, 13, 26, 39):
        ranks = RANKS_OF[(hand >> base) & 0x1FFF]
        if k < len(ranks):
            return base + ranks[k]
        k -= len(ranks)
    raise AssertionError("empty hand")  # pragma: no cover
