"""The strong bot's machinery: evaluate candidate actions on sampled deals by expected Estimation score.

For every sampled deal (see :mod:`.sampler`) and every candidate action, the deal is rebuilt as a
*shadow* :class:`Game` (the current deal's actions replayed on the sampled cards, :mod:`.shadow`), the
candidate is applied, the rest of the declarations are made by the heuristic for every seat (a decision's
deals share those simulated auctions as a tree, :class:`.shadow.ShadowAuction`), and the cards are played
out with every seat aiming at its own estimate (:func:`.policy.policy_rollout`). The seat's tricks and
its score, by the ruleset's own scorer, are recorded. Using the engine itself for the shadow is what
makes the search work for every ruleset, present and future: nothing here knows a ruleset's declarations
or scores. The last few tricks are solved exactly instead (max^n: each seat plays for its own score).

The result per candidate is the distribution of the seat's tricks and its mean score: the numbers
``estimation hint`` shows and the strong bot maximises. Budgets are counted in deals, so a seeded
search is deterministic; the wall-clock cap only cuts a runaway decision short.

With the ``fast`` extra (numba) the deals are drawn and the play's candidates played out by compiled
kernels (:mod:`.kernel_sampler`, :mod:`.kernel`) that give exactly the Python code's numbers, so the same
decisions; :func:`compiled_kernels` chooses, and ``ESTIMATION_KERNEL=python`` forces the Python code.
"""

from __future__ import annotations

import functools
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..actions import Action, Verb
from ..cards import SUIT_BITS, Card
from ..fast import random_rollout, trick_winner_index
from ..rulesets.base import Phase
from .handeval import expected_tricks
from .heuristic import LEAD_BONUS, HandFacts, estimate_for, heuristic_action
from .knowledge import Info
from .policy import LOW_BITS, policy_rollout
from .sampler import sample_deals
from .shadow import Scorer, ShadowAuction, ShadowEnd, round_scorer, shadow_game
from .side import sparing, value

#: Stand-in value of a deal that is thrown in (every seat passed): roughly a seat's average round score.
REDEAL_VALUE = 5.0


@dataclass(slots=True)
class Budget:
    """Work per decision. ``samples``: deals drawn; ``exact_tricks``: solve exactly at or below this many
    tricks left; ``max_seconds``: a safety cap only."""

    samples: int = 64
    play_samples: int = 64
    exact_tricks: int = 3
    max_seconds: float = 0.8
    evidence: bool = True
    play_evidence: bool = True  # weigh the declarations in the play phase too
    evidence_scale: float = 1.0  # multiplies the sampler's sigmas (smaller: trust declarations more)
    oversample: int = 2  # deals drawn per deal kept when weighing the evidence
    rollout: str = "policy"  # or "random" (ablation)
    #: In a partnership game, judge a candidate by the side's score (the seat's and its partner's); False
    #: plays for the seat alone (the measurement's reference, ``strong-seat``).
    for_side: bool = True
    #: Declarations only: 0 plays every candidate out on every deal (the hints, ``strong-full``); above 0,
    #: a race (:func:`still_racing`) after every ``race_batch`` deals drops a candidate this many standard
    #: errors behind the leader (the `strong` bot: :data:`.strong.RACE_Z`).
    race_z: float = 0.0
    race_batch: int = 8


@dataclass(slots=True)
class Evaluation:
    """One candidate's numbers: the seat's trick histogram and the sum of its scores over the deals."""

    action: Action
    tricks: list[int] = field(default_factory=lambda: [0] * 14)
    score_sum: float = 0.0
    n: int = 0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.n if self.n else 0.0

    def probabilities(self) -> list[float]:
        counted = sum(self.tricks)
        return [t / counted if counted else 0.0 for t in self.tricks]


# --- the shadow game --------------------------------------------------------------------------------------

def after_card(info: Info, hands: Sequence[int], me: int, card: int,
               trump: int) -> tuple[list[int], int, list[int], list[int]]:
    """The position once ``me`` plays ``card`` in a sampled deal: the hands, the leader, the trick and the
    tricks won (a fourth card closes the trick). Copies: the deal is reused for every candidate."""
    h = list(hands)
    trick = list(info.trick)
    won = list(info.won)
    leader = info.leader
    h[me] ^= 1 << card
    trick.append(card)
    if len(trick) == 4:
        leader = (leader + trick_winner_index(trick, trump)) & 3
        won[leader] += 1
        trick = []
    return h, leader, trick, won

# --- candidates -------------------------------------------------------------------------------------------
def distinct_cards(legal: int, blockers: int) -> list[int]:
    """One card per run of equivalent cards: two cards of a suit are equivalent when no card in
    ``blockers`` (cards others hold, or on the table) lies between them. The lowest of a run is kept."""
    out: list[int] = []
    for s in range(4):
        bits = legal & SUIT_BITS[s]
        prev = -1
        while bits:
            c = (bits & -bits).bit_length() - 1
            bits ^= 1 << c
            if prev < 0 or blockers & LOW_BITS[c] & ~LOW_BITS[prev + 1]:
                out.append(c)
            prev = c
    return out


def declaration_candidates(info: Info, limit: int = 6) -> list[Action]:
    """The declarations worth simulating: around what the hand is worth, plus the heuristic's choice."""
    legal = info.legal
    verbs = {a.verb for a in legal}
    chosen = heuristic_action(info)
    if Verb.EST in verbs:
        trump = info.trump if info.trump is not None else 4
        target = estimate_for(info.hand, trump)
        plain = [a for a in legal if a.verb is Verb.EST and a.trump is None and a.number is not None]
        plain.sort(key=lambda a: (abs((a.number or 0) - target), a.number))
        out = [chosen] + [a for a in plain[:limit] if a is not chosen]
        return out[:limit]
    if verbs & {Verb.CALL, Verb.BID, Verb.DECLARE}:
        values = [expected_tricks(info.hand, t) + LEAD_BONUS for t in range(5)]
        scored: list[tuple[float, Action]] = []
        lowest: dict[int, int] = {}
        for a in legal:
            if a.number is not None and a.trump is not None:
                t = int(a.trump)
                lowest[t] = min(lowest.get(t, 99), a.number)
        for a in legal:
            if a.number is None or a.trump is None:
                continue
            t = int(a.trump)
            margin = values[t] - a.number
            if a.number <= lowest[t] + 1 and margin > -1.5:
                scored.append((margin + values[t] * 0.1, a))
        scored.sort(key=lambda x: -x[0])
        out = [chosen]
        out.extend(a for a in legal if a.verb in (Verb.PASS, Verb.WITH) and a is not chosen)
        out.extend(a for _, a in scored if a is not chosen)
        return out[:limit]
    return list(legal)


# --- evaluation -------------------------------------------------------------------------------------------
def _rollout_fn(budget: Budget) -> Callable[[Sequence[int], int, int, Sequence[int], Sequence[int],
                                             Sequence[int], random.Random], list[int]]:
    if budget.rollout == "random":
        def rnd(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int], won: Sequence[int],
                targets: Sequence[int], rng: random.Random) -> list[int]:
            return random_rollout(list(hands), trump, leader, list(trick), list(won), rng.random)
        return rnd

    def pol(hands: Sequence[int], trump: int, leader: int, trick: Sequence[int], won: Sequence[int],
            targets: Sequence[int], rng: random.Random) -> list[int]:
        return policy_rollout(hands, trump, leader, trick, won, targets)
    return pol


def evaluate(info: Info, candidates: Sequence[Action], budget: Budget, rng: random.Random,
             deals: list[list[int]] | None = None) -> list[Evaluation]:
    """Evaluate ``candidates`` (legal actions of ``info.seat``) on sampled deals: every candidate, unless
    ``budget.race_z`` races a declaration's candidates; then only those still in the race at its end (all
    on the same deals), in the candidates' order."""
    compiled_kernels()  # loaded (compiled, the first time) before the decision's wall-clock cap starts
    start = time.perf_counter()
    if deals is None:
        play = info.phase == str(Phase.PLAY)
        n = budget.play_samples if play else budget.samples
        weigh = budget.evidence and (budget.play_evidence or not play)
        deals = deal_sampler()(info, n, rng, weigh, budget.evidence_scale, budget.oversample)
    evals = [Evaluation(a) for a in candidates]
    if info.phase == str(Phase.PLAY):
        _evaluate_play(info, evals, deals, budget, rng, start)
        return evals
    return _evaluate_declaration(info, evals, deals, budget, rng, start)


def still_racing(evals: Sequence[Evaluation], scores: Sequence[Sequence[float]], alive: Sequence[int],
                 z: float) -> list[int]:
    """The candidates (indexes into ``evals``) that stay in a race: the leader (the best score so far; the
    earlier on a tie) and every one whose mean paired difference with it (``scores[i][k]``: candidate
    ``i``'s score on the ``k``-th deal, every candidate in ``alive`` on the same deals) is not below zero by
    more than ``z`` standard errors. One that has tied the leader on every deal is dropped too (its
    difference is 0 with no spread): it cannot be better on the deals seen."""
    lead = alive[0]
    for i in alive[1:]:
        if evals[i].score_sum > evals[lead].score_sum + 1e-9:
            lead = i
    kept = []
    for i in alive:
        if i == lead:
            kept.append(i)
            continue
        d = [x - y for x, y in zip(scores[i], scores[lead], strict=True)]
        n = len(d)
        mean = sum(d) / n
        var = sum((x - mean) ** 2 for x in d) / (n - 1) if n > 1 else 0.0
        if mean + z * math.sqrt(var / n) > 1e-9:
            kept.append(i)
    return kept


#: The environment variable that picks the compiled kernels or the Python code: ``python`` forces the
#: pure-Python code (the reference: tests, benchmarks), ``numba`` requires the kernels (an error without
#: numba), and anything else (the default) uses them when numba is importable.
KERNEL_ENV = "ESTIMATION_KERNEL"

#: What the compiled kernel returns per candidate card: the seat's trick histogram and its summed value.
CardOutcomes = Callable[[Sequence[Sequence[int]], Sequence[int], int, int, int, Sequence[int],
                         Sequence[int], Sequence[int], bool, Callable[[tuple[int, ...]], Sequence[int]]],
                        list[tuple[list[int], int]]]
#: Policy rollouts of many positions (hands, trump, leader, trick, won, targets): final tricks of each.
PlayOut = Callable[[Sequence[tuple[Sequence[int], int, int, Sequence[int], Sequence[int], Sequence[int]]]],
                   list[list[int]]]
#: :func:`.sampler.sample_deals`'s signature (info, n, rng, evidence, scale, oversample).
SampleDeals = Callable[[Info, int, random.Random, bool, float, int], list[list[int]]]


@dataclass(frozen=True, slots=True)
class Compiled:
    """The compiled kernels (the ``fast`` extra), each giving exactly the numbers of the Python code it
    stands for. ``sample_deals`` is None when the compiled generator does not draw what this Python's
    ``random`` draws (:func:`.kernel_sampler.stream_matches_python`): then the deals come from Python."""

    card_outcomes: CardOutcomes
    play_out: PlayOut
    sample_deals: SampleDeals | None
    hand_facts: Callable[[set[int]], dict[int, HandFacts]]


@functools.cache
def _compiled() -> Compiled | None:
    """The kernels if numba is importable, else None. Imported on the first decision, not with this
    module: importing numba and loading the cached kernels costs about 0.6 s of CPU (compiling them,
    the first time, about 12 s)."""
    try:
        from . import kernel, kernel_sampler
    except ImportError:
        return None
    # Every compiled function is loaded here (compiled, the first time: seconds), not in a decision.
    kernel.warm_up()
    kernel_sampler.warm_up()
    sampler = kernel_sampler.sample_deals if kernel_sampler.stream_matches_python() else None
    return Compiled(kernel.card_outcomes, kernel.play_out, sampler, kernel_sampler.hand_facts)


def compiled_kernels() -> Compiled | None:
    """The one place that chooses between the compiled kernels and the Python code (``KERNEL_ENV``)."""
    choice = os.environ.get(KERNEL_ENV, "")
    if choice == "python":
        return None
    kernels = _compiled()
    if kernels is None and choice == "numba":
        raise RuntimeError(f"{KERNEL_ENV}=numba but numba is not importable: pip install 'estimation[fast]'")
    return kernels


def play_kernel(budget: Budget) -> CardOutcomes | None:
    """How a play decision is evaluated: the compiled kernel (the same trick counts, so the same
    decisions, at a fraction of the CPU) or None for the pure-Python loop. The kernel ports only the
    policy rollout and the exact endgame; ``random`` rollouts stay in Python."""
    kernels = compiled_kernels()
    return kernels.card_outcomes if kernels is not None and budget.rollout == "policy" else None


def rollout_kernel(budget: Budget) -> PlayOut | None:
    """How the declarations' evaluation plays its deals out: compiled policy rollouts in one batch (the
    same trick counts) or None for one Python rollout at a time."""
    kernels = compiled_kernels()
    return kernels.play_out if kernels is not None and budget.rollout == "policy" else None


def deal_sampler() -> SampleDeals:
    """How deals are drawn: the compiled sampler (the same deals, the same draws from the generator) or
    :func:`.sampler.sample_deals`."""
    kernels = compiled_kernels()
    if kernels is not None and kernels.sample_deals is not None:
        return kernels.sample_deals
    return sample_deals


def _evaluate_play(info: Info, evals: list[Evaluation], deals: list[list[int]], budget: Budget,
                   rng: random.Random, start: float) -> None:
    scorer = round_scorer(info, deals[0])
    kernel = play_kernel(budget)
    if kernel is not None:
        _evaluate_play_compiled(kernel, info, evals, deals, budget, scorer, start)
        return
    trump = info.trump if info.trump is not None else 4
    targets = [e if e is not None else 0 for e in info.estimates]
    me = info.seat
    side = info.partners and budget.for_side
    exact = info.hand.bit_count() <= budget.exact_tricks
    rollout = _rollout_fn(budget)
    for hands in deals:
        if time.perf_counter() - start > budget.max_seconds and evals[0].n:
            break
        for ev in evals:
            card = ev.action.card
            assert card is not None
            h, leader, trick, won = after_card(info, hands, me, card, trump)
            tricks: Sequence[int]
            if exact:
                scores, tricks = solve(h, trump, leader, trick, won, scorer, side)
            else:
                tricks = rollout(h, trump, leader, trick, won, targets, rng)
                scores = scorer(tricks)
            ev.tricks[tricks[me]] += 1
            ev.score_sum += value(scores, me, side)
            ev.n += 1


def _evaluate_play_compiled(kernel: CardOutcomes, info: Info, evals: list[Evaluation],
                            deals: list[list[int]], budget: Budget, scorer: Scorer, start: float) -> None:
    """The loop above in one call of the compiled kernel: every deal, every candidate. The wall-clock cap
    is checked once, before it (a starved machine gets the first deal only, as the loop would); the policy
    rollout draws no random number, so ``rng`` is not needed."""
    if time.perf_counter() - start > budget.max_seconds:
        deals = deals[:1]
    side = info.partners and budget.for_side

    def plays_for(tricks: tuple[int, ...]) -> list[int]:
        scores = scorer(tricks)
        return [value(scores, seat, side) for seat in range(4)]

    cards: list[int] = []
    for ev in evals:
        assert ev.action.card is not None
        cards.append(int(ev.action.card))
    trump = info.trump if info.trump is not None else 4
    targets = [e if e is not None else 0 for e in info.estimates]
    exact = info.hand.bit_count() <= budget.exact_tricks
    outcomes = kernel(deals, cards, info.seat, trump, info.leader, info.trick, info.won, targets, exact,
                      plays_for)
    for ev, (histogram, total) in zip(evals, outcomes, strict=True):
        ev.tricks = [a + b for a, b in zip(ev.tricks, histogram, strict=True)]
        ev.score_sum += total
        ev.n += len(deals)


def _evaluate_declaration(info: Info, evals: list[Evaluation], deals: list[list[int]], budget: Budget,
                          rng: random.Random, start: float) -> list[Evaluation]:
    """Play every candidate out on the deals: the rest of the declarations by the heuristic, then the
    cards. With ``budget.race_z``, batch by batch, dropping the clearly worse (:func:`still_racing`)."""
    base = shadow_game(info, deals[0])
    me = info.seat
    side = info.partners and budget.for_side
    rollout = _rollout_fn(budget)
    kernel = rollout_kernel(budget)
    kernels = compiled_kernels()
    # Every hand of every deal weighed once, in one compiled call (or by the heuristic's caches, in Python).
    facts = kernels.hand_facts({h for hands in deals for h in hands}) if kernels is not None else None
    auction = ShadowAuction(base, facts)
    alive = list(range(len(evals)))
    scores: list[list[float]] = [[] for _ in evals]  # each candidate's score deal by deal, for the race
    batch = budget.race_batch if budget.race_z > 0 else len(deals)
    for first in range(0, len(deals), batch):
        # Played out by the kernel after each batch's loop, all at once.
        pending: list[tuple[int, int, list[int], ShadowEnd]] = []
        out_of_time = False
        chunk = deals[first:first + batch]
        for i in alive:
            scores[i].extend([0.0] * len(chunk))
        for k, hands in enumerate(chunk, start=first):
            if time.perf_counter() - start > budget.max_seconds and evals[alive[0]].n:
                out_of_time = True
                break
            for i in alive:
                ev = evals[i]
                end = auction.after(hands, ev.action)
                if end is None:
                    _count(ev, scores[i], k, REDEAL_VALUE * info.multiplier, None)
                    continue
                if kernel is not None:
                    pending.append((i, k, hands, end))
                    continue
                tricks = rollout(*end.position(hands), rng)
                _count(ev, scores[i], k, value(end.scorer(tricks), me, side), tricks[me])
        if kernel is not None:
            _score_played_out(kernel, pending, evals, scores, me, side)
        if out_of_time:
            break
        if budget.race_z > 0:
            alive = still_racing(evals, scores, alive, budget.race_z) if len(alive) > 1 else alive
            if len(alive) == 1:
                break
    return [evals[i] for i in alive]


def _count(ev: Evaluation, scores: list[float], k: int, score: float, tricks: int | None) -> None:
    """Deal ``k``'s outcome for a candidate (``tricks`` None: the deal was thrown in)."""
    if tricks is not None:
        ev.tricks[tricks] += 1
    ev.score_sum += score
    ev.n += 1
    scores[k] = score


def _score_played_out(kernel: PlayOut, pending: list[tuple[int, int, list[int], ShadowEnd]],
                      evals: list[Evaluation], scores: list[list[float]], me: int, side: bool) -> None:
    """The rollouts the loop above left to the kernel (candidate, deal, hands, end of the auction), scored
    as the loop would have: the scores are integers (and the redeals' multiples of 5.0), so adding them in
    another order gives the same sums."""
    positions = [end.position(hands) for _i, _k, hands, end in pending]
    for (i, k, _hands, end), tricks in zip(pending, kernel(positions), strict=True):
        _count(evals[i], scores[i], k, value(end.scorer(tricks), me, side), tricks[me])


# --- exact endgame ----------------------------------------------------------------------------------------
def solve(hands: list[int], trump: int, leader: int, trick: list[int], won: list[int],
          scorer: Scorer, side: bool = False) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Max^n over the rest of the deal with all hands known: every seat picks the card best for its own
    score (``side``: its side's score, in a partnership game), ties to the lowest card. Returns the scores
    and the final trick counts of that line."""
    return _maxn(hands, trump, leader, trick, won, scorer, side)


def _maxn(hands: list[int], trump: int, leader: int, trick: list[int], won: list[int],
          scorer: Scorer, side: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    seat = (leader + len(trick)) & 3
    hand = hands[seat]
    if not hand:
        return scorer(won), tuple(won)
    legal = hand
    if trick:
        follow = hand & SUIT_BITS[trick[0] // 13]
        if follow:
            legal = follow
    blockers = (hands[0] | hands[1] | hands[2] | hands[3]) & ~hand
    for c in trick:
        blockers |= 1 << c
    best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    for c in distinct_cards(legal, blockers):
        hands[seat] = hand ^ (1 << c)
        if len(trick) == 3:
            full = [*trick, c]
            w = (leader + trick_winner_index(full, trump)) & 3
            won2 = list(won)
            won2[w] += 1
            result = _maxn(hands, trump, w, [], won2, scorer, side)
        else:
            result = _maxn(hands, trump, leader, [*trick, c], won, scorer, side)
        if best is None or value(result[0], seat, side) > value(best[0], seat, side):
            best = result
    hands[seat] = hand
    assert best is not None
    return best


def play_candidates(info: Info) -> list[Action]:
    """The legal cards, one per run of equivalent cards."""
    legal = 0
    for a in info.legal:
        if a.card is not None:
            legal |= 1 << a.card
    blockers = info.unknown
    for c in info.trick:
        blockers |= 1 << c
    # In a partnership game, never a card that takes a trick the partner is winning and needs (side.py).
    return [Action.play(info.seat, Card(c)) for c in sparing(info, distinct_cards(legal, blockers))]


def candidates_for(info: Info, everything: bool = False) -> list[Action]:
    if info.phase == str(Phase.PLAY):
        return play_candidates(info)
    if everything:
        return list(info.legal)
    return declaration_candidates(info)


def best_of(evals: Sequence[Evaluation]) -> Evaluation:
    """The highest mean score; ties go to the earlier candidate (the heuristic's choice comes first)."""
    best = evals[0]
    for ev in evals[1:]:
        if ev.mean_score > best.mean_score + 1e-9:
            best = ev
    return best
