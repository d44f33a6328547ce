"""Reading an `estimation-record/1` game record (its writer: :mod:`estimation.record_writer`), and the
replay summary.

Reading a record replays it through the checked engine, so a record is legal exactly when every action in
it is; the first fault becomes a :class:`RecordError` naming the deal and action (RECORD.md's contract).
"""

from __future__ import annotations

from typing import Any

from .cards import DECK_SIZE, mask_of, parse_hand
from .errors import EstimationError, RecordError
from .game import Game
from .record_writer import FORMAT
from .rulesets import RULESETS, get_ruleset
from .rulesets.base import Phase


def _record_fault(reason: str) -> RecordError:
    return RecordError(0, 0, "", reason)


def load_record(record: Any) -> Game:
    """Rebuild a game from a record, checking every action; raises :class:`RecordError` on the first fault."""
    if not isinstance(record, dict):
        raise _record_fault("a record is a JSON object")
    if record.get("format") != FORMAT:
        raise _record_fault(f"unknown format {record.get('format')!r} (expected {FORMAT!r})")
    name = record.get("ruleset")
    if not isinstance(name, str) or name not in RULESETS:
        raise _record_fault(f"unknown ruleset {name!r}")
    ruleset = get_ruleset(name)
    length = record.get("length", ruleset.default_length)
    if not isinstance(length, str) or length not in ruleset.lengths:
        raise _record_fault(f"unknown length {length!r} for {name}")
    players = record.get("players")
    if not isinstance(players, list) or len(players) != 4:
        raise _record_fault("a record names four players")
    if not all(isinstance(p, str) for p in players):
        raise _record_fault("player names are strings")
    deals = record.get("deals")
    if not isinstance(deals, list):
        raise _record_fault("deals must be a list")
    seed = record.get("seed")
    if seed is not None and not isinstance(seed, int | str):
        raise _record_fault("seed must be an integer or a string")
    partners = record.get("partners", False)
    if not isinstance(partners, bool):
        raise _record_fault('"partners" is true or false')

    first_dealer = None
    # ``type is int``: 0.0 and True compare equal to seats but are not seat numbers (a float dealer would
    # reach the rulesets' bit arithmetic and raise a TypeError instead of a RecordError).
    if deals and isinstance(deals[0], dict) and type(deals[0].get("dealer")) is int \
            and deals[0]["dealer"] in (0, 1, 2, 3):
        first_dealer = deals[0]["dealer"]
    game = Game(ruleset, length, seed=seed, players=players, first_dealer_seat=first_dealer,
                partners=partners)

    for d, deal in enumerate(deals, start=1):
        _start_recorded_deal(game, d, deal, deals_before=d - 1)
        actions = deal["actions"]
        deal_index = len(game.deal_log)
        for k, text in enumerate(actions, start=1):
            if not isinstance(text, str):
                raise RecordError(d, k, str(text), "an action is a string")
            if game.is_over or len(game.deal_log) != deal_index:
                raise RecordError(d, k, text, "the deal has already ended")
            try:
                game.apply(text)
            except EstimationError as exc:
                raise RecordError(d, k, text, str(exc)) from None
    ended = record.get("ended")
    if ended is not None:
        _apply_ended(game, ended)
    return game


def _start_recorded_deal(game: Game, d: int, deal: Any, deals_before: int) -> None:
    def fault(reason: str) -> RecordError:
        return RecordError(d, 0, "", reason)

    if not isinstance(deal, dict):
        raise fault("a deal is a JSON object")
    if game.is_over:
        raise fault("a deal after the last round")
    if len(game.deal_log) != deals_before:
        raise fault("a deal after an unfinished one")
    if type(deal.get("round")) is not int or deal["round"] != game.round_no:
        raise fault(f"round should be {game.round_no}, not {deal.get('round')!r}")
    if type(deal.get("dealer")) is not int or deal["dealer"] != game.dealer:
        raise fault(f"the dealer should be seat {game.dealer}, not {deal.get('dealer')!r}")
    hands = deal.get("hands")
    if not isinstance(hands, list) or len(hands) != 4:
        raise fault("a deal has four hands")
    masks = []
    seen = 0
    for seat, text in enumerate(hands):
        if not isinstance(text, str):
            raise fault(f"hand {seat} is not a string of cards")
        try:
            cards = parse_hand(text)
        except ValueError as exc:
            raise fault(f"hand {seat}: {exc}") from None
        if len(cards) != 13:
            raise fault(f"hand {seat} has {len(cards)} cards, not 13")
        mask = mask_of(cards)
        if mask.bit_count() != 13 or mask & seen:
            dup = next(c for i, c in enumerate(cards)
                       if c in cards[:i] or (seen >> c) & 1)
            raise fault(f"{dup} is dealt twice")
        seen |= mask
        masks.append(mask)
    assert seen.bit_count() == DECK_SIZE
    if not isinstance(deal.get("actions"), list):
        raise fault("a deal's actions are a list")
    game.replace_hands(tuple(masks))


def _apply_ended(game: Game, ended: Any) -> None:
    if (not isinstance(ended, dict) or ended.get("reason") != "left"
            or ended.get("seat") not in (0, 1, 2, 3)):
        raise _record_fault('"ended" must be {"reason": "left", "seat": 0-3}')
    game.end_match_left(ended["seat"])


def replay_summary(game: Game) -> dict[str, Any]:
    """The `estimation replay --json` document for a loaded game (with partners, each seat's place is its
    side's, and ``sides`` gives the sides' seats, totals and places)."""
    summary: dict[str, Any] = {
        "rounds": [r.to_dict() for r in game.round_results],
        "totals": list(game.totals),
        "places": game.places,
        "complete": game.phase is Phase.OVER and game.ended is None,
    }
    sides = game.sides
    if sides is not None:
        summary["sides"] = sides
    return summary
