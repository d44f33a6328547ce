"""`estimation serve`: run the game server (needs the `server` extra: pip install 'estimation[server]')."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

server_app = typer.Typer()


@server_app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on.")] = 8000,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar="DATABASE_URL",
        help="SQLAlchemy async URL; default a SQLite file estimation.db here, created and migrated on "
             "first start. PostgreSQL: postgresql+asyncpg://user:pass@host/db")] = None,
    bot_delay: Annotated[float | None, typer.Option(
        help="Seconds a bot waits before moving (default 0.6; ESTIMATION_BOT_DELAY).")] = None,
    log_level: Annotated[str, typer.Option(
        help="Log level of uvicorn and of the server's own log (critical, error, warning, info, debug, "
             "trace).")] = "info",
    cluster: Annotated[bool, typer.Option(
        "--cluster", help="Be one worker of several behind a balancer (PostgreSQL only; "
                          "ESTIMATION_CLUSTER=1; see docs/deploy.md).")] = False,
) -> None:
    """Run the multiplayer server: lobby at /api (OpenAPI at /docs), tables at /ws/tables/{id}."""
    try:
        from uvicorn.config import LOG_LEVELS

        from .server import Settings, create_app
        from .server.ops.serving import serve
    except ImportError as exc:
        typer.echo(f"error: the server needs its extra: pip install 'estimation[server]' ({exc})", err=True)
        raise typer.Exit(2) from None
    overrides: dict[str, object] = {}
    if database_url:
        overrides["database_url"] = database_url
    if bot_delay is not None:
        overrides["bot_delay"] = bot_delay
    if cluster:
        overrides["cluster"] = True
    settings = Settings.from_env(**overrides)
    if settings.cluster and not settings.database_url.startswith("postgresql"):
        typer.echo("error: cluster mode needs PostgreSQL (--database-url postgresql+asyncpg://...): several "
                   "workers cannot share a SQLite file", err=True)
        raise typer.Exit(2)
    if log_level.lower() not in LOG_LEVELS:
        raise typer.BadParameter(f"one of {', '.join(LOG_LEVELS)}", param_hint="--log-level")
    _log_with_times(LOG_LEVELS[log_level.lower()], settings.log_format)
    from .server.ops import tuning

    # The collector's policy and the switch interval change the whole process: this command's only.
    if settings.process_tuning:
        tuning.install()
    try:
        serve(create_app(settings), host=host, port=port, log_level=log_level.lower(), settings=settings)
    finally:
        tuning.uninstall()


def _log_with_times(level: int, log_format: str = "text") -> None:
    """The server's own log (``estimation.*``: slow journal batches, collector reclaims, failed writes)
    on stderr with a timestamp, at uvicorn's level: without a handler, Python prints only warnings, and
    without the time, a slow batch cannot be matched to the database's own log. ``json``: one object a
    line with the request's and table's ids (server/ops/observe.py)."""
    import logging

    handler = logging.StreamHandler()
    if log_format == "json":
        from .server.ops.observe import JsonFormatter

        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    own = logging.getLogger("estimation")
    if not own.handlers:
        own.addHandler(handler)
    own.setLevel(level)


@server_app.command()
def cluster(
    workers: Annotated[int, typer.Option(min=1, max=64, help="Worker processes.")] = 3,
    port: Annotated[int, typer.Option(min=0, max=65535, help="The balancer's port (0: a free one).")] = 8000,
    database_url: Annotated[str | None, typer.Option(
        "--database-url", help="A PostgreSQL URL (postgresql+asyncpg://...) to use; default a throwaway "
                               "cluster from /usr/lib/postgresql/*/bin, removed at the end.")] = None,
    redis: Annotated[str, typer.Option(
        help="'auto': a throwaway redis-server as the bus when it and the Redis bus are installed; 'start': "
             "one in any case; a redis:// URL to use one; '' for none (each worker's lobby and notices then "
             "stay its own).")] = "auto",
    lease: Annotated[float, typer.Option(min=0.3, help="Seconds of a worker's lease on its tables.")] = 10.0,
) -> None:
    """A whole cluster on this machine for a try-out: PostgreSQL, HAProxy, N workers (and Redis); prints the
    URL; Ctrl-C stops everything."""
    import os
    import signal
    import time

    try:
        from .server.cluster.launcher import LocalCluster
    except ImportError as exc:
        typer.echo(f"error: the server needs its extra: pip install 'estimation[server]' ({exc})", err=True)
        raise typer.Exit(2) from None
    if database_url is not None and not database_url.startswith("postgresql"):
        typer.echo("error: cluster mode needs PostgreSQL (postgresql+asyncpg://...)", err=True)
        raise typer.Exit(2)
    running = LocalCluster(workers=workers, port=port, database_url=database_url, redis=redis,
                           lease_seconds=lease)
    def interrupted(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    restart_asked = False

    def restart(_signum: int, _frame: object) -> None:
        nonlocal restart_asked
        restart_asked = True

    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started where SIGINT was ignored (a background job)
    signal.signal(signal.SIGHUP, restart)
    try:
        running.start()
        bus = running.env.get("ESTIMATION_REDIS_URL") or "in-process per worker"
        typer.echo(f"estimation cluster: {workers} workers behind HAProxy at {running.url}/ "
                   f"(PostgreSQL {running.database_url}; bus {bus}; files in {running.workdir}); "
                   f"Ctrl-C stops it; kill -HUP {os.getpid()} restarts the workers one by one (an upgrade)")
        # A worker that dies is what the cluster is for: the others claim its tables (a try-out may kill
        # one to watch it). Said once per worker; the cluster stops when none is left.
        gone: set[int] = set()
        while len(gone) < len(running.running):
            if restart_asked:
                restart_asked = False
                typer.echo("restarting the workers one by one: each drained (its tables handed to the "
                           "others), then replaced")
                for new in running.rolling_restart():
                    typer.echo(f"worker {new.name} (pid {new.pid}) serving")
                gone.update(w.pid for w in running.running if w.name in running.draining)
            for worker in running.running:
                if worker.pid not in gone and worker.proc.poll() is not None:
                    gone.add(worker.pid)
                    typer.echo(f"worker {worker.name} exited ({worker.proc.returncode}): the others take "
                               "over its tables", err=True)
            time.sleep(0.5)
        typer.echo("every worker exited: stopping the cluster", err=True)
    except KeyboardInterrupt:
        typer.echo("stopping the cluster")
    except (FileNotFoundError, RuntimeError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    finally:
        running.stop()


def _database_url(given: str | None) -> str:
    """The URL the server itself would use: the option, else DATABASE_URL, else its SQLite default."""
    if given:
        return given
    from .server import Settings

    return Settings.from_env().database_url


@server_app.command()
def backup(
    out: Annotated[Path, typer.Argument(help="The backup file to write (never overwritten).")],
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar="DATABASE_URL",
        help="The server's database (default as `estimation serve`).")] = None,
) -> None:
    """Back up the server's database while it runs: SQLite through its online backup API, PostgreSQL
    through pg_dump (custom format). Restore with `estimation restore`."""
    from .server.ops.backup import BackupError
    from .server.ops.backup import backup as take_backup

    try:
        target = take_backup(_database_url(database_url), out)
    except BackupError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"backed up the {target.kind} database to {out} ({out.stat().st_size:,} bytes)")


@server_app.command()
def restore(
    backup_file: Annotated[Path, typer.Argument(help="A file written by `estimation backup`.")],
    database_url: Annotated[str | None, typer.Option(
        "--database-url", envvar="DATABASE_URL",
        help="The database to restore into, empty or new (default as `estimation serve`).")] = None,
    force: Annotated[bool, typer.Option(
        "--force", help="Replace a database that holds data (its changes since are lost).")] = False,
) -> None:
    """Restore a backup into an empty (or, with --force, replaced) database; then start the server on it:
    every table in progress resumes at the version it had committed when the backup began."""
    from .server.ops.backup import BackupError
    from .server.ops.backup import restore as do_restore

    try:
        target = do_restore(backup_file, _database_url(database_url), force=force)
    except BackupError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"restored {backup_file} into the {target.kind} database {target.location}")
