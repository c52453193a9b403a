"""The command line of a generated file of the spec (``make spec``): write it, or with
``--check`` only say whether the committed copy is stale (exit 1)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from tools.code_scan import ROOT


def generate(target: Path, render: Callable[[], str], doc: str, argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        stale = target.read_text() != text
        print(f"{target.name} is stale: run `make spec`" if stale else f"{target.name} is current")
        return int(stale)
    target.write_text(text)
    print(f"wrote {target.relative_to(ROOT)}")
    return 0
