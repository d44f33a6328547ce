"""The score calculator over HTTP: ``POST /api/score`` scores one round typed by hand, as ``estimation score
--json`` does (``estimation.calculator``), so that the browser's calculator never scores by a ruleset's name.

No sign-in: the calculator is for games played with real cards, and nothing is stored. A round that could
not have happened (``CalculatorError``: the rule that says why), an unknown ruleset or kind is a 422 with
that text as ``detail``; a body that does not match the schema is a 422 too (as everywhere in the lobby).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException
from pydantic import Field

from ...calculator import CalculatorError, is_saaydeh, next_multiplier, score_typed_round, side_scores
from ...results import SIDES
from ...rulesets import DEFAULT_RULESET, get_ruleset
from .deps import Strict

router = APIRouter(prefix="/api", tags=["rules"])

Seat = Annotated[int, Field(ge=0, le=3)]
Tricks = Annotated[int, Field(ge=0, le=13)]
#: ``[seat, number]``: an estimate, or the Call (its Caller and number).
Pair = Annotated[list[Tricks], Field(min_length=2, max_length=2)]


class ScoreIn(Strict):
    ruleset: Annotated[str, Field(max_length=32, examples=[DEFAULT_RULESET])] = DEFAULT_RULESET
    kind: Annotated[str | None, Field(max_length=32, description=(
        "One of the ruleset's `kinds`; null: worked out from whether a `caller` is given, where the ruleset "
        "says (as `estimation score` without --kind)."))] = None
    estimates: Annotated[list[Pair], Field(max_length=4, description=(
        "[seat, estimate] in the order they were made (the last bears the Risk), without the Caller and the "
        "seats that took the offer to sit out on zero."))]
    tricks: Annotated[list[Tricks], Field(min_length=4, max_length=4, description="Tricks won, by seat.")]
    caller: Pair | None = Field(None, description=(
        "[seat, number] of the Call (egyptian: the declared number) in a round of one of the ruleset's "
        "`called_kinds`."))
    dash: list[Seat] = Field(default_factory=list, max_length=4, description=(
        "Seats that took the offer to sit out on zero (a Dash Call; egyptian: the Dash)."))
    with_seats: list[Seat] = Field(default_factory=list, alias="with", max_length=4, description=(
        "Seats that bid With on the winning bid, in a ruleset with that bid (`with_bids`)."))
    multiplier: Annotated[int, Field(ge=1, le=4, description="The round's multiplier: 1, 2 or 4.")] = 1
    partners: bool = Field(False, description="A partnership game: also each side's round score.")


@router.post("/score", responses={422: {"description": "A round that could not have happened (the rule "
                                                      "that says why), an unknown ruleset or kind, or a body "
                                                      "that does not match the schema."}})
async def score(body: ScoreIn) -> dict[str, Any]:
    """Score one round played with real cards: each seat's breakdown (`seats`, as `estimation score --json`),
    whether it was a Sa'aydeh and the next round's multiplier; with `partners`, `sides` as `estimation score
    --partners --json` gives it: `{"seats": [[0, 2], [1, 3]], "scores": [A, B]}`, each side's round score."""
    try:
        rules = get_ruleset(body.ruleset)
        kind = body.kind or rules.default_kind(body.caller is not None)
        if kind is None:
            raise CalculatorError("say the round's kind: one of " + ", ".join(rules.round_kinds))
        caller = None if body.caller is None else (body.caller[0], body.caller[1])
        if caller is not None and not 0 <= caller[0] <= 3:
            raise CalculatorError(f"the Caller is a seat 0-3, not {caller[0]}")
        result = score_typed_round(
            ruleset=body.ruleset, kind=kind, estimates=[(s, n) for s, n in body.estimates],
            tricks=body.tricks, caller=caller, dash_calls=body.dash, with_seats=body.with_seats,
            multiplier=body.multiplier)
    except (CalculatorError, ValueError) as exc:
        raise HTTPException(422, str(exc)) from None
    out: dict[str, Any] = {
        "seats": [s.to_dict() for s in result],
        "saaydeh": is_saaydeh(body.ruleset, result),
        "next_multiplier": next_multiplier(body.ruleset, body.multiplier, result),
    }
    if body.partners:
        out["sides"] = {"seats": [list(side) for side in SIDES], "scores": side_scores(result)}
    return out
