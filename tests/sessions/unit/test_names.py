"""A seat name: what the spec's ``SeatName`` pattern admits is what ``names.clean``
takes, character by character (one rule, stated in two languages, held together)."""

from __future__ import annotations

import re
import unicodedata

import pytest

from service.sessions import names
from service.sessions.problems import SessionError
from tests.support import spec_document

PATTERN = re.compile(spec_document()["components"]["schemas"]["SeatName"]["pattern"])
#: Every control and separator, the bidirectional formats, and a spread of others:
#: letters, digits, spaces, joiners, emoji, a BOM.
SAMPLES = sorted(
    {chr(c) for c in range(0x00, 0xA0)}
    | names.BIDI_CONTROLS
    | set("aZ9 \u00a0\u00e9\u200b\u200c\u200d\u2028\u2029\u3000\ufeff\U0001f600")
    | set("\u00ad\u034f\u115f\u180e\u2060\u2800\u3164\ufe0f\uffa0\u0301")
)
#: Issue 46's names that show nothing, beyond U+FFFF too (the spec's pattern leaves
#: those to the service).
INVISIBLE = ["\u200b", "\u200b" * 10, "\u2060", "\ufeff", "\u00ad", "\u3164", "\u2800",
             "\U000e0020", "\U000e0001\U000e0041", "\ufe0f\u200d", "\U0001d173"]  # fmt: skip


def accepted(name: str) -> bool:
    try:
        names.clean(name, "name")
    except SessionError:
        return False
    return True


@pytest.mark.parametrize("ch", SAMPLES, ids=lambda ch: f"U+{ord(ch):04X}")
def test_the_spec_pattern_admits_what_the_service_takes(ch: str) -> None:
    for name in (f"a{ch}b", ch):
        spec_says = PATTERN.fullmatch(name) is not None
        if spec_says:  # the spec never admits what the service refuses
            assert accepted(name), (name, unicodedata.name(ch, "?"))
        else:
            refused = unicodedata.category(ch) in names.REFUSED_CATEGORIES
            refused |= ch in names.BIDI_CONTROLS or (name == ch and names.invisible(ch))
            if refused:
                assert not accepted(name), name


@pytest.mark.parametrize("name", INVISIBLE, ids=lambda n: "+".join(f"U+{ord(c):04X}" for c in n))
def test_a_name_of_nothing_visible_is_refused(name: str) -> None:
    assert not accepted(name)
    assert not accepted(f" {name} ")
    assert accepted(f"Ann{name}")  # inside a name they pass
    if max(map(ord, name)) <= 0xFFFF:
        assert PATTERN.fullmatch(name) is None


def test_the_spec_pattern_refuses_every_lone_invisible_character_of_the_bmp() -> None:
    """Every character ``names.invisible`` names, up to U+FFFF, alone: the spec's
    pattern refuses it too (one rule, two statements)."""
    for code in range(0x10000):
        ch = chr(code)
        if 0xD800 <= code <= 0xDFFF or not names.invisible(ch):
            continue
        assert PATTERN.fullmatch(ch) is None, f"U+{code:04X}"
