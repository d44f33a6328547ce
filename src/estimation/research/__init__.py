"""Estimation for researchers: an OpenSpiel game and a PettingZoo environment.

Nothing here is imported by the core package; install the extra (``pip install -e .[research]``) and
import :mod:`estimation.research.openspiel_game` (registers ``python_estimation`` with ``pyspiel``) or
:mod:`estimation.research.estimation_v0` (the PettingZoo AEC environment).
"""
