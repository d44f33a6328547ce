"""Boards: every table of a stage and instance is dealt the same hands and dealer on every round and
redeal index, however it is played; other stages and instances are dealt other cards."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import estimation
from estimation import Game
from estimation.competition import board_seed, bot_seed, play_bot_table
from estimation.dealing import deal_hands

Dealt = dict[tuple[int, int], tuple[int, tuple[frozenset[str], ...]]]


def _dealt(record: dict[str, Any]) -> Dealt:
    """(round, deal index) -> (dealer, the four hands as card sets)."""
    out: Dealt = {}
    count: dict[int, int] = {}
    for deal in record["deals"]:
        k = count.get(deal["round"], 0)
        count[deal["round"]] = k + 1
        out[(deal["round"], k)] = (deal["dealer"], tuple(frozenset(h.split()) for h in deal["hands"]))
    return out


def _table(seed: str, level: str, bots: int) -> dict[str, Any]:
    return play_bot_table("koutchina", "mini", seed, ["a", "b", "c", "d"], [level] * 4,
                          [bot_seed(bots, 1, s) for s in range(4)])


@settings(max_examples=8)
@given(st.integers(0, 2**40), st.integers(1, 3), st.integers(1, 3))
def test_tables_of_a_stage_are_dealt_alike_redeals_included(comp: int, stage: int, instance: int) -> None:
    seed = board_seed(comp, stage, instance)
    # different levels and bot seeds: different declarations and play, so different redeals
    a = _dealt(_table(seed, "random", 1))
    b = _dealt(_table(seed, "heuristic", 2))
    shared = a.keys() & b.keys()
    assert {(r, 0) for r in range(1, 11)} <= shared
    for key in shared:
        assert a[key] == b[key], key


def _all_pass_redeal(seed: str, dash_call_first: bool) -> Game:
    """Round 1 of koutchina mini on ``seed`` with an auction where everybody passes: a redeal."""
    game = estimation.new_game("koutchina", "mini", seed=seed)
    first = True
    while game.deal_no == 0:
        legal = {a.text.split(" ", 1)[1]: a for a in game.legal_actions()}
        if first and dash_call_first:
            game.apply(legal["dashcall"])
        else:
            game.apply(legal.get("nodash") or legal["pass"])
        first = False
    return game


@given(st.integers(0, 2**40), st.integers(1, 3))
def test_a_redeal_is_the_same_board_at_every_table(comp: int, stage: int) -> None:
    seed = board_seed(comp, stage)
    a = _all_pass_redeal(seed, dash_call_first=False)
    b = _all_pass_redeal(seed, dash_call_first=True)  # declared differently before the redeal
    assert (a.round_no, a.deal_no, a.dealer) == (b.round_no, b.deal_no, b.dealer) == (1, 1, a.dealer)
    assert a.dealt == b.dealt
    assert a.dealt != tuple(a.deal_log[0][2])  # a redeal is another deal


@given(st.integers(0, 2**40))
def test_stages_and_instances_deal_other_boards(comp: int) -> None:
    seeds = {board_seed(comp, s, i) for s in (1, 2, 3) for i in (1, 2, 3)}
    assert len(seeds) == 9
    assert len({deal_hands(seed, 1, 0) for seed in seeds}) == 9
    assert len({deal_hands(seed, 3, 1) for seed in seeds}) == 9
