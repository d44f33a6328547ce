"""Shadow games: the current deal rebuilt on sampled cards, its scores, and the rest of its auction as the
heuristic plays it in the strong bot's simulations.

A declaration's simulation plays a candidate and then every other seat's declarations by the heuristic
until the first card. What the heuristic reads there is the seat's hand and three public facts (the
legal declarations, the standing bid, the trump in force), and the public facts follow from the actions
alone, never from the cards. So one decision's deals share a tree of declaration sequences
(:class:`ShadowAuction`): a deal walks it by the heuristic's choices for its own hands, and the engine is
asked only where no deal has gone before. Most walks end at a sequence another deal already reached (in
three games, 15,688 walks reached 6,143 distinct ends), and an end's scorer is shared by its deals.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..actions import Action
from ..game import Game
from ..results import score_round
from ..rulesets import get_ruleset
from ..rulesets.base import Phase
from .heuristic import HandFacts, heuristic_declaration
from .knowledge import Info, public_bid

#: A safety cap on one simulation's declarations after the candidate (a ruleset's auction always ends).
MAX_DECLARATIONS = 80


def shadow_game(info: Info, hands_now: Sequence[int]) -> Game:
    """The current deal rebuilt on sampled cards: same ruleset, round, dealer, multiplier and actions."""
    g = Game.at_deal(get_ruleset(info.ruleset), info.length, round_no=info.round, deal_no=info.deal - 1,
                     dealer=info.dealer, multiplier=info.multiplier,
                     hands=tuple(hands_now[s] | info.played_by[s] for s in range(4)))
    for a in info.actions:
        g.apply_unchecked(a)
    return g


class Scorer:
    """Scores by final trick counts for a deal whose declarations are over (cached: few distinct counts).

    It keeps the ruleset's :class:`~estimation.scoring.RoundFacts` of the deal, read once, and scores
    each count on a copy of them with those tricks: nothing it holds changes, so a round's decisions on
    several threads share one (:func:`round_scorer`), and a simulation's thousands of scorers keep no
    game alive for the collector to walk."""

    def __init__(self, g: Game) -> None:
        self._ruleset = g.ruleset
        self._facts = g.ruleset.facts(g)
        self._cache: dict[tuple[int, ...], tuple[int, ...]] = {}

    def __call__(self, tricks: Sequence[int]) -> tuple[int, ...]:
        key = tuple(tricks)
        found = self._cache.get(key)
        if found is None:
            breakdown, _ = score_round(self._ruleset, self._facts.with_tricks(key))
            found = self._cache[key] = tuple(s.score for s in breakdown)
        return found


#: How many rounds' scorers :func:`round_scorer` keeps (least recently used dropped): a bot process serves
#: the rounds of a few hundred tables at once, and a scorer is a round's facts and a few hundred scores.
ROUND_SCORERS = 1024
_round_scorers: OrderedDict[tuple[object, ...], Scorer] = OrderedDict()


def round_scorer(info: Info, hands_now: Sequence[int]) -> Scorer:
    """The scorer of ``info``'s round once its declarations are over, shared by every play decision of that
    round (any table's, any seat's): a round's scores depend on its declarations and final trick counts
    only, never on the cards played, so a count scored for one card is not scored again for the next.
    Rebuilding the deal and scoring its counts was a fifth of a card's CPU (docs/performance.md).

    Taken out and put back (the most recent last) rather than moved: each step is one call on the dict,
    so bots on threads can at worst build a round's scorer twice, never fail."""
    key = (info.ruleset, info.length, info.round, info.deal, info.dealer, info.multiplier,
           tuple(a for a in info.actions if a.card is None))
    scorer = _round_scorers.pop(key, None)
    if scorer is None:
        scorer = Scorer(shadow_game(info, hands_now))
    _round_scorers[key] = scorer
    if len(_round_scorers) > ROUND_SCORERS:
        _round_scorers.popitem(last=False)
    return scorer


@dataclass(frozen=True, slots=True)
class ShadowEnd:
    """Where a simulated auction reached its first card: the play's starting facts, the declarations made
    after the root (``actions``: the candidate first) and the scorer every deal that ends here shares.
    The hands are each deal's own (declarations never move a card)."""

    actions: tuple[Action, ...]
    trump: int
    leader: int
    trick: tuple[int, ...]
    won: tuple[int, ...]
    targets: tuple[int, ...]
    scorer: Scorer

    def position(self, hands: Sequence[int]) -> tuple[list[int], int, int, list[int], list[int], list[int]]:
        """The play from here with ``hands`` as a rollout takes it (hands, trump, leader, trick, tricks won,
        targets), in lists of its own: the end is shared by many deals."""
        return list(hands), self.trump, self.leader, list(self.trick), list(self.won), list(self.targets)


class _Node:
    """A position of the simulated auction: the seat to move and the public facts its choice reads, or
    ``end`` once it is decided (a :class:`ShadowEnd`, or None: the deal was thrown in, or the cap)."""

    __slots__ = ("children", "decided", "end", "legal", "seat", "standing", "trump")

    def __init__(self) -> None:
        self.children: dict[Action, _Node] = {}
        self.decided = False
        self.end: ShadowEnd | None = None
        self.seat = 0
        self.legal: tuple[Action, ...] = ()
        self.standing: tuple[int, int, int] | None = None
        self.trump: int | None = None


class ShadowAuction:
    """One decision's simulated auctions (module docstring), rooted at ``base``: the deal rebuilt
    (:func:`shadow_game`) with the seat to decide to move; ``facts``: the hands' :class:`HandFacts`, when
    the caller has them for every hand of its deals (else the heuristic works them out). Not shared
    between threads."""

    def __init__(self, base: Game, facts: Mapping[int, HandFacts] | None = None) -> None:
        self._base = base
        self._facts = facts if facts is not None else {}
        self._round = base.round_no
        self._deal = base.deal_no
        self._root = _Node()
        self.positions = 0  #: how many positions the engine was asked for (the rest were shared)

    def after(self, hands: Sequence[int], action: Action) -> ShadowEnd | None:
        """The end of the auction once ``action`` is played and every later declaration is the
        heuristic's for ``hands``; None if the deal is thrown in (every seat passed) instead. The same
        ends as applying them one by one to a clone of the base game with these hands."""
        path = [action]
        facts = self._facts
        node = self._root
        game: Game | None = None  # this deal's game, made only where the walk leaves the known tree
        while True:
            child = node.children.get(path[-1])
            if child is None:
                if game is None:
                    game = self._base.clone()
                    game.hands = list(hands)
                    for a in path:
                        game.apply_unchecked(a)
                else:
                    game.apply_unchecked(path[-1])
                child = node.children[path[-1]] = self._grow(game, path)
            node = child
            if node.decided:
                return node.end
            hand = hands[node.seat]
            path.append(heuristic_declaration(hand, node.legal, node.standing, node.trump, facts.get(hand)))

    def _grow(self, g: Game, path: list[Action]) -> _Node:
        """The node of ``g``, reached by ``path`` from the root."""
        self.positions += 1
        node = _Node()
        same_deal = g.round_no == self._round and g.deal_no == self._deal
        if g.phase is Phase.PLAY:
            node.decided = True
            if same_deal:
                assert g.trump is not None, "a deal in play has a trump (or no trump)"
                targets = tuple(e if e is not None else 0 for e in g.estimates)
                node.end = ShadowEnd(tuple(path), int(g.trump), g.leader, tuple(g.trick), tuple(g.tricks_won),
                                     targets, Scorer(g))
        elif not same_deal or g.to_move is None or len(path) > MAX_DECLARATIONS:
            node.decided = True
        else:
            node.seat = g.to_move
            node.legal = g.legal_actions()
            node.standing, node.trump = public_bid(g)
        return node
