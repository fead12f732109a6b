"""The layout holds its boundaries (docs/architecture.md): read from the code's imports.

- ``engine/`` imports nothing of the server, the CLI, the benchmarks or the tests; the
  server nothing of the CLI, the benchmarks or the tests;
- no import cycle among the server's modules, the engine's or the benchmarks', and no
  import inside a function of the server that could have been at the top (type-only
  imports under ``TYPE_CHECKING`` are not imports at run time);
- ``server/`` keeps at most a dozen modules at its top, the rest in one subpackage per
  concept, and no module of the server, the engine or the benchmarks is longer than 600
  lines;
- ``protocol/`` (the one client of the wire) imports nothing of the project, and neither
  the engine nor the server imports it; no module of the tests or the benchmarks but
  ``protocol/`` imports ``websockets`` or defines its own ``pack``, ``unpack`` or
  ``Lobby``;
- only ``engine/envs/`` imports the machine-learning libraries (the ``ml`` extra), and
  nothing of the engine, the server, the CLI or the protocol package imports it.
"""

from __future__ import annotations

import ast
import gc
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "server", "cli", "bench", "tests", "protocol")
CLIENT_NAMES = ("pack", "unpack", "Lobby")
MAX_LINES = 600
MAX_TOP_MODULES = 12


@pytest.fixture(autouse=True)
def earlier_garbage_collected() -> None:
    """Collect what earlier tests left before parsing: a finalizer that a collection runs
    inside ``ast.parse`` and that formats a traceback (asyncio's "Task exception was never
    retrieved") parses again inside it, and CPython 3.11.7 then fails the outer parse with
    ``SystemError: AST constructor recursion depth mismatch``."""
    gc.collect()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "node_modules" not in p.parts)


def _type_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(path: Path) -> list[tuple[str, bool]]:
    """The project modules ``path`` imports at run time, each with whether the import
    stands inside a function."""
    tree = ast.parse(path.read_text(), str(path))
    out: list[tuple[str, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_only(child):
                for other in child.orelse:
                    visit(other, in_function)
                continue
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                out.extend((a.name, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                base = child.module
                # ``from server.http import lobby`` imports the module server.http.lobby.
                for alias in child.names:
                    sub = f"{base}.{alias.name}"
                    found = (ROOT / Path(*sub.split("."))).with_suffix(".py").is_file() or (
                        ROOT / Path(*sub.split(".")) / "__init__.py").is_file()
                    out.append((sub if found else base, in_function))
            visit(child, inner)

    visit(tree, False)
    return [(name, local) for name, local in out if name.split(".")[0] in PACKAGES]


ML_LIBRARIES = ("numpy", "gymnasium", "pettingzoo", "pyspiel", "open_spiel")
"""The ``ml`` extra of pyproject.toml: the service runs without it."""


def every_import(path: Path) -> list[str]:
    """Every module ``path`` imports, at any depth, type-only ones too (``from a import
    b`` counts as ``a`` and ``a.b``)."""
    out: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return out


def test_only_the_ml_adapters_import_the_ml_libraries() -> None:
    wrong = [(module_name(p), name)
             for package in ("engine", "server", "cli", "protocol") for p in sources(package)
             if not module_name(p).startswith("engine.envs")
             for name in every_import(p)
             if name.split(".")[0] in ML_LIBRARIES or name.startswith("engine.envs")]
    assert wrong == []
    adapters = {name.split(".")[0] for p in sources("engine/envs") for name in every_import(p)}
    assert {"numpy", "pettingzoo", "pyspiel"} <= adapters  # the rule sees their imports


@pytest.mark.parametrize(("package", "forbidden"), [
    ("engine", ("server", "cli", "bench", "tests")),
    ("server", ("cli", "bench", "tests", "protocol")),
    ("engine", ("protocol",)),
    ("protocol", ("engine", "server", "cli", "bench", "tests")),
])
def test_a_layer_imports_nothing_above_it(package: str, forbidden: tuple[str, ...]) -> None:
    wrong = [(module_name(p), name) for p in sources(package) for name, _ in imports(p)
             if name.split(".")[0] in forbidden]
    assert wrong == []


def test_the_server_imports_at_the_top_of_its_modules() -> None:
    local = [(module_name(p), name) for p in sources("server") for name, inside in imports(p)
             if inside]
    assert local == []


@pytest.mark.parametrize("package", ["server", "engine", "bench", "protocol"])
def test_no_import_cycle_among_the_modules(package: str) -> None:
    # (The engine still imports inside two functions where a module-level import would
    # close a cycle: engine/bots/registry.py and engine/loot_island/observation.py.)
    graph = {module_name(p): {n for n, inside in imports(p)
                              if n.startswith(package) and not inside}
             for p in sources(package)}
    # A package's module importing it also runs its __init__, which holds no imports here.
    done: set[str] = set()
    cycles: list[list[str]] = []

    def walk(node: str, path: list[str]) -> None:
        if node in path:
            cycles.append([*path[path.index(node):], node])
            return
        if node in done:
            return
        for nxt in sorted(graph.get(node, ())):
            walk(nxt, [*path, node])
        done.add(node)

    for node in sorted(graph):
        walk(node, [])
    assert cycles == []


def test_the_server_is_grouped_by_concept() -> None:
    top = sorted(p.name for p in (ROOT / "server").glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, top
    packages = sorted(p.name for p in (ROOT / "server").iterdir()
                      if (p / "__init__.py").is_file())
    assert packages == ["accounts", "admin", "bots", "fanout", "http", "pairing", "play",
                        "store", "table", "tournaments", "ws"]


@pytest.mark.parametrize("package", ["server", "engine", "bench", "protocol"])
def test_every_module_reads_in_one_sitting(package: str) -> None:
    long = {module_name(p): n for p in sources(package)
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def speaks_the_wire_itself(path: Path) -> list[str]:
    """What makes ``path`` a client of its own: an import of the ``websockets`` library (at
    any depth, type-only too), or a function or class of its own named ``pack``,
    ``unpack`` or ``Lobby`` (at any depth)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names
                      if a.name.split(".")[0] == "websockets"]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                node.module.split(".")[0] == "websockets"):
            found.append(f"from {node.module} import")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and (
                node.name in CLIENT_NAMES):
            found.append(f"defines {node.name}")
    return found


SERVER_SIDE = {"tests.server.test_lean_socket"}
"""Tests of the server's own websocket parser (websockets' ``ServerProtocol``, sans I/O):
the server side of the wire, not a client."""


@pytest.mark.parametrize("package", ["tests", "bench"])
def test_the_wire_is_spoken_through_the_protocol_package(package: str) -> None:
    """Every websocket and HTTP client of the tests and the benchmarks is ``protocol/``'s
    (a raw TCP socket for malformed bytes below the websocket layer is not a client)."""
    own = {name: found for p in sources(package)
           if (found := speaks_the_wire_itself(p)) and (name := module_name(p)) not in SERVER_SIDE}
    assert own == {}


def test_the_wire_rule_sees_a_client_of_its_own(tmp_path: Path) -> None:
    """The rule above fails on each thing it forbids."""
    for text in ("import websockets\n", "from websockets.sync.client import connect\n",
                 "def pack(m):\n    return m\n", "class Lobby:\n    pass\n",
                 "def f():\n    from websockets.exceptions import ConnectionClosed\n"):
        path = tmp_path / "m.py"
        path.write_text(text)
        assert speaks_the_wire_itself(path), text
    path.write_text("from protocol.frames import pack, unpack\nfrom protocol import Lobby\n")
    assert speaks_the_wire_itself(path) == []
