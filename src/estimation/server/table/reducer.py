"""A table's rules as one pure function: ``reduce(table, command) -> (table, events)``.

Everything that can happen to a table (a player joins, the creator seats bots, the game starts when the
fourth seat is taken, an action, a seat marked away or back, a leaver, an abandoned table, the turn clock
running out, the game's end and its payout) is a :data:`Command` applied to a :class:`TableState`. The
function checks the command (a refusal is a :class:`TableError`, and the table given is left exactly as it
was), then returns the next table, one version on, and the public events of the change, which are what
every client is sent and what the journal keeps. It does no input or output and reads no clock and no
random source: a start's seed comes with the command. So it runs the same in the server, in the tests
(tests/server/test_reducer.py drives it with hypothesis) and in a replay.

What the change means for the coins is in its events, for the store to write in the same transaction:
a ``join`` with ``staked`` moves the stake from the wallet into the pot; a ``leave`` of a staked seat at an
open table and an ``abandoned`` table give the stakes back (``refunds``); the ``over`` event's ``payout``
pays the pot out. :func:`coin_moves` reads them back.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ... import new_game
from ...actions import Action
from ...errors import EstimationError
from ...game import Game
from ...stakes import split_pot, split_pot_by_side

Events = list[dict[str, Any]]


class TableError(Exception):
    """A refusal to pass back to the one client that asked: ``code`` is machine-readable, the text human."""

    def __init__(self, code: str, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status


def no_such_table() -> TableError:
    """The one answer for a table that is not there and for a private table to an outsider, on every
    route and on the socket: the two must not be told apart."""
    return TableError("no_such_table", "there is no such table", 404)


@dataclass(slots=True)
class SeatState:
    account_id: int | None = None
    name: str | None = None
    is_bot: bool = False
    staked: bool = False
    away: bool = False
    left: bool = False

    @property
    def taken(self) -> bool:
        return self.is_bot or self.account_id is not None

    def copy(self) -> SeatState:
        """Positional, about a fifth of the cost of ``dataclasses.replace`` (which binds every field by
        keyword)."""
        return SeatState(self.account_id, self.name, self.is_bot, self.staked, self.away, self.left)

    @property
    def bot_plays(self) -> bool:
        """A bot moves for this seat: a bot seat, a human who left, or a human marked away."""
        return self.is_bot or self.left or self.away


@dataclass(slots=True)
class Rules:
    ruleset: str
    length: str
    stake: int
    private: bool
    invite_code: str | None
    bot_level: str
    turn_seconds: int
    #: A partnership table (RULES.md, Partnerships): seats 0+2 against 1+3, standings, history and the pot
    #: by side.
    partners: bool = False
    #: A competition's table (RULES.md, Competitions): the competition's id, and the seed its game deals
    #: from (the same at every table of its stage and instance, instead of the starting command's).
    competition: int | None = None
    seed: int | str | None = None


@dataclass(frozen=True, slots=True)
class TableState:
    """A table as the rules see it. Treated as a value: :func:`reduce` never changes one it is given (its
    seats and game are copied before a change)."""

    rules: Rules
    created_by: int
    status: str  # open, playing, finished, abandoned
    version: int
    pot: int
    seats: tuple[SeatState, ...]
    game: Game | None


# --- commands ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Join:
    """A player takes a seat (``seat`` None: the first empty one). ``seed`` deals the game if it fills
    the table."""

    account_id: int
    name: str
    is_guest: bool = False
    seat: int | None = None
    stake: bool = False
    invite: str | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class SeatBots:
    """The creator seats a bot in every empty seat, which starts the game."""

    account_id: int
    seed: int = 0


@dataclass(frozen=True, slots=True)
class Act:
    """A person's action for their seat (on ``version``, if they say which they saw); it brings an away
    seat back."""

    seat: int
    action: str
    version: int | None = None


@dataclass(frozen=True, slots=True)
class BotAct:
    """A bot's move for a seat a bot plays; ``timeout``: the turn clock ran out on a person, whose seat is
    marked away first."""

    seat: int
    action: str
    timeout: bool = False


@dataclass(frozen=True, slots=True)
class SetAway:
    """A seat is marked away (its socket went) or back."""

    seat: int
    away: bool


@dataclass(frozen=True, slots=True)
class Leave:
    account_id: int


@dataclass(frozen=True, slots=True)
class Abandon:
    """An open table is closed (never filled in time) and every stake given back."""

    reason: str


Command = Join | SeatBots | Act | BotAct | SetAway | Leave | Abandon


class Unchanged(Exception):
    """A command that changes nothing and is no refusal either (a seat marked away twice)."""


def reduce(table: TableState, command: Command) -> tuple[TableState, Events]:
    """The table after ``command`` and the public events of the change; :class:`TableError` for a refusal,
    :class:`Unchanged` for a command with nothing to do."""
    seats = [s.copy() for s in table.seats]
    match command:
        case Join():
            status, pot, game, events = _join(table, seats, command)
        case SeatBots():
            status, pot, game, events = _seat_bots(table, seats, command)
        case Act() | BotAct():
            status, pot, game, events = _act(table, seats, command)
        case SetAway(seat=seat, away=away):
            if table.status != "playing" or seats[seat].away == away or seats[seat].left:
                raise Unchanged
            seats[seat].away = away
            status, pot, game, events = table.status, table.pot, table.game, [
                {"kind": "away", "seat": seat, "away": away}]
        case Leave():
            status, pot, game, events = _leave(table, seats, command)
        case Abandon(reason=reason):
            if table.status != "open":
                raise TableError("not_open", "this table has started")
            pot = table.pot - table.rules.stake * sum(s.staked and s.account_id is not None for s in seats)
            seats = [SeatState(is_bot=True, name=s.name) if s.is_bot else SeatState() for s in seats]
            status, game, events = "abandoned", table.game, [
                {"kind": "abandoned", "reason": reason}]
    if game is not None and game.is_over and status == "playing":
        status = "finished"
        coins = pot_split(table.rules.stake, seats, game)
        over: dict[str, Any] = {"kind": "over", "totals": list(game.totals), "places": game.places,
                                "ended": game.ended}
        if game.partners:
            over["sides"] = game.sides
        if coins:
            over["payout"] = {str(k): v for k, v in coins.items()}
        events.append(over)
        pot -= sum(coins.values())
    return TableState(table.rules, table.created_by, status, table.version + 1, pot, tuple(seats),
                      game), events


def _join(table: TableState, seats: list[SeatState], c: Join) -> tuple[str, int, Game | None, Events]:
    rules = table.rules
    if table.status != "open":
        raise TableError("not_open", "this table is not taking players")
    if rules.private and c.invite != rules.invite_code and c.account_id != table.created_by:
        raise no_such_table()  # the server asks TableRuntime.admits first, in constant time
    if any(s.account_id == c.account_id for s in seats):
        raise TableError("already_seated", "you already have a seat at this table")
    seat = c.seat
    if seat is None:
        seat = _free_seat(rules, seats)
        if seat is None:
            raise TableError("full", "every seat is taken")
    elif not 0 <= seat < len(seats):
        raise TableError("no_such_seat", f"there is no seat {seat}", 422)
    elif seats[seat].taken:
        raise TableError("seat_taken", f"seat {seat} is taken")
    staking = c.stake and rules.stake > 0
    if staking and c.is_guest:
        raise TableError("guest_cannot_stake", "guests cannot stake: register an account", 403)
    seats[seat] = SeatState(account_id=c.account_id, name=c.name, staked=staking)
    events: Events = [{"kind": "join", "seat": seat, "name": c.name, "staked": staking}]
    pot = table.pot + (rules.stake if staking else 0)
    status, game = _start_if_full(table, seats, c.seed, events)
    return status, pot, game, events


def _free_seat(rules: Rules, seats: list[SeatState]) -> int | None:
    """The seat a player who asks for none gets: the first free one; at a partnership table, first a free
    seat opposite a human who has no partner yet, so that people who join one after the other play
    together, and the bots make the other side."""
    free = [i for i, s in enumerate(seats) if not s.taken]
    if rules.partners:
        for i in free:
            if seats[(i + 2) & 3].account_id is not None:
                return i
    return free[0] if free else None


def _seat_bots(table: TableState, seats: list[SeatState], c: SeatBots) -> tuple[str, int, Game | None,
                                                                                   Events]:
    if c.account_id != table.created_by:
        raise TableError("forbidden", "only the table's creator can seat bots", 403)
    if table.status != "open":
        raise TableError("not_open", "this table is not taking players")
    empty = [i for i, s in enumerate(seats) if not s.taken]
    if not empty:
        raise TableError("full", "every seat is taken")
    events: Events = []
    for i in empty:
        seats[i] = SeatState(is_bot=True, name=f"Bot {i + 1}")
        events.append({"kind": "join", "seat": i, "name": f"Bot {i + 1}", "staked": False, "bot": True})
    status, game = _start_if_full(table, seats, c.seed, events)
    return status, table.pot, game, events


def _start_if_full(table: TableState, seats: list[SeatState], seed: int | str,
                   events: Events) -> tuple[str, Game | None]:
    if not all(s.taken for s in seats):
        return table.status, table.game
    names = [s.name or f"Seat {i}" for i, s in enumerate(seats)]
    if table.rules.seed is not None:
        seed = table.rules.seed  # a competition's board seed: every table of the stage deals the same
    game = new_game(table.rules.ruleset, table.rules.length, seed, names, partners=table.rules.partners)
    events.append({"kind": "start", "players": names, "dealer": game.dealer})
    return "playing", game


def _act(table: TableState, seats: list[SeatState], c: Act | BotAct) -> tuple[str, int, Game | None, Events]:
    """Checked in boardgame.io's order: game over? whose turn? legal? stale version?"""
    game = table.game
    if game is None or table.status == "open":
        raise TableError("not_started", "the game has not started")
    if game.is_over or table.status != "playing":
        raise TableError("game_over", "the game is over")
    seat = c.seat
    if game.to_move != seat:
        raise TableError("not_your_turn", f"it is seat {game.to_move}'s turn, not yours")
    if isinstance(c, BotAct) and not (seats[seat].bot_plays or c.timeout):
        raise TableError("not_a_bot_seat", f"a person plays seat {seat}")
    try:
        action = Action.parse(c.action)
    except EstimationError as exc:
        raise TableError("invalid", str(exc)) from None
    if action.seat != seat:
        raise TableError("not_your_seat", f"you play seat {seat}, not seat {action.seat}")
    if action not in game.legal_actions():
        try:
            game.clone().apply(action)
            reason = "not a legal action now"
        except EstimationError as exc:
            reason = str(exc)
        raise TableError("illegal", reason)
    if isinstance(c, Act) and c.version is not None and c.version != table.version:
        raise TableError("stale", f"you acted on version {c.version}; the table is at {table.version}")
    events: Events = []
    if isinstance(c, Act) and seats[seat].away:
        seats[seat].away = False
        events.append({"kind": "away", "seat": seat, "away": False})
    if isinstance(c, BotAct) and c.timeout and not seats[seat].away:
        seats[seat].away = True
        events.append({"kind": "away", "seat": seat, "away": True, "reason": "timeout"})
    game = game.clone()
    round_no, deal = game.round_no, game.deal_no + 1
    game.apply(action)
    events.append({"kind": "action", "seat": seat, "action": action.text, "round": round_no, "deal": deal,
                   "bot": isinstance(c, BotAct)})
    return table.status, table.pot, game, events


def _leave(table: TableState, seats: list[SeatState], c: Leave) -> tuple[str, int, Game | None, Events]:
    seat = next((i for i, s in enumerate(seats) if s.account_id == c.account_id and not s.left), None)
    if seat is None:
        raise TableError("not_seated", "you have no seat at this table")
    if table.status == "open":
        staked = seats[seat].staked
        seats[seat] = SeatState()
        events: Events = [{"kind": "leave", "seat": seat, "replaced_by": None}]
        status = table.status
        if not any(s.account_id is not None for s in seats):
            status = "abandoned"
            events.append({"kind": "abandoned"})
        return status, table.pot - (table.rules.stake if staked else 0), table.game, events
    game = table.game
    if table.status != "playing" or game is None:
        raise TableError("not_playing", "this table is over")
    seats[seat].left = True
    if game.ruleset.leaver_ends_match:
        game = game.clone()
        game.end_match_left(seat)
        return table.status, table.pot, game, [{"kind": "leave", "seat": seat, "replaced_by": None}]
    return table.status, table.pot, game, [{"kind": "leave", "seat": seat, "replaced_by": "bot"}]


# --- what follows from a table ----------------------------------------------------------------------
def leavers(seats: tuple[SeatState, ...] | list[SeatState], game: Game) -> set[int]:
    gone = {i for i, s in enumerate(seats) if s.left}
    if game.ended is not None:
        gone.add(int(game.ended["seat"]))
    return gone


def pot_split(stake: int, seats: tuple[SeatState, ...] | list[SeatState], game: Game) -> dict[int, int]:
    """Coins per staking seat once the game is over (ruling 11). Derived, not stored: nobody can leave a
    finished table, so the leavers, the stakers and the totals no longer change."""
    gone = leavers(seats, game)
    stakers = [i for i, s in enumerate(seats) if s.staked and s.account_id is not None]
    forfeit = [s for s in stakers if s in gone]
    sides = game.sides
    if sides is not None:  # partners: the pot by side
        return split_pot_by_side(stake, stakers, sides["places"], forfeit)
    return split_pot(stake, stakers, game.totals, forfeit)


def coin_moves(before: TableState, after: TableState, events: Events) -> dict[int, int]:
    """What a change moves between the wallets and the pot, per account (coins into the wallet: positive),
    read from its events. The pot moves by minus their sum: coins are never made or lost at a table."""
    moves: dict[int, int] = {}

    def move(account: int | None, coins: int) -> None:
        if account is not None and coins:
            moves[account] = moves.get(account, 0) + coins

    refunded: set[int] = set()
    stake = before.rules.stake
    for event in events:
        kind = event["kind"]
        if kind == "join" and event.get("staked"):
            move(after.seats[event["seat"]].account_id, -stake)
        elif kind == "leave" and before.status == "open" and before.seats[event["seat"]].staked:
            refunded.add(event["seat"])
            move(before.seats[event["seat"]].account_id, stake)
        elif kind == "abandoned":
            for i, s in enumerate(before.seats):
                if s.staked and i not in refunded:
                    move(s.account_id, stake)
        elif kind == "over":
            for seat, coins in (event.get("payout") or {}).items():
                move(before.seats[int(seat)].account_id, int(coins))
    return moves


def with_version(table: TableState, version: int) -> TableState:
    return replace(table, version=version)
