"""Seat names as a person chose them, made safe to show: Unicode NFC, trimmed, and
refused (400 ``invalid_name``) when they hold what would change how the text around
them is shown or read: control characters (NUL, CR, LF, TAB, ...), line and paragraph
separators, and the bidirectional embeddings, overrides, isolates and marks
(``"\\u202eFREE GEMS"`` would show reversed). Emoji joiners and other format
characters pass inside a name, but a name needs a visible character: one that is not
``invisible`` (white space, a format character (Cf), a default-ignorable code point
(Unicode's Default_Ignorable_Code_Point: fillers, variation selectors, tags, ...) or a
blank that shows nothing: ``BLANKS``)."""

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
#: What shows nothing alone: the general categories of white space and format
#: characters, and the code points of Unicode 15's Default_Ignorable_Code_Point
#: (DerivedCoreProperties.txt; Python's unicodedata does not hold it) and the blanks
#: that are neither (a Braille cell with no dots).
INVISIBLE_CATEGORIES = frozenset({"Zs", "Cf", "Cc", "Zl", "Zp"})
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)  # fmt: skip
BLANKS = frozenset("\u2800")


def invisible(ch: str) -> bool:
    """``ch`` shows nothing on its own (see the module)."""
    if ch.isspace() or ch in BLANKS or unicodedata.category(ch) in INVISIBLE_CATEGORIES:
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


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
    if all(map(invisible, text)):  # "" too
        raise problems.invalid_name(field, "a name needs a visible character")
    if len(text) > MAX_NAME:
        raise problems.invalid_name(field, f"a name is at most {MAX_NAME} characters")
    return text
