"""A worker's Prometheus metrics: on their own port, never the public one; the named figures there; the
counters moving as a game is played; one registry per server (several servers in one process)."""

from __future__ import annotations

import asyncio
import random
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_helpers import Api, Player, ServerProcess, parse_metrics, run

from estimation.server import Settings, create_app
from estimation.server.ops.metrics import MetricsServer

NAMED = ("estimation_tables", "estimation_sockets", "estimation_connections", "estimation_actions_total",
         "estimation_commit_seconds", "estimation_commit_failures_total", "estimation_journal_batches_total",
         "estimation_journal_rows_total", "estimation_journal_write_seconds_total",
         "estimation_bus_published_total", "estimation_bus_lag_seconds", "estimation_ownership_changes_total",
         "process_cpu_seconds_total")


@pytest.fixture(scope="module")
def metered(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path: Path = tmp_path_factory.mktemp("metrics") / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name="metrics")
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_metrics_are_served_apart_and_health_is_liveness_only(metered: ServerProcess) -> None:
    response = httpx.get(metered.metrics_url)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    text = response.text
    for name in NAMED:
        assert f"# TYPE {name} " in text, name
    figures = parse_metrics(text)
    for change in ("claimed", "released", "lost"):
        assert figures[f'estimation_ownership_changes_total{{change="{change}"}}'] == 0
    assert figures["estimation_bus_connected"] == 1  # the in-memory bus has none: it is always there
    # The public port: liveness only, and no metrics.
    assert httpx.get(metered.base + "/api/health").json() == {"ok": True}
    assert "estimation_actions_total" not in httpx.get(metered.base + "/metrics").text
    # The metrics port: /metrics only, GET (or HEAD) only.
    base = f"http://127.0.0.1:{metered.metrics_port}"
    assert httpx.get(base + "/").status_code == 404
    assert httpx.post(base + "/metrics").status_code == 405
    head = httpx.head(base + "/metrics")
    assert head.status_code == 200 and head.content == b""
    # A scraper that sends half a request holds up nobody else's scrape.
    with socket.create_connection(("127.0.0.1", metered.metrics_port)) as idle:
        idle.sendall(b"GET /metr")
        assert httpx.get(metered.metrics_url).status_code == 200


def test_the_counters_move_as_a_game_is_played(metered: ServerProcess) -> None:
    before = metered.figures()
    api = Api.guest(metered)
    table = api.create_table(ruleset="koutchina", length="micro", bot_seats=[0, 2, 3], bot_level="random")
    tid = table["id"]
    assert api.join(tid)["seat"] == 1

    async def main() -> int:
        p = Player(metered, tid, api.token)
        await p.connect()
        playing = metered.figures()
        assert playing["estimation_sockets"] == 1 and playing["estimation_connections"] == 1
        assert playing['estimation_tables{status="playing"}'] >= 1
        await p.play_to_end(random.Random(3), timeout=240)
        await p.close()
        return sum(1 for m in p.messages if m["type"] == "update"
                   for e in m["events"] if e["kind"] == "action")

    actions = run(main())
    after = metered.figures()
    assert after["estimation_actions_total"] - before["estimation_actions_total"] >= actions > 0
    journal = 'estimation_commit_seconds_count{path="journal"}'
    transaction = 'estimation_commit_seconds_count{path="transaction"}'
    assert after[journal] - before[journal] > 0  # the plain actions, through the group commit
    assert after[transaction] - before[transaction] >= 2  # the join, the start, the game's end
    assert after["estimation_journal_rows_total"] > before["estimation_journal_rows_total"]
    assert after["estimation_bus_published_total"] > before["estimation_bus_published_total"]
    assert after['estimation_tables{status="finished"}'] >= 1


def test_each_server_has_a_registry_of_its_own(tmp_path: Path) -> None:
    """Two apps in one process: each its own figures, no clash in a shared registry."""
    apps = [create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / f'{n}.db'}")) for n in (1, 2)]
    first, second = (app.state.hub for app in apps)
    first.metrics.actions.inc(3)
    assert parse_metrics(first.metrics.text().decode())["estimation_actions_total"] == 3
    assert parse_metrics(second.metrics.text().decode())["estimation_actions_total"] == 0

    async def scrape() -> None:  # the listener itself, in process, on a port the OS picks
        server = MetricsServer(first.metrics, "127.0.0.1", 0)
        await server.start()
        try:
            async with httpx.AsyncClient() as client:
                text = (await client.get(f"http://127.0.0.1:{server.port}/metrics")).text
            assert parse_metrics(text)["estimation_actions_total"] == 3
        finally:
            await server.stop()

    asyncio.run(scrape())
