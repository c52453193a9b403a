"""A seed commitment a spectator cannot invert: a creator's 4-digit seed is not found by
trying all 10,000 against everything an anonymous reader sees before the end (the
session, the lobby, the events, the stream, the record), because the hash binds the
session's secret nonce; no seat, event or log line shows the nonce before the end; and
after it the revealed seed and nonce give the hash published from the start."""

from __future__ import annotations

import hashlib
import logging
import re
from typing import Any

import pytest

import engine
from tests.sessions.conftest import Api, sse

SEED = 4242


def anonymous(api: Api, sid: str) -> list[str]:
    """Every answer an anonymous reader can get of ``sid`` (and the lobby), as text."""
    got = [
        api.get(sid),
        api.c.get("/v1/sessions?status=waiting&limit=100"),
        api.events(sid),
        api.c.get(f"/v1/sessions/{sid}/stream?timeout=0.05"),
        api.c.get(f"/v1/sessions/{sid}/record"),
    ]
    return [r.get_data(as_text=True) for r in got]


def seats(api: Api, sid: str, tokens: list[str]) -> list[str]:
    """What each seat can read of ``sid``, as text."""
    out = []
    for token in tokens:
        for path in ("", "/events", "/legal-moves", "/record", "/stream?timeout=0.05"):
            r = api.c.get(f"/v1/sessions/{sid}{path}", headers=api.auth(token))
            out.append(r.get_data(as_text=True))
    return out


def tried(sid: str, seen: str) -> list[int]:
    """The 4-digit seeds whose hash shows in ``seen``, tried as an attacker would: the
    documented bytes with no nonce, and with every 32-hex-digit string ``seen`` holds."""
    nonces = [None, *sorted(set(re.findall(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])", seen)))]
    hashes = set(re.findall(r"[0-9a-f]{64}", seen))
    found = []
    for seed in range(10_000):
        for nonce in nonces:
            text = (
                f"uno-rules-seed-v1:{sid}:{seed}"
                if nonce is None
                else f"uno-rules-seed-v2:{sid}:{nonce}:{seed}"
            )
            if hashlib.sha256(text.encode()).hexdigest() in hashes:
                found.append(seed)
    return found


@pytest.mark.parametrize("store_kind", ["memory"], indirect=True)
def test_a_four_digit_client_seed_cannot_be_found_before_the_end(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    r = api.create(
        "uno_classic", [{"name": "Ann"}, {"open": True}], seed=SEED, public=True,
        options={"target": 1},
    )  # fmt: skip
    assert r.status_code == 201, r.get_data(as_text=True)
    created = r.get_json()
    sid, ann = created["session_id"], created["seats"][0]["token"]
    assert created["client_seeded"] is True
    published = created["seed_commitment"]["sha256"]
    seen = [r.get_data(as_text=True), *anonymous(api, sid)]
    assert published in seen[1] and sid in seen[2]  # the spectator's view, the lobby
    joined = api.c.post(f"/v1/sessions/{sid}/join", json={"name": "Bo"})
    assert joined.status_code == 200, joined.get_data(as_text=True)
    bo = joined.get_json()["token"]
    seen += anonymous(api, sid) + seats(api, sid, [ann, bo]) + [joined.get_data(as_text=True)]
    assert api.get(sid).get_json()["seed_commitment"]["sha256"] == published
    before = "\n".join(seen)
    assert tried(sid, before) == []
    # The end: both leave, the bots play it out; the seed and the nonce are revealed.
    assert api.leave(sid, ann).status_code == 200
    assert api.leave(sid, bo).status_code == 200
    end = api.get(sid).get_json()
    assert end["status"] == "over"
    c = end["seed_commitment"]
    assert c["seed"] == str(SEED) and re.fullmatch(r"[0-9a-f]{32}", c["nonce"])
    assert c["sha256"] == published
    check = f"uno-rules-seed-v2:{sid}:{c['nonce']}:{c['seed']}".encode()
    assert hashlib.sha256(check).hexdigest() == published  # the documented check
    assert c["nonce"] not in before and c["nonce"] not in caplog.text
    assert tried(sid, before + "\n" + c["nonce"]) == [SEED]  # the nonce is what it took
    # The record after the end carries the nonce, and its replay checks it.
    rec = api.c.get(f"/v1/sessions/{sid}/record").get_json()
    assert rec["seed_commitment"] == {"game_id": sid, "sha256": published, "nonce": c["nonce"]}
    engine.replay(rec)
    forged: dict[str, Any] = {**rec, "seed_commitment": {**rec["seed_commitment"],
                                                         "nonce": "0" * 32}}  # fmt: skip
    with pytest.raises(engine.RecordError, match="does not match the seed commitment"):
        engine.replay(forged)
    assert sse(api.c.get(f"/v1/sessions/{sid}/stream?timeout=0.05"))
