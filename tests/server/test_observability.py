"""What an operator watches: the shipped alert rules pass promtool and fire on the series they are written
for, every metric the alerts and the dashboard name is one a real server exposes, answers are counted by
status class, and log lines carry the request's and the table's ids."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from server_helpers import ROOT, ServerProcess, parse_metrics
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from estimation.server.ops.observe import JsonFormatter, RequestContext, table_of

RULES = ROOT / "deploy" / "prometheus" / "estimation-alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "estimation-dashboard.json"


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail("promtool is needed (Debian: apt-get install prometheus); scripts/test.sh installs it")
    return found


def test_alert_rules_check_and_fire() -> None:
    tool = _promtool()
    checked = subprocess.run([tool, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "SUCCESS: 7 rules found" in checked.stdout
    tested = subprocess.run([tool, "test", "rules", str(RULES.with_suffix(".test.yml"))],
                            capture_output=True, text=True, cwd=RULES.parent)
    assert tested.returncode == 0, tested.stdout + tested.stderr


def _names_in(expr: str) -> set[str]:
    return set(re.findall(r"\b((?:estimation|process)_[a-z_]+)", expr))


def _exprs() -> list[str]:
    exprs = re.findall(r"expr: >?\s*\n?\s*(.+?)\n\s+for:", RULES.read_text(), flags=re.S)
    assert len(exprs) == 7
    dashboard = json.loads(DASHBOARD.read_text())
    exprs += [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    return exprs


def test_every_metric_named_is_exposed(server: ServerProcess) -> None:
    httpx.get(server.base + "/api/health", timeout=10)
    missing = httpx.get(server.base + "/api/no-such-route", timeout=10)
    assert missing.status_code == 404
    time.sleep(1.2)  # the loop-lag probe samples twice a second
    exposed = httpx.get(server.metrics_url, timeout=30).text
    series = {line.split("{")[0].split(" ")[0] for line in exposed.splitlines() if line and line[0] != "#"}
    # Cluster-only gauges are absent from a single server; every other name must be there.
    wanted = set().union(*(_names_in(e) for e in _exprs())) - {"estimation_cluster_tables_owned"}
    assert wanted and not wanted - series, sorted(wanted - series)
    figures = parse_metrics(exposed)
    assert figures['estimation_http_responses_total{code="4xx"}'] >= 1
    assert figures['estimation_http_responses_total{code="2xx"}'] >= 1
    assert figures["estimation_event_loop_lag_seconds_count"] >= 1


def test_request_id_echoed_or_made(server: ServerProcess) -> None:
    given = httpx.get(server.base + "/api/health", headers={"X-Request-ID": "balancer-1234abcd"}, timeout=10)
    assert given.headers["x-request-id"] == "balancer-1234abcd"
    made = httpx.get(server.base + "/api/health", headers={"X-Request-ID": "bad id; <script>"}, timeout=10)
    assert re.fullmatch(r"[0-9a-f]{32}", made.headers["x-request-id"])


def test_json_log_lines_carry_request_and_table() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    log = logging.getLogger("estimation.test-observe")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    answered: list[int] = []

    async def route(request: Request) -> PlainTextResponse:
        log.info("moved %s", request.path_params["tid"])
        return PlainTextResponse("ok")

    app = RequestContext(Starlette(routes=[Route("/api/tables/{tid}/join", route)]), counted=answered.append)
    async def call() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            return await client.get("/api/tables/42/join", headers={"X-Request-ID": "req-00000001"})

    try:
        answer = asyncio.run(call())
    finally:
        log.removeHandler(handler)
    assert answer.status_code == 200 and answered == [200]
    line = json.loads(stream.getvalue().strip())
    assert line["request_id"] == "req-00000001" and line["table_id"] == 42
    assert line["message"] == "moved 42" and line["level"] == "info" and line["time"].endswith("Z")
    assert table_of("/ws/tables/7") == 7 and table_of("/api/tables") is None


def test_dashboard_is_grafana_json() -> None:
    dashboard = json.loads(Path(DASHBOARD).read_text())
    assert dashboard["uid"] == "estimation-server" and len(dashboard["panels"]) >= 10
    assert all(p["targets"] and p["datasource"]["type"] == "prometheus" for p in dashboard["panels"])
