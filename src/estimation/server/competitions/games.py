"""Competition tables' games and traveller lines, read from their stored records and kept between reads.

A refresh of a big competition must not replay ten thousand records, so what never changes is kept in
bounded caches that forget the least recently used first (:class:`Recent`): a finished table's game
(:func:`finished_game`), what the standings need of it (:class:`Done`), its lines on every board for
travellers (:func:`lines_of`), and the games of tables still playing on another worker, keyed by the record
text they were replayed from (:func:`stored_game`).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable
from typing import Generic, NamedTuple, TypeVar

from sqlalchemy import select

from ...competition import TableLines, table_lines
from ...game import Game
from ...record import load_record
from ..storage.models import Table
from .host import CompetitionHost

K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """A mapping of at most ``size`` items that forgets the least recently used one first.

    Why not clear everything when full: a 10,000-table robot competition's traveller walks more tables
    than a cache of games holds, and clearing on overflow threw away the tables every refresh needs."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def pop(self, key: K) -> V | None:
        return self._items.pop(key, None)

    def clear(self) -> None:
        self._items.clear()


class Done(NamedTuple):
    """What the standings need of a finished table besides its play: its rounds and how it ended."""

    rounds: int
    ended: bool


#: Finished tables (they never change): a read of the standings neither loads nor replays their records.
done: Recent[int, Done] = Recent(1_000_000)
#: Finished tables' games, for replays and the export (a finished micro game is some 14 kB in memory).
finished: Recent[int, Game] = Recent(4096)
#: Finished tables' lines on every board, for travellers (some 2 kB a micro table).
lines: Recent[int, TableLines] = Recent(100_000)
#: Stored records of tables still playing elsewhere (cluster mode), replayed, by table and record text.
replayed: Recent[tuple[int, int], Game] = Recent(4096)
#: Stored records are read this many tables to a statement (the parameters of one ``IN`` list).
IN_LIST = 500


def finished_game(table_id: int, text: str) -> Game:
    """A finished table's game from its stored record (kept), what the standings need of it and its
    traveller lines (made while the game is at hand: a traveller then needs no replay)."""
    game = finished.get(table_id)
    if game is None:
        game = load_record(json.loads(text))
        finished[table_id] = game
    if table_id not in done:
        done[table_id] = Done(len(game.round_results), game.ended is not None)
    if table_id not in lines:
        lines[table_id] = table_lines(game)
    return game


def _kept(cache: Recent[int, V], table_ids: Iterable[int]) -> tuple[dict[int, V], list[int]]:
    """What ``cache`` holds of ``table_ids``, and the ids it does not hold."""
    out: dict[int, V] = {}
    missing = []
    for t in table_ids:
        value = cache.get(t)
        if value is None:
            missing.append(t)
        else:
            out[t] = value
    return out, missing


async def finished_games(hub: CompetitionHost, table_ids: Iterable[int]) -> dict[int, Game]:
    """Finished tables' games: kept ones, the others loaded from their stored records."""
    out, missing = _kept(finished, table_ids)
    for start in range(0, len(missing), IN_LIST):
        async with hub.session() as db:
            stored = (await db.execute(select(Table.id, Table.record).where(
                Table.id.in_(missing[start:start + IN_LIST])))).all()
        for table_id, text in stored:
            if text is not None:
                out[table_id] = finished_game(table_id, text)
    return out


async def finished_lines(hub: CompetitionHost, table_ids: Iterable[int]) -> dict[int, TableLines]:
    """Finished tables' lines on every board (kept; a table not kept is replayed once from its record)."""
    out, missing = _kept(lines, table_ids)
    for table_id, game in (await finished_games(hub, missing)).items():
        made = lines.get(table_id)
        if made is None:
            made = lines[table_id] = table_lines(game)
        out[table_id] = made
    return out


def stored_game(table_id: int, text: str) -> Game:
    """A table in play on another worker, from the record it last stored (kept while the record is the
    same)."""
    key = (table_id, hash(text))
    game = replayed.get(key)
    if game is None:
        game = load_record(json.loads(text))
        replayed[key] = game
    return game
