"""Actions: what a seat does, as a value with the record's text form (``"2 est 4"``, ``"1 play QH"``).

Actions are interned: parsing the same text twice, or generating the same legal action twice, gives the
same object, so legal-action lists are cheap to build and ``in`` tests are identity-fast.
"""

from __future__ import annotations

import enum
from typing import Final

from .cards import RANKS_OF, Card, Trump, card_from_text
from .errors import InvalidActionError


class Verb(enum.StrEnum):
    DASHCALL = "dashcall"
    NODASH = "nodash"
    CALL = "call"
    PASS = "pass"
    EST = "est"
    PLAY = "play"
    # egyptian
    DASH = "dash"
    BID = "bid"
    WITH = "with"
    DECLARE = "declare"


#: Verbs whose argument is a contract: a number 4..13 and a trump written together (``7S``, ``10NT``).
CONTRACT_VERBS: Final = frozenset({Verb.CALL, Verb.BID, Verb.DECLARE})
BARE_VERBS: Final = frozenset({Verb.DASHCALL, Verb.NODASH, Verb.PASS, Verb.DASH, Verb.WITH})


class Action:
    """One seat's move. ``number``/``trump`` carry calls, bids and estimates; ``card`` a play.

    Actions are flyweights: constructing or parsing the same action twice returns the same object, so
    equality is identity and hashing is by identity too (both in C), which keeps legality tests on the
    hot path cheap. Attributes cannot be changed.
    """

    __slots__ = ("bit", "card", "number", "seat", "suit", "text", "trump", "verb")

    seat: int
    verb: Verb
    number: int | None
    trump: Trump | None
    card: Card | None
    text: str
    #: For a card play, ``1 << card`` and the card's suit number (``card // 13``), read by the engine's
    #: play path; 0 and -1 for every other action.
    bit: int
    suit: int

    def __new__(cls, seat: int, verb: Verb | str, number: int | None = None, trump: Trump | None = None,
                card: Card | int | None = None) -> Action:
        key = (seat, verb, number, trump, card)
        found = _BY_VALUE.get(key)
        if found is not None:
            return found
        return _create(key)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("actions are immutable")

    def __reduce__(self) -> tuple[type[Action], tuple[object, ...]]:
        return (Action, (self.seat, self.verb, self.number, self.trump, self.card))

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Action.parse({self.text!r})"

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read the record syntax; raises :class:`InvalidActionError` saying what is malformed."""
        cached = _INTERNED.get(text)
        if cached is not None:
            return cached
        return _parse(text)

    # Constructors for the hot paths.
    @staticmethod
    def play(seat: int, card: Card) -> Action:
        return _PLAY[seat][card]

    @staticmethod
    def est(seat: int, number: int, trump: Trump | None = None) -> Action:
        return Action(seat, Verb.EST, number, trump)

    @staticmethod
    def bare(seat: int, verb: Verb) -> Action:
        return _BARE[seat][verb]

    @staticmethod
    def contract(seat: int, verb: Verb, number: int, trump: Trump) -> Action:
        return Action(seat, verb, number, trump)


_INTERNED: dict[str, Action] = {}
_BY_VALUE: dict[tuple[object, ...], Action] = {}


def _text(seat: int, verb: Verb, number: int | None, trump: Trump | None, card: Card | None) -> str:
    if verb in BARE_VERBS:
        return f"{seat} {verb}"
    if verb is Verb.PLAY:
        return f"{seat} play {card}"
    if verb is Verb.EST:
        return f"{seat} est {number}" if trump is None else f"{seat} est {number} {trump}"
    return f"{seat} {verb} {number}{trump}"


def _create(key: tuple[object, ...]) -> Action:
    """Make the one instance of a new action, after checking its fields fit its verb."""
    seat, verb_in, number, trump_in, card_in = key
    if seat not in (0, 1, 2, 3):
        raise InvalidActionError(f"not a seat: {seat!r} (seats are 0-3)")
    try:
        verb = Verb(verb_in)  # type: ignore[arg-type]
    except ValueError:
        raise InvalidActionError(f"unknown verb {verb_in!r}") from None
    try:
        trump = None if trump_in is None else Trump(trump_in)  # type: ignore[arg-type]
        card = None if card_in is None else Card(card_in)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise InvalidActionError(f"malformed action: {exc}") from None
    if number is not None and not isinstance(number, int):
        raise InvalidActionError(f"not a number: {number!r}")
    shape_ok = (
        (verb in BARE_VERBS and number is None and trump is None and card is None)
        or (verb is Verb.PLAY and card is not None and number is None and trump is None)
        or (verb is Verb.EST and number is not None and 0 <= number <= 13 and card is None)
        or (verb in CONTRACT_VERBS and number is not None and 4 <= number <= 13 and trump is not None
            and card is None)
    )
    if not shape_ok:
        raise InvalidActionError(f"malformed {verb} action")
    assert isinstance(seat, int)
    canonical = (seat, verb, number, trump, card)
    found = _BY_VALUE.get(canonical)
    if found is None:
        found = object.__new__(Action)
        for name, value in zip(("seat", "verb", "number", "trump", "card"), canonical, strict=True):
            object.__setattr__(found, name, value)
        text = _text(seat, verb, number, trump, card)
        object.__setattr__(found, "text", text)
        object.__setattr__(found, "bit", 0 if card is None else 1 << card)
        object.__setattr__(found, "suit", -1 if card is None else card // 13)
        _BY_VALUE[canonical] = found
        _INTERNED[text] = found
    _BY_VALUE[key] = found
    return found


def _parse(text: str) -> Action:
    if not isinstance(text, str):
        raise InvalidActionError(f"an action is a string, not {type(text).__name__}")
    parts = text.split()
    if len(parts) < 2:
        raise InvalidActionError(f"not an action: {text!r} (expected 'SEAT VERB [ARG]')")
    seat_text, verb_text, *args = parts
    if seat_text not in ("0", "1", "2", "3"):
        raise InvalidActionError(f"not a seat: {seat_text!r} (seats are 0-3)")
    seat = int(seat_text)
    try:
        verb = Verb(verb_text)
    except ValueError:
        raise InvalidActionError(f"unknown verb {verb_text!r}") from None
    if verb in BARE_VERBS:
        if args:
            raise InvalidActionError(f"{verb} takes no argument")
        return Action(seat, verb)
    if verb is Verb.PLAY:
        if len(args) != 1:
            raise InvalidActionError("play takes one card, e.g. 'play QH'")
        try:
            return Action(seat, verb, card=card_from_text(args[0]))
        except ValueError as exc:
            raise InvalidActionError(str(exc)) from None
    if verb is Verb.EST:
        if not 1 <= len(args) <= 2 or not args[0].isdigit():
            raise InvalidActionError("est takes a number and an optional trump, e.g. 'est 4' or 'est 9 H'")
        number = int(args[0])
        if number > 13:
            raise InvalidActionError(f"an estimate is 0-13, not {number}")
        trump = None
        if len(args) == 2:
            try:
                trump = Trump.parse(args[1])
            except ValueError as exc:
                raise InvalidActionError(str(exc)) from None
        return Action(seat, verb, number, trump)
    # contract verbs
    if len(args) != 1:
        raise InvalidActionError(f"{verb} takes one contract, e.g. '{verb} 7S' or '{verb} 4NT'")
    number, trump = parse_contract(args[0])
    return Action(seat, verb, number, trump)


def parse_contract(text: str) -> tuple[int, Trump]:
    """Read ``7S`` / ``10NT`` into (number, trump); numbers outside 4..13 are refused here."""
    digits = len(text) - len(text.lstrip("0123456789"))
    if digits == 0:
        raise InvalidActionError(f"not a contract: {text!r} (expected a number and a trump, e.g. 7S)")
    number = int(text[:digits])
    try:
        trump = Trump.parse(text[digits:])
    except ValueError as exc:
        raise InvalidActionError(str(exc)) from None
    if not 4 <= number <= 13:
        raise InvalidActionError(f"a contract is 4-13 tricks, not {number}")
    return number, trump


_PLAY: Final = [[Action(s, Verb.PLAY, card=Card(c)) for c in range(52)] for s in range(4)]
_BARE: Final = [{v: Action(s, v) for v in BARE_VERBS} for s in range(4)]


#: Per seat, per suit: the play-action tuple of each 13-bit rank mask seen so far (8192 at most each).
#: The engine looks the follow-suit tuple up inline on its hot path; an empty suit is pre-filled so that
#: a lead's four lookups never miss on it.
_SuitCache = dict[int, tuple["Action", ...]]
SUIT_PLAYS: Final[tuple[tuple[_SuitCache, ...], ...]] = tuple(
    tuple(_SuitCache({0: ()}) for _ in range(4)) for _ in range(4))


def suit_play_actions(seat: int, suit: int, bits: int) -> tuple[Action, ...]:
    """The play actions of ``seat`` for the ranks ``bits`` (a 13-bit mask) of one suit, low card first."""
    cache = SUIT_PLAYS[seat][suit]
    found = cache.get(bits)
    if found is None:
        plays = _PLAY[seat]
        base = suit * 13
        found = cache[bits] = tuple([plays[base + r] for r in RANKS_OF[bits]])
    return found
