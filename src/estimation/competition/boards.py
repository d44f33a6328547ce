"""Boards: the game seed every table of a stage (and instance) plays with.

The engine deals round r, deal k from (seed, r, k) alone and picks the first dealer from the seed alone
(:mod:`estimation.dealing`), so tables given the same seed hold the same four hands and the same dealer on
every board, redeals included, whatever anyone declares or plays. A competition therefore needs nothing
but one seed per stage and instance: no deal is stored apart from the records.
"""

from __future__ import annotations


def board_seed(competition_seed: int | str, stage: int, instance: int = 1) -> str:
    """The game seed of every table of ``stage`` (1-based) and ``instance`` (1-based; 1 in ``swiss``).

    Different stages and instances get unrelated deals (the seed string differs, and the engine hashes
    it), so a deal shared in one instance tells nothing about another.
    """
    if stage < 1 or instance < 1:
        raise ValueError(f"stages and instances count from 1, not stage {stage}, instance {instance}")
    return f"competition/{competition_seed}/stage/{stage}/instance/{instance}"
