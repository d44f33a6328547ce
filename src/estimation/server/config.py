"""Server settings, read once from the environment so that tests and deployments differ only in variables.

Every knob has a default that makes `estimation serve` work with nothing else installed: a SQLite file in the
current directory, human-pace bots, generous limits.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///estimation.db"


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else int(raw)


def _float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else float(raw)


def _flag(name: str, default: bool) -> bool:
    """A yes/no setting: 1, true, yes, on (any case) or 0, false, no, off; unset or empty: ``default``."""
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{name}={raw!r}: say 1 or 0 (true/false, yes/no, on/off)")


@dataclass(frozen=True)
class Settings:
    """Everything the server needs to know that is not in the database."""

    database_url: str = DEFAULT_DATABASE_URL
    #: Lifetime of a session token; an expired token is refused like an unknown one.
    session_seconds: int = 7 * 24 * 3600
    #: Coins granted to a new account (a ledger row of kind ``grant``); guests get none and cannot stake.
    starting_grant: int = 1000
    #: Pause before a bot moves, so that humans can follow the table; 0 in tests.
    bot_delay: float = 0.6
    #: Processes the bots think in (server/bot_pool.py), started when a table with bots plays; 0: one fewer
    #: than the machine's cores, at least one (the event loop keeps a core).
    bot_workers: int = 0
    #: Largest WebSocket message the protocol accepts; larger ones get an error, the connection stays.
    max_message_bytes: int = 4096
    #: Hard cap at the WebSocket layer: above this the connection is closed (1009) before we read it.
    ws_max_size: int = 65536
    #: Token bucket per connection: sustained messages per second, and the burst allowed above it.
    rate_per_second: float = 20.0
    rate_burst: int = 40
    #: Token bucket per client (its session token, else its address) on the REST lobby under /api/:
    #: sustained requests per second and the burst above it; over it, 429. A rate of 0 turns it off.
    rest_rate_per_second: float = 20.0
    rest_rate_burst: int = 100
    #: Refusals after which an abusive connection is closed (policy violation, 1008).
    max_violations: int = 200
    #: An open table that has not filled in this many seconds is abandoned and its stakes refunded.
    open_table_seconds: int = 3600
    #: How many past versions a table keeps for reconnecting clients before they need a full snapshot.
    event_buffer: int = 256
    #: Frames, and bytes, queued for one slow connection before the server drops it (it can reconnect and
    #: resync); and seconds a socket may take nothing (a client that never reads) before it is dropped.
    send_queue: int = 1024
    # --- players together (issue 19) ---
    #: Chat per player, over all their tables and sockets: sustained messages per second and the burst.
    chat_rate_per_second: float = 0.5
    chat_burst: int = 5
    #: A quick-play table's wait for people: bots take the empty seats this long after the last person came.
    quickplay_wait_seconds: float = 20.0
    #: The bots that fill a quick-play table.
    quickplay_bot_level: str = "heuristic"
    #: The daily coin grant tops a wallet up to this, once per (UTC) day.
    daily_grant_to: int = 1000
    send_queue_bytes: int = 512 * 1024
    send_timeout: float = 20.0
    #: Table sockets one address, and one player, may hold open at once (0: no cap).
    sockets_per_address: int = 64
    sockets_per_player: int = 8
    #: Per address: new guests, new accounts and new tables, each a token bucket of this many a minute
    #: with bursts of ``create_burst`` (a rate of 0 turns them off); and the open (not yet started) tables
    #: one player may have created at once.
    create_per_minute: float = 6.0
    create_burst: int = 20
    open_tables_per_player: int = 3
    #: Per address: sign-in attempts a minute and their burst (0: no limit), so that one client guessing
    #: passwords cannot fill the hashing queue that everyone's sign-ins wait in.
    sign_ins_per_minute: float = 20.0
    sign_in_burst: int = 10
    #: Password hashing (argon2, deliberately slow) has threads of its own, and at most this many sign-ins
    #: waiting for them; more are refused with 429 at once, so a flood of logins queues nowhere else.
    hash_workers: int = 1
    hash_queue: int = 8
    #: Addresses of reverse proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (comma
    #: separated, "*" for any); none by default: the peer's own address is the client's.
    trusted_proxies: str = ""
    #: Seconds a client has to send a request's headers, then its body; the body's largest size; how long
    #: an idle keep-alive connection stays open.
    header_timeout: float = 10.0
    body_timeout: float = 10.0
    max_body_bytes: int = 64 * 1024
    keep_alive_seconds: int = 5
    #: How often expired sessions are deleted and their sockets closed.
    session_sweep_seconds: float = 60.0
    #: A leaderboard's whole ranking is kept this long and pages are served from it (0: every page is a
    #: query); an older one is still served while a new one is computed.
    leaderboard_cache_seconds: float = 60.0
    # --- several processes (issue 17) ---
    #: Redis for the bus (chat, lobby changes, presence, a player's notices) across processes and machines,
    #: e.g. redis://10.0.0.7:6379/0; empty: the bus stays inside this process (one process only).
    redis_url: str = ""
    #: Prefix of the bus's channels and keys in Redis, so that two deployments can share one Redis.
    redis_prefix: str = "estimation:"
    #: Prometheus metrics at http://HOST:PORT/metrics, a listener apart from the public port (0: off).
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    #: Cluster mode (issue 17, part 2; docs/deploy.md): this process is one of several workers behind a
    #: balancer, sharing one PostgreSQL database (and ``redis_url`` for the bus); each table is owned by one
    #: worker at a time (server/ownership.py). Refused on SQLite.
    cluster: bool = False
    #: A worker's lease on its tables, in seconds: its heartbeat renews it every third of this; a worker
    #: silent for longer loses its tables to the others (a dead worker's tables resume after about this).
    lease_seconds: float = 10.0
    #: ``estimation serve`` sets the collector's policy and the GIL's switch interval for its process
    #: (server/tuning.py; undone on stop). Off only to measure what they buy (docs/performance.md).
    process_tuning: bool = True

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        base = cls(
            database_url=os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            session_seconds=_int("ESTIMATION_SESSION_SECONDS", cls.session_seconds),
            starting_grant=_int("ESTIMATION_STARTING_GRANT", cls.starting_grant),
            bot_delay=_float("ESTIMATION_BOT_DELAY", cls.bot_delay),
            max_message_bytes=_int("ESTIMATION_MAX_MESSAGE_BYTES", cls.max_message_bytes),
            rate_per_second=_float("ESTIMATION_RATE_PER_SECOND", cls.rate_per_second),
            rate_burst=_int("ESTIMATION_RATE_BURST", cls.rate_burst),
            rest_rate_per_second=_float("ESTIMATION_REST_RATE_PER_SECOND", cls.rest_rate_per_second),
            rest_rate_burst=_int("ESTIMATION_REST_RATE_BURST", cls.rest_rate_burst),
            open_table_seconds=_int("ESTIMATION_OPEN_TABLE_SECONDS", cls.open_table_seconds),
            chat_rate_per_second=_float("ESTIMATION_CHAT_RATE_PER_SECOND", cls.chat_rate_per_second),
            chat_burst=_int("ESTIMATION_CHAT_BURST", cls.chat_burst),
            quickplay_wait_seconds=_float("ESTIMATION_QUICKPLAY_WAIT_SECONDS", cls.quickplay_wait_seconds),
            quickplay_bot_level=os.environ.get("ESTIMATION_QUICKPLAY_BOT_LEVEL") or cls.quickplay_bot_level,
            daily_grant_to=_int("ESTIMATION_DAILY_GRANT_TO", cls.daily_grant_to),
            send_queue_bytes=_int("ESTIMATION_SEND_QUEUE_BYTES", cls.send_queue_bytes),
            send_timeout=_float("ESTIMATION_SEND_TIMEOUT", cls.send_timeout),
            sockets_per_address=_int("ESTIMATION_SOCKETS_PER_ADDRESS", cls.sockets_per_address),
            sockets_per_player=_int("ESTIMATION_SOCKETS_PER_PLAYER", cls.sockets_per_player),
            create_per_minute=_float("ESTIMATION_CREATE_PER_MINUTE", cls.create_per_minute),
            create_burst=_int("ESTIMATION_CREATE_BURST", cls.create_burst),
            open_tables_per_player=_int("ESTIMATION_OPEN_TABLES_PER_PLAYER", cls.open_tables_per_player),
            sign_ins_per_minute=_float("ESTIMATION_SIGN_INS_PER_MINUTE", cls.sign_ins_per_minute),
            sign_in_burst=_int("ESTIMATION_SIGN_IN_BURST", cls.sign_in_burst),
            hash_workers=_int("ESTIMATION_HASH_WORKERS", cls.hash_workers),
            hash_queue=_int("ESTIMATION_HASH_QUEUE", cls.hash_queue),
            bot_workers=_int("ESTIMATION_BOT_WORKERS", cls.bot_workers),
            trusted_proxies=os.environ.get("ESTIMATION_TRUSTED_PROXIES", cls.trusted_proxies),
            header_timeout=_float("ESTIMATION_HEADER_TIMEOUT", cls.header_timeout),
            body_timeout=_float("ESTIMATION_BODY_TIMEOUT", cls.body_timeout),
            max_body_bytes=_int("ESTIMATION_MAX_BODY_BYTES", cls.max_body_bytes),
            keep_alive_seconds=_int("ESTIMATION_KEEP_ALIVE_SECONDS", cls.keep_alive_seconds),
            session_sweep_seconds=_float("ESTIMATION_SESSION_SWEEP_SECONDS", cls.session_sweep_seconds),
            leaderboard_cache_seconds=_float("ESTIMATION_LEADERBOARD_CACHE_SECONDS",
                                             cls.leaderboard_cache_seconds),
            redis_url=os.environ.get("ESTIMATION_REDIS_URL", cls.redis_url),
            redis_prefix=os.environ.get("ESTIMATION_REDIS_PREFIX") or cls.redis_prefix,
            metrics_host=os.environ.get("ESTIMATION_METRICS_HOST") or cls.metrics_host,
            metrics_port=_int("ESTIMATION_METRICS_PORT", cls.metrics_port),
            cluster=_flag("ESTIMATION_CLUSTER", cls.cluster),
            lease_seconds=_float("ESTIMATION_LEASE_SECONDS", cls.lease_seconds),
            process_tuning=_flag("ESTIMATION_PROCESS_TUNING", cls.process_tuning),
        )
        return replace(base, **overrides)  # type: ignore[arg-type]
