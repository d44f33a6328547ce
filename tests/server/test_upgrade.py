"""Upgrades in which old and new workers run side by side: a newer release's expand-only migration applied
to the database, then this release's server started on it; it does not try to migrate the schema back, and
a whole game plays on it."""

from __future__ import annotations

import asyncio
import random
import shutil
from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory
from server_helpers import Api, Player, ServerProcess, query, run
from sqlalchemy.ext.asyncio import create_async_engine

from estimation.record import load_record
from estimation.server.storage.database import MIGRATIONS, migrate

NEXT_RELEASE = '''"""A next release's expand step: a nullable column and a new table.

Revision ID: 9999_next_release
Revises: {head}
"""

import sqlalchemy as sa
from alembic import op

revision = "9999_next_release"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("next_release_note", sa.String(40), nullable=True))
    op.create_table("next_release_things", sa.Column("id", sa.Integer, primary_key=True))


def downgrade() -> None:
    op.drop_table("next_release_things")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("next_release_note")
'''


def _next_release_migrations(tmp_path: Path) -> Path:
    location = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, location, ignore=shutil.ignore_patterns("__pycache__"))
    config = Config()
    config.set_main_option("script_location", str(location))
    (head,) = ScriptDirectory.from_config(config).get_heads()
    (location / "versions" / "v9999_next_release.py").write_text(NEXT_RELEASE.format(head=head))
    return location


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_this_release_runs_on_the_next_releases_schema(kind: str, database_url_factory,  # type: ignore[no-untyped-def]
                                                       tmp_path: Path) -> None:
    url = database_url_factory(kind)

    async def next_release_migrates() -> None:
        engine = create_async_engine(url)
        try:
            await migrate(engine, _next_release_migrations(tmp_path))
        finally:
            await engine.dispose()

    asyncio.run(next_release_migrates())
    assert query(url, "SELECT version_num FROM alembic_version") == [("9999_next_release",)]
    server = ServerProcess(url, name=f"upgrade-{kind}")
    server.start()
    try:
        api = Api.register(server)
        tid = api.create_table(bot_seats=[1, 2, 3], length="micro")["id"]
        api.join(tid, seat=0)

        async def play() -> None:
            player = Player(server, tid, api.token)
            await player.connect()
            await player.play_to_end(random.Random(8))
            await player.close()

        run(play())
        record = api.ok(api.get(f"/api/tables/{tid}/record"))
        assert load_record(record).is_over
        assert "newer than this server's migrations" in server.log()
    finally:
        server.stop()
    # The schema was left as the newer release made it: nothing was migrated back.
    assert query(url, "SELECT version_num FROM alembic_version") == [("9999_next_release",)]
    assert query(url, "SELECT count(*) FROM next_release_things") == [(0,)]
