"""The OpenSpiel game passes OpenSpiel's own checks and hides what a seat cannot see."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import ismcts, mcts

import estimation.research.openspiel_game as osg
from estimation import RULESETS

ALL = [(name, length) for name, rules in RULESETS.items() for length in rules.lengths]


def advance(state: pyspiel.State, rng: random.Random, steps: int) -> pyspiel.State:
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize(("ruleset", "length"), ALL)
def test_random_sim_test_passes_for_every_ruleset_and_length(ruleset: str, length: str) -> None:
    """Serialization is checked at every state, which costs the square of the game's length: it runs on
    the shortest length of each ruleset here, and on single rounds of every ruleset below."""
    game = pyspiel.load_game(osg.GAME_NAME, {"ruleset": ruleset, "length": length})
    shortest = min(RULESETS[ruleset].lengths, key=lambda n: len(RULESETS[ruleset].lengths[n]))
    pyspiel.random_sim_test(game, num_sims=1, serialize=length == shortest, verbose=False)


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_single_round_games_pass_and_return_the_round_scores(ruleset: str) -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"ruleset": ruleset, "single_round": True})
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    state = advance(game.new_initial_state(), random.Random(1), 10_000)
    assert state.is_terminal()
    assert state.returns() == [float(s) for s in state.game.round_results[0].scores]


def test_returns_are_the_match_totals() -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "micro"})
    state = advance(game.new_initial_state(), random.Random(2), 100_000)
    assert state.is_terminal()
    assert state.returns() == [float(t) for t in state.game.totals]
    assert len(state.game.round_results) == 5


def test_game_and_part_played_state_pickle_and_serialize() -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"ruleset": "egyptian", "length": "committee"})
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    state = advance(game.new_initial_state(), random.Random(3), 140)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.history() == state.history()
    state3 = pickle.loads(pickle.dumps(state))
    assert str(state3) == str(state)
    for player in range(4):
        assert state3.information_state_string(player) == state.information_state_string(player)


def test_observations_hold_no_hidden_card() -> None:
    """Two states that differ only in cards a player cannot see look the same to that player."""
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "mini"})
    rng = random.Random(4)
    checked = 0
    for steps in (60, 75, 90, 120, 200):
        state = advance(game.new_initial_state(), rng, steps)
        if state.is_chance_node() or state.is_terminal():
            continue
        player = state.current_player()
        other = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert other.game.hands[player] == state.game.hands[player]
        if other.game.hands == state.game.hands:
            continue  # nothing hidden was changed (e.g. every other hand forced)
        checked += 1
        assert state.information_state_string(player) == other.information_state_string(player)
        assert state.observation_string(player) == other.observation_string(player)
        assert np.array_equal(state.information_state_tensor(player), other.information_state_tensor(player))
        assert np.array_equal(state.observation_tensor(player), other.observation_tensor(player))
        # ...and a seat whose hand differs sees the difference in its own view
        changed = next(s for s in range(4) if other.game.hands[s] != state.game.hands[s])
        assert state.observation_string(changed) != other.observation_string(changed)
    assert checked >= 3


def test_resampled_worlds_respect_what_the_player_has_seen() -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "mini"})
    rng = random.Random(5)
    for steps in range(70, 400, 9):
        state = advance(game.new_initial_state(), rng, steps)
        if state.is_chance_node() or state.is_terminal():
            continue
        player = state.current_player()
        world = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        g, w = state.game, world.game
        assert [h.bit_count() for h in g.hands] == [h.bit_count() for h in w.hands]
        assert sum(w.hands) == sum(g.hands)  # same unseen cards, redistributed
        for seat in range(4):
            for suit in range(4):
                if g.avoid[seat] >> suit & 1:  # a seat shown void in a suit gets none of it
                    assert not w.hands[seat] >> (suit * 13) & 0x1FFF
        assert sorted(world.legal_actions()) == sorted(state.legal_actions())


def test_ismcts_plays_whole_rounds_and_mcts_evaluator_runs() -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "micro", "single_round": True})
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, 15, random_state=np.random.RandomState(s))
            for s in range(4)]
    rng = random.Random(6)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
            else:
                action = bots[state.current_player()].step(state)
                assert action in state.legal_actions()
                state.apply_action(action)
        assert len(state.returns()) == 4


def test_action_space_is_documented_and_round_trips() -> None:
    from estimation.research.action_space import NUM_ACTIONS, action_index, action_name, index_action

    assert pyspiel.load_game(osg.GAME_NAME).num_distinct_actions() == NUM_ACTIONS
    names = {action_name(i) for i in range(NUM_ACTIONS)}
    assert len(names) == NUM_ACTIONS
    for i in range(NUM_ACTIONS):
        assert action_index(index_action(2, i)) == i
    assert action_name(0) == "play 2C" and action_name(51) == "play AS"
    assert action_name(52 + 4) == "est 4" and action_name(66) == "est 8 NT"
    assert action_name(96) == "call 4C" and action_name(145) == "call 13NT"
    assert action_name(250) == "with"


def test_ismcts_seat_plays_legal_moves_from_the_view_alone() -> None:
    """OpenSpiel's ISMCTS in our tournament: legal, reproducible, and blind to hidden cards."""
    import estimation
    from estimation.research.ismcts_seat import ISMCTSSeat

    game = estimation.new_game("koutchina", "mini", seed=8)
    rng = random.Random(8)
    while game.phase != "play" or len(game.trick) != 1:
        game.apply(rng.choice(game.legal_actions()))
    seat = game.to_move
    assert seat is not None
    # A twin game: the same view for `seat`, the other hands swapped between two opponents.
    twin = game.clone()
    size = game.hands[seat].bit_count()
    a, b = [s for s in range(4) if s != seat and game.hands[s].bit_count() == size][:2]
    if not (twin.avoid[a] or twin.avoid[b]):
        twin.hands[a], twin.hands[b] = twin.hands[b], twin.hands[a]
        twin._legal = None
    assert twin.view(seat) == game.view(seat)
    first = ISMCTSSeat(game, seed=5, simulations=20).act(game.view(seat))
    second = ISMCTSSeat(twin, seed=5, simulations=20).act(twin.view(seat))
    assert first == second and first in game.view(seat)["legal"]
    target = len(game.round_results) + 1
    while len(game.round_results) < target:  # the rest of the round, every seat searching
        mover = game.to_move
        assert mover is not None
        game.apply(ISMCTSSeat(game, seed=len(game.actions), simulations=8).act(game.view(mover)))


# --- partnerships (RULES.md): the same checks with partners on -------------------------------------------
SHORTEST = [(name, min(rules.lengths, key=lambda n: len(rules.lengths[n])))
            for name, rules in RULESETS.items()]


@pytest.mark.parametrize(("ruleset", "length"), SHORTEST)
def test_partnership_games_pass_random_sim_test(ruleset: str, length: str) -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"ruleset": ruleset, "length": length, "partners": True})
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    single = pyspiel.load_game(osg.GAME_NAME, {"ruleset": ruleset, "single_round": True, "partners": True})
    pyspiel.random_sim_test(single, num_sims=3, serialize=True, verbose=False)


def test_partnership_returns_are_the_side_totals_as_in_bridge() -> None:
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "micro", "partners": True})
    state = advance(game.new_initial_state(), random.Random(5), 100_000)
    assert state.is_terminal() and state.game.partners
    totals = state.game.totals
    sides = [float(totals[0] + totals[2]), float(totals[1] + totals[3])]
    assert state.returns() == [sides[0], sides[1], sides[0], sides[1]]
    single = pyspiel.load_game(osg.GAME_NAME, {"ruleset": "egyptian", "single_round": True, "partners": True})
    state = advance(single.new_initial_state(), random.Random(6), 10_000)
    scores = state.game.round_results[0].scores
    assert state.returns() == [float(scores[p] + scores[(p + 2) % 4]) for p in range(4)]
    # The observation says the game is a partnership game; the rest of it is as without partners.
    game = pyspiel.load_game(osg.GAME_NAME, {"length": "micro", "partners": True})
    state = advance(game.new_initial_state(), random.Random(7), 60)
    player = state.current_player()
    tensor = np.asarray(state.observation_tensor(player))
    assert tensor[-1] == 1.0
