"""The app's two Flask trims (service.ServiceApp) keep Flask's behaviour: no cookie
session is read or written, and ``ensure_sync`` answers what Flask's would."""

from __future__ import annotations

import flask
import pytest

from service import ServiceApp, create_app


def test_no_cookie_session_is_read_or_set() -> None:
    app = create_app()
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


def test_ensure_sync_is_flasks_answer_once_per_function() -> None:
    app = ServiceApp(__name__)

    def plain() -> None:
        return None

    assert app.ensure_sync(plain) is plain
    assert app._sync == {plain: plain}
    assert app.ensure_sync(plain) is plain

    async def coroutine() -> int:
        return 7

    try:
        wrapped = flask.Flask.ensure_sync(app, coroutine)
    except RuntimeError:  # Flask's async support needs asgiref: the same refusal
        with pytest.raises(RuntimeError):
            app.ensure_sync(coroutine)
    else:
        assert app.ensure_sync(coroutine) is not coroutine
        assert wrapped() == app.ensure_sync(coroutine)() == 7
