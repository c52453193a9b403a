"""The variant registry: every built-in module is imported by name and registers one
variant; a missing module stops the engine from loading instead of being skipped."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import textwrap

import pytest

import engine
import engine.variants
from engine.registry import VARIANTS


def test_every_module_of_the_package_is_a_builtin_and_registers_one_variant() -> None:
    engine.all_variants()
    on_disk = {m.name for m in pkgutil.iter_modules(engine.variants.__path__)}
    imported = {m.__name__.rsplit(".", 1)[1] for m in engine.variants.BUILTIN}
    assert imported == on_disk
    by_module = sorted(type(v).__module__.rsplit(".", 1)[1] for v in VARIANTS.values())
    assert by_module == sorted(on_disk)


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
