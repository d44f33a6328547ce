"""A table's rules as one pure function: ``reduce(table, command) -> (table, events)``.

Everything that can happen to a table (it is created, a player joins, the creator seats bots, the game starts
when the fourth seat is taken, an action, a seat marked away or back, a leaver, an abandoned table, the turn
clock running out, the game's end and its payout, a quick-play table's wait for bots, the link to its
rematch, a deleted account's name taken out) is a :data:`Command` applied to a :class:`TableState` (a
:class:`Create` to no table: :func:`create`). The
function checks the command (a refusal is a :class:`TableError`, and the table given is left exactly as it
was), then returns the next table, one version on, and the public events of the change, which are what
every client is sent and what the journal keeps. It does no input or output and reads no clock and no
random source: a start's seed comes with the command. So it runs the same in the server, in the tests
(tests/server/test_reducer.py drives it with hypothesis) and in a replay.

What the change means for the coins is in its events, for the store to write in the same transaction:
a ``join`` with ``staked`` moves the stake from the wallet into the pot; a ``leave`` of a staked seat at an
open table and an ``abandoned`` table give the stakes back (``refunds``); the ``over`` event's ``payout``
pays the pot out. :func:`coin_list` reads them back, once, for the stores and the conservation test alike.
"""

from __future__ import annotations

import datetime as dt
import hmac
import typing
from dataclasses import dataclass, replace
from typing import Literal, NotRequired, TypedDict

from ... import new_game
from ...actions import Action
from ...errors import EstimationError
from ...game import Game
from ...results import Ended, Sides
from ...rulesets import RULESETS
from ...stakes import split_pot, split_pot_by_side

#: Where a table is in its life: open -> playing -> finished; open -> abandoned.
Status = Literal["open", "playing", "finished", "abandoned"]
STATUSES: tuple[Status, ...] = typing.get_args(Status)
#: The statuses of a table that is still going (a player sits at one such table at a time).
LIVE: tuple[Status, ...] = ("open", "playing")
#: The statuses of a table that is over.
OVER: tuple[Status, ...] = ("finished", "abandoned")


# --- the public events of a change (what every client is sent and the journal keeps) -----------------
class CreatedEvent(TypedDict):
    kind: Literal["created"]


class JoinEvent(TypedDict):
    kind: Literal["join"]
    seat: int
    name: str
    staked: bool
    bot: NotRequired[bool]


class StartEvent(TypedDict):
    kind: Literal["start"]
    players: list[str]
    dealer: int


class ActionEvent(TypedDict):
    kind: Literal["action"]
    seat: int
    action: str
    round: int
    deal: int
    bot: bool


class AwayEvent(TypedDict):
    kind: Literal["away"]
    seat: int
    away: bool
    reason: NotRequired[str]


class LeaveEvent(TypedDict):
    kind: Literal["leave"]
    seat: int
    replaced_by: Literal["bot"] | None


class AbandonedEvent(TypedDict):
    kind: Literal["abandoned"]
    reason: NotRequired[str]


class OverEvent(TypedDict):
    kind: Literal["over"]
    totals: list[int]
    places: list[int]
    ended: Ended | None
    sides: NotRequired[Sides]
    payout: NotRequired[dict[str, int]]


class QuickplayEvent(TypedDict):
    """A quick-play table's bots come at ``bots_at`` (ISO 8601, UTC) unless people fill it first."""

    kind: Literal["quickplay"]
    bots_at: str


class RematchEvent(TypedDict):
    """A finished table's rematch is ``table_id``."""

    kind: Literal["rematch"]
    table_id: int


class RenamedEvent(TypedDict):
    """A seat's name changed (a deleted account's name taken out)."""

    kind: Literal["renamed"]
    seat: int
    name: str


Event = (CreatedEvent | JoinEvent | StartEvent | ActionEvent | AwayEvent | LeaveEvent | AbandonedEvent
         | OverEvent | QuickplayEvent | RematchEvent | RenamedEvent)
Events = list[Event]


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
    #: The name its creator gave it (checked as a player's name is), or None.
    name: str | None = None
    #: A competition's table (RULES.md, Competitions): the competition's id, and the seed its game deals
    #: from (the same at every table of its stage and instance, instead of the starting command's).
    competition: int | None = None
    seed: int | str | None = None


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What a new table is asked for (:class:`Create`): its rules, and the seats bots take from the start.
    A new creation parameter is a field here with its default (and, if the table keeps it, one in
    :class:`Rules`)."""

    ruleset: str
    length: str | None = None
    stake: int = 0
    private: bool = False
    bot_seats: tuple[int, ...] = ()
    bot_level: str = "random"
    turn_seconds: int = 60
    partners: bool = False
    #: The name its creator gave it (already checked as a player's name is), or None.
    name: str | None = None
    #: A competition's table and its stage's board seed (see :class:`Rules`).
    competition: int | None = None
    seed: int | str | None = None


@dataclass(frozen=True, slots=True)
class TableState:
    """A table as the rules see it. Treated as a value: :func:`reduce` never changes one it is given (its
    seats and game are copied before a change)."""

    rules: Rules
    created_by: int
    status: Status
    version: int
    pot: int
    seats: tuple[SeatState, ...]
    game: Game | None
    #: A quick-play table: when bots take the seats nobody came for (None: not a quick-play table).
    bots_at: dt.datetime | None = None
    #: A finished table's rematch, once somebody asked for one.
    rematch_id: int | None = None


class PublicSeat(TypedDict):
    seat: int
    name: str | None
    account_id: int | None
    bot: bool
    staked: bool
    away: bool
    left: bool


class Clock(TypedDict):
    seat: int
    ms_left: int
    seconds: int


class PublicTable(TypedDict):
    """A table as the lobby and every client see it: rules, seats, status. Never a card."""

    id: int
    ruleset: str
    length: str
    stake: int
    private: bool
    bot_level: str
    turn_seconds: int
    partners: bool
    name: str | None
    competition: int | None
    status: Status
    version: int
    pot: int
    payout: dict[str, int] | None
    seats: list[PublicSeat]
    clock: Clock | None


def public_table(table_id: int, table: TableState, payout: dict[str, int] | None = None,
                 clock: Clock | None = None) -> PublicTable:
    """The one public object of a table, for a table in memory and one read from the store alike
    (``payout``: a finished staked table's split, seat as text -> coins; ``clock``: the running turn
    clock)."""
    rules = table.rules
    return {
        "id": table_id, "ruleset": rules.ruleset, "length": rules.length, "stake": rules.stake,
        "private": rules.private, "bot_level": rules.bot_level, "turn_seconds": rules.turn_seconds,
        "partners": rules.partners, "name": rules.name, "competition": rules.competition,
        "status": table.status, "version": table.version,
        "pot": table.pot,
        "payout": payout if table.status == "finished" else None,
        "seats": [{"seat": i, "name": s.name, "account_id": s.account_id, "bot": s.is_bot, "staked": s.staked,
                   "away": s.away, "left": s.left} for i, s in enumerate(table.seats)],
        "clock": clock,
    }


def admits(table: TableState, account_id: int | None, invite: str | None) -> bool:
    """Whether someone may see this table at all, the one admission check of every route and socket:
    anyone for a public table; for a private one its creator, its players (past ones too), or whoever has
    the invite code (compared in constant time). A competition's table is private and not its creator's
    (the director may be an entrant elsewhere): its players', and the server's own invite code's, which
    seats the entrants (its spectators come once its stage is over: the runtime's ``watchable``)."""
    if not table.rules.private:
        return True
    creator = table.rules.competition is None and account_id == table.created_by
    if account_id is not None and (creator or any(s.account_id == account_id for s in table.seats)):
        return True
    code = table.rules.invite_code
    return invite is not None and code is not None and hmac.compare_digest(
        invite.encode("utf-8", "surrogatepass"), code.encode())


# --- commands ---------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Create:
    """A new table, by ``created_by``, as ``settings`` ask; ``invite_code``: a private table's code (drawn
    by the caller: the reducer draws nothing)."""

    created_by: int
    settings: TableSettings
    invite_code: str | None = None


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
class Joins:
    """Several players take their seats in one change, one version on: each :class:`Join` reduced in
    turn, as if alone. A competition's table seats its entrants so (one transaction a table, not one a
    player: seating a 1,000-entrant stage, docs/performance.md)."""

    joins: tuple[Join, ...]


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
    """A player leaves (a bot plays the seat on, or, where the ruleset says so, the match ends).

    ``replaced``: a bot takes the seat even where a leaver ends the match: a competition director's
    removal, which is not the player's own act and must not take the other three's boards away
    (docs/competitions.md)."""

    account_id: int
    replaced: bool = False


@dataclass(frozen=True, slots=True)
class Abandon:
    """An open table is closed (never filled in time) and every stake given back."""

    reason: str


@dataclass(frozen=True, slots=True)
class ScheduleBots:
    """A quick-play table's bots come at ``at`` (UTC) unless people fill it first."""

    at: dt.datetime


@dataclass(frozen=True, slots=True)
class LinkRematch:
    """A finished table's rematch is ``rematch_id``, if its link is still ``expected`` (None: no rematch
    yet; the id of one nobody came to): two askers at once make one rematch, not two."""

    rematch_id: int
    expected: int | None = None


@dataclass(frozen=True, slots=True)
class Rename:
    """Every seat ``account_id`` holds or held here is shown as ``name`` from now on, in the seats and in
    the game's players (a deleted account's name taken out)."""

    account_id: int
    name: str


Command = (Join | Joins | SeatBots | Act | BotAct | SetAway | Leave | Abandon | ScheduleBots | LinkRematch
           | Rename)


def create(command: Create) -> tuple[TableState, Events]:
    """A new table, version 0, and its ``created`` event; :class:`TableError` for rules that do not exist.
    The store gives it its id."""
    settings = command.settings
    cls = RULESETS.get(settings.ruleset)
    if cls is None:
        raise TableError("bad_rules", f"unknown ruleset {settings.ruleset!r} (known: {', '.join(RULESETS)})",
                         422)
    length = settings.length or cls.default_length
    if length not in cls.lengths:
        raise TableError("bad_rules", f"unknown length {length!r} for {settings.ruleset} "
                         f"(known: {', '.join(cls.lengths)})", 422)
    rules = Rules(ruleset=settings.ruleset, length=length, stake=settings.stake, private=settings.private,
                  invite_code=command.invite_code if settings.private else None,
                  bot_level=settings.bot_level, turn_seconds=settings.turn_seconds,
                  partners=settings.partners, name=settings.name, competition=settings.competition,
                  seed=settings.seed)
    seats = tuple(SeatState(is_bot=True, name=f"Bot {s + 1}") if s in settings.bot_seats else SeatState()
                  for s in range(4))
    return TableState(rules, command.created_by, "open", 0, 0, seats, None), [{"kind": "created"}]


class Unchanged(Exception):
    """A command that changes nothing and is no refusal either (a seat marked away twice)."""


def reduce(table: TableState, command: Command) -> tuple[TableState, Events]:
    """The table after ``command`` and the public events of the change; :class:`TableError` for a refusal,
    :class:`Unchanged` for a command with nothing to do."""
    seats = [s.copy() for s in table.seats]
    bots_at, rematch_id = table.bots_at, table.rematch_id
    status: Status
    events: Events
    match command:
        case Join():
            status, pot, game, events = _join(table, seats, command)
        case Joins(joins=joins):
            if not joins:
                raise Unchanged
            after, events = table, []
            for join in joins:
                after, more = reduce(after, join)
                events.extend(more)
            return with_version(after, table.version + 1), events
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
        case ScheduleBots(at=at):
            if table.status != "open":
                raise TableError("not_open", "this table has started")
            bots_at = at
            status, pot, game, events = table.status, table.pot, table.game, [
                {"kind": "quickplay", "bots_at": at.isoformat() + "Z"}]
        case LinkRematch(rematch_id=new, expected=expected):
            if table.status != "finished":
                raise TableError("not_finished", "the game is not finished")
            if table.rematch_id != expected:
                raise TableError("rematch_made", "this table's rematch was made meanwhile")
            rematch_id = new
            status, pot, game, events = table.status, table.pot, table.game, [
                {"kind": "rematch", "table_id": new}]
        case Rename():
            status, pot, game, events = _rename(table, seats, command)
    if game is not None and game.is_over and status == "playing":
        status = "finished"
        coins = pot_split(table.rules.stake, seats, game)
        over: OverEvent = {"kind": "over", "totals": list(game.totals), "places": list(game.places),
                           "ended": game.ended}
        sides = game.sides
        if sides is not None:
            over["sides"] = sides
        if coins:
            over["payout"] = {str(k): v for k, v in coins.items()}
        events.append(over)
        pot -= sum(coins.values())
    return TableState(table.rules, table.created_by, status, table.version + 1, pot, tuple(seats),
                      game, bots_at, rematch_id), events


def _rename(table: TableState, seats: list[SeatState], c: Rename) -> tuple[Status, int, Game | None, Events]:
    mine = [i for i, s in enumerate(seats) if s.account_id == c.account_id]
    game = table.game
    if not mine or (all(seats[i].name == c.name for i in mine)
                    and (game is None or all(game.players[i] == c.name for i in mine))):
        raise Unchanged
    events: Events = []
    for i in mine:
        seats[i].name = c.name
        events.append({"kind": "renamed", "seat": i, "name": c.name})
    if game is not None:
        game = game.clone()
        game.players = tuple(c.name if i in mine else p for i, p in enumerate(game.players))
    return table.status, table.pot, game, events


def _join(table: TableState, seats: list[SeatState], c: Join) -> tuple[Status, int, Game | None, Events]:
    rules = table.rules
    if table.status != "open":
        raise TableError("not_open", "this table is not taking players")
    if not admits(table, c.account_id, c.invite):
        raise no_such_table()
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


def _seat_bots(table: TableState, seats: list[SeatState], c: SeatBots) -> tuple[Status, int, Game | None,
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
                   events: Events) -> tuple[Status, Game | None]:
    if not all(s.taken for s in seats):
        return table.status, table.game
    names = [s.name or f"Seat {i}" for i, s in enumerate(seats)]
    if table.rules.seed is not None:
        seed = table.rules.seed  # a competition's board seed: every table of the stage deals the same
    game = new_game(table.rules.ruleset, table.rules.length, seed, names, partners=table.rules.partners)
    events.append({"kind": "start", "players": names, "dealer": game.dealer})
    return "playing", game


def _act(table: TableState, seats: list[SeatState],
         c: Act | BotAct) -> tuple[Status, int, Game | None, Events]:
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


def _leave(table: TableState, seats: list[SeatState], c: Leave) -> tuple[Status, int, Game | None, Events]:
    seat = next((i for i, s in enumerate(seats) if s.account_id == c.account_id and not s.left), None)
    if seat is None:
        raise TableError("not_seated", "you have no seat at this table")
    if table.status == "open":
        staked = seats[seat].staked
        seats[seat] = SeatState()
        events: Events = [{"kind": "leave", "seat": seat, "replaced_by": None}]
        status: Status = table.status
        if not any(s.account_id is not None for s in seats):
            status = "abandoned"
            events.append({"kind": "abandoned"})
        return status, table.pot - (table.rules.stake if staked else 0), table.game, events
    game = table.game
    if table.status != "playing" or game is None:
        raise TableError("not_playing", "this table is over")
    seats[seat].left = True
    if game.ruleset.leaver_ends_match and not c.replaced:
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


@dataclass(frozen=True, slots=True)
class CoinMove:
    """One movement of coins a change makes: a ``stake`` (wallet -> pot: ``coins`` negative), a ``refund``
    of an account's stakes at the table (pot -> wallet) or a seat's ``payout`` (pot -> wallet; a payout row
    of 0 coins too, for every staking seat: the split as it was paid)."""

    kind: Literal["stake", "refund", "payout"]
    seat: int
    account_id: int
    coins: int


def coin_list(before: TableState, after: TableState, events: Events) -> list[CoinMove]:
    """Every movement of coins a change makes, read from its events: the one reading of them, which the
    stores write (the SQL store as ledger rows) and the conservation test checks."""
    moves: list[CoinMove] = []
    refunded: set[int] = set()
    stake = before.rules.stake
    if stake <= 0:
        return moves
    for event in events:
        if event["kind"] == "join" and event.get("staked"):
            account = after.seats[event["seat"]].account_id
            if account is not None:
                moves.append(CoinMove("stake", event["seat"], account, -stake))
        elif event["kind"] == "leave" and before.status == "open" and before.seats[event["seat"]].staked:
            refunded.add(event["seat"])
            account = before.seats[event["seat"]].account_id
            if account is not None:
                moves.append(CoinMove("refund", event["seat"], account, stake))
        elif event["kind"] == "abandoned":
            for i, s in enumerate(before.seats):
                if s.staked and s.account_id is not None and i not in refunded:
                    moves.append(CoinMove("refund", i, s.account_id, stake))
        elif event["kind"] == "over":
            for seat, coins in (event.get("payout") or {}).items():
                account = before.seats[int(seat)].account_id
                if account is not None:
                    moves.append(CoinMove("payout", int(seat), account, int(coins)))
    return moves


def coin_moves(before: TableState, after: TableState, events: Events) -> dict[int, int]:
    """What a change moves between the wallets and the pot, per account (coins into the wallet: positive):
    :func:`coin_list` summed. The pot moves by minus their sum: coins are never made or lost at a table."""
    moves: dict[int, int] = {}
    for move in coin_list(before, after, events):
        if move.coins:
            moves[move.account_id] = moves.get(move.account_id, 0) + move.coins
    return moves


def with_version(table: TableState, version: int) -> TableState:
    return replace(table, version=version)
