"""Deals sampled once a deal and carried through its card play (``strong-fast``'s sampler for the play).

`strong` draws a fresh weighted pool of deals for every card it plays: 128 deals, their declarations'
likelihood and 384 swap moves, about two thirds of its CPU in the play. Yet in the play the evidence never
changes (only the declarations are weighed, and they are over), only the cards seen do. So here the deals
are drawn **once**, at the start of the play, as *dealt* hands weighted by the declarations
(:func:`.sampler.sample_deals` on the position at the first lead), and every card played after that is
applied to each of them by a minimal repair:

- a seat plays card c that its sampled hand holds: c is removed;
- a seat plays card c that the sample gave to another seat t: c is swapped with a card of the player's
  sampled hand that t may hold (t not known void in its suit), chosen at random, then removed;
- a seat shows out of the suit led: every card of that suit in its sampled hand is swapped with a card of
  another seat that may hold it, in a suit the player may still hold;
- when no swap fits (late in a deal, with many voids), the other seats' cards of that deal are dealt
  afresh under every constraint (hand sizes, voids) by the sampler's own :func:`.sampler.deal_by_suit`.

The repair is not exact conditioning (a swap keeps the rest of the sampled hand rather than redrawing it),
but it keeps each deal consistent with everything seen, and the deals stay those the declarations made
likely. A deal that can be neither repaired nor redealt becomes a copy of one that could; one that fails
:func:`.sampler.consistent` for any reason is replaced by a fresh draw from the view in the deals handed
out.

Determinism: the deals at a position are a pure function of the view. The start is seeded by the deal as
the seat sees it (ruleset, round, deal, seat, its dealt hand, the declarations), each repair also by the
action's index; a per-process cache only saves replaying the prefix already seen, and a miss (a view
out of sequence, another process, a fresh bot: the server makes one a move) replays from scratch to the
same deals. The bot's own seed is not used here, so the server's fresh seed every move does not stop the
deals being carried.
"""

from __future__ import annotations

import dataclasses
import random
from collections import OrderedDict
from dataclasses import dataclass

from ..actions import Action, Verb
from ..cards import SUIT_BITS, indexes_of
from .knowledge import Info
from .sampler import consistent, deal_by_suit, sample_deals, sample_hands


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
        ok = [x for x in indexes_of(h[seat]) if not voids[holder] >> (x // 13) & 1]
        if not ok:
            return False
        x = ok[rng.randrange(len(ok))]
        h[seat] ^= 1 << x
        h[holder] = (h[holder] ^ bit) | (1 << x)
    if led is not None and card // 13 != led and seat != me:
        # The seat showed out of the led suit: its sampled cards of that suit go to others.
        barred = voids[seat] | (1 << led)
        for y in indexes_of(h[seat] & SUIT_BITS[led]):
            options = []
            for t in range(4):
                if t in (me, seat) or voids[t] >> led & 1:
                    continue
                for z in indexes_of(h[t]):
                    if not barred >> (z // 13) & 1:
                        options.append((t, z))
            if not options:
                return False
            t, z = options[rng.randrange(len(options))]
            h[seat] ^= (1 << y) | (1 << z)
            h[t] ^= (1 << y) | (1 << z)
    return True


def _redeal(h: list[int], me: int, seat: int, card: int, led: int | None, voids: list[int],
            rng: random.Random) -> bool:
    """The fallback of :func:`_repair`: play ``card`` and deal the other seats' cards afresh (hand sizes
    kept, every void respected, as :func:`.sampler.sample_hands` deals them); False if no deal fits."""
    bit = 1 << card
    sizes = [x.bit_count() for x in h]
    sizes[seat] -= 1
    barred = list(voids)
    if led is not None and card // 13 != led:
        barred[seat] |= 1 << led
    others = [s for s in range(4) if s != me]
    pool = 0
    for s in others:
        pool |= h[s]
    new = deal_by_suit(pool & ~bit, sizes, others, barred, rng)
    if new is None:
        return False
    for s in others:
        h[s] = new[s]
    h[me] &= ~bit
    return True


@dataclass(slots=True)
class _Carried:
    """One seat's deals of one deal's play, after the first ``done`` actions of the deal."""

    done: int
    prefix: tuple[Action, ...]
    deals: list[list[int]]
    voids: list[int]
    trick: list[int]


#: Carried deals by (ruleset, length, round, deal, seat, dealt hand, declarations, n, oversample): a
#: per-process cache, so that a server which builds a fresh bot for every move still finds them.
_CACHE: OrderedDict[tuple[object, ...], _Carried] = OrderedDict()
CACHE_SIZE = 4096


def play_deals(info: Info, n: int, oversample: int = 2) -> list[list[int]]:
    """``n`` deals (current hands of all four seats) consistent with ``info``, in the play phase.

    Seeded by the deal itself as the seat sees it (its dealt hand and the public declarations), not by a
    bot's seed: the same view gets the same deals whichever bot, process or move asks."""
    p0 = first_play(info)
    actions = info.actions
    declarations = actions[:p0]
    dealt = info.hand | info.played_by[info.seat]
    key = (info.ruleset, info.length, info.round, info.deal, info.seat, dealt, declarations, n, oversample)
    state = _CACHE.get(key)
    if state is None or state.done > len(actions) or state.prefix != actions[:state.done]:
        rng = random.Random(f"{key}:play")
        state = _Carried(p0, declarations, sample_deals(play_start(info), n, rng, True, 1.0, oversample),
                         [0, 0, 0, 0], [])
    _CACHE[key] = state
    _CACHE.move_to_end(key)
    while len(_CACHE) > CACHE_SIZE:
        _CACHE.popitem(last=False)
    me = info.seat
    deals = state.deals
    for i in range(state.done, len(actions)):
        a = actions[i]
        if a.verb is not Verb.PLAY or a.card is None:
            continue
        card = int(a.card)
        led = state.trick[0] // 13 if state.trick else None
        rng = random.Random(f"{key}:{i}")
        broken = []
        for j, h in enumerate(deals):
            if not h:
                broken.append(j)
                continue
            before = list(h)
            if not _repair(h, me, a.seat, card, led, state.voids, rng):
                h[:] = before
                if not _redeal(h, me, a.seat, card, led, state.voids, rng):
                    broken.append(j)
        if broken:
            good = [j for j in range(len(deals)) if j not in set(broken)]
            for k, j in enumerate(broken):
                # A copy of a deal that could be repaired (a pure function of the view, like the rest).
                deals[j] = list(deals[good[k % len(good)]]) if good else []
        if led is not None and card // 13 != led:
            state.voids[a.seat] |= 1 << led
        state.trick.append(card)
        if len(state.trick) == 4:
            state.trick = []
    state.done = len(actions)
    state.prefix = actions
    # Safety net (never needed in the tests' games): a deal the repair left inconsistent with the view is
    # replaced by a fresh draw, in the copy returned only, so the carried deals stay a pure function of
    # the view.
    rng = random.Random(f"{key}:{len(actions)}:fresh")
    return [list(h) if h and consistent(info, h) else sample_hands(info, rng) for h in deals]
