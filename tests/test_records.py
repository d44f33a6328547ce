"""Hand-written `estimation-record/1` records for the `koutchina` ruleset (tests/records/).

Each `NAME.json` comes with either `NAME.expected.json` (a legal record: the expected
`estimation replay --json` output, worked out by hand from RULES.md, compared key by key; extra keys
in the actual output are allowed) or `NAME.expected-error.txt` (an illegal record: the
`deal D, action K` prefix of the single stderr line). See tests/records/README.md.

The hand-worked expectations are themselves cross-checked here, without the engine, against the
rules: the cards and the play (follow suit, trick winners) and the independent reference scorer
(tests/reference_scorer.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import reference_scorer_classic as classic_ref
import reference_scorer_egyptian as egyptian_ref
from reference_scorer import next_multiplier, places, risk_level, score_round

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records"
SRC = HERE.parent / "src"

ALL = sorted(p for p in RECORDS.glob("*.json") if not p.name.endswith(".expected.json"))
LEGAL = [p for p in ALL if p.with_suffix(".expected.json").exists()]
ILLEGAL = [p for p in ALL if p.with_suffix(".expected-error.txt").exists()]

ROUND_KEYS = (
    "round",
    "deals",
    "kind",
    "trump",
    "caller",
    "multiplier",
    "estimates",
    "tricks",
    "made",
    "scores",
    "risk",
    "saaydeh",
)
LENGTHS = {"micro": (0, 5), "mini": (5, 10), "full": (13, 18)}  # (call rounds, all rounds)
CLASSIC_LENGTHS = {"full": (13, 18)}
EGYPTIAN_LENGTHS = {"standard": (13, 18), "committee": (13, 13), "long": (19, 24)}  # (auction, all rounds)
FIXED_TRUMPS = ["NT", "S", "H", "D", "C"]
RANKS = "23456789TJQKA"


def _ids(paths):
    return [p.stem for p in paths]


def _expected(path: Path) -> dict:
    return json.loads(path.with_suffix(".expected.json").read_text())


def _expected_error(path: Path) -> str:
    return path.with_suffix(".expected-error.txt").read_text().strip()


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "estimation", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


# --------------------------------------------------------------------------- the files themselves


def test_every_record_has_exactly_one_expectation():
    assert len(ALL) >= 60
    for p in ALL:
        has_json = p.with_suffix(".expected.json").exists()
        has_err = p.with_suffix(".expected-error.txt").exists()
        assert has_json != has_err, p.name
    for e in RECORDS.glob("*.expected*"):
        base = e.name.split(".expected")[0]
        assert (RECORDS / (base + ".json")).exists(), e.name


def test_readme_lists_every_record():
    readme = (RECORDS / "README.md").read_text()
    for p in ALL:
        assert f"`{p.stem}`" in readme, p.stem


@pytest.mark.parametrize("path", ILLEGAL, ids=_ids(ILLEGAL))
def test_expected_error_is_a_contract_prefix(path):
    text = _expected_error(path)
    head, _, tail = text.partition(", action ")
    assert head.startswith("deal ") and head[5:].isdigit() and tail.isdigit(), text


# --------------------------------------------------------------------------- engine: replay


@pytest.mark.parametrize("path", LEGAL, ids=_ids(LEGAL))
def test_replay_legal(path):
    want = _expected(path)
    res = _replay(path)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    for key in ("totals", "places", "complete"):
        assert got[key] == want[key], key
    # RECORD.md: a partnership record adds `sides`; without partners there is no `sides` key.
    if "sides" in want:
        assert got["sides"] == want["sides"]
    else:
        assert "sides" not in got
    assert len(got["rounds"]) == len(want["rounds"])
    for g, w in zip(got["rounds"], want["rounds"], strict=True):
        for key in w:
            assert g[key] == w[key], (w["round"], key)


@pytest.mark.parametrize("path", ILLEGAL, ids=_ids(ILLEGAL))
def test_replay_illegal(path):
    prefix = _expected_error(path) + " ("
    res = _replay(path)
    assert res.returncode == 1, (res.returncode, res.stdout, res.stderr)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(prefix), (prefix, lines[0])


# --------------------------------------------------------------------------- engine: round trip


def _cards(hand) -> set[str]:
    return set(hand.split() if isinstance(hand, str) else hand)


@pytest.mark.parametrize("path", LEGAL, ids=_ids(LEGAL))
def test_load_record_round_trip(path):
    import estimation

    rec = json.loads(path.read_text())
    out = estimation.load_record(rec).record()
    if isinstance(out, str):
        out = json.loads(out)
    assert out["players"] == rec["players"]
    n = len(rec["deals"])
    # The game may already have dealt the next deal after the record's last finished one: allow only
    # such trailing deals with no action yet.
    assert len(out["deals"]) >= n
    assert all(not d["actions"] for d in out["deals"][n:])
    for d_out, d_in in zip(out["deals"], rec["deals"], strict=False):
        assert d_out["round"] == d_in["round"]
        assert d_out["dealer"] == d_in["dealer"]
        assert [_cards(h) for h in d_out["hands"]] == [_cards(h) for h in d_in["hands"]]
        assert [str(a) for a in d_out["actions"]] == d_in["actions"]


# --------------------------------------------------------------------------- no engine: the hand work


def _acts(deal):
    return [a.split() for a in deal["actions"]]


def _power(card, led, trump):
    if trump != "NT" and card[1] == trump:
        return (2, RANKS.index(card[0]))
    return (1, RANKS.index(card[0])) if card[1] == led else (0, 0)


def _tricks(deal, trump):
    """Play the deal's `play` actions: check cards and follow suit, return tricks per seat
    (None if fewer than 13 tricks were played) and the first leader."""
    hands = [set(h.split()) for h in deal["hands"]]
    plays = [(int(a[0]), a[2]) for a in _acts(deal) if a[1] == "play"]
    tricks = [0, 0, 0, 0]
    leader = None
    first = plays[0][0] if plays else None
    for t in range(0, len(plays), 4):
        trick = plays[t : t + 4]
        if leader is not None:
            assert trick[0][0] == leader, ("leader", t // 4 + 1)
        led = trick[0][1][1]
        for k, (seat, card) in enumerate(trick):
            assert seat == (trick[0][0] + k) % 4
            assert card in hands[seat], (seat, card)
            if card[1] != led:
                assert not any(c[1] == led for c in hands[seat]), ("follow", seat, card)
            hands[seat].remove(card)
        if len(trick) < 4:
            return None, first

        leader = max(trick, key=lambda item: _power(item[1], led, trump))[0]
        tricks[leader] += 1
    return (tricks if len(plays) == 52 else None), first


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_hands_are_a_full_deck(path):
    try:
        rec = json.loads(path.read_text())
    except json.JSONDecodeError:
        assert _expected_error(path) == "deal 0, action 0"
        return
    if not isinstance(rec, dict) or path in ILLEGAL:
        return
    for deal in rec["deals"]:
        hands = [h.split() for h in deal["hands"]]
        assert all(len(h) == 13 for h in hands)
        cards = [c for h in hands for c in h]
        assert len(set(cards)) == 52
        assert all(len(c) == 2 and c[0] in RANKS and c[1] in "SHDC" for c in cards)


@pytest.mark.parametrize("path", LEGAL, ids=_ids(LEGAL))
def test_expectations_agree_with_the_rules(path):
    """Recompute every expected number of a legal record from its actions, by the rules."""
    rec = json.loads(path.read_text())
    want = _expected(path)
    ruleset = rec.get("ruleset", "koutchina")
    if ruleset == "egyptian":
        _check_egyptian(rec, want)
        return
    classic = ruleset == "classic"
    if classic:
        ncall, nrounds = CLASSIC_LENGTHS[rec.get("length", "full")]
        ref_risk, ref_score, ref_next, ref_places = (
            classic_ref.risk_level,
            classic_ref.score_round,
            classic_ref.next_multiplier,
            classic_ref.places,
        )
    else:
        ncall, nrounds = LENGTHS[rec.get("length", "micro")]
        ref_risk, ref_score, ref_next, ref_places = risk_level, score_round, next_multiplier, places
    by_round: dict[int, list] = {}
    for deal in rec["deals"]:
        by_round.setdefault(deal["round"], []).append(deal)
    mult = 1
    for w in want["rounds"]:
        n = w["round"]
        deals = by_round[n]
        deal = deals[-1]
        acts = _acts(deal)
        fixed = n > ncall or len(deals) == 4
        assert w["deals"] == len(deals)
        assert w["kind"] == ("fixed" if fixed else "call")
        est = [None] * 4
        dash = {int(a[0]) for a in acts if a[1] == "dashcall"}
        ests = [a for a in acts if a[1] == "est"]
        if fixed:
            trump = FIXED_TRUMPS[n - ncall - 1] if n > ncall else "NT"
            best_super = 0
            caller = None
            for a in ests:
                seat, v = int(a[0]), int(a[2])
                est[seat] = v
                if len(a) == 4 and v > best_super:
                    best_super, trump = v, a[3]
                if caller is None or v > est[caller]:
                    caller = seat
        else:
            calls = [a for a in acts if a[1] == "call"]
            caller, call = int(calls[-1][0]), calls[-1][2]
            trump = "NT" if call.endswith("NT") else call[-1]
            est[caller] = int(call[:-2] if call.endswith("NT") else call[:-1])
            for s in dash:
                est[s] = 0
            for a in ests:
                est[int(a[0])] = int(a[2])
        last = int(ests[-1][0])
        tricks, first = _tricks(deal, trump)
        assert first == caller, "the Caller leads trick 1"
        assert (w["trump"], w["caller"], w["estimates"], w["tricks"]) == (trump, caller, est, tricks)
        assert sum(est) != 13
        assert sum(1 for e in est if e == 0) <= 2
        assert w["multiplier"] == mult
        made = [e == t for e, t in zip(est, tricks, strict=True)]
        assert w["made"] == made
        assert w["saaydeh"] == (not any(made))
        assert w["risk"] == ref_risk(sum(est))
        assert w["scores"] == ref_score(
            est, tricks, caller=caller, last_estimator=last, dash_callers=dash, multiplier=mult
        )
        mult = ref_next(mult, w["saaydeh"])
    totals = [sum(r["scores"][s] for r in want["rounds"]) for s in range(4)]
    assert want["totals"] == totals
    if rec.get("partners"):
        _check_sides(want, totals, leaver=None)
    else:
        assert want["places"] == ref_places(totals)
    assert want["complete"] == (len(want["rounds"]) == nrounds)


def _check_sides(want: dict, totals: list[int], leaver: int | None) -> None:
    """RULES.md Partnerships, RECORD.md `sides`: seats 0+2 against 1+3; a side's total is its two seats';
    the higher side total is 1st, level sides are both 1st, and an egyptian leaver's side is 2nd whatever
    its total; every seat takes its side's place."""
    side_totals = [totals[0] + totals[2], totals[1] + totals[3]]
    if leaver is not None:
        side_places = [2, 1] if leaver % 2 == 0 else [1, 2]
    elif side_totals[0] == side_totals[1]:
        side_places = [1, 1]
    else:
        side_places = [1, 2] if side_totals[0] > side_totals[1] else [2, 1]
    assert want["sides"] == {"seats": [[0, 2], [1, 3]], "totals": side_totals, "places": side_places}
    assert want["places"] == [side_places[s % 2] for s in range(4)]


def _check_egyptian(rec: dict, want: dict) -> None:
    """The `egyptian` hand work re-derived from the actions (RULES.md `egyptian` 1-9), without the engine."""
    nauction, nrounds = EGYPTIAN_LENGTHS[rec.get("length", "standard")]
    by_round: dict[int, list] = {}
    for deal in rec["deals"]:
        by_round.setdefault(deal["round"], []).append(deal)
    for w in want["rounds"]:
        n = w["round"]
        assert len(by_round[n]) == 1, "no redeal in egyptian"
        deal = by_round[n][0]
        acts = _acts(deal)
        dash = [int(a[0]) for a in acts if a[1] == "dash"]
        assert len(dash) <= 2
        bidder, withs = None, set()
        for a in acts:
            if a[1] == "bid":
                bidder, withs = int(a[0]), set()  # a higher bid voids every With
            elif a[1] == "with":
                assert bidder is not None and int(a[0]) != bidder
                withs.add(int(a[0]))
        ests = [(int(a[0]), int(a[2])) for a in acts if a[1] == "est"]
        est = [0, 0, 0, 0]
        for seat, v in ests:
            est[seat] = v
        after = None
        if bidder is None:
            kind, trump, caller, leader = "nobid", "NT", None, deal["dealer"]
            ring = [s for s in range(4) if s not in dash]
            start = next(s for s in ((deal["dealer"] + i) % 4 for i in range(4)) if s not in dash)
            order = ring[ring.index(start) :] + ring[: ring.index(start)]
            assert [s for s, _ in ests] == order, "nobid: estimates from the dealer, Dash seats skipped"
        else:
            kind = "speed" if n > nauction else "auction"
            (declare,) = [a for a in acts if a[1] == "declare"]
            assert int(declare[0]) == bidder
            trump = "NT" if declare[2].endswith("NT") else declare[2][-1]
            number = int(declare[2][: -len(trump)])
            caller = leader = bidder
            est[caller] = number
            after = [(caller + i) % 4 for i in range(1, 4)]
            order = [s for s in after if s in withs] + [s for s in after if s not in withs and s not in dash]
            assert [s for s, _ in ests] == order, "With seats first, then the others"
            assert all(0 <= v <= number for _, v in ests)
        last = ests[-1][0]
        tricks, first = _tricks(deal, trump)
        assert first == leader, "the Caller (nobid: the dealer) leads trick 1"
        assert (w["kind"], w["trump"], w["caller"]) == (kind, trump, caller)
        assert (w["estimates"], w["tricks"]) == (est, tricks)
        assert w["deals"] == 1 and w["multiplier"] == 1 and w["saaydeh"] is False
        assert sum(est) != 13
        assert sum(1 for e in est if e == 0) <= 2
        made = [e == t for e, t in zip(est, tricks, strict=True)]
        assert w["made"] == made
        risk = caller is not None and egyptian_ref.at_risk(sum(est), est[last])
        assert w["risk"] == int(risk)
        assert w["scores"] == egyptian_ref.score_round(
            est, tricks, caller=caller, last_estimator=last, with_seats=withs, dash_seats=dash
        )
    totals = [sum(r["scores"][s] for r in want["rounds"]) for s in range(4)]
    ended = rec.get("ended")
    leaver = ended["seat"] if ended else None
    assert want["totals"] == totals
    if rec.get("partners"):
        _check_sides(want, totals, leaver)
    else:
        assert want["places"] == egyptian_ref.places(totals, leaver)
    assert want["complete"] == (len(want["rounds"]) == nrounds and not ended)
