"""`estimation backup` mid-game, `estimation restore` into a fresh database, a server started on it: every
table in progress resumes at the version it had committed, and play goes on from there."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from server_helpers import ROOT, Api, Player, ServerProcess, query, run


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "estimation", *args], capture_output=True, text=True,
                          cwd=str(ROOT), env=env, check=False, timeout=120)


async def _to_my_turn(player: Player, rng: random.Random, actions: int) -> int:
    """Play ``actions`` of this seat's turns (the bots answer between them), then stop at its next turn:
    the table waits for this seat (no clock), so its version holds still while the backup is taken."""
    await player.connect()
    done = 0
    while True:
        if player.my_turn():
            if done == actions:
                return player.version
            assert player.view is not None
            action_id = await player.act(rng.choice(player.view["legal"]), player.version)
            ack = await player.until(lambda m, a=action_id: m["type"] == "ack" and m["id"] == a)
            # The ack may come before the update it acknowledges: the view is stale until that update.
            acked = ack["version"]
            if player.version < acked:
                await player.until(lambda m, v=acked: player.version >= v)
            done += 1
        else:
            await player.recv()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_backup_mid_game_restore_resumes_every_table(kind: str, database_url_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = ServerProcess(database_url_factory(kind), name=f"backup-{kind}")
    server.start()
    rng = random.Random(5)
    api = Api.register(server)
    other = Api.register(server)
    tables: dict[int, tuple[Api, int]] = {}
    try:
        for who, actions in ((api, 3), (other, 7)):
            tid = who.create_table(bot_seats=[1, 2, 3], length="mini")["id"]
            who.join(tid, seat=0)
            version = run(_to_my_turn(Player(server, tid, who.token), rng, actions))
            tables[tid] = (who, version)
        backup_file = tmp_path / f"estimation-{kind}.backup"
        done = _cli("backup", str(backup_file), "--database-url", server.database_url)
        assert done.returncode == 0, done.stderr
        assert "backed up" in done.stdout and backup_file.stat().st_size > 0
        again = _cli("backup", str(backup_file), "--database-url", server.database_url)
        assert again.returncode == 1 and "exists" in again.stderr, "a backup never overwrites a file"
    finally:
        server.stop()

    fresh_url = database_url_factory(kind)
    done = _cli("restore", str(backup_file), "--database-url", fresh_url)
    assert done.returncode == 0, done.stderr
    # Restoring over a database that now holds data is refused without --force: it would drop its games.
    refused = _cli("restore", str(backup_file), "--database-url", fresh_url)
    assert refused.returncode == 1 and refused.stderr.startswith("error: "), refused.stderr
    rows = dict(query(fresh_url, "SELECT id, version FROM tables"))
    assert {tid: rows[tid] for tid in tables} == {tid: v for tid, (_, v) in tables.items()}

    restored = ServerProcess(fresh_url, name=f"restored-{kind}")
    restored.start()
    try:
        for tid, (who, version) in tables.items():
            async def resume(tid: int = tid, who: Api = who, version: int = version) -> None:
                player = Player(restored, tid, who.token)
                snapshot = await player.connect()
                assert snapshot["version"] == version
                assert player.my_turn(), "the restored table waits for the same seat's turn"
                assert player.view is not None
                action_id = await player.act(player.view["legal"][0], player.version)
                ack = await player.until(lambda m: m["type"] == "ack" and m["id"] == action_id)
                assert ack["version"] > version
                await player.close()

            run(resume())
    finally:
        restored.stop()


def test_backup_and_restore_bad_input_one_line(tmp_path: Path) -> None:
    missing = _cli("backup", str(tmp_path / "b"), "--database-url", f"sqlite+aiosqlite:///{tmp_path}/none.db")
    assert missing.returncode == 1 and missing.stderr.strip().count("\n") == 0
    assert "no SQLite database" in missing.stderr
    not_a_backup = tmp_path / "junk.backup"
    not_a_backup.write_text("not a database")
    junk = _cli("restore", str(not_a_backup), "--database-url", f"sqlite+aiosqlite:///{tmp_path}/new.db")
    assert junk.returncode == 1 and "is not a SQLite database" in junk.stderr, junk.stderr
    scheme = _cli("backup", str(tmp_path / "c"), "--database-url", "mysql://x/y")
    assert scheme.returncode == 1 and "unknown database URL" in scheme.stderr
