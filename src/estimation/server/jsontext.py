"""JSON text for every frame and message the server sends or reads: one encoder, orjson when installed.

Encoding the per-seat views was the largest single cost of an action (four views of 1 to 3 KB each, about
55 µs apiece with the standard library on the bench machine); orjson does the same in about 5 µs and gives
the same text (compact separators, UTF-8 rather than ``\\u`` escapes, which is what a JSON text frame is).
The standard library stays as the fallback for an install without orjson.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency of the server extra
    orjson = None  # type: ignore[assignment]


if orjson is not None:
    _OPTIONS = orjson.OPT_NON_STR_KEYS

    def dumps(value: Any) -> str:
        """Compact JSON text (integer dict keys become strings, as with the standard library)."""
        return orjson.dumps(value, option=_OPTIONS).decode()

    def loads(text: str | bytes) -> Any:
        """Parse JSON; ``ValueError`` (orjson's ``JSONDecodeError`` is one) when it is not valid JSON."""
        return orjson.loads(text)
else:  # pragma: no cover
    def dumps(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)

    def loads(text: str | bytes) -> Any:
        return json.loads(text)
