"""The round engine every ruleset shares: deals, trick play, markers, scoring bookkeeping, multiplier.

A :class:`Game` is a state machine driven by :meth:`Game.apply`. The checked path validates against the
legal-action list (one source of truth for legality) and only then mutates, so an illegal action leaves the
game exactly as it was. :meth:`Game.apply_unchecked` skips the check for simulations.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add, attrgetter
from typing import TYPE_CHECKING, Any

from .actions import SUIT_PLAYS, Action, Verb, suit_play_actions
from .cards import FULL_DECK, Card, Trump, cards_of, hand_text
from .dealing import deal_hands, first_dealer, fresh_seed
from .errors import GameOverError, IllegalActionError, InvalidActionError
from .fast import PlayState
from .record_writer import write_record
from .results import SIDES, Ended, RoundResult, Sides, score_round, side_places, side_totals, standings
from .rulesets.base import Phase, RoundSpec, Ruleset
from .scoring import RoundFacts
from .views import seat_view

# Enum members bound once: on Python 3.11 every ``Phase.PLAY`` goes through EnumType.__getattr__'s slow
# attribute hook (about 0.3 us, more than a whole ``in`` test on a legal tuple), and the hot paths below
# (``is_over``, ``apply``, ``legal_actions``) run tens of times per round of every simulation.
_ESTIMATE = Phase.ESTIMATE
_PLAY = Phase.PLAY
_OVER = Phase.OVER
_PLAY_VERB = Verb.PLAY
_NT = Trump.NT
#: ``1 << card`` as existing objects: a 52-bit int is two digits, and a shift allocates one every card.
_CARD_BITS = tuple(1 << card for card in range(52))


class Game:
    """One match of one ruleset and length. Attributes are public for bots and views; treat as read-only."""

    def __init__(
        self,
        ruleset: Ruleset,
        length: str | None = None,
        seed: int | str | None = None,
        players: list[str] | tuple[str, ...] | None = None,
        first_dealer_seat: int | None = None,
        partners: bool = False,
    ) -> None:
        self._begin_match(ruleset, length, seed, players, first_dealer_seat, partners)
        self._start_deal()

    @classmethod
    def at_deal(cls, ruleset: Ruleset, length: str | None, *, round_no: int, deal_no: int, dealer: int,
                hands: Sequence[int], multiplier: int = 1, partners: bool = False) -> Game:
        """A game standing at the first action of one deal, on the given hands (13 cards each).

        For positions rebuilt from what a seat can see: a bot's sampled worlds, a tool that starts
        mid-match. The round (1-based), the redeals before this deal (``deal_no``, 0-based), the dealer
        and the multiplier are the position's; totals start at zero and nothing is dealt from a seed.
        """
        game = cls.__new__(cls)
        game._begin_match(ruleset, length, 0, None, (dealer - round_no + 1) % 4, partners)
        if not 1 <= round_no <= len(game.schedule):
            raise ValueError(f"round {round_no} is not in {ruleset.name} {game.length} "
                             f"(1-{len(game.schedule)})")
        if deal_no < 0:
            raise ValueError(f"deal_no counts redeals from 0, not {deal_no}")
        if (len(hands) != 4 or any(h.bit_count() != 13 for h in hands)
                or hands[0] | hands[1] | hands[2] | hands[3] != FULL_DECK):
            raise ValueError("hands must be four 13-card masks that together hold the 52 cards")
        game.round_no = round_no
        game.deal_no = deal_no
        game.multiplier = multiplier
        game._start_deal(tuple(hands))
        return game

    def _begin_match(self, ruleset: Ruleset, length: str | None, seed: int | str | None,
                     players: list[str] | tuple[str, ...] | None, first_dealer_seat: int | None,
                     partners: bool) -> None:
        self.ruleset = ruleset
        #: A partnership game (RULES.md, Partnerships): seats 0+2 against 1+3, standings by side.
        self.partners = bool(partners)
        self.length = length or ruleset.default_length
        if self.length not in ruleset.lengths:
            known = ", ".join(ruleset.lengths)
            raise ValueError(f"unknown length {self.length!r} for {ruleset.name} (known: {known})")
        self.schedule: tuple[RoundSpec, ...] = ruleset.lengths[self.length]
        self.seed: int | str = fresh_seed() if seed is None else seed
        if players is None:
            players = [f"Seat {i}" for i in range(4)]
        if len(players) != 4:
            raise ValueError(f"Estimation seats four players, not {len(players)}")
        self.players: tuple[str, ...] = tuple(players)
        self.first_dealer = first_dealer(self.seed) if first_dealer_seat is None else first_dealer_seat
        self.totals_list = [0, 0, 0, 0]
        self.multiplier = 1
        self.round_results: list[RoundResult] = []
        self.deal_log: list[tuple[int, int, tuple[int, ...], list[Action]]] = []
        self.ended: Ended | None = None
        self.round_no = 1
        self.deal_no = 0
        self._legal: tuple[Action, ...] | None = None
        self._over = False

    # --- deal lifecycle ---------------------------------------------------------------------------
    @property
    def spec(self) -> RoundSpec:
        return self.schedule[self.round_no - 1]

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.round_no - 1) % 4

    def _start_deal(self, hands: tuple[int, ...] | None = None) -> None:
        """Deal (the seeded cards, or ``hands``) and open the deal's first phase."""
        self.dealt: tuple[int, ...] = (
            deal_hands(self.seed, self.round_no, self.deal_no) if hands is None else hands)
        self.hands = list(self.dealt)
        self.actions: list[Action] = []
        self.phase = _ESTIMATE
        self.turn: int | None = None
        spec = self.spec
        self.kind = spec.kind
        self.trump: Trump = spec.trump if spec.trump is not None else _NT
        # declarations: the ruleset's own state (its ``declaration_state``, never read here; typed Any so
        # that each ruleset reads its own fields), and what every ruleset ends with
        self.decl: Any = self.ruleset.declaration_state()
        self.caller: int | None = None
        self.estimates: list[int | None] = [None, None, None, None]
        self.est_order: tuple[int, ...] = ()
        self.est_pos = 0
        # play
        self.leader = 0
        self.trick: list[int] = []
        #: The suit number led to the current trick (meaningful while ``trick`` is not empty).
        self.led = -1
        self.tricks_won = [0, 0, 0, 0]
        self.trick_log: list[tuple[int, tuple[int, ...], int]] = []
        self.avoid = [0, 0, 0, 0]
        self._legal = None
        self.ruleset.begin_deal(self)

    def replace_hands(self, hands: tuple[int, ...]) -> None:
        """Use these hands for the deal just started (a record's deal) instead of the seeded ones."""
        if self.actions:
            raise IllegalActionError("hands can only be replaced before the deal's first action")
        self.dealt = tuple(hands)
        self.hands = list(hands)
        self._legal = None

    def end_deal_without_play(self) -> None:
        """An auction nobody called: log the deal and redeal with the same dealer."""
        self.deal_log.append((self.round_no, self.dealer, self.dealt, self.actions))
        self.deal_no += 1
        self._start_deal()

    def start_play(self, leader: int) -> None:
        self.trump_index = int(self.trump)
        self.phase = _PLAY
        self.leader = leader
        self.turn = leader

    # --- public API -------------------------------------------------------------------------------
    @property
    def to_move(self) -> int | None:
        return None if self.phase is _OVER else self.turn

    if TYPE_CHECKING:
        @property
        def is_over(self) -> bool: ...
    else:
        # ``phase is OVER``, kept as a flag beside the phase and read by a C getter (attrgetter): no
        # Python frame for a test every driver makes before every action. Still a read-only property.
        is_over = property(attrgetter("_over"), doc="Whether the match is over.")

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self.totals_list)

    @property
    def leaver(self) -> int | None:
        """The seat whose leaving ended the match (egyptian), or None."""
        return self.ended["seat"] if self.ended else None

    @property
    def places(self) -> list[int]:
        """Each seat's place; in a partnership game, its side's place (1 or 2; level sides are both 1)."""
        return standings(self.totals_list, self.partners, self.leaver)

    @property
    def sides(self) -> Sides | None:
        """RECORD.md's ``sides``: the seats, totals and places of the two sides; None without partners."""
        if not self.partners:
            return None
        return {"seats": [list(side) for side in SIDES], "totals": list(side_totals(self.totals_list)),
                "places": side_places(self.totals_list, self.leaver)}

    @property
    def rounds(self) -> int:
        return len(self.schedule)

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action now, as interned :class:`Action` values (empty when the game is over)."""
        legal = self._legal
        if legal is not None:
            return legal
        if self.phase is _PLAY:
            seat: int = self.turn  # type: ignore[assignment]
            hand = self.hands[seat]
            if self.trick:
                suit = self.led
                bits = (hand >> (suit * 13)) & 0x1FFF
                if bits:
                    # Inline cache hit first: a call saved on most of a round's 52 cards.
                    legal = SUIT_PLAYS[seat][suit].get(bits) or suit_play_actions(seat, suit, bits)
                    self._legal = legal
                    return legal
            # A lead or a void: every card in the hand, from the per-suit caches (some 24 times a round).
            clubs, diamonds, hearts, spades = SUIT_PLAYS[seat]
            try:
                legal = (clubs[hand & 0x1FFF] + diamonds[(hand >> 13) & 0x1FFF]
                         + hearts[(hand >> 26) & 0x1FFF] + spades[hand >> 39])
            except KeyError:  # a holding not seen yet in some suit: build and cache the missing ones
                legal = (suit_play_actions(seat, 0, hand & 0x1FFF)
                         + suit_play_actions(seat, 1, (hand >> 13) & 0x1FFF)
                         + suit_play_actions(seat, 2, (hand >> 26) & 0x1FFF)
                         + suit_play_actions(seat, 3, hand >> 39))
        elif self.phase is _OVER:
            legal = ()
        else:
            legal = tuple(self.ruleset.legal_declarations(self))
        self._legal = legal
        return legal

    def apply(self, action: Action | str) -> None:
        """Check and apply; raises :class:`IllegalActionError` (or :class:`InvalidActionError`).

        Legal means "in :meth:`legal_actions`": one source of truth. Actions are flyweights, so the
        membership test is an identity scan in C over a list that is usually already cached. A card
        play is applied here, inline: it is 52 of a round's ~62 actions, and this is the only copy of
        the play rules (:meth:`apply_unchecked` comes through here too).
        """
        if type(action) is not Action:
            if isinstance(action, str):
                action = Action.parse(action)
            else:
                raise InvalidActionError(f"not an action: {action!r}")
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if action not in legal:
            raise self._illegal(action)
        self._legal = None
        self.actions.append(action)
        if action.verb is not _PLAY_VERB:
            self.ruleset.apply_declaration(self, action)
            return
        seat = action.seat
        self.hands[seat] ^= action.bit
        trick = self.trick
        if not trick:
            self.led = action.suit
            trick.append(action.card)  # type: ignore[arg-type]
            self.turn = (seat + 1) & 3
            return
        led = self.led
        if action.suit != led:
            self.avoid[seat] |= 1 << led
        trick.append(action.card)  # type: ignore[arg-type]
        if len(trick) < 4:
            self.turn = (seat + 1) & 3
            return
        # The trick's winner (fast.trick_winner_index, inline: once per trick of every round).
        trump = self.trump_index
        best = trick[0]
        best_i = 0
        for i in (1, 2, 3):
            c = trick[i]
            if c // 13 == best // 13:
                if c > best:
                    best, best_i = c, i
            elif c // 13 == trump:
                best, best_i = c, i
        winner = (self.leader + best_i) & 3
        self.tricks_won[winner] += 1
        self.trick_log.append((self.leader, tuple(trick), winner))
        self.trick = []
        self.leader = winner
        self.turn = winner
        if len(self.trick_log) == 13:
            self._finish_round()

    def apply_unchecked(self, action: Action) -> None:
        """Apply without checking: for simulations that only ever pick legal actions.

        The action is made the whole legal list, so :meth:`apply`'s test passes at once and the state
        change stays in one place.
        """
        self._legal = (action,)
        self.apply(action)

    def end_match_left(self, seat: int) -> None:
        """A player left a ruleset where that ends the match: standings decide, the leaver cannot win."""
        if not self.ruleset.leaver_ends_match:
            raise IllegalActionError(f"in {self.ruleset.name} a player who leaves is replaced, "
                                     "the match does not end")
        if self.is_over:
            raise GameOverError("the game is over")
        if seat not in (0, 1, 2, 3):
            raise IllegalActionError(f"not a seat: {seat!r}")
        self.ended = {"reason": "left", "seat": seat}
        self.phase = _OVER
        self._over = True
        self.turn = None
        self._legal = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        # clone() already shares only immutable parts (results, finished deals, the stateless ruleset).
        return self.clone()

    def clone(self) -> Game:
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        for name in ("totals_list", "round_results", "deal_log", "hands", "actions", "estimates", "trick",
                     "tricks_won", "trick_log", "avoid"):
            setattr(other, name, list(getattr(self, name)))
        other.decl = self.decl.copy()
        return other

    # --- round end ---------------------------------------------------------------------------------
    def _finish_round(self) -> None:
        facts = self.ruleset.facts(self)
        result = _build_result(self, facts)
        self.round_results.append(result)
        self.totals_list = list(map(add, self.totals_list, result.scores))
        if self.ruleset.saaydeh:
            self.multiplier = min(self.multiplier * 2, 4) if result.saaydeh else 1
        self.deal_log.append((self.round_no, self.dealer, self.dealt, self.actions))
        if self.round_no == len(self.schedule):
            self.phase = _OVER
            self._over = True
            self.turn = None
            self._legal = ()
            return
        self.round_no += 1
        self.deal_no = 0
        self._start_deal()

    # --- errors -------------------------------------------------------------------------------------
    def _illegal(self, action: Action) -> IllegalActionError:
        if self.phase is Phase.OVER:
            return GameOverError("the game is over")
        if action.verb not in self.ruleset.verbs:
            article = "an" if self.ruleset.name[0] in "aeiou" else "a"
            return IllegalActionError(f"'{action.verb}' is not {article} {self.ruleset.name} action")
        if action.seat != self.turn:
            return IllegalActionError(f"it is seat {self.turn}'s turn, not seat {action.seat}'s")
        if self.phase is Phase.PLAY:
            if action.verb is not Verb.PLAY:
                return IllegalActionError(f"the cards are being played: {action.verb} is not allowed now")
            assert action.card is not None
            if not self.hands[action.seat] >> action.card & 1:
                return IllegalActionError(f"seat {action.seat} does not hold {action.card}")
            led = Trump(self.trick[0] // 13)
            return IllegalActionError(f"seat {action.seat} must follow {led.word}")
        if action.verb is Verb.PLAY:
            return IllegalActionError(f"no card may be played before the {self.phase} phase ends")
        return IllegalActionError(self.ruleset.explain_illegal(self, action))

    # --- output ---------------------------------------------------------------------------------------
    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator), as :func:`estimation.views.seat_view` redacts it."""
        return seat_view(self, seat)

    def record(self, include_seed: bool = False) -> dict[str, Any]:
        """The game's `estimation-record/1` record so far (:func:`estimation.record_writer.write_record`)."""
        return write_record(self, include_seed=include_seed)

    def play_state(self) -> PlayState:
        """The play-phase position as bare ints, for simulations (:mod:`estimation.fast`)."""
        return PlayState.from_game(self)

    def hand(self, seat: int) -> list[Card]:
        return list(cards_of(self.hands[seat]))

    def hand_text(self, seat: int) -> str:
        return hand_text(self.hands[seat])


def _build_result(game: Game, facts: RoundFacts) -> RoundResult:
    """The scored round. The engine's own hot path (every scored round, simulations included), so it keeps
    the measured speed tricks that the rulesets do not (docs/performance.md): each line's score summed from
    the unpacked line, the trump's text from a table, and the result built positionally through
    ``tuple.__new__``, which is what a named tuple's own ``__new__`` does after binding its keywords."""
    ruleset = game.ruleset
    made = facts.made_flags()
    breakdown, saaydeh = score_round(ruleset, facts, made)
    scores = tuple([(base + caller_with + only + risk + dash_call + dash) * multiplier
                    for _, _, _, _, _, base, caller_with, only, risk, dash_call, dash, multiplier
                    in breakdown])
    dash_calls = facts.dash_calls
    return _new(RoundResult, (
        game.round_no,                                  # round
        game.deal_no + 1,                               # deals
        ruleset.round_kind(game),                       # kind
        _TRUMP_TEXT[game.trump],                        # trump
        facts.caller,                                   # caller
        facts.multiplier,                               # multiplier
        facts.estimates,                                # estimates
        facts.tricks,                                   # tricks
        made,                                           # made
        scores,                                         # scores
        ruleset.risk_level(facts),                      # risk
        saaydeh,                                        # saaydeh
        (game.first_dealer + game.round_no - 1) % 4,    # dealer (Game.dealer)
        facts.order,                                    # order
        tuple(sorted(dash_calls)) if dash_calls else (),  # dash_calls
        breakdown,                                      # breakdown
    ))


#: ``str(trump)`` by trump: ``Trump.__str__`` reads the enum's ``name`` through a Python-level descriptor.
_TRUMP_TEXT: dict[Trump, str] = {t: str(t) for t in Trump}
_new = tuple.__new__
