"""The shell examples of the README (its five calls), the API guide and Sessions and
multiplayer, run as a reader runs them: each page's examples pasted in order into one
fresh shell (``bash`` with ``set -euo pipefail``, so a variable used before it is set
fails), against the service on a live server (the page's ``localhost:8000`` is its
address), from a fresh folder holding the project's ``.venv``.

A page's calls may answer an error only where the page shows one on purpose (the API
guide's errors, the lost seats of the sessions page): every other problem, even one a
``jq`` would hide, fails the test. Blocks that install tools (``pip install``, ``npx``)
or only start the service (``make``) are not run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.docs_pages import DOCS, ROOT
from tests.platform.browser import serve
from tests.platform.conftest import MakeApp

#: Each page, and the error statuses its examples show on purpose.
PAGES = {
    ROOT / "README.md": set(),
    DOCS / "api.md": {400, 422},
    DOCS / "sessions.md": {401},
}
SKIP = re.compile(r"pip install|npx |^make ", re.M)


def runnable_blocks(page: Path) -> list[str]:
    """The page's ``sh`` blocks that call the API, in order."""
    blocks = re.findall(r"```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    return [b for b in blocks if "curl" in b and not SKIP.search(b)]


class Statuses:
    """WSGI middleware: every answer's status and path."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[tuple[int, str]] = []

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: Any, *rest: Any) -> Any:
            self.seen.append((int(status.split()[0]), environ.get("PATH_INFO", "")))
            return start_response(status, headers, *rest)

        return self.app(environ, start)


@pytest.fixture
def served(make_app: MakeApp) -> Iterator[tuple[str, Statuses]]:
    app = make_app(LOG_LEVEL="warning")
    statuses = Statuses(app.wsgi_app)
    app.wsgi_app = statuses  # type: ignore[method-assign]
    try:
        with serve(app) as url:
            yield url, statuses
    finally:
        app.extensions["sessions"].store.close()


def run_page(page: Path, url: str, folder: Path) -> str:
    """The page's examples in one fresh shell in ``folder``: what they printed."""
    (folder / ".venv").symlink_to(Path(sys.executable).parent.parent)
    script = "set -euo pipefail\n" + "\n".join(runnable_blocks(page))
    script = script.replace("http://localhost:8000", url).replace("localhost:8000", url)
    env = {k: v for k, v in os.environ.items() if k not in {"API", "J", "SID", "TOK"}}
    env["PYTHONPATH"] = str(ROOT)  # .venv/bin/python runs this checkout's engine
    run = subprocess.run(
        ["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, f"{page.name} failed:\n{run.stdout}\n{run.stderr}"
    return run.stdout


@pytest.mark.parametrize("page", list(PAGES), ids=lambda p: p.name)
def test_a_pages_examples_run_in_order_from_a_fresh_shell(
    page: Path, served: tuple[str, Statuses], tmp_path: Path
) -> None:
    url, statuses = served
    assert runnable_blocks(page), f"{page.name} has no example to run"
    out = run_page(page, url, tmp_path)
    wrong = [(s, p) for s, p in statuses.seen if s >= 400 and s not in PAGES[page]]
    assert not wrong, f"{page.name}: calls that failed: {wrong}\n{out}"
    if page.name == "sessions.md":
        # The seed hashes to the commitment the first answer showed.
        lines = out.splitlines()
        digest = next(i for i, line in enumerate(lines) if line.endswith("  -"))
        assert lines[digest].split()[0] == lines[digest + 1]
        assert '"code":"seat_taken_by_bot"' in out and '"code":"seat_left"' in out
        assert '"events":["seat_returned"],"bots":[false,false]' in out  # the seat taken back
        assert '"previous_session_id"' in out and '"status":"playing"' in out
        assert sum(1 for s, _ in statuses.seen if s == 401) == 2  # the two lost seats only
        # Quick match: four phones at one table, dealt, no bot; a phone alone gets bots.
        assert '{"status":"playing","bots":[false,false,false,false],"dealt":true}' in out
        assert '{"status":"matched","seat":0,"token":true}' in out
        assert '{"status":"playing","bots":[false,true,true]}' in out
    if page.name == "api.md":
        assert "\nverified: uno_classic" in out  # the offline replay of the record
