"""The quick match's settings: each default stated in the docs and the spec is the
code's (``config.DEFAULTS``), and a bad value stops the start with its name."""

from __future__ import annotations

import re

import pytest

from service.matchmaking.config import DEFAULTS, MatchConfig
from tests.docs_pages import DOCS, ROOT

#: ``MATCH_X` (N)`` as the pages state a default.
STATED = re.compile(r"`(MATCH_[A-Z_]+)` \((\d+)\)")
PAGES = [DOCS / "sessions.md", ROOT / "openapi.yaml"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_default_a_page_states_is_the_codes(page: object) -> None:
    text = page.read_text(encoding="utf-8")  # type: ignore[attr-defined]
    stated = STATED.findall(text)
    assert stated, "the page states no quick-match default"
    for name, value in stated:
        if name == "MATCH_SWEEP_SECONDS":
            from service.matchmaking import SWEEP_SECONDS

            assert float(value) == SWEEP_SECONDS
        else:
            assert DEFAULTS[name] == int(value), name


def test_the_docs_state_each_setting() -> None:
    text = (DOCS / "sessions.md").read_text(encoding="utf-8")
    assert set(DEFAULTS) <= {name for name, _ in STATED.findall(text)}


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ({"MATCH_TICKETS_PER_CLIENT": "many"}, "MATCH_TICKETS_PER_CLIENT must be an integer"),
        ({"MATCH_WAIT_LIVE_SECONDS": 0}, "MATCH_WAIT_LIVE_SECONDS must be positive"),
        ({"MATCH_WAIT_LIVE_SECONDS": 5000}, "must not exceed MATCH_MAX_WAIT_SECONDS"),
    ],
)
def test_a_bad_setting_is_named(config: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        MatchConfig.load(config)


def test_the_docs_state_each_paces_clock() -> None:
    from service.matchmaking.models import PACE_CLOCKS, Pace

    text = " ".join((DOCS / "sessions.md").read_text(encoding="utf-8").split())
    live = PACE_CLOCKS[Pace.LIVE]
    assert f"the table's clock gives {live['turn_seconds']} s a turn" in text
    assert {2: "two"}[live["max_timeouts"]] + " missed turns" in text
    assert PACE_CLOCKS[Pace.CORRESPONDENCE] == {"turn_seconds": 86_400}
    assert "(a day a turn)" in text
