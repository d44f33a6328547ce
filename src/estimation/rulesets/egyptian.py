"""The `egyptian` ruleset (seed 002, RULES.md egyptian rulings 1-9).

What differs from `koutchina`: every round has a blind Dash offer and an auction with ``bid`` / ``with`` /
``pass`` followed by the winner's ``declare``; speed rounds fix the trump (bids compete on number, and only
a declaration of 8+ may change it); nobody bidding means no redeal but a plain NT round estimated from the
dealer; With seats estimate first; scoring is 13 + estimate with single-level Risk, Super Calls worth ±20,
a Dash worth 23 Under / 13 Over; no Sa'aydeh; a leaver ends the match.
"""

# ruff: noqa: RUF001  (the marker tips are texts for people: the minus sign, en dash and times sign are meant)

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import ClassVar, Final

from ..actions import Action, Verb
from ..cards import FIXED_TRUMPS, Trump
from ..scoring import RoundFacts, SeatScore, seat_lines
from .base import Declarations, GameState, Phase, PublicDeclarations, Role, RoundSpec, Ruleset

SUPER_CALL: Final = 8
#: Level points for a match won, drawn (tied at the top) and lost (ruling 9).
LEVEL_POINTS: Final = {"win": 30, "draw": 10, "loss": 4}
BADGE_WINS: Final = 5


def auction_rounds(n: int) -> tuple[RoundSpec, ...]:
    return tuple(RoundSpec("auction") for _ in range(n))


def speed_rounds() -> tuple[RoundSpec, ...]:
    return tuple(RoundSpec("speed", t) for t in FIXED_TRUMPS)


def rank(number: int, trump: Trump) -> int:
    return number * 5 + int(trump)


# The auction's lists depend on a few small numbers only, and a bot's simulations ask for the same ones
# thousands of times a decision (each was up to 50 actions built anew): built once, kept (a few hundred).
@cache
def _bids_above(seat: int, fixed: Trump | None, floor: int) -> tuple[Action, ...]:
    """``seat``'s bids ranking above ``floor`` (-1: any), in the round's fixed trump if it has one."""
    trumps = (fixed,) if fixed is not None else tuple(Trump)
    return tuple(Action.contract(seat, Verb.BID, n, t)
                 for n in range(4, 14) for t in trumps if rank(n, t) > floor)


@cache
def _declarations_from(seat: int, won: int, won_trump: Trump, speed: bool) -> tuple[Action, ...]:
    """The auction winner's declarations: at least the winning number; in a speed round, below a Super
    Call only in the winning (fixed) trump."""
    out: list[Action] = []
    for n in range(won, 14):
        trumps = (won_trump,) if speed and n < SUPER_CALL else tuple(Trump)
        out.extend(Action.contract(seat, Verb.DECLARE, n, t) for t in trumps)
    return tuple(out)


@dataclass(slots=True)
class EgyptianDeclarations(Declarations):
    """A deal's declarations: the blind Dash offer (the base's), who is still in the auction (set when it
    starts), the standing bid (number, trump, seat), the seats With on it, and the winner's declaration
    (number, trump)."""

    in_auction: list[bool] = field(default_factory=list)
    standing: tuple[int, Trump, int] | None = None
    with_seats: list[int] = field(default_factory=list)
    declared: tuple[int, Trump] | None = None


class Egyptian(Ruleset):
    name: ClassVar[str] = "egyptian"
    display_names: ClassVar[dict[str, str]] = {"en": "Egyptian", "ar": "المصرية"}
    marker_tips: ClassVar[dict[str, dict[str, str]]] = {
        "en": {
            "dealer": "Dealer: deals this round; the player after the dealer speaks first (when nobody "
                "bids, the dealer leads).",
            "caller": "Caller: won the auction and declared; leads; ±10, ±20 on a Super Call (8 or more).",
            "with": "With: joined the winning bid; ±10 if they estimate the declared number.",
            "dashcall": "Egyptian has no Dash Call: its blind zero is the Dash.",
            "dash": "Dash: a blind promise of no trick; 23 Under / 13 Over if none, minus the tricks "
                "otherwise (−10 more Under).",
            "risk": "Risk: last estimator, total 11 or less, or 15 or more with their estimate 2 or more; "
                "±10.",
            "risk2": "Egyptian Risk has one level only (±10).",
            "risk3": "Egyptian Risk has one level only (±10).",
            "left": "Left: the match is over; the leaver cannot win.",
            "multiplier": "Always ×1: Egyptian has no Sa'aydeh.",
            "saaydeh": "Egyptian has no Sa'aydeh: the round is scored as it stands.",
        },
        "ar": {
            "dealer": "الموزّع: يوزّع هذه الجولة، واللاعب الذي بعده يتكلم أولًا (وإذا لم يزايد أحد يفتح هو "
                "اللعب).",
            "caller": "المزايد: فاز بالمزاد وأعلن العقد ويفتح اللعب؛ ±10، و±20 في السوبر كول (8 أو أكثر).",
            "with": "مع: انضم إلى المزايدة الفائزة؛ ±10 إذا توقّع العدد المعلن.",
            "dashcall": "لا داش كول في القواعد المصرية: الصفر الأعمى هو الداش.",
            "dash": "داش: تعهّد أعمى ألا يأخذ ولا أكلة؛ 23 تحت / 13 فوق إن نجح، وإلا ناقص الأكلات (و10 "
                "أخرى في «تحت»).",
            "risk": "مخاطرة (ريسك): آخر من توقّع، والمجموع 11 أو أقل، أو 15 أو أكثر وتوقّعه 2 أو أكثر؛ "
                "±10.",
            "risk2": "للمخاطرة مستوى واحد فقط في القواعد المصرية (±10).",
            "risk3": "للمخاطرة مستوى واحد فقط في القواعد المصرية (±10).",
            "left": "غادر: انتهت المباراة، والمغادر لا يمكن أن يفوز.",
            "multiplier": "دائمًا ×1: لا سعايدة في القواعد المصرية.",
            "saaydeh": "لا سعايدة في القواعد المصرية: الجولة تُحسب كما هي.",
        },
    }
    lengths: ClassVar[dict[str, tuple[RoundSpec, ...]]] = {
        "standard": auction_rounds(13) + speed_rounds(),
        "committee": auction_rounds(13),
        "long": auction_rounds(19) + speed_rounds(),
    }
    default_length: ClassVar[str] = "standard"
    saaydeh: ClassVar[bool] = False
    leaver_ends_match: ClassVar[bool] = True
    offer_verbs: ClassVar[tuple[Verb, Verb]] = (Verb.DASH, Verb.NODASH)
    verbs: ClassVar[frozenset[Verb]] = frozenset(
        {Verb.DASH, Verb.NODASH, Verb.BID, Verb.WITH, Verb.PASS, Verb.DECLARE, Verb.EST, Verb.PLAY}
    )
    verb_roles: ClassVar[dict[str, Verb]] = {
        "offer": Verb.DASH, "decline": Verb.NODASH, "auction": Verb.BID, "join": Verb.WITH,
        "pass": Verb.PASS, "declare": Verb.DECLARE, "estimate": Verb.EST, "play": Verb.PLAY}
    round_kinds: ClassVar[tuple[str, ...]] = ("auction", "speed", "nobid")
    typed_defaults: ClassVar[tuple[str | None, str | None]] = ("auction", "nobid")
    called_kinds: ClassVar[frozenset[str]] = frozenset({"auction", "speed"})
    #: Nobody bid: the estimates start with the dealer.
    first_estimator: ClassVar[int] = 0
    risk_levels: ClassVar[int] = 1
    # The Dash's value is on the dash_call line, headed Dash: it is not a Dash Call.
    score_lines: ClassVar[dict[str, str]] = {
        "base": "Base", "caller_with": "C/W", "only": "Only", "risk": "Risk", "dash_call": "Dash"}
    level_points: ClassVar[dict[str, int] | None] = LEVEL_POINTS
    badge_wins: ClassVar[int] = BADGE_WINS
    offer_role: ClassVar[Role] = "dash"
    has_with_bids: ClassVar[bool] = True
    declaration_state: ClassVar[type[Declarations]] = EgyptianDeclarations

    # --- phases -------------------------------------------------------------------------------------
    def begin_deal(self, game: GameState) -> None:
        self.begin_offer(game)

    def begin_auction(self, game: GameState) -> None:
        game.phase = Phase.AUCTION
        decl: EgyptianDeclarations = game.decl
        decl.in_auction = [s not in decl.dash_seats for s in range(4)]
        self._pass_turn(game, game.dealer)

    @staticmethod
    def _next_bidder(decl: EgyptianDeclarations, after: int) -> int | None:
        """Round the seats still in, skipping the standing bid's owner and the seats With on it."""
        owner = decl.standing[2] if decl.standing else None
        for i in range(1, 5):
            s = (after + i) & 3
            if decl.in_auction[s] and s != owner and s not in decl.with_seats:
                return s
        return None

    def _pass_turn(self, game: GameState, after: int) -> None:
        decl: EgyptianDeclarations = game.decl
        nxt = self._next_bidder(decl, after)
        if nxt is not None:
            game.turn = nxt
        elif decl.standing is None:
            self._begin_nobid(game)
        else:
            game.phase = Phase.DECLARE
            game.caller = decl.standing[2]
            game.turn = game.caller

    def _begin_nobid(self, game: GameState) -> None:
        """Nobody bid: no redeal; NT, estimates from the dealer in seat order, the dealer leads."""
        game.kind = "nobid"
        game.trump = Trump.NT
        dash_seats = game.decl.dash_seats
        for s in dash_seats:
            game.estimates[s] = 0
        first = game.dealer + self.first_estimator
        order = tuple(s for s in ((first + i) & 3 for i in range(4)) if s not in dash_seats)
        self.begin_estimates(game, order)

    def max_estimate(self, game: GameState) -> int:
        declared = game.decl.declared
        return declared[0] if declared is not None else 13

    def _bids(self, game: GameState, seat: int) -> tuple[Action, ...]:
        standing = game.decl.standing
        return _bids_above(seat, game.spec.trump, rank(*standing[:2]) if standing else -1)

    def _declarations(self, game: GameState, seat: int) -> tuple[Action, ...]:
        standing = game.decl.standing
        assert standing is not None
        won, won_trump, _ = standing
        return _declarations_from(seat, won, won_trump, game.spec.trump is not None)

    def legal_declarations(self, game: GameState) -> Sequence[Action]:
        seat = game.turn
        assert seat is not None
        phase = game.phase
        if phase is Phase.DASH:
            return self.offer_actions(seat)
        if phase is Phase.AUCTION:
            out = [Action.bare(seat, Verb.PASS)]
            if game.decl.standing is not None:
                out.append(Action.bare(seat, Verb.WITH))
            out.extend(self._bids(game, seat))
            return out
        if phase is Phase.DECLARE:
            return self._declarations(game, seat)
        low, top, forbidden = self.estimate_bounds(game)
        return [Action.est(seat, n) for n in range(low, top + 1) if n != forbidden]

    def apply_declaration(self, game: GameState, action: Action) -> None:
        verb = action.verb
        seat = action.seat
        decl: EgyptianDeclarations = game.decl
        if verb is Verb.EST:
            assert action.number is not None
            if self.record_estimate(game, seat, action.number):
                game.start_play(game.caller if game.caller is not None else game.dealer)
        elif verb in self.offer_verbs:
            self.apply_offer(game, action)
        elif verb is Verb.BID:
            assert action.number is not None and action.trump is not None
            decl.standing = (action.number, action.trump, seat)
            decl.with_seats.clear()  # a higher bid voids every With; those seats stay in
            self._pass_turn(game, seat)
        elif verb is Verb.WITH:
            decl.with_seats.append(seat)
            self._pass_turn(game, seat)
        elif verb is Verb.PASS:
            decl.in_auction[seat] = False
            self._pass_turn(game, seat)
        elif verb is Verb.DECLARE:
            assert action.number is not None and action.trump is not None
            self._declare(game, seat, action.number, action.trump)
        else:  # pragma: no cover - legality is checked before
            raise AssertionError(f"not an {self.name} declaration: {action}")

    def _declare(self, game: GameState, caller: int, number: int, trump: Trump) -> None:
        decl: EgyptianDeclarations = game.decl
        decl.declared = (number, trump)
        game.trump = trump
        game.estimates[caller] = number
        for s in decl.dash_seats:
            game.estimates[s] = 0
        after = tuple((caller + i) & 3 for i in range(1, 4))
        withs = tuple(s for s in after if s in decl.with_seats)
        others = tuple(s for s in after if s not in decl.with_seats and s not in decl.dash_seats)
        self.begin_estimates(game, withs + others)

    # --- diagnosis ------------------------------------------------------------------------------------
    def explain_illegal(self, game: GameState, action: Action) -> str:
        verb = action.verb
        phase = game.phase
        if phase is Phase.DASH:
            return "the Dash is being offered: dash or nodash"
        if phase is Phase.AUCTION:
            if verb is Verb.WITH:
                return "there is no standing bid to join"
            if verb is Verb.BID:
                fixed = game.spec.trump
                if fixed is not None and action.trump != fixed:
                    return f"in this speed round every bid names {fixed}"
                standing = game.decl.standing
                if standing is not None:
                    n, t, _ = standing
                    return f"{action.number}{action.trump} does not beat the standing bid {n}{t}"
            return "in the auction a seat bids, joins the standing bid (with) or passes"
        if phase is Phase.DECLARE:
            if verb is not Verb.DECLARE:
                return "the auction's winner declares now: declare N SUIT"
            standing = game.decl.standing
            assert standing is not None
            if action.number is not None and action.number < standing[0]:
                return f"a declaration may raise the number, never lower it below {standing[0]}"
            return "in a speed round the suit may change only with a declaration of 8 or more"
        if verb is not Verb.EST:
            return "estimates are being made: est N"
        if action.trump is not None:
            return "an egyptian estimate names no trump"
        assert action.number is not None
        return self.explain_estimate(game, action.number)

    # --- a round typed by hand ------------------------------------------------------------------------
    def check_typed_round(self, kind: str, caller: int | None, dash_seats: frozenset[int],
                          joined: frozenset[int], order: tuple[int, ...]) -> None:
        """With seats estimate first, then the others, each from the seat after the Caller; nobody bid:
        in seat order from the dealer, Dash seats skipped."""
        if caller is None:
            ring = [s for s in range(4) if s not in dash_seats]
            start = ring.index(order[0])
            if list(order) != ring[start:] + ring[:start]:
                raise ValueError("in a round nobody bid on, estimates go in seat order from the dealer")
            return
        after = [(caller + i) & 3 for i in range(1, 4)]
        expected = tuple(s for s in after if s in joined) + tuple(
            s for s in after if s not in joined and s not in dash_seats)
        if order != expected:
            raise ValueError("the others estimate With seats first, then the others, skipping Dash seats: "
                             f"seats {', '.join(map(str, expected))} in that order")

    def typed_caller(self, kind: str, estimates: tuple[int, ...], order: tuple[int, ...]) -> int | None:
        return None  # the one kind without a Call is nobid: nobody called

    def typed_with_seats(self, estimates: tuple[int, ...], caller: int | None, order: tuple[int, ...],
                         joined: frozenset[int]) -> frozenset[int]:
        """Only a seat that bid With, on the declared number (ruling E1)."""
        if caller is None:
            return frozenset()
        return frozenset(s for s in joined if estimates[s] == estimates[caller])

    # --- what is public ----------------------------------------------------------------------------------
    def public_declarations(self, game: GameState) -> PublicDeclarations:
        decl: EgyptianDeclarations = game.decl
        return PublicDeclarations(tuple(decl.dash_seats), decl.standing, tuple(decl.with_seats),
                                  decl.declared)

    @classmethod
    def role_markers(cls) -> tuple[Role, ...]:
        return ("caller", "with", cls.offer_role)

    def seat_roles(self, game: GameState) -> list[Role | None]:
        """The Caller, a Dash (never a Dash Call: another promise, scored another way) and a With seat, as
        long as its estimate (once made) is the declared number: another estimate is an ordinary one."""
        roles = super().seat_roles(game)
        decl: EgyptianDeclarations = game.decl
        declared = decl.declared[0] if decl.declared is not None else None
        for s in decl.with_seats:
            estimate = game.estimates[s]
            if roles[s] is None and (estimate is None or declared is None or estimate == declared):
                roles[s] = "with"
        return roles

    # --- scoring ---------------------------------------------------------------------------------------
    def facts(self, game: GameState) -> RoundFacts:
        decl: EgyptianDeclarations = game.decl
        estimates = tuple(e or 0 for e in game.estimates)
        declared = decl.declared[0] if decl.declared else None
        withs = frozenset(s for s in decl.with_seats if estimates[s] == declared)
        return RoundFacts(
            kind=game.kind,
            estimates=estimates,
            tricks=tuple(game.tricks_won),
            order=game.est_order,
            caller=game.caller,
            dash_calls=frozenset(decl.dash_seats),
            multiplier=1,
            with_seats=withs,
        )

    def risk_level(self, facts: RoundFacts) -> int:
        last = facts.last_estimator
        if facts.kind == "nobid" or last is None:
            return 0
        total = facts.total
        return 1 if total <= 11 or (total >= 15 and facts.estimates[last] >= 2) else 0

    def score(self, facts: RoundFacts) -> tuple[SeatScore, ...]:
        nobid = facts.kind == "nobid"
        risk = self.risk_level(facts)
        under = facts.total < 13
        out = []
        for seat, est, tricks, made, only, last, sign, diff in seat_lines(facts, with_census=not nobid):
            if seat in facts.dash_calls and not nobid:
                # A Dash counts in the census but takes none of the tens itself.
                value = (23 if under else 13) if made else -tricks - (10 if under else 0)
                out.append(SeatScore(seat, "dash", est, tricks, made, dash_call=value))
                continue
            if seat == facts.caller:
                role = "caller"
                tens = (20 if est >= SUPER_CALL else 10) * sign
            elif seat in facts.with_seats:
                role, tens = "with", 10 * sign
            else:
                role, tens = "regular", 0
            out.append(SeatScore(
                seat, role, est, tricks, made,
                base=13 + est if made else -diff,
                caller_with=tens,
                only=only,
                risk=sign * 10 * risk if last else 0,
            ))
        return tuple(out)

