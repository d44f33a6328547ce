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
    #: Frames queued for one slow connection before the server drops it (it can reconnect and resync).
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
    #: A leaderboard's whole ranking is kept this long and pages are served from it (0: every page is a
    #: query); an older one is still served while a new one is computed.
    leaderboard_cache_seconds: float = 60.0

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
            leaderboard_cache_seconds=_float("ESTIMATION_LEADERBOARD_CACHE_SECONDS",
                                             cls.leaderboard_cache_seconds),
        )
        return replace(base, **overrides)  # type: ignore[arg-type]
