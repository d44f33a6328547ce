"""What the server offers: liveness, the rulesets a table may be made with, the bot levels."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ...bots import OFFERED
from ...rulesets import RULESETS
from .deps import TOO_MANY, HubDep

router = APIRouter(prefix="/api", responses=TOO_MANY)


class RoundOut(BaseModel):
    kind: str
    trump: str | None


class RulesetOut(BaseModel):
    """What a client needs to know of a ruleset without testing its name (``Ruleset.describe``)."""

    name: str
    lengths: list[str]
    default_length: str
    rounds: dict[str, list[RoundOut]] = Field(
        description="Each length's rounds in order: the kind a round is dealt as and its fixed trump (null: "
                    "none until the declarations name one).")
    kinds: list[str] = Field(description="Every kind a round can be (the replay's and the calculator's).")
    called_kinds: list[str] = Field(description="The kinds whose Caller comes from a Call.")
    verbs: dict[str, str | None] = Field(
        description="The verb of each part of a deal (offer, decline, auction, join, pass, declare, "
                    "estimate, play), null where the ruleset has none: the same object as a view's `verbs`.")
    offer_role: str = Field(description="The role marker of a seat that took the offer: dash_call or dash.")
    risk_levels: int = Field(description="The highest Risk level (0: none).")
    score_lines: dict[str, str] = Field(description="The score sheet lines used: breakdown field -> heading.")
    saaydeh: bool
    leaver_ends_match: bool
    level_points: dict[str, int] | None = Field(
        description="Level points for a match won, drawn and lost (null: the ruleset keeps none).")
    with_bids: bool
    offer_kinds: list[str] = Field(
        description="The kinds whose deal opens with the offer to sit out on zero.")
    first_estimator: int = Field(
        description="In a round without a Call, who estimates first: this many seats after the dealer "
                    "(1: the dealer's left; 0: the dealer).")
    display_names: dict[str, str] = Field(description="The name to show, by language (`en` always).")
    marker_tips: dict[str, dict[str, str]] = Field(
        description="Language -> marker key -> the tooltip of that marker at this ruleset's table.")
    roles: list[str] = Field(description="The role markers a seat can carry in this ruleset.")
    markers: list[str] = Field(description="Every marker a table of this ruleset shows.")
    badge_wins: int = Field(description="Wins that earn the badge (0: no badge).")


def bot_levels() -> list[str]:
    """The bot levels a new table or competition may seat: those offered to a person
    (:data:`~estimation.bots.base.OFFERED`; never the tournament-only ``omniscient``)."""
    return list(OFFERED)


@router.get("/health", tags=["server"])
async def health() -> dict[str, Any]:
    """Liveness only: the process answers. Its figures are Prometheus metrics on a port of their own
    (``ESTIMATION_METRICS_PORT``, see docs/deploy.md), never on the public one."""
    return {"ok": True}


@router.get("/rulesets", tags=["rules"])
async def rulesets() -> list[RulesetOut]:
    """The rulesets and lengths a table may be created with."""
    return [RulesetOut(**c().describe()) for c in RULESETS.values()]


class TableLimitsOut(BaseModel):
    min_turn_seconds: int = Field(description="The shortest turn clock a table may have (0: no clock).")
    max_turn_seconds: int


@router.get("/table-limits", tags=["rules"])
async def table_limits(hub: HubDep) -> TableLimitsOut:
    """What a new table's settings may be, for a form to say before it is sent."""
    return TableLimitsOut(min_turn_seconds=hub.settings.min_turn_seconds, max_turn_seconds=3600)


@router.get("/bots", tags=["rules"])
async def bots() -> dict[str, list[str]]:
    """The bot levels that can fill empty seats."""
    return {"levels": bot_levels()}


