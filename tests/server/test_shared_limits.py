"""Issue 25, B13 (and B4's connect limit): the limits that matter hold per address, not per session token,
and across a cluster's workers (in Redis), not per worker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
import websockets
from server_helpers import RedisProcess, ServerProcess


@pytest.fixture(scope="module")
def one_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The default per-client REST limit (20 a second, bursts of 100); an address, over all its sessions,
    5 a second, bursts of 50."""
    path = tmp_path_factory.mktemp("address") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="address", env={
        "ESTIMATION_REST_ADDRESS_RATE_PER_SECOND": "5", "ESTIMATION_REST_ADDRESS_BURST": "50"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_guest_tokens_do_not_multiply_an_addresss_rest_budget(one_address: ServerProcess) -> None:
    """Twenty guests from one address, ten requests each: the address's budget is spent, whatever tokens
    it carries (each guest had a burst of 100 of its own: 6,000 requests in 32 s went through)."""
    with httpx.Client(base_url=one_address.base, timeout=30.0) as http:
        tokens = [http.post("/api/guests", json={"name": f"Many {i}"}).json()["token"] for i in range(20)]
        codes = [http.get("/api/me", headers={"Authorization": f"Bearer {t}"}).status_code
                 for _ in range(10) for t in tokens]
    assert codes.count(429) >= 100, codes.count(429)
    assert codes.count(200) >= 50


@pytest.fixture(scope="module")
def two_workers(database_url_factory, redis_server: RedisProcess) -> Iterator[list[ServerProcess]]:  # type: ignore[no-untyped-def]
    """Two cluster workers on one PostgreSQL database and one Redis, with small per-address limits."""
    url = database_url_factory("postgresql")
    env = {"ESTIMATION_CLUSTER": "1", "ESTIMATION_REDIS_URL": redis_server.url,
           "ESTIMATION_REDIS_PREFIX": "limits-test:", "ESTIMATION_LEASE_SECONDS": "5",
           "ESTIMATION_CREATE_PER_MINUTE": "1", "ESTIMATION_CREATE_BURST": "6",
           "ESTIMATION_SIGN_INS_PER_MINUTE": "1", "ESTIMATION_SIGN_IN_BURST": "4",
           "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "1", "ESTIMATION_SOCKET_CONNECT_BURST": "4"}
    workers = [ServerProcess(url, name=f"limits-{i}", env=env) for i in range(2)]
    try:
        for w in workers:
            w.start()
        yield workers
    finally:
        for w in workers:
            w.stop()


def test_the_limits_per_address_hold_across_workers(two_workers: list[ServerProcess]) -> None:
    """Sign-ups, sign-in attempts and new sockets from one address, half to each worker: the address's one
    budget, not one per worker (each worker counted its own: twice the limit went through)."""
    a, b = two_workers
    made = [httpx.post((a, b)[i % 2].base + "/api/guests", json={"name": f"Split {i}"}, timeout=30)
            for i in range(12)]
    assert [r.status_code for r in made].count(201) == 6, [r.status_code for r in made]
    assert {r.json()["code"] for r in made if r.status_code != 201} == {"rate_limited"}
    wrong = {"name": "Nobody", "password": "wrong password"}
    attempts = [httpx.post((a, b)[i % 2].base + "/api/sessions", json=wrong, timeout=30).status_code
                for i in range(8)]
    assert attempts.count(401) == 4 and attempts.count(429) == 4, attempts

    async def connects() -> list[str]:
        firsts = []
        for i in range(8):
            async with websockets.connect(f"{(a, b)[i % 2].ws_base}/ws/lobby", open_timeout=10) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                firsts.append(first["type"] if first["type"] != "error" else first["code"])
        return firsts

    firsts = asyncio.run(connects())
    assert firsts.count("lobby") == 4 and firsts.count("rate_limited") == 4, firsts
