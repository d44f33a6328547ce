"""The `koutchina` ruleset (seeds 000 and 004, RULES.md koutchina rulings 1-11).

Declarations: Dash Call offer, auction (``call`` / ``pass``), estimates; fixed rounds with Super Calls;
three failed auctions make the fourth deal a fixed NT round. Scoring: 10 + tricks, ±10 Caller/With,
±10 only winner/loser, ±10 per Risk level, Dash Call ±25 Over / ±33 Under.
"""

# ruff: noqa: RUF001  (the marker tips are texts for people: the minus sign, en dash and times sign are meant)

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Final

from ..actions import Action, Verb
from ..cards import FIXED_TRUMPS, Trump
from ..scoring import RoundFacts, SeatScore, seat_lines
from .base import Declarations, GameState, Phase, PublicDeclarations, Role, RoundSpec, Ruleset

#: Every call 4C..13NT in ascending order (by number, then trump C < D < H < S < NT).
ALL_CONTRACTS: Final = tuple((n, t) for n in range(4, 14) for t in Trump)
FAILED_AUCTIONS_BEFORE_FIXED: Final = 3


#: Per seat, every call action in ascending order: legal calls are a slice past the standing call.
CALL_ACTIONS: Final = tuple(
    tuple(Action.contract(seat, Verb.CALL, n, t) for n, t in ALL_CONTRACTS) for seat in range(4)
)
EST_ACTIONS: Final = tuple(tuple(Action.est(seat, n) for n in range(14)) for seat in range(4))
SUPER_ACTIONS: Final = tuple(
    tuple(tuple(Action.est(seat, n, t) for t in FIXED_TRUMPS) for n in range(14)) for seat in range(4)
)
#: Per seat and per index of the lowest call still allowed: the whole legal auction tuple, ``pass``
#: first (the last entry, past 13NT, is a pass alone).
AUCTION_ACTIONS: Final = tuple(
    tuple((Action.bare(seat, Verb.PASS), *CALL_ACTIONS[seat][start:])
          for start in range(len(ALL_CONTRACTS) + 1))
    for seat in range(4)
)
#: For a standing call (number, trump): the index of the lowest call that beats it.
_NEXT_CALL: Final = {contract: i + 1 for i, contract in enumerate(ALL_CONTRACTS)}


# Bound once: Python 3.11 looks enum members up through a slow attribute hook (see estimation.game).
_DASH = Phase.DASH
_AUCTION = Phase.AUCTION
_EST = Verb.EST
_CALL = Verb.CALL
_PASS = Verb.PASS
_NT = Trump.NT

_SEATS: Final = (0, 1, 2, 3)
#: For each seat, the four seats from its left round to itself: ``(seat + i) & 3`` for i in 1..4.
_AFTER: Final = tuple(tuple((seat + i) & 3 for i in range(1, 5)) for seat in range(4))


@dataclass(slots=True)
class AuctionState(Declarations):
    """A deal's declarations: the Dash Call offer (the base's), who is still in the auction (set when it
    starts), the standing call (number, trump, seat), and a fixed round's Super Call so far (number, seat,
    trump)."""

    in_auction: list[bool] = field(default_factory=list)
    standing: tuple[int, Trump, int] | None = None
    super_call: tuple[int, int, Trump] | None = None


def fixed_rounds() -> tuple[RoundSpec, ...]:
    return tuple(RoundSpec("fixed", t) for t in FIXED_TRUMPS)


def call_rounds(n: int) -> tuple[RoundSpec, ...]:
    return tuple(RoundSpec("call") for _ in range(n))


class Koutchina(Ruleset):
    """The default ruleset. :class:`~estimation.rulesets.classic.Classic` reuses its declarations."""

    name: ClassVar[str] = "koutchina"
    display_names: ClassVar[dict[str, str]] = {"en": "Koutchina", "ar": "كوتشينة"}
    marker_tips: ClassVar[dict[str, dict[str, str]]] = {
        "en": {
            "dealer": "Dealer: deals this round; the player after the dealer speaks first.",
            "caller": "Caller: won the auction (or the highest fixed-round estimate) and leads; ±10.",
            "with": "With: estimated the Call's number; scores like the Caller, ±10.",
            "dashcall": "Dash Call: promised no trick; +25 Over / +33 Under if none, −25 / −33 otherwise.",
            "dash": "Dash: an estimate of 0; 10 with no trick, minus the tricks otherwise.",
            "risk": "Risk: last estimator, total 2–3 away from 13; ±10.",
            "risk2": "Double Risk: last estimator, total 4–5 away from 13; ±20.",
            "risk3": "Triple Risk: last estimator, total 6 or more away from 13; ±30.",
            "left": "Left the table: a bot plays the seat to the end.",
            "multiplier": "Multiplier: this round's scores count ×2 or ×4 after a Sa'aydeh.",
            "saaydeh": "Sa'aydeh: all four missed; nobody scores, the next round counts double (×4 at "
                "most).",
        },
        "ar": {
            "dealer": "الموزّع: يوزّع هذه الجولة، واللاعب الذي بعده يتكلم أولًا.",
            "caller": "المزايد: فاز بالمزايدة (أو أعلى توقّع في الجولة الثابتة) ويفتح اللعب؛ ±10.",
            "with": "مع: توقّع عدد الكول، ونقاطه مثل المزايد، ±10.",
            "dashcall": "داش كول: تعهّد ألا يأخذ ولا أكلة؛ +25 فوق / +33 تحت إن نجح، وإلا −25 / −33.",
            "dash": "داش: توقّع صفر؛ 10 بلا أكلات، وإلا ناقص الأكلات.",
            "risk": "مخاطرة (ريسك): آخر من توقّع، والمجموع يبعد 2 أو 3 عن 13؛ ±10.",
            "risk2": "مخاطرة مضاعفة (دبل ريسك): آخر من توقّع، والمجموع يبعد 4 أو 5 عن 13؛ ±20.",
            "risk3": "مخاطرة ثلاثية (تريبل ريسك): آخر من توقّع، والمجموع يبعد 6 أو أكثر عن 13؛ ±30.",
            "left": "غادر الطاولة: روبوت يكمل اللعب بمقعده حتى النهاية.",
            "multiplier": "المضاعف: نقاط هذه الجولة ×2 أو ×4 بعد السعايدة.",
            "saaydeh": "سعايدة: أخفق الأربعة؛ لا نقاط، والجولة التالية مضاعفة (×4 حدًّا أقصى).",
        },
    }
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]] = {
        "micro": fixed_rounds(),
        "mini": call_rounds(5) + fixed_rounds(),
        "full": call_rounds(13) + fixed_rounds(),
    }
    default_length: ClassVar[str] = "micro"
    verbs: ClassVar[frozenset[Verb]] = frozenset(
        {Verb.DASHCALL, Verb.NODASH, Verb.CALL, Verb.PASS, Verb.EST, Verb.PLAY}
    )
    verb_roles: ClassVar[dict[str, Verb]] = {
        "offer": Verb.DASHCALL, "decline": Verb.NODASH, "auction": Verb.CALL, "pass": Verb.PASS,
        "estimate": Verb.EST, "play": Verb.PLAY}
    round_kinds: ClassVar[tuple[str, ...]] = ("call", "fixed")
    typed_defaults: ClassVar[tuple[str | None, str | None]] = ("call", None)
    called_kinds: ClassVar[frozenset[str]] = frozenset({"call"})
    #: The Dash Call is offered in call rounds only: a fixed round goes straight to the estimates.
    offer_kinds: ClassVar[frozenset[str] | None] = frozenset({"call"})
    risk_levels: ClassVar[int] = 3
    score_lines: ClassVar[dict[str, str]] = {
        "base": "Base", "caller_with": "C/W", "only": "Only", "risk": "Risk", "dash_call": "DCall"}
    declaration_state: ClassVar[type[Declarations]] = AuctionState
    super_call_min: ClassVar[int] = 8
    #: Legal estimate tuples by (seat, lowest, highest, forbidden, lowest Super Call or 14 for none): a
    #: few hundred shapes at most, shared by subclasses (the key holds everything that varies), and
    #: rebuilding one cost more than the rest of an estimate's bookkeeping.
    _estimate_tuples: ClassVar[dict[tuple[int, int, int, int, int], tuple[Action, ...]]] = {}

    # --- phases -------------------------------------------------------------------------------------
    def begin_deal(self, game: GameState) -> None:
        if game.kind == "call" and game.deal_no >= FAILED_AUCTIONS_BEFORE_FIXED:
            game.kind = "fixed"
            game.trump = _NT
        if game.kind == "call":
            self.begin_offer(game)
        else:
            first = game.dealer + self.first_estimator
            self.begin_estimates(game, tuple((first + i) & 3 for i in range(4)))

    def begin_auction(self, game: GameState) -> None:
        game.phase = _AUCTION
        decl: AuctionState = game.decl
        dash_seats = decl.dash_seats
        decl.in_auction = [s not in dash_seats for s in _SEATS]
        game.turn = self._next_bidder(decl, game.dealer)

    @staticmethod
    def _next_bidder(decl: AuctionState, after: int) -> int | None:
        owner = decl.standing[2] if decl.standing else None
        for s in _AFTER[after]:
            if decl.in_auction[s] and s != owner:
                return s
        return None

    def max_estimate(self, game: GameState) -> int:
        standing = game.decl.standing
        return standing[0] if game.kind == "call" and standing else 13

    def legal_declarations(self, game: GameState) -> tuple[Action, ...]:
        seat = game.turn
        assert seat is not None
        phase = game.phase
        if phase is _DASH:
            return self.offer_actions(seat)
        if phase is _AUCTION:
            standing = game.decl.standing
            return AUCTION_ACTIONS[seat][_NEXT_CALL[standing[0], standing[1]] if standing else 0]
        return self._legal_estimates(game, seat)

    def _legal_estimates(self, game: GameState, seat: int) -> tuple[Action, ...]:
        low, top, forbidden = self.estimate_bounds(game)
        super_min = self.super_call_min if game.kind == "fixed" else 14
        key = (seat, low, top, forbidden, super_min)
        found = self._estimate_tuples.get(key)
        if found is None:
            out: list[Action] = []
            plain = EST_ACTIONS[seat]
            for n in range(low, top + 1):
                if n == forbidden:
                    continue
                out.append(plain[n])
                if n >= super_min:
                    out.extend(SUPER_ACTIONS[seat][n])
            found = self._estimate_tuples[key] = tuple(out)
        return found

    def apply_declaration(self, game: GameState, action: Action) -> None:
        verb = action.verb
        seat = action.seat
        decl: AuctionState = game.decl
        # Most frequent first: a random auction makes more calls than anything else.
        if verb is _CALL:
            assert action.number is not None and action.trump is not None
            decl.standing = (action.number, action.trump, seat)
            self._after_bid(game, decl, seat)
        elif verb is _PASS:
            decl.in_auction[seat] = False
            self._after_bid(game, decl, seat)
        elif verb is _EST:
            assert action.number is not None
            if action.trump is not None and (
                decl.super_call is None or action.number > decl.super_call[0]
            ):
                decl.super_call = (action.number, seat, action.trump)
            if self.record_estimate(game, seat, action.number):
                self._end_estimates(game)
        elif verb in self.offer_verbs:
            self.apply_offer(game, action)
        else:  # pragma: no cover - legality is checked before
            raise AssertionError(f"not a {self.name} declaration: {action}")

    def _after_bid(self, game: GameState, decl: AuctionState, seat: int) -> None:
        standing = decl.standing
        # _next_bidder, inline: the next seat still in the auction that does not hold the standing call.
        owner = standing[2] if standing else None
        in_auction = decl.in_auction
        for s in _AFTER[seat]:
            if in_auction[s] and s != owner:
                game.turn = s
                return
        if standing is None:
            game.end_deal_without_play()
            return
        number, trump, caller = standing
        game.caller = caller
        game.trump = trump
        estimates = game.estimates
        estimates[caller] = number
        dash_seats = decl.dash_seats
        for s in dash_seats:
            estimates[s] = 0
        self.begin_estimates(game, tuple([s for s in _AFTER[caller][:3] if s not in dash_seats]))

    def _end_estimates(self, game: GameState) -> None:
        if game.kind == "fixed":
            best = max(game.estimates[s] or 0 for s in game.est_order)
            game.caller = next(s for s in game.est_order if game.estimates[s] == best)
            super_call = game.decl.super_call
            if super_call is not None:
                game.trump = super_call[2]
        assert game.caller is not None
        game.start_play(game.caller)

    # --- diagnosis ------------------------------------------------------------------------------------
    def explain_illegal(self, game: GameState, action: Action) -> str:
        verb = action.verb
        phase = game.phase
        if phase is Phase.DASH:
            return "the Dash Call is being offered: dashcall or nodash"
        if phase is Phase.AUCTION:
            standing = game.decl.standing
            if verb is Verb.CALL and standing is not None:
                n, t, _ = standing
                return f"{action.number}{action.trump} does not beat the standing call {n}{t}"
            if verb in (Verb.DASHCALL, Verb.NODASH):
                return "the Dash Call offer is over: the auction is on"
            return "in the auction a seat calls or passes"
        # estimates
        if verb is Verb.DASHCALL or verb is Verb.NODASH:
            if game.kind == "fixed":
                return "there is no Dash Call in a fixed round"
            return "the Dash Call offer is over"
        if verb is not Verb.EST:
            return "estimates are being made: est N"
        assert action.number is not None
        top = self.max_estimate(game)
        if action.number > top:
            return f"an estimate in this round is at most {top} (the Call's number)"
        if action.trump is not None:
            if game.kind != "fixed":
                return "a Super Call (naming a trump) is made only in a fixed round"
            return f"a Super Call needs an estimate of {self.super_call_min} or more"
        return self.explain_estimate(game, action.number)

    # --- a round typed by hand ------------------------------------------------------------------------
    def check_typed_round(self, kind: str, caller: int | None, dash_seats: frozenset[int],
                          joined: frozenset[int], order: tuple[int, ...]) -> None:
        if kind == "fixed" and dash_seats:
            raise ValueError("a fixed round has no Dash Call")
        super().check_typed_round(kind, caller, dash_seats, joined, order)

    # --- what is public ----------------------------------------------------------------------------------
    def public_declarations(self, game: GameState) -> PublicDeclarations:
        decl: AuctionState = game.decl
        return PublicDeclarations(tuple(decl.dash_seats), decl.standing)

    def trump_in_force(self, game: GameState) -> Trump | None:
        """A fixed round's Super Call changes the trump the moment it is made, not when play starts: the
        seats still to estimate must know it. ``super_call`` is the running choice (highest number, ties to
        the earliest), the very trump the end of the estimates installs."""
        decl: AuctionState = game.decl
        if game.phase is Phase.ESTIMATE and decl.super_call is not None:
            return decl.super_call[2]
        return super().trump_in_force(game)

    @classmethod
    def role_markers(cls) -> tuple[Role, ...]:
        return ("caller", "with", cls.offer_role, "dash")

    def seat_roles(self, game: GameState) -> list[Role | None]:
        """The Caller, a Dash Caller, a With (another estimator on the Caller's number) and a plain Dash (an
        estimate of 0)."""
        roles = super().seat_roles(game)
        estimates = game.estimates
        caller = game.caller
        for s in game.est_order[: game.est_pos]:
            if roles[s] is not None:
                continue
            if caller is not None and estimates[s] == estimates[caller]:
                roles[s] = "with"
            elif estimates[s] == 0:
                roles[s] = "dash"
        return roles

    # --- scoring ---------------------------------------------------------------------------------------
    def facts(self, game: GameState) -> RoundFacts:
        estimates = tuple([e or 0 for e in game.estimates])
        caller = game.caller
        assert caller is not None
        called = estimates[caller]
        withs = frozenset([s for s in game.est_order if s != caller and estimates[s] == called])
        return RoundFacts(game.kind, estimates, tuple(game.tricks_won), game.est_order, caller,
                          frozenset(game.decl.dash_seats), game.multiplier, withs)

    def risk_level(self, facts: RoundFacts) -> int:
        d = abs(sum(facts.estimates) - 13)
        return 0 if d <= 1 else 1 if d <= 3 else 2 if d <= 5 else 3

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        level = self.risk_level(facts)
        multiplier = facts.multiplier
        dash_calls = facts.dash_calls
        caller = facts.caller
        with_seats = facts.with_seats
        out = []
        # Each SeatScore's lines in field order (seat, role, estimate, tricks, made, base, caller_with, only,
        # risk, dash_call, dash, multiplier): four lines a scored round, and keywords cost a third more.
        for seat, est, tricks, made, only, last, sign, diff in seat_lines(facts):
            if seat in dash_calls:
                dash_call = sign * (25 if facts.total > 13 else 33)
                out.append(SeatScore(seat, "dashcall", est, tricks, made, 0, 0, only, 0, dash_call, 0,
                                     multiplier))
                continue
            if seat == caller:
                role = "caller"
            elif seat in with_seats:
                role = "with"
            else:
                role = "dash" if est == 0 else "regular"
            base = 10 + tricks if made else -diff
            caller_with = sign * 10 if role == "caller" or role == "with" else 0
            risk = sign * 10 * level if last else 0
            out.append(SeatScore(seat, role, est, tricks, made, base, caller_with, only, risk, 0, 0,
                                 multiplier))
        return tuple(out)


def caller_role(facts: RoundFacts, seat: int) -> str:
    """caller, with, dash (an estimate of 0) or regular, for a seat that did not Dash Call."""
    if seat == facts.caller:
        return "caller"
    if seat in facts.with_seats:
        return "with"
    return "dash" if facts.estimates[seat] == 0 else "regular"
