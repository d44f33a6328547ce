"""What a seat knows, as bare ints: the one structure every bot decides from.

A bot is handed a view (a JSON-able dict of strings); parsing it into masks once per decision keeps the
strings out of the hot loops. :func:`from_view` is the path every server-facing bot takes. :func:`from_game`
builds the same structure straight from a :class:`Game` and exists only for simulations on *sampled*
(determinized) deals inside a search and for the tournament-only omniscient bot, where going through a
view would cost a dict of strings per simulated declaration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import Action
from ..cards import Trump, card_from_text

if TYPE_CHECKING:
    from ..game import Game
    from ..rulesets.base import PublicDeclarations

FULL_DECK = (1 << 52) - 1
NO_TRUMP = 4


@dataclass(slots=True)
class Info:
    """One seat's knowledge. Masks are 52-bit hands; ``voids[s]`` is a 4-bit set of suits seat s lacks."""

    ruleset: str
    length: str
    seat: int
    round: int
    deal: int
    dealer: int
    kind: str | None
    phase: str
    multiplier: int
    hand: int
    hand_sizes: tuple[int, ...]
    actions: tuple[Action, ...]
    dash_seats: tuple[int, ...]
    standing: tuple[int, int, int] | None
    with_seats: tuple[int, ...]
    caller: int | None
    trump: int | None
    estimates: tuple[int | None, ...]
    est_order: tuple[int, ...]
    trick: tuple[int, ...]
    leader: int
    won: tuple[int, ...]
    played_by: tuple[int, ...]
    voids: tuple[int, ...]
    legal: tuple[Action, ...]
    #: A partnership game: the seat plays for its side (itself and ``partner``).
    partners: bool = False

    @property
    def partner(self) -> int:
        """The seat opposite: the partner in a partnership game."""
        return (self.seat + 2) & 3

    @property
    def played(self) -> int:
        return self.played_by[0] | self.played_by[1] | self.played_by[2] | self.played_by[3]

    @property
    def unknown(self) -> int:
        """Cards some other seat still holds: neither ours nor played."""
        return FULL_DECK & ~self.hand & ~self.played

    @property
    def tricks_left(self) -> int:
        return 13 - sum(self.won)


def _mask(cards: list[str]) -> int:
    m = 0
    for c in cards:
        m |= 1 << card_from_text(c)
    return m


def from_view(view: dict[str, Any]) -> Info:
    """Parse a seat's view; raises ``ValueError`` when the view belongs to no seat."""
    seat = view["seat"]
    if seat is None or view["hand"] is None:
        raise ValueError("a bot needs a seat's view, not the spectator's")
    played_by = [0, 0, 0, 0]
    voids = [0, 0, 0, 0]
    for t in view["tricks"]:
        lead = t["leader"]
        for i, text in enumerate(t["cards"]):
            played_by[(lead + i) & 3] |= 1 << card_from_text(text)
    trick = []
    for entry in view["trick"]:
        c = card_from_text(entry["card"])
        played_by[entry["seat"]] |= 1 << c
        trick.append(int(c))
    for s, marker in enumerate(view["markers"]):
        for suit in marker["avoid"]:
            voids[s] |= 1 << int(Trump.parse(suit))
    standing = view["standing"]
    trump = view["trump"]
    return Info(
        ruleset=view["ruleset"],
        length=view["length"],
        seat=seat,
        round=view["round"],
        deal=view["deal"],
        dealer=view["dealer"],
        kind=view["kind"],
        phase=view["phase"],
        multiplier=view["multiplier"],
        hand=_mask(view["hand"]),
        hand_sizes=tuple(view["hand_sizes"]),
        actions=tuple(Action.parse(a) for a in view["actions"]),
        dash_seats=tuple(view["dash_seats"]),
        standing=None if standing is None else
        (standing["number"], int(Trump.parse(standing["trump"])), standing["seat"]),
        with_seats=tuple(view["with_seats"]),
        caller=view["caller"],
        trump=None if trump is None else int(Trump.parse(trump)),
        estimates=tuple(view["estimates"]),
        est_order=tuple(view["estimate_order"]),
        trick=tuple(trick),
        leader=view["leader"] if view["leader"] is not None else 0,
        won=tuple(m["tricks"] for m in view["markers"]),
        played_by=tuple(played_by),
        voids=tuple(voids),
        legal=tuple(Action.parse(a) for a in view["legal"]),
        partners=bool(view.get("partners", False)),
    )


def public_bid(game: Game, declared: PublicDeclarations | None = None) -> tuple[
        tuple[int, int, int] | None, int | None]:
    """The standing bid (number, trump, seat) and the trump in force, as :class:`Info` holds them, read from
    the ruleset exactly as the view gets them (``declared``: the ruleset's public declarations, if the caller
    has them already)."""
    standing = (declared or game.ruleset.public_declarations(game)).standing
    trump = game.ruleset.trump_in_force(game)
    return (None if standing is None else (standing[0], int(standing[1]), standing[2]),
            None if trump is None else int(trump))


def from_game(game: Game, seat: int) -> Info:
    """The same knowledge read from a game: only for determinized simulations and the omniscient bot.

    The public declarations and the trump come from the ruleset, exactly as the view gets them."""
    played_by = [0, 0, 0, 0]
    for lead, cards, _w in game.trick_log:
        for i, c in enumerate(cards):
            played_by[(lead + i) & 3] |= 1 << c
    for i, c in enumerate(game.trick):
        played_by[(game.leader + i) & 3] |= 1 << c
    declared = game.ruleset.public_declarations(game)
    standing, trump = public_bid(game, declared)
    return Info(
        ruleset=game.ruleset.name,
        length=game.length,
        seat=seat,
        round=game.round_no,
        deal=game.deal_no + 1,
        dealer=game.dealer,
        kind=game.kind,
        phase=str(game.phase),
        multiplier=game.multiplier,
        hand=game.hands[seat],
        hand_sizes=tuple(h.bit_count() for h in game.hands),
        actions=tuple(game.actions),
        dash_seats=declared.dash_seats,
        standing=standing,
        with_seats=declared.with_seats,
        caller=game.caller,
        trump=trump,
        estimates=tuple(game.estimates),
        est_order=tuple(game.est_order),
        trick=tuple(game.trick),
        leader=game.leader,
        won=tuple(game.tricks_won),
        played_by=tuple(played_by),
        voids=tuple(game.avoid),
        legal=game.legal_actions() if game.to_move == seat else (),
        partners=game.partners,
    )


def targets(info: Info) -> list[int]:
    """Each seat's trick target in the play phase (a Dash Call or a seat yet to estimate counts 0)."""
    return [e if e is not None else 0 for e in info.estimates]


__all__ = ["FULL_DECK", "NO_TRUMP", "Info", "from_game", "from_view", "public_bid", "targets"]
