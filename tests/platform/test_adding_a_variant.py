"""docs/ADDING-A-VARIANT.md's count holds: a sample variant (UNO All Wild under another
id, a tiny module plus the minimum edits) is added to a scratch copy of the repository;
the generators (``make spec``'s) and the declaration checks run there, and the files
the sample touched by hand, and those the generators rewrote, are exactly the guide's
two tables."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "ADDING-A-VARIANT.md"
NAME, ID, TITLE = "all_wild_twin", "uno_all_wild_twin", "UNO All Wild Twin"
#: What a scratch copy leaves out of the comparison (caches the runs write).
CACHES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules"}

MODULE = f'''"""{TITLE} (``{ID}``): UNO All Wild under another id, the sample of
docs/ADDING-A-VARIANT.md."""

from .all_wild import AllWild


class AllWildTwin(AllWild):
    id = "{ID}"
    title = "{TITLE}"
'''
RULE_TESTS = f'''"""{TITLE}: the rules of UNO All Wild."""

import engine


def test_it_plays_uno_all_wild_under_its_own_id() -> None:
    state, _ = engine.start("{ID}", 3, 5)
    assert state.variant == "{ID}" and len(state.hands) == 3
'''
#: file -> (text to find, what it becomes): the minimum edits.
EDITS = {
    "engine/variants/__init__.py": [
        (
            "from .all_wild import AllWild\n",
            "from .all_wild import AllWild\nfrom .all_wild_twin import AllWildTwin\n",
        ),
        ("AllWild)", "AllWild, AllWildTwin)"),
    ],
    "engine/bots/variants.py": [
        (
            "\n\nclass Bot(NamedTuple):",
            f'\n\nclass TwinKnowledge(AllWildKnowledge):\n    variant_id = "{ID}"\n\n\n'
            "class Bot(NamedTuple):",
        ),
        (
            "    (AllWildKnowledge, AllWildPolicy),\n",
            "    (AllWildKnowledge, AllWildPolicy),\n    (TwinKnowledge, AllWildPolicy),\n",
        ),
    ],
    "README.md": [
        (
            "[UNO All Wild](docs/rules/uno_all_wild.md)",
            f"[UNO All Wild](docs/rules/uno_all_wild.md), [{TITLE}](docs/rules/{ID}.md)",
        )
    ],
    "docs/index.md": [
        (
            "[UNO All Wild](rules/uno_all_wild.md)",
            f"[UNO All Wild](rules/uno_all_wild.md), [{TITLE}](rules/{ID}.md)",
        )
    ],
    "mkdocs.yml": [
        (
            "      - UNO All Wild: rules/uno_all_wild.md\n",
            f"      - UNO All Wild: rules/uno_all_wild.md\n      - {TITLE}: rules/{ID}.md\n",
        )
    ],
}


#: Checks the scratch copy leaves out: random games of every variant (minutes; the
#: declaration checks play the sample's), and one that asks git (the copy has none).
LEFT_OUT = ("test_every_event_type_the_engine_emits", "test_no_tracked_file_points_outside")


def table_paths(heading: str, nth: int) -> set[str]:
    """The first column's paths of the ``nth`` table under ``heading`` in the guide,
    with the sample's ``<name>`` and ``<id>``."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    tables = re.findall(r"((?:^\|.*\|\n)+)", section, re.M)
    rows = tables[nth].splitlines()[2:]
    cells = [re.fullmatch(r"\| `([^`]+)` \|.*", row) for row in rows]
    assert all(cells), rows
    return {c[1].replace("<name>", NAME).replace("<id>", ID) for c in cells if c}


def stated_count() -> int:
    found = re.search(r"touches\s+\*\*(\d+) files\*\*", GUIDE.read_text(encoding="utf-8"))
    assert found, "the guide states its count as **N files**"
    return int(found[1])


def digests(root: Path) -> dict[str, str]:
    out = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if path.is_file() and not CACHES & set(rel.parts):
            out[rel.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def scratch_copy(into: Path) -> Path:
    """The repository's files as they are now (a work tree's edits and new files too,
    nothing git ignores), and its node tools (redocly bundles the spec), linked."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode()  # fmt: skip
    copy = into / "repo"
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / rel)
    modules = ROOT / "clients" / "typescript" / "node_modules"
    assert modules.is_dir(), "run make node-tools"
    (copy / "clients" / "typescript" / "node_modules").symlink_to(modules)
    return copy


def add_the_sample(copy: Path) -> set[str]:
    """The sample's files and edits; the files it touched."""
    doc = (copy / "docs/rules/uno_all_wild.md").read_text(encoding="utf-8")
    doc = doc.replace("uno_all_wild", ID).replace("# UNO All Wild\n", f"# {TITLE}\n", 1)
    written = {
        f"engine/variants/{NAME}.py": MODULE,
        f"tests/engine/rules/test_{NAME}.py": RULE_TESTS,
        f"docs/rules/{ID}.md": doc,
    }
    for rel, text in written.items():
        (copy / rel).write_text(text, encoding="utf-8")
    for rel, edits in EDITS.items():
        text = (copy / rel).read_text(encoding="utf-8")
        for anchor, becomes in edits:
            assert text.count(anchor) == 1, f"{rel}: {anchor!r} is not where it was"
            text = text.replace(anchor, becomes)
        (copy / rel).write_text(text, encoding="utf-8")
    return set(written) | set(EDITS)


def run(copy: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    done = subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True,
        timeout=1200, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{args}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"


def test_the_guide_states_its_count() -> None:
    assert stated_count() == len(table_paths("Places a new variant touches", 0))


@pytest.mark.slow
def test_a_sample_variant_touches_the_files_the_guide_counts(tmp_path: Path) -> None:
    copy = scratch_copy(tmp_path)
    before = digests(copy)
    touched = add_the_sample(copy)
    for tool in ("gen_spec_enums", "gen_spec_unions", "bundle_spec"):
        run(copy, "-m", f"tools.{tool}")
    run(
        copy, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
        "tests/engine/paths/test_registry.py", "tests/engine/rules/test_declarations.py",
        "tests/engine/rules/test_rules_docs.py", "tests/engine/rules/test_rules_examples.py",
        "tests/contract/test_spec_agrees.py",
        f"tests/engine/rules/test_{NAME}.py",
        "tests/engine/bots/test_bots.py::test_every_variant_has_its_bot_knowledge",
        "tests/engine/bots/test_hard_policy.py::test_every_variant_has_its_bots_and_an_unknown_one_fails",
        "-k", f"not {' and not '.join(LEFT_OUT)}",
    )  # fmt: skip
    after = digests(copy)
    changed = {rel for rel in after if before.get(rel) != after[rel]}
    assert set(before) <= set(after), "a file went missing"
    assert touched == table_paths("Places a new variant touches", 0)
    assert len(touched) == stated_count()
    assert changed - touched == table_paths("Places a new variant touches", 1)
