"""Server settings, read once from the environment so that tests and deployments differ only in variables.

Every knob has a default that makes `estimation serve` work with nothing else installed: a SQLite file in the
current directory, human-pace bots, generous limits. pydantic-settings maps each field to its variable.
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import AliasChoices, Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///estimation.db"


class Settings(BaseSettings):
    """Everything the server needs to know that is not in the database.

    Every field is read from the environment variable ``ESTIMATION_`` + its name in capitals
    (``bot_delay``: ``ESTIMATION_BOT_DELAY``), the database's from ``DATABASE_URL``; an unset or empty
    variable keeps the default, and a value that does not parse is refused with the variable's name. Keyword
    arguments win over the environment (what the command line's options and the tests use).
    """

    model_config = SettingsConfigDict(env_prefix="ESTIMATION_", env_ignore_empty=True, frozen=True,
                                      extra="forbid", populate_by_name=True)

    database_url: str = Field(DEFAULT_DATABASE_URL,
                              validation_alias=AliasChoices("DATABASE_URL", "ESTIMATION_DATABASE_URL"))
    #: Lifetime of a session token; an expired token is refused like an unknown one.
    session_seconds: int = 7 * 24 * 3600
    #: Coins granted to a new account (a ledger row of kind ``grant``); guests get none and cannot stake.
    starting_grant: int = 1000
    #: Pause before a bot moves, so that humans can follow the table; 0 in tests.
    bot_delay: float = 0.6
    #: The shortest turn clock a table may have, in seconds (0 is no clock): a shorter one lets a bot play
    #: for a person before they have seen their turn.
    min_turn_seconds: int = 10
    #: After a round is scored every page shows its breakdown over the table: a person's turn clock waits
    #: this long (at most) before it runs, so that nobody reading the scores is marked away.
    round_end_seconds: float = 20.0
    #: Processes the bots think in (server/table/bot_pool.py), started when a table with bots plays; 0: one
    #: fewer than the machine's cores, at least one (the event loop keeps a core).
    bot_workers: int = 0
    #: The bots' processes' niceness (0: the loop's own priority). With a bot process on every core, a
    #: positive niceness lets them use the loop's spare time without taking its core when the tables need
    #: it (docs/performance.md, practice tables per core). Below ``auth.HASH_NICENESS`` (10) keeps
    #: sign-ins behind the bots.
    bot_niceness: int = 0
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
    # --- players together ---
    #: Chat per player, over all their tables and sockets: sustained messages per second and the burst.
    chat_rate_per_second: float = 0.5
    chat_burst: int = 5
    #: Chat per address, over all the players it signs in (0: no limit); and a table's spectators' channel
    #: as a whole, so that many guests cannot flood a stranger's table (in Redis when ``redis_url`` is set).
    chat_address_per_second: float = 1.0
    chat_address_burst: int = 10
    spectator_chat_per_second: float = 1.0
    spectator_chat_burst: int = 5
    #: A quick-play table's wait for people: bots take the empty seats this long after the last person came.
    quickplay_wait_seconds: float = 20.0
    #: A rematch keeps each old player's seat for them this long (seconds from the rematch's making) until
    #: they answer: nobody else may take it meanwhile, even with the invite code. A decline frees it.
    rematch_hold_seconds: float = 300.0
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
    #: Per account: wrong passwords in ``wrong_password_window_seconds`` after which its sign-ins are
    #: refused (429) until the window ends, from any address (0: no limit). Wrong passwords also put an
    #: address's and an account's next sign-ins behind everyone else's in the hashing queue.
    account_wrong_passwords: int = 10
    wrong_password_window_seconds: float = 300.0
    #: Per address: new sockets (table and lobby) a minute and their burst (0: no limit). Like sign-ups,
    #: sign-ins and new tables, counted in Redis when ``redis_url`` is set (shared by every worker).
    socket_connects_per_minute: float = 120.0
    socket_connect_burst: int = 40
    #: Per address, over every session token it uses: REST requests a second and their burst (0: no limit),
    #: so that minting guests does not multiply the per-client limit (``rest_rate_per_second``).
    rest_address_rate_per_second: float = 60.0
    rest_address_burst: int = 300
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
    #: Seconds between two reads of every connected socket's session at once (server/hub.py,
    #: ``recheck_sessions``): a session ended where no news is sent (its row deleted by hand) closes its
    #: sockets within this. News of a sign-out (the bus) closes them at once.
    session_recheck_seconds: float = 5.0
    #: Pruning (server/storage/pruning.py): how often it runs (0: never); how long a finished table's
    #: journal is kept after its record became final; chat lines' age before they go (a line with a report
    #: not yet handled stays); how long a dead cluster worker's row is kept.
    prune_seconds: float = 3600.0
    journal_keep_seconds: float = 3600.0
    chat_keep_days: float = 90.0
    worker_rows_keep_seconds: float = 86400.0
    #: A leaderboard's whole ranking is kept this long and pages are served from it (0: every page is a
    #: query); an older one is still served while a new one is computed.
    leaderboard_cache_seconds: float = 60.0
    #: The server's own log lines: ``text`` (time, level, logger, message) or ``json`` (one object a line,
    #: with the request's and the table's ids: server/ops/observe.py).
    log_format: Literal["text", "json"] = "text"
    # --- several processes ---
    #: Redis for the bus (chat, lobby changes, presence, a player's notices) across processes and machines,
    #: e.g. redis://10.0.0.7:6379/0; empty: the bus stays inside this process (one process only).
    redis_url: str = ""
    #: Prefix of the bus's channels and keys in Redis, so that two deployments can share one Redis.
    redis_prefix: str = "estimation:"
    #: Prometheus metrics at http://HOST:PORT/metrics, a listener apart from the public port (0: off).
    metrics_host: str = "127.0.0.1"
    metrics_port: int = 0
    #: Cluster mode (docs/deploy.md): this process is one of several workers behind a
    #: balancer, sharing one PostgreSQL database (and ``redis_url`` for the bus); each table is owned by one
    #: worker at a time (server/cluster/ownership.py). Refused on SQLite.
    cluster: bool = False
    #: A worker's lease on its tables, in seconds: its heartbeat renews it every third of this; a worker
    #: silent for longer loses its tables to the others (a dead worker's tables resume after about this).
    lease_seconds: float = 10.0
    #: Failpoints (comma-separated names, server/ops/failpoints.py): the process dies at once, as in a
    #: crash, when it reaches one. For the tests of what a crash at that moment leaves; never set in service.
    failpoints: str = ""
    #: ``estimation serve`` sets the collector's policy and the GIL's switch interval for its process
    #: (server/ops/tuning.py; undone on stop). Off only to measure what they buy (docs/performance.md).
    process_tuning: bool = True

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """The settings of this environment, with ``overrides`` on top; a variable that does not parse is a
        ``ValueError`` naming it and its value (one line, for the command line to show)."""
        try:
            return cls(**overrides)  # type: ignore[arg-type]  # checked here, field by field
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "?"
            database = field in ("database_url", "DATABASE_URL")
            name = "DATABASE_URL" if database else f"ESTIMATION_{field.upper()}"
            raw = os.environ.get(name, first.get("input"))
            raise ValueError(f"{name}={raw!r}: {first['msg']}") from None
