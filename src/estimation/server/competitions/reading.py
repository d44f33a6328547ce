"""Reading a competition: one consistent :class:`~.field.Field` from the database and the tables in memory.

A live competition is read on every refresh (a finished board, a push, a page), and a big one has 10,000
entries and tables, almost all of which have not changed since the last read. So a read asks the
database only what can have changed (:class:`_Rows`): the entries whose flags are set, the tables not
finished, and counts that tell whether anything else moved; it loads through the ORM only rows that are
new or changed, and it works on the finished tables only until each is settled (:class:`~.field.Settled`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...game import Game
from ..storage.models import (
    Competition,
    CompetitionAdjustment,
    CompetitionEntry,
    CompetitionLeave,
    CompetitionTable,
    Table,
)
from . import field as field_module
from . import games as kept
from .field import Field, Settled, kept_plays
from .host import CompetitionHost


@dataclass
class _Rows:
    """A competition's entry and table rows as last read.

    Why: loading 10,000 entries and 10,000 tables through the ORM on every refresh of a robot competition
    took a second, and even their flags as plain rows took a third of a refresh. Every column but an
    entry's ``withdrawn`` and ``removed`` and a table's ``finished`` is written once, when the row is made
    (but for an erased entrant's name, whose writer tells every process: :func:`forget_rows`), and entries
    and tables are never deleted; a table's ``finished`` only ever goes from false to true. So
    a read fetches the flagged entries and the open tables with a count of each kind, and reads the whole
    list again only when the counts say a row it does not know was made (as a fallback, never as the way).
    """

    entries: dict[int, CompetitionEntry] = field(default_factory=dict)
    #: The entries last read with ``withdrawn`` or ``removed`` set, and the highest entry id.
    flagged: set[int] = field(default_factory=set)
    top_entry: int = 0
    #: The ids of the entries not withdrawn, sorted (made again when an entry changed).
    field_ids: list[int] = field(default_factory=list)
    #: Table rows by id, their ids in (stage, table) order, and the ones last read not finished.
    tables: dict[int, CompetitionTable] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    open: set[int] = field(default_factory=set)
    settled: Settled | None = None


#: Each competition's rows (:class:`_Rows`), for at most this many competitions.
_rows: kept.Recent[int, _Rows] = kept.Recent(64)


def forget_rows(competition_id: int | None) -> None:
    """Read a competition's rows (None: every competition's) afresh next time: a column a read keeps was
    written (an erased entrant's name)."""
    if competition_id is None:
        _rows.clear()
    else:
        _rows.pop(competition_id)


def forget_all() -> None:
    """Every competition's kept rows, games, table lines and scorings gone: they are kept by competition
    and table id, process-wide, and ids mean nothing on another database. A hub's competitions call it as
    they start (a test or a benchmark may start several hubs, on several databases, in one process)."""
    for cache in (_rows, kept_plays, field_module._groups, kept.done, kept.finished, kept.lines,
                  kept.replayed):
        cache.clear()


async def _read_entries(db: AsyncSession, competition_id: int, rows: _Rows) -> None:
    """Bring ``rows.entries`` up to date: the rows that are new or whose flags moved, read again."""
    mine = CompetitionEntry.competition_id == competition_id
    count, top = (await db.execute(select(func.count(), func.max(CompetitionEntry.id)).where(mine))).one()
    flagged = {i: (w, r) for i, w, r in (await db.execute(select(
        CompetitionEntry.id, CompetitionEntry.withdrawn, CompetitionEntry.removed).where(
        mine, or_(CompetitionEntry.withdrawn, CompetitionEntry.removed)))).all()}
    if count == len(rows.entries) and (top or 0) == rows.top_entry and flagged.keys() <= rows.entries.keys():
        changed = [i for i in flagged.keys() | rows.flagged
                   if (rows.entries[i].withdrawn, rows.entries[i].removed) != flagged.get(i, (False, False))]
    else:
        flags = (await db.execute(select(CompetitionEntry.id, CompetitionEntry.withdrawn,
                                         CompetitionEntry.removed).where(mine))).all()
        changed = [i for i, w, r in flags if i not in rows.entries
                   or (rows.entries[i].withdrawn, rows.entries[i].removed) != (w, r)]
        flagged = {i: (w, r) for i, w, r in flags if w or r}
    rows.flagged = set(flagged)
    rows.top_entry = top or 0
    for start in range(0, len(changed), kept.IN_LIST):
        for e in (await db.scalars(select(CompetitionEntry).where(
                CompetitionEntry.id.in_(changed[start:start + kept.IN_LIST])))).all():
            rows.entries[e.id] = e
    if changed:
        rows.field_ids = sorted(i for i, e in rows.entries.items() if not e.withdrawn)


async def _read_tables(db: AsyncSession, competition_id: int, rows: _Rows) -> dict[int, str]:
    """Bring ``rows.tables`` up to date (rows new or finished since, read again); the open tables'
    statuses (a finished table's own status may be ahead of its flag: a restart between the commits)."""
    mine = CompetitionTable.competition_id == competition_id
    count = (await db.execute(select(func.count()).select_from(CompetitionTable).where(mine))).scalar_one()
    statuses = dict((await db.execute(select(CompetitionTable.table_id, Table.status).join(
        Table, Table.id == CompetitionTable.table_id).where(mine, CompetitionTable.finished.is_(False))))
                    .all())
    new = [i for i in statuses if i not in rows.tables]
    if len(rows.tables) + len(new) == count:
        changed = new + [i for i in rows.open if i not in statuses]  # new, or finished since
    else:
        changed = list((await db.execute(select(CompetitionTable.table_id).where(mine))).scalars().all())
    rows.open = set(statuses)
    for start in range(0, len(changed), kept.IN_LIST):
        for row in (await db.scalars(select(CompetitionTable).where(
                CompetitionTable.table_id.in_(changed[start:start + kept.IN_LIST])))).all():
            rows.tables[row.table_id] = row
    if len(rows.order) != len(rows.tables):
        rows.order = sorted(rows.tables, key=lambda i: (rows.tables[i].stage, i))
    return statuses


async def read_field(hub: CompetitionHost, competition_id: int,
                     with_games: bool = True) -> Field | None:
    """One read of a competition (None if there is none). Tables in memory give their committed game;
    the others their last record snapshot (which holds every finished round). ``with_games`` False: no
    game at all (a listing needs the competition, its entries and its tables, never a score)."""
    async with hub.session() as db:
        comp = await db.get(Competition, competition_id)
        if comp is None:
            return None
        rows = _rows.get(competition_id)
        if rows is None:
            rows = _rows[competition_id] = _Rows()
        await _read_entries(db, competition_id, rows)
        statuses = await _read_tables(db, competition_id, rows)
        # One copy of the order for the whole read: ``rows`` is shared, and a read of the same competition
        # running beside this one (at each await below) may add a stage's new tables to it.
        order = list(rows.order)
        tables = [rows.tables[i] for i in order]
        leaves = (await db.scalars(select(CompetitionLeave).where(
            CompetitionLeave.competition_id == competition_id))).all()
        adjustments = (await db.scalars(select(CompetitionAdjustment).where(
            CompetitionAdjustment.competition_id == competition_id))).all()
        for i, status in statuses.items():
            # Finished is the table's own status: the flag may lag it (a restart between the two commits).
            if status == "finished":
                rows.tables[i].finished = True
        sign = tuple(sorted((x.entry_id, x.stage, x.table_id, x.rounds_done) for x in leaves))
        settled = rows.settled
        if settled is None or settled.leaves != sign:
            settled = rows.settled = Settled(sign)  # a leaver can change a finished table's play
        pending = [rows.tables[i] for i in order if i not in settled.plays] if with_games else []
        ids = [t.table_id for t in pending if t.table_id not in hub.runtimes
               and not (t.finished and t.table_id in kept.done)]
        stored = dict((await db.execute(select(Table.id, Table.record).where(Table.id.in_(ids))))
                      .all()) if ids else {}
    games: dict[int, Game] = {}
    done = dict(settled.done) if with_games else {}
    for t in pending:
        runtime = hub.runtimes.get(t.table_id)
        if runtime is not None:
            if runtime.game is not None:
                games[t.table_id] = runtime.game
            continue
        finished = kept.done.get(t.table_id) if t.finished else None
        if finished is None:
            text = stored.get(t.table_id)
            if text is None:
                continue
            if not t.finished:
                games[t.table_id] = kept.stored_game(t.table_id, text)
                continue
            games[t.table_id] = kept.finished_game(t.table_id, text)
            finished = kept.done.get(t.table_id)
            assert finished is not None
        done[t.table_id] = settled.done[t.table_id] = finished
    found = Field(comp, dict(rows.entries), tables, games, list(leaves), list(adjustments),
                  field_ids=rows.field_ids, table_ids=order, done=done,
                  settled=dict(settled.plays) if with_games else {}, settle=settled)
    # The plays of finished tables not settled yet, as the cache has them now (it may forget them before
    # they are scored); a finished table whose play it does not have: its game.
    keys = {t: key for t, key in found._play_keys.items() if t in done and key is not None}
    found.kept = {key: play for key in keys.values() if (play := kept_plays.get(key)) is not None}
    await found.load_games(hub, [t for t, key in keys.items() if key not in found.kept])
    return found


async def table_record(hub: CompetitionHost, competition_id: int, table_id: int,
                       account_id: int | None) -> dict[str, Any] | None:
    """A competition table's record as far as ``account_id`` may replay it (fair play): whole once its
    stage is over everywhere; to an entrant of the stage, the boards it finished itself; to anyone else,
    nothing (None: the caller answers as for no table at all)."""
    found = await read_field(hub, competition_id)
    table = None if found is None else next((t for t in found.tables if t.table_id == table_id), None)
    if found is None or table is None:
        return None
    entry = found.entry_of(account_id)
    if found.comp.private and entry is None and account_id != found.comp.director_id:
        return None
    seen = found.boards_seen(None if entry is None else entry.id, table.stage, table.instance)
    if seen == 0:
        return None
    await found.load_games(hub, [table_id])
    return found.record(table_id, None if found.stage_over(table.stage) else seen)
