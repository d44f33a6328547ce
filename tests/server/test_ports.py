"""Children started on a port found free which another process took before they bound it: PostgreSQL,
Redis, a cluster's workers and its balancer start on other ports instead of failing (server/cluster/ports.py).

CI failed a test at set-up on this once; every starter of a child (the tests' helpers, the throwaway
PostgreSQL, ``LocalCluster``) shares the same answer."""

from __future__ import annotations

import contextlib
import itertools
import socket
from collections.abc import Iterator

import httpx
import pytest

from estimation.server.cluster import launcher
from estimation.server.cluster.launcher import HAPROXY_HELP, LocalCluster, find_haproxy
from estimation.server.cluster.pgcluster import ThrowawayCluster, create_database
from estimation.server.cluster.ports import said_port_taken


@contextlib.contextmanager
def squatted(count: int) -> Iterator[list[int]]:
    """``count`` ports of 127.0.0.1 held by listening sockets of this process for the block's length."""
    with contextlib.ExitStack() as stack:
        ports = []
        for _ in range(count):
            s = stack.enter_context(socket.socket())
            s.bind(("127.0.0.1", 0))
            s.listen()
            ports.append(int(s.getsockname()[1]))
        yield ports


def test_the_words_of_each_child_whose_port_was_taken_are_recognised() -> None:
    """uvicorn's, redis-server's, PostgreSQL's and HAProxy's lines when the bind fails."""
    for said in ("ERROR:    [Errno 98] error while attempting to bind on address ('127.0.0.1', 5): "
                 "address already in use",
                 "# Warning: Could not create server TCP listening socket 127.0.0.1:5: bind: Address already "
                 "in use",
                 'LOG:  could not bind IPv4 address "127.0.0.1": Address already in use',
                 "[ALERT] Binding [haproxy.cfg:12] for frontend web: cannot bind socket (Address already in "
                 "use) for [127.0.0.1:5]"):
        assert said_port_taken(said)
    assert not said_port_taken("FATAL:  password authentication failed")


def test_a_throwaway_postgresql_whose_port_was_taken_starts_on_another() -> None:
    pg = ThrowawayCluster(durable=False)
    try:
        with squatted(1) as (taken,):
            pg.port = taken
            url = pg.start()
        assert pg.port != taken and f":{pg.port}" in url
        create_database(url)  # it answers
    finally:
        pg.stop()


def test_a_cluster_whose_balancer_redis_and_worker_ports_were_taken_starts_on_others(
        postgres_base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The launcher asks for ports in this order: Redis's, then the worker's and its metrics', then the
    balancer's. The first one each child is given is taken; each is started again on a new one (the worker
    with two new ones) and the cluster serves."""
    if find_haproxy() is None:
        pytest.fail(HAPROXY_HELP + ": run `bash scripts/test.sh` as root")
    real = launcher.free_port
    calls = itertools.count(1)
    with squatted(3) as taken:
        # Calls 1 (Redis), 3 (the worker) and 7 (the balancer) get a taken port; 2, 4-6 and 8 real ones.
        squat = dict(zip((1, 3, 7), taken, strict=True))
        monkeypatch.setattr(launcher, "free_port", lambda: squat.pop(next(calls), None) or real())
        cluster = LocalCluster(workers=1, database_url=create_database(postgres_base), redis="start",
                               check_ms=250)
        try:
            cluster.start()
            assert not squat, "the launcher did not ask for the ports in the order the test assumes"
            (worker,) = cluster.running
            redis_port = int(cluster.env["ESTIMATION_REDIS_URL"].rsplit(":", 1)[1].split("/")[0])
            assert not {cluster.port, worker.port, worker.metrics_port, redis_port} & set(taken)
            assert httpx.get(cluster.url + "/api/health", timeout=10).status_code == 200
            for log in ("w1.log", "redis.log", "haproxy.log"):  # each child did meet its squatter
                assert said_port_taken((cluster.workdir / log).read_text()), log
        finally:
            cluster.stop()
