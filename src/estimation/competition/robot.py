"""`robot` competitions: each entrant alone in seat 0 against three bots, in one of K deal sets.

Entrants are spread over the instances in turn of entry (1st entry instance 1, 2nd instance 2, ..., the
(K+1)th instance 1 again), so the deals of one instance are not all known early by the first to play, and
each entrant is compared only with the others of its instance.
"""

from __future__ import annotations

from .types import Seats


def robot_instance(entry_number: int, instances: int) -> int:
    """The instance (1..``instances``) of the entrant who entered ``entry_number``-th (1-based)."""
    if entry_number < 1 or instances < 1:
        raise ValueError("entry numbers and instances count from 1")
    return (entry_number - 1) % instances + 1


def robot_seats(entrant: int) -> Seats:
    """A robot table: the entrant in seat 0, bots in seats 1-3 (RULES.md, Competitions)."""
    return (entrant, None, None, None)
