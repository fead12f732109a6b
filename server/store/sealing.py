"""Secrets at rest: what Redis holds of a table's hidden information, sealed under keys
the operator holds outside Redis.

A table's server seed decides its deck, and its stored events carry the deck and every
hand (the game's ``game_started`` and draws): anyone who reads Redis before the end would
know every hidden card. So Redis, its append-only file and every backup hold them only
sealed (AES-256-GCM through the ``cryptography`` package, the table id as associated data,
so a sealed value moved to another table does not open): the meta's ``server_seed`` as
``sealed:<base64>``, each stored entry's event and action as its ``s`` field (the chain
head and the clock stay plain: they are public). The keys are in a file outside Redis
(``Settings.seed_keys``): one urlsafe-base64 key of 32 bytes a line, the first seals,
every one opens (a sealed value names its key by the first 4 bytes of the key's SHA-256).

Rotation without losing running games (docs/operations.md, "Seed keys"): ``cardtable keys
new`` puts a new key first, ``cardtable keys rotate`` seals every table's seed and entries
under it again, then the older keys may go. No restart: a process looks at the file's
stamp before it seals, at most ``LOOK_EVERY`` seconds after its last look (so it seals
under a new first key from ``LOOK_EVERY`` after the file changed, and ``keys rotate`` waits
that long: ``SETTLE``), and reads the file again when it meets a value of a key it
does not hold. Values stored before sealing
existed (a plain seed, an entry with ``e``) read as they are until ``keys rotate`` seals
them.

Pure apart from reading the key file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "sealed:"
VERSION = b"\x01"
_PACKER = msgpack.Packer(use_bin_type=True, autoreset=True)
"""One packer for every sealed entry (``msgpack.packb`` makes one, with its buffer, per call)."""
LOOK_EVERY = 1.0
"""Seconds between two looks at the key file's stamp before a seal: a ``stat`` per append
was about 2 % of a saturated server's CPU (docs/benchmarks.md, "CPU per action, part 9")."""
SEALED_FIELDS = ("e", "a")
"""The fields of a stored entry that are sealed (as one ``s``): the event and the action."""


class SealError(RuntimeError):
    """A sealed value that no key opens (a key file of another deployment, a key dropped
    before its values were sealed again, or a damaged value)."""


def new_key() -> str:
    """A fresh random key (32 bytes, urlsafe base64), as a key file holds it."""
    return base64.urlsafe_b64encode(AESGCM.generate_key(bit_length=256)).decode()


def _key_id(key: bytes) -> bytes:
    return hashlib.sha256(key).digest()[:4]


def read_keys(path: Path) -> list[bytes]:
    """The keys of a key file, the sealing one first; blank lines and ``#`` comments are
    skipped. Raises ``OSError``, and ``ValueError`` for a file with no key or a line that
    is not a 32-byte key."""
    keys = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            key = base64.urlsafe_b64decode(line.strip())
        except ValueError:
            key = b""
        if len(key) != 32:
            raise ValueError(f"{path}: a line is not a seed key (32 bytes, urlsafe base64)")
        keys.append(key)
    if not keys:
        raise ValueError(f"{path} holds no seed key")
    return keys


SETTLE = LOOK_EVERY + 0.1
"""Seconds after a change of the key file by which every process seals under its new first
key: ``LOOK_EVERY``, and a tenth for a look that ran while the file was being replaced.
``keys rotate`` waits this long from its own start (the monotonic clock), not until the
file's modification time plus this: a key file copied in with its source's older time
(``cp -p``, ``rsync -t``, an unpacked archive, a secrets store) or a wall clock stepped
forward would end that wait before a process that looked just before the change looked
again."""


def create_key_file(path: Path) -> bool:
    """Write a key file with one new key (mode 0600) unless the file exists; True when
    this call wrote it. Safe against processes starting together (exclusive create)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write("# The seed keys of this deployment: the first seals, all open. Keep this file\n"
                "# out of Redis's backups (docs/operations.md, \"Seed keys\").\n")
        f.write(new_key() + "\n")
    return True


class SeedSeal:
    """Seals and opens a table's secrets with the keys of one key file. ``clock`` gives the
    seconds (monotonic) that space its looks at the file (``LOOK_EVERY``)."""

    def __init__(self, path: Path, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._clock = clock
        self.reload()

    @classmethod
    def at(cls, path: Path | str) -> SeedSeal:
        """The seal of the key file at ``path``, made with a new key if there is none."""
        create_key_file(Path(path))
        return cls(Path(path))

    def reload(self) -> None:
        """Read the key file again (a key added since)."""
        stamp = self._stamp()
        keys = read_keys(self.path)
        self._first = _key_id(keys[0])
        self._ciphers = {_key_id(k): AESGCM(k) for k in keys}
        self._read = stamp
        self._next_look = self._clock() + LOOK_EVERY

    def _stamp(self) -> tuple[int, int, int]:
        st = os.stat(self.path)
        return st.st_ino, st.st_mtime_ns, st.st_size

    def _current(self) -> None:
        # A new first key seals within LOOK_EVERY in every process; ``keys rotate`` waits
        # that long (``SETTLE``), so it leaves nothing sealed under the older key.
        now = self._clock()
        if now < self._next_look:
            return
        self._next_look = now + LOOK_EVERY
        if self._stamp() != self._read:
            self.reload()

    # ---- bytes ---------------------------------------------------------------------------

    def seal_bytes(self, data: bytes, table_id: str) -> bytes:
        """``data`` sealed under the first key, bound to ``table_id``: version byte, key
        id (4 bytes), nonce (12 bytes), ciphertext with its tag."""
        self._current()
        return self._seal(data, table_id, os.urandom(12))

    def _seal(self, data: bytes, table_id: str, nonce: bytes) -> bytes:
        # ``seal_bytes`` under the key file as last looked at, with a fresh random
        # 12-byte nonce (AES-GCM's: never reused under one key).
        return (VERSION + self._first + nonce
                + self._ciphers[self._first].encrypt(nonce, data, table_id.encode()))

    def open_bytes(self, token: bytes, table_id: str) -> bytes:
        """The data of a sealed value of ``table_id``. Raises ``SealError``."""
        if token[:1] != VERSION or len(token) < 33:
            raise SealError("not a sealed value")
        kid = token[1:5]
        if kid not in self._ciphers:
            self.reload()
        cipher = self._ciphers.get(kid)
        if cipher is None:
            raise SealError(f"no key of {self.path} opens a value of table {table_id}")
        try:
            return cipher.decrypt(token[5:17], token[17:], table_id.encode())
        except Exception:  # cryptography's InvalidTag: damaged, or another table's
            raise SealError(f"a sealed value of table {table_id} does not open") from None

    def sealed_by_first(self, token: bytes) -> bool:
        """True when the first key sealed ``token`` (``keys rotate`` leaves it)."""
        return token[:1] == VERSION and token[1:5] == self._first

    # ---- the server seed -----------------------------------------------------------------

    def seal(self, seed: str, table_id: str) -> str:
        """``sealed:<base64>`` of ``seed`` for the meta of ``table_id``."""
        token = self.seal_bytes(seed.encode(), table_id)
        return PREFIX + base64.urlsafe_b64encode(token).decode()

    def open(self, stored: str, table_id: str) -> str:
        """The seed of a meta's stored value (one without the prefix was stored before
        sealing: as it is). Raises ``SealError``."""
        if not stored.startswith(PREFIX):
            return stored
        token = base64.urlsafe_b64decode(stored[len(PREFIX):])
        return self.open_bytes(token, table_id).decode()

    def seed_current(self, stored: str) -> bool:
        """True when the first key sealed this stored seed already."""
        return stored.startswith(PREFIX) and self.sealed_by_first(
            base64.urlsafe_b64decode(stored[len(PREFIX):]))

    # ---- stored entries ------------------------------------------------------------------

    def seal_entry(self, entry: dict[str, Any], table_id: str) -> dict[str, Any]:
        """A stored entry with its event and action sealed as ``s`` (head, clock plain)."""
        self._current()
        return self._seal_entry(entry, table_id, os.urandom(12))

    def seal_entries(self, entries: list[dict[str, Any]], table_id: str
                     ) -> list[dict[str, Any]]:
        """``seal_entry`` of each of one append's ``entries``, the key file looked at
        (``LOOK_EVERY``) once for all of them and their nonces read
        from the system's random source at once (one ``getrandom`` per append)."""
        self._current()
        nonces = os.urandom(12 * len(entries))
        return [self._seal_entry(e, table_id, nonces[12 * i:12 * i + 12])
                for i, e in enumerate(entries)]

    def _seal_entry(self, entry: dict[str, Any], table_id: str, nonce: bytes
                    ) -> dict[str, Any]:
        secret = {k: entry[k] for k in SEALED_FIELDS if k in entry}
        out = {k: v for k, v in entry.items() if k not in SEALED_FIELDS}
        out["s"] = self._seal(_PACKER.pack(secret), table_id, nonce)
        return out

    def open_entry(self, entry: dict[str, Any], table_id: str) -> dict[str, Any]:
        """A stored entry as it was before sealing (one stored plainly: as it is)."""
        if "s" not in entry:
            return entry
        secret = msgpack.unpackb(self.open_bytes(entry["s"], table_id), raw=False)
        # The order an entry is built in (``TableCore.chain``): e, h, a, then the clock.
        out = {"e": secret["e"], "h": entry["h"]}
        if "a" in secret:
            out["a"] = secret["a"]
        out.update((k, v) for k, v in entry.items() if k not in ("s", "h"))
        return out

    def entry_current(self, entry: dict[str, Any]) -> bool:
        """True when the first key sealed this stored entry already."""
        return "s" in entry and self.sealed_by_first(entry["s"])
