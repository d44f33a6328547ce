"""A table's frames on the wire: the update frame built once per seat, and the public view encoded once.

The JSON text itself comes from :mod:`..jsontext` (one encoder for the whole server)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...views import public_view
from ..jsontext import dumps

if TYPE_CHECKING:
    from ...game import Game


def update_frames(version: int, events: Sequence[Mapping[str, Any]],
                  table: Mapping[str, Any]) -> tuple[str, str]:
    """The parts of an ``update`` frame that every connection shares, encoded once: the frame for one
    connection is ``head + dumps(its view) + tail``, so only the view (the one redacted part) is encoded per
    seat, and only once per seat however many connections share it."""
    head = f'{{"type":"update","version":{version},"events":{dumps(events)},"table":{dumps(table)},"view":'
    return head, "}"


def join_objects(left: str, right: str) -> str:
    """The JSON text of one object holding the members of two encoded objects (their keys are disjoint):
    how a seat's view is assembled from the public part, encoded once per update, and the seat's own part."""
    if right == "{}":
        return left
    if left == "{}":
        return right
    return left[:-1] + "," + right[1:]


class PublicViewText:
    """A table's encoder of ``public_view``: the JSON text of every public fact, for one update.

    The scored rounds are kept encoded and encoded again only when a round is scored: a round's result
    never changes after that, and rebuilding and encoding the list for every update was over half the cost
    of a view late in a game (about 50 of 90 µs after four rounds). The cache is keyed by the count and the
    identity of the last result, so a game put back to a save point (a copy of the list, holding the same
    result objects) or to fewer rounds is still encoded right.
    """

    __slots__ = ("_count", "_last", "_results")

    def __init__(self) -> None:
        self._count = 0
        self._last: object = None
        self._results = '{"results":[]}'

    def encode(self, game: Game) -> str:
        results = game.round_results
        last = results[-1] if results else None
        if len(results) != self._count or last is not self._last:
            self._results = '{"results":' + dumps([r.to_dict() for r in results]) + "}"
            self._count = len(results)
            self._last = last
        return join_objects(dumps(public_view(game, results=False)), self._results)
