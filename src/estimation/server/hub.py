"""The hub: the process's tables in memory, the database handle, and the background sweeps.

A table is loaded into memory the first time anyone touches it and stays pinned to this process; every
table that was playing when the process stopped is loaded at start so its bots and clocks go on without
waiting for a client. In cluster mode (``Settings.cluster``, PostgreSQL only) the process is one of several
workers: it holds only the tables it owns (:mod:`.ownership`: claimed on demand, or from a dead worker by the
orphan sweep), every write is fenced by that ownership, and a table that goes to another worker is dropped
here with a ``moved`` message to its sockets (see docs/architecture.md, docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import secrets
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from .access import auth
from .access.limits import Counts, Limit, SharedBuckets
from .access.ratelimit import VerifiedTokens
from .cluster.bus import RESYNC, SESSIONS, Bus, Message, Subscription
from .cluster.bus_choice import open_bus
from .cluster.ownership import Busy, Ownership
from .competitions.service import Competitions
from .config import Settings
from .jsontext import dumps
from .ops import tuning
from .ops.metrics import MeteredStore, Metrics, MetricsServer
from .social.host import SocialPart
from .storage.database import make_engine, migrate, sessionmaker
from .storage.models import utcnow
from .table.bot_pool import BotPool
from .table.connection import Connection, Sockets
from .table.hints import HintPool
from .table.journal import Journal
from .table.reducer import OVER, Create, Events, TableSettings, create, reduce
from .table.runtime import TableError, TableRuntime, joins_of, runtime_of
from .table.store import Change, Fenced, Slot, SqlTableStore, StoredTable, TableMoved, TableStore

log = logging.getLogger("estimation.server")


#: What a socket whose session ended is told before it is closed.
SIGNED_OUT = {"type": "error", "code": "signed_out", "message": "you signed out: sign in again"}
SESSION_OVER = {"type": "error", "code": "signed_out",
                "message": "your session has ended (signed out or expired): sign in again"}

#: Finished tables freed per turn of the event loop when the sweep evicts them (freeing 250 games in one
#: turn took 140 ms, and every table in play waited for it).
EVICT_PER_TURN = 25


class Hub:
    def __init__(self, settings: Settings, social: Callable[[Hub], SocialPart],
                 engine: AsyncEngine | None = None, store: TableStore | None = None) -> None:
        """``store``: where the tables are kept; by default the SQL store of ``settings.database_url``
        (fenced in cluster mode by this worker's ownership), its commits timed for the metrics."""
        self.settings = settings
        self.engine = engine or make_engine(settings.database_url)
        self.session: async_sessionmaker[AsyncSession] = sessionmaker(self.engine)
        #: This server's Prometheus metrics (a registry of its own), served apart when metrics_port is set.
        self.metrics = Metrics(self)
        self.metrics_server = (MetricsServer(self.metrics, settings.metrics_host, settings.metrics_port)
                               if settings.metrics_port else None)
        #: Cluster mode: this worker's lease and the tables it owns (None: one process holds every table);
        #: its claims, releases, losses and fenced writes are counted in the metrics.
        self.ownership: Ownership | None = None
        if settings.cluster:
            if self.engine.dialect.name == "sqlite":
                raise ValueError("cluster mode needs PostgreSQL: several workers cannot share a SQLite file "
                                 "(set DATABASE_URL=postgresql+asyncpg://...)")
            self.ownership = Ownership(settings.database_url, settings.lease_seconds,
                                       changed=self.metrics.ownership_changed,
                                       fenced=self.metrics.fenced_writes.inc)
        #: The SQL store's group commit (None for a store given), started and stopped with the store.
        self.journal: Journal | None = None
        if store is None:
            sql = SqlTableStore.open(self.engine, self.session, self.ownership)
            self.journal = sql.journal
            store = MeteredStore(sql, self.metrics)
        #: Where the tables are kept (SQLite or PostgreSQL, the journal's group commit behind it), every
        #: table and seat written and read through it alone; in cluster mode every write is fenced by this
        #: worker's ownership. Its writer turn (SQLite) is taken by the chat's writes too.
        self.store: TableStore = store
        self._orphan_sweeper: asyncio.Task[None] | None = None
        self.runtimes: dict[int, TableRuntime] = {}
        self._loading = asyncio.Lock()
        self._sweeper: asyncio.Task[None] | None = None
        self._session_sweeper: asyncio.Task[None] | None = None
        self._session_rechecker: asyncio.Task[None] | None = None
        self._rechecks: set[asyncio.Task[int]] = set()
        self._sessions_news: Subscription | None = None
        #: Times the lobby's snapshot was read from the database (routes/lobby_socket.py caches it).
        self.lobby_snapshots = 0
        self.hints = HintPool()
        self.bots = BotPool(settings.bot_workers, settings.bot_niceness)
        #: Held while a player takes a seat anywhere, so two joins at once cannot seat them twice.
        #: Weak: a lock lives while someone holds or waits for it, so the map never grows with the accounts.
        self._seating: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        #: Chat, lobby changes and presence go through the bus (social/, routes/lobby_socket.py): this
        #: process's own, or Redis when ``redis_url`` is set (across processes and machines: a cluster's
        #: workers share their lobby, chat and notices through it).
        self.bus: Bus = open_bus(settings.redis_url, prefix=settings.redis_prefix,
                                 on_lag=self.metrics.bus_lag.observe)
        self.social = social(self)
        #: Competitions (RULES.md, Competitions): their clock, their stages, and what their tables tell them.
        self.competitions = Competitions(self)
        #: Every table socket, by address, player and session (their caps; closed when a session ends).
        self.sockets = Sockets(settings.sockets_per_address, settings.sockets_per_player)
        #: Session tokens verified here: the REST rate limit's key for a request that carries one.
        self.verified = VerifiedTokens()
        #: The limits per address (access/limits.py): in Redis when there is one (shared by the workers).
        self.shared_limits = (SharedBuckets(settings.redis_url, settings.redis_prefix)
                              if settings.redis_url else None)
        #: Creating guests, accounts and tables (keyed "kind:address").
        self.creations = Limit("create", settings.create_per_minute / 60, settings.create_burst,
                               self.shared_limits)
        #: Sign-in attempts.
        self.sign_ins = Limit("sign-in", settings.sign_ins_per_minute / 60, settings.sign_in_burst,
                              self.shared_limits)
        #: Wrong passwords per account (the throttle: in Redis when there is one) and per address (only
        #: to order the hashing queue, so this process's count).
        self.wrong_passwords = Counts("wrong-password", settings.wrong_password_window_seconds,
                                      self.shared_limits)
        self.wrong_from = Counts("wrong-from", settings.wrong_password_window_seconds)
        #: Chat per address, and per table in its spectators' channel (social/chat.py).
        self.chat_from = Limit("chat", settings.chat_address_per_second, settings.chat_address_burst,
                               self.shared_limits)
        self.spectator_chat = Limit("spectator-chat", settings.spectator_chat_per_second,
                                    settings.spectator_chat_burst, self.shared_limits)
        #: New sockets, table and lobby.
        self.connects = Limit("connect", settings.socket_connects_per_minute / 60,
                              settings.socket_connect_burst, self.shared_limits)
        #: Threads of their own for password hashing (bounded), so that it waits behind nothing else in the
        #: loop's default pool. (The bots think in processes: self.bots.)
        self.hashing = auth.Hashing(settings.hash_workers, settings.hash_queue)

    async def start(self) -> None:
        await migrate(self.engine)
        await self.store.start()
        if self.ownership is not None:
            # A worker holds only what it claims: on demand, and the orphans of dead workers (the sweep).
            self.ownership.on_lapse, self.ownership.on_wanted = self._lapsed, self._hand_over
            await self.ownership.start()
            playing: list[int] = []
            self._orphan_sweeper = asyncio.create_task(self._claim_orphans_forever())
        else:
            playing = await self.store.list("playing")
        for table_id in playing:
            runtime = await self.get(table_id)
            if runtime is not None:
                async with runtime.lock:
                    runtime._schedule()
        await self.bus.start()
        # Sessions ended through any process close their sockets in every process (cluster mode: a socket
        # is held by its table's owner, the sign-out may reach any worker).
        self._sessions_news = self.bus.subscribe(SESSIONS, self._session_ended)
        await self.social.start()
        await self.competitions.start()
        self._sweeper = asyncio.create_task(self._sweep_forever())
        self._session_sweeper = asyncio.create_task(self._sweep_sessions_forever())
        self._session_rechecker = asyncio.create_task(self._recheck_sessions_forever())
        if self.metrics_server is not None:
            await self.metrics_server.start()
        log.info("estimation server ready: %d tables resumed", len(playing))

    async def stop(self) -> None:
        if self.metrics_server is not None:
            await self.metrics_server.stop()
        await self.competitions.stop()
        for sweeper in (self._sweeper, self._session_sweeper, self._session_rechecker, self._orphan_sweeper,
                        *self._rechecks):
            if sweeper is not None:
                sweeper.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await sweeper
        for runtime in list(self.runtimes.values()):
            runtime.shutdown()
            # Let a bot move that is committing finish, so the database is left at a clean version.
            with contextlib.suppress(Exception):
                async with asyncio.timeout(5):
                    async with runtime.lock:
                        pass
        self.runtimes.clear()
        if self.ownership is not None:
            await self.ownership.stop()  # releases every table and ends the lease: claimable at once
        if self._sessions_news is not None:
            self._sessions_news.close()
        await self.social.stop()
        await self.bus.stop()
        if self.shared_limits is not None:
            with contextlib.suppress(Exception):
                await self.shared_limits.close()
        self.hints.stop()
        self.hashing.shutdown()
        self.bots.stop()
        await self.store.stop()
        await self.engine.dispose()

    async def get(self, table_id: int) -> TableRuntime | None:
        """The table's runtime, loaded on first use; None if there is no such table. In cluster mode a table
        that is not in memory is claimed first: if another live worker owns it, :class:`TableMoved`."""
        runtime = self.runtimes.get(table_id)
        if runtime is not None:
            return runtime
        async with self._loading:
            runtime = self.runtimes.get(table_id)
            if runtime is None:
                if self.ownership is not None:
                    claimed = await self.ownership.claim(table_id)
                    if claimed is None:
                        return None
                    if isinstance(claimed, Busy):
                        raise TableMoved(table_id, round(1000 * claimed.retry_seconds))
                stored = await self.store.load(table_id, self.settings.event_buffer)
                if stored is not None:
                    runtime = self.runtimes[table_id] = runtime_of(self, stored)
                    await self.competitions.loaded(runtime)  # a competition's table: may it be watched?
                    if self.ownership is not None and runtime.status == "playing":
                        runtime._schedule()  # claimed from a worker that died: its bots and clock go on
                    elif self.ownership is not None and runtime.status == "open" and runtime.bots_at:
                        self.social.schedule_bots(table_id, runtime.bots_at)  # its quick-play wait goes on
                elif self.ownership is not None:
                    await self.ownership.release(table_id)
        return runtime

    def serves(self, runtime: TableRuntime) -> bool:
        """Whether ``runtime`` is the table this process serves now: not dropped (handed over, lost) nor
        evicted since it was fetched. Asked under the table's lock before a socket is added to it."""
        return not runtime.closed and self.runtimes.get(runtime.id) is runtime

    async def held(self, table_id: int) -> TableRuntime | None:
        """The table if this process holds it: in cluster mode only one it owns now (never a claim, which
        would ask its owner to hand it over); in one process, :meth:`get`."""
        if self.ownership is not None:
            return self.runtimes.get(table_id)
        return await self.get(table_id)

    # --- cluster mode: tables that change hands ----------------------------------------------------------
    def lost(self, runtime: TableRuntime) -> None:
        """A write of this table was refused (another worker owns it now, or its version moved on): drop it
        from memory and tell its sockets it moved; they reconnect through the balancer to the owner."""
        log.warning("table %s: lost (written elsewhere); dropping it and its %d sockets", runtime.id,
                    len(runtime.conns))
        if self.ownership is not None:
            self.ownership.forget(runtime.id)
        self._drop(runtime, 0)

    def _drop(self, runtime: TableRuntime, retry_ms: int) -> None:
        if self.runtimes.get(runtime.id) is runtime:
            del self.runtimes[runtime.id]
        moved = TableMoved(runtime.id, retry_ms).message_for_client()
        for conn in list(runtime.conns):
            conn.kick(moved)
        runtime.conns.clear()
        runtime.shutdown()

    async def _hand_over(self, table_ids: list[int]) -> None:
        """Other workers were asked for these tables: release each between two of its changes."""
        try:
            await self._hand_over_now(table_ids)
        except Exception:
            log.exception("cluster: handing tables %s over failed", table_ids)

    async def _hand_over_now(self, table_ids: list[int]) -> None:
        assert self.ownership is not None
        for table_id in table_ids:
            async with self._loading:  # not while this worker is loading it (claimed, not yet in memory)
                runtime = self.runtimes.get(table_id)
            if runtime is None:
                await self.ownership.release(table_id)
                continue
            async with runtime.lock:
                if self.runtimes.get(table_id) is not runtime:
                    continue
                await self.ownership.release(table_id)
                log.info("table %s: handed over to the worker that was asked for it", table_id)
                self._drop(runtime, 0)

    async def _lapsed(self) -> None:
        """This worker's lease lapsed: every table may be another's already. Drop them all, now."""
        for runtime in list(self.runtimes.values()):
            self._drop(runtime, 0)

    async def _claim_orphans_forever(self) -> None:
        """Claim playing tables whose worker died and that no client asked for, so their bots and clocks go
        on; a few at a time, each worker a random share."""
        assert self.ownership is not None
        while True:
            await asyncio.sleep(self.ownership.lease)
            try:
                for table_id in await self.ownership.orphans(20):
                    with contextlib.suppress(TableMoved):
                        await self.get(table_id)
            except Exception:
                log.exception("claiming orphaned tables failed")

    @contextlib.asynccontextmanager
    async def seating(self, account_id: int) -> Any:
        """One seat-taking at a time per player (see :meth:`live_table`)."""
        lock = self._seating.get(account_id)
        if lock is None:
            lock = self._seating[account_id] = asyncio.Lock()
        async with lock:
            yield

    async def live_table(self, account_id: int) -> int | None:
        """The open or playing table where this player holds a seat (not left), if any.

        A player sits at one live table at a time: a second table would run its clock and hand its turns
        to a bot while they play the first.
        """
        return await self.store.live_table(account_id)

    async def not_seated_elsewhere(self, account_id: int, table_id: int | None) -> None:
        """Refuse (409) while the player holds a seat at another open or playing table: one live table a
        player (:meth:`live_table`)."""
        live = await self.live_table(account_id)
        if live is not None and live != table_id:
            raise TableError("seated_elsewhere", f"you are seated at table {live}: leave it, or finish its "
                                                 "game, first", 409)

    def table_changed(self, runtime: TableRuntime, events: Events) -> None:
        self.social.table_changed(runtime, events)  # the live lobby, through the bus
        self.competitions.table_changed(runtime, events)  # a competition's leavers and finished boards

    def retire(self, runtime: TableRuntime) -> None:
        """A finished or abandoned table stays in memory while anyone is connected; the sweep evicts it."""

    async def create_table(self, account_id: int, settings: TableSettings, slot: Slot | None = None,
                           seated: Sequence[tuple[int, str, bool, int]] = ()) -> TableRuntime:
        """A new table as ``settings`` ask, created by ``account_id``: the reducer's :func:`create`, written
        by the store (refused over the player's cap of open tables; a competition's table with its
        ``slot``, see :meth:`~.table.store.TableStore.create`), held here and published. A competition's
        table is not its director's own (a stage seats several at once): the cap is not theirs.

        ``seated``: (account, name, is_guest, seat) of players seated at once (a competition's entrants, with
        the table's invite), the reducer's :class:`~.table.reducer.Joins` on the new table written in the
        same transaction: its first change, as :meth:`~.table.runtime.TableRuntime.join_all` would commit
        it."""
        state, events = create(Create(account_id, settings, secrets.token_urlsafe(9) if settings.private
                                      else None))
        recent: list[tuple[int, Events, int | None, str | None, str | None]] = [
            (state.version, events, None, None, None)]
        then = None
        if seated:
            after, joined = reduce(state, joins_of(seated, state.rules.invite_code))
            game = after.game
            then = Change(0, state, after, joined,
                          record=None if game is None else dumps(game.record(include_seed=True)))
            recent.append((after.version, joined, None, None, None))
        cap = 0 if slot is not None else self.settings.open_tables_per_player
        table_id = await self.store.create(state, events, cap, slot, then)
        now = state if then is None else then.after
        deals = -1 if now.game is None else len(now.game.deal_log)
        runtime = runtime_of(self, StoredTable(table_id, now, deals, recent))
        async with self._loading:
            runtime = self.runtimes.setdefault(table_id, runtime)
        runtime._publish([event for _v, changed, *_ in recent for event in changed], None, None)
        return runtime

    async def sweep(self) -> None:
        """Abandon (and refund) open tables that never filled; evict finished tables nobody watches."""
        cutoff = utcnow() - dt.timedelta(seconds=self.settings.open_table_seconds)
        for table_id in await self.store.list("open", created_before=cutoff):
            try:
                runtime = await self.get(table_id)
            except TableMoved:
                continue  # another worker's: its own sweep abandons it
            if runtime is not None:
                with contextlib.suppress(Fenced, TableMoved):
                    await runtime.abandon("not filled in time")
        done = [t for t, r in self.runtimes.items() if r.status in OVER and not r.conns]
        for n, table_id in enumerate(done, 1):
            runtime = self.runtimes.get(table_id)
            if runtime is not None and not runtime.conns:  # nobody came back meanwhile
                self.runtimes.pop(table_id)
                if self.ownership is not None:
                    await self.ownership.release(table_id)
            del runtime  # freed here: a game is thousands of objects, a sweep can free hundreds of games
            if n % EVICT_PER_TURN == 0:
                await asyncio.sleep(0)  # let the tables in play have the loop between batches

    async def _sweep_forever(self) -> None:
        while True:
            try:
                await self.sweep()
            except Exception:
                log.exception("sweep failed")
            await asyncio.sleep(min(30.0, max(1.0, self.settings.open_table_seconds / 4)))

    # --- sessions and limits ------------------------------------------------------------------------
    async def allow_create(self, kind: str, address: str) -> bool:
        """Whether ``address`` may create another ``kind`` (guest, account, table) now."""
        return await self.creations.allow(f"{kind}:{address}")

    def end_session(self, token_hash: str) -> None:
        """A session is over (signed out): its token is forgotten and its sockets are closed, here and, over
        the bus, in every other process."""
        self._end_session_here(token_hash)
        self.bus.publish(SESSIONS, {"type": "session_ended", "token_hash": token_hash})

    def end_sessions_of(self, account_id: int, keep: str | None = None) -> None:
        """Every session of a player is over (signed out everywhere, a new password, a deleted account),
        but ``keep``: their tokens are forgotten and their sockets closed, here and in every other process."""
        self._end_sessions_here(account_id, keep)
        self.bus.publish(SESSIONS, {"type": "sessions_ended", "account_id": account_id, "keep": keep})

    def _session_ended(self, _topic: str, message: Message) -> None:
        """News from the bus (this process's own included: ending twice changes nothing). A resync notice
        (news may have been missed) reads every connected socket's session at once."""
        kind = message.get("type")
        if kind == RESYNC:
            task = asyncio.create_task(self.recheck_sessions())
            self._rechecks.add(task)
            task.add_done_callback(self._rechecks.discard)
        elif kind == "session_ended" and isinstance(message.get("token_hash"), str):
            self._end_session_here(message["token_hash"])
        elif kind == "sessions_ended" and isinstance(message.get("account_id"), int):
            keep = message.get("keep")
            self._end_sessions_here(message["account_id"], keep if isinstance(keep, str) else None)

    def _end_session_here(self, token_hash: str) -> None:
        self.verified.forget(token_hash)
        for conn in self.sockets.of_session(token_hash):
            conn.kick(SIGNED_OUT)

    def _end_sessions_here(self, account_id: int, keep: str | None) -> None:
        for token_hash, (owner, _expires) in list(self.verified.tokens.items()):
            if owner == account_id and token_hash != keep:
                self.verified.forget(token_hash)
        for conn in list(self.sockets.by_player.get(account_id, ())):
            if conn.session != keep:
                conn.kick(SIGNED_OUT)

    async def session_alive(self, conn: Connection) -> bool:
        """Whether the session a socket speaks for still stands, where its action is accepted (a socket
        without one: True); False kicks it.

        While the bus is up, every end of a session reaches this process as news, which closes its sockets
        at once, or, if news was missed, as a resync notice that reads every socket's session
        (:meth:`recheck_sessions`); an open socket's session therefore stands. While the bus is down, news
        may be missed as it happens: the session is read from the database. A session ended where no news
        is sent (its row deleted by hand) closes its sockets within ``session_recheck_seconds``.
        (A read for every action cost 45% of a core at 500 tables, and the actions' p99 went from 43 ms to
        640 ms: docs/performance.md.)"""
        if conn.session is None or self.bus.connected:
            return True
        async with self.session() as db:
            alive = await auth.session_alive(db, conn.session)
        if not alive:
            conn.kick(SESSION_OVER)
        return alive

    async def recheck_sessions(self) -> int:
        """Read every connected socket's session at once and close the sockets (and forget the tokens) of
        those that no longer stand; how many sessions ended so."""
        held = {c.session for conns in self.sockets.by_player.values() for c in conns if c.session}
        if not held:
            return 0
        async with self.session() as db:
            gone = held - await auth.sessions_alive(db, held)
        for token_hash in gone:
            self._end_session_here(token_hash)
        return len(gone)

    async def _recheck_sessions_forever(self) -> None:
        while True:
            await asyncio.sleep(max(0.1, self.settings.session_recheck_seconds))
            try:
                await self.recheck_sessions()
            except Exception:
                log.exception("session recheck failed")

    async def sweep_sessions(self) -> int:
        """Close the sockets of expired sessions and delete the expired rows; how many rows went."""
        now = utcnow()
        for conn in self.sockets.expired(now):
            conn.kick({"type": "error", "code": "session_expired",
                       "message": "your session has expired: sign in again"})
        async with self.session() as db, db.begin():
            return await auth.delete_expired_sessions(db)

    async def _sweep_sessions_forever(self) -> None:
        while True:
            try:
                await self.sweep_sessions()
            except Exception:
                log.exception("session sweep failed")
            await asyncio.sleep(max(0.1, self.settings.session_sweep_seconds))

    def stats(self) -> dict[str, Any]:
        return {"tables_in_memory": len(self.runtimes),
                "connections": sum(len(r.conns) for r in self.runtimes.values()), **self.store.stats(),
                **self.bus.stats(),
                **(self.ownership.stats() if self.ownership is not None else {}),
                "sockets": self.sockets.count(), "password_jobs": self.hashing.pending,
                "lobby_snapshots": self.lobby_snapshots, "password_jobs_evicted": self.hashing.evicted,
                **tuning.stats()}
