"""The shapes the API answers with that more than one group of routes shares: an account, a table, a game."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..storage.models import Account
from ..table.reducer import PublicTable


class AccountOut(BaseModel):
    id: int
    name: str
    guest: bool
    balance: int


class SessionOut(BaseModel):
    token: str = Field(description="Send as 'Authorization: Bearer TOKEN', and in the WebSocket hello.")
    expires_in: int = Field(description="Seconds until the token expires.")
    account: AccountOut


class SeatOut(BaseModel):
    seat: int
    name: str | None
    account_id: int | None
    bot: bool
    staked: bool
    away: bool
    left: bool


class TableOut(BaseModel):
    id: int
    ruleset: str
    length: str
    partners: bool = Field(False, description="A partnership table: seats 0+2 against 1+3.")
    name: str | None = Field(None, description="The name its creator gave it (shown as text), or null.")
    stake: int
    private: bool
    bot_level: str
    turn_seconds: int
    status: str
    version: int
    pot: int
    payout: dict[str, int] | None = Field(
        default=None,
        description="A finished staked table's pot split (seat -> coins, RULES.md koutchina ruling 11); "
                    "null before the end and at unstaked tables.")
    seats: list[SeatOut]
    invite_code: str | None = Field(None, description="Shown only to the table's creator.")
    competition: int | None = Field(None, description="A competition's table: the competition's id (quick "
                                                      "phrases only, no stakes, spectators once its stage "
                                                      "is over at every table).")


class GameOut(BaseModel):
    table_id: int
    seat: int
    ruleset: str
    length: str
    total: int
    place: int
    outcome: str
    left: bool
    rounds: int
    made: int
    coins: int
    partners: bool = Field(False, description="A partnership game: place and outcome are the side's.")
    side_total: int | None = Field(None, description="The side's total in a partnership game.")
    finished_at: str


def account_out(a: Account) -> AccountOut:
    return AccountOut(id=a.id, name=a.name, guest=a.is_guest, balance=a.balance)




def table_out(public: PublicTable, invite: str | None = None) -> TableOut:
    return TableOut.model_validate({**public, "invite_code": invite})


