"""A seat's view as a flat float tensor: exactly the facts of ``Game.view(seat)``, never more.

Everything is built from the view dict, not from the game, so the tensor cannot hold what the view does not:
two states that differ only in cards the seat cannot see encode identically. Seats are relative to the
observer (0 = the observer, 1 = the next seat, ...), so a policy learned in one seat plays in any.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..cards import card_from_text

PHASES: Final = ("dash", "auction", "declare", "estimate", "play", "over")
KINDS: Final = ("call", "fixed", "auction", "speed", "nobid")
TRUMPS: Final = ("C", "D", "H", "S", "NT")
MAX_ROUNDS: Final = 24

#: (name, size) of each piece, in order.
PIECES: Final = (
    ("hand", 52),
    ("trick", 4 * 52),  # the card each relative seat has put on the current trick
    ("played", 4 * 52),  # every card each relative seat has played this deal
    ("estimates", 4 * 15),  # none, 0..13
    ("tricks_won", 4 * 14),
    ("phase", len(PHASES)),
    ("kind", len(KINDS)),
    ("trump", len(TRUMPS) + 1),  # unknown, then C..NT
    ("caller", 5),  # none, then relative seat
    ("dealer", 4),
    ("to_move", 5),  # none, then relative seat
    ("standing_number", 11),  # none, 4..13
    ("standing_trump", len(TRUMPS) + 1),
    ("standing_seat", 5),
    ("declared_number", 11),
    ("declared_trump", len(TRUMPS) + 1),
    ("dash_seats", 4),
    ("with_seats", 4),
    ("avoid", 4 * 4),
    ("bust", 4),
    ("multiplier", 3),  # x1, x2, x4
    ("round", MAX_ROUNDS),
    ("rounds", MAX_ROUNDS),
    ("totals", 4),  # scaled by 1/100
    ("partners", 1),  # a partnership game: relative seat 2 is the partner
)
SIZE: Final = sum(n for _, n in PIECES)
_OFFSET: Final = {}
_at = 0
for _name, _n in PIECES:
    _OFFSET[_name] = _at
    _at += _n


def _card_index(text: str) -> int:
    return int(card_from_text(text))


def encode_view(view: dict[str, Any], player: int) -> npt.NDArray[np.float32]:
    """The tensor of ``view`` (which must be ``Game.view(player)``)."""
    t = np.zeros(SIZE, dtype=np.float32)
    off = _OFFSET

    def rel(seat: int) -> int:
        return (seat - player) % 4

    for c in view["hand"] or ():
        t[off["hand"] + _card_index(c)] = 1
    for entry in view["trick"]:
        t[off["trick"] + rel(entry["seat"]) * 52 + _card_index(entry["card"])] = 1
    for text in view["actions"]:
        seat, verb, *arg = text.split()
        if verb == "play":
            t[off["played"] + rel(int(seat)) * 52 + _card_index(arg[0])] = 1
    for seat, est in enumerate(view["estimates"]):
        t[off["estimates"] + rel(seat) * 15 + (0 if est is None else est + 1)] = 1
    for seat, marker in enumerate(view["markers"]):
        r = rel(seat)
        t[off["tricks_won"] + r * 14 + marker["tricks"]] = 1
        for suit in marker["avoid"]:
            t[off["avoid"] + r * 4 + TRUMPS.index(suit)] = 1
        t[off["bust"] + r] = 1 if marker["bust"] else 0
    t[off["phase"] + PHASES.index(view["phase"])] = 1
    if view["kind"] is not None:
        t[off["kind"] + KINDS.index(view["kind"])] = 1
    t[off["trump"] + (0 if view["trump"] is None else 1 + TRUMPS.index(view["trump"]))] = 1
    t[off["caller"] + (0 if view["caller"] is None else 1 + rel(view["caller"]))] = 1
    t[off["dealer"] + rel(view["dealer"])] = 1
    t[off["to_move"] + (0 if view["to_move"] is None else 1 + rel(view["to_move"]))] = 1
    for key in ("standing", "declared"):
        bid = view[key]
        t[off[f"{key}_number"] + (0 if bid is None else bid["number"] - 3)] = 1
        t[off[f"{key}_trump"] + (0 if bid is None else 1 + TRUMPS.index(bid["trump"]))] = 1
    standing = view["standing"]
    t[off["standing_seat"] + (0 if standing is None else 1 + rel(standing["seat"]))] = 1
    for seat in view["dash_seats"]:
        t[off["dash_seats"] + rel(seat)] = 1
    for seat in view["with_seats"]:
        t[off["with_seats"] + rel(seat)] = 1
    t[off["multiplier"] + {1: 0, 2: 1, 4: 2}[view["multiplier"]]] = 1
    t[off["round"] + view["round"] - 1] = 1
    t[off["rounds"] + view["rounds"] - 1] = 1
    for seat, total in enumerate(view["totals"]):
        t[off["totals"] + rel(seat)] = total / 100.0
    t[off["partners"]] = 1 if view.get("partners") else 0
    return t
