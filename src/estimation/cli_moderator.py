"""`estimation moderator NAME`: make an account a chat moderator (or, with --remove, no longer one).

The operator's tool: there is no route that makes a moderator, so a moderator is whoever the person who runs
the server says, on the server's own database.
"""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

moderator_app = typer.Typer()


@moderator_app.command()
def moderator(
    name: Annotated[str, typer.Argument(help="The account's sign-in name.")],
    remove: Annotated[bool, typer.Option("--remove", help="Take the role away instead.")] = False,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar="DATABASE_URL",
        help="The server's database (as for `estimation serve`).")] = None,
) -> None:
    """Give an account the moderator role (reports, removing messages, silencing players), or take it."""
    try:
        from .server.config import DEFAULT_DATABASE_URL
        from .server.social.accounts import login_of
        from .server.storage.database import make_engine, migrate
    except ImportError as exc:
        typer.echo(f"error: this needs the server extra: pip install 'estimation[server]' ({exc})", err=True)
        raise typer.Exit(2) from None
    from sqlalchemy import update

    from .server.storage.models import Account

    async def go() -> int:
        engine = make_engine(database_url or DEFAULT_DATABASE_URL)
        try:
            await migrate(engine)
            async with engine.begin() as conn:
                done = await conn.execute(
                    update(Account).where(Account.login == login_of(name), Account.deleted_at.is_(None))
                    .values(moderator=not remove))
                return int(done.rowcount)
        finally:
            await engine.dispose()

    if asyncio.run(go()) != 1:
        typer.echo(f"error: no account named {name!r}", err=True)
        raise typer.Exit(1)
    typer.echo(f"{name} is {'no longer' if remove else 'now'} a moderator")
