"""The strong bot's play evaluation compiled with numba (the optional ``fast`` extra).

:func:`card_outcomes` does the inner work of :func:`.search._evaluate_play` in one compiled call a
decision (:func:`play_tricks`, the whole batch): for every sampled deal and every candidate card, the card
is played and the deal is finished, either by the target-aware rollout (:func:`.policy.policy_rollout`,
ported card for card) or by the exact max^n endgame (:func:`.search._maxn`, with its tie rule: the lowest
of the distinct cards wins a tie; on an explicit stack, since numba cannot cache a recursive function,
numba issue 6061). The batch gives final trick counts per (deal, candidate); the Python side turns them
into scores with the ruleset's own scorer, so nothing here knows a ruleset. The solver needs scores at its
leaves: the caller passes a table of what each seat plays for at every trick-count vector reachable from
the position (:func:`leaf_table`; 20 of them with 3 tricks left), so the search never leaves compiled
code.

Why numba and not a C extension: a wheel from PyPI, no compiler on the user's machine. Why bit-identical
to the Python code and not merely "as good": a seeded strong bot must make the same decisions with and
without the extra (tests/bots/test_bots_compiled.py plays whole games both ways), so the pure-Python path
stays the reference. Masks are int64 (52 cards fit); popcount and bit length are our own helpers, since
numba has no public intrinsic for them. ``cache=True`` keeps the machine code in ``__pycache__`` so only
the first process pays the compile (a few seconds, docs/performance.md).

This module and :mod:`.kernel_sampler` (the deals) are the only ones that use numba;
:func:`.search.compiled_kernels` decides whether they are used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt
from numba import njit

Ints = npt.NDArray[np.int64]
F = TypeVar("F", bound=Callable[..., Any])


def compiled(fn: F) -> F:
    """``njit(cache=True)`` with the function's own signature kept for the type checker. Where numba finds
    no writable cache directory (neither ``__pycache__`` beside this file, nor ``~/.cache/numba``, nor
    ``NUMBA_CACHE_DIR``) it refuses ``cache=True`` with a RuntimeError: then every process compiles."""
    try:
        return cast(F, njit(cache=True)(fn))
    except RuntimeError:
        return cast(F, njit(fn))


# --- bit helpers ------------------------------------------------------------------------------------------
@compiled
def _popcount(x: int) -> int:
    """Set bits of a non-negative mask (SWAR; LLVM turns it into one instruction where there is one)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@compiled
def _bit_length(x: int) -> int:
    """``int.bit_length`` for a non-negative mask below 2**63: a binary search over the shifts."""
    n = 0
    if x >= 1 << 32:
        x >>= 32
        n += 32
    if x >= 1 << 16:
        x >>= 16
        n += 16
    if x >= 1 << 8:
        x >>= 8
        n += 8
    if x >= 16:
        x >>= 4
        n += 4
    if x >= 4:
        x >>= 2
        n += 2
    if x >= 2:
        x >>= 1
        n += 1
    return n + x


@compiled
def _highest(mask: int) -> int:
    return _bit_length(mask) - 1


@compiled
def _lowest(mask: int) -> int:
    return _bit_length(mask & -mask) - 1


@compiled
def _suit(s: int) -> int:
    """The 13 cards of suit ``s`` (``SUIT_BITS[s]``); nothing for no-trump (4)."""
    return 0x1FFF << (13 * s) if s < 4 else 0


@compiled
def _below(c: int) -> int:
    """Every card index below ``c`` (``LOW_BITS[c]``)."""
    return (1 << c) - 1


@compiled
def _beats(card: int, best: int, trump: int) -> bool:
    """Whether ``card`` takes a trick ``best`` is winning (same rule as ``trick_winner_index``)."""
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


# --- the rollout policy (policy.policy_rollout, card for card) --------------------------------------------
@compiled
def _cheap_discard(hand: int, trump: int) -> int:
    """``policy._cheap_discard``: the lowest side card, else the lowest trump."""
    side = hand & ~_suit(trump) if trump != 4 else hand
    pool = side if side else hand
    best = -1
    best_rank = 99
    for s in range(4):
        bits = pool & _suit(s)
        if bits:
            low = _lowest(bits)
            if low % 13 < best_rank:
                best = low
                best_rank = low % 13
    return best


@compiled
def _shed(hand: int, trump: int) -> int:
    """``policy._shed``: the highest side card, else the highest trump."""
    side = hand & ~_suit(trump) if trump != 4 else hand
    if not side:
        return _highest(hand)
    best = -1
    best_rank = -1
    for s in range(4):
        bits = side & _suit(s)
        if bits:
            top = _highest(bits)
            if top % 13 > best_rank:
                best = top
                best_rank = top % 13
    return best


@compiled
def _lead_for_tricks(h: Ints, seat: int, hand: int, trump: int, outside: int) -> int:
    """The lead of a seat that still needs tricks: a sure winner (side suits first), a long trump suit
    from the top, else the longest side suit from the bottom."""
    tmask = _suit(trump)
    chosen = -1
    for s in range(4):
        sb = _suit(s)
        bits = hand & sb
        if not bits:
            continue
        top = _highest(bits)
        if outside & sb & ~_below(top + 1):
            continue
        if tmask and s != trump:
            ruff = False
            for i in range(1, 4):
                m = h[(seat + i) & 3]
                if m & tmask and not m & sb:
                    ruff = True
                    break
            if ruff:
                continue
        if s != trump:
            return top
        chosen = top
    if chosen >= 0:
        return chosen
    trumps = hand & tmask
    if trumps and _popcount(trumps) * 2 >= _popcount(outside & tmask) + 2:
        return _highest(trumps)
    longest = -1
    length = 0
    for s in range(4):
        if s == trump:
            continue
        k = _popcount(hand & _suit(s))
        if k > length:
            longest = s
            length = k
    bits = hand & _suit(longest) if longest >= 0 else hand
    return _lowest(bits)


@compiled
def _lead_to_duck(hand: int, trump: int, outside: int) -> int:
    """The lead of a seat that is made or bust: the card with the most outside cards above it."""
    card = -1
    best_key = -1
    for s in range(4):
        bits = hand & _suit(s)
        if not bits:
            continue
        low = _lowest(bits)
        key = _popcount(outside & _suit(s) & ~_below(low + 1)) * 2 + (0 if s == trump else 1)
        if key > best_key:
            card = low
            best_key = key
    return card


@compiled
def _follow(h: Ints, seat: int, follow: int, led: int, best: int, n: int, need: int, hand: int,
            trump: int) -> int:
    """A card of the led suit (``follow``: the seat's cards in it; ``best``: the trick's winning card)."""
    if best // 13 != led:  # ruffed: nothing in the suit can win
        return _lowest(follow) if need > 0 else _highest(follow)
    higher = follow & ~_below(best + 1)
    if need > 0:
        if not higher:
            return _lowest(follow)
        if n == 3:
            return _lowest(higher)
        tmask = _suit(trump)
        later_suit = 0
        ruff = False
        for i in range(1, 4 - n):
            m = h[(seat + i) & 3]
            ms = m & _suit(led)
            later_suit |= ms
            if tmask and led != trump and not ms and m & tmask:
                ruff = True
        sure = 0 if ruff else higher & ~_below(_bit_length(later_suit))
        if sure:
            return _lowest(sure)
        if n == 1 and need < _popcount(hand):
            return _lowest(follow)
        return _highest(higher)
    lower = follow & _below(best)
    if lower:
        return _highest(lower)
    return _highest(follow) if n == 3 else _lowest(follow)


@compiled
def _void(hand: int, best: int, need: int, trump: int) -> int:
    """A card when void in the led suit: ruff as cheaply as possible when hungry, else shed."""
    trumps = hand & _suit(trump)
    if need > 0:
        if trumps and best // 13 == trump:
            over = trumps & ~_below(best + 1)
            return _lowest(over) if over else _cheap_discard(hand, trump)
        if trumps:
            return _lowest(trumps)
        return _cheap_discard(hand, trump)
    if trumps and trumps == hand:
        under = trumps & _below(best) if best // 13 == trump else 0
        return _highest(under) if under else _lowest(trumps)
    return _shed(hand, trump)


@compiled
def _rollout(h: Ints, trump: int, leader: int, t: Ints, n: int, w: Ints, targets: Ints) -> None:
    """``policy_rollout`` in place: ``h`` and ``w`` (hands, tricks won) are played to the end of the deal;
    ``t[:n]`` is the trick so far."""
    best = -1
    best_i = 0
    if n:
        best = t[0]
        for i in range(1, n):
            if _beats(t[i], best, trump):
                best = t[i]
                best_i = i
    while True:
        seat = (leader + n) & 3
        hand = h[seat]
        if not hand:
            return
        need = targets[seat] - w[seat]
        if n == 0:
            outside = (h[0] | h[1] | h[2] | h[3]) & ~hand
            if need > 0:
                card = _lead_for_tricks(h, seat, hand, trump, outside)
            else:
                card = _lead_to_duck(hand, trump, outside)
        else:
            led = t[0] // 13
            follow = hand & _suit(led)
            if follow:
                card = _follow(h, seat, follow, led, best, n, need, hand, trump)
            else:
                card = _void(hand, best, need, trump)
        h[seat] = hand ^ (1 << card)
        t[n] = card
        if n == 0 or _beats(card, best, trump):
            best = card
            best_i = n
        n += 1
        if n == 4:
            leader = (leader + best_i) & 3
            w[leader] += 1
            n = 0


# --- the exact endgame (search._maxn) ---------------------------------------------------------------------
@compiled
def _winner(t: Ints, trump: int) -> int:
    """``fast.trick_winner_index`` of the four cards ``t``."""
    best = t[0]
    best_i = 0
    for i in range(1, 4):
        if _beats(t[i], best, trump):
            best = t[i]
            best_i = i
    return best_i


@compiled
def _leaf(w: Ints, base: Ints, radix: int) -> int:
    """The row of :func:`leaf_table` for the final trick counts ``w``."""
    high = (w[2] - base[2]) + radix * (w[3] - base[3])
    return int((w[0] - base[0]) + radix * ((w[1] - base[1]) + radix * high))


# A frame of the solver's explicit stack (numba cannot cache a recursive function: numba issue 6061).
_SEAT, _HAND, _BITS, _PREV, _BLOCK, _BEST, _N, _LEADER, _WINNER, _T0, _T1, _T2 = range(12)
STACK_ROWS = 53  # one frame a card still to play, and the root


@compiled
def _open(f: Ints, h: Ints, t: Ints, n: int, leader: int) -> None:
    """Fill frame ``f`` for the seat to play at trick position ``n``: its legal cards (following suit),
    the cards others hold or that lie on the table (``search.distinct_cards``' blockers)."""
    seat = (leader + n) & 3
    hand = h[seat]
    legal = hand
    if n:
        follow = hand & _suit(t[0] // 13)
        if follow:
            legal = follow
    blockers = (h[0] | h[1] | h[2] | h[3]) & ~hand
    for i in range(n):
        blockers |= 1 << t[i]
    f[_SEAT] = seat
    f[_HAND] = hand
    f[_BITS] = legal
    f[_PREV] = -1
    f[_BLOCK] = blockers
    f[_BEST] = -1
    f[_N] = n
    f[_LEADER] = leader
    f[_WINNER] = -1


@compiled
def _next_card(f: Ints) -> int:
    """The frame's next card to try, one per run of equivalent cards (the lowest of the run, in
    ``search.distinct_cards`` order: suits in order, ranks upwards, i.e. card indices upwards); -1 when
    none is left."""
    bits = f[_BITS]
    while bits:
        c = _lowest(bits)
        bits ^= 1 << c
        prev = f[_PREV]
        f[_PREV] = c
        if prev < 0 or c // 13 != prev // 13 or f[_BLOCK] & _below(c) & ~_below(prev + 1):
            f[_BITS] = bits
            return c
    f[_BITS] = 0
    return -1


@compiled
def _take_back(f: Ints, t: Ints, w: Ints) -> None:
    """Undo what the frame's card did to the trick and the tricks won when it closed a trick."""
    if f[_WINNER] >= 0:
        w[f[_WINNER]] -= 1
        t[0] = f[_T0]
        t[1] = f[_T1]
        t[2] = f[_T2]
        f[_WINNER] = -1


@compiled
def _keep(f: Ints, leaf: int, values: Ints) -> None:
    """Max^n at the frame's seat: a strictly better leaf replaces the best so far (ties: the first)."""
    seat = f[_SEAT]
    if f[_BEST] < 0 or values[leaf, seat] > values[f[_BEST], seat]:
        f[_BEST] = leaf


@compiled
def _maxn(h: Ints, trump: int, leader: int, t: Ints, n: int, w: Ints, values: Ints, base: Ints,
          radix: int, stack: Ints) -> int:
    """``search._maxn``: the leaf (final trick counts, as a :func:`leaf_table` row) of the line where every
    seat picks the card best for what it plays for (``values``), ties to the lowest card. Depth first on
    an explicit stack of frames; ``h``, ``t`` and ``w`` are restored."""
    if not h[(leader + n) & 3]:
        return _leaf(w, base, radix)
    p = 0
    _open(stack[0], h, t, n, leader)
    while True:
        f = stack[p]
        c = _next_card(f)
        if c < 0:  # every card tried: the frame's best goes to its parent
            h[f[_SEAT]] = f[_HAND]
            if p == 0:
                return int(f[_BEST])
            p -= 1
            _take_back(stack[p], t, w)
            _keep(stack[p], f[_BEST], values)
            continue
        h[f[_SEAT]] = f[_HAND] ^ (1 << c)
        k = f[_N]
        t[k] = c
        ld = f[_LEADER]
        if k == 3:
            f[_T0] = t[0]
            f[_T1] = t[1]
            f[_T2] = t[2]
            ld = (ld + _winner(t, trump)) & 3
            f[_WINNER] = ld
            w[ld] += 1
            k = 0
        else:
            k += 1
        if not h[(ld + k) & 3]:  # the deal is over: a leaf
            _keep(f, _leaf(w, base, radix), values)
            _take_back(f, t, w)
            continue
        p += 1
        _open(stack[p], h, t, k, ld)


# --- the batch ---------------------------------------------------------------------------------------------
@compiled
def _play_batch(deals: Ints, cards: Ints, me: int, trump: int, leader: int, trick: Ints, won: Ints,
                targets: Ints, exact: bool, values: Ints, radix: int) -> Ints:
    """Final trick counts, shape (deals, candidates, 4): ``search.after_card`` then the rollout or the
    solver, on every pair."""
    out = np.empty((deals.shape[0], cards.shape[0], 4), np.int64)
    h = np.empty(4, np.int64)
    w = np.empty(4, np.int64)
    t = np.empty(4, np.int64)
    stack = np.empty((STACK_ROWS, 12), np.int64)
    for d in range(deals.shape[0]):
        for k in range(cards.shape[0]):
            for s in range(4):
                h[s] = deals[d, s]
                w[s] = won[s]
            n = trick.shape[0]
            for i in range(n):
                t[i] = trick[i]
            h[me] ^= 1 << cards[k]
            t[n] = cards[k]
            n += 1
            ld = leader
            if n == 4:
                ld = (ld + _winner(t, trump)) & 3
                w[ld] += 1
                n = 0
            if exact:
                leaf = _maxn(h, trump, ld, t, n, w, values, won, radix, stack)
                for s in range(4):
                    out[d, k, s] = won[s] + leaf % radix
                    leaf //= radix
            else:
                _rollout(h, trump, ld, t, n, w, targets)
                for s in range(4):
                    out[d, k, s] = w[s]
    return out


@compiled
def _rollouts(hands: Ints, trumps: Ints, leaders: Ints, tricks: Ints, n_tricks: Ints, won: Ints,
              targets: Ints) -> Ints:
    """``policy_rollout`` of every position (row), each with its own trump, trick and targets."""
    out = np.empty((hands.shape[0], 4), np.int64)
    h = np.empty(4, np.int64)
    w = np.empty(4, np.int64)
    t = np.empty(4, np.int64)
    for b in range(hands.shape[0]):
        for s in range(4):
            h[s] = hands[b, s]
            w[s] = won[b, s]
            t[s] = tricks[b, s]
        _rollout(h, trumps[b], leaders[b], t, n_tricks[b], w, targets[b])
        for s in range(4):
            out[b, s] = w[s]
    return out


def _ints(xs: Sequence[int] | Sequence[Sequence[int]]) -> Ints:
    return np.asarray(xs, dtype=np.int64)


def leaf_table(won: Sequence[int], remaining: int,
               plays_for: Callable[[tuple[int, ...]], Sequence[int]]) -> Ints:
    """What each seat plays for (``plays_for(tricks)``: four numbers) at every final trick-count vector
    reachable from ``won`` with ``remaining`` tricks to play, one row per vector; unreachable rows are 0.
    Row of ``won + d``: ``d[0] + r*d[1] + r²*d[2] + r³*d[3]`` with ``r = remaining + 1``."""
    r = remaining + 1
    table = np.zeros((r ** 4, 4), np.int64)
    for d0 in range(r):
        for d1 in range(r - d0):
            for d2 in range(r - d0 - d1):
                d3 = remaining - d0 - d1 - d2
                tricks = (won[0] + d0, won[1] + d1, won[2] + d2, won[3] + d3)
                table[d0 + r * (d1 + r * (d2 + r * d3))] = plays_for(tricks)
    return table


def play_tricks(deals: Sequence[Sequence[int]], cards: Sequence[int], me: int, trump: int, leader: int,
                trick: Sequence[int], won: Sequence[int], targets: Sequence[int],
                table: Ints | None = None) -> Ints:
    """Final trick counts per (deal, candidate card), shape (deals, cards, 4): ``me`` plays the card in
    the deal (the hands before the card), then the deal is played out by the rollout policy, or solved
    exactly when ``table`` (:func:`leaf_table`, for ``remaining`` = the cards ``me`` holds) is given."""
    exact = table is not None
    values = table if table is not None else np.zeros((1, 4), np.int64)
    radix = round(values.shape[0] ** 0.25) if exact else 1
    result: Ints = _play_batch(_ints(deals), _ints(cards), me, trump, leader, _ints(trick), _ints(won),
                               _ints(targets), exact, values, radix)
    return result


def card_outcomes(deals: Sequence[Sequence[int]], cards: Sequence[int], me: int, trump: int, leader: int,
                  trick: Sequence[int], won: Sequence[int], targets: Sequence[int], exact: bool,
                  plays_for: Callable[[tuple[int, ...]], Sequence[int]]) -> list[tuple[list[int], int]]:
    """What ``search._evaluate_play`` adds up, per candidate card: ``me``'s final tricks as a histogram
    (14 counts) and the sum over the deals of what ``me`` plays for (``plays_for(tricks)[me]``).

    ``plays_for`` (the ruleset's scorer, through a cache) is called once per distinct trick-count vector,
    never per deal; the sums are of integers, so the order they are added in cannot change them."""
    table = leaf_table(won, deals[0][me].bit_count(), plays_for) if exact else None
    tricks = play_tricks(deals, cards, me, trump, leader, trick, won, targets, table)
    keys = tricks[:, :, 0] + 14 * (tricks[:, :, 1] + 14 * (tricks[:, :, 2] + 14 * tricks[:, :, 3]))
    distinct, where = np.unique(keys, return_inverse=True)
    mine = np.empty(distinct.shape[0], np.int64)
    for i, key in enumerate(distinct.tolist()):
        vector = (key % 14, key // 14 % 14, key // 196 % 14, key // 2744)
        mine[i] = plays_for(vector)[me]
    sums = mine[where.reshape(keys.shape)].sum(axis=0).tolist()
    return [(np.bincount(tricks[:, k, me], minlength=14).tolist(), sums[k]) for k in range(len(cards))]


#: A position for :func:`play_out`: hands, trump, leader, trick so far, tricks won, targets.
Position = tuple[Sequence[int], int, int, Sequence[int], Sequence[int], Sequence[int]]


def play_out(positions: Sequence[Position]) -> list[list[int]]:
    """``[policy_rollout(*p) for p in positions]`` in one compiled call: the declarations' evaluation
    plays each (deal, candidate) out once the heuristic's declarations are made."""
    if not positions:
        return []
    tricks = np.zeros((len(positions), 4), np.int64)
    for i, p in enumerate(positions):
        tricks[i, :len(p[3])] = p[3]
    out = _rollouts(_ints([p[0] for p in positions]), _ints([p[1] for p in positions]),
                    _ints([p[2] for p in positions]), tricks, _ints([len(p[3]) for p in positions]),
                    _ints([p[4] for p in positions]), _ints([p[5] for p in positions]))
    return out.tolist()  # type: ignore[no-any-return]


def warm_up() -> None:
    """Load every compiled function (compile it, the first time) with one tiny call of each batch."""
    deal = [[1, 2, 4, 8]]  # one card each: 0, 1, 2, 3
    play_tricks(deal, [0], 0, 4, 0, [], [0] * 4, [1] * 4)
    play_tricks(deal, [0], 0, 4, 0, [], [0] * 4, [1] * 4, leaf_table([0] * 4, 1, lambda tricks: tricks))
    play_out([(deal[0], 4, 0, [], [0] * 4, [1] * 4)])
