"""The variant registry: every module of ``engine.variants`` holds one class of its one
list, ``BUILTIN``; a missing module stops the engine from loading instead of being
skipped; an id listed twice is refused."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import engine
import engine.variants
from engine.registry import VARIANTS, index
from engine.variants import Classic


def test_every_module_of_the_package_holds_one_listed_variant() -> None:
    engine.all_variants()
    on_disk = {m.name for m in pkgutil.iter_modules(engine.variants.__path__)}
    listed = [cls.__module__.rsplit(".", 1)[1] for cls in engine.variants.BUILTIN]
    assert sorted(listed) == sorted(on_disk)
    by_module = sorted(type(v).__module__.rsplit(".", 1)[1] for v in VARIANTS.values())
    assert by_module == sorted(on_disk)


def test_an_id_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'uno_classic' listed twice"):
        index((Classic, Classic))


def test_no_variant_module_imports_the_registry() -> None:
    """The registry imports the variants, never the reverse (no import circle)."""
    for path in Path(engine.variants.__file__).parent.glob("*.py"):
        imported = {
            node.module or ""
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom)
        } | {
            alias.name
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert not {m for m in imported if m.rsplit(".", 1)[-1] == "registry"}, path


@pytest.mark.parametrize("hidden", ["flip", "dos"])
def test_a_missing_variant_module_is_an_import_error(hidden: str) -> None:
    """As if the module file were deleted: the first variant lookup fails loudly."""
    script = textwrap.dedent(
        f"""
        import importlib.abc, sys

        class Hide(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "engine.variants.{hidden}":
                    raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
                return None

        sys.meta_path.insert(0, Hide())
        import engine
        try:
            engine.all_variants()
        except ImportError as exc:
            print("ImportError", "{hidden}" in str(exc))
        else:
            print("loaded", len(engine.all_variants()))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out[:2] == ["ImportError", "True"], out
