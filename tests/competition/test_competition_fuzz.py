"""A competition file changed anywhere, to anything, is either scored or refused with a CompetitionError
(one line for `estimation competition score`), never another exception: the command's "never a
traceback" holds for every file, not only the ones the other tests thought of."""

from __future__ import annotations

import copy
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from estimation.competition import CompetitionError, check_export, simulate
from estimation.errors import RecordError
from estimation.record import load_record

LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-3, 20), st.sampled_from(["", "x", "7S", "0 est 3"]),
                   st.just([]), st.just({}), st.just([1, 2, 3, 4]), st.floats(allow_nan=False, width=16))


@cache
def _base() -> str:
    return json.dumps(simulate(kind="swiss", entrants=5, stages=2, ruleset="koutchina", length="micro",
                               level="random", seed=11))


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _paths(v, (*path, i))
    return out


@settings(max_examples=80)
@given(st.data())
def test_any_change_is_scored_or_refused_in_one_line(data: st.DataObject) -> None:
    doc = json.loads(_base())
    for _ in range(data.draw(st.integers(1, 3))):
        paths = _paths(doc)
        path = data.draw(st.sampled_from(paths[1:]))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = copy.deepcopy(data.draw(LEAVES))
    try:
        _, found = check_export(doc)
    except CompetitionError as exc:
        assert "\n" not in str(exc)
    else:
        if found is not None:
            assert "\n" not in found.line


def test_a_dealer_or_round_that_is_not_an_integer_is_a_record_fault() -> None:
    # found by the fuzz above: `"dealer": 0.0` compared equal to seat 0 and crashed the engine
    doc = json.loads(_base())
    record = doc["stages"][0]["tables"][0]["record"]
    for key, value in (("dealer", float(record["deals"][0]["dealer"])), ("dealer", True), ("round", 1.0)):
        bad = copy.deepcopy(record)
        bad["deals"][0][key] = value
        with pytest.raises(RecordError) as info:
            load_record(bad)
        assert (info.value.deal, info.value.action) == (1, 0)
