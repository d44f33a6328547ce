"""Names compared by their confusable skeleton (issue 25, B7): ``accounts.name_key``.

Expand only: a new nullable column with a unique index, filled for every registered account that is not
deleted with ``names.skeleton(name)``; when two old accounts' names already look alike, the older keeps the
skeleton and the newer gets NULL (it keeps its name and its sign-in; nobody new can take a look-alike of
either, since the older one's skeleton is theirs too). ``login`` is unchanged, so a server of the previous
release runs on this schema (it leaves ``name_key`` NULL for the accounts it makes).

Revision ID: 0008_name_skeletons
Revises: 0007_ownership
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_name_skeletons"
down_revision = "0007_ownership"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from estimation.server.access import names

    op.add_column("accounts", sa.Column("name_key", sa.String(200), nullable=True))
    bind = op.get_bind()
    rows = bind.execute(sa.text("SELECT id, name FROM accounts WHERE login IS NOT NULL "
                                "AND deleted_at IS NULL ORDER BY id")).all()
    seen: set[str] = set()
    update = sa.text("UPDATE accounts SET name_key = :key WHERE id = :id")
    for account_id, name in rows:
        key = names.skeleton(name)
        if key in seen:
            continue
        seen.add(key)
        bind.execute(update, {"key": key, "id": account_id})
    op.create_index("ix_accounts_name_key", "accounts", ["name_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_accounts_name_key", "accounts")
    op.drop_column("accounts", "name_key")
