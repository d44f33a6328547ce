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

import sqlalchemy as sa
from alembic import op

revision = "0004_names"
down_revision = "0003_social"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from estimation.server.access import names

    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT id, name, login FROM accounts WHERE login IS NOT NULL ORDER BY id")).all()
    seen: set[str] = set()
    moved: dict[int, str] = {}
    for account_id, name, login in rows:
        try:
            key = names.key(name)
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
