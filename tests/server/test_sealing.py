"""Secrets at rest (server/store/sealing.py, docs/operations.md "Seed keys"): what Redis
holds of a running game's hidden information is sealed under keys kept outside it.

On a real server and its own Redis (append-only file on): during play, no key's dump
and no append-only file holds the server seed, the game seed or the dealt deck in clear
(the deck as the record publishes it after the end); a new key and ``cardtable keys
rotate`` seal every running table again under it, the server plays on without a restart
(it reads the key file again), and the older key can go. Sealing itself: round trips,
values bound to their table, a value of a key nobody holds refused.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import redis

from cli import keys as keys_cli
from engine.shuffle import combine_seed
from server.store import streams as store
from server.store.sealing import (
    LOOK_EVERY,
    SETTLE,
    SealError,
    SeedSeal,
    create_key_file,
    new_key,
    read_keys,
)
from tests.conftest import ROOT, RedisProcess, ServerProcess
from tests.server.client import Lobby, Socket, auth
from tests.waiting import until


def test_a_seal_opens_what_it_sealed_for_the_same_table_only(tmp_path: Path) -> None:
    seal = SeedSeal.at(tmp_path / "keys")
    sealed = seal.seal("ab" * 32, "t1")
    assert sealed.startswith("sealed:") and "ab" * 32 not in sealed
    assert seal.open(sealed, "t1") == "ab" * 32
    assert seal.open("cd" * 32, "t1") == "cd" * 32  # stored before sealing: as it is
    with pytest.raises(SealError):
        seal.open(sealed, "t2")  # moved to another table: does not open
    entry = {"e": {"type": "game_started", "deck": ["red-1"]}, "h": "00" * 32,
             "a": {"type": "x"}, "c": {"turn_at": 1}}
    stored = seal.seal_entry(entry, "t1")
    assert set(stored) == {"s", "h", "c"} and b"red-1" not in stored["s"]
    opened = seal.open_entry(stored, "t1")
    assert opened == entry and list(opened) == list(entry)  # the order it was built in


def test_one_appends_entries_are_sealed_under_the_first_key_at_the_append(
        tmp_path: Path) -> None:
    path = tmp_path / "keys"
    create_key_file(path)
    now = [100.0]
    seal = SeedSeal(path, clock=lambda: now[0])
    entries = [{"e": {"type": "drawn", "card": f"red-{i}"}, "h": f"{i:02x}" * 32}
               for i in range(3)]
    entries[0]["a"] = {"type": "draw"}
    first = seal.seal_entries(entries, "t1")
    assert [seal.open_entry(s, "t1") for s in first] == entries
    assert all(seal.entry_current(s) and b"red-" not in s["s"] for s in first)
    path.write_text(new_key() + "\n" + path.read_text())  # a new first key meanwhile
    now[0] += LOOK_EVERY * 0.9  # the file's stamp not looked at again yet
    still = seal.seal_entries(entries, "t1")
    now[0] += LOOK_EVERY * 0.2  # a look is due: the new first key from here on
    later = seal.seal_entries(entries, "t1")
    newer = SeedSeal(path)
    assert all(newer.entry_current(s) for s in later)  # sealed under the new first key
    assert not any(newer.entry_current(s) for s in first + still)
    assert [newer.open_entry(s, "t1") for s in still + later] == entries + entries
    # Each entry has a nonce of its own (bytes 5-17 of a sealed value), though one read
    # of the random source gave an append's.
    assert len({s["s"][5:17] for s in first + still + later}) == 9


def test_the_first_key_seals_everywhere_by_the_time_keys_rotate_waits_for(
        tmp_path: Path) -> None:
    # A process looks at the file at most LOOK_EVERY after its last look: whatever it
    # seals from SETTLE after the change on is under the first key the file had then.
    path = tmp_path / "keys"
    create_key_file(path)
    now = [0.0]
    seal = SeedSeal(path, clock=lambda: now[0])
    now[0] += LOOK_EVERY
    seal.seal("11" * 32, "t")  # a look at the file is due: here, just before it changes
    path.write_text(new_key() + "\n" + path.read_text())
    assert SETTLE > LOOK_EVERY
    now[0] += SETTLE
    assert SeedSeal(path).seed_current(seal.seal("22" * 32, "t"))


@pytest.mark.parametrize("stamp", ["an hour old", "an hour ahead"])
def test_keys_rotate_waits_whatever_the_key_files_time(tmp_path: Path, stamp: str) -> None:
    # The new file was made elsewhere and copied in with its own modification time (cp -p,
    # rsync -t, an unpacked archive keep it), or the wall clock stepped since: a wait
    # until that time plus LOOK_EVERY would end at once, while a process that looked just
    # before the change still seals under the older key until its next look.
    path = tmp_path / "keys"
    create_key_file(path)
    now = [0.0]
    seal = SeedSeal(path, clock=lambda: now[0])
    now[0] += LOOK_EVERY
    seal.seal("11" * 32, "t")  # a look, just before the file is replaced
    staged = tmp_path / "keys.staged"
    staged.write_text(new_key() + "\n" + path.read_text())
    at = time.time() + (-3600 if stamp == "an hour old" else 3600)
    os.utime(staged, (at, at))
    staged.replace(path)
    sleeps: list[float] = []
    # keys rotate up to its reseal, its sleep recorded instead of slept
    rotating = keys_cli.settle(path, sleep=sleeps.append)
    assert sum(sleeps) <= SETTLE  # (an hour ahead: not an hour)
    now[0] += sum(sleeps)
    assert rotating.seed_current(seal.seal("22" * 32, "t"))


def test_a_key_added_meanwhile_is_read_and_a_foreign_one_refused(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    running = SeedSeal.at(path)
    old = running.seal("11" * 32, "t")
    path.write_text(new_key() + "\n" + path.read_text())  # a new first key
    newer = SeedSeal(path)
    sealed = newer.seal("22" * 32, "t")
    assert running.open(sealed, "t") == "22" * 32  # read the file again, found it
    assert newer.open(old, "t") == "11" * 32  # the older key still opens
    assert not newer.seed_current(old) and newer.seed_current(sealed)
    other = SeedSeal.at(tmp_path / "other")
    with pytest.raises(SealError):
        other.open(sealed, "t")
    assert len(read_keys(path)) == 2
    assert create_key_file(path) is False  # an existing file is never replaced
    (tmp_path / "bad").write_text("not a key\n")
    with pytest.raises(ValueError):
        read_keys(tmp_path / "bad")


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def on_disk(directory: Path) -> bytes:
    """The Redis's append-only files as they are on disk."""
    return b"".join(p.read_bytes() for p in sorted(directory.rglob("*"))
                    if p.is_file() and ".aof" in p.name)


def dump(r: redis.Redis, directory: Path) -> bytes:
    """Everything Redis holds: each key's DUMP, and its append-only files."""
    return b"\n".join([*(r.dump(k) or b"" for k in r.scan_iter(count=1000)),
                       on_disk(directory)])


async def wait_for(check: Any, timeout: float = 60.0) -> Any:
    return await until(check, timeout=timeout, what="the check")


@pytest.mark.timeout(300)
async def test_redis_holds_no_seed_or_deck_in_clear_and_keys_rotate_in_play(
        tmp_path: Path) -> None:
    keys = tmp_path / "seed-keys"
    env_keys = {"CARDTABLE_SEED_KEYS": str(keys)}
    own = RedisProcess(tmp_path / "redis")
    url = own.start()
    srv = ServerProcess(url, env=env_keys).start()
    lobby = Lobby(srv.url)
    r = redis.Redis.from_url(url)
    try:
        table = await lobby.create_game("keltis", 2)
        tid = table["id"]
        ann = await lobby.join(tid, "Ann", seat=0)
        await lobby.bot(tid, 1)
        await lobby.start(tid)
        sock = await Socket(srv.ws_url, tid).connect(token=ann["token"])
        await sock.wait(lambda f: f["t"] == "prompt")  # running, Ann to move
        # The start's append is on disk (its last chain head, stored plainly, is there).
        head = store.unpack(r.lrange(store.events_key(tid), -1, -1)[0])["h"].encode()

        async def flushed() -> bool:
            return head in on_disk(own.directory)

        await wait_for(flushed, timeout=30)
        during = dump(r, own.directory)
        stored_seed = r.hget(store.meta_key(tid), "server_seed").decode()
        assert stored_seed.startswith("sealed:")

        # A new key and a rotation while the game runs: every value sealed under it.
        env = {**srv.env}
        # The CLI in a thread: Ann's socket keeps answering the server's pings meanwhile (a
        # loop blocked past uvicorn's 20 s ping timeout is closed with 1011 on a busy machine).
        added = await asyncio.to_thread(cli, "keys", "new", "--file", str(keys), env=env)
        assert added.returncode == 0, added.stderr
        rotated = await asyncio.to_thread(cli, "keys", "rotate", "--file", str(keys),
                                          "--redis-url", url, env=env)
        assert rotated.returncode == 0, rotated.stderr
        seal = SeedSeal(keys)
        assert seal.seed_current(r.hget(store.meta_key(tid), "server_seed").decode())
        raw = [store.unpack(b) for b in r.lrange(store.events_key(tid), 0, -1)]
        assert raw and all(seal.entry_current(e) for e in raw)
        # The older key goes: the server opens everything with the new one alone.
        lines = keys.read_text().splitlines()
        keys.write_text("\n".join(lines[:-1]) + "\n")
        assert len(read_keys(keys)) == 1

        # Ann resigns; the bot plays the game to its end; the record reveals the secrets.
        r_resign = await lobby.seat_call(tid, "resign", ann["token"])
        assert r_resign.status_code == 200, r_resign.text

        async def record() -> dict[str, Any] | None:
            got = await lobby.http.get(f"/api/tables/{tid}/record", headers=auth(ann["token"]))
            return got.json() if got.status_code == 200 else None

        rec = await wait_for(record, timeout=120)
        deck = msgpack.packb(rec["deck"], use_bin_type=True)  # as an event holds it
        for secret in (rec["server_seed"].encode(), bytes.fromhex(rec["server_seed"]),
                       combine_seed(rec["server_seed"], rec["contributions"]).encode(),
                       deck):
            assert secret not in during, secret[:16]
        # Control: the stored first entry, opened, is the deal of that very deck.
        first = seal.open_entry(store.unpack(r.lrange(store.events_key(tid), 0, 0)[0]), tid)
        assert first["e"]["deck"] == rec["deck"] and deck in msgpack.packb(first["e"])
        await sock.close()
    finally:
        r.close()
        await lobby.close()
        srv.stop()
        own.stop()
