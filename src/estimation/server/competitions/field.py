"""A competition as the core sees it: read from the database (and the tables in memory), then scored.

Everything here is read-only. A :class:`Field` is one consistent read of a competition: its entrants, its
tables with who sat where, every table's game as last committed (a finished table's only when a traveller, a
replay or the export asks: :meth:`Field.load_games`), the leavers and the director's adjustments.
:meth:`Field.scored` hands them to the core's :func:`~estimation.competition.score_stages`, the one
computation behind the live standings, the traveller and the export; what may be shown to whom (fair play: a
board only to an entrant who finished it, until its stage is over everywhere) is decided here too, in
:meth:`Field.boards_seen`, so every route asks the same question the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, NamedTuple

from sqlalchemy import select

from ...competition import (
    Adjustment,
    BoardKey,
    BoardResult,
    CompetitionExport,
    EntrantBoard,
    Scored,
    Seats,
    StageEntry,
    TablePlay,
    board_result,
    board_results,
    build_export,
    entrant_boards,
    entrant_totals,
    rounds_of,
    standings,
    table_entry,
    table_play,
)
from ...game import Game
from ...record import load_record
from ..storage.models import (
    Competition,
    CompetitionAdjustment,
    CompetitionEntry,
    CompetitionLeave,
    CompetitionTable,
    Table,
)
from .host import CompetitionHost


def seats_of(row: CompetitionTable) -> Seats:
    return _seats(row.seats)


@lru_cache(maxsize=65_536)
def _seats(text: str) -> Seats:
    """A table's seats from their JSON (kept: a refresh asks for every table's, each several times)."""
    a, b, c, d = json.loads(text)
    return (a, b, c, d)


@dataclass
class Field:
    comp: Competition
    #: Every entry, withdrawn ones too (by id); :attr:`field_ids` are the ones in the field.
    entries: dict[int, CompetitionEntry]
    tables: list[CompetitionTable]
    #: Each table's game as last committed (finished rounds are what counts), by table id; a finished
    #: table's only once :meth:`load_games` asked for it (a traveller, a replay, the export).
    games: dict[int, Game]
    leaves: list[CompetitionLeave]
    adjustments: list[CompetitionAdjustment]
    #: Finished tables whose game is not in :attr:`games`: their rounds finished and whether a leaver
    #: ended them (all the standings need of them, with their cached plays).
    done: dict[int, Done] = field(default_factory=dict)
    #: The plays of :attr:`done`'s tables as this read found them (another read may empty the cache).
    kept: dict[PlayKey, TablePlay] = field(default_factory=dict)
    _scored: Scored | None = field(default=None, repr=False)

    async def load_games(self, hub: CompetitionHost, table_ids: Iterable[int] | None = None) -> None:
        """The games of finished tables in ``table_ids`` (None: all), for what reads their deals."""
        wanted = [t for t in (self.done if table_ids is None else table_ids)
                  if t in self.done and t not in self.games]
        if wanted:
            self.games.update(await _finished_games(hub, wanted))

    def _game(self, table_id: int) -> Game | None:
        if table_id in self.done and table_id not in self.games:
            raise RuntimeError(f"table {table_id}'s game is not loaded (Field.load_games)")
        return self.games.get(table_id)

    @cached_property
    def _leaves_at(self) -> dict[int, list[CompetitionLeave]]:
        """The leaves by table (a robot competition whose window closed has one at most tables)."""
        out: dict[int, list[CompetitionLeave]] = {}
        for leave in self.leaves:
            out.setdefault(leave.table_id, []).append(leave)
        return out

    @property
    def field_ids(self) -> list[int]:
        """The entrants in the field: every entry not withdrawn before the start (removed ones played)."""
        return sorted(e.id for e in self.entries.values() if not e.withdrawn)

    @property
    def rounds(self) -> int:
        return rounds_of(self.comp.ruleset, self.comp.length)

    def rounds_done(self, table_id: int) -> int:
        """The rounds a table finished that count: in a robot competition only those before its entrant
        withdrew or its window closed (a bot may finish the table; its later rounds count for nobody)."""
        game = self.games.get(table_id)
        finished = self.done.get(table_id)
        done = len(game.round_results) if game is not None else 0 if finished is None else finished.rounds
        cut = self.cut_at(table_id)
        return done if cut is None else min(done, cut)

    def cut_at(self, table_id: int) -> int | None:
        """A robot table ended by its entrant's withdrawal or the window's close: the rounds it had."""
        if self.comp.kind != "robot":
            return None
        return next((x.rounds_done for x in self._leaves_at.get(table_id, ())), None)

    def shown(self, table_id: int) -> Game | dict[str, Any]:
        """A table as a board's traveller reads it: its game as committed (the traveller shows only the
        board asked for, to a viewer who may see it), or, for a robot table ended early, its record as far
        as it counts."""
        game = self._game(table_id)
        if game is not None and self.cut_at(table_id) is None:
            return game
        return self.record(table_id) or {}

    def record(self, table_id: int, rounds: int | None = None) -> dict[str, Any] | None:
        """A table's record (every hand, never the seed: it would tell the deals of every stage), only as
        far as it counts (:meth:`cut_at`), and with ``rounds``, only its first ``rounds`` rounds (every
        deal of them finished: what a viewer who finished those boards may replay)."""
        game = self._game(table_id)
        if game is None:
            return None
        record = game.record()
        done = len(game.round_results)
        limits = [x for x in (rounds, self.cut_at(table_id)) if x is not None]
        if limits:
            keep = min(done, *limits)  # a deal in play is of round done + 1: never kept
            record["deals"] = [d for d in record["deals"] if d["round"] <= keep]
            if keep < done:
                record.pop("ended", None)
        return record

    def left_at(self, table: CompetitionTable) -> dict[int, int]:
        """seat -> rounds its table had finished when that seat's entrant left."""
        seats = seats_of(table)
        out: dict[int, int] = {}
        for leave in self._leaves_at.get(table.table_id, ()):
            if leave.entry_id in seats:
                out[seats.index(leave.entry_id)] = leave.rounds_done
        return out

    def stage_entries(self) -> list[StageEntry]:
        """Every stage's tables as the export holds them (records with every hand, without the seed)."""
        stages: dict[int, StageEntry] = {}
        for t in sorted(self.tables, key=lambda t: (t.stage, t.table_id)):
            record = self.record(t.table_id)
            if record is None:
                continue  # a table whose game never started (no record yet)
            left = [{"seat": s, "rounds": r} for s, r in sorted(self.left_at(t).items())]
            stage = stages.setdefault(t.stage, {"stage": t.stage, "tables": []})
            stage["tables"].append(table_entry(t.table_id, t.instance, seats_of(t), record,
                                               left))  # type: ignore[arg-type]
        return [stages[s] for s in sorted(stages)]

    def core_adjustments(self, extra: CompetitionAdjustment | None = None) -> list[Adjustment]:
        """The director's adjustments in the order they were made (``extra``: one not stored yet, last)."""
        out: list[Adjustment] = []
        for a in [*sorted(self.adjustments, key=lambda a: a.id), *([extra] if extra is not None else [])]:
            adj: Adjustment = {"stage": a.stage, "instance": a.instance, "round": a.round, "reason": a.reason}
            if a.entry_id is not None and a.mp is not None:
                adj["entrant"], adj["mp"] = a.entry_id, a.mp
            elif a.table_id is not None and a.seat is not None and a.score is not None:
                adj["table"], adj["seat"], adj["score"] = a.table_id, a.seat, a.score
            out.append(adj)
        return out

    def plays(self) -> list[TablePlay]:
        """Each table's play as the core reads it (:func:`~estimation.competition.table_play`), kept
        between reads while the table's counted rounds and leavers are the same: a finished board replays
        only the table that finished it, not the whole field."""
        out = []
        keys = self._play_keys
        for t in sorted(self.tables, key=lambda t: (t.stage, t.table_id)):
            key = keys[t.table_id]
            if key is None:
                continue
            play = self.kept.get(key) or _plays.get(key)
            if play is None:
                record = self.record(t.table_id)
                assert record is not None
                left = self.left_at(t)
                if len(_plays) > CACHED_PLAYS:
                    _plays.clear()
                play = _plays[key] = table_play(record, table=t.table_id, stage=t.stage, instance=t.instance,
                                                seats=seats_of(t), left=left)
            out.append(play)
        return out

    @cached_property
    def _play_keys(self) -> dict[int, PlayKey | None]:
        """Every table's :meth:`_play_key`, once a read (10,000 of them in a robot competition)."""
        return {t.table_id: self._play_key(t) for t in self.tables}

    def _play_key(self, t: CompetitionTable) -> PlayKey | None:
        """What a table's play depends on (None: no game yet): rounds counted, ended by a leaver, leavers."""
        game = self.games.get(t.table_id)
        finished = self.done.get(t.table_id)
        if game is None and finished is None:
            return None
        ended = game.ended is not None if game is not None else finished is not None and finished.ended
        return (t.table_id, self.rounds_done(t.table_id), ended, tuple(sorted(self.left_at(t).items())))

    def _boards(self, plays: list[TablePlay],
                adjustments: list[Adjustment]) -> tuple[list[BoardResult], list[EntrantBoard]]:
        """Every board, in the order of :func:`~estimation.competition.board_results`, and each board's
        entrant results (the core's :func:`~estimation.competition.entrant_boards` of that board alone),
        each kept while the board's inputs are the same (see :class:`_Group`)."""
        groups: dict[tuple[int, int], list[TablePlay]] = {}
        for p in plays:
            groups.setdefault((p.stage, p.instance), []).append(p)
        if len(_groups) > CACHED_GROUPS:
            _groups.clear()
        boards: list[BoardResult] = []
        results: list[EntrantBoard] = []
        for (stage, instance), group in sorted(groups.items()):
            group.sort(key=lambda p: p.table)
            cached = _groups.get((self.comp.id, stage, instance))
            fresh = _Group(group, {})
            for r in range(1, self.rounds + 1):
                key = BoardKey(stage, instance, r)
                mine = [a for a in adjustments if (a["stage"], a["instance"], a["round"]) == key]
                sign = tuple(json.dumps(a, sort_keys=True) for a in mine)
                kept = None if cached is None else cached.boards.get(r)
                if kept is None or kept[0] != sign or cached is None or not cached.same_on(group, r):
                    board = board_result(key, group, mine)
                    kept = (sign, board, entrant_boards([board], group, [a for a in mine if "mp" in a]))
                fresh.boards[r] = kept
                boards.append(kept[1])
                results.extend(kept[2])
            _groups[(self.comp.id, stage, instance)] = fresh
        return boards, results

    def scored(self, extra: CompetitionAdjustment | None = None) -> Scored:
        """The core's figures for this read (computed once per read): the steps of the core's
        :func:`~estimation.competition.score_stages` (which the export runs from the records), on the
        tables' cached plays. With ``extra``, as they would be with that adjustment too
        (:class:`~estimation.competition.CompetitionError` if it names no board or entrant)."""
        if extra is None and self._scored is not None:
            return self._scored
        plays = self.plays()
        adjustments = self.core_adjustments(extra)
        if extra is not None:
            # Checked whole when an adjustment is being made (the core refuses one naming no board).
            boards = board_results(plays, self.rounds, adjustments)
            results = entrant_boards(boards, plays, adjustments)
        else:
            # Otherwise each board as the core's board_result and entrant_boards make it, kept while its
            # inputs are the same (a finished round changes one board).
            boards, results = self._boards(plays, adjustments)
        scored = Scored(plays, boards, results, standings(entrant_totals(results, self.field_ids)))
        if extra is None:
            self._scored = scored
        return scored

    def export(self) -> CompetitionExport:
        """The `estimation-competition/1` document (the core builds it, standings computed from the
        records, never taken from here)."""
        comp = self.comp
        return build_export(name=comp.name, kind=comp.kind, ruleset=comp.ruleset,  # type: ignore[arg-type]
                            length=comp.length, bot_level=comp.bot_level, instances=comp.instances,
                            entrants=[{"id": e, "name": self.entries[e].name} for e in self.field_ids],
                            stages=self.stage_entries(), adjustments=self.core_adjustments())

    # --- fair play ----------------------------------------------------------------------------------
    def stage_tables(self, stage: int) -> list[CompetitionTable]:
        return [t for t in self.tables if t.stage == stage]

    def stage_over(self, stage: int) -> bool:
        """Whether every table of ``stage`` has finished, so nobody still plays its boards. In a robot
        competition an instance's boards can be played by a newcomer until the window closes: only the
        competition's end opens them."""
        if self.comp.status == "finished":
            return True
        if self.comp.kind == "robot":
            return False
        if stage == self.comp.stage and self.comp.stage_plan is not None:
            return False  # the stage is still being seated
        tables = self.stage_tables(stage)
        return bool(tables) and all(t.finished for t in tables)

    def watchable(self, stage: int) -> bool:
        """Whether spectators may watch the stage's tables: once it is over everywhere, and only in a public
        competition (a private one's tables stay its players')."""
        return self.stage_over(stage) and not self.comp.private

    def boards_seen(self, entry_id: int | None, stage: int, instance: int) -> int:
        """How many boards (rounds) of ``stage`` and ``instance`` this viewer may see: all once the stage
        is over everywhere; else, for an entrant, the boards it finished itself (its table finished them
        while it still sat there); for anyone else none."""
        if self.stage_over(stage):
            return self.rounds
        if entry_id is None:
            return 0
        for t in self.stage_tables(stage):
            seats = seats_of(t)
            if t.instance == instance and entry_id in seats:
                done = self.rounds_done(t.table_id)
                left = self.left_at(t).get(seats.index(entry_id))
                return done if left is None else min(done, left)
        return 0

    def entry_of(self, account_id: int | None) -> CompetitionEntry | None:
        if account_id is None:
            return None
        return next((e for e in self.entries.values() if e.account_id == account_id), None)

    def table_of(self, entry_id: int, stage: int) -> CompetitionTable | None:
        return next((t for t in self.stage_tables(stage) if entry_id in seats_of(t)), None)


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
            if len(_rows) > CACHED_COMPETITIONS:
                _rows.clear()
            rows = _rows[competition_id] = _Rows({}, {})
        flags = (await db.execute(select(
            CompetitionEntry.id, CompetitionEntry.withdrawn, CompetitionEntry.removed).where(
            CompetitionEntry.competition_id == competition_id))).tuples().all()
        changed = [i for i, withdrawn, removed in flags
                   if rows.entries.get(i, (None,))[:2] != (withdrawn, removed)]
        if changed:
            which = (CompetitionEntry.id.in_(changed) if len(changed) <= IN_LIST
                     else CompetitionEntry.competition_id == competition_id)
            for e in (await db.scalars(select(CompetitionEntry).where(which))).all():
                rows.entries[e.id] = (e.withdrawn, e.removed, e)
        entries = [rows.entries[i][2] for i, _, _ in flags]
        states = (await db.execute(select(CompetitionTable.table_id, CompetitionTable.finished, Table.status)
                                   .join(Table, Table.id == CompetitionTable.table_id).where(
            CompetitionTable.competition_id == competition_id))).tuples().all()
        statuses = {i: status for i, _, status in states}
        changed = [i for i, finished, _ in states if rows.tables.get(i, (None,))[0] != finished]
        if changed:
            which = (CompetitionTable.table_id.in_(changed) if len(changed) <= IN_LIST
                     else CompetitionTable.competition_id == competition_id)
            for row in (await db.scalars(select(CompetitionTable).where(which))).all():
                rows.tables[row.table_id] = (row.finished, row)
        tables = [rows.tables[i][1] for i, _, _ in states]
        leaves = (await db.scalars(select(CompetitionLeave).where(
            CompetitionLeave.competition_id == competition_id))).all()
        adjustments = (await db.scalars(select(CompetitionAdjustment).where(
            CompetitionAdjustment.competition_id == competition_id))).all()
        ids = [t.table_id for t in tables if with_games and t.table_id not in hub.runtimes and not (
            statuses.get(t.table_id) == "finished" and t.table_id in _done)]
        stored = dict((await db.execute(select(Table.id, Table.record).where(Table.id.in_(ids))))
                      .tuples().all()) if ids else {}
    games: dict[int, Game] = {}
    done: dict[int, Done] = {}
    for t in tables:
        # Finished is the table's own status: the flag may lag it (a restart between the two commits).
        if not t.finished and statuses.get(t.table_id) == "finished":
            t.finished = True
        if not with_games:
            continue
        runtime = hub.runtimes.get(t.table_id)
        if runtime is not None:
            if runtime.game is not None:
                games[t.table_id] = runtime.game
            continue
        finished = _done.get(t.table_id)
        if finished is not None and t.finished:
            done[t.table_id] = finished
            continue
        text = stored.get(t.table_id)
        if text is None:
            continue
        if t.finished:
            game = games[t.table_id] = _finished_game(t.table_id, text)
            if len(_done) > CACHED_DONE:
                _done.clear()
            _done[t.table_id] = Done(len(game.round_results), game.ended is not None)
        else:
            games[t.table_id] = _stored_game(t.table_id, text)
    found = Field(comp, {e.id: e for e in entries}, list(tables), games, list(leaves), list(adjustments),
                  done)
    # A finished table whose play is not kept (its leavers changed, or the cache was full): its game.
    keys = {t: key for t, key in found._play_keys.items() if t in done}
    found.kept = {key: _plays[key] for key in keys.values() if key is not None and key in _plays}
    await found.load_games(hub, [t for t, key in keys.items() if key not in found.kept])
    return found


@dataclass
class _Rows:
    """A competition's entry and table rows as last read, each with the columns that can change (an
    entry's withdrawn and removed, a table's finished) as they were read.

    Why: loading 1,000 entries and 750 tables through the ORM on every refresh was half of a swiss's
    refresh (10,000 and 10,000 in a robot competition: a second). Every other column is written once,
    when the row is made, so a read fetches those flags as plain tuples and loads only the rows that are
    new or whose flags moved (reading them again: any worker may have written them)."""

    entries: dict[int, tuple[bool, bool, CompetitionEntry]]
    tables: dict[int, tuple[bool, CompetitionTable]]


#: Each competition's rows (:class:`_Rows`), for at most this many competitions.
_rows: dict[int, _Rows] = {}
CACHED_COMPETITIONS = 64
#: More changed rows than this are read with their whole competition (not a list of ids as parameters).
IN_LIST = 500

#: What a table's play depends on: (table, rounds counted, ended by a leaver, leavers).
PlayKey = tuple[int, int, bool, tuple[tuple[int, int], ...]]
#: Tables' plays as the core read them, by :data:`PlayKey` (a micro table's is some 2 kB).
_plays: dict[PlayKey, TablePlay] = {}
CACHED_PLAYS = 50_000


@dataclass
class _Group:
    """One stage's (and instance's) boards as last scored: its tables' plays (in table order) and, by
    round, the board's adjustments (JSON), its result and its entrants' results.

    Why: every refresh of a live competition scores the whole field, but a finished round changes one
    board; matchpointing every board again (and listing every entrant's result on it) was half of a
    1,000-entrant swiss's refresh. A board is kept while its tables (the same, in the same order) have
    the same seats, the same scores on its round and the same seats left before it, which are all that
    :func:`~estimation.competition.board_result` and :func:`~estimation.competition.entrant_boards` read
    of them; plays are compared by identity first (an unchanged table's play is the same cached object).
    """

    plays: list[TablePlay]
    boards: dict[int, tuple[tuple[str, ...], BoardResult, list[EntrantBoard]]]

    def same_on(self, group: list[TablePlay], r: int) -> bool:
        """Whether ``group`` gives round ``r``'s board the same inputs as :attr:`plays` did."""
        if len(group) != len(self.plays):
            return False
        for old, new in zip(self.plays, group, strict=True):
            if old is new:
                continue
            if (old.table != new.table or old.seats != new.seats
                    or (old.scores[r - 1] if len(old.scores) >= r else None)
                    != (new.scores[r - 1] if len(new.scores) >= r else None)
                    or any((old.left.get(s, r) < r) != (new.left.get(s, r) < r) for s in range(4))):
                return False
        return True


#: Each competition's boards, by (competition, stage, instance): see :class:`_Group`.
_groups: dict[tuple[int, int, int], _Group] = {}
#: At most this many groups kept (a 10,000-table robot instance's is some 20 MB).
CACHED_GROUPS = 256
class Done(NamedTuple):
    """What the standings need of a finished table besides its play: its rounds and how it ended."""

    rounds: int
    ended: bool


#: Finished tables (they never change): a read of the standings neither loads nor replays their records.
_done: dict[int, Done] = {}
CACHED_DONE = 1_000_000
#: Finished tables' games, for travellers, replays and the export (loaded by Field.load_games).
_finished: dict[int, Game] = {}
#: Stored records of tables still playing elsewhere (cluster mode), replayed, by table and record text.
_replayed: dict[tuple[int, int], Game] = {}
#: At most this many games kept by each of the two (a finished micro game is some 100 kB in memory).
CACHED_GAMES = 8192


def _finished_game(table_id: int, text: str) -> Game:
    """A finished table's game from its stored record, kept in :data:`_finished`."""
    game = _finished.get(table_id)
    if game is None:
        if len(_finished) > CACHED_GAMES:
            _finished.clear()
        game = _finished[table_id] = load_record(json.loads(text))
    return game


async def _finished_games(hub: CompetitionHost, table_ids: list[int]) -> dict[int, Game]:
    """Finished tables' games: kept ones, the others loaded from their stored records."""
    out = {t: _finished[t] for t in table_ids if t in _finished}
    missing = [t for t in table_ids if t not in out]
    for start in range(0, len(missing), IN_LIST):
        async with hub.session() as db:
            stored = (await db.execute(select(Table.id, Table.record).where(
                Table.id.in_(missing[start:start + IN_LIST])))).tuples().all()
        for table_id, text in stored:
            if text is not None:
                out[table_id] = _finished_game(table_id, text)
    return out


def _stored_game(table_id: int, text: str) -> Game:
    key = (table_id, hash(text))
    game = _replayed.get(key)
    if game is None:
        if len(_replayed) > CACHED_GAMES:
            _replayed.clear()
        game = _replayed[key] = load_record(json.loads(text))
    return game


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
