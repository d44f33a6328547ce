"""The `strong` bot's declarations race (``search.Budget.race_z``): what it drops, and that racing in
batches changes nothing but which candidates go on.

- Batches alone (a race that never drops anyone) give exactly the numbers of every candidate on every deal.
- The scores the race compares are each candidate's own on the same deal, deal by deal: checked against
  each candidate played out alone on each deal (a thrown-in deal is scored in the loop and a played one
  after the kernel, so an order slip would pair different deals).
- With the race on, the candidates left were all evaluated on the same deals, in the candidates' order.
- The hints never race (they report every candidate on every deal).
"""

from __future__ import annotations

import random

import pytest
from bots_helpers import RULESET_LENGTHS, positions

from estimation.actions import Action
from estimation.bots import search
from estimation.bots.knowledge import Info, from_game
from estimation.bots.sampler import sample_deals
from estimation.bots.search import Budget, Evaluation, candidates_for, evaluate, still_racing
from estimation.bots.strong import RACE_Z, StrongBot
from estimation.rulesets.base import Phase

DEALS = 12
BATCH = 4


def declaration_positions(ruleset: str, length: str, seed: int, count: int) -> list[Info]:
    """Seats to declare with at least two candidates, from random legal games."""
    out = []
    for game in positions(ruleset, length, seed, every=1):
        if game.phase is Phase.PLAY or game.to_move is None or game.is_over:
            continue
        info = from_game(game, game.to_move)
        if len(candidates_for(info)) > 1:
            out.append(info)
        if len(out) == count:
            break
    return out


def deals_for(info: Info, seed: int) -> list[list[int]]:
    return sample_deals(info, DEALS, random.Random(seed), True, 1.0, 2)


def numbers(evals: list[Evaluation]) -> list[tuple[str, float, list[int], int]]:
    return [(ev.action.text, ev.score_sum, ev.tricks, ev.n) for ev in evals]


FULL_LENGTHS = [rl for rl in RULESET_LENGTHS if rl[1] in ("full", "committee")]


@pytest.mark.parametrize(("ruleset", "length"), FULL_LENGTHS)
def test_batches_that_drop_nobody_give_the_numbers_of_every_candidate_on_every_deal(
        ruleset: str, length: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 2's third position in koutchina and classic is an auction whose ``pass`` is thrown in on some
    deals and played on others: the case where the deals' scores arrive out of order."""
    seen: list[tuple[list[int], list[list[float]]]] = []
    mixed = 0

    def keep_all(evals: list[Evaluation], scores: list[list[float]], alive: list[int], z: float) -> list[int]:
        seen.append((list(alive), [list(s) for s in scores]))
        return list(alive)

    for n, info in enumerate(declaration_positions(ruleset, length, seed=2, count=3)):
        candidates = candidates_for(info)
        deals = deals_for(info, n)
        whole = evaluate(info, candidates, Budget(max_seconds=float("inf")), random.Random(1), deals=deals)
        mixed += sum(0 < sum(ev.tricks) < ev.n for ev in whole)
        monkeypatch.setattr(search, "still_racing", keep_all)
        seen.clear()
        raced = evaluate(info, candidates, Budget(max_seconds=float("inf"), race_z=RACE_Z, race_batch=BATCH),
                         random.Random(1), deals=deals)
        monkeypatch.undo()
        assert numbers(raced) == numbers(whole)
        assert len(seen) == DEALS // BATCH  # asked after every batch

        # The race's scores, deal by deal, are each candidate's own on that deal.
        _alive, scores = seen[-1]
        for i, candidate in enumerate(candidates):
            for k, hands in enumerate(deals):
                (alone,) = evaluate(info, [candidate], Budget(max_seconds=float("inf")), random.Random(1),
                                    deals=[hands])
                assert scores[i][k] == alone.score_sum, (info.ruleset, candidate.text, k)
    assert mixed or ruleset == "egyptian", "no candidate thrown in on some deals only: the positions changed"


@pytest.mark.parametrize(("ruleset", "length"), FULL_LENGTHS)
def test_the_race_leaves_candidates_on_the_same_deals_in_their_order(ruleset: str, length: str) -> None:
    for n, info in enumerate(declaration_positions(ruleset, length, seed=57, count=4)):
        candidates = candidates_for(info)
        left = evaluate(info, candidates, Budget(max_seconds=float("inf"), race_z=RACE_Z, race_batch=BATCH),
                        random.Random(2), deals=deals_for(info, n))
        assert left, "the race always keeps its leader"
        assert len({ev.n for ev in left}) == 1
        assert left[0].n % BATCH == 0 or left[0].n == DEALS
        order = [candidates.index(ev.action) for ev in left]
        assert order == sorted(order)


def test_the_leader_stays_and_the_clearly_worse_and_the_tied_go() -> None:
    a, b, c, d = (Evaluation(Action.parse("1 pass")) for _ in range(4))
    scores = [[10.0, 12.0, 9.0, 11.0],   # the leader
              [9.0, 13.0, 8.0, 12.0],    # a point behind on average, noisy: stays
              [-10.0, -8.0, -9.0, -12.0],  # twenty behind every time: goes
              [10.0, 12.0, 9.0, 11.0]]   # tied on every deal: goes
    for ev, s in zip((a, b, c, d), scores, strict=True):
        ev.score_sum, ev.n = sum(s), len(s)
    assert still_racing([a, b, c, d], scores, [0, 1, 2, 3], z=3.0) == [0, 1]
    assert still_racing([a, b, c, d], scores, [1, 2], z=3.0) == [1]  # among those alive only


def test_the_strong_bot_races_its_declarations_and_the_hints_do_not() -> None:
    assert StrongBot(seed=1).budget.race_z == RACE_Z > 0
    assert Budget().race_z == 0  # hint.py's budget: every candidate on every deal
