"""``cardtable backup`` and ``cardtable void-rewound`` (docs/operations.md, "Backup and
restore"): a game backed up mid-play, played on, then restored from that backup is voided,
its player told, its record verifies as voided; finished games and accounts are intact.
Real parts: redis-server, ``cardtable serve`` processes, redis-cli, the command itself."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import redis

from server.store.embedded import free_port
from tests.conftest import ROOT, TEST_ENV, RedisProcess, ServerProcess, finished_bot_game
from tests.server.client import Lobby, Member, Socket, auth

pytestmark = pytest.mark.skipif(shutil.which("redis-cli") is None, reason="needs redis-cli")


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


async def cli_aside(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``cli`` in a thread: the test's open sockets keep answering the server's pings (a
    loop blocked past uvicorn's 20 s ping timeout is closed with 1011 on a busy machine)."""
    return await asyncio.to_thread(cli, *args, env=env)


async def until(check: Callable[[], Awaitable[Any]], what: str, timeout: float = 60.0) -> Any:
    """Poll ``check`` until it returns something true (the pause is the polling's own)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (got := await check()):
        assert asyncio.get_running_loop().time() < deadline, f"never happened: {what}"
        await asyncio.sleep(0.05)
    return got


class RestoredRedis:
    """A fresh redis-server started on a backup's ``dump.rdb`` as the runbook says: with
    the append-only file off (Redis 7 would otherwise start empty from a new one), then
    turned on (``CONFIG SET appendonly yes`` writes it from the loaded data)."""

    def __init__(self, directory: Path, rdb: Path) -> None:
        directory.mkdir(parents=True)
        shutil.copy(rdb, directory / "dump.rdb")
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(directory), "--dbfilename", "dump.rdb", "--appendonly", "no",
             "--save", "", "--logfile", str(directory / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    async def ready(self) -> None:
        r = redis.Redis.from_url(self.url)

        async def up() -> bool:
            try:
                return bool(r.ping()) and r.info("persistence")["loading"] == 0
            except redis.ConnectionError:
                return False

        try:
            await until(up, "the restored redis-server answers")
            r.config_set("appendonly", "yes")
        finally:
            r.close()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(15)


async def play(socks: list[Socket], n: int) -> tuple[int, dict[str, Any]]:
    """Make ``n`` moves, each the first legal action of the newest unanswered prompt of
    whichever seat is to move (people only: no bot moves behind the test's back); returns
    the seq after the last and the last prompt answered."""
    answered = [-1] * len(socks)
    seq, prompt = 0, {}

    async def next_prompt() -> tuple[int, dict[str, Any]] | None:
        for i, sock in enumerate(socks):
            fresh = [f for f in sock.frames if f["t"] == "prompt"
                     and f["seq"] > answered[i] and f["seq"] >= seq]
            if fresh:
                return i, fresh[-1]
        return None

    for _ in range(n):
        i, prompt = await until(next_prompt, "a prompt for the seat to move")
        answered[i] = prompt["seq"]
        sent = f"m{prompt['seq']}"
        await socks[i].send({"t": "action", "id": sent, "action": prompt["legal_actions"][0],
                             "seq": prompt["seq"]})
        seq = (await socks[i].wait(lambda f, sent=sent: f["t"] == "ack"
                                   and f["id"] == sent))["seq"]
    return seq, prompt


async def next_prompt_of(socks: list[Socket], seq: int) -> tuple[Socket, dict[str, Any]] | None:
    """The socket prompted at ``seq`` and its prompt, once one is."""
    for sock in socks:
        for f in sock.frames:
            if f["t"] == "prompt" and f["seq"] == seq:
                return sock, f
    return None


@pytest.mark.timeout(300)
async def test_a_restore_from_an_older_backup_voids_the_games_it_rewound(
        tmp_path: Path) -> None:
    first = RedisProcess(tmp_path / "redis")
    url = first.start()
    srv = ServerProcess(url).start()
    env = {**srv.env}
    lobby = Lobby(srv.url)
    member = Member(srv.url)
    restored: RestoredRedis | None = None
    srv2: ServerProcess | None = None
    try:
        await member.sign_up("keeper")
        done = await finished_bot_game(srv.url, seats=2)
        table = await lobby.create_game("keltis", 2)
        tid = table["id"]
        ann = await lobby.join(tid, "Ann", seat=0)
        bob = await lobby.join(tid, "Bob", seat=1)
        await lobby.start(tid)
        sock = await Socket(srv.ws_url, tid).connect(token=ann["token"])
        other = await Socket(srv.ws_url, tid).connect(token=bob["token"])
        at_backup, _ = await play([sock, other], 1)

        backup = tmp_path / "backup"
        made = await cli_aside("backup", "--out", str(backup), "--redis-url", url, env=env)
        assert made.returncode == 0, made.stderr
        manifest = json.loads((backup / "manifest.json").read_text())
        assert manifest["running"] == {tid: at_backup}
        assert (backup / "dump.rdb").stat().st_size == manifest["rdb_bytes"]

        later, _ = await play([sock, other], 4)  # cards seen that the backup never held
        assert later > at_backup
        await sock.close()
        await other.close()
        await lobby.close()
        srv.stop()
        first.stop()

        restored = RestoredRedis(tmp_path / "restored", backup / "dump.rdb")
        await restored.ready()
        srv2 = ServerProcess(restored.url).start()
        lobby = Lobby(srv2.url)
        # Rewound: the table is back at the backup's seq, running, its later moves gone.
        row = (await lobby.get(f"/api/tables/{tid}")).json()
        assert row["status"] == "running" and row["seq"] == at_backup
        sock = await Socket(srv2.ws_url, tid).connect(token=ann["token"])
        other = await Socket(srv2.ws_url, tid).connect(token=bob["token"])
        for s in (sock, other):
            await s.wait(lambda f: f["t"] == "welcome" and f["seq"] == at_backup)
        # Whoever is to move at the backup's seq is prompted again.
        mover, prompt = await until(lambda: next_prompt_of([sock, other], at_backup),
                                    "the restored prompt")

        manifest_path = str(backup / "manifest.json")
        dry = await cli_aside("void-rewound", "--manifest", manifest_path, "--dry-run",
                              "--redis-url", restored.url, env=env)
        assert dry.returncode == 0 and f"would void {tid}" in dry.stdout, dry.stderr
        voided = await cli_aside("void-rewound", "--manifest", manifest_path,
                                 "--redis-url", restored.url, env=env)
        assert voided.returncode == 0, voided.stderr
        assert f"voided {tid} at seq {at_backup + 1}" in voided.stdout

        # Both connected players are told: the delta with the void, at the next seq.
        for s in (sock, other):
            told = await s.wait(lambda f: f["t"] == "deltas" and any(
                e["event"]["type"] == "game_voided" for e in f["events"]))
            assert told["seq"] == at_backup + 1
        # Nobody moves again: the move the restored prompt offered is refused.
        await mover.send({"t": "action", "id": "after", "action": prompt["legal_actions"][0],
                          "seq": at_backup + 1})
        refused = await mover.wait(lambda f: f["t"] == "error" and f["id"] == "after")
        assert refused["code"] == "voided"

        async def ended() -> dict[str, Any] | None:
            got = (await lobby.get(f"/api/tables/{tid}")).json()
            return got if got["status"] == "ended" else None

        row = await until(ended, "the voided table shows as ended")
        assert row["voided"] and "winners" not in row
        rec = await lobby.http.get(f"/api/tables/{tid}/record", headers=auth(ann["token"]))
        assert rec.status_code == 200, rec.text
        assert rec.json()["seat_changes"][-1]["type"] == "game_voided"
        (tmp_path / "voided.json").write_text(rec.text)
        checked = await cli_aside("verify", str(tmp_path / "voided.json"), env=env)
        assert checked.returncode == 0, checked.stdout
        assert "the game was voided" in checked.stdout

        # A second run finds nothing left to void.
        again = await cli_aside("void-rewound", "--manifest", manifest_path,
                                "--redis-url", restored.url, env=env)
        assert again.returncode == 0 and "0 voided" in again.stdout, again.stdout

        # Finished games and accounts came through the restore untouched.
        old = await lobby.http.get(f"/api/tables/{done['id']}/record")
        assert old.status_code == 200
        (tmp_path / "done.json").write_text(old.text)
        assert (await cli_aside("verify", str(tmp_path / "done.json"), env=env)).returncode == 0
        assert "voided" not in (await lobby.get(f"/api/tables/{done['id']}")).json()
        member2 = Member(srv2.url)
        try:
            await member2.log_in("keeper")
        finally:
            await member2.close()
        await sock.close()
        await other.close()
    finally:
        await lobby.close()
        await member.close()
        if srv2 is not None:
            srv2.stop()
        srv.stop()
        if restored is not None:
            restored.stop()
        first.stop()


def test_backup_of_an_unreachable_redis_exits_3_naming_it_and_writes_nothing(
        tmp_path: Path) -> None:
    env = {**TEST_ENV, "PATH": "/usr/bin:/bin"}
    port = free_port()
    got = cli("backup", "--out", str(tmp_path / "b"), "--redis-url",
              f"redis://:secret-pw@127.0.0.1:{port}/0", env=env)
    assert got.returncode == 3, got.stderr
    assert f"Redis at redis://:***@127.0.0.1:{port}/0 did not answer" in got.stderr
    assert "secret-pw" not in got.stderr
    assert list((tmp_path / "b").iterdir()) == []
    got = cli("void-rewound", "--since", "0", "--redis-url",
              f"redis://127.0.0.1:{port}/0", env=env)
    assert got.returncode == 3 and "did not answer" in got.stderr, got.stderr


def test_backup_and_void_refuse_bad_files_with_exit_2(tmp_path: Path) -> None:
    env = {**TEST_ENV, "PATH": "/usr/bin:/bin"}
    url = f"redis://127.0.0.1:{free_port()}/0"
    taken = tmp_path / "a-file"
    taken.write_text("not a directory")
    got = cli("backup", "--out", str(taken), "--redis-url", url, env=env)
    assert got.returncode == 2 and "--out" in got.stderr, got.stderr
    got = cli("void-rewound", "--manifest", str(tmp_path / "none.json"), "--redis-url", url,
              env=env)
    assert got.returncode == 2 and "none.json" in got.stderr, got.stderr
