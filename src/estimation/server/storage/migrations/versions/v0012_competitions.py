"""Competitions (issue 23): competitions, their entries, their tables, leavers and directors' adjustments;
and on ``tables`` the competition a table belongs to and the seed its game deals from. Expand-only: new
tables and nullable columns; nothing an older server reads changes.

Revision ID: 0012_competitions
Revises: 0011_table_names
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_competitions"
down_revision = "0011_table_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("competition_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("game_seed", sa.String(200), nullable=True))
    op.create_index("ix_tables_competition_id", "tables", ["competition_id"])
    op.create_table(
        "competitions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("ruleset", sa.String(32), nullable=False),
        sa.Column("length", sa.String(32), nullable=False),
        sa.Column("bot_level", sa.String(32), nullable=False),
        sa.Column("stages", sa.Integer, nullable=False),
        sa.Column("instances", sa.Integer, nullable=False),
        sa.Column("starts_at", sa.DateTime, nullable=False),
        sa.Column("window_end", sa.DateTime, nullable=True),
        sa.Column("entry_limit", sa.Integer, nullable=False),
        sa.Column("turn_seconds", sa.Integer, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("invite_code", sa.String(32), nullable=True),
        sa.Column("director_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("stage", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("finished_at", sa.DateTime, nullable=True),
    )
    op.create_index("ix_competitions_starts_at", "competitions", ["starts_at"])
    op.create_index("ix_competitions_status", "competitions", ["status"])
    op.create_index("ix_competitions_director_id", "competitions", ["director_id"])
    op.create_table(
        "competition_entries",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition_id", sa.Integer, sa.ForeignKey("competitions.id"), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("entry_no", sa.Integer, nullable=False),
        sa.Column("instance", sa.Integer, nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("removed", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("competition_id", "account_id", name="uq_competition_entry"),
    )
    op.create_index("ix_competition_entries_competition_id", "competition_entries", ["competition_id"])
    op.create_index("ix_competition_entries_account_id", "competition_entries", ["account_id"])
    op.create_table(
        "competition_tables",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("competition_id", sa.Integer, sa.ForeignKey("competitions.id"), nullable=False),
        sa.Column("stage", sa.Integer, nullable=False),
        sa.Column("instance", sa.Integer, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
    )
    op.create_index("ix_competition_tables_stage", "competition_tables",
                    ["competition_id", "stage", "instance"])
    op.create_table(
        "competition_leaves",
        sa.Column("competition_id", sa.Integer, sa.ForeignKey("competitions.id"), primary_key=True),
        sa.Column("entry_id", sa.Integer, sa.ForeignKey("competition_entries.id"), primary_key=True),
        sa.Column("stage", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("rounds_done", sa.Integer, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "competition_adjustments",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("competition_id", sa.Integer, sa.ForeignKey("competitions.id"), nullable=False),
        sa.Column("stage", sa.Integer, nullable=False),
        sa.Column("instance", sa.Integer, nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Integer, nullable=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("score", sa.Integer, nullable=True),
        sa.Column("entry_id", sa.Integer, sa.ForeignKey("competition_entries.id"), nullable=True),
        sa.Column("mp", sa.Integer, nullable=True),
        sa.Column("reason", sa.String(200), nullable=False),
        sa.Column("by_account", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_competition_adjustments_competition_id", "competition_adjustments",
                    ["competition_id"])


def downgrade() -> None:
    op.drop_index("ix_competition_adjustments_competition_id", table_name="competition_adjustments")
    op.drop_table("competition_adjustments")
    op.drop_table("competition_leaves")
    op.drop_index("ix_competition_tables_stage", table_name="competition_tables")
    op.drop_table("competition_tables")
    op.drop_index("ix_competition_entries_account_id", table_name="competition_entries")
    op.drop_index("ix_competition_entries_competition_id", table_name="competition_entries")
    op.drop_table("competition_entries")
    op.drop_index("ix_competitions_director_id", table_name="competitions")
    op.drop_index("ix_competitions_status", table_name="competitions")
    op.drop_index("ix_competitions_starts_at", table_name="competitions")
    op.drop_table("competitions")
    op.drop_index("ix_tables_competition_id", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("game_seed")
        batch.drop_column("competition_id")
