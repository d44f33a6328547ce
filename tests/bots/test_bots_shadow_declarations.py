"""The heuristic's declarations as the strong bot's simulations make them (``shadow.ShadowAuction``: a
decision's simulated auctions as a tree the deals share, ``heuristic.heuristic_declaration`` on a cached
reading of the legal list) are the choices of the plain rule written out below, every legal action
compared in order as the heuristic was first written, applied one by one to the game; and an auction's
end scores as the engine scores that game.

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
from estimation.bots.shadow import MAX_DECLARATIONS, ShadowAuction
from estimation.results import score_round
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


def plainly_declared(g: Game, action: Action) -> Game | None:
    """``g`` with ``action`` applied and every later declaration the plain rule's for ``g``'s hands, one by
    one through the engine, to the first card; None if the deal was thrown in."""
    g = g.clone()
    round_no, deal_no = g.round_no, g.deal_no
    g.apply(action)
    for _ in range(MAX_DECLARATIONS):
        if g.phase is Phase.PLAY or g.round_no != round_no or g.deal_no != deal_no or g.to_move is None:
            break
        info = from_game(g, g.to_move)
        g.apply(plain_choice(info.hand, info.legal, info.standing, info.trump))
    if g.phase is not Phase.PLAY or g.round_no != round_no or g.deal_no != deal_no:
        return None
    return g


@pytest.mark.parametrize(("ruleset", "length"), RULESET_LENGTHS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_the_simulations_declare_as_the_plain_rule(ruleset: str, length: str, seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    for position in declaring_positions(ruleset, length, seed):
        auction = ShadowAuction(position)  # one a decision: the deals share its tree
        candidates = rng.sample(position.legal_actions(), min(3, len(position.legal_actions())))
        for _ in range(4):
            g = reshuffled(position, rng)
            seat = g.to_move
            assert seat is not None
            info = from_game(g, seat)
            want = plain_choice(info.hand, info.legal, info.standing, info.trump)
            assert heuristic_action(info) is want, (g.actions, want)
            for action in candidates:
                plain = plainly_declared(g, action)
                end = auction.after(g.hands, action)
                if plain is None:
                    assert end is None, (g.actions, action)
                    continue
                assert end is not None, (g.actions, action)
                assert end.actions == tuple(plain.actions[len(g.actions):])
                assert end.targets == tuple(e or 0 for e in plain.estimates)
                assert (end.trump, end.leader) == (int(plain.trump), plain.leader)  # type: ignore[arg-type]
                tricks = [0, 0, 0, 0]
                for _trick in range(13):
                    tricks[rng.randrange(4)] += 1
                plain.tricks_won = tricks
                breakdown, _ = score_round(plain.ruleset, plain.ruleset.facts(plain))  # the engine's scoring
                assert end.scorer(tricks) == tuple(s.score for s in breakdown)
                checked += 1
    assert checked


def test_a_decision_asks_the_engine_once_a_position() -> None:
    """Deals whose simulated auctions go the same way share the tree's positions and the end (with its
    scorer): walking a deal again asks the engine nothing; a walk asks it only past the known tree."""
    position = next(g for g in declaring_positions("egyptian", "standard", 3)
                    if g.phase is Phase.AUCTION and g.decl.standing is not None)
    auction = ShadowAuction(position)
    rng = random.Random(1)
    action = position.legal_actions()[0]
    deals = [reshuffled(position, rng).hands for _ in range(20)]
    ends = [auction.after(hands, action) for hands in deals]
    asked = auction.positions
    assert asked > 0
    assert [auction.after(hands, action) for hands in deals] == ends
    assert auction.positions == asked  # the second walks asked nothing
    assert None not in ends
    paths = {e.actions for e in ends if e is not None}
    assert 1 < len(paths) < len(deals)  # the deals' auctions went several ways, some of them alike
    assert asked == len({p[:i] for p in paths for i in range(1, len(p) + 1)})  # a position asked once
