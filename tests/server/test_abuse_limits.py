"""Issue 15, findings 2, 4 and 6: limits a client cannot talk its way around, caps on what one client may
hold open, and deadlines for clients that never finish talking (or never listen).

Each test runs its own server with small limits, so it can reach them in a second from one address."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from server_helpers import Api, Player, ServerProcess, run


def _server(tmp_path_factory: pytest.TempPathFactory, name: str,
            env: dict[str, str]) -> Iterator[ServerProcess]:
    path: Path = tmp_path_factory.mktemp(name) / "estimation.db"
    proc = ServerProcess(f"sqlite+aiosqlite:///{path}", name=name, env=env)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A REST burst of 5 per client, then one every 10 s; uvicorn's default forwarded-header trust."""
    yield from _server(tmp_path_factory, "limited", {
        "ESTIMATION_REST_RATE_PER_SECOND": "0.1", "ESTIMATION_REST_RATE_BURST": "5"})


def test_made_up_tokens_and_forwarded_addresses_buy_no_budget(limited: ServerProcess) -> None:
    """A made-up bearer token on each request (300 of 300 were served), or a rotated X-Forwarded-For from
    loopback (uvicorn believed it by default): both count against the peer's own address."""
    with httpx.Client(base_url=limited.base) as http:
        made_up = [http.get("/api/tables", headers={"Authorization": f"Bearer {secrets.token_urlsafe(32)}"})
                   .status_code for _ in range(8)]
        forwarded = [http.get("/api/rulesets", headers={"X-Forwarded-For": f"10.0.0.{i + 1}",
                                                        "Forwarded": f"for=10.1.0.{i + 1}"}).status_code
                     for i in range(8)]
    assert made_up[:5] == [200] * 5 and set(made_up[5:]) == {429}, made_up
    assert set(forwarded) == {429}, forwarded


@pytest.fixture(scope="module")
def behind_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The same limits, with 127.0.0.1 configured as the reverse proxy in front."""
    yield from _server(tmp_path_factory, "proxied", {
        "ESTIMATION_REST_RATE_PER_SECOND": "0.1", "ESTIMATION_REST_RATE_BURST": "2",
        "ESTIMATION_TRUSTED_PROXIES": "127.0.0.1"})


def test_a_configured_proxy_names_the_client(behind_proxy: ServerProcess) -> None:
    with httpx.Client(base_url=behind_proxy.base) as http:
        one = [http.get("/api/rulesets", headers={"X-Forwarded-For": "192.0.2.7"}).status_code
               for _ in range(3)]
        other = http.get("/api/rulesets", headers={"X-Forwarded-For": "192.0.2.8"}).status_code
    assert one == [200, 200, 429] and other == 200


@pytest.fixture(scope="module")
def creating(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Per address: bursts of 3 new guests, accounts, tables (then one a minute); 2 open tables a player."""
    yield from _server(tmp_path_factory, "creating", {
        "ESTIMATION_CREATE_PER_MINUTE": "1", "ESTIMATION_CREATE_BURST": "3",
        "ESTIMATION_OPEN_TABLES_PER_PLAYER": "2", "ESTIMATION_REST_RATE_PER_SECOND": "0"})


def test_creating_guests_accounts_and_tables_is_limited_per_address(creating: ServerProcess) -> None:
    with httpx.Client(base_url=creating.base) as http:
        guests = [http.post("/api/guests", json={"name": f"Flood {i}"}) for i in range(5)]
        assert [r.status_code for r in guests] == [201, 201, 201, 429, 429]
        assert guests[3].json()["code"] == "rate_limited" and int(guests[3].headers["retry-after"]) >= 1
        accounts = [http.post("/api/accounts", json={"name": f"flooder{i}",
                                                     "password": "violet kettle marches"}) for i in range(4)]
        assert [r.status_code for r in accounts] == [201, 201, 201, 429]
        # A player's open tables are capped (2 here), whoever asks; then the address's bucket is spent too.
        token = {"Authorization": f"Bearer {guests[0].json()['token']}"}
        tables = [http.post("/api/tables", json={}, headers=token) for _ in range(3)]
        assert [r.status_code for r in tables] == [201, 201, 429]
        assert tables[2].json()["code"] == "too_many_tables"
        other = {"Authorization": f"Bearer {guests[1].json()['token']}"}
        assert http.post("/api/tables", json={}, headers=other).json()["code"] == "rate_limited"
        # The lobby still lists what it listed: the flood did not get in.
        assert len(http.get("/api/tables").json()) == 2


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Two sockets a player, five an address."""
    yield from _server(tmp_path_factory, "capped", {
        "ESTIMATION_SOCKETS_PER_PLAYER": "2", "ESTIMATION_SOCKETS_PER_ADDRESS": "5"})


def test_sockets_are_capped_per_player_and_per_address(capped: ServerProcess) -> None:
    api = Api.guest(capped)
    tid = api.create_table()["id"]
    url = f"{capped.ws_base}/ws/tables/{tid}"

    async def hello(ws: websockets.ClientConnection, token: str | None) -> dict[str, object]:
        await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
        return dict(json.loads(await ws.recv()))

    async def sockets_down_to(count: int) -> None:
        for _ in range(100):
            if capped.figures()["estimation_sockets"] <= count:
                return
            await asyncio.sleep(0.1)
        raise AssertionError("sockets not counted out")

    async def main() -> None:
        mine = [await websockets.connect(url) for _ in range(3)]
        answers = [await hello(ws, api.token) for ws in mine]
        assert [a["type"] for a in answers] == ["welcome", "welcome", "error"]
        assert answers[2]["code"] == "too_many_connections"
        await mine[2].close()
        await sockets_down_to(2)
        spectators = [await websockets.connect(url) for _ in range(3)]  # 2 + 3: the address's five
        assert [(await hello(ws, None))["type"] for ws in spectators] == ["welcome"] * 3
        extra = await websockets.connect(url)
        refused = json.loads(await extra.recv())
        assert refused["code"] == "too_many_connections"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(extra.recv(), 10)
        for ws in [*mine[:2], *spectators]:
            await ws.close()
        # Closed sockets are counted out: there is room again.
        await sockets_down_to(0)
        again = await websockets.connect(url)
        assert (await hello(again, api.token))["type"] == "welcome"
        await again.close()

    run(main())


@pytest.fixture(scope="module")
def impatient(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One second for a request's headers, one for its body; slow readers dropped after two seconds or
    64 KiB queued."""
    yield from _server(tmp_path_factory, "impatient", {
        "ESTIMATION_HEADER_TIMEOUT": "1", "ESTIMATION_BODY_TIMEOUT": "1", "ESTIMATION_SEND_TIMEOUT": "2",
        "ESTIMATION_SEND_QUEUE_BYTES": "65536", "ESTIMATION_RATE_PER_SECOND": "100000",
        "ESTIMATION_RATE_BURST": "100000", "ESTIMATION_SOCKETS_PER_ADDRESS": "0"})


def _closed_by_server(sock: socket.socket, deadline: float) -> bool:
    """Whether the server closed (or reset) the connection before ``deadline``, reading what it sends."""
    sock.settimeout(0.2)
    while time.monotonic() < deadline:
        try:
            if sock.recv(65536) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


def test_slow_and_silent_http_clients_are_cut_off(impatient: ServerProcess) -> None:
    silent = [socket.create_connection(("127.0.0.1", impatient.port)) for _ in range(20)]
    slow = [socket.create_connection(("127.0.0.1", impatient.port)) for _ in range(20)]
    for s in slow:
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # and never the rest
    body = socket.create_connection(("127.0.0.1", impatient.port))
    body.sendall(b"POST /api/guests HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 100\r\n\r\n{\"name\":")  # 8 of 100 bytes
    deadline = time.monotonic() + 8
    assert all(_closed_by_server(s, deadline) for s in silent + slow)
    body.settimeout(8)
    answer = body.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
    for s in [*silent, *slow, body]:
        s.close()
    assert httpx.get(impatient.base + "/api/health").status_code == 200


def _raw_request(port: int, head: bytes) -> bytes:
    """Send ``head`` (a whole request head) on a new connection; what the server answers until it closes."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(head)
        sock.settimeout(5)
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answer += chunk
                if b"connection: close" not in answer.lower() and answer.endswith(b"}"):
                    break
        return answer


def test_a_request_head_over_16_kib_is_refused_with_431(impatient: ServerProcess) -> None:
    """The server runs httptools, whose parser sets no limit on a request's head: the server's own cap
    (``serving.MAX_HEAD_BYTES``) answers 431 past 16 KiB, and a head just under it is served."""
    def head(header_bytes: int) -> bytes:
        line = b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        return line + b"X-Big: " + b"a" * header_bytes + b"\r\n\r\n"

    under = _raw_request(impatient.port, head(15 * 1024))
    assert under.startswith(b"HTTP/1.1 200"), under[:80]
    over = _raw_request(impatient.port, head(17 * 1024))
    assert over.startswith(b"HTTP/1.1 431"), over[:80]
    many = b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + b"".join(
        b"X-H%d: %s\r\n" % (i, b"b" * 100) for i in range(200)) + b"\r\n"  # 200 small headers, ~21 KiB
    assert _raw_request(impatient.port, many).startswith(b"HTTP/1.1 431")
    assert httpx.get(impatient.base + "/api/health").status_code == 200


def _frame(payload: bytes) -> bytes:
    """A client's masked text frame (the mask is zeros: the payload goes as it is)."""
    head = bytes([0x81])
    n = len(payload)
    head += bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
    return head + b"\0\0\0\0" + payload


def _never_reading_socket(port: int, table_id: int) -> socket.socket:
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    sock.sendall(f"GET /ws/tables/{table_id} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                 f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                 "Sec-WebSocket-Version: 13\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    sock.sendall(_frame(b'{"type":"hello"}'))
    return sock


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_a_socket_that_never_reads_is_dropped_and_pins_little_memory(impatient: ServerProcess) -> None:
    api = Api.guest(impatient)
    tid = api.create_table(length="full", bot_seats=[1, 2, 3])["id"]
    api.join(tid, seat=0)
    assert impatient.proc is not None
    before = _rss_kib(impatient.proc.pid)
    socks = [_never_reading_socket(impatient.port, tid) for _ in range(10)]
    sync = _frame(b'{"type":"sync","last_version":0}')
    started = time.monotonic()
    for s in socks:
        s.setblocking(False)
    for _ in range(3000):  # each asks for a snapshot back: about 6 MB a socket, more than the kernel holds
        for s in socks:
            with contextlib.suppress(OSError):
                s.send(sync)
    peak = _rss_kib(impatient.proc.pid)
    # About 5 s on a quiet machine (the bots' process pool starts meanwhile); a loaded CI runner took over 30.
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and impatient.figures()["estimation_sockets"] > 0:
        time.sleep(0.2)
    took = time.monotonic() - started
    assert impatient.figures()["estimation_sockets"] == 0, "slow readers still held"
    # The server let go of the connections themselves too: a read now ends in a close or a reset.
    closed = sum(_closed_by_server(s, time.monotonic() + 15) for s in socks)
    for s in socks:
        s.close()
    growth_mib = (max(peak, _rss_kib(impatient.proc.pid)) - before) / 1024
    print(f"10 never-reading sockets: dropped within {took:.1f} s, server memory grew {growth_mib:.1f} MiB")
    assert closed == len(socks)
    assert growth_mib < 40, growth_mib  # was about 11 MB a socket (110 MB for 10), held until they hung up


@pytest.fixture(scope="module")
def lobby_flood(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """New sockets limited to bursts of 12 an address, then one every 6 s."""
    yield from _server(tmp_path_factory, "lobby-flood", {
        "ESTIMATION_SOCKET_CONNECTS_PER_MINUTE": "10", "ESTIMATION_SOCKET_CONNECT_BURST": "12"})


def test_a_lobby_connect_flood_is_limited_and_reads_the_lobby_once(lobby_flood: ServerProcess) -> None:
    """Issue 25, B4: 16 loops connecting to /ws/lobby and closing cost 12 s of CPU in 14 s, each connect
    reading every open table and its seats. Now new sockets are limited per address, and the snapshot is
    read once and its encoded bytes served to every connect until the lobby changes."""
    server = lobby_flood
    for _ in range(10):
        api = Api.guest(server)
        for _ in range(3):
            api.create_table()
    read_before = server.figures()["estimation_lobby_snapshots"]

    async def flood() -> list[str]:
        async def one() -> str:
            async with websockets.connect(f"{server.ws_base}/ws/lobby", max_size=2**22) as ws:
                first = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if first["type"] == "lobby":
                    assert len(first["tables"]) == 30
                    return "lobby"
                return str(first["code"])

        return list(await asyncio.gather(*(one() for _ in range(40))))

    firsts = run(flood())
    assert firsts.count("lobby") >= 10 and firsts.count("rate_limited") >= 25, firsts
    assert server.figures()["estimation_lobby_snapshots"] - read_before <= 2


@pytest.fixture(scope="module")
def chatty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The shipped chat limits: per player, per address (1 a second, bursts of 10) and per table's
    spectators' channel (1 a second, bursts of 5)."""
    yield from _server(tmp_path_factory, "chatty", {
        "ESTIMATION_CHAT_ADDRESS_PER_SECOND": "1", "ESTIMATION_CHAT_ADDRESS_BURST": "10",
        "ESTIMATION_SPECTATOR_CHAT_PER_SECOND": "1", "ESTIMATION_SPECTATOR_CHAT_BURST": "5"})


def test_many_guests_cannot_flood_a_strangers_table_with_spectator_chat(chatty: ServerProcess) -> None:
    """Issue 25, B11: twenty guests from one address put fifteen spectator lines a second into a stranger's
    table (each guest had its own chat budget). Now an address, and a table's spectators' channel, have one
    budget each."""
    server = chatty
    owner = Api.guest(server)
    tid = owner.create_table(length="micro", bot_seats=[1, 2, 3])["id"]
    owner.join(tid, seat=0)
    guests = [Api.guest(server) for _ in range(20)]

    async def main() -> int:
        seated = Player(server, tid, owner.token)
        await seated.connect()
        watchers = [Player(server, tid, g.token) for g in guests]
        for w in watchers:
            await w.connect()
        start = asyncio.get_running_loop().time()
        for round_ in range(3):
            for i, w in enumerate(watchers):
                await w.send({"type": "chat", "text": f"spam {round_} {i}"})
        lines = 0
        with contextlib.suppress(TimeoutError):
            while asyncio.get_running_loop().time() - start < 3:
                message = await seated.recv(0.5)
                lines += message["type"] == "chat" and message["channel"] == "spectators"
        for p in (seated, *watchers):
            await p.close()
        return lines

    lines = run(main())
    assert 1 <= lines <= 9, lines  # a burst of 5 and a line a second, not 60
