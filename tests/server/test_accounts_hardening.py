"""Issue 15, findings 5, 7, 8 and 11: text that is not Unicode is a 4xx, never a 500; a socket ends with its
session (signed out or expired) and expired sessions are deleted; names cannot impersonate and passwords
must be worth something; every response carries the security headers and invites stay out of URLs."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from server_helpers import Api, Player, ServerProcess, execute, query, run

from estimation.server.access import names

SURROGATE_BODIES = [
    ("/api/guests", '{"name":"\\ud800x"}'),
    ("/api/guests", '{"name":"x\\udfff"}'),
    ("/api/accounts", '{"name":"\\ud800","password":"correct horse"}'),
    ("/api/accounts", '{"name":"Zed","password":"correct \\udc80horse"}'),
    ("/api/sessions", '{"name":"Ann","password":"\\ud800\\ud800\\ud800\\ud800"}'),
    ("/api/tables", '{"ruleset":"\\ud800"}'),
    ("/api/tables", '{"length":"\\udbff"}'),
    ("/api/tables", '{"bot_level":"x\\ud800"}'),
    ("/api/tables", '{"\\ud800":1}'),
    # Python's JSON reader also takes these, which no JSON writer can echo back.
    ("/api/guests", '{"name":Infinity}'),
    ("/api/tables", '{"stake":NaN,"x":-Infinity}'),
]


def test_a_lone_surrogate_in_any_body_is_a_4xx_never_a_500(server: ServerProcess) -> None:
    api = Api.guest(server)
    tid = api.create_table()["id"]
    bodies = [*SURROGATE_BODIES, (f"/api/tables/{tid}/join", '{"invite":"\\ud800"}'),
              (f"/api/tables/{tid}/join", '{"seat":0,"\\udc00":true}')]
    for path, raw in bodies:
        r = api.http.post(path, content=raw.encode(), headers={**api.headers(),
                                                                "Content-Type": "application/json"})
        assert 400 <= r.status_code < 500, (path, raw, r.status_code, r.text)
        r.json()  # the error itself is valid JSON (the surrogate escaped, not dropped on the floor)


def test_signing_out_closes_the_sessions_sockets(server: ServerProcess) -> None:
    api = Api.register(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)
    other_session = Api(server, *_sign_in(server, api.account["name"]))

    async def main() -> None:
        mine, kept = Player(server, tid, api.token), Player(server, tid, other_session.token)
        await mine.connect()
        await kept.connect()
        assert api.http.delete("/api/sessions", headers=api.headers()).status_code == 204
        bye = await mine.until(lambda m: m["type"] == "error")
        assert bye["code"] == "signed_out"
        with pytest.raises(websockets.ConnectionClosed):
            await mine.recv(10)
        # The player's other session is another sign-in: its socket goes on.
        await kept.send({"type": "ping", "id": "still"})
        assert (await kept.until(lambda m: m["type"] == "pong"))["id"] == "still"
        await kept.close()

    run(main())


def test_a_session_gone_behind_the_sockets_back_closes_its_socket(server: ServerProcess) -> None:
    """Issue 25, B1: a session may end where no news is sent (its row deleted behind the server's back):
    the server reads every connected socket's session every ``session_recheck_seconds`` (5 s), so the
    socket is closed as signed out within that, and says nothing more. (News of a sign-out closes it at
    once: the tests above; while the bus is down each action reads its session: the test below.)"""
    api = Api.register(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        mine = Player(server, tid, api.token)
        await mine.connect()
        await asyncio.to_thread(execute, server.database_url, "DELETE FROM sessions WHERE account_id = :a",
                                a=api.account["id"])
        gone = time.monotonic()
        bye = await mine.until(lambda m: m["type"] == "error", timeout=30)
        assert bye["code"] == "signed_out", bye
        assert time.monotonic() - gone < 5.0 + 5.0, "closed later than the recheck allows (and some slack)"
        with pytest.raises(websockets.ConnectionClosed):
            while True:
                await mine.send({"type": "chat", "text": "still here?"})
                assert (await mine.recv(10))["type"] != "chat"

    run(main())


def test_while_the_bus_is_down_an_action_reads_its_session(tmp_path: Path) -> None:
    """With the bus down, news of a sign-out elsewhere may be missed as it happens: the action's session is
    read from the database (an ended one refused and its socket closed); with the bus up the socket's own
    state answers, and a resync notice (news that was missed) reads every socket's session at once."""
    import datetime as dt

    from estimation.server.access.auth import hash_token
    from estimation.server.cluster.bus import SESSIONS, InMemoryBus, resync_notice
    from estimation.server.config import Settings
    from estimation.server.hub import Hub
    from estimation.server.social.service import Social
    from estimation.server.storage.models import Account, Session, utcnow
    from estimation.server.table.connection import Connection

    class SwitchedBus(InMemoryBus):
        up = True

        @property
        def connected(self) -> bool:
            return self.up

    class Socket:
        async def send_text(self, text: str) -> None:
            return None

        async def close(self, code: int = 1000) -> None:
            return None

    url = f"sqlite+aiosqlite:///{tmp_path}/bus.db"

    async def main() -> None:
        hub = Hub(Settings(database_url=url, session_recheck_seconds=3600), Social)
        bus = hub.bus = SwitchedBus()
        await hub.start()
        try:
            later = utcnow() + dt.timedelta(hours=1)
            async with hub.session() as db, db.begin():
                who = Account(name="Downbus", login=None, is_guest=True, balance=0, created_at=utcnow())
                db.add(who)
                await db.flush()
                db.add(Session(token_hash=hash_token("t"), account_id=who.id, expires_at=later))

            def socket(token: str) -> Connection:
                conn = Connection(Socket(), 8, 100.0, 100)  # type: ignore[arg-type]
                assert hub.sockets.sign_in(conn, who.id, hash_token(token), later)
                return conn

            acting = socket("t")
            assert await hub.session_alive(acting)
            await asyncio.to_thread(execute, url, "DELETE FROM sessions")
            assert await hub.session_alive(acting) and not acting.closed  # bus up: the socket's state
            bus.up = False
            assert not await hub.session_alive(acting) and acting.closed  # down: read, refused, closed
            bus.up = True
            missed = socket("u")  # a session with no row: its end's news was lost
            bus.publish(SESSIONS, resync_notice(SESSIONS))
            for _ in range(200):
                if missed.closed:
                    break
                await asyncio.sleep(0.02)
            assert missed.closed
        finally:
            await hub.stop()

    asyncio.run(main())


def _sign_in(server: ServerProcess, name: str) -> tuple[str, dict[str, object]]:
    r = httpx.post(server.base + "/api/sessions", json={"name": name, "password": "correct horse"})
    assert r.status_code == 200, r.text
    return r.json()["token"], r.json()["account"]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def short_sessions(request: pytest.FixtureRequest, database_url_factory) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    """Sessions of 8 seconds (time to sign in, join and connect on a loaded machine), swept twice a second."""
    proc = ServerProcess(database_url_factory(request.param), name=f"sessions-{request.param}", env={
        "ESTIMATION_SESSION_SECONDS": "8", "ESTIMATION_SESSION_SWEEP_SECONDS": "0.5"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_an_expired_session_closes_its_socket_and_its_row_is_deleted(short_sessions: ServerProcess) -> None:
    server = short_sessions
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)
    assert query(server.database_url, "SELECT COUNT(*) FROM sessions")[0][0] >= 1

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        bye = await p.until(lambda m: m["type"] == "error", timeout=30)
        assert bye["code"] == "session_expired"
        with pytest.raises(websockets.ConnectionClosed):
            await p.recv(10)
        # And the token no longer opens a seat (nor any socket).
        again = Player(server, tid, api.token)
        with pytest.raises(AssertionError, match="unauthorized"):
            await again.connect()
        await again.close()

    run(main())
    for _ in range(50):
        if query(server.database_url, "SELECT COUNT(*) FROM sessions")[0][0] == 0:
            break
        asyncio.run(asyncio.sleep(0.2))
    assert query(server.database_url, "SELECT COUNT(*) FROM sessions")[0][0] == 0


@pytest.fixture(scope="module")
def unswept_sessions(database_url_factory) -> Iterator[ServerProcess]:  # type: ignore[no-untyped-def]
    """Sessions of 8 seconds, swept only every ten minutes: a socket must end with its session itself."""
    proc = ServerProcess(database_url_factory("sqlite"), name="sessions-unswept", env={
        "ESTIMATION_SESSION_SECONDS": "8", "ESTIMATION_SESSION_SWEEP_SECONDS": "600"})
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


def test_a_socket_ends_when_its_session_expires_not_at_the_sweep(unswept_sessions: ServerProcess) -> None:
    """Issue 25, B12: a seated socket whose session expired got its hand until the sweep (up to 60 s
    later); now it is closed when the session expires, whether or not it sends anything."""
    server = unswept_sessions
    api = Api.guest(server)
    tid = api.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)

    async def main() -> None:
        p = Player(server, tid, api.token)
        await p.connect()
        started = asyncio.get_running_loop().time()
        bye = await p.until(lambda m: m["type"] == "error", timeout=30)
        assert bye["code"] == "session_expired"
        assert asyncio.get_running_loop().time() - started < 12
        with pytest.raises(websockets.ConnectionClosed):
            await p.recv(10)

    run(main())


def test_names_cannot_impersonate(server: ServerProcess) -> None:
    base = f"Ann{id(server) % 100000}"
    first = Api.register(server, base)
    assert first.account["name"] == base
    width = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in base.upper())  # fullwidth
    for same in (width, base.lower(), f"  {base}  ", base.upper()):
        r = httpx.post(server.base + "/api/accounts", json={"name": same, "password": "correct horse"})
        assert r.status_code == 409, (same, r.status_code, r.text)
    # Signing in is by the same rule: the fullwidth name is the account's name.
    r = httpx.post(server.base + "/api/sessions", json={"name": width, "password": "correct horse"})
    assert r.status_code == 200 and r.json()["account"]["id"] == first.id
    # A guest cannot take a registered player's name either.
    assert httpx.post(server.base + "/api/guests", json={"name": width}).status_code == 409
    for bad in (f"\u202e{base}", f"{base[:1]}\u200b{base[1:]}", f"\u0410{base[1:]}",  # RLO, ZWSP, Cyrillic A
                f"{base}\u2066", "\u200d", "a\x07b"):
        for path in ("/api/accounts", "/api/guests"):
            r = httpx.post(server.base + path, json={"name": bad, "password": "correct horse"}
                           if path == "/api/accounts" else {"name": bad})
            assert r.status_code == 422, (bad, path, r.status_code, r.text)


LOOK_ALIKES = [("MYMIPYN", "\u039c\u03a5\u039c\u0399\u03a1\u03a5\u039d"),  # Latin and Greek capitals
               ("AIice", "Alice"), ("0TT0", "OTTO"), ("Wirn", "Wim"),
               ("\u0639\u0644\u064a", "\u0639\u0644\u06cc"),  # Arabic yeh, Farsi yeh
               ("\u0643\u0631\u064a\u0645", "\u06a9\u0631\u064a\u0645")]  # Arabic kaf, keheh


def test_look_alike_names_are_one_name_and_the_systems_labels_are_reserved(server: ServerProcess) -> None:
    """Issue 25, B7: names are compared by their confusable skeleton (Unicode TR39), so a look-alike of a
    registered name is taken (for an account, a guest and a rename), and the names the game gives are no
    player's."""
    tag = str(random.randrange(10**6))
    arabic_digits = "".join(chr(0x660 + int(d)) for d in tag)
    for first, second in LOOK_ALIKES:
        suffix = arabic_digits if "\u0600" <= first[0] <= "\u06ff" else tag
        mine = Api.register(server, first + suffix)
        for name in (second + suffix, first + suffix):
            r = httpx.post(server.base + "/api/accounts", json={"name": name, "password": "correct horse"})
            assert r.status_code == 409, (name, r.status_code, r.text)
            assert httpx.post(server.base + "/api/guests", json={"name": name}).status_code == 409, name
        other = Api.register(server, f"Other{tag}{len(first)}{ord(first[0])}")
        r = httpx.put(server.base + "/api/me/name", json={"name": second + suffix}, headers=other.headers())
        assert r.status_code == 409, (second, r.status_code, r.text)
        assert mine.account["name"] == first + suffix
    for label in ("Bot 3", "B0t 3", "bot 12", "Deleted player", "DeIeted player"):
        for path in ("/api/accounts", "/api/guests"):
            body = {"name": label, "password": "correct horse"}
            r = httpx.post(server.base + path, json=body if path == "/api/accounts" else {"name": label})
            assert r.status_code == 422, (label, path, r.status_code, r.text)


def test_passwords_must_be_worth_something(server: ServerProcess) -> None:
    name = f"Patricia{id(server) % 100000}"  # 8 characters or more: a valid password but for being the name
    for password, why in (("password", "too easy"), (" " * 8, "only spaces"), (name, "your name"),
                          (name.upper(), "your name"), ("12345678", "too easy"),
                          ("aaaaaaaaaaaa", "too easy")):
        r = httpx.post(server.base + "/api/accounts", json={"name": name, "password": password})
        assert r.status_code == 422 and why in r.text, (password, r.status_code, r.text)
    assert httpx.post(server.base + "/api/accounts", json={
        "name": name, "password": "violet kettle marches"}).status_code == 201


def test_passwords_are_judged_with_the_name_and_the_sites_words(server: ServerProcess) -> None:
    """Issue 25, B8: "Summer2024!", "Alice2024" (for Alice) and "correcthorse" were accepted; zxcvbn now
    knows the player's name and the site's words, and wants its score 3."""
    tag = random.randrange(10**6)
    for name, password in ((f"Alice{tag}", "Summer2024!"), ("Alice", "Alice2024"),
                           (f"Zed{tag}", "correcthorse"), (f"Zed{tag}", "estimation2024"),
                           (f"Zed{tag}", "koutchina123")):
        with pytest.raises(ValueError, match="too easy"):
            names.password(password, name)
        r = httpx.post(server.base + "/api/accounts", json={"name": f"{name}{tag}", "password": password})
        assert r.status_code == 422 and "too easy" in r.text, (password, r.status_code, r.text)
    assert names.password("violet kettle marches", "Alice") == "violet kettle marches"


def test_names_and_passwords_units() -> None:
    assert names.key("ＡＮＮ") == names.key("Ann") == names.key(" ann ") == names.key("ΑΝΝ")  # noqa: RUF001
    assert names.shown("  Ann   Lee ") == "Ann Lee"
    for bad in ("A\u202enn", "An\u200bn", "\u0410nn", "x\u0000", "", "   ", "\ufdfa" * 2):
        with pytest.raises(ValueError):
            names.shown(bad)
    for bad in ("password", "        ", "Ann", "ann", "qwertyuiop"):
        with pytest.raises(ValueError):
            names.password(bad, "Ann")
    assert names.password("violet kettle marches", "Ann") == "violet kettle marches"
    assert names.password("x" * 96 + "violet kettle marches", "Ann")  # long: both ends are looked at


HEADERS = {"x-content-type-options": "nosniff", "referrer-policy": "no-referrer"}


def test_every_response_has_the_security_headers(server: ServerProcess) -> None:
    api = Api.guest(server)
    responses = [httpx.get(server.base + "/"), httpx.get(server.base + "/static/app.js"),
                 httpx.get(server.base + "/api/health"), httpx.get(server.base + "/api/tables/999999"),
                 httpx.get(server.base + "/nowhere"), api.post("/api/tables", {"stake": "10"}),
                 httpx.get(server.base + "/openapi.json")]
    for r in responses:
        policy = r.headers.get("content-security-policy", "")
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, (r.url, policy)
        assert "style-src 'self'" in policy and "'unsafe-inline'" not in policy, (r.url, policy)
        for name, value in HEADERS.items():
            assert r.headers.get(name) == value, (r.url, name, r.headers.get(name))
    docs = httpx.get(server.base + "/docs")
    assert "frame-ancestors 'none'" in docs.headers["content-security-policy"]


def test_invite_codes_travel_in_a_header_never_in_a_query_string(server: ServerProcess) -> None:
    owner, friend = Api.guest(server), Api.guest(server)
    table = owner.create_table(private=True)
    tid, code = table["id"], table["invite_code"]
    for path in (f"/api/tables/{tid}", f"/api/tables/{tid}/view"):
        assert friend.get(path, params={"invite": code}).status_code == 404
        assert friend.get(path, headers={"X-Invite-Code": code}).status_code == 200
    schema = httpx.get(server.base + "/openapi.json").json()
    for path, item in schema["paths"].items():
        for operation in item.values():
            for param in operation.get("parameters", []):
                assert not (param["in"] == "query" and "invite" in param["name"].lower()), (path, param)


def _pins(text: str) -> dict[str, str]:
    """``name==version`` lines (a constraints file, or a lock's requirement lines), by normalised name."""
    found = {}
    for line in text.splitlines():
        if "==" in line and not line.lstrip().startswith("#"):
            name, _, rest = line.partition("==")
            found[name.strip().lower().replace("_", "-")] = rest.split()[0].rstrip("\\").strip()
    return found


def test_ci_installs_what_users_get() -> None:
    """scripts/test.sh installs requirements.lock with hashes required, the lock pins exactly what
    constraints.txt (the users' install) pins, every one of its packages has a sha256, and the pins are
    above the floors."""
    root = Path(__file__).resolve().parents[2]
    script = (root / "scripts" / "test.sh").read_text()
    assert "--require-hashes -r requirements.lock" in script and "--no-deps -e ." in script
    lock = (root / "requirements.lock").read_text()
    constraints = _pins((root / "constraints.txt").read_text())
    assert _pins(lock) == constraints
    entries = [e for e in lock.split("\n") if e and not e[0].isspace() and not e.startswith("#")]
    assert len(entries) == len(constraints)
    for name in constraints:
        start = lock.lower().replace("_", "-").index(f"\n{name}==")
        head = lock[start:].split("# via", 1)[0]
        assert "--hash=sha256:" in head, f"{name} has no hash in requirements.lock"
    pins = {name: tuple(int(p) for p in version.split(".")[:3] if p.isdigit())
            for name, version in constraints.items()}
    floors = {"starlette": (0, 49, 1), "orjson": (3, 9, 15), "h11": (0, 16, 0), "idna": (3, 7),
              "fastapi": (0, 116), "uvicorn": (0, 35), "precis-i18n": (1, 1), "zxcvbn": (4, 5),
              "redis": (5, 0, 1), "prometheus-client": (0, 20)}
    for name, floor in floors.items():
        assert name in pins and pins[name] >= floor, (name, pins.get(name), floor)
    assert json.dumps(pins)


def _backfilled(tmp_path: Path, before: str, after: str, accounts: list[tuple[str, str | None]],
                column: str) -> dict[int, str | None]:
    """Accounts (name, login; no login: a guest) written into a database migrated to ``before``, then the
    database migrated to ``after``: each account's ``column`` by id."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    from estimation.server.storage.database import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, before)
        for i, (name, login) in enumerate(accounts, 1):
            connection.execute(text("INSERT INTO accounts (id, name, login, is_guest, balance, created_at, "
                                    "moderator, silenced) VALUES (:i, :n, :l, :g, 0, '2026-01-01', 0, 0)"),
                               {"i": i, "n": name, "l": login, "g": login is None})
        command.upgrade(config, after)
        found = dict(connection.execute(text(f"SELECT id, {column} FROM accounts")).all())
    engine.dispose()
    return found


def test_the_name_key_backfill_keeps_the_older_of_two_same_names(tmp_path: Path) -> None:
    """Migration 0004: every login recomputed as the name's key (its own frozen copy of ``names.key``); of
    two old accounts whose names are now one name the older keeps the key, the newer's is ``KEY#ID``; a name
    the key refuses keeps its old login; a guest has none."""
    old: list[tuple[str, str | None]] = [("Ann", "ann"), ("\uff21\uff2e\uff2e", "\uff41\uff4e\uff4e"),
                                         ("Zo\u00eb", "zo\u00eb"), ("a\u0007b", "a\u0007b"), ("Bob", None)]
    logins = _backfilled(tmp_path, "0003_social", "0004_names", old, "login")
    assert logins == {1: "ann", 2: "ann#2", 3: "zo\u00eb", 4: "a\u0007b", 5: None}


def test_the_name_skeleton_backfill_keeps_the_older_of_two_look_alikes(tmp_path: Path) -> None:
    """Migration 0008 (issue 25, B7): accounts made before it get their skeleton; of two old accounts whose
    names already looked alike the older keeps it, the newer (still able to sign in) gets none."""
    old: list[tuple[str, str | None]] = [("Alice", "alice"), ("AIice", "aiice"), ("Bob", None)]
    keys = _backfilled(tmp_path, "0007_ownership", "head", old, "name_key")
    assert keys == {1: names.skeleton("Alice"), 2: None, 3: None}
