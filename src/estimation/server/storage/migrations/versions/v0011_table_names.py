"""A table's name (issue 22): optional, chosen by its creator, shown in the lobby and at the table.

Expand only: a nullable column, so a server of the previous release runs on this schema (its tables have no
name).

Revision ID: 0011_table_names
Revises: 0010_level_ruling
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_table_names"
down_revision = "0010_level_ruling"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("name", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("name")
