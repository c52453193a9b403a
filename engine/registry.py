"""The variant registry: one instance of each class of ``engine.variants.BUILTIN``,
found by id. The variant modules do not import it (no import circle)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .errors import UnknownVariant

if TYPE_CHECKING:
    from .variant import Variant

VARIANTS: dict[str, Variant] = {}


def index(classes: tuple[type[Variant], ...]) -> dict[str, Variant]:
    """One instance of each class, by its ``id``; ``ValueError`` for an id listed twice."""
    found: dict[str, Variant] = {}
    for cls in classes:
        instance = cls()
        if instance.id in found:
            raise ValueError(f"variant {instance.id!r} listed twice")
        found[instance.id] = instance
    return found


def find_variant(variant_id: object) -> Variant:
    """The registered variant with this id, or ``UnknownVariant``."""
    _load_builtin()
    try:
        return VARIANTS[variant_id]  # type: ignore[index]
    except (KeyError, TypeError):
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariant(f"unknown variant {variant_id!r}; known variants: {known}") from None


def all_variants() -> list[Variant]:
    _load_builtin()
    return [VARIANTS[k] for k in sorted(VARIANTS)]


_loaded = False
_lock = threading.RLock()


def _load_builtin() -> None:
    """Build the index of the built-in variants once (thread-safe: the first callers wait)."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            from .variants import BUILTIN

            VARIANTS.update(index(BUILTIN))
            _loaded = True
