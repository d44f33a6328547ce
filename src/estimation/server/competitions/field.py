"""A competition as the core sees it: one read of it (:mod:`.reading` makes them), then scored.

Everything here is read-only. A :class:`Field` is one consistent read of a competition: its entrants, its
tables with who sat where, every table's game as last committed (a finished table's only when a replay or
the export asks: :meth:`Field.load_games`; its traveller lines: :meth:`Field.lines`), the leavers and the
director's adjustments.
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
from typing import Any

from ...competition import (
    Adjustment,
    BoardKey,
    BoardResult,
    CompetitionExport,
    EntrantBoard,
    Scored,
    Seats,
    StageEntry,
    TableLines,
    TablePlay,
    board_result,
    board_results,
    build_export,
    entrant_boards,
    entrant_totals,
    rounds_of,
    standings,
    table_entry,
    table_lines,
    table_play,
)
from ...game import Game
from ..storage.models import (
    Competition,
    CompetitionAdjustment,
    CompetitionEntry,
    CompetitionLeave,
    CompetitionTable,
)
from . import games as kept_games
from .games import Done
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
    #: In (stage, table) order.
    tables: list[CompetitionTable]
    #: Each table's game as last committed (finished rounds are what counts), by table id; a finished
    #: table's only once :meth:`load_games` asked for it (a traveller, a replay, the export).
    games: dict[int, Game]
    leaves: list[CompetitionLeave]
    adjustments: list[CompetitionAdjustment]
    #: The entrants in the field: every entry not withdrawn before the start (removed ones played), by id.
    field_ids: list[int]
    #: :attr:`tables`' ids, in the same order (read without the ORM's attribute machinery).
    table_ids: list[int]
    #: Finished tables whose game is not in :attr:`games`: their rounds finished and whether a leaver
    #: ended them (all the standings need of them, with their plays).
    done: dict[int, Done] = field(default_factory=dict)
    #: The plays of finished tables already read (by table id), with the key each was read under: the
    #: read's copy of its competition's settled plays (:class:`Settled`), which it adds to.
    settled: dict[int, tuple[PlayKey, TablePlay]] = field(default_factory=dict)
    #: Where this read records the plays of finished tables it reads (the competition's :class:`Settled`).
    settle: Settled | None = field(default=None, repr=False)
    #: The plays of finished tables not settled, as :data:`kept_plays` had them when this read was made.
    kept: dict[PlayKey, TablePlay] = field(default_factory=dict)
    _scored: Scored | None = field(default=None, repr=False)

    async def load_games(self, hub: CompetitionHost, table_ids: Iterable[int] | None = None) -> None:
        """The games of finished tables in ``table_ids`` (None: all), for what reads their deals."""
        wanted = [t for t in (self.done if table_ids is None else table_ids)
                  if t in self.done and t not in self.games]
        if wanted:
            self.games.update(await kept_games.finished_games(hub, wanted))

    async def lines(self, hub: CompetitionHost, table_ids: Iterable[int]) -> dict[int, TableLines]:
        """The tables' lines on every board they began, for a traveller: a finished table's are kept (a
        few kB, not its game); another's from its game or record as far as it counts (:meth:`shown`)."""
        wanted = list(table_ids)
        out = await kept_games.finished_lines(hub, [t for t in wanted if t in self.done
                                                    and t not in self.games and self.cut_at(t) is None])
        for t in wanted:
            if t not in out:
                if t in self.done and t not in self.games:
                    await self.load_games(hub, [t])
                shown = self.shown(t)
                if shown:
                    out[t] = table_lines(shown)
        return out

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
        """Each table's play as the core reads it (:func:`~estimation.competition.table_play`), in (stage,
        table) order, kept between reads while the table's counted rounds and leavers are the same: a
        finished board replays only the table that finished it, not the whole field."""
        out = []
        keys = self._play_keys
        settled = self.settled
        for table_id, t in zip(self.table_ids, self.tables, strict=True):
            known = settled.get(table_id)
            if known is not None:
                out.append(known[1])
                continue
            key = keys[table_id]
            if key is None:
                continue
            play = self.kept.get(key) or kept_plays.get(key)
            if play is None:
                record = self.record(t.table_id)
                assert record is not None
                play = table_play(record, table=t.table_id, stage=t.stage, instance=t.instance,
                                  seats=seats_of(t), left=self.left_at(t))
                kept_plays[key] = play
            if t.table_id in self.done and self.settle is not None:
                self.settle.plays[t.table_id] = (key, play)
            out.append(play)
        return out

    @cached_property
    def _play_keys(self) -> dict[int, PlayKey | None]:
        """Every table's :meth:`_play_key` but the settled ones', once a read."""
        settled = self.settled
        return {i: self._play_key(t) for i, t in zip(self.table_ids, self.tables, strict=True)
                if i not in settled}

    def _play_key(self, t: CompetitionTable) -> PlayKey | None:
        """What a table's play depends on (None: no game yet): rounds counted, ended by a leaver, leavers."""
        game = self.games.get(t.table_id)
        finished = self.done.get(t.table_id)
        if game is None and finished is None:
            return None
        ended = game.ended is not None if game is not None else finished is not None and finished.ended
        return (t.table_id, self.rounds_done(t.table_id), ended, tuple(sorted(self.left_at(t).items())))

    def _boards(self, plays: list[TablePlay], adjustments: list[Adjustment]
                ) -> tuple[list[BoardResult], list[EntrantBoard], dict[int, tuple[int, int]]]:
        """Every board, in the order of :func:`~estimation.competition.board_results`, each board's
        entrant results (the core's :func:`~estimation.competition.entrant_boards` of that board alone),
        and every entrant's totals (the core's :func:`~estimation.competition.entrant_totals` of them),
        each kept while the board's inputs are the same (see :class:`_Group`)."""
        groups: dict[tuple[int, int], list[TablePlay]] = {}
        for p in plays:
            groups.setdefault((p.stage, p.instance), []).append(p)
        boards: list[BoardResult] = []
        results: list[EntrantBoard] = []
        totals = {e: (0, 0) for e in self.field_ids}
        for (stage, instance), group in sorted(groups.items()):
            # Each group is in table order already: the plays are in (stage, table) order.
            cached = _groups.get((self.comp.id, stage, instance))
            fresh = _Group.scored(group, cached, self.rounds, stage, instance, adjustments)
            _groups[(self.comp.id, stage, instance)] = fresh
            for r in range(1, self.rounds + 1):
                boards.append(fresh.boards[r][1])
                results.extend(fresh.boards[r][2])
            if len(groups) == 1:  # each entrant's totals are its one group's
                totals.update(fresh.totals)
            else:
                for e, (mp, top) in fresh.totals.items():
                    was_mp, was_top = totals.get(e, (0, 0))
                    totals[e] = (was_mp + mp, was_top + top)
        return boards, results, totals

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
            totals = entrant_totals(results, self.field_ids)
        else:
            # Otherwise each board as the core's board_result and entrant_boards make it, kept while its
            # inputs are the same (a finished round changes one board).
            boards, results, totals = self._boards(plays, adjustments)
        scored = Scored(plays, boards, results, standings(totals))
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




#: What a table's play depends on: (table, rounds counted, ended by a leaver, leavers).
PlayKey = tuple[int, int, bool, tuple[tuple[int, int], ...]]
#: Tables' plays as the core read them, by :data:`PlayKey` (a micro table's is some 2 kB).
kept_plays: kept_games.Recent[PlayKey, TablePlay] = kept_games.Recent(50_000)


@dataclass
class Settled:
    """A competition's finished tables as its reads found them: what the standings need of each (its
    :class:`Done`) and its play, with the key it was read under, valid while the competition's leavers
    are the same (:attr:`leaves`).

    Why: a finished table never changes, but working out that it has not (its key, from its row, its game
    or :class:`Done`, and its leavers) for each of a robot competition's 10,000 tables was most of a
    refresh's time; a read now works only on the tables not settled yet."""

    leaves: tuple[tuple[int, int, int, int], ...]
    done: dict[int, Done] = field(default_factory=dict)
    plays: dict[int, tuple[PlayKey, TablePlay]] = field(default_factory=dict)


#: One board's kept figures: its adjustments (JSON), its result and its entrants' results.
_Board = tuple[tuple[str, ...], BoardResult, list[EntrantBoard]]


@dataclass
class _Group:
    """One stage's (and instance's) boards as last scored: its tables' plays (in table order), by round
    the board's adjustments (JSON), result and entrants' results, and every entrant's totals over them.

    Why: every refresh of a live competition scores the whole field, but a finished round changes one
    board; matchpointing every board again (and listing and adding up every entrant's result on it) was
    most of a big field's refresh. A board is kept while its tables (the same, in the same order) have
    the same seats, the same scores on its round and the same seats left before it, which are all that
    :func:`~estimation.competition.board_result` and :func:`~estimation.competition.entrant_boards` read
    of them; plays are compared by identity first (an unchanged table's play is the same object), and the
    totals move by the changed boards' results only (the old ones out, the new ones in)."""

    plays: list[TablePlay]
    boards: dict[int, _Board]
    totals: dict[int, tuple[int, int]]

    @classmethod
    def scored(cls, group: list[TablePlay], cached: _Group | None, rounds: int, stage: int, instance: int,
               adjustments: list[Adjustment]) -> _Group:
        """The group's boards for ``group``, from ``cached`` where their inputs are the same."""
        moved = None if cached is None else cached.moved(group)
        boards: dict[int, _Board] = {}
        changed: list[int] = []
        for r in range(1, rounds + 1):
            key = BoardKey(stage, instance, r)
            mine = [a for a in adjustments if (a["stage"], a["instance"], a["round"]) == key]
            sign = tuple(json.dumps(a, sort_keys=True) for a in mine)
            kept = None if cached is None or moved is None else cached.boards.get(r)
            if kept is None or kept[0] != sign or not (cached and moved is not None
                                                       and cached.same_on(group, moved, r)):
                board = board_result(key, group, mine)
                kept = (sign, board, entrant_boards([board], group, [a for a in mine if "mp" in a]))
                changed.append(r)
            boards[r] = kept
        if cached is None or moved is None:
            return cls(group, boards, entrant_totals(eb for kept in boards.values() for eb in kept[2]))
        totals = dict(cached.totals) if changed else cached.totals
        for r in changed:
            old = cached.boards.get(r)
            for eb in () if old is None else old[2]:
                mp, top = totals[eb.entrant]
                totals[eb.entrant] = (mp - eb.mp, top - eb.top)
            for eb in boards[r][2]:
                mp, top = totals.get(eb.entrant, (0, 0))
                totals[eb.entrant] = (mp + eb.mp, top + eb.top)
        return cls(group, boards, totals)

    def moved(self, group: list[TablePlay]) -> list[int] | None:
        """The places in ``group`` whose play is not the one kept (None: not the same tables at all)."""
        if len(group) != len(self.plays):
            return None
        moved = [i for i, (old, new) in enumerate(zip(self.plays, group, strict=True)) if old is not new]
        if any(self.plays[i].table != group[i].table for i in moved):
            return None
        return moved

    def same_on(self, group: list[TablePlay], moved: list[int], r: int) -> bool:
        """Whether ``group`` (whose plays differ from :attr:`plays` only at ``moved``) gives round ``r``'s
        board the same inputs as :attr:`plays` did."""
        for i in moved:
            old, new = self.plays[i], group[i]
            if (old.seats != new.seats
                    or (old.scores[r - 1] if len(old.scores) >= r else None)
                    != (new.scores[r - 1] if len(new.scores) >= r else None)
                    or any((old.left.get(s, r) < r) != (new.left.get(s, r) < r) for s in range(4))):
                return False
        return True


#: Each competition's boards, by (competition, stage, instance): see :class:`_Group` (a 10,000-table
#: robot instance's is some 20 MB).
_groups: kept_games.Recent[tuple[int, int, int], _Group] = kept_games.Recent(256)
