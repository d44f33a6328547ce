"""Swiss seating and robot instances: the rules of RULES.md, Competitions, as properties.

16 to 64 entrants over 3 stages, with standings drawn at random between stages: no two entrants share a
table twice, every entrant moves to a seat it did not hold in the stage before, each entrant sits exactly
once per stage, and the same inputs give the same tables.
"""

from __future__ import annotations

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from estimation.competition import first_stage, next_stage, robot_instance, robot_seats, table_sizes
from estimation.competition.types import Seats

#: How the standings order the field before a stage: at random, or the orders that defeat a plain search in
#: standing order: old table-mates one after the other, or everyone who held seat 0, then seat 1, ...
ORDERS = st.sampled_from(["random", "mates", "seats"])


def _ranked(order: str, last: list[Seats], ids: list[int], rng: random.Random) -> list[int]:
    if order == "mates":
        return [e for t in last for e in t if e is not None]
    if order == "seats":
        return [t[s] for s in range(4) for t in last if t[s] is not None]  # type: ignore[misc]
    ranked = ids[:]
    rng.shuffle(ranked)
    return ranked


def _play_stages(n: int, seed: int, order_seed: int, orders: tuple[str, ...] = ("random", "random"),
                 ) -> list[list[Seats]]:
    ids = list(range(1, n + 1))
    history = [first_stage(ids, seed)]
    rng = random.Random(order_seed)
    for order in orders:
        history.append(next_stage(_ranked(order, history[-1], ids, rng), history))
    return history


@given(st.integers(16, 64), st.integers(0, 2**32), st.integers(0, 2**32), ORDERS, ORDERS)
def test_three_stages_never_repeat_a_pair_and_always_move_seats(n: int, seed: int, order_seed: int,
                                                                 order2: str, order3: str) -> None:
    history = _play_stages(n, seed, order_seed, (order2, order3))
    met: set[frozenset[int]] = set()
    for s, stage in enumerate(history):
        seated = [e for table in stage for e in table if e is not None]
        assert sorted(seated) == list(range(1, n + 1)), f"stage {s + 1}: each entrant exactly once"
        assert [sum(e is not None for e in t) for t in stage] == table_sizes(n)
        for table in stage:
            people = [e for e in table if e is not None]
            for pair in itertools.combinations(people, 2):
                assert frozenset(pair) not in met, f"stage {s + 1}: {pair} met before"
        for table in stage:
            people = [e for e in table if e is not None]
            met.update(frozenset(p) for p in itertools.combinations(people, 2))
        if s:
            before = {e: i for t in history[s - 1] for i, e in enumerate(t) if e is not None}
            for table in stage:
                for seat, e in enumerate(table):
                    if e is not None:
                        assert before[e] != seat, f"stage {s + 1}: entrant {e} kept seat {seat}"


@given(st.integers(16, 64), st.integers(0, 2**32), st.integers(0, 2**32))
def test_seating_is_a_function_of_its_inputs(n: int, seed: int, order_seed: int) -> None:
    assert _play_stages(n, seed, order_seed) == _play_stages(n, seed, order_seed)
    ids = list(range(1, n + 1))
    assert first_stage(ids, seed) == first_stage(list(reversed(ids)), seed)


def test_different_seeds_draw_different_first_stages() -> None:
    ids = list(range(1, 33))
    assert len({tuple(first_stage(ids, s)) for s in range(10)}) == 10


def test_the_best_four_sit_together_when_they_can() -> None:
    stage1 = [(1, 2, 3, 4), (6, 7, 8, 5), (11, 12, 9, 10), (16, 13, 14, 15)]
    ranked = [1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16]
    stage2 = next_stage(ranked, [stage1])
    assert [sorted(e for e in t if e is not None) for t in stage2] == [
        [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15], [4, 8, 12, 16]]


def test_the_best_four_are_split_when_two_of_them_met() -> None:
    stage1 = [(1, 2, 3, 4), (6, 7, 8, 5), (11, 12, 9, 10), (16, 13, 14, 15)]
    ranked = list(range(1, 17))  # 1..4 all met at table 1
    top = next_stage(ranked, [stage1])[0]
    assert sorted(e for e in top if e is not None) == [1, 5, 9, 13]


def test_four_who_held_the_same_seat_are_not_grouped() -> None:
    # 1, 5, 9, 13 never met but all held seat 0: together one of them would keep its seat, so the
    # search takes the next best grouping that lets everyone move.
    stage1 = [(1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12), (13, 14, 15, 16)]
    ranked = [1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16]
    tables = next_stage(ranked, [stage1])
    assert sorted(e for e in tables[0] if e is not None) == [1, 5, 9, 14]
    for table in tables:
        for seat, e in enumerate(table):
            assert e is None or (e - 1) % 4 != seat


def test_short_tables_spread_the_bots_one_to_a_table() -> None:
    assert table_sizes(17) == [4, 4, 3, 3, 3]
    assert table_sizes(16) == [4, 4, 4, 4]
    assert table_sizes(5) == [3, 2]
    assert table_sizes(1) == [1]
    tables = first_stage(list(range(1, 18)), 3)
    assert [sum(e is None for e in t) for t in tables] == [0, 0, 1, 1, 1]


def test_a_field_too_small_still_gets_seated_with_the_fewest_repeats() -> None:
    ids = list(range(1, 9))
    history = [first_stage(ids, 1)]
    for _ in range(3):
        history.append(next_stage(ids, history))
    for stage in history:
        assert sorted(e for t in stage for e in t if e is not None) == ids


def test_robot_instances_go_in_turn_of_entry() -> None:
    assert [robot_instance(n, 3) for n in range(1, 8)] == [1, 2, 3, 1, 2, 3, 1]
    assert [robot_instance(n, 1) for n in range(1, 4)] == [1, 1, 1]
    assert robot_seats(7) == (7, None, None, None)
