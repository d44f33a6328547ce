"""The PettingZoo environment passes PettingZoo's own API and seed tests for every ruleset."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from estimation import RULESETS
from estimation.research import estimation_v0

SHORTEST = {"koutchina": "micro", "classic": "full", "egyptian": "committee"}


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_api_test_passes(ruleset: str) -> None:
    api_test(estimation_v0.env(ruleset=ruleset, length=SHORTEST[ruleset]), num_cycles=300)


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_seed_test_passes(ruleset: str) -> None:
    seed_test(functools.partial(estimation_v0.env, ruleset=ruleset, length=SHORTEST[ruleset]),
              num_cycles=300)


def test_rewards_are_score_deltas_summing_to_the_totals() -> None:
    env = estimation_v0.env(ruleset="koutchina", length="micro")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    earned = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        earned[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.sum() > 0
        env.step(int(rng.choice(np.flatnonzero(mask))))
    game = env.unwrapped.game
    assert game.is_over
    assert [earned[f"player_{s}"] for s in range(4)] == [float(t) for t in game.totals]


def test_only_the_seat_to_move_has_a_mask_and_render_modes() -> None:
    env = estimation_v0.env(render_mode="ansi")
    env.reset(seed=1)
    mover = env.agent_selection
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert (mask.sum() > 0) == (agent == mover)
    text = env.render()
    assert isinstance(text, str) and "round 1/5" in text
    with pytest.raises(ValueError):
        estimation_v0.raw_env(render_mode="video")


# --- partnerships (RULES.md): the same suites with partners on --------------------------------------------
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_partnership_api_and_seed_tests_pass(ruleset: str) -> None:
    api_test(estimation_v0.env(ruleset=ruleset, length=SHORTEST[ruleset], partners=True), num_cycles=300)
    seed_test(functools.partial(estimation_v0.env, ruleset=ruleset, length=SHORTEST[ruleset], partners=True),
              num_cycles=300)


def test_partnership_rewards_sum_to_the_side_totals() -> None:
    env = estimation_v0.env(ruleset="egyptian", length="committee", partners=True, render_mode="ansi")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    earned = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        earned[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = env.unwrapped.game
    sides = [game.totals[0] + game.totals[2], game.totals[1] + game.totals[3]]
    assert [earned[f"player_{s}"] for s in range(4)] == [float(sides[s % 2]) for s in range(4)]
    assert "sides:" in env.render()
