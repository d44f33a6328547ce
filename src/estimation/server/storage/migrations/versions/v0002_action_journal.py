"""Incremental persistence: each event row names the action it applied; the record is a periodic snapshot.

``events.action`` is the action text a version applied to the game (NULL for joins, leaves, aways...);
``tables.record_version`` is the version the stored record was written at. A table is rebuilt from the
record plus the actions of the events after ``record_version``. Every record written before this migration
was written at the table's version, so that is what the backfill says.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("action", sa.String(40), nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("record_version", sa.Integer, nullable=True))
    op.execute("UPDATE tables SET record_version = version WHERE record IS NOT NULL")


def downgrade() -> None:
    # Going back needs the record to be at the table's version: fold the journal into it first.
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("record_version")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("action")
