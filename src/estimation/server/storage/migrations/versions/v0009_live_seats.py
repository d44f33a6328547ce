"""One live table a player, in the database (issue 25, B2): ``live_seats``.

A row per player seated (not left) at an open or playing table, its primary key the account: a second
live seat for one player fails on it, in whichever process or worker tries. Expand only: a new table,
filled from the seats of the open and playing tables (a player found at two already keeps the older
table's row). A server of the previous release ignores it; the rows it leaves stale (a table it finished,
a seat it freed) are taken for what they are when a new server next seats that player (table/store.py
deletes a row whose seat is no longer live before it writes one).

Revision ID: 0009_live_seats
Revises: 0008_name_skeletons
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_live_seats"
down_revision = "0008_name_skeletons"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "live_seats",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False),
    )
    op.create_index("ix_live_seats_table_id", "live_seats", ["table_id"])
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT s.account_id, s.table_id FROM seats s JOIN tables t ON t.id = s.table_id "
        "WHERE s.account_id IS NOT NULL AND s.\"left\" = :no AND t.status IN ('open', 'playing') "
        "ORDER BY s.table_id"), {"no": False}).all()
    seen: set[int] = set()
    for account_id, table_id in rows:
        if account_id not in seen:
            seen.add(account_id)
            bind.execute(sa.text("INSERT INTO live_seats (account_id, table_id) VALUES (:a, :t)"),
                         {"a": account_id, "t": table_id})


def downgrade() -> None:
    op.drop_index("ix_live_seats_table_id", "live_seats")
    op.drop_table("live_seats")
