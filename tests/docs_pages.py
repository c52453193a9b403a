"""The documentation's Markdown: ``README.md`` and the pages under ``docs/`` (the
documentation site's sources). Tests that hold a page to what the code does read the
page through here, so a page that moves breaks one place."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def markdown_files() -> list[Path]:
    """The README and every page under ``docs/``."""
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def page(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def shell_blocks() -> list[str]:
    """Every ```` ```sh ```` block of the README and the pages."""
    return [
        block
        for path in markdown_files()
        for block in re.findall(r"```sh\n(.*?)```", path.read_text(encoding="utf-8"), re.S)
    ]
