"""Estimation as an OpenSpiel game: ``pyspiel.load_game("python_estimation", {...})``.

Importing this module registers the game. Parameters: ``ruleset`` (koutchina, classic, egyptian),
``length`` (empty for the ruleset's default), ``single_round`` (end after the first scored round, whose
scores are the returns) and ``partners`` (a partnership game, RULES.md: seats 0+2 against 1+3; each
player's return is its side's total, as OpenSpiel's bridge gives each partnership's score to both
partners). The deals are chance nodes: the first dealer (4 outcomes), then every deal card by
card (the i-th card dealt goes to seat i mod 4), so OpenSpiel's samplers and chance-aware algorithms see the
real distribution. Player nodes are the engine's checked actions, numbered as
:mod:`estimation.research.action_space` documents. Observations are built from ``Game.view(seat)`` only.
"""

from __future__ import annotations

import json
import random
from typing import Any, Final

import numpy as np
import pyspiel

from ..cards import DECK_SIZE
from ..game import Game
from ..rulesets import DEFAULT_RULESET, RULESETS, get_ruleset
from . import encoding
from .action_space import NUM_ACTIONS, action_index, action_name, index_action
from .sampling import redeal_hidden

GAME_NAME: Final = "python_estimation"
DEFAULT_PARAMS: Final[dict[str, Any]] = {"ruleset": DEFAULT_RULESET, "length": "", "single_round": False,
                                         "partners": False}
#: A loose bound on one round's score for one seat, multiplier included (koutchina x4: 4 x 73).
ROUND_SCORE_BOUND: Final = 300
#: A bound on a deal's actions: 52 chance cards, the offer (4), the auction (50 calls + 4 passes,
#: egyptian Withs in between), a declaration, 4 estimates and 52 cards.
DEAL_LENGTH_BOUND: Final = 52 + 4 + 54 + 50 + 1 + 4 + 52
DEALS_PER_ROUND_BOUND: Final = 4

_GAME_TYPE: Final = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Estimation (koutchina, classic, egyptian)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=4,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def _settings(params: dict[str, Any]) -> tuple[str, str, bool, bool]:
    ruleset = str(params.get("ruleset", DEFAULT_RULESET))
    if ruleset not in RULESETS:
        raise ValueError(f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
    length = str(params.get("length", "")) or RULESETS[ruleset].default_length
    if length not in RULESETS[ruleset].lengths:
        raise ValueError(f"unknown length {length!r} for {ruleset}")
    return ruleset, length, bool(params.get("single_round", False)), bool(params.get("partners", False))


class EstimationGame(pyspiel.Game):  # type: ignore[misc]
    """The rules plus parameters; states come from :meth:`new_initial_state`."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = dict(DEFAULT_PARAMS)
        merged.update(params or {})
        self.ruleset, self.length, self.single_round, self.partners = _settings(merged)
        rounds = 1 if self.single_round else len(RULESETS[self.ruleset].lengths[self.length])
        seats_per_return = 2 if self.partners else 1  # a side's total is two seats' totals
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=DECK_SIZE,
            num_players=4,
            min_utility=-float(ROUND_SCORE_BOUND * rounds * seats_per_return),
            max_utility=float(ROUND_SCORE_BOUND * rounds * seats_per_return),
            max_game_length=1 + rounds * DEALS_PER_ROUND_BOUND * DEAL_LENGTH_BOUND,
        )
        super().__init__(_GAME_TYPE, info, merged)

    def new_initial_state(self) -> EstimationState:
        return EstimationState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ViewObserver:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return ViewObserver()


class EstimationState(pyspiel.State):  # type: ignore[misc]
    """A position: the engine's :class:`Game` plus the cards of a deal being dealt by chance."""

    def __init__(self, game: EstimationGame) -> None:
        super().__init__(game)
        self._ruleset = game.ruleset
        self._length = game.length
        self._partners = game.partners
        #: The state is terminal once this many rounds are scored (None: at the end of the match).
        self._stop_after: int | None = 1 if game.single_round else None
        self.game: Game | None = None
        self._dealing: list[int] = []
        self._installed = -1  # len(deal_log) of the deal whose chance cards are installed

    # --- who moves ------------------------------------------------------------------------------------
    def _needs_cards(self) -> bool:
        game = self.game
        return game is not None and not game.is_over and self._installed != len(game.deal_log)

    def current_player(self) -> int:
        if self.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if self.game is None or self._needs_cards():
            return int(pyspiel.PlayerId.CHANCE)
        to_move = self.game.to_move
        assert to_move is not None
        return to_move

    def is_terminal(self) -> bool:
        game = self.game
        if game is None:
            return False
        return game.is_over or (self._stop_after is not None and len(game.round_results) >= self._stop_after)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.game is None:
            return [(seat, 0.25) for seat in range(4)]
        dealt = set(self._dealing)
        remaining = [c for c in range(DECK_SIZE) if c not in dealt]
        p = 1.0 / len(remaining)
        return [(c, p) for c in remaining]

    def _legal_actions(self, player: int) -> list[int]:
        assert self.game is not None
        return sorted(action_index(a) for a in self.game.legal_actions())

    # --- moves -----------------------------------------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        if self.game is None:
            rules = get_ruleset(self._ruleset)
            self.game = Game(rules, self._length, seed=0, first_dealer_seat=int(action),
                             partners=self._partners)
            return
        if self._needs_cards():
            self._dealing.append(int(action))
            if len(self._dealing) == DECK_SIZE:
                masks = [0, 0, 0, 0]
                for i, card in enumerate(self._dealing):
                    masks[i % 4] |= 1 << card
                self.game.replace_hands(tuple(masks))
                self._installed = len(self.game.deal_log)
                self._dealing = []
            return
        seat = self.game.to_move
        assert seat is not None
        self.game.apply(index_action(seat, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.game is None:
                return f"first dealer {action}"
            from ..cards import Card

            return f"deal {Card(action)}"
        return f"{player} {action_name(action)}"

    # --- outcome ---------------------------------------------------------------------------------------
    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0, 0.0, 0.0]
        assert self.game is not None
        if self._stop_after is not None:
            scores = list(self.game.round_results[self._stop_after - 1].scores)
        else:
            scores = list(self.game.totals)
        if self._partners:  # each player gets its side's: its own and its partner's (seat + 2)
            return [float(scores[p] + scores[(p + 2) % 4]) for p in range(4)]
        return [float(s) for s in scores]

    @classmethod
    def at_position(cls, spiel_game: EstimationGame, game: Game) -> EstimationState:
        """A state at ``game``'s current position (a copy), terminal when the round in play is scored.

        For search from a real table: its history holds no chance nodes, so it is for play, not for
        serialization. The caller decides what ``game`` may hold (see :mod:`.ismcts_seat`)."""
        state = cls(spiel_game)
        state.game = game.clone()
        state._installed = len(game.deal_log)
        state._stop_after = len(game.round_results) + 1
        return state

    # --- information --------------------------------------------------------------------------------------
    def view(self, player: int) -> dict[str, Any] | None:
        """``Game.view(player)``; while a deal is being dealt, the hand is the cards dealt to it so far."""
        if self.game is None:
            return None
        view = self.game.view(player)
        if self._needs_cards():
            from ..cards import Card

            mine = sorted((c for i, c in enumerate(self._dealing) if i % 4 == player), reverse=True)
            view["hand"] = [str(Card(c)) for c in mine]
            view["hand_sizes"] = [sum(1 for i in range(len(self._dealing)) if i % 4 == s) for s in range(4)]
            view["legal"] = []
        return view

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> EstimationState:
        """A state the player cannot tell from this one: the other hands dealt anew, consistent with the
        view (cards played, voids shown). Used by ISMCTS."""
        seed = int(probability_sampler() * 2**31) if callable(probability_sampler) else None
        return self.resample_with(player_id, random.Random(seed))

    def resample_with(self, player_id: int, rng: random.Random) -> EstimationState:
        """:meth:`resample_from_infostate` with the caller's own random source (for reproducible search)."""
        clone: EstimationState = self.clone()
        game = clone.game
        if game is None or self._needs_cards() or self.is_terminal():
            return clone
        redeal_hidden(game, player_id, rng)
        return clone

    def __str__(self) -> str:
        """The whole position, compactly: earlier deals are summed up by the totals they produced."""
        game = self.game
        if game is None:
            return "dealer to be drawn"
        hands = " | ".join(game.hand_text(s) for s in range(4))
        actions = ", ".join(a.text for a in game.actions)
        text = (f"round {game.round_no} deal {game.deal_no + 1} dealer {game.dealer} totals "
                f"{list(game.totals)} x{game.multiplier} hands {hands} actions [{actions}]")
        return text + (f" dealing {self._dealing}" if self._needs_cards() else "")


class ViewObserver:
    """OpenSpiel's PyObserver over a seat's view: the same facts as string and tensor."""

    def __init__(self) -> None:
        self.tensor = np.zeros(encoding.SIZE, np.float32)
        self.dict: dict[str, Any] = {}
        at = 0
        for name, size in encoding.PIECES:
            self.dict[name] = self.tensor[at:at + size]
            at += size

    def set_from(self, state: EstimationState, player: int) -> None:
        view = state.view(player)
        if view is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = encoding.encode_view(view, player)

    def string_from(self, state: EstimationState, player: int) -> str:
        view = state.view(player)
        if view is None:
            return "dealer to be drawn"
        return json.dumps(view, sort_keys=True, separators=(",", ":"))


pyspiel.register_game(_GAME_TYPE, EstimationGame)
