"""Schemathesis against the server's own OpenAPI schema: valid and invalid requests, never a 5xx."""

from __future__ import annotations

import os

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from server_helpers import Api, ServerProcess, ledger_totals

EXAMPLES = int(os.environ.get("ESTIMATION_FUZZ_EXAMPLES", "12"))
THROWAWAY = ("DELETE /api/sessions", "DELETE /api/me/sessions", "DELETE /api/me")


def test_rest_api_never_answers_5xx(server: ServerProcess) -> None:
    schema = schemathesis.openapi.from_url(server.base + "/openapi.json")
    account = Api.register(server)
    account.create_table(stake=5)  # something to find, join and leave
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzz_operation(server, account, operation, mode, failures)
    assert operations >= 15
    assert not failures, "\n".join(failures[:20])
    books = ledger_totals(server.database_url)
    assert books["wallets"] + books["pots"] == books["grants"], books
    assert httpx.get(server.base + "/api/health").status_code == 200


def fuzz_operation(server: ServerProcess, account: Api, operation: schemathesis.APIOperation,
                   mode: GenerationMode, failures: list[str]) -> None:
    label = operation.label

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(case=operation.as_strategy(generation_mode=mode))
    def fuzz(case: schemathesis.Case) -> None:
        # Signing out (here or everywhere) or deleting the account would end the shared session: those
        # operations get a throwaway guest.
        token = Api.guest(server).token if label in THROWAWAY else account.token
        headers = dict(case.headers or {})
        if "Authorization" not in headers or mode is GenerationMode.POSITIVE:
            headers["Authorization"] = f"Bearer {token}"
        try:
            response = case.call(base_url=server.base, headers=headers, timeout=30)
        except httpx.TransportError as exc:
            failures.append(f"{label}: the connection failed: {exc!r}")
            return
        except (httpx.HTTPError, ValueError, UnicodeError):
            return  # the client could not even send it (e.g. a header that is not latin-1)
        if response.status_code >= 500:
            failures.append(f"{label} {mode.value}: {response.status_code} {response.text[:200]}")

    try:
        fuzz()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE  # nothing to get wrong in an operation without inputs
