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

#: How many candidates each search may look at before giving way to the next: far more than a field of 16+
#: entrants over 3 stages needs in standing order (it succeeds with almost no backtracking), and bounded so
#: that a field ranked against the search, or one too small for the rules, moves on at once.
SEARCH_BUDGET = 50_000
#: The most-constrained-first search is only tried on fields up to this size (each of its steps scans the
#: field; beyond it the repair step is quicker and as good).
CONSTRAINED_LIMIT = 400


class _OutOfBudget(Exception):
    pass


class _Budget:
    """Candidates a search may still look at."""

    __slots__ = ("left",)

    def __init__(self, left: int) -> None:
        self.left = left

    def spend(self) -> None:
        self.left -= 1
        if self.left < 0:
            raise _OutOfBudget


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

    Tables come best first: table 1 holds the best entrants the rules allow together. Three steps, each
    taken only when the one before did not seat everyone by the rules:

    1. depth first in standing order (the best four together, backing up when a later table fails);
    2. depth first around the most constrained entrant (fields up to :data:`CONSTRAINED_LIMIT`): a field
       ranked against the first search (old table-mates one after the other, or everyone who held seat 0
       first) leaves only old acquaintances for its last tables, and backing up would have to undo the
       first ones;
    3. standing order without backing up, then swaps between tables (nearest in standing first) while a
       swap lowers the repeats: a repeated pair weighs more than a kept seat. In a field too small for
       the rules (8 entrants over 4 stages) this is the seating with the fewest repeats it finds.
    """
    if len(set(ranked)) != len(ranked):
        raise ValueError("an entrant is ranked twice")
    #: entrant -> everyone it has shared a table with
    known: dict[int, set[int]] = {e: set() for e in ranked}
    for stage in previous:
        for table in stage:
            people = [e for e in table if e is not None]
            for a, b in itertools.permutations(people, 2):
                known.setdefault(a, set()).add(b)
    last_seat: dict[int, int] = {}
    if previous:
        for table in previous[-1]:
            for seat, e in enumerate(table):
                if e is not None:
                    last_seat[e] = seat
    pool = list(ranked)
    sizes = table_sizes(len(pool))
    try:
        return _search(pool, sizes, known, last_seat, _Budget(SEARCH_BUDGET))
    except _OutOfBudget:
        pass
    if len(pool) <= CONSTRAINED_LIMIT:
        cliques = [[e for e in t if e is not None] for s in previous for t in s]
        try:
            found = _search_constrained(pool, sizes, known, last_seat, cliques, _Budget(SEARCH_BUDGET))
        except _OutOfBudget:
            found = None
        if found is not None:
            return found
    return _repaired(pool, sizes, known, last_seat)


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


def _tables_around(anchor: int, cands: Sequence[int], size: int, known: dict[int, set[int]],
                   last_seat: dict[int, int], budget: _Budget) -> Iterator[list[int]]:
    """Every table of ``size`` that seats ``anchor`` with ``cands`` it has not met and who have not met
    each other, in the order of ``cands`` (standing order: the next best together first).

    A full table's fourth is never one more who held the same seat as the other three (one of the four
    could not move): pruned here, not after building the whole table, or a field ranked seat by seat would
    try tens of thousands of hopeless tables at every step."""
    def extend(chosen: list[int], start: int) -> Iterator[list[int]]:
        if len(chosen) == size:
            yield chosen
            return
        same = None
        if size == 4 and len(chosen) == 3:
            seats = {last_seat.get(c, -1 - i) for i, c in enumerate(chosen)}
            if len(seats) == 1:
                same = next(iter(seats))
        for i in range(start, len(cands)):
            budget.spend()
            cand = cands[i]
            if same is not None and last_seat.get(cand) == same:
                continue
            if all(cand not in known[c] for c in chosen):
                yield from extend([*chosen, cand], i + 1)

    yield from extend([anchor], 0)


def _search(pool: list[int], sizes: list[int], known: dict[int, set[int]], last_seat: dict[int, int],
            budget: _Budget) -> list[Seats]:
    """Depth first over tables in standing order (an explicit stack: a field of thousands needs no deep
    recursion). Raises :class:`_OutOfBudget` when it gives way."""
    tables: list[Seats] = []
    pools: list[list[int]] = [pool]
    stack: list[Iterator[list[int]]] = [_tables_around(pool[0], pool[1:], sizes[0], known, last_seat, budget)]
    while stack:
        budget.spend()
        group = next(stack[-1], None)
        if group is None:
            stack.pop()
            pools.pop()
            if tables:
                tables.pop()
            continue
        seated = seat_table(group, last_seat)
        if seated is None:
            continue
        tables.append(seated)
        chosen = set(group)
        rest = [e for e in pools[-1] if e not in chosen]
        if not rest:
            return tables
        pools.append(rest)
        stack.append(_tables_around(rest[0], rest[1:], sizes[len(tables)], known, last_seat, budget))
    raise _OutOfBudget  # searched everything: no seating keeps both rules


def _search_constrained(pool: list[int], sizes: list[int], known: dict[int, set[int]],
                        last_seat: dict[int, int], cliques: Sequence[Sequence[int]],
                        budget: _Budget) -> list[Seats] | None:
    """Depth first, each table built around the entrant with the fewest possible table-mates left (ties:
    the best ranked), its table-mates tried in standing order; the tables are then listed best first.

    The most-constrained-first rule (as in exact-cover search) keeps the entrants who could sit with
    almost nobody from being left to the end. Two counts prune a branch as soon as it cannot end well: the
    entrants left of one old table (``cliques``: they may not meet again) must not outnumber the tables
    left, and those left who held one seat must fit three to a full table."""
    rank = {e: i for i, e in enumerate(pool)}
    old_tables = [c for c in (set(c) & set(pool) for c in cliques) if len(c) > 1]
    sizes_left = dict.fromkeys(sizes, 0)
    for size in sizes:
        sizes_left[size] += 1

    def solve(rest: list[int]) -> list[Seats] | None:
        if not rest:
            return []
        budget.spend()
        here = set(rest)
        tables_left = sum(sizes_left.values())
        if any(len(c & here) > tables_left for c in old_tables):
            return None
        room = sum((3 if s == 4 else s) * n for s, n in sizes_left.items())
        held = [0, 0, 0, 0]
        for e in rest:
            if e in last_seat:
                held[last_seat[e]] += 1
        if max(held) > room:
            return None
        anchor = min(rest, key=lambda e: (len(here) - len(known[e] & here), rank[e]))
        cands = [e for e in rest if e != anchor and e not in known[anchor]]
        for size in sorted((s for s, n in sizes_left.items() if n), reverse=True):
            for group in _tables_around(anchor, cands, size, known, last_seat, budget):
                seated = seat_table(sorted(group, key=rank.__getitem__), last_seat)
                if seated is None:
                    continue
                chosen = set(group)
                sizes_left[size] -= 1
                found = solve([e for e in rest if e not in chosen])
                sizes_left[size] += 1
                if found is not None:
                    return [seated, *found]
        return None

    tables = solve(pool)
    if tables is None:
        return None
    return sorted(tables, key=lambda t: min(rank[e] for e in t if e is not None))


def _repeats(members: Sequence[int], known: dict[int, set[int]], last_seat: dict[int, int]) -> int:
    """How far a table is from the rules: 2 per pair that met before (the first rule), 1 per entrant
    who cannot move seat at it."""
    pairs = sum(1 for a, b in itertools.combinations(members, 2) if b in known[a])
    seated = seat_table(members, last_seat, strict=False)
    assert seated is not None
    kept = sum(1 for s, e in enumerate(seated) if e is not None and last_seat.get(e) == s)
    return 2 * pairs + kept


def _repaired(pool: list[int], sizes: list[int], known: dict[int, set[int]],
              last_seat: dict[int, int]) -> list[Seats]:
    """Standing order without backing up (each table the best unseated entrant and, one at a time, the
    next who repeats least with those chosen), then swaps of two entrants between two tables, the nearest
    tables in standing first, while a swap lowers the two tables' repeats. Deterministic, and it always
    ends: every swap lowers the total."""
    rest = list(pool)
    groups: list[list[int]] = []
    for size in sizes:
        chosen = [rest.pop(0)]
        while len(chosen) < size:
            chosen.append(rest.pop(_least_repeating(chosen, rest, size, known, last_seat)))
        groups.append(chosen)
    costs = [_repeats(g, known, last_seat) for g in groups]
    improved = True
    while improved and any(costs):
        improved = False
        for i in range(len(groups)):
            if not costs[i]:
                continue
            for j in sorted(range(len(groups)), key=lambda j: (abs(j - i), j)):
                if j != i and _swap_lowers(groups, costs, i, j, known, last_seat):
                    improved = True
                    break
    tables = []
    for g in groups:
        seated = seat_table(g, last_seat, strict=False)
        assert seated is not None
        tables.append(seated)
    return tables


def _least_repeating(chosen: list[int], rest: list[int], size: int, known: dict[int, set[int]],
                     last_seat: dict[int, int]) -> int:
    """The index in ``rest`` of the first (best ranked) entrant who adds the fewest repeats to
    ``chosen``: a pair met before counts 2, a fourth who held the seat of the other three 1."""
    same = None
    if size == 4 and len(chosen) == 3:
        seats = {last_seat.get(c, -1 - i) for i, c in enumerate(chosen)}
        same = next(iter(seats)) if len(seats) == 1 else None
    best, best_cost = 0, 99
    for i, e in enumerate(rest):
        cost = 2 * sum(1 for c in chosen if c in known[e]) + (same is not None and last_seat.get(e) == same)
        if cost < best_cost:
            best, best_cost = i, cost
            if not cost:
                break
    return best


def _swap_lowers(groups: list[list[int]], costs: list[int], i: int, j: int, known: dict[int, set[int]],
                 last_seat: dict[int, int]) -> bool:
    """Make the first swap of a member of table ``i`` with one of table ``j`` that lowers their repeats."""
    for a in range(len(groups[i])):
        for b in range(len(groups[j])):
            gi, gj = groups[i][:], groups[j][:]
            gi[a], gj[b] = gj[b], gi[a]
            ci, cj = _repeats(gi, known, last_seat), _repeats(gj, known, last_seat)
            if ci + cj < costs[i] + costs[j]:
                groups[i], groups[j], costs[i], costs[j] = gi, gj, ci, cj
                return True
    return False
