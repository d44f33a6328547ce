"""Names compared as PRECIS nicknames with look-alikes folded; expired sessions found by their expiry.

``accounts.login`` was ``name.casefold()``; it is now ``names.key(name)`` (PRECIS NicknameCaseMapped, with
letters that look like ASCII ones folded to them), so "ANN" in fullwidth letters and "Ann" are one login.
The backfill recomputes every account's key; when two old accounts now have the same key, the older keeps
it and the newer one's becomes ``KEY#ID`` (still unique; that account can no longer sign in by name, which
is the point: its name impersonated the other's). A name the new rules refuse keeps its old key.
``sessions.expires_at`` gets an index for the periodic delete of expired sessions.

Revision ID: 0004_names
Revises: 0003_social
"""

from __future__ import annotations

import functools

import precis_i18n
import sqlalchemy as sa
from alembic import op
from confusable_homoglyphs import confusables

revision = "0004_names"
down_revision = "0003_social"
branch_labels = None
depends_on = None


# A migration is history: it must backfill tomorrow exactly as it did when it was written, so it keeps its
# own frozen copy of the name key of that time (``access.names.key`` and ``_fold`` as they were then) rather
# than importing the live one, which is free to change. Do not "fix" it to follow names.py.
_SHOWN = precis_i18n.get_profile("NicknameCasePreserved")
_COMPARED = precis_i18n.get_profile("NicknameCaseMapped")


@functools.cache
def _fold(char: str) -> str:
    """A letter that looks like an ASCII letter or digit, as that one; any other character as itself."""
    if char.isascii():
        return char
    alike = (entry["c"].strip("\u200e\u200f") for entry in confusables.confusables_data.get(char, ()))
    ascii_alike = sorted((not c.isalpha(), c) for c in alike if len(c) == 1 and c.isascii() and c.isalnum())
    return ascii_alike[0][1] if ascii_alike else char


def _key(text: str) -> str:
    """The form two names were compared in (PRECIS NicknameCaseMapped of the look-alike-folded Nickname
    form); ``ValueError`` for a name PRECIS refuses."""
    try:
        folded = "".join(_fold(c) for c in str(_SHOWN.enforce(text)))
        return str(_COMPARED.enforce(folded))
    except UnicodeError as exc:
        raise ValueError(str(exc)) from None


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, name, login FROM accounts WHERE login IS NOT NULL ORDER BY id")).all()
    seen: set[str] = set()
    moved: dict[int, str] = {}
    for account_id, name, login in rows:
        try:
            key = _key(name)
        except ValueError:
            key = login
        if key in seen:
            key = f"{key}#{account_id}"
        seen.add(key)
        if key != login:
            moved[account_id] = key
    update = sa.text("UPDATE accounts SET login = :login WHERE id = :id")
    for account_id in moved:  # out of each other's way first: the logins are unique at every step
        bind.execute(update, {"login": f"~{account_id}", "id": account_id})
    for account_id, key in moved.items():
        bind.execute(update, {"login": key, "id": account_id})
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_sessions_expires_at", "sessions")
