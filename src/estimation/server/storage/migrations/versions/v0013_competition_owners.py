"""Competitions in cluster mode: one owner per competition, and a stage's seating that a new owner can
finish. ``competition_owners`` holds who owns a competition and at which epoch (as ``table_owners`` does for
a table); ``competitions.stage_plan`` the seats of the stage in play, written in the same statement that
moves the stage on; ``competition_tables.slot`` which of the plan's tables a table is (for a robot table:
its entrant), unique within a stage and instance, so no slot is ever seated twice. Expand-only: a new table
and nullable columns; nothing an older server reads changes.

Revision ID: 0013_competition_owners
Revises: 0012_competitions
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_competition_owners"
down_revision = "0012_competitions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("competitions") as batch:
        batch.add_column(sa.Column("stage_plan", sa.Text, nullable=True))
    with op.batch_alter_table("competition_tables") as batch:
        batch.add_column(sa.Column("slot", sa.Integer, nullable=True))
    op.create_index("uq_competition_tables_slot", "competition_tables",
                    ["competition_id", "stage", "instance", "slot"], unique=True)
    op.create_table(
        "competition_owners",
        sa.Column("competition_id", sa.Integer, sa.ForeignKey("competitions.id"), primary_key=True),
        sa.Column("owner", sa.BigInteger, nullable=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("competition_owners")
    op.drop_index("uq_competition_tables_slot", table_name="competition_tables")
    with op.batch_alter_table("competition_tables") as batch:
        batch.drop_column("slot")
    with op.batch_alter_table("competitions") as batch:
        batch.drop_column("stage_plan")
