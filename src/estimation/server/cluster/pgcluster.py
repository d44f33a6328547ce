"""A throwaway PostgreSQL cluster from Debian's binaries, for the server tests and the load benchmark.

Both need a real PostgreSQL that nobody has to set up: a private data directory, a free loopback port, a
unix socket in the same directory, torn down at the end. Running as root (CI), the binaries run as the
``postgres`` user, since initdb and postgres refuse root.
"""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

from .ports import exited, free_port, start_retrying


def find_bindir() -> Path | None:
    """The newest ``/usr/lib/postgresql/N/bin``, else the directory of an ``initdb`` on the PATH."""
    def version(path: str) -> int:
        name = Path(path).parent.parent.name
        return int(name) if name.isdigit() else 0

    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=version)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class ThrowawayCluster:
    """``start()`` returns the server's URL without a database; ``stop()`` removes everything.

    ``durable=False`` turns fsync off (tests: speed, nothing to keep); the benchmark measures with
    PostgreSQL's defaults.
    """

    def __init__(self, durable: bool = True, prefix: str = "estimation-pg-",
                 settings: dict[str, str] | None = None) -> None:
        bindir = find_bindir()
        if bindir is None:
            raise FileNotFoundError("no PostgreSQL binaries under /usr/lib/postgresql/*/bin nor on the PATH "
                                    "(apt-get install postgresql)")
        self.bindir = bindir
        self.durable = durable
        #: Extra ``-c name=value`` server settings (the benchmark's statement and checkpoint logging).
        self.settings = dict(settings or {})
        self.workdir = tempfile.mkdtemp(prefix=prefix)
        if os.geteuid() == 0:
            shutil.chown(self.workdir, "postgres", "postgres")
        self.data = os.path.join(self.workdir, "data")
        self.port = free_port()

    def start(self) -> str:
        initdb = [str(self.bindir / "initdb"), "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8"]
        if not self.durable:
            initdb.append("--no-sync")
        subprocess.run(_as_postgres(initdb), check=True, capture_output=True)
        start_retrying(self._start_on_port, self._new_port)
        return f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}"

    def _new_port(self) -> None:
        self.port = free_port()

    def _start_on_port(self) -> None:
        opts = (f"-p {self.port} -k {self.workdir} -c listen_addresses=127.0.0.1 -c max_connections=200"
                + ("" if self.durable else " -c fsync=off -c synchronous_commit=off")
                + "".join(f" -c {name}={value}" for name, value in self.settings.items()))
        logged = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        try:
            subprocess.run(_as_postgres([str(self.bindir / "pg_ctl"), "-D", self.data, "-o", opts, "-l",
                                         self.log_path, "-w", "start"]),
                           check=True, capture_output=True)
        except subprocess.CalledProcessError as failed:
            raise exited("postgres", failed.returncode, Path(self.log_path), logged) from None

    def postmaster_pid(self) -> int | None:
        try:
            return int((Path(self.data) / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    @property
    def log_path(self) -> str:
        return os.path.join(self.workdir, "log")

    def stop(self) -> None:
        subprocess.run(_as_postgres([str(self.bindir / "pg_ctl"), "-D", self.data, "-m", "immediate",
                                     "stop"]), capture_output=True)
        shutil.rmtree(self.workdir, ignore_errors=True)


def create_database(base: str, prefix: str = "est_") -> str:
    """A fresh, empty database on the server at ``base``; its URL."""
    import asyncpg  # type: ignore[import-untyped]

    name = prefix + uuid.uuid4().hex[:12]
    dsn = base.replace("postgresql+asyncpg://", "postgresql://") + "/postgres"

    async def create() -> None:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    return f"{base}/{name}"
