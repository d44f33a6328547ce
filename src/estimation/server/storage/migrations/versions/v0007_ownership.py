"""Cluster mode (issue 17, part 2): which worker owns which table, with a lease and an epoch.

``workers``: one row per running worker process (a new row, a new id, each time a process starts or its
lease lapses: a worker whose lease lapsed is dead for ever, its id is never heartbeated again);
``expires_at`` is moved forward by the worker's heartbeat. ``table_owners``: one row per table that was ever
claimed; ``owner`` is the worker id (NULL when released), ``epoch`` grows by one at every claim, and
``wanted_by`` is a worker that was asked for the table by a client (the owner hands it over at its next
heartbeat). Every write of a table checks (owner, epoch) and the owner's lease in the same statement: see
server/ownership.py. Harmless on SQLite, where cluster mode is refused.

Revision ID: 0007_ownership
Revises: 0006_social_stats
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_ownership"
down_revision = "0006_social_stats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True,
                  autoincrement=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "table_owners",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("owner", sa.BigInteger, nullable=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("wanted_by", sa.BigInteger, nullable=True),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_table_owners_owner", "table_owners", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_table_owners_owner", table_name="table_owners")
    op.drop_table("table_owners")
    op.drop_table("workers")
