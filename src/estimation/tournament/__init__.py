"""`estimation tournament`: the duplicate harness.

The same deals (one seed per game) are played by every line-up: four copies of the opponent (the
baseline), and for each candidate, the candidate in seat 0, 1, 2, 3 in turn against three copies of the
opponent. Deals depend only on (seed, round, deal), so the cards are the same whatever anyone declares.
Comparing a candidate's score in a seat with the opponent's in the same seat on the same cards removes
most of the luck of the deal; see :mod:`.stats`.
"""

from __future__ import annotations

from .lineup import TOURNAMENT_LEVELS, GameResult, Job, play_job, tournament_bot
from .runner import Config, Report, run

__all__ = ["TOURNAMENT_LEVELS", "Config", "GameResult", "Job", "Report", "play_job", "run", "tournament_bot"]
