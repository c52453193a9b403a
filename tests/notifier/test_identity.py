"""A seat's ``external_id`` comes only from whom it belongs to: the app's backend signs
an identity assertion (docs/notifications.md's flow, run as written); a joiner that
sends someone's ``external_id`` is refused and no webhook names that person; every
wrong assertion has its stable code (``service.sessions.identity``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask

from service.sessions.config import SessionConfig
from service.sessions.memory import MemoryStore
from service.sessions.outbox import parse_entry
from tests.notifier.conftest import IDENTITY_KEY, asserted
from tests.sessions.conftest import Api, make_app, problem

ROOT = Path(__file__).resolve().parents[2]
HOOK = {"WEBHOOK_URL": "https://hooks.example.com/uno", "IDENTITY_ASSERTION_KEY": IDENTITY_KEY}


def app_with(**config: Any) -> Flask:
    store = MemoryStore(3600, 10_000)
    return make_app({"TESTING": True, "SESSION_STORE": store, **config})


@pytest.fixture
def app() -> Flask:
    return app_with(**HOOK)


@pytest.fixture
def api(app: Flask) -> Api:
    return Api(app.test_client())


def webhooks(app: Flask, sid: str) -> list[dict[str, Any]]:
    return [
        orjson.loads(parse_entry(raw)[1]) for raw in app.extensions["sessions"].store.outbox(sid)
    ]


def waiting(api: Api, **ann: Any) -> tuple[str, str]:
    """A notifying session: Ann (``ann``'s fields) and an open seat; its id and code."""
    r = api.create("uno_classic", [{"name": "Ann", **ann}, {"open": True}], notify=True)
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()["session_id"], r.get_json()["invitation_code"]


def join(api: Api, sid: str, code: str, **fields: Any) -> Any:
    return api.c.post(f"/v1/sessions/{sid}/join", json={"name": "Bo", "code": code, **fields})


def documented_backend() -> Any:
    """docs/notifications.md's ``identity_for``, run as written (its key swapped in)."""
    page = (ROOT / "docs" / "notifications.md").read_text()
    section = page.split("## Who a seat is: identity assertions", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {"__name__": "backend"}
    exec(compile(code.replace('"..."', repr(IDENTITY_KEY)), "notifications.md", "exec"), scope)  # noqa: S102
    return scope["identity_for"]


def test_a_joiner_cannot_make_a_webhook_name_another_person(app: Flask, api: Api) -> None:
    sid, code = waiting(api, identity=asserted("user-ann"))
    before = webhooks(app, sid)
    r = join(api, sid, code, external_id="user-ann")
    problem(r, 422, "identity_assertion_missing")
    assert r.get_json()["errors"] == {"external_id": [r.get_json()["detail"]]}
    assert webhooks(app, sid) == before  # nothing written: the seat is still open
    assert api.get(sid).get_json()["status"] == "waiting"
    # An assertion for Bo with Ann's external_id beside it: refused too.
    problem(join(api, sid, code, identity=asserted("user-bo"), external_id="user-ann"),
            422, "identity_assertion_mismatch")  # fmt: skip
    assert webhooks(app, sid) == before


def test_the_documented_backend_flow_names_the_person(app: Flask, api: Api) -> None:
    identity_for = documented_backend()
    sid, code = waiting(api, identity=identity_for("user-8812"))
    r = join(api, sid, code, identity=identity_for("user-4711"))
    assert r.status_code == 200, r.get_data(as_text=True)
    got = webhooks(app, sid)
    assert [w["type"] for w in got][:2] == ["seat.joined", "game.started"]
    assert got[0]["data"]["external_id"] == "user-4711"
    assert [s["external_id"] for s in got[1]["data"]["seats"]] == ["user-8812", "user-4711"]
    # Without an assertion a seat has no external_id, and nothing is refused.
    sid, code = waiting(api)
    assert join(api, sid, code).status_code == 200
    assert webhooks(app, sid)[0]["data"]["external_id"] is None


@pytest.mark.parametrize(
    ("assertion", "code"),
    [
        (lambda: asserted("u", exp=int(time.time()) - 60), "identity_assertion_expired"),
        (lambda: asserted("u", key="another key, also 32 bytes or more"),
         "identity_assertion_bad_signature"),
        (lambda: asserted("u", aud="another-service"), "identity_assertion_wrong_audience"),
        (lambda: asserted("u", exp=int(time.time()) + 3600), "identity_assertion_invalid"),
        (lambda: asserted("u", sub=None), "identity_assertion_invalid"),
        (lambda: "not a token", "identity_assertion_invalid"),
        (lambda: asserted("u", key=None, algorithm="none"), "identity_assertion_invalid"),
    ],
    ids=["expired", "another-key", "wrong-audience", "lives-an-hour", "no-sub", "garbage",
         "alg-none"],
)  # fmt: skip
def test_a_wrong_assertion_has_its_stable_code(api: Api, assertion: Any, code: str) -> None:
    token = assertion()
    r = api.create("uno_classic", [{"name": "Ann", "identity": token}, {"open": True}],
                   notify=True)  # fmt: skip
    body = problem(r, 422, code)
    assert list(body["errors"]) == ["players.0.identity"]
    sid, invite = waiting(api)
    problem(join(api, sid, invite, identity=token), 422, code)


def test_an_assertion_is_refused_where_no_key_is_set() -> None:
    api = Api(app_with(WEBHOOK_URL=HOOK["WEBHOOK_URL"]).test_client())
    r = api.create("uno_classic", [{"name": "Ann", "identity": asserted("u")}, {"open": True}])
    problem(r, 422, "identity_assertions_not_configured")


def test_the_key_comes_from_a_file_and_must_be_long_enough(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "key"
    path.write_text(IDENTITY_KEY + "\n")
    monkeypatch.delenv("IDENTITY_ASSERTION_KEY", raising=False)
    monkeypatch.setenv("IDENTITY_ASSERTION_KEY_FILE", str(path))
    loaded = SessionConfig.load({})
    assert loaded.identity_key == IDENTITY_KEY and IDENTITY_KEY not in repr(loaded)
    with pytest.raises(ValueError, match="at least 32 bytes"):
        SessionConfig.load({"IDENTITY_ASSERTION_KEY": "short"})
