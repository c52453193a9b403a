"""The variant registry: every variant registers itself once; the core finds it by id."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, TypeVar

from .errors import UnknownVariant

if TYPE_CHECKING:
    from .variant import Variant

VARIANTS: dict[str, Variant] = {}

V = TypeVar("V", bound="type[Variant]")


def register(cls: V) -> V:
    """Class decorator: instantiate the variant and register it under ``cls.id``."""
    instance = cls()
    if instance.id in VARIANTS:
        raise ValueError(f"variant {instance.id!r} registered twice")
    VARIANTS[instance.id] = instance
    return cls


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
    """Import the built-in variants once (thread-safe: the first callers wait)."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if not _loaded:
            from . import variants  # noqa: F401  (registers the built-in variants)

            _loaded = True
