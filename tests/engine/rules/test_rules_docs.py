"""The rules documents (``docs/rules/<variant>.md``): one per registered variant, every
required section in order, every move type, pending decision and option of the variant
named, move JSON that parses, relative links that resolve; and no tracked file of the
project points outside it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

import engine
from engine import MoveType
from engine.docs import RULES_DIR, rules_path
from tests.support import spec_document

ROOT = Path(__file__).resolve().parents[3]

#: The sections every document has, in this order (after the "# <game>" title and a
#: summary paragraph).
SECTIONS = (
    "Components",
    "Set-up",
    "A turn",
    "Decisions and their moves",
    "Special cases",
    "Scoring and the end of the game",
    "Options",
    "Worked examples",
)

VARIANTS = engine.all_variants()


def variant_param(variant: engine.Variant) -> object:
    return pytest.param(variant, id=variant.id)


PARAMS = [variant_param(v) for v in VARIANTS]


def text_of(variant: engine.Variant) -> str:
    path = rules_path(variant.id)
    assert path.is_file(), f"no rules document {path.relative_to(ROOT)} for {variant.id}"
    return path.read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """Second-level heading -> its body (up to the next second-level heading)."""
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def inline_code(text: str) -> list[str]:
    """Every inline code span (single backticks; a span may wrap onto the next line)."""
    return [" ".join(s.split()) for s in re.findall(r"(?<!`)`([^`]+)`(?!`)", text)]


@pytest.mark.parametrize("variant", PARAMS)
def test_a_document_starts_with_the_game_and_a_summary(variant: engine.Variant) -> None:
    text = text_of(variant)
    title, _, rest = text.partition("\n")
    assert re.fullmatch(r"# \S.*", title), title
    summary = rest.split("\n## ", 1)[0].strip()
    assert len(summary.split()) >= 20, "a summary paragraph follows the title"


@pytest.mark.parametrize("variant", PARAMS)
def test_every_required_section_is_there_in_order(variant: engine.Variant) -> None:
    headings = list(sections(text_of(variant)))
    found = [h for h in headings if h in SECTIONS]
    assert found == list(SECTIONS), headings
    assert all(sections(text_of(variant))[h].strip() for h in SECTIONS), "a section is empty"


@pytest.mark.parametrize("variant", PARAMS)
def test_every_move_type_is_shown_as_move_json(variant: engine.Variant) -> None:
    codes = inline_code(text_of(variant))
    for mtype in sorted(variant.move_types):
        start = '{"type": "' + mtype.value + '"'
        shown = [c for c in codes if c.startswith((start + ",", start + "}"))]
        assert shown, f"no move JSON for {mtype.value!r} in docs/rules/{variant.id}.md"


@pytest.mark.parametrize("variant", PARAMS)
def test_every_pending_decision_is_named(variant: engine.Variant) -> None:
    codes = set(inline_code(text_of(variant)))
    missing = sorted(p for p in variant.pending_moves if p not in codes)
    assert not missing, f"pending types not named in docs/rules/{variant.id}.md: {missing}"


@pytest.mark.parametrize("variant", PARAMS)
def test_every_option_is_in_the_options_section(variant: engine.Variant) -> None:
    options = set(inline_code(sections(text_of(variant)).get("Options", "")))
    missing = sorted(name for name in variant.options if name not in options)
    assert not missing, f"options not described in docs/rules/{variant.id}.md: {missing}"


@pytest.mark.parametrize("variant", PARAMS)
def test_move_json_in_a_document_parses_and_belongs_to_the_game(variant: engine.Variant) -> None:
    """Every inline ``{"type": ...}`` is JSON; one naming a move type (and not the
    variant's pending decision of the same name) is a move of this game."""
    moves = {t.value for t in MoveType}
    for code in inline_code(text_of(variant)):
        if not code.startswith('{"type"'):
            continue
        value = json.loads(code)  # a typo in a document fails here
        kind = value["type"]
        if kind in moves and kind not in variant.pending_moves:
            move = engine.Move.from_dict(value)
            assert move.type in variant.move_types, f"{code}: not a move of {variant.id}"


@pytest.mark.parametrize("variant", PARAMS)
def test_relative_links_point_to_files_of_the_repository(variant: engine.Variant) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", text_of(variant)):
        if re.match(r"[a-z]+:|/|#", target):
            continue
        path = (RULES_DIR / target.split("#")[0]).resolve()
        assert path.is_file(), f"docs/rules/{variant.id}.md links to a missing {target}"


def test_every_document_is_a_registered_variant() -> None:
    ids = {v.id for v in VARIANTS}
    strays = sorted(p.stem for p in RULES_DIR.glob("*.md") if p.stem not in ids)
    assert not strays, f"rules documents without a variant: {strays}"


def test_the_readme_links_every_document() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    links = set(re.findall(r"\]\((docs/rules/[^)\s]+)\)", readme))
    assert links >= {f"docs/rules/{v.id}.md" for v in VARIANTS}


def test_the_spec_describes_rules_url_and_the_rules_pages() -> None:
    spec = spec_document()
    summary = spec["components"]["schemas"]["VariantSummary"]
    assert "rules_url" in summary["properties"] and "rules_url" in summary["required"]
    assert {"/docs/rules", "/docs/rules/{variant}"} <= set(spec["paths"])
    assert "/docs/rules" in spec["info"]["description"]


# ---------------------------------------------------------------- no outside paths
#: Spelled in pieces so this file does not contain what it looks for.
OUTSIDE = ("." + "./shared", "/" + "work/")


def tracked_files() -> list[Path]:
    done = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    )
    return [ROOT / name for name in done.stdout.decode().split("\0") if name]


def test_no_tracked_file_points_outside_the_project() -> None:
    files = tracked_files()
    assert any(f.name == "README.md" for f in files)
    offenders = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files; a deletion not yet committed
        for needle in OUTSIDE:
            for n, line in enumerate(text.splitlines(), 1):
                if needle in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}")
    assert not offenders, "\n".join(offenders)
