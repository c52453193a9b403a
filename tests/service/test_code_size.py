"""The house rule on size, over every module of ``service/``: no class is longer than
300 lines and no file longer than 600 (read with ``ast``: a class runs from its first
decorator to its last line)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"
MAX_CLASS_LINES = 300
MAX_FILE_LINES = 600
MODULES = sorted(SERVICE.rglob("*.py"))


def class_lengths(source: str, name: str) -> dict[str, int]:
    """Each class of ``source`` (nested ones too, by qualified name) -> its lines."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                last = child.end_lineno or child.lineno
                found[prefix + child.name] = last - first + 1
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source, name), "")
    return found


def test_the_modules_are_found() -> None:
    assert SERVICE / "sessions" / "manager.py" in MODULES and len(MODULES) > 20


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_file_is_over_600_lines_and_no_class_over_300(path: Path) -> None:
    source = path.read_text()
    lines = len(source.splitlines())
    assert lines <= MAX_FILE_LINES, f"{path.name} has {lines} lines: split it by job"
    long = {c: n for c, n in class_lengths(source, str(path)).items() if n > MAX_CLASS_LINES}
    assert not long, f"classes over {MAX_CLASS_LINES} lines: {long}"


def test_the_measure_counts_a_class_from_its_decorators_to_its_end() -> None:
    source = "@dataclass\nclass A:\n    x: int\n\n    class B:\n        y: int\n"
    assert class_lengths(source, "a.py") == {"A": 6, "A.B": 2}
