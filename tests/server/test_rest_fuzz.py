"""Schemathesis against the server's own OpenAPI schema: valid and invalid requests, never a 5xx."""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
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


# Schemathesis never sends a lone surrogate ("cannot be encoded for the wire"), but JSON can carry one as
# an escape ("\ud800"), and Python's JSON reader gives it back as a str: a lone surrogate in a body was a 500
# (the 422 handler failed to echo it). This run sends every body-taking operation JSON whose strings are
# drawn with surrogates in them, under its own keys and others, with values of every JSON type (and the
# NaN and Infinity that Python's reader takes too).
TEXT = st.text(st.characters(codec=None, exclude_categories=[]) | st.characters(categories=["Cs"]),
               max_size=12)
VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3), max_leaves=6)


def _body_operations(schema: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(method, path, the body's property names) of every operation that takes a JSON body."""
    found = []
    components = schema.get("components", {}).get("schemas", {})
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if content is None:
                continue
            ref = content["schema"].get("$ref", "")
            properties = components.get(ref.rsplit("/", 1)[-1], {}).get("properties", {})
            found.append((method.upper(), path, list(properties)))
    return found


def test_bodies_with_lone_surrogates_never_get_a_5xx(server: ServerProcess) -> None:
    schema = httpx.get(server.base + "/openapi.json").json()
    account = Api.register(server)
    table = account.create_table(stake=5)["id"]
    operations = _body_operations(schema)
    assert {path for _, path, _ in operations} >= {"/api/guests", "/api/accounts", "/api/sessions",
                                                    "/api/tables", "/api/tables/{table_id}/join"}
    failures: list[str] = []
    for method, path, properties in operations:
        fuzz_bodies(account, method, path.replace("{table_id}", str(table)), properties, failures)
    assert not failures, "\n".join(failures[:20])


def fuzz_bodies(account: Api, method: str, url: str, properties: list[str], failures: list[str]) -> None:
    keys = st.sampled_from(properties) | TEXT if properties else TEXT

    @settings(max_examples=EXAMPLES * 2, deadline=None, suppress_health_check=list(HealthCheck),
              database=None)
    @given(body=st.dictionaries(keys, VALUE, max_size=4) | VALUE)
    def fuzz(body: Any) -> None:
        raw = json.dumps(body)  # ASCII, lone surrogates as \ud800 escapes: valid JSON text
        response = account.http.request(method, url, content=raw.encode(), headers={
            **account.headers(), "Content-Type": "application/json"})
        if response.status_code >= 500:
            failures.append(f"{method} {url} {raw[:120]}: {response.status_code} {response.text[:200]}")
        elif response.status_code == 422:
            response.json()  # the error, echoing the input, is itself valid JSON

    fuzz()
