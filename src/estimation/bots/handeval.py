"""Hand evaluation: the expected tricks of a 13-card hand under each trump, from lookup tables.

The heuristic bot bids from this number, and the strong bot's sampler uses it to weigh how likely each
opponent's declaration is with a sampled hand, so it is called thousands of times per decision: every
13-bit suit holding is valued once at import (two tables of 8192 floats) and a hand costs four lookups
plus the ruffing term.
"""

from __future__ import annotations

from typing import Final

# Values per honour (ace, king, queen, jack) by whether the holding is long enough to protect it.
_SIDE_HONOURS: Final = ((1.0, 1.0), (0.3, 0.8), (0.15, 0.5), (0.0, 0.2))
_TRUMP_HONOURS: Final = ((1.0, 1.0), (0.4, 0.9), (0.2, 0.7), (0.0, 0.45))
_GUARD: Final = (1, 2, 3, 4)  # length needed to protect the ace, king, queen, jack


def _honours(bits: int, table: tuple[tuple[float, float], ...]) -> float:
    length = bits.bit_count()
    value = 0.0
    for i, (short, guarded) in enumerate(table):
        if bits >> (12 - i) & 1:
            value += guarded if length >= _GUARD[i] else short
    return value


def _side(bits: int, nt: bool) -> float:
    length = bits.bit_count()
    value = _honours(bits, _SIDE_HONOURS)
    if nt:
        # In no-trump a long suit's small cards win once the others are out of it.
        value += max(0, length - 4) * 0.55
    else:
        value += max(0, length - 5) * 0.2
        if length >= 7:
            value -= 0.3  # its honours get ruffed on the second round
    return value


def _trump(bits: int) -> float:
    length = bits.bit_count()
    honours = _honours(bits, _TRUMP_HONOURS)
    top = sum(1 for i in range(4) if bits >> (12 - i) & 1)
    # Every trump beyond the third wins a trick sooner or later, unless it was counted as an honour.
    extra = max(0, length - 3 - max(0, top - 3))
    return honours + extra * 0.8


SIDE_NT: Final = tuple(_side(b, True) for b in range(1 << 13))
SIDE_SUIT: Final = tuple(_side(b, False) for b in range(1 << 13))
TRUMP_VALUE: Final = tuple(_trump(b) for b in range(1 << 13))
_RUFF: Final = (0.85, 0.55, 0.2)  # by side-suit length 0, 1, 2
# Calibration: over 2,000 random deals the four hands' values should add up to the 13 tricks there are.
NT_SCALE: Final = 13 / 11.54
SUIT_SCALE: Final = 13 / 13.48


def expected_tricks(hand: int, trump: int) -> float:
    """The tricks a hand should take with ``trump`` (0..3 a suit, 4 no-trump); a heuristic, not a model."""
    if trump == 4:
        return NT_SCALE * (SIDE_NT[hand & 0x1FFF] + SIDE_NT[(hand >> 13) & 0x1FFF]
                           + SIDE_NT[(hand >> 26) & 0x1FFF] + SIDE_NT[(hand >> 39) & 0x1FFF])
    value = 0.0
    trumps = (hand >> (trump * 13)) & 0x1FFF
    n_trumps = trumps.bit_count()
    spare = n_trumps - 1
    for s in range(4):
        bits = (hand >> (s * 13)) & 0x1FFF
        if s == trump:
            value += TRUMP_VALUE[bits]
            continue
        value += SIDE_SUIT[bits]
        length = bits.bit_count()
        if length <= 2 and spare > 0:
            ruffs = min(spare, 3 - length)
            value += _RUFF[length] * ruffs * 0.8
            spare -= ruffs
    return value * SUIT_SCALE


def best_trump(hand: int) -> tuple[int, float]:
    """The trump (0..4) under which the hand takes most; ties go to the higher trump, as calls do."""
    best, value = 4, expected_tricks(hand, 4)
    for t in (3, 2, 1, 0):
        v = expected_tricks(hand, t)
        if v > value + 1e-9:
            best, value = t, v
    return best, value


def high_card_points(hand: int) -> int:
    """Ace 4, king 3, queen 2, jack 1: the Dash Call test looks at this."""
    points = 0
    for s in range(4):
        bits = (hand >> (s * 13)) & 0x1FFF
        points += 4 * (bits >> 12 & 1) + 3 * (bits >> 11 & 1) + 2 * (bits >> 10 & 1) + (bits >> 9 & 1)
    return points


def expected_tricks_all(hand: int) -> list[float]:
    """``[expected_tricks(hand, t) for t in range(5)]`` in one pass: the declaration evidence needs every
    trump's value of every opponent hand in every sampled deal, so the suits are split only once."""
    b0 = hand & 0x1FFF
    b1 = (hand >> 13) & 0x1FFF
    b2 = (hand >> 26) & 0x1FFF
    b3 = (hand >> 39) & 0x1FFF
    suits = (b0, b1, b2, b3)
    lens = (b0.bit_count(), b1.bit_count(), b2.bit_count(), b3.bit_count())
    side = (SIDE_SUIT[b0], SIDE_SUIT[b1], SIDE_SUIT[b2], SIDE_SUIT[b3])
    side_total = side[0] + side[1] + side[2] + side[3]
    out: list[float] = []
    for t in range(4):
        value = TRUMP_VALUE[suits[t]] + side_total - side[t]
        spare = lens[t] - 1
        if spare > 0:
            for s in range(4):
                length = lens[s]
                if s != t and length <= 2 and spare > 0:
                    ruffs = min(spare, 3 - length)
                    value += _RUFF[length] * ruffs * 0.8
                    spare -= ruffs
        out.append(value * SUIT_SCALE)
    out.append(NT_SCALE * (SIDE_NT[b0] + SIDE_NT[b1] + SIDE_NT[b2] + SIDE_NT[b3]))
    return out
