"""Deal the cards a seat cannot see anew, consistent with everything it has seen.

The other seats keep their hand sizes; a seat marked Avoid in a suit gets none of it; cards already played
and the seat's own hand stay where they are. ISMCTS uses this to sample worlds from an information state.
"""

from __future__ import annotations

import random

from ..cards import cards_of
from ..game import Game


def sample_hidden_hands(game: Game, player: int, rng: random.Random, tries: int = 200) -> tuple[int, ...]:
    """Four hand masks: ``player``'s own hand as it is, the others' unseen cards redistributed."""
    others = [s for s in range(4) if s != player]
    # Sorted, so the sample depends on which cards are unseen, never on who really holds them.
    unseen = sorted(c for s in others for c in cards_of(game.hands[s]))
    size = {s: game.hands[s].bit_count() for s in others}
    eligible = {c: [s for s in others if not game.avoid[s] >> (c // 13) & 1] for c in unseen}
    for _ in range(tries):
        rng.shuffle(unseen)
        unseen.sort(key=lambda c: len(eligible[c]))  # most constrained first; ties stay shuffled
        room = dict(size)
        hands = {s: 0 for s in others}
        for card in unseen:
            seats = [s for s in eligible[card] if room[s] > 0]
            if not seats:
                break
            seat = rng.choices(seats, weights=[room[s] for s in seats])[0]
            room[seat] -= 1
            hands[seat] |= 1 << card
        else:
            return tuple(game.hands[s] if s == player else hands[s] for s in range(4))
    # Constraints so tight that sampling keeps failing: the true deal is always consistent.
    return tuple(game.hands)


def redeal_hidden(game: Game, player: int, rng: random.Random) -> None:
    """Replace, in place, what ``player`` cannot see in ``game`` by a fresh consistent sample."""
    played = [0, 0, 0, 0]
    for action in game.actions:
        if action.card is not None:
            played[action.seat] |= 1 << action.card
    hands = sample_hidden_hands(game, player, rng)
    game.hands = list(hands)
    game.dealt = tuple(hands[s] | played[s] for s in range(4))
    game._legal = None
