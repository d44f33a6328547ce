"""`swiss` seating: a seeded draw for stage 1, then tables grouped by standing.

Stage 1 draws the tables from the competition seed. Each later stage takes the entrants in standing order
and seats the best four together, the next four together, and so on, under two rules (RULES.md,
Competitions): no two entrants share a table twice while the field allows it, and every entrant moves to
a seat it did not hold in the stage before while its table allows it. Both are searched for
deterministically (depth first, in standing order, so the grouping stays as close to "the best four
together" as the rules allow), never by reshuffling until lucky: the same standings and history give
the same tables on every server. With 16 or more entrants and at most 3 stages the search always succeeds;
when a field is too small for it, the tables fall back to the fewest repeated pairs and seats.

Short tables: with N entrants there are ceil(N / 4) tables and the bots are spread one to a table over
the last (lowest-ranked) tables, two only when there are more bots than tables (fewer than 7 entrants),
so nobody plays alone against three bots while the field can avoid it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Sequence

from .types import Seats, as_seats

#: How many partial groupings the strict search may try before it falls back: far more than any field of
#: 16+ entrants over 3 stages needs (they succeed with almost no backtracking), and bounded so that a field
#: where the rules cannot be met (8 entrants, 3 stages) falls back at once instead of searching forever.
SEARCH_BUDGET = 20_000


def table_sizes(entrants: int) -> list[int]:
    """How many entrants sit at each table, fullest first: ceil(n/4) tables, as even as possible."""
    if entrants < 1:
        raise ValueError("a stage needs at least one entrant")
    tables = -(-entrants // 4)
    q, r = divmod(entrants, tables)
    return [q + 1] * r + [q] * (tables - r)


def first_stage(entrant_ids: Sequence[int], seed: int | str) -> list[Seats]:
    """Stage 1: a seeded draw. The same entrants and seed give the same tables (whatever the order the
    ids are passed in); each table's entrants take seats 0.. in drawn order, bots the seats left."""
    ids = sorted(set(entrant_ids))
    if len(ids) != len(entrant_ids):
        raise ValueError("an entrant is listed twice")
    random.Random(f"estimation/competition/{seed}/draw").shuffle(ids)
    tables: list[Seats] = []
    start = 0
    for size in table_sizes(len(ids)):
        members: list[int | None] = [*ids[start:start + size]]
        members += [None] * (4 - size)
        tables.append(as_seats(members))
        start += size
    return tables


def next_stage(ranked: Sequence[int], previous: Sequence[Sequence[Seats]]) -> list[Seats]:
    """The tables of the next stage for the entrants ``ranked`` best first (the standings' order; ties
    in any fixed order), given every earlier stage's tables (``previous[-1]`` is the stage just played).

    Tables come best first: table 1 holds the best entrants the rules allow together.
    """
    if len(set(ranked)) != len(ranked):
        raise ValueError("an entrant is ranked twice")
    met: set[frozenset[int]] = set()
    for stage in previous:
        for table in stage:
            people = [e for e in table if e is not None]
            met.update(frozenset(p) for p in itertools.combinations(people, 2))
    last_seat: dict[int, int] = {}
    if previous:
        for table in previous[-1]:
            for seat, e in enumerate(table):
                if e is not None:
                    last_seat[e] = seat
    sizes = table_sizes(len(ranked))
    for seats_strict in (True, False):
        found = _search(list(ranked), sizes, met, last_seat, seats_strict)
        if found is not None:
            return found
    return _fewest_repeats(list(ranked), sizes, met, last_seat)


def seat_table(members: Sequence[int], last_seat: dict[int, int], strict: bool = True) -> Seats | None:
    """Seat ``members`` (best first) at one table so that none holds its seat of the stage before.

    The first such seating in a fixed order; with ``strict`` False the one with the fewest repeats when
    none avoids them all (four entrants who all held the same seat: the table does not allow it).
    None when ``strict`` and no seating avoids every repeat.
    """
    best: tuple[int, ...] | None = None
    best_repeats = 5
    for perm in itertools.permutations(range(4), len(members)):
        repeats = sum(1 for e, s in zip(members, perm, strict=True) if last_seat.get(e) == s)
        if repeats < best_repeats:
            best, best_repeats = perm, repeats
            if repeats == 0:
                break
    if best is None or (strict and best_repeats):
        return None
    out: list[int | None] = [None, None, None, None]
    for e, s in zip(members, best, strict=True):
        out[s] = e
    return as_seats(out)


def _groups(pool: list[int], size: int, met: set[frozenset[int]]) -> Iterator[list[int]]:
    """Every table of ``size`` that seats ``pool[0]`` (the best unseated) with entrants it has not met and
    who have not met each other, in standing order (closest to "the next best together" first)."""
    anchor = pool[0]

    def extend(chosen: list[int], start: int) -> Iterator[list[int]]:
        if len(chosen) == size:
            yield chosen
            return
        for i in range(start, len(pool)):
            cand = pool[i]
            if all(frozenset((cand, c)) not in met for c in chosen):
                yield from extend([*chosen, cand], i + 1)

    yield from extend([anchor], 1)


def _search(pool: list[int], sizes: list[int], met: set[frozenset[int]], last_seat: dict[int, int],
            seats_strict: bool) -> list[Seats] | None:
    """Depth-first over tables (an explicit stack, so a field of thousands needs no deep recursion)."""
    budget = SEARCH_BUDGET
    tables: list[Seats] = []
    pools: list[list[int]] = [pool]
    stack: list[Iterator[list[int]]] = [_groups(pool, sizes[0], met)]
    while stack:
        budget -= 1
        if budget < 0:
            return None
        group = next(stack[-1], None)
        if group is None:
            stack.pop()
            pools.pop()
            if tables:
                tables.pop()
            continue
        seated = seat_table(group, last_seat, strict=seats_strict)
        if seated is None:
            continue
        tables.append(seated)
        chosen = set(group)
        rest = [e for e in pools[-1] if e not in chosen]
        if not rest:
            return tables
        pools.append(rest)
        stack.append(_groups(rest, sizes[len(tables)], met))
    return None


def _fewest_repeats(pool: list[int], sizes: list[int], met: set[frozenset[int]],
                    last_seat: dict[int, int]) -> list[Seats]:
    """The fallback for a field too small for the rules: greedily, each table takes the best unseated
    entrant and then, one at a time, whoever repeats the fewest pairs with those already chosen."""
    tables: list[Seats] = []
    for size in sizes:
        chosen = [pool.pop(0)]
        while len(chosen) < size:
            repeats = [sum(frozenset((e, c)) in met for c in chosen) for e in pool]
            i = repeats.index(min(repeats))
            chosen.append(pool.pop(i))
        seated = seat_table(chosen, last_seat, strict=False)
        assert seated is not None
        tables.append(seated)
    return tables
