"""Deals sampled once a deal and carried through its card play (the new ``strong``'s sampler for the play).

The old strong bot drew a fresh weighted pool of deals for every card it played: 128 deals, their
declarations' likelihood and 384 swap moves, about two thirds of its CPU in the play. Yet in the play the
evidence never changes (only the declarations are weighed, and they are over), only the cards seen do.
So the deals are drawn **once**, at the start of the play, as *dealt* hands weighted by the declarations
(:func:`.sampler.sample_deals` on the position at the first lead), and every card played after that is
applied to each of them by a minimal repair:

- a seat plays card c that its sampled hand holds: c is removed;
- a seat plays card c that the sample gave to another seat t: c is swapped with a card of the player's
  sampled hand that t may hold (t not known void in its suit), chosen at random, then removed;
- a seat shows out of the suit led: every card of that suit in its sampled hand is swapped with a card of
  another seat that may hold it, in a suit the player may still hold.

The repair is not exact conditioning (a swap keeps the rest of the sampled hand rather than redrawing it),
but it keeps each deal consistent with everything seen, and the deals stay those the declarations made
likely. A deal that cannot be repaired (rare: every card it could swap is barred by voids) becomes a copy of
one that could; one that fails :func:`.sampler.consistent` for any reason is replaced by a fresh draw
from the view in the deals handed out.

Determinism: the deals at a position are a pure function of the bot's seed and the view. The start is
seeded by (seed, round, deal), each repair by (seed, round, deal, action index); the cache only saves
replaying the prefix the bot has already seen, and a miss (a view out of sequence) replays from scratch
to the same deals.
"""

from __future__ import annotations

import dataclasses
import random

from ..actions import Verb
from ..cards import SUIT_BITS
from .knowledge import Info
from .sampler import consistent, sample_deals, sample_hands


def _cards(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def first_play(info: Info) -> int:
    """Index in ``info.actions`` of the deal's first card played (its length when none yet)."""
    for i, a in enumerate(info.actions):
        if a.verb is Verb.PLAY:
            return i
    return len(info.actions)


def play_start(info: Info) -> Info:
    """The seat's knowledge at the first lead of this deal: its dealt hand, no card seen, no void."""
    p0 = first_play(info)
    dealt = tuple(info.hand_sizes[s] + info.played_by[s].bit_count() for s in range(4))
    return dataclasses.replace(info, hand=info.hand | info.played_by[info.seat], hand_sizes=dealt,
                               played_by=(0, 0, 0, 0), voids=(0, 0, 0, 0), trick=(),
                               actions=info.actions[:p0])


def _repair(h: list[int], me: int, seat: int, card: int, led: int | None, voids: list[int],
            rng: random.Random) -> bool:
    """Apply ``seat`` playing ``card`` (to a trick led in suit ``led``) to one deal; False if it cannot."""
    bit = 1 << card
    if seat == me or h[seat] & bit:
        h[seat] &= ~bit
    else:
        holder = -1
        for t in range(4):
            if h[t] & bit:
                holder = t
                break
        if holder < 0 or holder == me:
            return False
        ok = [x for x in _cards(h[seat]) if not voids[holder] >> (x // 13) & 1]
        if not ok:
            return False
        x = ok[rng.randrange(len(ok))]
        h[seat] ^= 1 << x
        h[holder] = (h[holder] ^ bit) | (1 << x)
    if led is not None and card // 13 != led and seat != me:
        # The seat showed out of the led suit: its sampled cards of that suit go to others.
        barred = voids[seat] | (1 << led)
        for y in _cards(h[seat] & SUIT_BITS[led]):
            options = []
            for t in range(4):
                if t in (me, seat) or voids[t] >> led & 1:
                    continue
                for z in _cards(h[t]):
                    if not barred >> (z // 13) & 1:
                        options.append((t, z))
            if not options:
                return False
            t, z = options[rng.randrange(len(options))]
            h[seat] ^= (1 << y) | (1 << z)
            h[t] ^= (1 << y) | (1 << z)
    return True


class PlayDeals:
    """The deals of the current deal's play, for one bot (see the module's docstring)."""

    def __init__(self, n: int, oversample: int = 2) -> None:
        self.n = n
        self.oversample = oversample
        self._key: tuple[object, ...] | None = None
        self._done = 0  # actions of the deal already applied
        self._deals: list[list[int]] = []
        self._voids = [0, 0, 0, 0]
        self._trick: list[tuple[int, int]] = []

    def deals(self, info: Info, seed: int) -> list[list[int]]:
        """``n`` deals (current hands of all four seats) consistent with ``info``."""
        key = (seed, info.ruleset, info.length, info.round, info.deal, info.seat)
        p0 = first_play(info)
        actions = info.actions
        if (key != self._key or self._done > len(actions) or self._done < p0
                or self._prefix != actions[:self._done]):
            start = play_start(info)
            rng = random.Random(f"{seed}:{info.round}:{info.deal}:play")
            self._deals = sample_deals(start, self.n, rng, True, 1.0, self.oversample)
            self._key = key
            self._done = p0
            self._voids = [0, 0, 0, 0]
            self._trick = []
        me = info.seat
        for i in range(self._done, len(actions)):
            a = actions[i]
            if a.verb is not Verb.PLAY or a.card is None:
                continue
            card = int(a.card)
            led = self._trick[0][1] // 13 if self._trick else None
            rng = random.Random(f"{seed}:{info.round}:{info.deal}:{i}")
            broken = [j for j, h in enumerate(self._deals)
                      if not _repair(h, me, a.seat, card, led, self._voids, rng)]
            if broken:
                good = [j for j in range(len(self._deals)) if j not in set(broken)]
                for k, j in enumerate(broken):
                    # A copy of a deal that could be repaired (a pure function of the view, like the rest).
                    self._deals[j] = list(self._deals[good[k % len(good)]]) if good else []
            if led is not None and card // 13 != led:
                self._voids[a.seat] |= 1 << led
            self._trick.append((a.seat, card))
            if len(self._trick) == 4:
                self._trick = []
        self._done = len(actions)
        self._prefix = actions
        # Safety net (never needed in the tests' games): a deal the repair left inconsistent with the
        # view is replaced by a fresh draw, in the copy returned only, so the carried deals stay a pure
        # function of the view.
        rng = random.Random(f"{seed}:{info.round}:{info.deal}:{len(actions)}:fresh")
        return [list(h) if h and consistent(info, h) else sample_hands(info, rng) for h in self._deals]

    _prefix: tuple[object, ...] = ()
