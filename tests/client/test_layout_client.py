"""The web client's seam between its shell and its games (docs/games.md), read from the
sources, no browser needed:

- every registered game (``engine.GAMES``) has its folder ``client-web/src/games/<package>/``
  (its engine package's name) with its module ``game.js`` and its refusal texts
  ``errors.js``, and the registry ``games/index.js`` imports that module and lists the game;
- no module outside ``client-web/src/games/`` names a registered game (its name, its engine
  package or its title): the shell learns the games from the registry and the server;
- a game's modules import only the shell's modules and their own folder's, never another
  game's; the shell reaches a game only through the registry.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import GAMES
from tests.conftest import ROOT

SRC = ROOT / "client-web" / "src"
GAMES_DIR = SRC / "games"
REGISTRY = GAMES_DIR / "index.js"

PACKAGES = {name: type(game).__module__.split(".")[1] for name, game in GAMES.items()}
"""Each registered game's engine package: its client folder's name."""

ALLOWED = {
    # The localStorage prefix of browsers from before the service was called Cardtable
    # (it was named after its first game); store.js moves those entries to the new prefix.
    "store.js": ['"einauge."'],
}
"""Exact strings a shell module may hold although they read like a game's name."""

IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\b[^'"]*?\bfrom\s*["']([^"']+)["']"""
                    r"""|(?:^|\n)\s*import\s*["']([^"']+)["']""")
"""An ES module's static imports (``import … from "x"``, ``export … from "x"``, ``import "x"``)."""


def shell_files() -> list[Path]:
    return sorted(p for p in SRC.rglob("*") if p.is_file() and p.suffix in {".js", ".css", ".html"}
                  and GAMES_DIR not in p.parents)


def game_words() -> dict[str, re.Pattern[str]]:
    """Per registered game the words that name it: its name, package and title, with
    ``-``, ``_`` and a space taken as the same, case-insensitive, as whole words."""
    out = {}
    for name, game in GAMES.items():
        words = {name, PACKAGES[name], getattr(game, "title", "") or ""}
        alts = sorted({"[-_ ]".join(re.escape(part) for part in re.split(r"[-_ ]", w))
                       for w in words if w}, key=len, reverse=True)
        out[name] = re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(alts) + r")(?![A-Za-z0-9])", re.I)
    return out


def imports(path: Path) -> list[Path]:
    """The files ``path`` imports by a relative path (bare package imports are left out)."""
    found = []
    for m in IMPORT.finditer(path.read_text()):
        spec = m.group(1) or m.group(2)
        if spec.startswith("."):
            found.append((path.parent / spec).resolve())
    return found


def test_the_registries_name_the_same_games() -> None:
    text = REGISTRY.read_text()
    for name, package in PACKAGES.items():
        assert f'"./{package}/game.js"' in text, f"games/index.js does not import {package}/game.js"
        assert re.search(rf"""(?<![\w-])["']?{re.escape(name)}["']?\s*[:,}}]""", text), \
            f"games/index.js does not list {name}"


@pytest.mark.parametrize("game", sorted(PACKAGES))
def test_every_game_has_its_folder_and_module(game: str) -> None:
    folder = GAMES_DIR / PACKAGES[game]
    assert folder.is_dir(), f"{game}: no folder {folder.relative_to(ROOT)}"
    for module in ("game.js", "errors.js"):
        assert (folder / module).is_file(), f"{game}: no {module} in {folder.relative_to(ROOT)}"


def test_games_holds_the_registry_and_a_folder_per_game() -> None:
    loose = sorted(p.name for p in GAMES_DIR.iterdir() if p.is_file() and p.name != "index.js")
    assert loose == [], f"a game's files belong in its folder: {loose}"
    folders = {p.name for p in GAMES_DIR.iterdir() if p.is_dir()}
    assert folders == set(PACKAGES.values()), folders ^ set(PACKAGES.values())


def test_no_shell_module_names_a_game() -> None:
    words = game_words()
    found = []
    for path in shell_files():
        rel = path.relative_to(SRC).as_posix()
        text = path.read_text()
        for allowed in ALLOWED.get(rel, []):
            assert allowed in text, f"{rel}: {allowed} is allowed but no longer there"
            text = text.replace(allowed, "")
        for lineno, line in enumerate(text.splitlines(), 1):
            found += [f"{rel}:{lineno}: {name}" for name, word in words.items()
                      if word.search(line)]
    assert found == [], "\n".join(found)


def test_a_game_imports_only_the_shell_and_its_own_folder() -> None:
    bad = []
    for package in PACKAGES.values():
        folder = (GAMES_DIR / package).resolve()
        for path in sorted(folder.rglob("*.js")):
            for target in imports(path):
                inside_own = folder in target.parents
                shell = GAMES_DIR.resolve() not in target.parents and target != REGISTRY.resolve()
                if not (inside_own or shell):
                    bad.append(f"{path.relative_to(SRC)} imports "
                               f"{target.relative_to(SRC.resolve())}")
    assert bad == [], "\n".join(bad)


def test_the_shell_reaches_a_game_only_through_the_registry() -> None:
    bad = []
    for path in shell_files():
        if path.suffix != ".js":
            continue
        for target in imports(path):
            if GAMES_DIR.resolve() in target.parents and target != REGISTRY.resolve():
                bad.append(f"{path.relative_to(SRC)} imports {target.relative_to(SRC.resolve())}")
    assert bad == [], "\n".join(bad)
