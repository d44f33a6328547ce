"""The integer action space shared by the OpenSpiel game and the PettingZoo environment.

One space for every ruleset, so an agent trained on one table talks to another unchanged. The seat is not
part of the integer (it is always the player to move); the index says what is done:

| indices | action |
|---|---|
| 0-51 | ``play`` card *i* (card index = suit * 13 + rank, clubs 0-12 .. spades 39-51, two low) |
| 52-65 | ``est N`` for N = 0..13 |
| 66-95 | ``est N T`` Super Call, N = 8..13, T in NT S H D C (``66 + (N - 8) * 5 + t``) |
| 96-145 | ``call NT`` (koutchina, classic), N = 4..13 (``96 + (N - 4) * 5 + trump``, trump C=0 .. NT=4) |
| 146-195 | ``bid NT`` (egyptian), same layout from 146 |
| 196-245 | ``declare NT`` (egyptian), same layout from 196 |
| 246 | ``pass`` |
| 247 | ``dashcall`` |
| 248 | ``nodash`` |
| 249 | ``dash`` (egyptian) |
| 250 | ``with`` (egyptian) |
"""

from __future__ import annotations

from typing import Final

from ..actions import Action, Verb
from ..cards import FIXED_TRUMPS, Card, Trump

NUM_ACTIONS: Final = 251
_CONTRACT_BASE: Final = {Verb.CALL: 96, Verb.BID: 146, Verb.DECLARE: 196}
_BARE: Final = {Verb.PASS: 246, Verb.DASHCALL: 247, Verb.NODASH: 248, Verb.DASH: 249, Verb.WITH: 250}
_BARE_BY_INDEX: Final = {i: v for v, i in _BARE.items()}


def action_index(action: Action) -> int:
    """The integer of an action (its seat dropped)."""
    verb = action.verb
    if verb is Verb.PLAY:
        assert action.card is not None
        return int(action.card)
    if verb is Verb.EST:
        assert action.number is not None
        if action.trump is None:
            return 52 + action.number
        return 66 + (action.number - 8) * 5 + FIXED_TRUMPS.index(action.trump)
    if verb in _CONTRACT_BASE:
        assert action.number is not None and action.trump is not None
        return _CONTRACT_BASE[verb] + (action.number - 4) * 5 + int(action.trump)
    return _BARE[verb]


def index_action(seat: int, index: int) -> Action:
    """The action of ``seat`` that integer ``index`` stands for."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index out of range: {index}")
    if index < 52:
        return Action.play(seat, Card(index))
    if index < 66:
        return Action.est(seat, index - 52)
    if index < 96:
        n, t = divmod(index - 66, 5)
        return Action.est(seat, 8 + n, FIXED_TRUMPS[t])
    for verb, base in _CONTRACT_BASE.items():
        if base <= index < base + 50:
            n, t = divmod(index - base, 5)
            return Action.contract(seat, verb, 4 + n, Trump(t))
    return Action.bare(seat, _BARE_BY_INDEX[index])


def action_name(index: int) -> str:
    """The action's record text without the seat, e.g. ``est 9 H``."""
    return index_action(0, index).text.split(" ", 1)[1]
