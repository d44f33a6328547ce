"""Which :class:`~.bus.Bus` a server uses, from its settings: its own in-process bus, or Redis.

Apart from :mod:`.bus` so that the protocol's module never imports an implementation (``bus_redis`` imports
``bus``), and so that redis-py is imported only by a server configured to use it.
"""

from __future__ import annotations

from collections.abc import Callable

from .bus import Bus, InMemoryBus


def open_bus(redis_url: str, *, prefix: str = "estimation:",
             on_lag: Callable[[float], None] | None = None) -> Bus:
    """The bus the settings ask for: Redis at ``redis_url`` (``redis://``, ``rediss://`` or ``unix://``; in a
    cluster, the workers' shared lobby, chat, presence and notices), else (empty) this process's own."""
    if not redis_url:
        return InMemoryBus()
    if not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ValueError(f"unknown bus URL {redis_url!r} (ESTIMATION_REDIS_URL): '' (in-process) or "
                         "redis://host:port/db")
    from .bus_redis import RedisBus  # redis-py is imported only by a server that uses it

    return RedisBus(redis_url, prefix=prefix, on_lag=on_lag)
