"""A table's name (issue 22): optional, given by its creator, checked as a player's name is, shown to all."""

from __future__ import annotations

from server_helpers import Api, ServerProcess


def test_a_table_takes_a_checked_name_that_everyone_sees(server: ServerProcess) -> None:
    api = Api.guest(server)
    made = api.create_table(length="micro", name="  Friday   night  ")
    assert made["name"] == "Friday night"  # a name's shown form (PRECIS Nickname: spaces collapsed)
    assert api.ok(api.get(f"/api/tables/{made['id']}"))["name"] == "Friday night"
    assert any(t["id"] == made["id"] and t["name"] == "Friday night"
               for t in api.ok(api.get("/api/tables")))
    assert api.create_table(length="micro")["name"] is None  # no name: its number only
    for bad, why in (("x" * 33, "string_too_long"), ("", "string_too_short"), ("\u0410nn", "value_error"),
                     ("a\u202eb", "value_error"), ("a\u0000b", "value_error"), (7, "string_type")):
        r = api.post("/api/tables", {"length": "micro", "name": bad})
        assert r.status_code == 422, (bad, r.text)
        assert [e["loc"] for e in r.json()["detail"]] == [["body", "name"]], r.text
        assert r.json()["detail"][0]["type"] == why, (bad, r.text)
