"""Cards, suits, trumps and hands.

A card is an int 0..51 laid out as ``suit * 13 + rank`` with rank 0 for the two and 12 for the ace, and
suits numbered so that a higher number is a higher trump (clubs 0 .. spades 3, no-trump 4).  A hand is a
52-bit int with one bit per card, so following suit is a mask and "highest card of a suit" is
``bit_length``: the play kernel never touches a list.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from typing import Final

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "CDHS"  # index = suit number
RANKS_PER_SUIT: Final = 13
DECK_SIZE: Final = 52
FULL_DECK: Final = (1 << DECK_SIZE) - 1
SUIT_MASK: Final = (1 << RANKS_PER_SUIT) - 1


class Trump(enum.IntEnum):
    """A round's trump; the value orders calls (NT > S > H > D > C)."""

    C = 0
    D = 1
    H = 2
    S = 3
    NT = 4

    def __str__(self) -> str:
        return self.name

    @classmethod
    def parse(cls, text: str) -> Trump:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"not a trump: {text!r} (expected NT, S, H, D or C)") from None

    @property
    def is_suit(self) -> bool:
        return self is not Trump.NT

    @property
    def word(self) -> str:
        """The plural English word, for messages people read."""
        return _SUIT_WORDS[self]


_SUIT_WORDS: Final = {
    Trump.C: "clubs",
    Trump.D: "diamonds",
    Trump.H: "hearts",
    Trump.S: "spades",
    Trump.NT: "no-trump",
}

#: The four suits; a suit is the :class:`Trump` member of the same name.
SUITS: Final = (Trump.S, Trump.H, Trump.D, Trump.C)
#: The fixed rounds' trumps, in the order they are played.
FIXED_TRUMPS: Final = (Trump.NT, Trump.S, Trump.H, Trump.D, Trump.C)


class Card(int):
    """One card; an int so that it indexes tables and shifts into hand masks for free."""

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < DECK_SIZE:
            raise ValueError(f"card index out of range: {index}")
        return _CARDS[index] if _CARDS else super().__new__(cls, index)

    @classmethod
    def of(cls, rank: int, suit: Trump) -> Card:
        """The card of ``rank`` (0 = two .. 12 = ace) in ``suit``."""
        return _CARDS[int(suit) * RANKS_PER_SUIT + rank]

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``QH``, ``TD``, ``2C`` (also ``10D``); the inverse of ``str``."""
        t = text.strip().upper()
        if t.startswith("10"):
            t = "T" + t[2:]
        if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
            raise ValueError(f"not a card: {text!r}")
        return _CARDS[SUIT_CHARS.index(t[1]) * RANKS_PER_SUIT + RANK_CHARS.index(t[0])]

    @property
    def rank(self) -> int:
        return int(self) % RANKS_PER_SUIT

    @property
    def suit(self) -> Trump:
        return Trump(int(self) // RANKS_PER_SUIT)

    @property
    def bit(self) -> int:
        return 1 << int(self)

    def __str__(self) -> str:
        return _CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card.parse({_CARD_TEXT[self]!r})"


_CARDS: list[Card] = []
_CARDS.extend(int.__new__(Card, i) for i in range(DECK_SIZE))
_CARD_TEXT: Final = [RANK_CHARS[i % 13] + SUIT_CHARS[i // 13] for i in range(DECK_SIZE)]
_TEXT_CARD: Final = {text: _CARDS[i] for i, text in enumerate(_CARD_TEXT)}
#: ``CARD_TEXTS[card]`` is ``str(card)``, for code that renders many cards (a view renders every card played).
CARD_TEXTS: Final = tuple(_CARD_TEXT)

#: ``SUIT_BITS[suit]`` is the mask of that suit's 13 cards.
SUIT_BITS: Final = tuple(SUIT_MASK << (s * RANKS_PER_SUIT) for s in range(4))


def card_from_text(text: str) -> Card:
    """Fast exact lookup for canonical text (``"QH"``), falling back to the lenient parser."""
    card = _TEXT_CARD.get(text)
    return card if card is not None else Card.parse(text)


def cards_of(mask: int) -> Iterator[Card]:
    """The cards of a hand mask, lowest index first."""
    while mask:
        low = mask & -mask
        yield _CARDS[low.bit_length() - 1]
        mask ^= low


def indexes_of(mask: int) -> list[int]:
    """The card indexes of a hand mask, lowest first: :func:`cards_of` as plain ints, for the bots' inner
    loops."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def hand_text(mask: int) -> str:
    """The record's written form: suits S H D C, ranks high to low, space separated."""
    parts: list[str] = []
    for suit in SUITS:
        bits = (mask >> (int(suit) * RANKS_PER_SUIT)) & SUIT_MASK
        for rank in range(RANKS_PER_SUIT - 1, -1, -1):
            if bits >> rank & 1:
                parts.append(RANK_CHARS[rank] + SUIT_CHARS[int(suit)])
    return " ".join(parts)


def parse_hand(text: str) -> list[Card]:
    """The cards of a hand written as text, in the order written (duplicates kept for the caller to judge)."""
    return [Card.parse(t) for t in text.split()]


def suit_count(mask: int, suit: Trump) -> int:
    return ((mask >> (int(suit) * RANKS_PER_SUIT)) & SUIT_MASK).bit_count()


#: ``RANKS_OF[m]``: the ranks set in a 13-bit suit mask, low to high (the engine's legal-play tuples and
#: the fast path's rollouts both read a suit's holding through it).
RANKS_OF: Final = tuple(tuple(r for r in range(13) if m >> r & 1) for m in range(1 << 13))
