"""The app's Flask trims (service.ServiceApp) keep Flask's behaviour: no cookie
session is read or written, ``ensure_sync`` answers what Flask's would, and
``create_url_adapter`` makes the adapter (and the request's host) Flask's would."""

from __future__ import annotations

import io
from typing import Any

import flask
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from werkzeug.test import EnvironBuilder

from service import MAX_HOSTS, ServiceApp, create_app


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


ADAPTER_FIELDS = (
    "server_name", "script_name", "subdomain", "url_scheme", "path_info", "default_method",
    "query_args", "websocket",
)  # fmt: skip


def adapter_of(app: flask.Flask, make: Any, environ: dict[str, Any]) -> Any:
    """``make(app, request)``'s adapter as a tuple (and the request's host), or the
    exception it raised."""
    request = app.request_class(environ)
    try:
        adapter = make(app, request)
    except Exception as exc:  # noqa: BLE001 - the same failure is what is compared
        return type(exc)
    return tuple(getattr(adapter, f) for f in ADAPTER_FIELDS), request.host


hosts = st.sampled_from(
    ["localhost", "LocalHost:8000", "example.com:80", "example.com:443", "[::1]:8080",
     "bücher.example", "a..b", "x" * 64 + ".com", "", "bad host", "ex_ample.com:1"]
)  # fmt: skip
paths = st.sampled_from(["/", "/v1/games/apply", "/v1/sessions/abc/moves", "/caf\xc3\xa9", ""])


@settings(max_examples=300, deadline=None)
@given(
    host=hosts | st.none(),
    scheme=st.sampled_from(["http", "https"]),
    path=paths,
    script=st.sampled_from(["", "/api", "/\xc3\xa9t\xc3\xa9"]) | st.none(),
    query=st.sampled_from(["", "a=1&b=2", "q=%C3%A9", "x=\xc3\xa9"]) | st.none(),
    method=st.sampled_from(["GET", "POST", "DELETE"]),
    upgrade=st.sampled_from([None, ("Upgrade", "websocket"), ("keep-alive, Upgrade", "WebSocket"),
                             ("upgrade", "h2c")]),
)  # fmt: skip
def test_url_adapter_is_flasks(
    host: str | None,
    scheme: str,
    path: str,
    script: str | None,
    query: str | None,
    method: str,
    upgrade: tuple[str, str] | None,
) -> None:
    app = create_app()
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": scheme,
        "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
    }  # fmt: skip
    for key, value in (("HTTP_HOST", host), ("SCRIPT_NAME", script), ("QUERY_STRING", query)):
        if value is not None:
            environ[key] = value
    if upgrade is not None:
        environ["HTTP_CONNECTION"], environ["HTTP_UPGRADE"] = upgrade
    ours = adapter_of(app, ServiceApp.create_url_adapter, environ)
    assert ours == adapter_of(app, flask.Flask.create_url_adapter, environ)
    # Twice: the second time from the table of server names.
    assert adapter_of(app, ServiceApp.create_url_adapter, environ) == ours


@pytest.mark.parametrize(
    "config", [{"SERVER_NAME": "example.com"}, {"TRUSTED_HOSTS": ["example.com"]}]
)
def test_url_adapter_with_server_settings_is_flasks_own(config: dict[str, Any]) -> None:
    app = create_app(config)
    environ = EnvironBuilder(path="/healthz", base_url="http://example.com/").get_environ()
    assert adapter_of(app, ServiceApp.create_url_adapter, environ) == adapter_of(
        app, flask.Flask.create_url_adapter, environ
    )
    assert app._server_names == {}  # type: ignore[attr-defined]
    assert app.test_client().get("/healthz", base_url="http://example.com/").status_code == 200


def test_the_server_names_table_is_bounded() -> None:
    app = create_app()
    client = app.test_client()
    for i in range(MAX_HOSTS + 5):
        assert client.get("/healthz", headers={"Host": f"h{i}.example"}).status_code == 200
    assert 0 < len(app._server_names) <= MAX_HOSTS  # type: ignore[attr-defined]
