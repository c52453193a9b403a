"""The variant registry: every built-in module is imported by name and registers one
variant; a missing module stops the engine from loading instead of being skipped."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap

import pytest

import engine
import engine.variants
from engine.facts import MAX_INSTANCE_ATTRIBUTES
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


#: Run in a fresh interpreter (reading ``vars()`` of an instance would itself turn its
#: attributes into a dict for the rest of a test session): plain objects of
#: ``MAX_INSTANCE_ATTRIBUTES`` attributes and of one more, and every variant with every
#: lazily made attribute made (each ``facts.cached`` or ``functools.cached_property`` of
#: its classes) and some moves played; for each, the opcode a warmed-up attribute read
#: specializes to, and the variant's attributes.
_COMPACT_PROBE = textwrap.dedent(
    r"""
    import dis, functools, json, random
    import engine
    from engine.facts import MAX_INSTANCE_ATTRIBUTES as MAX, cached

    def read_op(obj):
        ns = {}
        exec("def read(v):\n    return v.catalog\n", ns)  # a fresh code object each
        for _ in range(100):
            ns["read"](obj)
        ops = [i.opname for i in dis.get_instructions(ns["read"], adaptive=True)]
        return [op for op in ops if op.startswith("LOAD_ATTR")]

    class Plain:
        pass

    limit = {}
    for count in (MAX, MAX + 1):
        obj = Plain()
        obj.catalog = None
        for i in range(count - 1):
            setattr(obj, f"a{i}", i)
        limit[count] = read_op(obj)
    out = {"limit": limit, "variants": {}}
    for v in engine.all_variants():
        for cls in type(v).__mro__:
            for name, attr in vars(cls).items():
                if isinstance(attr, (cached, functools.cached_property)):
                    getattr(v, name)
        rnd = random.Random(v.id)
        state, _ = v.new_game(v.min_players, 7)
        for _ in range(300):
            if state.phase is engine.Phase.GAME_OVER:
                break
            seat = v.waiting_for(state)
            legal = v.legal_moves(state, seat)
            v.view(state, seat)
            v.score(state)
            v.forced_move(state, seat)
            engine.from_dict(engine.to_dict(state))
            state, _ = v.apply(state, v.encode_move(state, rnd.choice(legal)))
        out["variants"][v.id] = {"ops": read_op(v), "attributes": sorted(vars(v))}
    print(json.dumps(out))
    """
)


@pytest.mark.skipif(
    sys.implementation.name != "cpython", reason="CPython's attribute specialization"
)
def test_every_variant_instance_keeps_compact_attribute_storage() -> None:
    """``engine.facts.MAX_INSTANCE_ATTRIBUTES``: a variant's attributes are read in every
    move; they stay in CPython's compact per-instance storage (an attribute read then
    specializes to ``LOAD_ATTR_INSTANCE_VALUE``, not the dict lookup
    ``LOAD_ATTR_WITH_HINT``) only while nothing reads the instance's ``__dict__`` and the
    instance holds at most that many attributes, all made."""
    done = subprocess.run(
        [sys.executable, "-c", _COMPACT_PROBE], capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout)
    # The limit is this interpreter's: one attribute more and they are a dict.
    assert found["limit"] == {
        str(MAX_INSTANCE_ATTRIBUTES): ["LOAD_ATTR_INSTANCE_VALUE"],
        str(MAX_INSTANCE_ATTRIBUTES + 1): ["LOAD_ATTR_WITH_HINT"],
    }
    assert sorted(found["variants"]) == sorted(v.id for v in engine.all_variants())
    for vid, row in found["variants"].items():
        assert row["ops"] == ["LOAD_ATTR_INSTANCE_VALUE"], (vid, row["ops"])
        assert len(row["attributes"]) <= MAX_INSTANCE_ATTRIBUTES, (vid, row["attributes"])
        assert "catalog" in row["attributes"]
