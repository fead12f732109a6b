"""``cardtable prune`` (docs/operations.md, "Retention"): finished games older than
``CARDTABLE_KEEP_FINISHED_DAYS`` are exported as their records and deleted; the routes
then answer 404; running games and younger finished games stay. The clock is the servers'
clock file, moved by the test (no waiting for days)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, RedisProcess, ServerProcess, finished_bot_game
from tests.server.client import ClockFile, Lobby

DAY = 86400.0


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.timeout(300)
async def test_prune_exports_then_deletes_only_the_games_past_retention(
        tmp_path: Path) -> None:
    clock = ClockFile(tmp_path / "clock")
    own = RedisProcess(tmp_path / "redis")
    url = own.start()
    srv = ServerProcess(url, env=clock.env).start()
    env = {**srv.env, "CARDTABLE_KEEP_FINISHED_DAYS": "2"}
    lobby = Lobby(srv.url)
    export = tmp_path / "export"
    try:
        old = await finished_bot_game(srv.url, seats=2)
        running = await lobby.create_game("keltis", 2)
        for seat, name in enumerate(("Ann", "Bob")):
            await lobby.join(running["id"], name, seat=seat)
        await lobby.start(running["id"])
        record = (await lobby.get(f"/api/tables/{old['id']}/record")).json()

        # Younger than two days: nothing is due.
        kept = cli("prune", "--export", str(export), "--redis-url", url, env=env)
        assert kept.returncode == 0, kept.stderr
        assert "0 games ended" in kept.stdout and not list(export.iterdir())
        # 0 days: kept forever, whatever the clock.
        clock.set(30 * DAY)
        forever = cli("prune", "--redis-url", url,
                      env={**env, "CARDTABLE_KEEP_FINISHED_DAYS": "0"})
        assert forever.returncode == 0 and "nothing pruned" in forever.stdout

        clock.set(3 * DAY)
        young = await finished_bot_game(srv.url, seats=2)  # ended "today" on the moved clock
        dry = cli("prune", "--dry-run", "--redis-url", url, env=env)
        assert dry.stdout.splitlines()[0] == f"would prune {old['id']}", dry.stdout
        pruned = cli("prune", "--export", str(export), "--redis-url", url, env=env)
        assert pruned.returncode == 0, pruned.stderr
        assert f"pruned {old['id']}" in pruned.stdout and "1 pruned, 0 failed" in pruned.stdout

        # The export is the record the service served, and it verifies offline.
        exported = export / f"{old['id']}.json"
        assert json.loads(exported.read_text()) == record
        assert [p.name for p in export.iterdir()] == [exported.name]
        checked = cli("verify", str(exported), env=env)
        assert checked.returncode == 0, checked.stdout
        # Gone from the service: summary and record 404, not in the lobby lists.
        for path in (f"/api/tables/{old['id']}", f"/api/tables/{old['id']}/record"):
            assert (await lobby.get(path)).status_code == 404, path
        listed = (await lobby.get("/api/tables?status=ended")).text
        assert old["id"] not in listed and young["id"] in listed
        # The running game and the younger finished one stay.
        assert (await lobby.get(f"/api/tables/{running['id']}")).json()["status"] == "running"
        assert (await lobby.get(f"/api/tables/{young['id']}/record")).status_code == 200
    finally:
        await lobby.close()
        srv.stop()
        own.stop()
