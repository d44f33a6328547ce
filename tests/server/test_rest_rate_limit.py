"""The REST lobby's per-client rate limit: 429 with a message once a client's burst is spent, per client."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import ServerProcess

from estimation.server.access.auth import hash_token
from estimation.server.access.ratelimit import RestRateLimit, VerifiedTokens
from estimation.server.storage.models import utcnow


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A server whose lobby allows each client a burst of 3 requests, then one every 10 s."""
    path: Path = tmp_path_factory.mktemp("ratelimit") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="ratelimit", env={
        "ESTIMATION_REST_RATE_PER_SECOND": "0.1", "ESTIMATION_REST_RATE_BURST": "3"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_a_client_over_its_burst_gets_429_with_a_message(limited: ServerProcess) -> None:
    with httpx.Client(base_url=limited.base) as http:
        tokens = [http.post("/api/guests", json={"name": f"Rate {i}"}) for i in range(3)]
        assert [r.status_code for r in tokens] == [201, 201, 201]
        refused = http.post("/api/guests", json={"name": "Rate 4"})
        assert refused.status_code == 429
        body = refused.json()
        assert body["code"] == "rate_limited"
        assert "too many requests" in body["detail"] and "3" in body["detail"]
        assert int(refused.headers["retry-after"]) >= 1
        # Health checks are never limited (monitors poll them).
        assert all(http.get("/api/health").status_code == 200 for _ in range(5))
        # A client with a token has a budget of its own, not its address's (spent above).
        token = tokens[0].json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        got = [http.get("/api/tables", headers=auth).status_code for _ in range(4)]
        assert got == [200, 200, 200, 429]
        # Another token: another client.
        other = {"Authorization": f"Bearer {tokens[1].json()['token']}"}
        assert http.get("/api/tables", headers=other).status_code == 200


def test_the_openapi_schema_documents_429(limited: ServerProcess) -> None:
    schema = httpx.get(limited.base + "/openapi.json").json()
    assert "429" in schema["paths"]["/api/tables"]["get"]["responses"]


def test_buckets_are_bounded_and_keyed_by_verified_player_else_address() -> None:
    async def app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("not called")

    verified = VerifiedTokens()
    limit = RestRateLimit(app, rate=1.0, burst=1, verified=verified, max_clients=2)  # type: ignore[arg-type]
    scope = {"headers": [(b"authorization", b"Bearer abc")], "client": ("1.2.3.4", 1)}
    assert limit.client_key(scope) == "addr:1.2.3.4"  # a token nobody verified buys nothing
    verified.note(hash_token("abc"), 7, utcnow() + dt.timedelta(hours=1))
    assert limit.client_key(scope) == "player:7"
    verified.note(hash_token("abc"), 7, utcnow() - dt.timedelta(seconds=1))
    assert limit.client_key(scope) == "addr:1.2.3.4"  # expired
    assert limit.client_key({"headers": [], "client": ("1.2.3.4", 1)}) == "addr:1.2.3.4"
    for key in ("a", "b", "c"):
        assert limit.allow(key)
    assert list(limit.buckets) == ["b", "c"]  # the least recently seen was forgotten
    assert not limit.allow("c")
