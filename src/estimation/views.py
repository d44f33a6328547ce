"""The one place a game's state is redacted for a seat.

A view holds the seat's own hand and every public fact; never another hand, never the seed, never the
cards of a deal not yet played. Bots and clients get exactly this, so there is one thing to audit.
"""

from __future__ import annotations

from typing import Any

from .cards import CARD_TEXTS, SUITS, Trump, cards_of
from .rulesets.base import GameState, Phase

#: (bit, text) of each suit, for the Avoid markers.
_SUIT_TEXTS = tuple((int(t), str(t)) for t in SUITS)


def seat_view(game: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may know (``None``: a spectator): the public facts and that seat's own part."""
    if seat is not None and seat not in (0, 1, 2, 3):
        raise ValueError(f"not a seat: {seat!r}")
    view = public_view(game)
    view.update(seat_part(game, seat))
    return view


def seat_part(game: GameState, seat: int | None) -> dict[str, Any]:
    """The only fields that differ between seats: whose view it is, its hand and its legal actions.

    Split from :func:`public_view` so that a server sending one update to four seats builds the public
    facts once (they are most of a view, and most of its cost) and only this per seat.
    """
    if seat is not None and seat not in (0, 1, 2, 3):
        raise ValueError(f"not a seat: {seat!r}")
    return {
        "seat": seat,
        "hand": None if seat is None else [CARD_TEXTS[c] for c in cards_of(game.hands[seat])],
        "legal": [a.text for a in game.legal_actions()]
        if seat is not None and seat == game.to_move else [],
    }


def public_view(game: GameState, *, results: bool = True) -> dict[str, Any]:
    """Every public fact of the game and nothing else: no hand, no seed, no card of a deal not yet played.

    ``results=False`` leaves out the scored rounds, for a sender that keeps them encoded: they never
    change once scored, yet turning them into dicts again was over half of a late view's cost.

    Everything that depends on the ruleset comes from the ruleset (its public declarations, the trump in
    force, each seat's role, the Risk in play, its verbs), so a client never needs to test a ruleset's name.
    """
    ruleset = game.ruleset
    declared = ruleset.public_declarations(game)
    standing = declared.standing
    estimates = list(game.estimates)
    playing = game.phase is Phase.PLAY
    roles = ruleset.seat_roles(game)
    risk_seat, risk = ruleset.risk_in_play(game)
    markers = []
    avoid = game.avoid
    for s in range(4):
        est = estimates[s]
        markers.append({
            "tricks": game.tricks_won[s],
            "estimate": est,
            "bust": est is not None and playing and game.tricks_won[s] > est,
            "avoid": [text for bit, text in _SUIT_TEXTS if avoid[s] >> bit & 1],
            "risk": risk if s == risk_seat else 0,
            "role": roles[s],
        })
    trick_seats = [(game.leader + i) & 3 for i in range(len(game.trick))]
    over = game.is_over
    trump = ruleset.trump_in_force(game)
    view: dict[str, Any] = {
        "ruleset": ruleset.name,
        "length": game.length,
        "players": list(game.players),
        "partners": game.partners,
        "sides": game.sides,
        "verbs": ruleset.verb_names(),
        "rules": {"saaydeh": ruleset.saaydeh, "leaver_ends_match": ruleset.leaver_ends_match,
                  "risk_levels": ruleset.risk_levels, "offer_role": ruleset.offer_role},
        "round": game.round_no,
        "rounds": game.rounds,
        "deal": game.deal_no + 1,
        "dealer": game.dealer,
        "kind": ruleset.round_kind(game) if not over else None,
        "phase": str(game.phase),
        "to_move": game.to_move,
        "multiplier": game.multiplier,
        "hand_sizes": [h.bit_count() for h in game.hands],
        "actions": [a.text for a in game.actions],
        "dash_seats": list(declared.dash_seats),
        "standing": None if standing is None else
        {"number": standing[0], "trump": str(standing[1]), "seat": standing[2]},
        "with_seats": list(declared.with_seats),
        "declared": None if declared.declared is None else
        {"number": declared.declared[0], "trump": str(declared.declared[1])},
        "caller": game.caller,
        "trump": None if trump is None else str(trump),
        "estimates": estimates,
        "estimate_order": list(game.est_order),
        "trick": [{"seat": s, "card": CARD_TEXTS[c]} for s, c in zip(trick_seats, game.trick, strict=True)],
        "leader": game.leader if playing else None,
        "tricks": [
            {"leader": lead, "cards": [CARD_TEXTS[c] for c in cards], "winner": w}
            for lead, cards, w in game.trick_log
        ],
        "markers": markers,
        "totals": list(game.totals),
        "places": game.places,
        "over": over,
        "ended": game.ended,
    }
    if results:
        view["results"] = [r.to_dict() for r in game.round_results]
    return view


def trump_in_force(game: GameState) -> Trump | None:
    """The trump the cards will be played in as things stand, or ``None`` while it is not yet public.

    RULES.md: "the trump shown is the trump in force". The ruleset says (``Ruleset.trump_in_force``): a
    round's fixed trump is public from the start, any other once the auction (and a declaration) is over,
    and a ruleset whose declarations change it while estimates are made (koutchina's Super Call) shows the
    change the moment it is made, the very trump play will start with.
    """
    return game.ruleset.trump_in_force(game)
