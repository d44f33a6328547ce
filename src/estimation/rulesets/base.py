"""The seam between the shared round engine and a ruleset.

A ruleset says only what differs: the rounds of each length, the declaration phase (who may say what before
the first card) with the state it keeps while the deal is declared, what of that state is public, and
scoring. Dealing, trick play, markers, the multiplier's bookkeeping, totals and partnerships live in
:mod:`estimation.game` once, for every ruleset, and read a ruleset only through this class.

The ruleset's hooks see the game as :class:`GameState`, a protocol of the game's state that
:class:`estimation.game.Game` fulfils: this module (and the views, the record writer and the fast path, typed
on the same protocol) sits below the game and never imports it.

A new ruleset is one module with a :class:`Ruleset` subclass and one entry in ``rulesets.RULESETS``
(``tests/test_toy_ruleset.py`` holds a whole one, registered by the test). The game, views, records, the
calculator and the CLI never test a ruleset's name: they read what the class declares. What a client shows
of a ruleset is declared here too, for every ruleset alike: its name by language (``display_names``), lengths
and default length, round kinds, level points and badge (``level_points``, ``badge_wins``), whether it has
the Sa'aydeh multiplier (``saaydeh``), the roles and markers its table shows (``role_markers``,
``shown_markers``) and their tooltips by language (``marker_tips``); :meth:`Ruleset.describe` gives all of it
as JSON.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Literal, NamedTuple, Protocol, Self

from ..actions import Action, Verb
from ..cards import Trump
from ..results import Ended, RoundResult, Sides, outcomes
from ..scoring import RoundFacts, SeatScore


class Phase(enum.StrEnum):
    DASH = "dash"
    AUCTION = "auction"
    DECLARE = "declare"
    ESTIMATE = "estimate"
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class RoundSpec:
    """One round of a length: ``kind`` as the record's replay output names it, and a fixed trump if any."""

    kind: str
    trump: Trump | None = None


@dataclass(slots=True)
class Declarations:
    """A deal's declaration state, owned by the ruleset that made it (``Ruleset.declaration_state``).

    The engine makes one per deal (``game.decl``) and never looks inside: it only copies it with the game.
    A ruleset subclasses it as a dataclass to add its own fields (an auction's standing call, egyptian's
    With seats...). :meth:`copy` copies lists and shares everything else, so keep the other fields
    immutable (ints, tuples, None). This base holds the zero offer's state, which the shared offer helpers
    below use.
    """

    #: Seats that took the offer to sit the deal out on zero (a Dash Call, egyptian's Dash), in order.
    dash_seats: list[int] = field(default_factory=list)
    #: How many seats have been asked the offer.
    asked: int = 0

    def copy(self) -> Self:
        cls: Any = type(self)  # the ruleset's own subclass: its fields in order, the base's first
        values = [getattr(self, name) for name in _field_names(cls)]
        other: Self = cls(*[v.copy() if type(v) is list else v for v in values])
        return other


def _field_names(cls: type[Declarations]) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return names


_FIELDS: dict[type[Declarations], tuple[str, ...]] = {}


class PublicDeclarations(NamedTuple):
    """What a deal's declarations have made public so far, in the view's terms (``Game.view`` and the bots'
    ``Info``): the offer's takers, the standing call or bid (number, trump, seat), the seats With on it, and
    a declared contract (number, trump). A ruleset without one of them leaves it empty."""

    dash_seats: tuple[int, ...] = ()
    standing: tuple[int, Trump, int] | None = None
    with_seats: tuple[int, ...] = ()
    declared: tuple[int, Trump] | None = None


#: The table's markers whose meaning a ruleset says in :attr:`Ruleset.marker_tips` (the keys the browser's
#: chips use): the dealer, each role (``dashcall`` is the role ``dash_call``), each Risk level, a seat that
#: left, the multiplier and the Sa'aydeh. Avoid, bust, away and Over / Under mean the same in every ruleset.
MARKER_TIP_KEYS = ("dealer", "caller", "with", "dashcall", "dash", "risk", "risk2", "risk3", "left",
                   "multiplier", "saaydeh")
#: A seat's public role marker (``Ruleset.seat_roles``, a view's ``markers[s]["role"]``).
Role = Literal["caller", "with", "dash_call", "dash"]
#: A seat's role marker -> its key in :data:`MARKER_TIP_KEYS`.
ROLE_TIP_KEYS: dict[Role, str] = {"caller": "caller", "with": "with", "dash_call": "dashcall", "dash": "dash"}

#: The parts of a ruleset's vocabulary a client needs to draw its panels, and the verb of each (or None):
#: the offer to sit out on zero and its refusal, the auction's verb, joining the standing bid, passing,
#: the auction winner's declaration, the estimate and the card.
VERB_ROLES = ("offer", "decline", "auction", "join", "pass", "declare", "estimate", "play")


class GameState(Protocol):
    """A match as the rulesets, the views, the record writer and the fast path read (and the rulesets' hooks
    change) it: :class:`estimation.game.Game` is the implementation, whose docstrings say what each means.

    Typing on this rather than on the class keeps every module that reads a game below it in the import
    graph, so that the game can use them (its ``view``, ``record`` and ``play_state``).
    """

    # the match
    ruleset: Ruleset
    partners: bool
    length: str
    schedule: tuple[RoundSpec, ...]
    seed: int | str
    players: tuple[str, ...]
    first_dealer: int
    multiplier: int
    round_results: list[RoundResult]
    deal_log: list[tuple[int, int, tuple[int, ...], list[Action]]]
    ended: Ended | None
    round_no: int
    deal_no: int
    # the deal
    dealt: tuple[int, ...]
    hands: list[int]
    actions: list[Action]
    phase: Phase
    turn: int | None
    kind: str
    trump: Trump
    #: The ruleset's own declaration state (its :attr:`Ruleset.declaration_state`).
    decl: Any
    caller: int | None
    estimates: list[int | None]
    est_order: tuple[int, ...]
    est_pos: int
    # the play
    leader: int
    trick: list[int]
    tricks_won: list[int]
    trick_log: list[tuple[int, tuple[int, ...], int]]
    avoid: list[int]

    @property
    def spec(self) -> RoundSpec: ...
    @property
    def dealer(self) -> int: ...
    @property
    def to_move(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    @property
    def totals(self) -> tuple[int, ...]: ...
    @property
    def places(self) -> list[int]: ...
    @property
    def sides(self) -> Sides | None: ...
    @property
    def rounds(self) -> int: ...

    def legal_actions(self) -> tuple[Action, ...]: ...
    def start_play(self, leader: int) -> None: ...
    def end_deal_without_play(self) -> None: ...


# Bound once: Python 3.11 looks enum members up through a slow attribute hook (see estimation.game).
_DASH = Phase.DASH
_ESTIMATE = Phase.ESTIMATE
_PLAY = Phase.PLAY


class Ruleset:
    """Base class; subclasses fill the class attributes and the declaration/scoring hooks."""

    #: The ruleset's name in records, views and URLs.
    name: ClassVar[str]
    #: Its name as people read it, by language code: "en" always, which a client shows for a language
    #: missing here (:meth:`display_name`).
    display_names: ClassVar[dict[str, str]] = {}
    #: Each length's rounds, and the length of a game that names none.
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]]
    default_length: ClassVar[str]
    #: Every verb a record of this ruleset may use (the others are refused by name).
    verbs: ClassVar[frozenset[Verb]]
    #: The verb of each of :data:`VERB_ROLES` this ruleset has (the view's ``verbs``).
    verb_roles: ClassVar[dict[str, Verb]] = {"estimate": Verb.EST, "play": Verb.PLAY}
    #: Every ``kind`` a round can have (the replay's ``kind``; the calculator's choices), and those whose
    #: Caller comes from a Call (given to the calculator) rather than from the estimates.
    round_kinds: ClassVar[tuple[str, ...]] = ()
    called_kinds: ClassVar[frozenset[str]] = frozenset()
    #: The highest Risk level :meth:`risk_level` gives (0: no Risk in this ruleset).
    risk_levels: ClassVar[int] = 0
    #: The score sheet's lines this ruleset uses: :class:`~estimation.scoring.SeatScore` field -> the
    #: column's heading (the CLI's breakdown, the protocol's ``/api/rulesets``).
    score_lines: ClassVar[dict[str, str]] = {"base": "Base"}
    #: Whether all four missing doubles the next round (the Sa'aydeh).
    saaydeh: ClassVar[bool] = True
    #: Whether a player leaving ends the match (egyptian) rather than a bot taking the seat.
    leaver_ends_match: ClassVar[bool] = False
    #: Level points per player for a match won, drawn and lost (None: this ruleset keeps none), and the
    #: wins that earn the badge (:meth:`match_level_points` pays them for a finished match).
    level_points: ClassVar[dict[str, int] | None] = None
    badge_wins: ClassVar[int] = 0
    #: The tooltip of each marker of :data:`MARKER_TIP_KEYS`, by language code ("en" always): one for every
    #: marker a table of this ruleset shows (:meth:`shown_markers`), and for one it never shows a line saying
    #: why (a rules page lists every marker). The same chip means another thing in another ruleset (a
    #: Caller's ±10 or +20 / -10, a Dash's 10 or 23), so the texts are the ruleset's.
    marker_tips: ClassVar[dict[str, dict[str, str]]] = {}
    #: The per-deal declaration state this ruleset keeps: the engine makes one for every deal dealt, as
    #: ``game.decl``, before :meth:`begin_deal`.
    declaration_state: ClassVar[type[Declarations]] = Declarations

    # --- declarations -----------------------------------------------------------------------------
    def begin_deal(self, game: GameState) -> None:
        """Set the phase and the first seat to act for a deal that was just dealt."""
        raise NotImplementedError

    def legal_declarations(self, game: GameState) -> Sequence[Action]:
        raise NotImplementedError

    def apply_declaration(self, game: GameState, action: Action) -> None:
        """Apply a declaration already known to be legal (the unchecked path)."""
        raise NotImplementedError

    def explain_illegal(self, game: GameState, action: Action) -> str:
        """Why ``action`` is not legal now; called only after it was found illegal."""
        return "not a legal action now"

    # --- what the declarations made public (views, bots) ---------------------------------------------
    def public_declarations(self, game: GameState) -> PublicDeclarations:
        """The public facts of the declarations so far; the base knows only the offer's takers."""
        return PublicDeclarations(tuple(game.decl.dash_seats))

    def trump_in_force(self, game: GameState) -> Trump | None:
        """The trump the cards will be played in as things stand, or None while it is not public.

        RULES.md: "the trump shown is the trump in force". The base: a round's fixed trump from the start,
        any other once the estimates are on (the auction, if any, is over). A ruleset whose declarations
        change the trump while the estimates are made (a Super Call) overrides this.
        """
        if game.spec.trump is None and game.phase is not _ESTIMATE and game.phase is not _PLAY:
            return None
        return game.trump

    #: The role marker of a seat that took the offer to sit out on zero.
    offer_role: ClassVar[Role] = "dash_call"

    def seat_roles(self, game: GameState) -> list[Role | None]:
        """Each seat's public role marker: ``caller``, ``with``, ``dash_call``, ``dash`` or None.

        The base marks the Caller and the offer's takers; a ruleset with With seats or plain Dashes adds them.
        """
        roles: list[Role | None] = [None, None, None, None]
        for s in game.decl.dash_seats:
            roles[s] = self.offer_role
        if game.caller is not None:
            roles[game.caller] = "caller"
        return roles

    def risk_in_play(self, game: GameState) -> tuple[int | None, int]:
        """(the last estimator, its Risk level by this ruleset's rule) once the estimates are all in;
        (None, 0) before."""
        if game.phase is not _PLAY or not game.est_order:
            return None, 0
        return game.est_order[-1], self.risk_level(self.facts(game))

    # --- shared pieces: the zero offer and the estimates work alike in every ruleset ------------------
    #: The offer to sit the round out on zero, before the auction: (take, decline) verbs.
    offer_verbs: ClassVar[tuple[Verb, Verb]] = (Verb.DASHCALL, Verb.NODASH)
    max_zeros: ClassVar[int] = 2

    def begin_offer(self, game: GameState) -> None:
        game.phase = _DASH
        game.decl.asked = 0
        game.turn = (game.dealer + 1) & 3

    def offer_actions(self, seat: int) -> tuple[Action, ...]:
        key = (seat, self.offer_verbs)
        found = _OFFERS.get(key)
        if found is None:
            take, decline = self.offer_verbs
            found = _OFFERS[key] = (Action.bare(seat, take), Action.bare(seat, decline))
        return found

    def apply_offer(self, game: GameState, action: Action) -> None:
        """Each seat is asked once, from the dealer's left; once two have taken it the rest are not."""
        decl = game.decl
        if action.verb is self.offer_verbs[0]:
            decl.dash_seats.append(action.seat)
        decl.asked += 1
        if decl.asked == 4 or len(decl.dash_seats) == self.max_zeros:
            self.begin_auction(game)
        else:
            game.turn = (game.dealer + 1 + decl.asked) & 3

    def begin_auction(self, game: GameState) -> None:
        raise NotImplementedError

    def begin_estimates(self, game: GameState, order: tuple[int, ...]) -> None:
        game.phase = _ESTIMATE
        game.est_order = order
        game.est_pos = 0
        game.turn = order[0]

    def max_estimate(self, game: GameState) -> int:
        return 13

    def zeros(self, game: GameState) -> int:
        """Seats on zero so far: the offer's takers and every estimate of 0 made."""
        estimates = game.estimates
        return len(game.decl.dash_seats) + [estimates[s] for s in game.est_order[: game.est_pos]].count(0)

    def estimate_bounds(self, game: GameState) -> tuple[int, int, int]:
        """(lowest, highest, forbidden) for the estimate due now; forbidden is -1 when nothing is."""
        low = 0 if self.zeros(game) < self.max_zeros else 1
        forbidden = -1
        if game.est_pos == len(game.est_order) - 1:
            forbidden = 13 - sum([e for e in game.estimates if e is not None])
        return low, self.max_estimate(game), forbidden

    def record_estimate(self, game: GameState, seat: int, number: int) -> bool:
        """Store an estimate and pass the turn; True once the last estimate is in."""
        game.estimates[seat] = number
        game.est_pos += 1
        if game.est_pos < len(game.est_order):
            game.turn = game.est_order[game.est_pos]
            return False
        return True

    def explain_estimate(self, game: GameState, number: int) -> str:
        low, top, _ = self.estimate_bounds(game)
        if number > top:
            return f"an estimate here is at most {top}"
        if number < low:
            return "at most two seats may be on zero (the Dash offer's takers and Dashes together)"
        return "the last estimate may not bring the total to exactly 13"

    # --- scoring ------------------------------------------------------------------------------------
    def facts(self, game: GameState) -> RoundFacts:
        """What the scorer needs from a deal whose 13 tricks are played."""
        raise NotImplementedError

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        raise NotImplementedError

    def risk_level(self, facts: RoundFacts) -> int:
        raise NotImplementedError

    def round_kind(self, game: GameState) -> str:
        """The replay output's ``kind`` for the round in progress."""
        return game.kind

    # --- a round typed by hand (the calculator) -------------------------------------------------------
    #: The kind of a typed round given only whether it had a Call (called, not called); None where that
    #: does not decide it and the kind must be said.
    typed_defaults: ClassVar[tuple[str | None, str | None]] = (None, None)

    def default_kind(self, called: bool) -> str | None:
        """The kind of a typed round given only whether it had a Call, or None when that does not decide."""
        return self.typed_defaults[0 if called else 1]

    def check_typed_round(self, kind: str, caller: int | None, dash_seats: frozenset[int],
                          joined: frozenset[int], order: tuple[int, ...]) -> None:
        """Raise ``ValueError`` saying why a typed round's declarations could not have happened.

        ``caller`` is given in a round of :attr:`called_kinds` (None otherwise), ``dash_seats`` took the
        offer, ``joined`` bid With, ``order`` is who estimated, in order. The base: in a round with a Call
        every other seat but the offer's takers estimates, from the seat after the Caller; otherwise the
        order is free."""
        if caller is None:
            return
        expected = tuple(s for s in ((caller + i) & 3 for i in (1, 2, 3)) if s not in dash_seats)
        if order != expected:
            raise ValueError("the others estimate from the seat after the Caller, skipping Dash seats: seats "
                             f"{', '.join(map(str, expected))} in that order")

    def typed_caller(self, kind: str, estimates: tuple[int, ...], order: tuple[int, ...]) -> int | None:
        """The Caller of a typed round without a Call: the highest estimate, ties to the earliest."""
        best = max(estimates[s] for s in order)
        return next(s for s in order if estimates[s] == best)

    def typed_with_seats(self, estimates: tuple[int, ...], caller: int | None, order: tuple[int, ...],
                         joined: frozenset[int]) -> frozenset[int]:
        """The seats scored as With in a typed round: every other estimator on the Caller's number
        (``joined``, the seats that bid With, is for rulesets that have that bid)."""
        if caller is None:
            return frozenset()
        return frozenset(s for s in order if s != caller and estimates[s] == estimates[caller])

    #: Whether a seat can join the standing bid (``with``): the calculator asks for those seats only then.
    has_with_bids: ClassVar[bool] = False
    #: The kinds of round whose deal opens with the offer to sit out on zero, where the ruleset has the offer
    #: (None: every kind); the calculator asks for the offer's takers in these only.
    offer_kinds: ClassVar[frozenset[str] | None] = None
    #: In a round without a Call, who estimates first: this many seats after the dealer (1: the dealer's
    #: left, the dealer last; 0: the dealer), then round the table; the calculator shows that order.
    first_estimator: ClassVar[int] = 1

    def has_offer(self, kind: str) -> bool:
        """Whether a round of ``kind`` opens with the offer to sit out on zero."""
        return "offer" in self.verb_roles and (self.offer_kinds is None or kind in self.offer_kinds)

    # --- what a client shows of the ruleset ----------------------------------------------------------
    @classmethod
    def display_name(cls, lang: str = "en") -> str:
        """The ruleset's name as people read it in ``lang``, else in English, else its record name."""
        return cls.display_names.get(lang) or cls.display_names.get("en") or cls.name

    @classmethod
    def role_markers(cls) -> tuple[Role, ...]:
        """Every role marker :meth:`seat_roles` can give a seat: the base gives the Caller and the offer's
        takers; a ruleset that marks more seats (With, a plain Dash) says so."""
        return ("caller", cls.offer_role)

    @classmethod
    def shown_markers(cls) -> tuple[str, ...]:
        """The keys of :data:`MARKER_TIP_KEYS` a table of this ruleset can show: the dealer, each role it
        gives, each Risk level it has, a seat that left, and the multiplier and the Sa'aydeh if it has them.
        :attr:`marker_tips` has a text for each of these."""
        roles = {ROLE_TIP_KEYS[r] for r in cls.role_markers()}
        risks = set(("risk", "risk2", "risk3")[: cls.risk_levels])
        saaydeh = {"multiplier", "saaydeh"} if cls.saaydeh else set()
        shown = {"dealer", "left"} | roles | risks | saaydeh
        return tuple(key for key in MARKER_TIP_KEYS if key in shown)

    @classmethod
    def match_level_points(cls, places: list[int], leaver: int | None = None,
                           partners: bool = False) -> list[int] | None:
        """Each seat's level points for a finished match (None: this ruleset keeps none): a lone first place
        (a side's, with partners) wins, a shared one draws, anything else loses; a leaver's match is a loss
        that pays nothing (RULES.md, egyptian ruling 9: leaving must never farm points)."""
        if cls.level_points is None:
            return None
        points = cls.level_points
        leavers = frozenset() if leaver is None else frozenset({leaver})
        return [0 if seat in leavers else points[o]
                for seat, o in enumerate(outcomes(places, partners, leavers))]

    def describe(self) -> dict[str, Any]:
        """What a client needs to know of this ruleset without testing its name (``/api/rulesets``)."""
        return {
            "name": self.name,
            "display_names": dict(self.display_names),
            "lengths": list(self.lengths),
            "default_length": self.default_length,
            "rounds": {length: [{"kind": spec.kind, "trump": None if spec.trump is None else str(spec.trump)}
                                for spec in specs] for length, specs in self.lengths.items()},
            "kinds": list(self.round_kinds),
            "called_kinds": [k for k in self.round_kinds if k in self.called_kinds],
            "verbs": self.verb_names(),
            "offer_role": self.offer_role,
            "risk_levels": self.risk_levels,
            "score_lines": dict(self.score_lines),
            "saaydeh": self.saaydeh,
            "leaver_ends_match": self.leaver_ends_match,
            "level_points": None if self.level_points is None else dict(self.level_points),
            "badge_wins": self.badge_wins,
            "roles": list(self.role_markers()),
            "markers": list(self.shown_markers()),
            "marker_tips": {lang: dict(tips) for lang, tips in self.marker_tips.items()},
            "with_bids": self.has_with_bids,
            "offer_kinds": [k for k in self.round_kinds if self.has_offer(k)],
            "first_estimator": self.first_estimator,
        }

    def verb_names(self) -> dict[str, str | None]:
        """:data:`VERB_ROLES` -> this ruleset's verb for it (record text), or None."""
        roles = self.verb_roles
        return {role: str(roles[role]) if role in roles else None for role in VERB_ROLES}


#: The offer's two actions per (seat, verbs): built once, as every legal-action tuple on the hot path is.
_OFFERS: dict[tuple[int, tuple[Verb, Verb]], tuple[Action, ...]] = {}
