"""What more than one module of the `estimation` command uses: reading a record file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .errors import RecordError


class UnreadableFile(Exception):
    """The file named is not there or cannot be read: no record at all, so not a record's fault."""


def read_record_file(path: Path) -> Any:
    """The JSON in ``path``. A file that is missing or cannot be read raises :class:`UnreadableFile`; a file
    that is no JSON text is a fault of the whole record, a :class:`RecordError` at deal 0, action 0
    (RECORD.md)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UnreadableFile(f"there is no file {path}") from None
    except IsADirectoryError:
        raise UnreadableFile(f"{path} is a folder, not a record file") from None
    except OSError as exc:
        raise UnreadableFile(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RecordError(0, 0, "", "the file is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(0, 0, "", f"not valid JSON: {exc}") from None
