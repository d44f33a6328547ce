"""Partnership tables (RULES.md, Partnerships): a table's ``partners`` option, and in each history row
whether the game was a partnership game and the side's total (the place and outcome already are the side's).

Revision ID: 0005_partners
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_partners"
down_revision = "0004_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("partners", sa.Boolean, nullable=False, server_default=sa.false()))
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("partners", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("side_total", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("side_total")
        batch.drop_column("partners")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("partners")
