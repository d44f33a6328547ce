"""In-process checks of the pieces: migrations on a fresh database, session expiry, the pot split, stats."""

from __future__ import annotations

import asyncio
import datetime as dt
import typing
from pathlib import Path

import pytest

from estimation.server.access.auth import account_for_token, create_guest, hash_token, open_session
from estimation.server.config import Settings
from estimation.server.storage.database import make_engine, migrate, sessionmaker
from estimation.server.storage.history import outcome
from estimation.server.storage.models import Session


def test_migrations_create_the_schema_once_and_sessions_expire(tmp_path: Path) -> None:
    async def main() -> None:
        engine = make_engine(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
        await migrate(engine)
        await migrate(engine)  # a second start finds the schema in place
        maker = sessionmaker(engine)
        async with maker() as db, db.begin():
            guest = await create_guest(db, "Ann")
            live = await open_session(db, guest, 3600)
            dead = await open_session(db, guest, 3600)
        async with maker() as db, db.begin():
            row = await db.get(Session, hash_token(dead))
            assert row is not None
            row.expires_at = dt.datetime(2000, 1, 1)
        async with maker() as db:
            assert (await account_for_token(db, live)) is not None
            assert await account_for_token(db, dead) is None
            assert await account_for_token(db, "no such token") is None
            assert await account_for_token(db, None) is None
        await engine.dispose()

    asyncio.run(main())


def test_outcomes_for_history() -> None:
    assert outcome([1, 2, 3, 4], 0, left=False) == "win"
    assert outcome([1, 1, 3, 4], 1, left=False) == "draw"
    assert outcome([2, 1, 3, 4], 0, left=False) == "loss"
    assert outcome([1, 2, 3, 4], 0, left=True) == "loss"


def test_settings_from_the_environment(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@h/db")
    monkeypatch.setenv("ESTIMATION_BOT_DELAY", "0.25")
    s = Settings.from_env(starting_grant=5)
    assert (s.database_url, s.bot_delay, s.starting_grant) == ("postgresql+asyncpg://u@h/db", 0.25, 5)
    monkeypatch.delenv("DATABASE_URL")
    assert Settings.from_env().database_url.startswith("sqlite+aiosqlite:///")


@pytest.mark.parametrize(("raw", "tuning", "cluster"), [
    ("", True, False), ("0", False, False), ("off", False, False), ("YES", True, True), ("1", True, True)])
def test_yes_no_settings(monkeypatch: pytest.MonkeyPatch, raw: str, tuning: bool, cluster: bool) -> None:
    """Unset or empty keeps the default (process tuning on, cluster mode off); a word says which."""
    monkeypatch.setenv("ESTIMATION_PROCESS_TUNING", raw)
    monkeypatch.setenv("ESTIMATION_CLUSTER", raw)
    s = Settings.from_env()
    assert (s.process_tuning, s.cluster) == (tuning, cluster)


def test_a_yes_no_setting_that_is_neither_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ESTIMATION_PROCESS_TUNING", "maybe")
    with pytest.raises(ValueError, match="ESTIMATION_PROCESS_TUNING='maybe'"):
        Settings.from_env()


def test_every_setting_comes_from_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """No field is left out of the environment: each one's ESTIMATION_ variable (DATABASE_URL for the
    database) sets it, and a number that does not parse names its variable."""
    for name, field in Settings.model_fields.items():
        default = field.default
        if isinstance(default, bool):
            raw, want = ("0", False) if default else ("1", True)
        elif isinstance(default, int):
            raw, want = str(default + 7), default + 7
        elif isinstance(default, float):
            raw, want = str(default + 0.5), default + 0.5
        elif typing.get_origin(field.annotation) is typing.Literal:
            # A choice: another of its values (any other string is refused, as a typo should be).
            raw = want = next(v for v in typing.get_args(field.annotation) if v != default)
        else:
            raw = want = f"{default}x"
        variable = "DATABASE_URL" if name == "database_url" else f"ESTIMATION_{name.upper()}"
        monkeypatch.setenv(variable, raw)
        assert getattr(Settings.from_env(), name) == want, variable
        monkeypatch.delenv(variable)
    monkeypatch.setenv("ESTIMATION_BOT_DELAY", "soon")
    with pytest.raises(ValueError, match="ESTIMATION_BOT_DELAY='soon'"):
        Settings.from_env()


def test_a_seats_copy_is_equal_and_separate_for_every_field() -> None:
    """The save point copies seats positionally; a field added to SeatState and left out of ``copy`` would
    be lost on every rollback, so each field is set to a value unlike its default and compared."""
    import dataclasses

    from estimation.server.table.runtime import SeatState

    seat = SeatState()
    for f in dataclasses.fields(SeatState):
        setattr(seat, f.name, 7 if f.type in ("int | None", int) else "x" if "str" in str(f.type) else True)
    copy = seat.copy()
    assert copy == seat and copy is not seat
    assert all(getattr(copy, f.name) != f.default for f in dataclasses.fields(SeatState))
    copy.away = False
    assert seat.away is True


def test_serve_refuses_an_unknown_log_level_before_starting(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    import estimation.cli_server  # noqa: F401  (registers the command)
    from estimation.cli import app

    db = tmp_path / "never.db"
    result = CliRunner().invoke(app, ["serve", "--log-level", "loud", "--database-url",
                                      f"sqlite+aiosqlite:///{db}"])
    assert result.exit_code == 2
    assert "--log-level" in result.output and "warning" in result.output
    assert not db.exists()  # refused before anything was created
