"""The heuristic's declarations as the strong bot's simulations make them (``search.ShadowDeclarations``,
``heuristic.heuristic_declaration`` on a cached reading of the legal list) are the choices of the plain
rule written out below: every legal action compared, in order, as the heuristic was first written.

Positions: random legal play of every ruleset and length up to a declaration, then every seat's hand
swapped for random others (a simulation's deals), so that the hand-dependent choices are all met.
"""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS
from hypothesis import given, settings
from hypothesis import strategies as st

import estimation
from estimation import Game
from estimation.actions import Action, Verb
from estimation.bots.handeval import expected_tricks
from estimation.bots.heuristic import CALL_SLACK, LEAD_BONUS, estimate_for, heuristic_action, wants_dash
from estimation.bots.knowledge import from_game
from estimation.bots.search import ShadowDeclarations
from estimation.rulesets.base import Phase


def plain_choice(hand: int, legal: tuple[Action, ...], standing: tuple[int, int, int] | None,
                 trump: int | None) -> Action:
    """The heuristic's declaration rule, every action of the list looked at (the oracle)."""
    verbs = {a.verb for a in legal}
    values = [expected_tricks(hand, t) + LEAD_BONUS for t in range(5)]
    if verbs & {Verb.DASHCALL, Verb.DASH} and Verb.NODASH in verbs:
        take = wants_dash(hand)
        return next(a for a in legal if (a.verb is not Verb.NODASH) == take)
    if verbs & {Verb.CALL, Verb.BID, Verb.WITH, Verb.PASS}:
        best, best_key = None, (-99.0, 0)
        for a in legal:
            if a.verb in (Verb.CALL, Verb.BID) and a.number is not None and a.trump is not None:
                v = values[int(a.trump)]
                if a.number <= v + CALL_SLACK and (v, -a.number) > best_key:
                    best, best_key = a, (v, -a.number)
        if best is not None:
            return best
        for a in legal:
            within = standing is not None and standing[0] <= values[standing[1]] - LEAD_BONUS
            if a.verb is Verb.WITH and within:
                return a
        return next((a for a in legal if a.verb is Verb.PASS), legal[0])
    if Verb.DECLARE in verbs:
        best, best_key = legal[0], (-99.0, 0)
        for a in legal:
            if a.number is not None and a.trump is not None:
                v = values[int(a.trump)]
                key = (min(0.0, v + CALL_SLACK - a.number) * 10 + v, -a.number)
                if key > best_key:
                    best, best_key = a, key
        return best
    if Verb.EST in verbs:
        target = estimate_for(hand, trump if trump is not None else 4)
        best, best_key = legal[0], 99.0
        for a in legal:
            if a.verb is Verb.EST and a.trump is None and a.number is not None:
                key = abs(a.number - target) + (0.01 if a.number > target else 0.0)
                if key < best_key:
                    best, best_key = a, key
        return best
    return legal[0]


def declaring_positions(ruleset: str, length: str, seed: int) -> list[Game]:
    """Clones of a randomly played game at each of its declarations."""
    rng = random.Random(seed)
    game = estimation.new_game(ruleset, length, seed=seed)
    out = []
    while not game.is_over and len(out) < 60:
        if game.phase is not Phase.PLAY:
            out.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return out


def reshuffled(game: Game, rng: random.Random) -> Game:
    """The same position with the cards not yet played dealt again at random, each seat keeping its count."""
    g = game.clone()
    cards = [c for h in g.hands for c in range(52) if h >> c & 1]
    rng.shuffle(cards)
    hands = []
    for h in g.hands:
        n = h.bit_count()
        hands.append(sum(1 << c for c in cards[:n]))
        cards = cards[n:]
    g.hands = hands
    return g


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_simulations_declare_as_the_plain_rule(ruleset: str, length: str, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for position in declaring_positions(ruleset, length, seed):
        shadow = ShadowDeclarations()  # one a decision: its key is the deal's actions so far
        for _ in range(4):
            g = reshuffled(position, rng)
            seat = g.to_move
            assert seat is not None
            info = from_game(g, seat)
            want = plain_choice(info.hand, info.legal, info.standing, info.trump)
            assert heuristic_action(info) is want, (g.actions, want)
            assert shadow.next(g) is want, (g.actions, want)
            checked += 1
    assert checked


def test_a_simulation_reads_the_public_facts_once_a_sequence() -> None:
    """Deals at the same public position share one reading of the legal list, the standing bid and the
    trump in force, and each still gets the choice for its own hand."""
    position = next(g for g in declaring_positions("egyptian", "standard", 3)
                    if g.phase is Phase.AUCTION and g.decl.standing is not None)
    shadow = ShadowDeclarations()
    rng = random.Random(1)
    seat = position.to_move
    assert seat is not None
    info = from_game(position, seat)
    for _ in range(20):
        g = reshuffled(position, rng)
        assert shadow.next(g) is plain_choice(g.hands[seat], info.legal, info.standing, info.trump)
        assert len(shadow._public) == 1
