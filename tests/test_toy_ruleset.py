"""A fourth ruleset is one module: this one, registered by the test, and nothing else in the project.

`toy` is made up for the test: a blind Dash offer (the base's shared offer), then every seat not on the Dash
estimates from the dealer's left, the highest estimate is the Caller (ties to the earliest) and leads. Made:
10 + estimate (+10 the Caller); missed: -difference (-10 the Caller); a Dash 15 made / -15 missed; the last
estimator at Risk (4 or more away from 13) ±5; no Sa'aydeh; partners allowed like everywhere else.

It is played through the engine, records and replay (the API and `estimation replay --json`), views, the
calculator and `estimation score`, a server table (the hub, in this process), and the bots. None of those
knows the name `toy`: they read what the class below declares. If one of them needed another file to be
touched, this test could not be written in this one file.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from typer.testing import CliRunner

import estimation
from estimation import Action, Game, RoundFacts, SeatScore, Trump, Verb
from estimation.bots import HeuristicBot, RandomBot, StrongBot
from estimation.bots.search import Budget
from estimation.rulesets import RULESETS
from estimation.rulesets.base import Declarations, GameState, Phase, Role, RoundSpec, Ruleset
from estimation.scoring import seat_lines

# --- the ruleset: one module's worth ---------------------------------------------------------------------


@dataclass(slots=True)
class ToyDeclarations(Declarations):
    """The Dash offer's state (the base's) and the highest estimate so far: (number, seat)."""

    high: tuple[int, int] | None = None


class Toy(Ruleset):
    name: ClassVar[str] = "toy"
    display_names: ClassVar[dict[str, str]] = {"en": "Toy", "ar": "لعبة"}
    marker_tips: ClassVar[dict[str, dict[str, str]]] = {"en": {
        "dealer": "Dealer: deals; the seat after the dealer is asked the Dash first.",
        "caller": "Caller: the highest estimate (the earliest of equal ones); leads; ±10.",
        "dash": "Dash: a blind promise of no trick; 15 if none, -15 otherwise.",
        "risk": "Risk: the last estimator, total 4 or more away from 13; 5 more or 5 less.",
        "left": "Left: a bot plays the seat to the end.",
    }}
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]] = {
        "short": (RoundSpec("plain", Trump.S), RoundSpec("plain", Trump.NT)),
        "long": tuple(RoundSpec("plain", t) for t in (Trump.H, Trump.D, Trump.C, Trump.NT)),
    }
    default_length: ClassVar[str] = "short"
    verbs: ClassVar[frozenset[Verb]] = frozenset({Verb.DASH, Verb.NODASH, Verb.EST, Verb.PLAY})
    verb_roles: ClassVar[dict[str, Verb]] = {"offer": Verb.DASH, "decline": Verb.NODASH,
                                              "estimate": Verb.EST, "play": Verb.PLAY}
    offer_verbs: ClassVar[tuple[Verb, Verb]] = (Verb.DASH, Verb.NODASH)
    offer_role: ClassVar[Role] = "dash"
    round_kinds: ClassVar[tuple[str, ...]] = ("plain",)
    typed_defaults: ClassVar[tuple[str | None, str | None]] = (None, "plain")
    risk_levels: ClassVar[int] = 1
    score_lines: ClassVar[dict[str, str]] = {"base": "Base", "caller_with": "Caller", "risk": "Risk",
                                             "dash_call": "Dash"}
    saaydeh: ClassVar[bool] = False
    declaration_state: ClassVar[type[Declarations]] = ToyDeclarations

    def begin_deal(self, game: GameState) -> None:
        self.begin_offer(game)

    def begin_auction(self, game: GameState) -> None:
        """No auction: straight to the estimates, from the dealer's left, the Dash seats on 0."""
        dash = game.decl.dash_seats
        for s in dash:
            game.estimates[s] = 0
        self.begin_estimates(game, tuple(s for s in ((game.dealer + i) & 3 for i in (1, 2, 3, 4))
                                         if s not in dash))

    def legal_declarations(self, game: GameState) -> Sequence[Action]:
        seat = game.turn
        assert seat is not None
        if game.phase is Phase.DASH:
            return self.offer_actions(seat)
        low, top, forbidden = self.estimate_bounds(game)
        return [Action.est(seat, n) for n in range(low, top + 1) if n != forbidden]

    def apply_declaration(self, game: GameState, action: Action) -> None:
        if action.verb is not Verb.EST:
            self.apply_offer(game, action)
            return
        assert action.number is not None
        decl: ToyDeclarations = game.decl
        if decl.high is None or action.number > decl.high[0]:
            decl.high = (action.number, action.seat)
        if self.record_estimate(game, action.seat, action.number):
            assert decl.high is not None
            game.caller = decl.high[1]
            game.start_play(game.caller)

    def facts(self, game: GameState) -> RoundFacts:
        return RoundFacts(game.kind, tuple(e or 0 for e in game.estimates), tuple(game.tricks_won),
                          game.est_order, game.caller, frozenset(game.decl.dash_seats), 1, frozenset())

    def risk_level(self, facts: RoundFacts) -> int:
        return 1 if abs(facts.total - 13) >= 4 else 0

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        risk = self.risk_level(facts)
        out = []
        for seat, est, tricks, made, _only, last, sign, diff in seat_lines(facts, with_census=False):
            if seat in facts.dash_calls:
                out.append(SeatScore(seat, "dash", est, tricks, made, dash_call=15 * sign))
                continue
            caller = seat == facts.caller
            out.append(SeatScore(seat, "caller" if caller else "regular", est, tricks, made,
                                 base=10 + est if made else -diff, caller_with=10 * sign if caller else 0,
                                 risk=5 * sign * risk if last else 0))
        return tuple(out)


# --- registered by the test ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(RULESETS, Toy.name, Toy)
    yield


def _play(game: Game, bots: Sequence[object] | None = None, rng: random.Random | None = None) -> Game:
    rng = rng or random.Random(0)
    while not game.is_over:
        seat = game.to_move
        assert seat is not None
        if bots is None:
            game.apply(rng.choice(game.legal_actions()))
        else:
            game.apply(bots[seat].act(game.view(seat)))  # type: ignore[attr-defined]
    return game


# --- the engine, records, replay -------------------------------------------------------------------------


@pytest.mark.parametrize("partners", [False, True])
@pytest.mark.parametrize("length", ["short", "long"])
def test_games_play_record_and_replay(length: str, partners: bool) -> None:
    for seed in range(4):
        game = _play(estimation.new_game("toy", length, seed=seed, partners=partners),
                     rng=random.Random(seed))
        assert len(game.round_results) == len(Toy.lengths[length])
        assert all(r.kind == "plain" and r.multiplier == 1 for r in game.round_results)
        for r in game.round_results:
            assert sum(r.tricks) == 13 and sum(r.estimates) != 13
            assert r.risk == (1 if abs(sum(r.estimates) - 13) >= 4 else 0)
            assert r.caller == max(r.order, key=lambda s: (r.estimates[s], -r.order.index(s)))
        record = game.record()
        assert record["ruleset"] == "toy" and record.get("partners", False) is partners
        loaded = estimation.load_record(json.loads(json.dumps(record)))
        assert loaded.totals == game.totals and loaded.places == game.places
        summary = estimation.replay_summary(loaded)
        assert summary["complete"] is True and ("sides" in summary) is partners
        if partners:
            a, b = game.totals[0] + game.totals[2], game.totals[1] + game.totals[3]
            assert summary["sides"]["totals"] == [a, b]
            first = [1, 1] if a == b else [1, 2] if a > b else [2, 1]
            assert summary["places"] == first + first


def test_an_illegal_action_is_refused_by_name() -> None:
    game = estimation.new_game("toy", seed=1)
    seat = game.to_move
    with pytest.raises(estimation.IllegalActionError, match="not a toy action"):
        game.apply(f"{seat} dashcall")
    game.apply(f"{seat} dash")
    assert game.decl.dash_seats == [seat]


def test_estimation_replay_json(tmp_path: Path) -> None:
    from estimation.cli import app

    game = _play(estimation.new_game("toy", "long", seed=7, partners=True), rng=random.Random(7))
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(game.record()))
    out = CliRunner().invoke(app, ["replay", str(path), "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert got["totals"] == list(game.totals) and got["places"] == game.places
    assert got["sides"] == game.sides and len(got["rounds"]) == 4
    table = CliRunner().invoke(app, ["replay", str(path)])
    assert table.exit_code == 0 and "&" in table.output  # the standings by side


# --- views ------------------------------------------------------------------------------------------------


def test_views_say_what_the_ruleset_declares() -> None:
    game = estimation.new_game("toy", seed=3, partners=True)
    view = game.view(0)
    assert view["verbs"] == {"offer": "dash", "decline": "nodash", "auction": None, "join": None,
                             "pass": None, "declare": None, "estimate": "est", "play": "play"}
    assert view["rules"] == {"saaydeh": False, "leaver_ends_match": False, "risk_levels": 1,
                             "offer_role": "dash"}
    assert view["partners"] is True and view["sides"]["seats"] == [[0, 2], [1, 3]]
    assert view["standing"] is None and view["declared"] is None and view["with_seats"] == []
    rng = random.Random(3)
    seen_roles: set[str] = set()
    while not game.is_over:
        view = game.view(None)
        for s, marker in enumerate(view["markers"]):
            if marker["role"]:
                seen_roles.add(marker["role"])
            if marker["risk"]:
                assert view["phase"] == "play" and s == view["estimate_order"][-1]
        if view["phase"] == "estimate" or view["phase"] == "play":
            assert view["trump"] == str(game.spec.trump)
        game.apply(rng.choice(game.legal_actions()))
    assert "caller" in seen_roles


def test_what_a_client_shows_of_it_is_its_own() -> None:
    """The names and the marker tooltips a client shows come from the class: the toy's, not another's."""
    described = Toy().describe()
    assert described["display_names"] == {"en": "Toy", "ar": "لعبة"}
    assert Toy.display_name("ar") == "لعبة" and Toy.display_name("fr") == "Toy"
    assert described["roles"] == ["caller", "dash"]  # no With, no Dash Call: the offer's takers are Dashes
    assert described["markers"] == ["dealer", "caller", "dash", "risk", "left"]  # no Sa'aydeh, one Risk level
    assert described["marker_tips"] == Toy.marker_tips
    assert described["level_points"] is None and Toy.match_level_points([1, 2, 3, 4]) is None


@pytest.mark.parametrize("name", [*RULESETS, Toy.name])
def test_the_markers_a_table_shows_are_the_ones_the_ruleset_declares(name: str) -> None:
    """Played out, every role and Risk level a view marks is one the ruleset declares (``role_markers``,
    ``risk_levels``), and every marker it can show has a tooltip in every language it has texts in."""
    ruleset = RULESETS[name]
    declared = set(ruleset.role_markers())
    shown = set(ruleset.shown_markers())
    roles: set[str] = set()
    risks: set[int] = set()
    lengths = list(ruleset.lengths)
    for seed in range(6):
        game = estimation.new_game(name, lengths[seed % len(lengths)], seed=seed, partners=seed % 2 == 1)
        rng = random.Random(seed)
        while not game.is_over:
            for marker in game.view(None)["markers"]:
                if marker["role"]:
                    roles.add(marker["role"])
                risks.add(marker["risk"])
            game.apply(rng.choice(game.legal_actions()))
    assert roles <= declared, f"{name} marks {roles - declared} it does not declare"
    assert max(risks) <= ruleset.risk_levels
    assert "caller" in roles and ruleset.offer_role in roles
    assert {"dealer", "left", "caller"} <= shown
    assert ("multiplier" in shown) is ruleset.saaydeh
    assert "en" in ruleset.marker_tips and "en" in ruleset.display_names
    for lang, tips in ruleset.marker_tips.items():
        assert shown <= set(tips), f"{name} has no {lang} tooltip for {shown - set(tips)}"
        assert all(isinstance(text, str) and text.strip() for text in tips.values())


# --- the calculator ---------------------------------------------------------------------------------------


def test_the_calculator_and_estimation_score() -> None:
    from estimation.cli import app

    # Seat 2 on the Dash; seats 3, 0, 1 estimate 5, 5, 1: the Caller is seat 3 (the earlier 5).
    scores = estimation.score_typed_round(ruleset="toy", kind="plain", estimates=[(3, 5), (0, 5), (1, 1)],
                                          tricks=[5, 2, 0, 6], dash_calls=[2])
    assert [s.score for s in scores] == [15, -1, 15, -11]  # 10+5; -1; Dash 15; -1 -10 (Caller, missed)
    assert [s.role for s in scores] == ["regular", "regular", "dash", "caller"]
    with pytest.raises(estimation.CalculatorError, match="no With bids"):
        estimation.score_typed_round(ruleset="toy", kind="plain", estimates=[(3, 5), (0, 5), (1, 1), (2, 0)],
                                     tricks=[5, 2, 0, 6], with_seats=[1])
    out = CliRunner().invoke(app, ["score", "--ruleset", "toy", "--estimates", "3:5,0:5,1:1",
                                   "--dash", "2", "--tricks", "5,2,0,6", "--partners", "--json"])
    assert out.exit_code == 0, out.output
    got = json.loads(out.stdout)
    assert [s["score"] for s in got["seats"]] == [15, -1, 15, -11]
    assert got["sides"] == {"seats": [[0, 2], [1, 3]], "scores": [30, -12]}
    table = CliRunner().invoke(app, ["score", "--ruleset", "toy", "--estimates", "3:5,0:5,1:1",
                                     "--dash", "2", "--tricks", "5,2,0,6"])
    assert table.exit_code == 0 and "Caller" in table.output


# --- the bots ---------------------------------------------------------------------------------------------


def test_the_bots_play_it() -> None:
    for partners in (False, True):
        _play(estimation.new_game("toy", seed=11, partners=partners), [RandomBot(s) for s in range(4)])
        _play(estimation.new_game("toy", seed=12, partners=partners), [HeuristicBot() for _ in range(4)])
    budget = Budget(samples=4, play_samples=4)
    game = _play(estimation.new_game("toy", seed=13, partners=True), [StrongBot(s, budget) for s in range(4)])
    assert game.is_over and len(game.round_results) == 2


# --- a server table, in this process ------------------------------------------------------------------------


def test_a_server_table(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from sqlalchemy import select

    from estimation.server import Settings
    from estimation.server.access import auth
    from estimation.server.hub import Hub
    from estimation.server.social.service import Social
    from estimation.server.storage.models import Result
    from estimation.server.table.reducer import TableSettings

    async def main() -> None:
        hub = Hub(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'toy.db'}", bot_delay=0.0), Social)
        await hub.start()
        try:
            async with hub.session() as db, db.begin():
                player = await auth.create_guest(db, "Tess")
            runtime = await hub.create_table(player.id, TableSettings(
                "toy", "short", bot_seats=(1, 2, 3), bot_level="heuristic", turn_seconds=0, partners=True))
            await runtime.join(player.id, player.name, True, None, False, None)
            assert runtime.status == "playing" and runtime.game is not None
            view = runtime.view_for(0)
            assert view is not None and view["ruleset"] == "toy" and view["partners"] is True
            await runtime.leave(player.id)  # a bot plays the seat on: toy does not end the match
            for _ in range(600):
                if runtime.status == "finished":
                    break
                await asyncio.sleep(0.05)
            assert runtime.status == "finished"
            async with hub.session() as db:
                rows = (await db.scalars(select(Result).where(Result.table_id == runtime.id))).all()
            assert [(r.ruleset, r.partners, r.outcome) for r in rows] == [("toy", True, "loss")]
            game = runtime.game
            assert rows[0].place == game.places[0] and rows[0].side_total == game.totals[0] + game.totals[2]
        finally:
            await hub.stop()

    with caplog.at_level(logging.WARNING, logger="estimation.server"):
        asyncio.run(main())
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text  # no bot fell back
