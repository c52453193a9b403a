"""A seat name: what the spec's ``SeatName`` pattern admits is what ``names.clean``
takes, character by character (one rule, stated in two languages, held together)."""

from __future__ import annotations

import re
import unicodedata

import pytest

from service.sessions import names
from service.sessions.problems import SessionProblem
from tests.service.harness import spec_document

PATTERN = re.compile(spec_document()["components"]["schemas"]["SeatName"]["pattern"])
#: Every control and separator, the bidirectional formats, and a spread of others:
#: letters, digits, spaces, joiners, emoji, a BOM.
SAMPLES = sorted(
    {chr(c) for c in range(0x00, 0xA0)}
    | names.BIDI_CONTROLS
    | set("aZ9 \u00a0\u00e9\u200b\u200c\u200d\u2028\u2029\u3000\ufeff\U0001f600")
)


def accepted(name: str) -> bool:
    try:
        names.clean(name, "name")
    except SessionProblem:
        return False
    return True


@pytest.mark.parametrize("ch", SAMPLES, ids=lambda ch: f"U+{ord(ch):04X}")
def test_the_spec_pattern_admits_what_the_service_takes(ch: str) -> None:
    for name in (f"a{ch}b", ch):
        spec_says = PATTERN.fullmatch(name) is not None
        if spec_says:  # the spec never admits what the service refuses
            assert accepted(name), (name, unicodedata.name(ch, "?"))
        elif unicodedata.category(ch) in names.REFUSED_CATEGORIES or ch in names.BIDI_CONTROLS:
            assert not accepted(name), name
