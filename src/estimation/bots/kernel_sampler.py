"""The strong bot's deal sampler compiled with numba (the ``fast`` extra): the same deals, bit for bit.

:func:`sample_deals` is :func:`.sampler.sample_deals` step for step, with its three loops compiled:
drawing the pool (:func:`.sampler.sample_hands`: a shuffle cut into hands, or dealt suit by suit around
the voids), the declarations' log-likelihood of every deal in the pool (:func:`.evidence.log_likelihood`),
the resample-move swaps (:func:`.moves.rejuvenate`), and the tempering and systematic resampling between
them (:func:`.sampler.temper`, :func:`.sampler.systematic`: in Python they were a sixth of a card's CPU,
their ``math.exp`` over the pool nine times a decision). The deals stay in arrays from the pool to the
swaps.

Why bit for bit: a seeded strong bot must make the same decisions with and without numba. So the kernel
draws from the caller's ``random.Random`` itself: CPython's generator is MT19937, whose whole state is
``rng.getstate()``; the kernel runs the same generator from that state (``getrandbits(k)`` for k <= 32 is
the next 32-bit word shifted right by 32 - k, ``randrange(n)`` draws ``n.bit_length()`` bits until one is
below n, ``shuffle`` swaps from the top, ``random()`` is (a >> 5, b >> 6) made into 53 bits) and the state
is written back with ``rng.setstate()``, so the caller's stream goes on exactly as if Python had drawn.
:func:`stream_matches_python` checks this against the running Python before the kernel is used. The
likelihoods add the same floats in the same order as the Python code, so they are the same floats.

Every number of the model (the hand-value tables, the sigmas, the ruffing values) is passed to the
compiled code as an argument, never read as a global: numba would freeze a global into the cached machine
code, and a retuned :mod:`.handeval` or :mod:`.evidence` would then meet stale code.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

from . import evidence, handeval
from .evidence import Fact, facts
from .heuristic import LEAD_BONUS, HandFacts
from .kernel import compiled
from .knowledge import Info
from .sampler import MIN_ESS, MOVES, OVERSAMPLE, TEMPER_STEPS, SamplingError, deal_slack, systematic

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]

N = 624  # MT19937's state words; the 625th entry of the state array is the position in them
M = 397

KINDS = {"est": 0, "nodash": 1, "dash": 2, "call": 3, "pass": 4, "with": 5}
# Columns of a fact's ints and floats (see :func:`_encode`).
_SEAT, _KIND, _NUMBER, _TRUMP, _STAND_N, _STAND_T = range(6)
_LOW, _HIGH = 5, 6
# Entries of the model's parameters (see :func:`_params`).
_EST, _CALL, _PASS, _DASH, _NODASH, _AFFORD, _NT_SCALE, _SUIT_SCALE, _RUFF = range(9)


# --- CPython's MT19937 -------------------------------------------------------------------------------------
@compiled
def _twist(st: Ints) -> None:
    """The next 624 words (CPython's ``genrand_uint32`` refill)."""
    for kk in range(N):
        y = (st[kk] & 0x80000000) | (st[(kk + 1) % N] & 0x7FFFFFFF)
        st[kk] = st[(kk + M) % N] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
    st[N] = 0


@compiled
def _next32(st: Ints) -> int:
    if st[N] >= N:
        _twist(st)
    y = st[st[N]]
    st[N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return int(y)


@compiled
def _below(st: Ints, n: int) -> int:
    """``random.Random._randbelow(n)`` (= ``randrange(n)``) for 0 < n < 2**32."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    r = _next32(st) >> (32 - k)
    while r >= n:
        r = _next32(st) >> (32 - k)
    return r


@compiled
def _random(st: Ints) -> float:
    """``random.Random.random()``."""
    a = _next32(st) >> 5
    b = _next32(st) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


@compiled
def _shuffle(st: Ints, xs: Ints, n: int) -> None:
    """``random.Random.shuffle`` of ``xs[:n]``."""
    for i in range(n - 1, 0, -1):
        j = _below(st, i + 1)
        xs[i], xs[j] = xs[j], xs[i]


@compiled
def _stream(st: Ints, out: Floats) -> None:
    """A fixed mix of draws, for :func:`stream_matches_python`."""
    xs = np.arange(52, dtype=np.int64)
    _shuffle(st, xs, 52)
    for i in range(52):
        out[i] = xs[i]
    for i in range(52, out.shape[0] - 8):
        out[i] = _below(st, 1 + i % 51)
    for i in range(out.shape[0] - 8, out.shape[0]):
        out[i] = _random(st)


# --- drawing the pool (sampler.sample_hands) ---------------------------------------------------------------
@compiled
def _shuffled_deals(st: Ints, count: int, cards: Ints, others: Ints, sizes: Ints, me: int,
                    hand: int) -> Ints:
    """``sampler._shuffle_deal`` ``count`` times: the unknown cards shuffled and cut, seat by seat."""
    out = np.zeros((count, 4), np.int64)
    order = np.empty(cards.shape[0], np.int64)
    for d in range(count):
        order[:] = cards
        _shuffle(st, order, order.shape[0])
        at = 0
        for s in others:
            mask = 0
            for i in range(at, at + sizes[s]):
                mask |= 1 << order[i]
            out[d, s] = mask
            at += sizes[s]
        out[d, me] = hand
    return out


@compiled
def _deal_once(st: Ints, out: Ints, d: int, elig: Ints, n_elig: Ints, suit_cards: Ints, n_cards: Ints,
               sizes: Ints, slack0: Ints, uses: Ints, n_uses: Ints) -> None:
    """``sampler.deal_by_suit`` into ``out[d]``: suit by suit, each card to a seat drawn in proportion to
    the room left in its hand among those that leave the rest dealable (``slack0`` and ``uses``:
    ``sampler.deal_slack`` as arrays, ``uses[p, e, :n_uses[p, e]]`` for the ``e``-th seat of row ``p``)."""
    order = np.empty(13, np.int64)
    cap = np.empty(4, np.int64)
    slack = slack0.copy()
    weights = np.zeros(4, np.int64)
    cap[:] = sizes
    for s in range(4):
        out[d, s] = 0
    for p in range(elig.shape[0]):
        k = n_cards[p]
        order[:k] = suit_cards[p, :k]
        _shuffle(st, order, k)
        for i in range(k):
            total = 0
            for e in range(n_elig[p]):
                w = cap[elig[p, e]]
                for u in range(n_uses[p, e]):
                    if slack[uses[p, e, u]] == 0:
                        w = 0
                weights[e] = w
                total += w
            r = _below(st, total)
            e = 0
            for e in range(n_elig[p]):
                r -= weights[e]
                if r < 0:
                    break
            s = elig[p, e]
            out[d, s] |= 1 << order[i]
            cap[s] -= 1
            for u in range(n_uses[p, e]):
                slack[uses[p, e, u]] -= 1


@compiled
def _suit_dealt_deals(st: Ints, count: int, elig: Ints, n_elig: Ints, suit_cards: Ints, n_cards: Ints,
                      sizes: Ints, me: int, hand: int, slack0: Ints, uses: Ints, n_uses: Ints) -> Ints:
    """``count`` deals by :func:`_deal_once`."""
    out = np.zeros((count, 4), np.int64)
    for d in range(count):
        _deal_once(st, out, d, elig, n_elig, suit_cards, n_cards, sizes, slack0, uses, n_uses)
        out[d, me] = hand
    return out


# --- the declarations' likelihood (evidence.py, handeval.py) -----------------------------------------------
@compiled
def _count(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@compiled
def _expected(hand: int, trump: int, tables: Floats, par: Floats) -> float:
    """``handeval.expected_tricks``: the same additions in the same order."""
    if trump == 4:
        return float(par[_NT_SCALE] * (tables[0, hand & 0x1FFF] + tables[0, (hand >> 13) & 0x1FFF]
                                       + tables[0, (hand >> 26) & 0x1FFF] + tables[0, (hand >> 39) & 0x1FFF]))
    value = 0.0
    spare = _count((hand >> (trump * 13)) & 0x1FFF) - 1
    for s in range(4):
        bits = (hand >> (s * 13)) & 0x1FFF
        if s == trump:
            value += tables[2, bits]
            continue
        value += tables[1, bits]
        length = _count(bits)
        if length <= 2 and spare > 0:
            ruffs = min(spare, 3 - length)
            value += par[_RUFF + length] * ruffs * 0.8
            spare -= ruffs
    return float(value * par[_SUIT_SCALE])


@compiled
def _expected_all(hand: int, tables: Floats, par: Floats, out: Floats) -> None:
    """``handeval.expected_tricks_all`` into ``out`` (its own order of additions, not ``_expected``'s)."""
    side_total = (tables[1, hand & 0x1FFF] + tables[1, (hand >> 13) & 0x1FFF]
                  + tables[1, (hand >> 26) & 0x1FFF] + tables[1, (hand >> 39) & 0x1FFF])
    for t in range(4):
        bits_t = (hand >> (t * 13)) & 0x1FFF
        value = tables[2, bits_t] + side_total - tables[1, bits_t]
        spare = _count(bits_t) - 1
        if spare > 0:
            for s in range(4):
                length = _count((hand >> (s * 13)) & 0x1FFF)
                if s != t and length <= 2 and spare > 0:
                    ruffs = min(spare, 3 - length)
                    value += par[_RUFF + length] * ruffs * 0.8
                    spare -= ruffs
        out[t] = value * par[_SUIT_SCALE]
    out[4] = par[_NT_SCALE] * (tables[0, hand & 0x1FFF] + tables[0, (hand >> 13) & 0x1FFF]
                               + tables[0, (hand >> 26) & 0x1FFF] + tables[0, (hand >> 39) & 0x1FFF])


@compiled
def _points(hand: int) -> int:
    """``handeval.high_card_points``."""
    points = 0
    for s in range(4):
        bits = (hand >> (s * 13)) & 0x1FFF
        points += 4 * (bits >> 12 & 1) + 3 * (bits >> 11 & 1) + 2 * (bits >> 10 & 1) + (bits >> 9 & 1)
    return points


@compiled
def _longest(hand: int) -> int:
    longest = 0
    for s in range(4):
        longest = max(longest, _count((hand >> (s * 13)) & 0x1FFF))
    return longest


_ACES = 1 << 12 | 1 << 25 | 1 << 38 | 1 << 51


@compiled
def _sure(hand: int, trump: int) -> int:
    """``heuristic.sure_tricks``: the unbroken top trumps and the side aces (every top run at no-trump)."""
    n = 0
    for s in range(4):
        if trump != 4 and s != trump:
            continue
        r = 12
        while r >= 0 and hand >> (s * 13 + r) & 1:
            n += 1
            r -= 1
    if trump != 4 and n < 13:
        for s in range(4):
            if s != trump and hand >> (s * 13 + 12) & 1:
                n += 1
    return n


@compiled
def _wants_dash(hand: int, tables: Floats, par: Floats) -> bool:
    """``heuristic.wants_dash``."""
    if _points(hand) > 4 or hand & _ACES:
        return False
    if _longest(hand) > 4:
        return False
    best = _expected(hand, 0, tables, par)
    for t in range(1, 5):
        best = max(best, _expected(hand, t, tables, par))
    return best < 1.0


@compiled
def _estimate_ll(fi: Ints, ff: Floats, f: int, dealt: int, values: Floats, have: bool, tables: Floats,
                 par: Floats) -> float:
    t = fi[f, _TRUMP]
    v = values[t] if have else _expected(dealt, t, tables, par)
    low = ff[f, _LOW]
    high = ff[f, _HIGH]
    if v < low or v > high:
        v = max(v, float(_sure(dealt, t)))
    gap = max(low - v, v - high, 0.0)
    return float(-gap * gap / (2 * par[_EST] * par[_EST]))


@compiled
def _dash_ll(dealt: int, values: Floats, par: Floats) -> float:
    top = values[0]
    for t in range(1, 5):
        top = max(top, values[t])
    gap = (max(0, _points(dealt) - 4) / 2 + _count(dealt & _ACES) + max(0, _longest(dealt) - 4) / 2
           + max(0.0, top - 1.0))
    return float(-gap * gap / (2 * par[_DASH] * par[_DASH]))


@compiled
def _call_ll(fi: Ints, ff: Floats, f: int, values: Floats, par: Floats) -> float:
    t = fi[f, _TRUMP]
    g1 = max(0.0, fi[f, _NUMBER] - values[t] - par[_AFFORD])
    g2 = 0.0
    for u in range(5):
        if u != t and ff[f, u] <= values[u] + par[_AFFORD]:
            g2 = max(g2, values[u] - values[t])
    return float(-(g1 * g1 + g2 * g2) / (2 * par[_CALL] * par[_CALL]))


@compiled
def _pass_ll(fi: Ints, ff: Floats, f: int, values: Floats, par: Floats) -> float:
    gap = 0.0
    for t in range(5):
        if ff[f, t] < math.inf:
            gap = max(gap, values[t] + par[_AFFORD] - ff[f, t])
    total = -gap * gap / (2 * par[_PASS] * par[_PASS])
    if fi[f, _STAND_T] >= 0:
        n = fi[f, _STAND_N]
        t = fi[f, _STAND_T]
        w = max(0.0, values[t] - n) if fi[f, _KIND] == 4 else max(0.0, n - values[t])
        total -= w * w / (2 * par[_PASS] * par[_PASS])
    return float(total)


@compiled
def _fact_ll(fi: Ints, ff: Floats, f: int, dealt: int, values: Floats, have: bool, tables: Floats,
             par: Floats) -> float:
    """``evidence.fact_log_likelihood`` of fact ``f`` (``values``: the hand's values, if ``have``)."""
    kind = fi[f, _KIND]
    if kind == 0:
        return _estimate_ll(fi, ff, f, dealt, values, have, tables, par)
    if kind == 1:
        return -par[_NODASH] if not dealt & _ACES and _wants_dash(dealt, tables, par) else 0.0
    if kind == 2:
        return _dash_ll(dealt, values, par)
    if kind == 3:
        return _call_ll(fi, ff, f, values, par)
    return _pass_ll(fi, ff, f, values, par)


@compiled
def _facts_ll(fi: Ints, ff: Floats, start: int, end: int, dealt: int, values: Floats, tables: Floats,
              par: Floats, total: float) -> float:
    """``total`` plus the log-likelihoods of facts ``start:end`` (one seat's), added one by one; the
    hand's values are computed at the first fact that needs them (``evidence._AUCTION_KINDS``)."""
    have = False
    for f in range(start, end):
        if not have and fi[f, _KIND] >= 2:
            _expected_all(dealt, tables, par, values)
            have = True
        total += _fact_ll(fi, ff, f, dealt, values, have, tables, par)
    return total


@compiled
def _pool_logs(pool: Ints, played_by: Ints, fi: Ints, ff: Floats, starts: Ints, ends: Ints,
               tables: Floats, par: Floats, scale: float) -> Floats:
    """``evidence.log_likelihood`` of every deal: one running sum over the facts, seat after seat."""
    out = np.empty(pool.shape[0], np.float64)
    values = np.empty(5, np.float64)
    for d in range(pool.shape[0]):
        total = 0.0
        for s in range(4):
            if ends[s] > starts[s]:
                dealt = pool[d, s] | played_by[s]
                total = _facts_ll(fi, ff, starts[s], ends[s], dealt, values, tables, par, total)
        out[d] = total / (scale * scale)
    return out


# --- the resample-move swaps (moves.rejuvenate) ------------------------------------------------------------
@compiled
def _nth_card(mask: int, i: int) -> int:
    """``indexes_of(mask)[i]``: the ``i``-th lowest card."""
    for _ in range(i):
        mask &= mask - 1
    low = mask & -mask
    c = 0
    while low > 1:
        low >>= 1
        c += 1
    return c


@compiled
def _seat_ll(fi: Ints, ff: Floats, starts: Ints, ends: Ints, s: int, dealt: int, values: Floats,
             tables: Floats, par: Floats, inv: float) -> float:
    """``evidence.seat_log_likelihood`` times ``inv``."""
    return _facts_ll(fi, ff, starts[s], ends[s], dealt, values, tables, par, 0.0) * inv


@compiled
def _rejuvenate(st: Ints, deals: Ints, seats: Ints, played_by: Ints, voids: Ints, fi: Ints, ff: Floats,
                starts: Ints, ends: Ints, tables: Floats, par: Floats, steps: int, inv: float) -> Ints:
    """``moves.rejuvenate``'s loop: ``steps`` swap proposals per deal, the same draws in the same order."""
    out = deals.copy()
    values = np.empty(5, np.float64)
    ll = np.zeros(4, np.float64)
    k = seats.shape[0]
    for d in range(out.shape[0]):
        h = out[d]
        for s in seats:
            ll[s] = _seat_ll(fi, ff, starts, ends, s, h[s] | played_by[s], values, tables, par, inv)
        for _ in range(steps):
            i = _below(st, k)
            j = _below(st, k - 1)
            a = seats[i]
            b = seats[j + 1 if j >= i else j]
            x = _nth_card(h[a], _below(st, _count(h[a])))
            y = _nth_card(h[b], _below(st, _count(h[b])))
            if voids[a] >> (y // 13) & 1 or voids[b] >> (x // 13) & 1:
                continue
            na = h[a] ^ (1 << x) | (1 << y)
            nb = h[b] ^ (1 << y) | (1 << x)
            la = _seat_ll(fi, ff, starts, ends, a, na | played_by[a], values, tables, par, inv)
            lb = _seat_ll(fi, ff, starts, ends, b, nb | played_by[b], values, tables, par, inv)
            delta = la + lb - ll[a] - ll[b]
            if delta >= 0.0 or _random(st) < math.exp(delta):
                h[a] = na
                h[b] = nb
                ll[a] = la
                ll[b] = lb
    return out


# --- what the heuristic's declarations read of a hand (heuristic.HandFacts) -----------------------------
@compiled
def _hand_facts(hands: Ints, tables: Floats, par: Floats, bonus: float, values: Floats, targets: Floats,
                dash: Ints) -> None:
    """Each hand's values with the lead's bonus, estimate targets and Dash wish (``heuristic.hand_facts``:
    ``_expected`` is ``expected_tricks`` addition for addition, and ``max(e, float(sure))`` keeps ``e``
    unless the sure tricks exceed it)."""
    for i in range(hands.shape[0]):
        h = hands[i]
        for t in range(5):
            e = _expected(h, t, tables, par)
            values[i, t] = e + bonus
            sure = float(_sure(h, t))
            targets[i, t] = sure if sure > e else e
        dash[i] = 1 if _wants_dash(h, tables, par) else 0


# --- tempering and systematic resampling (sampler.temper, sampler.systematic) ---------------------------
@compiled
def _effective_size(w: Floats) -> float:
    """``sampler.effective_size``: the two sums added left to right, as Python's ``sum`` does."""
    total = 0.0
    for x in w:
        total += x
    squares = 0.0
    for x in w:
        squares += x * x
    return total * total / squares if squares != 0.0 else 0.0


@compiled
def _powers(centred: Floats, beta: float, out: Floats) -> None:
    for i in range(centred.shape[0]):
        out[i] = math.exp(beta * centred[i])


@compiled
def _resampled(logs: Floats, min_ess: float, n: int, u: float, steps: int) -> Ints:
    """The pool's indexes that ``sampler.systematic(pool, sampler.temper(logs, min_ess)[0], n, u)`` keeps:
    the same floats in the same order (``math.exp`` is the C library's, as in Python)."""
    top = logs[0]
    for x in logs:
        if x > top:
            top = x
    centred = logs - top
    w = np.empty(logs.shape[0], np.float64)
    _powers(centred, 1.0, w)
    if _effective_size(w) < min_ess:
        low = 0.0
        high = 1.0
        for _ in range(steps):
            mid = (low + high) / 2
            _powers(centred, mid, w)
            if _effective_size(w) >= min_ess:
                low = mid
            else:
                high = mid
        _powers(centred, low, w)
    total = 0.0
    for x in w:
        total += x
    step = total / n
    start = u * step
    kept = np.empty(n, np.int64)
    acc = 0.0
    i = 0
    for j in range(w.shape[0]):
        acc += w[j]
        while i < n and start + i * step < acc:
            kept[i] = j
            i += 1
    while i < n:  # rounding at the very end
        kept[i] = w.shape[0] - 1
        i += 1
    return kept


# --- the Python side ---------------------------------------------------------------------------------------
class _Stream:
    """The caller's generator's state as the kernel's array, and back (``getstate``/``setstate``)."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._version, words, self._gauss = rng.getstate()
        self.state: Ints = np.array(words, dtype=np.int64)

    def write_back(self) -> None:
        self._rng.setstate((self._version, tuple(self.state.tolist()), self._gauss))


def _ints(xs: Sequence[int] | Sequence[Sequence[int]]) -> Ints:
    return np.asarray(xs, dtype=np.int64)


@lru_cache(maxsize=1)
def _model() -> tuple[Floats, Floats]:
    """The hand-value tables and the likelihood's constants, read from the Python modules."""
    tables = np.array([handeval.SIDE_NT, handeval.SIDE_SUIT, handeval.TRUMP_VALUE], dtype=np.float64)
    par = np.array([evidence.EST_SIGMA, evidence.CALL_SIGMA, evidence.PASS_SIGMA, evidence.DASH_SIGMA,
                    evidence.NODASH_COST, evidence.AFFORD, handeval.NT_SCALE, handeval.SUIT_SCALE,
                    *handeval._RUFF], dtype=np.float64)
    return tables, par


@lru_cache(maxsize=evidence.FACTS_KEPT)  # one a seat's deal, as evidence.facts keeps them
def _encode(facts_: tuple[Fact, ...]) -> tuple[Ints, Floats, Ints, Ints]:
    """The facts (grouped by seat, as :func:`.evidence.facts` gives them) as arrays: per fact its seat,
    kind, number, trump and standing call (-1: none), and its cheapest calls, low and high; and each
    seat's first and past-the-last fact."""
    fi = np.zeros((len(facts_), 6), np.int64)
    ff = np.zeros((len(facts_), 7), np.float64)
    starts = np.zeros(4, np.int64)
    ends = np.zeros(4, np.int64)
    for i, f in enumerate(facts_):
        standing = f.standing if f.standing is not None else (0, -1)
        fi[i] = (f.seat, KINDS[f.kind], f.number, f.trump, standing[0], standing[1])
        ff[i] = (*f.cheapest, f.low, f.high)
        if ends[f.seat] == 0:
            starts[f.seat] = i
        ends[f.seat] = i + 1
    return fi, ff, starts, ends


def _plan(info: Info, others: list[int]) -> tuple[Ints, Ints, Ints, Ints]:
    """``sampler.deal_by_suit``'s plan as arrays: the suits, fewest eligible seats first (then by suit),
    each with its eligible seats and its unknown cards."""
    rows = []
    for suit in range(4):
        elig = [s for s in others if not info.voids[s] >> suit & 1]
        in_suit = [suit * 13 + r for r in range(13) if info.unknown >> (suit * 13 + r) & 1]
        if in_suit:
            rows.append((len(elig), suit, elig, in_suit))
    rows.sort(key=lambda row: (row[0], row[1]))
    elig_a = np.zeros((len(rows), 4), np.int64)
    cards_a = np.zeros((len(rows), 13), np.int64)
    for p, (_n, _suit, elig, in_suit) in enumerate(rows):
        elig_a[p, :len(elig)] = elig
        cards_a[p, :len(in_suit)] = in_suit
    return (elig_a, _ints([len(r[2]) for r in rows]), cards_a, _ints([len(r[3]) for r in rows]))


def sample_pool(info: Info, count: int, rng: random.Random) -> list[list[int]]:
    """``[sampler.sample_hands(info, rng) for _ in range(count)]``, drawn in one compiled call."""
    stream = _Stream(rng)
    deals = _pool(info, count, stream.state)
    stream.write_back()
    return deals.tolist()  # type: ignore[no-any-return]


def _pool(info: Info, count: int, st: Ints) -> Ints:
    """:func:`sample_pool` from the generator's state ``st``, as the kernels' array (a row a deal, a column
    a seat). ``st`` moves on only if a pool was drawn."""
    me = info.seat
    others = [s for s in range(4) if s != me]
    sizes = [0 if s == me else info.hand_sizes[s] for s in range(4)]
    if sum(sizes) != info.unknown.bit_count():
        raise SamplingError("hand sizes do not match the unknown cards")
    if not any(info.voids[s] for s in others):
        cards = _ints([c for c in range(52) if info.unknown >> c & 1])
        return _shuffled_deals(st, count, cards, _ints(others), _ints(sizes), me, info.hand)
    plan = _plan(info, others)
    slack = _slack(sizes, others, plan)
    if slack is None:
        raise SamplingError("no deal consistent with the view was found")
    return _suit_dealt_deals(st, count, *plan, _ints(sizes), me, info.hand, *slack)


def _slack(sizes: list[int], others: list[int], plan: tuple[Ints, Ints, Ints, Ints]
           ) -> tuple[Ints, Ints, Ints] | None:
    """``sampler.deal_slack`` for ``plan`` (:func:`_plan`) as arrays: the slack of every set of seats, and
    for row ``p``'s ``e``-th seat the sets a card dealt there uses (``uses[p, e, :n_uses[p, e]]``); None if
    no deal fits."""
    elig, n_elig, _cards, n_cards = plan
    rows = [([int(x) for x in elig[p, :n_elig[p]]], int(n_cards[p])) for p in range(elig.shape[0])]
    slack, uses = deal_slack(sizes, others, rows)
    if slack is None:
        return None
    uses_a = np.zeros((len(rows), 4, 16), np.int64)
    n_uses = np.zeros((len(rows), 4), np.int64)
    for p, (seats, _count) in enumerate(rows):
        for e, seat in enumerate(seats):
            n_uses[p, e] = len(uses[p][seat])
            uses_a[p, e, :len(uses[p][seat])] = uses[p][seat]
    return _ints(slack), uses_a, n_uses


def pool_log_likelihoods(facts_: tuple[Fact, ...], pool: list[list[int]], played_by: Sequence[int],
                         scale: float) -> list[float]:
    """``[evidence.log_likelihood(facts_, h, played_by, scale) for h in pool]``."""
    tables, par = _model()
    logs = _pool_logs(_ints(pool), _ints(played_by), *_encode(facts_), tables, par, scale)
    return logs.tolist()  # type: ignore[no-any-return]


def rejuvenate(info: Info, deals: list[list[int]], facts_: tuple[Fact, ...], steps: int,
               rng: random.Random, scale: float = 1.0) -> list[list[int]]:
    """``moves.rejuvenate(info, deals, by_seat(facts_), steps, rng, scale)``, compiled."""
    stream = _Stream(rng)
    out = _rejuvenated(info, _ints(deals), facts_, steps, stream.state, scale)
    stream.write_back()
    return out.tolist()  # type: ignore[no-any-return]


def _rejuvenated(info: Info, deals: Ints, facts_: tuple[Fact, ...], steps: int, st: Ints,
                 scale: float) -> Ints:
    """:func:`rejuvenate` on the kernels' arrays, drawing from the generator's state ``st``."""
    seats = [s for s in range(4) if s != info.seat and info.hand_sizes[s] > 0]
    if len(seats) < 2 or steps <= 0 or not facts_:
        return deals.copy()
    tables, par = _model()
    fi, ff, starts, ends = _encode(facts_)
    return _rejuvenate(st, deals, _ints(seats), _ints(info.played_by), _ints(info.voids), fi, ff, starts,
                       ends, tables, par, steps, 1.0 / (scale * scale))


def sample_deals(info: Info, n: int, rng: random.Random, evidence: bool = True, scale: float = 1.0,
                 oversample: int = OVERSAMPLE, min_ess: float = MIN_ESS,
                 moves: int = MOVES) -> list[list[int]]:
    """:func:`.sampler.sample_deals`, the same steps and the same draws from ``rng``, its loops compiled
    and its deals kept in the kernels' arrays from the pool to the swaps."""
    facts_ = facts(info)
    if not facts_:
        return sample_pool(info, n, rng)
    stream = _Stream(rng)  # one reading of the generator's state for the whole draw, written back once
    pool = _pool(info, n * oversample, stream.state)
    u = _random(stream.state)
    if not evidence:
        stream.write_back()
        return systematic(pool.tolist(), [1.0] * pool.shape[0], n, u)
    tables, par = _model()
    logs = _pool_logs(pool, _ints(info.played_by), *_encode(facts_), tables, par, scale)
    kept = pool[_resampled(logs, min_ess * n, n, u, TEMPER_STEPS)]
    out = _rejuvenated(info, kept, facts_, moves, stream.state, scale)
    stream.write_back()
    return out.tolist()  # type: ignore[no-any-return]


def hand_facts(hands: set[int]) -> dict[int, HandFacts]:
    """``{h: heuristic.hand_facts(h) for h in hands}`` in one compiled call: a declaration's simulations
    ask them of every hand of every sampled deal."""
    order = list(hands)
    n = len(order)
    values = np.empty((n, 5), np.float64)
    targets = np.empty((n, 5), np.float64)
    dash = np.empty(n, np.int64)
    tables, par = _model()
    _hand_facts(_ints(order), tables, par, LEAD_BONUS, values, targets, dash)
    return {h: HandFacts(tuple(v), tuple(t), bool(d))
            for h, v, t, d in zip(order, values.tolist(), targets.tolist(), dash.tolist(), strict=True)}


def stream_matches_python(seed: Any = "estimation") -> bool:
    """Whether the compiled generator draws what this Python's ``random.Random`` draws (a shuffle of 52,
    ``randrange`` of every size up to 51, ``random()``) and leaves the same state: the condition for using
    the compiled sampler at all (a future Python could change ``shuffle`` or ``randrange``)."""
    ours = random.Random(seed)
    theirs = random.Random(seed)
    stream = _Stream(ours)
    out = np.zeros(160, np.float64)
    _stream(stream.state, out)
    stream.write_back()
    xs = list(range(52))
    theirs.shuffle(xs)
    expected: list[float] = [float(x) for x in xs]
    expected += [float(theirs.randrange(1 + i % 51)) for i in range(52, 152)]
    expected += [theirs.random() for _ in range(8)]
    return out.tolist() == expected and ours.getstate() == theirs.getstate()


def warm_up() -> None:
    """Load every compiled function (compile it, the first time) with one tiny call of each loop: the
    pool both ways, the likelihoods of every kind of fact, the swaps, the resampling, the hand facts."""
    state = _Stream(random.Random(0)).state
    seats = _ints([1, 2, 3])
    sizes = _ints([0, 1, 1, 1])
    _shuffled_deals(state, 1, _ints([1, 2, 3]), seats, sizes, 0, 1)
    plan = (_ints([[1, 2, 3, 0]]), _ints([3]), _ints([[1, 2, 3] + [0] * 10]), _ints([3]))
    slack = _slack([0, 1, 1, 1], [1, 2, 3], plan)
    assert slack is not None
    _suit_dealt_deals(state, 1, *plan, sizes, 0, 1, *slack)
    facts_ = tuple(Fact(1 + i // 2, kind, 1, 0, standing=(1, 0)) for i, kind in enumerate(KINDS))
    fi, ff, starts, ends = _encode(facts_)
    tables, par = _model()
    deals = _ints([[1, 2, 4, 8]])
    played = _ints([0, 0, 0, 0])
    _pool_logs(deals, played, fi, ff, starts, ends, tables, par, 1.0)
    _rejuvenate(state, deals, seats, played, played, fi, ff, starts, ends, tables, par, 1, 1.0)
    _resampled(np.zeros(2, np.float64), 1.0, 1, 0.5, 1)
    hand_facts({1})
