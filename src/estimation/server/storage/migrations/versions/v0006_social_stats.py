"""A player's stats and profile in one covered read: ``results`` indexed by (account_id, ruleset, outcome,
total, rounds, made, table_id).

``history.outcomes_of`` tallies a player's games by ruleset and outcome with the sums of their totals,
rounds and rounds made (and, for anyone but the player, only at public tables: the table id); this index
holds every column it reads, in its grouping order (on PostgreSQL an index-only scan, on SQLite a covering
index). Measured in docs/performance.md (bench/social.py).

Revision ID: 0006_social_stats
Revises: 0005_partners
"""

from __future__ import annotations

from alembic import op

revision = "0006_social_stats"
down_revision = "0005_partners"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_results_account_stats", "results",
                    ["account_id", "ruleset", "outcome", "total", "rounds", "made", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_results_account_stats", table_name="results")
