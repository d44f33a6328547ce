"""RULES.md, common to every ruleset: "the trump shown is the trump in force".

A Super Call (fixed rounds) or an egyptian declaration changes the trump the moment it is made, and every
seat still to estimate, every other seat and every spectator sees the new trump at once, not when the
first card is played. The view must never run ahead of the rules either: before the auction ends in a
round without a fixed trump, it shows none.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import estimation
from estimation import Game, get_ruleset
from estimation.dealing import deal_hands

VIEWERS = (0, 1, 2, 3, None)


def _at(ruleset: str, length: str, round_no: int, *, deal_no: int = 0, dealer: int = 0) -> Game:
    """A game standing at the first action of one deal, on seeded cards."""
    hands = deal_hands(7, round_no, deal_no)
    return Game.at_deal(get_ruleset(ruleset), length, round_no=round_no, deal_no=deal_no, dealer=dealer,
                        hands=hands)


def _shown(game: Game) -> str | None:
    """The trump every viewer is shown, checked to be the same for the four seats and a spectator."""
    shown = {game.view(v)["trump"] for v in VIEWERS}
    assert len(shown) == 1, shown
    return shown.pop()


def _act(game: Game, *texts: str) -> None:
    for text in texts:
        game.apply(text)


def test_fixed_round_super_call_changes_the_trump_shown_at_once() -> None:
    game = _at("koutchina", "micro", 2)  # the fixed spades round; dealer 0, so seat 1 estimates first
    assert game.kind == "fixed" and _shown(game) == "S"
    _act(game, "1 est 8 H")
    assert game.phase == "estimate" and _shown(game) == "H"
    # The same number later does not take over: ties go to the earliest Super Call.
    _act(game, "2 est 8 C")
    assert _shown(game) == "H"
    # A higher number does.
    _act(game, "3 est 9 D")
    assert _shown(game) == "D"
    _act(game, "0 est 0")
    assert game.phase == "play" and str(game.trump) == "D" and _shown(game) == "D"


def test_a_thirteen_super_call_names_clubs_over_no_trump() -> None:
    game = _at("koutchina", "micro", 1, dealer=2)  # the fixed NT round; seat 3 estimates first
    assert _shown(game) == "NT"
    _act(game, "3 est 13 C")
    assert _shown(game) == "C"
    _act(game, "0 est 0", "1 est 0")
    assert _shown(game) == "C"


def test_a_super_call_naming_the_trump_in_force_keeps_it_and_still_wins_ties() -> None:
    """The record k06_supercall_trump_in_force: ``est 8 NT`` in the NT round, then ``est 8 S``."""
    game = _at("koutchina", "micro", 1, dealer=3)
    _act(game, "0 est 8 NT")
    assert _shown(game) == "NT"
    _act(game, "1 est 8 S")
    assert _shown(game) == "NT"
    _act(game, "2 est 0", "3 est 1")
    assert str(game.trump) == "NT"


def test_plain_estimates_keep_the_fixed_trump() -> None:
    game = _at("koutchina", "micro", 3)  # hearts
    _act(game, "1 est 9")
    assert _shown(game) == "H"


def test_fourth_deal_fixed_nt_shows_nt_then_the_super_call() -> None:
    """Three failed auctions: the fourth deal is a fixed NT round, and a Super Call may change it."""
    game = _at("koutchina", "mini", 1, deal_no=3, dealer=1)
    assert game.kind == "fixed" and game.phase == "estimate"
    assert _shown(game) == "NT"
    _act(game, "2 est 8 H")
    assert _shown(game) == "H"
    _act(game, "3 est 2", "0 est 0")
    assert _shown(game) == "H"
    _act(game, "1 est 1")
    assert game.phase == "play" and str(game.trump) == "H" and _shown(game) == "H"


def test_call_round_shows_no_trump_until_the_auction_ends() -> None:
    game = _at("koutchina", "mini", 1, dealer=0)
    _act(game, "1 nodash", "2 nodash", "3 nodash", "0 nodash")
    assert game.phase == "auction" and _shown(game) is None
    _act(game, "1 call 5H")
    assert _shown(game) is None  # a standing call is not the trump: it can still be outbid
    _act(game, "2 pass", "3 pass", "0 pass")
    assert game.phase == "estimate" and _shown(game) == "H"


def test_egyptian_speed_declaration_changes_the_suit() -> None:
    game = _at("egyptian", "standard", 15, dealer=0)  # the second speed round: spades
    assert game.kind == "speed" and _shown(game) == "S"
    _act(game, "1 nodash", "2 nodash", "3 nodash", "0 nodash", "1 bid 5S", "2 pass", "3 pass", "0 pass")
    assert game.phase == "declare" and _shown(game) == "S"
    _act(game, "1 declare 8H")
    assert game.phase == "estimate" and _shown(game) == "H"
    # Later estimates do not touch it.
    _act(game, "2 est 0")
    assert _shown(game) == "H"


def test_egyptian_auction_round_shows_the_declared_suit_not_the_bid() -> None:
    game = _at("egyptian", "standard", 1, dealer=0)
    _act(game, "1 nodash", "2 nodash", "3 nodash", "0 nodash", "1 bid 5S", "2 pass", "3 pass", "0 pass")
    assert game.phase == "declare" and _shown(game) is None
    _act(game, "1 declare 5D")
    assert _shown(game) == "D"


def _super_takes_over(deal_actions: list[str], after: int, held: int) -> bool:
    """Whether an estimate after position ``after`` is a Super Call beating the best one made by then."""
    for text in deal_actions[after:]:
        parts = text.split()
        if parts[1] == "est" and len(parts) == 4 and int(parts[2]) > held:
            return True
    return False


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([("koutchina", "micro"), ("koutchina", "mini"), ("classic", "full"),
                        ("egyptian", "standard")]),
       st.integers(0, 2**32))
def test_the_trump_shown_while_estimating_is_the_trump_play_starts_with(case: tuple[str, str],
                                                                      seed: int) -> None:
    """At every point of random games: a trump shown in the estimate phase is the one play starts with,
    unless a later Super Call changes it; and once play starts the trump shown is the trump of play."""
    ruleset, length = case
    game = estimation.new_game(ruleset, length, seed=seed)
    rng = random.Random(seed)
    # Per estimate-phase view: (the trump shown, the deal's actions so far, the best Super Call by then).
    pending: list[tuple[str, int, int]] = []
    for _ in range(1500):
        if game.is_over:
            break
        view = game.view(None)
        if view["phase"] == "estimate":
            assert view["trump"] is not None  # the trump is always known once estimates begin
            super_call = getattr(game.decl, "super_call", None)  # koutchina's and classic's declarations
            best = super_call[0] if super_call is not None else 0
            pending.append((view["trump"], len(game.actions), best))
        elif view["phase"] == "play":
            played = str(game.trump)
            assert view["trump"] == played
            actions = [a.text for a in game.actions]
            for shown, at, best in pending:
                assert shown == played or _super_takes_over(actions, at, best), (shown, played, actions)
            pending = []
        elif game.spec.trump is None:  # a call or auction round before its estimates: nothing is decided
            assert view["trump"] is None, view["phase"]
        game.apply(rng.choice(game.legal_actions()))
