"""Alembic environment: migrations always run on a connection the server hands over.

The server (and the tests) call :func:`estimation.server.storage.database.migrate`, which opens the async
engine and runs Alembic inside ``run_sync``; there is no alembic.ini and no second way to reach the database.
"""

from __future__ import annotations

from alembic import context

from estimation.server.storage.models import Base

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - only reached when someone runs the alembic CLI by hand
    raise RuntimeError(
        "run migrations through estimation.server.storage.database.migrate(), which passes a connection")
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
