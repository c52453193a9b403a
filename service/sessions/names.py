"""Seat names as a person chose them, made safe to show: Unicode NFC, trimmed, and
refused (400 ``invalid_name``) when they hold what would change how the text around
them is shown or read: control characters (NUL, CR, LF, TAB, ...), line and paragraph
separators, and the bidirectional embeddings, overrides, isolates and marks
(``"\\u202eFREE GEMS"`` would show reversed). Emoji joiners and other format
characters pass."""

from __future__ import annotations

import unicodedata

from . import problems

#: The longest name, in characters after normalising.
MAX_NAME = 40
#: The bidirectional formatting characters (Unicode's Bidi_Control).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: The general categories refused: controls, line and paragraph separators.
REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def clean(name: str, field: str) -> str:
    """``name`` normalised (NFC, trimmed), or 400 ``invalid_name`` naming ``field``."""
    text = unicodedata.normalize("NFC", name).strip()
    for ch in text:
        if ch in BIDI_CONTROLS:
            raise problems.invalid_name(
                field, f"a name may not hold bidirectional formatting (U+{ord(ch):04X})"
            )
        if unicodedata.category(ch) in REFUSED_CATEGORIES:
            raise problems.invalid_name(
                field, f"a name may not hold control characters (U+{ord(ch):04X})"
            )
    if not text:
        raise problems.invalid_name(field, "a name needs a visible character")
    if len(text) > MAX_NAME:
        raise problems.invalid_name(field, f"a name is at most {MAX_NAME} characters")
    return text
