"""Names compared by their confusable skeleton (issue 25, B7): ``accounts.name_key``.

Expand only: a new nullable column with a unique index, filled for every registered account that is not
deleted with the name's skeleton (``access.names.skeleton`` as it was: a frozen copy below); when two old
accounts' names already look alike, the older keeps the skeleton and the newer gets NULL (it keeps its name
and its sign-in; nobody new can take a look-alike of either, since the older one's skeleton is theirs too).
``login`` is unchanged, so a server of the previous release runs on this schema (it leaves ``name_key``
NULL for the accounts it makes).

Revision ID: 0008_name_skeletons
Revises: 0007_ownership
"""

from __future__ import annotations

import functools
import unicodedata

import sqlalchemy as sa
from alembic import op
from confusable_homoglyphs import confusables

revision = "0008_name_skeletons"
down_revision = "0007_ownership"
branch_labels = None
depends_on = None


# A migration is history: it must backfill tomorrow exactly as it did when it was written, so it keeps its
# own frozen copy of the skeleton of that time (``access.names.skeleton`` and its helpers as they were then)
# rather than importing the live one, which is free to change. Do not "fix" it to follow names.py.
def _skeleton_of(text: str) -> str:
    """The name's confusable skeleton, case aside (TR39's skeleton of the case-folded skeleton)."""
    return _skeleton(_skeleton(text).casefold())


def _skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character by its prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in decomposed))


def _clean(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")


@functools.cache
def _prototypes() -> dict[str, str]:
    """Character -> its TR39 prototype, rebuilt from ``confusable-homoglyphs``' data, which lists every line
    of ``confusables.txt`` (source -> prototype) both ways: a source is listed with exactly one alike, its
    prototype; two characters listed only with each other are one pair, the lower code point for both."""
    alikes: dict[str, set[str]] = {}
    for char, entries in confusables.confusables_data.items():
        alikes.setdefault(_clean(char), set()).update(_clean(e["c"]) for e in entries)
    out: dict[str, str] = {}
    for char, found in alikes.items():
        if len(char) != 1 or len(found) != 1:
            continue
        (target,) = found
        if len(target) != 1 or len(alikes.get(target, ())) > 1:
            out[char] = target
        elif alikes.get(target) == {char}:
            out[char] = out[target] = min(char, target)
    return out


def upgrade() -> None:
    op.add_column("accounts", sa.Column("name_key", sa.String(200), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM accounts WHERE login IS NOT NULL "
                                "AND deleted_at IS NULL ORDER BY id")).all()
    seen: set[str] = set()
    update = sa.text("UPDATE accounts SET name_key = :key WHERE id = :id")
    for account_id, name in rows:
        key = _skeleton_of(name)
        if key in seen:
            continue
        seen.add(key)
        bind.execute(update, {"key": key, "id": account_id})
    op.create_index("ix_accounts_name_key", "accounts", ["name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_accounts_name_key", "accounts")
    op.drop_column("accounts", "name_key")
