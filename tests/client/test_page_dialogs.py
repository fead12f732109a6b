"""Every confirmation is asked in the page's own dialog (client-web/src/confirm.js), never
the browser's ``confirm``, ``alert`` or ``prompt``: those speak the browser's language, not
the page's, block the page's script while open (deltas stop being drawn), cannot be styled
or reached by the page's focus handling, and a browser may suppress them altogether."""

from __future__ import annotations

import re
from pathlib import Path

from tests.client.conftest import CLIENT

# A call of one of the browser's own dialogs, bare or through a global object; a method of
# the page's own (``conn.prompt(…)``) or a name containing one (``confirmDialog(``) is not.
BROWSER_DIALOG = re.compile(
    r"(?<![\w$.])(?:(?:window|globalThis|self|top|parent)\s*\.\s*)?(?:confirm|alert|prompt)\s*\(")
# ... and one reached by its name as a string (``window["confirm"](…)``).
BY_NAME = re.compile(r"""\[\s*["'`](?:confirm|alert|prompt)["'`]\s*\]""")


def offenders(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [f"{path.name}: …{text[max(0, m.start() - 40):m.end() + 20]}…"
            for rx in (BROWSER_DIALOG, BY_NAME) for m in rx.finditer(text)]


def test_the_pattern_finds_each_form_of_call(tmp_path: Path) -> None:
    sample = tmp_path / "sample.js"
    sample.write_text('if (!window.confirm(x)) return; alert ("no"); r=self.prompt(q);'
                      'window["confirm"](y); conn.prompt(z); confirmDialog(q); role: "alert"')
    assert len(offenders(sample)) == 4


def test_no_browser_dialog_in_the_client_sources() -> None:
    sources = sorted(CLIENT.joinpath("src").rglob("*.js"))
    assert sources
    assert [o for p in sources for o in offenders(p)] == []


def test_no_browser_dialog_in_the_built_bundle(client_dist: Path) -> None:
    bundle = client_dist / "app.js"
    assert [o for o in offenders(bundle)] == []
