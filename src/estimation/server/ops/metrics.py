"""A worker's figures as Prometheus metrics, on a port of their own that the deployment keeps private.

Each server has its own :class:`Metrics` (its own ``CollectorRegistry``, never the library's global one:
the tests run several servers in one process). Measured where they happen:

- ``estimation_actions_total``: game actions committed (players', bots' and the clock's);
- ``estimation_commit_seconds{path}``: a table change's commit, from the store's call to durable
  (``journal``: a plain action through the group commit; ``transaction``: any other change), and
  ``estimation_commit_failures_total{reason}`` (``stale``: the table moved on elsewhere; ``error``);
- ``estimation_bus_lag_seconds``: a bus message's publish to its delivery here (Redis bus only: the
  in-memory bus delivers at once; between machines it includes their clocks' difference);
- ``estimation_ownership_changes_total{change}``: tables this worker ``claimed``, ``released`` (handed over
  or evicted) or ``lost`` (a write refused by the fence, or every table held when its lease lapsed), and
  ``estimation_fenced_writes_total``: writes the fence refused; ``estimation_claims_refused_total``: claims
  of a table another live worker owns (cluster mode, :mod:`.ownership`; see docs/deploy.md). The worker's
  id in the cluster and how many tables it owns are the gauges ``estimation_cluster_worker`` and
  ``estimation_cluster_tables_owned`` (figures of the hub's ``stats()``, below).

- ``estimation_http_responses_total{code}``: HTTP answers by status class (``2xx`` .. ``5xx``), counted by
  :class:`~.observe.RequestContext`;
- ``estimation_event_loop_lag_seconds``: how late a timer fired on the event loop (:class:`~.observe.LoopLag`,
  twice a second while the metrics listener runs).

Read when scraped (:class:`_Figures`): ``estimation_tables{status}`` (tables in memory by status), and every
number of the hub's ``stats()`` as ``estimation_<name>``: ``sockets``, ``connections``, the journal's
batches, rows and write time, the bus's counters (published, delivered, dropped, resyncs, gaps, connected),
the collector's; counters get Prometheus's ``_total``, and a ``*_ms`` figure is given in seconds
(``*_seconds``). The process's own (CPU, memory, open files) come from prometheus-client's
``ProcessCollector``.

**The route.** :class:`MetricsServer` answers ``GET /metrics`` on ``ESTIMATION_METRICS_HOST`` (default
127.0.0.1) and ``ESTIMATION_METRICS_PORT`` (default 0: off), a listener apart from the public port: the
reverse proxy never routes to it, and a Prometheus on another machine reaches it on a private address. It
runs on the server's event loop, so a scrape reads the tables and sockets between two of their changes,
never during one. ``/api/health`` on the public port says only that the process is alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, ProcessCollector
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from ..table.reducer import Events, Status, TableState
from ..table.store import (
    Change,
    Ids,
    Rematched,
    Rows,
    SeatsOf,
    Slot,
    StaleVersion,
    StoredTable,
    TableRow,
    TableStore,
    Waiting,
)
from .observe import LoopLag

log = logging.getLogger("estimation.server")

#: The hub's figures that only ever grow (exported as counters); every other number is a gauge.
COUNTERS = frozenset({
    "journal_batches", "journal_rows", "journal_write_seconds", "journal_slow_batches", "journal_busy",
    "journal_checkpoints", "journal_wal_settlings", "writer_turns", "writer_wait_seconds",
    "writer_slow_turns", "writer_slow_waits",
    "gc_reclaims", "gc_reclaim_seconds", "bus_published", "bus_delivered", "bus_sent", "bus_dropped",
    "bus_resyncs", "bus_gaps", "bus_markers_sent", "bus_markers_received", "bus_connects",
    "bus_disconnects"})
#: The ownership changes the cluster counts (each label exists from the start, at 0).
OWNERSHIP_CHANGES = ("claimed", "released", "lost")
COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)


class _HasStatus(Protocol):
    @property
    def status(self) -> str: ...


class Watched(Protocol):
    """What the metrics read of the hub when scraped."""

    @property
    def runtimes(self) -> Mapping[int, _HasStatus]: ...

    def stats(self) -> Mapping[str, object]: ...


class _Figures:
    """The hub's tables and ``stats()`` read at each scrape."""

    def __init__(self, hub: Watched) -> None:
        self.hub = hub

    def describe(self) -> Iterable[Metric]:
        return ()  # read at scrape time only: never while the hub is being built

    def collect(self) -> Iterable[Metric]:
        tables = GaugeMetricFamily("estimation_tables", "Tables in this worker's memory, by status",
                                   labels=["status"])
        counts: dict[str, int] = dict.fromkeys(("open", "playing", "finished", "abandoned"), 0)
        for runtime in list(self.hub.runtimes.values()):
            counts[runtime.status] = counts.get(runtime.status, 0) + 1
        for status, count in sorted(counts.items()):
            tables.add_metric([status], count)
        yield tables
        for key, value in sorted(self.hub.stats().items()):
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if key in COUNTERS:
                yield CounterMetricFamily(f"estimation_{key}", f"{key} (the hub's figure)", value=value)
            elif key.endswith("_ms"):
                yield GaugeMetricFamily(f"estimation_{key[:-3]}_seconds", f"{key} (the hub's figure), in s",
                                        value=value / 1000)
            else:
                yield GaugeMetricFamily(f"estimation_{key}", f"{key} (the hub's figure)", value=value)


class Metrics:
    """One server's registry and instruments."""

    def __init__(self, hub: Watched) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter("estimation_actions", "Game actions committed", registry=r)
        self.commit_seconds = Histogram("estimation_commit_seconds",
                                        "A table change's commit, call to durable", ["path"],
                                        buckets=COMMIT_BUCKETS, registry=r)
        self.commit_failures = Counter("estimation_commit_failures", "Table changes whose commit failed",
                                       ["reason"], registry=r)
        self.bus_lag = Histogram("estimation_bus_lag_seconds", "A bus message's publish to its delivery here",
                                 buckets=LAG_BUCKETS, registry=r)
        self.ownership_changes = Counter("estimation_ownership_changes",
                                         "Tables this worker claimed, released or lost", ["change"],
                                         registry=r)
        self.fenced_writes = Counter("estimation_fenced_writes",
                                     "Table writes refused by the ownership fence (cluster mode)", registry=r)
        self.claims_refused = Counter("estimation_claims_refused",
                                      "Claims of a table another live worker owns (cluster mode)", registry=r)
        self.http_responses = Counter("estimation_http_responses", "HTTP answers by status class", ["code"],
                                      registry=r)
        self.loop_lag = Histogram("estimation_event_loop_lag_seconds", "How late a timer fired on the loop",
                                  buckets=LAG_BUCKETS, registry=r)
        for code in ("2xx", "3xx", "4xx", "5xx"):
            self.http_responses.labels(code)
        for path in ("journal", "transaction"):
            self.commit_seconds.labels(path)
        for reason in ("stale", "error"):
            self.commit_failures.labels(reason)
        for change in OWNERSHIP_CHANGES:
            self.ownership_changes.labels(change)
        ProcessCollector(registry=r)
        r.register(_Figures(hub))

    def ownership_changed(self, change: str, count: int = 1) -> None:
        """Cluster mode: ``count`` tables were ``claimed``, ``released`` or ``lost`` (or a claim was
        ``refused``), as :class:`~.ownership.Ownership` reports them."""
        if change == "refused":
            self.claims_refused.inc(count)
        elif count:
            self.ownership_changes.labels(change).inc(count)

    def answered(self, status: int) -> None:
        """One HTTP answer of this status (counted by class: ``5xx`` is what the alerts watch)."""
        self.http_responses.labels(f"{min(max(status // 100, 1), 5)}xx").inc()

    def text(self) -> bytes:
        """The Prometheus text exposition of everything above."""
        return generate_latest(self.registry)


class MeteredStore:
    """A :class:`~.store.TableStore` whose commits are timed and counted."""

    def __init__(self, store: TableStore, metrics: Metrics) -> None:
        self.store = store
        self.metrics = metrics

    async def commit(self, change: Change) -> None:
        started = time.perf_counter()
        plain = change.plain
        try:
            await self.store.commit(change)
        except StaleVersion:
            self.metrics.commit_failures.labels("stale").inc()
            raise
        except Exception:
            self.metrics.commit_failures.labels("error").inc()
            raise
        self.metrics.commit_seconds.labels("journal" if plain else "transaction").observe(
            time.perf_counter() - started)
        if change.action is not None:
            self.metrics.actions.inc()

    # The rest is the store's own, unmetered.
    async def start(self) -> None:
        await self.store.start()

    async def stop(self) -> None:
        await self.store.stop()

    def stats(self) -> dict[str, Any]:
        return self.store.stats()

    def writing(self) -> AbstractAsyncContextManager[None]:
        return self.store.writing()

    async def create(self, table: TableState, events: Events, open_cap: int = 0,
                     slot: Slot | None = None, then: Change | None = None) -> int:
        return await self.store.create(table, events, open_cap, slot, then)

    async def load(self, table_id: int, recent: int) -> StoredTable | None:
        return await self.store.load(table_id, recent)

    async def list(self, status: Status, created_before: dt.datetime | None = None) -> Ids:
        return await self.store.list(status, created_before)

    async def row(self, table_id: int) -> TableRow | None:
        return await self.store.row(table_id)

    async def listing(self, status: Status, limit: int, offset: int = 0) -> Rows:
        return await self.store.listing(status, limit, offset)

    async def paid_splits(self, table_ids: Ids) -> dict[int, dict[str, int]]:
        return await self.store.paid_splits(table_ids)

    async def live_table(self, account_id: int) -> int | None:
        return await self.store.live_table(account_id)

    async def seats_of(self, account_id: int) -> SeatsOf:
        return await self.store.seats_of(account_id)

    async def quick_tables(self, ruleset: str, length: str, limit: int) -> Ids:
        return await self.store.quick_tables(ruleset, length, limit)

    async def waiting_bots(self) -> Waiting:
        return await self.store.waiting_bots()

    async def rematch_of(self, table_id: int, made_after: dt.datetime) -> Rematched | None:
        return await self.store.rematch_of(table_id, made_after)

    async def anonymise(self, account_id: int, name: str) -> Ids:
        return await self.store.anonymise(account_id, name)


#: Seconds a scraper has to send its request, and the largest request head read.
REQUEST_SECONDS = 5.0
REQUEST_BYTES = 8192


class MetricsServer:
    """``GET /metrics`` on a listener of its own (HTTP/1.1, one request per connection)."""

    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self.lag = LoopLag(metrics.loop_lag.observe)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, self.port, limit=REQUEST_BYTES)
        self.lag.start()
        self.port = int(self._server.sockets[0].getsockname()[1])  # the one the OS chose, for port 0
        log.info("metrics on http://%s:%d/metrics", self.host, self.port)

    async def stop(self) -> None:
        await self.lag.stop()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(REQUEST_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
            words = head.split(b"\r\n", 1)[0].split()
            method = words[0] if words else b""
            path = words[1].split(b"?", 1)[0] if len(words) > 1 else b""
            if method not in (b"GET", b"HEAD"):
                status, kind, body = b"405 Method Not Allowed", b"text/plain", b"GET /metrics\n"
            elif path == b"/metrics":
                status, kind, body = b"200 OK", CONTENT_TYPE_LATEST.encode(), self.metrics.text()
            else:
                status, kind, body = b"404 Not Found", b"text/plain", b"GET /metrics\n"
            writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: " + kind + b"\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
                         + (body if method != b"HEAD" else b""))
            async with asyncio.timeout(REQUEST_SECONDS):
                await writer.drain()
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except Exception:
            log.exception("metrics: a scrape failed")
        finally:
            writer.close()
