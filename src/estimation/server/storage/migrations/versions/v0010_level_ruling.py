"""RULES.md's new ruling on leavers (issue 25, B6): a leaver's match pays no level points, and a match a
leaver ended before its first round was scored counts for nobody.

Level points are not stored: the stats, the profile and the leaderboard compute them from the history rows
at each read, so the leaver's zero applies to every past game at once (they read ``results.left``). What is
stored and must change is the history of the matches that now count for nobody: their rows are deleted
(every row of a table whose rows have no round scored and a leaver). The stats' covering index gets
``left`` (``ix_results_account_level``, made before the old one is dropped).

Revision ID: 0010_level_ruling
Revises: 0009_live_seats
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_level_ruling"
down_revision = "0009_live_seats"
branch_labels = None
depends_on = None

results = sa.table("results", sa.column("table_id", sa.Integer), sa.column("rounds", sa.Integer),
                   sa.column("left", sa.Boolean))


def upgrade() -> None:
    op.create_index("ix_results_account_level", "results",
                    ["account_id", "ruleset", "outcome", "total", "rounds", "made", "left", "table_id"])
    op.drop_index("ix_results_account_stats", table_name="results")
    unscored_left = sa.select(results.c.table_id).where(results.c.rounds == 0, results.c.left.is_(True))
    op.get_bind().execute(sa.delete(results).where(results.c.rounds == 0,
                                                   results.c.table_id.in_(unscored_left)))


def downgrade() -> None:
    op.create_index("ix_results_account_stats", "results",
                    ["account_id", "ruleset", "outcome", "total", "rounds", "made", "table_id"])
    op.drop_index("ix_results_account_level", table_name="results")
