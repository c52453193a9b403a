"""The API has no cookie sessions: a session cookie is never read, none is ever set."""

from __future__ import annotations

import flask
import pytest

from service import create_app


def test_no_cookie_session_is_read_or_set() -> None:
    app = create_app({"SECRET_KEY": "a key would let Flask's own sessions sign cookies"})
    seen: list[bool] = []

    @app.get("/test-session")
    def view() -> dict[str, bool]:
        seen.append(flask.session.new)  # the null session: nothing was read
        with pytest.raises(RuntimeError):  # Flask's null session refuses writes
            flask.session["x"] = 1
        return {"ok": True}

    client = app.test_client()
    client.set_cookie("session", "eyJ4IjoxfQ.forged")
    resp = client.get("/test-session")
    assert resp.status_code == 200 and seen == [False]
    assert "Set-Cookie" not in resp.headers
