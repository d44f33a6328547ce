"""Players together (issue 19): chat, mutes, reports, moderators, quick play, rematch, and the indexes the
leaderboards and profiles read.

- ``accounts``: ``moderator``, ``silenced`` (no chat anywhere), ``deleted_at`` (a deleted account).
- ``tables``: ``bots_at`` (a quick-play table: when bots take the empty seats), ``rematch_id`` (the table
  "Play again" made from this finished one).
- ``chat_messages``, ``mutes``, ``chat_reports``, ``rematch_replies``: new.
- ``results``: indexed by (ruleset, finished_at, account_id, outcome, left), which covers a leaderboard's
  30-day window, and by (account_id, finished_at, table_id) for a player's history (in its order) and
  profile.

Another branch adds a migration after 0002 too: whoever merges second re-chains ``down_revision``.

Revision ID: 0003_social
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_social"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("moderator", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("silenced", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("deleted_at", sa.DateTime, nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("bots_at", sa.DateTime, nullable=True))
        batch.add_column(sa.Column("rematch_id", sa.Integer, nullable=True))
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), nullable=False, index=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("text", sa.String(200), nullable=True),
        sa.Column("phrase", sa.String(32), nullable=True),
        sa.Column("removed", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "mutes",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("muted_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("message_id", sa.Integer, sa.ForeignKey("chat_messages.id"), nullable=False, index=True),
        sa.Column("reporter_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("resolved", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("message_id", "reporter_id", name="uq_chat_report"),
    )
    op.create_table(
        "rematch_replies",
        sa.Column("table_id", sa.Integer, sa.ForeignKey("tables.id"), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("reply", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_results_ruleset_finished", "results",
                    ["ruleset", "finished_at", "account_id", "outcome", "left"])
    op.create_index("ix_results_account_finished", "results", ["account_id", "finished_at", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_results_account_finished", table_name="results")
    op.drop_index("ix_results_ruleset_finished", table_name="results")
    for name in ("rematch_replies", "chat_reports", "mutes", "chat_messages"):
        op.drop_table(name)
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("rematch_id")
        batch.drop_column("bots_at")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("deleted_at")
        batch.drop_column("silenced")
        batch.drop_column("moderator")
