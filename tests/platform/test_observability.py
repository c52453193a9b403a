"""Request ids, JSON access logs and /metrics, on the real app."""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from service import observability
from service.observability import request_id_from
from tests.platform.conftest import MakeApp, access_lines, json_lines

PROBLEM = "application/problem+json"
NEW_ID = re.compile(r"^[0-9a-f]{32}$")


# ---------------------------------------------------------------- request ids
@pytest.mark.parametrize("rid", ["abc-123", "x" * 128, "trace 1/2:3;a=b"])
def test_a_valid_request_id_is_echoed(client: FlaskClient, rid: str) -> None:
    resp = client.get("/healthz", headers={"X-Request-ID": rid})
    assert resp.status_code == 200
    assert resp.headers["X-Request-ID"] == rid


@pytest.mark.parametrize("rid", ["x" * 129, "tab\there", "", "   ", "caf\u00e9"])
def test_an_invalid_request_id_is_replaced(client: FlaskClient, rid: str) -> None:
    resp = client.get("/healthz", headers={"X-Request-ID": rid})
    assert NEW_ID.match(resp.headers["X-Request-ID"])


def test_every_response_gets_a_new_id_without_one(client: FlaskClient) -> None:
    ids = {client.get("/healthz").headers["X-Request-ID"] for _ in range(5)}
    assert len(ids) == 5 and all(NEW_ID.match(i) for i in ids)


def test_request_id_from_rejects_control_characters() -> None:
    assert request_id_from("ok") == "ok"
    assert request_id_from("a\nb") != "a\nb"
    assert request_id_from(None) != request_id_from(None)


def test_problem_answers_carry_the_request_id(client: FlaskClient) -> None:
    for resp in (
        client.get("/no/such/path", headers={"X-Request-ID": "p-404"}),
        client.delete("/v1/variants", headers={"X-Request-ID": "p-405"}),
        client.post(
            "/v1/games",
            data=b"{",
            content_type="application/json",
            headers={"X-Request-ID": "p-400"},
        ),
    ):
        assert resp.mimetype == PROBLEM
        assert resp.headers["X-Request-ID"] == f"p-{resp.status_code}"


def test_a_too_large_body_is_a_413_problem_with_the_request_id(make_app: MakeApp) -> None:
    client = make_app(MAX_CONTENT_LENGTH=1000).test_client()
    resp = client.post(
        "/v1/games",
        data=b'{"variant": "' + b"x" * 5000 + b'"}',
        content_type="application/json",
        headers={"X-Request-ID": "big-1"},
    )
    assert resp.status_code == 413
    assert resp.mimetype == PROBLEM
    assert resp.get_json()["code"] == "payload_too_large"
    assert resp.headers["X-Request-ID"] == "big-1"


# ---------------------------------------------------------------- logs
def test_one_json_access_line_per_request(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    client.get("/v1/variants/uno_classic", headers={"X-Request-ID": "log-1"})
    client.get("/v1/variants/nope", headers={"X-Request-ID": "log-2"})
    lines = access_lines(capsys.readouterr().err)
    assert [d["request_id"] for d in lines] == ["log-1", "log-2"]
    first, second = lines
    assert first["level"] == "info"
    assert first["method"] == "GET"
    assert first["route"] == "/v1/variants/<variant_id>"  # the rule, not the raw path
    assert first["path"] == "/v1/variants/uno_classic"
    assert first["status"] == 200
    assert first["remote"] == "127.0.0.1"  # the test client's address
    assert isinstance(first["duration_ms"], float) and first["duration_ms"] >= 0
    assert second["status"] == 404 and second["route"] == "/v1/variants/<variant_id>"


def test_the_access_lines_own_writer_writes_what_logging_would(
    app: Flask, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The access line skips the ``LogRecord`` while logging is as the service set it
    up (``_write_access``; benchmarks/access_log.py measures both). Its line is the one
    ``JsonFormatter`` writes through logging, byte for byte; anything configured on the
    loggers (here a filter that passes every record) sends it through logging."""
    monkeypatch.setattr(time, "time", lambda: 1_800_000_000.25)
    monkeypatch.setattr(time, "time_ns", lambda: 1_800_000_000_250_000_000)  # 3.12's records
    fields = {
        "method": "POST", "route": "/v1/games/apply", "path": "/v1/games/apply",
        "remote": "10.0.0.7", "status": 200, "duration_ms": 1.25, "request_id": "r-\u00e9",
    }  # fmt: skip
    # The service's logging alone, as in production (pytest adds capture handlers).
    ours = [h for h in observability.log.handlers if type(h) is observability._StderrHandler]
    monkeypatch.setattr(observability.log, "handlers", ours)
    assert observability._plain_access_handler() is not None
    capsys.readouterr()
    observability._write_access(fields)
    own = capsys.readouterr().err
    passes = logging.Filter()
    observability.access_log.addFilter(passes)
    try:
        assert observability._plain_access_handler() is None
        observability._write_access(fields)
        through_logging = capsys.readouterr().err
    finally:
        observability.access_log.removeFilter(passes)
    assert own == through_logging
    assert json.loads(own) == {
        "time": "2027-01-15T08:00:00.250Z", "level": "info", "logger": "service.access",
        "message": "request", **fields,
    }  # fmt: skip


def test_an_access_line_that_is_not_json_never_fails_the_request(
    app: Flask, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A field orjson cannot write (a lone surrogate) goes to logging, which reports it
    on stderr as it reports any broken record; nothing is raised to the request."""
    ours = [h for h in observability.log.handlers if type(h) is observability._StderrHandler]
    monkeypatch.setattr(observability.log, "handlers", ours)
    monkeypatch.setattr(logging, "raiseExceptions", True)
    capsys.readouterr()
    observability._write_access({"path": "/\udcff", "status": 404})
    assert "--- Logging error ---" in capsys.readouterr().err


def test_a_handler_of_ops_own_gets_the_access_lines(
    client: FlaskClient, capsys: pytest.CaptureFixture[str]
) -> None:
    """A handler added to the ``service`` logger (ops' own, say) gets every access line,
    and stderr still gets its JSON line."""
    got: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record)

    handler = Keep()
    observability.log.addHandler(handler)
    try:
        capsys.readouterr()
        client.get("/healthz", headers={"X-Request-ID": "ops-1"})
    finally:
        observability.log.removeHandler(handler)
    assert [r.__dict__["fields"]["request_id"] for r in got] == ["ops-1"]
    assert [d["request_id"] for d in access_lines(capsys.readouterr().err)] == ["ops-1"]


def test_log_level_warning_silences_the_access_log(
    make_app: MakeApp, capsys: pytest.CaptureFixture[str]
) -> None:
    client = make_app(LOG_LEVEL="warning").test_client()
    capsys.readouterr()
    assert client.get("/healthz").status_code == 200
    assert access_lines(capsys.readouterr().err) == []


def test_log_level_from_the_environment(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOG_LEVEL", "ERROR")
    client = make_app().test_client()
    capsys.readouterr()
    client.get("/healthz")
    assert access_lines(capsys.readouterr().err) == []


def test_an_unknown_log_level_is_refused(make_app: MakeApp) -> None:
    with pytest.raises(ValueError, match="LOG_LEVEL"):
        make_app(LOG_LEVEL="chatty")


def test_an_unexpected_error_is_logged_with_the_request_id(
    app: Flask, capsys: pytest.CaptureFixture[str]
) -> None:
    @app.get("/boom")
    def boom() -> Any:
        raise RuntimeError("kaboom")

    capsys.readouterr()
    resp = app.test_client().get("/boom", headers={"X-Request-ID": "err-7"})
    assert resp.status_code == 500 and resp.mimetype == PROBLEM
    assert resp.headers["X-Request-ID"] == "err-7"
    lines = json_lines(capsys.readouterr().err)
    error = next(d for d in lines if d["logger"] == "service" and d["level"] == "error")
    assert error["request_id"] == "err-7"
    assert "RuntimeError: kaboom" in error["exception"]
    access = [d for d in lines if d["logger"] == "service.access"]
    assert [(d["status"], d["level"], d["request_id"]) for d in access] == [(500, "error", "err-7")]


# ---------------------------------------------------------------- metrics
def samples(text: str) -> list[Sample]:
    """Every sample of a scrape, parsed by prometheus_client's own parser."""
    return [s for family in text_string_to_metric_families(text) for s in family.samples]


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample of ``/metrics`` (0 when the series does not exist yet)."""
    for sample in samples(text):
        if sample.name == name and sample.labels == labels:
            return float(sample.value)
    return 0.0


def scrape(client: FlaskClient) -> str:
    resp = client.get("/metrics")
    assert resp.status_code == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    return resp.get_data(as_text=True)


def test_requests_are_counted_by_route_and_status(client: FlaskClient) -> None:
    before = scrape(client)
    for vid in ("uno_classic", "uno_duo", "dos"):
        assert client.get(f"/v1/variants/{vid}").status_code == 200
    assert client.get("/v1/variants/nope").status_code == 404
    assert client.get("/really/not/here").status_code == 404
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return metric(after, name, **labels) - metric(before, name, **labels)

    route = "/v1/variants/<variant_id>"
    ok = {"method": "GET", "route": route, "status": "200"}
    assert delta("uno_http_requests_total", **ok) == 3
    assert delta("uno_http_requests_total", **{**ok, "status": "404"}) == 1
    assert delta("uno_http_requests_total", method="GET", route="<unmatched>", status="404") == 1
    assert delta("uno_http_request_duration_seconds_count", route=route) == 4
    assert delta("uno_http_request_duration_seconds_bucket", route=route, le="+Inf") == 4
    assert delta("uno_http_request_duration_seconds_sum", route=route) > 0
    # Buckets are cumulative.
    buckets = [
        s.value
        for s in samples(after)
        if s.name == "uno_http_request_duration_seconds_bucket" and s.labels["route"] == route
    ]
    assert buckets == sorted(buckets) and len(buckets) == 14
    assert "uno_http_requests_total{" in after and "/v1/variants/uno_classic" not in after


def test_stateless_moves_are_counted_by_variant(client: FlaskClient) -> None:
    before = metric(
        scrape(client), "uno_moves_applied_total", variant="uno_duo", source="stateless"
    )
    for sealed in (False, True):
        game = client.post(
            "/v1/games", json={"variant": "uno_duo", "players": 2, "seed": 7, "sealed": sealed}
        ).get_json()
        player = game["view"]["current_player"]
        key = "state_token" if sealed else "state"
        moves = client.post(
            "/v1/games/legal-moves", json={key: game[key], "player": player}
        ).get_json()["moves"]
        resp = client.post("/v1/games/apply", json={key: game[key], "move": moves[0]})
        assert resp.status_code == 200, resp.get_data(as_text=True)
    # A move that is not legal (the other seat's turn) is not counted.
    wrong = {**moves[0], "player": 1 - player}
    bad = client.post("/v1/games/apply", json={key: game[key], "move": wrong})
    assert bad.status_code in (400, 422), bad.get_data(as_text=True)
    after = metric(scrape(client), "uno_moves_applied_total", variant="uno_duo", source="stateless")
    assert after - before == 2


def test_session_moves_and_sessions_are_counted(client: FlaskClient) -> None:
    players = [{"name": "Ann"}, {"name": "Ben"}]
    before = scrape(client)
    created = client.post("/v1/sessions", json={"variant": "uno_classic", "players": players})
    assert created.status_code == 201, created.get_data(as_text=True)
    body = created.get_json()
    seat = body["view"]["pending"]["player"] if body["view"]["pending"] else None
    seat = body["view"]["current_player"] if seat is None else seat
    token = body["seats"][seat]["token"]
    mid = scrape(client)
    assert metric(mid, "uno_sessions_active", store="memory") == (
        metric(before, "uno_sessions_active", store="memory") + 1
    )
    assert metric(mid, "uno_sessions_cached") >= 1
    legal = client.get(
        f"/v1/sessions/{body['session_id']}/legal-moves",
        headers={"Authorization": f"Bearer {token}"},
    ).get_json()["moves"]
    move = legal[0]
    resp = client.post(
        f"/v1/sessions/{body['session_id']}/moves",
        json={"move": move},
        headers={"Authorization": f"Bearer {token}", "If-Match": f'"{body["version"]}"'},
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    after = scrape(client)
    moved = metric(after, "uno_moves_applied_total", variant="uno_classic", source="session")
    moved -= metric(mid, "uno_moves_applied_total", variant="uno_classic", source="session")
    assert moved == 1
    route = "/v1/sessions/<sid>/moves"
    assert metric(after, "uno_http_requests_total", method="POST", route=route, status="200") >= 1


def test_the_registry_counts_moves_from_helpers(client: FlaskClient) -> None:
    from service.observability import count_moves

    series = {"variant": "test_variant", "source": "session"}
    before = metric(scrape(client), "uno_moves_applied_total", **series)
    count_moves("test_variant", 3)
    assert metric(scrape(client), "uno_moves_applied_total", **series) == before + 3


def test_invented_methods_share_one_series(client: FlaskClient) -> None:
    before = scrape(client)
    invented = [f"FROB{i}" for i in range(40)]
    for method in invented:
        assert client.open("/healthz", method=method).status_code == 405
    client.open("/healthz", method="PATCH")
    after = scrape(client)
    other = {"method": "other", "route": "<unmatched>", "status": "405"}
    assert (
        metric(after, "uno_http_requests_total", **other)
        - metric(before, "uno_http_requests_total", **other)
        == 40
    )
    patch = {**other, "method": "PATCH"}
    assert metric(after, "uno_http_requests_total", **patch) == (
        metric(before, "uno_http_requests_total", **patch) + 1
    )
    assert not any(m in after for m in invented)


def test_an_unexpected_error_is_counted(app: Flask) -> None:
    @app.get("/boom")
    def boom() -> Any:
        raise KeyError("kaboom")

    client = app.test_client()
    labels = {"route": "/boom", "exception": "KeyError"}
    before = metric(scrape(client), "uno_internal_errors_total", **labels)
    assert client.get("/boom").status_code == 500
    after = scrape(client)
    assert metric(after, "uno_internal_errors_total", **labels) == before + 1
    assert metric(after, "uno_http_requests_total", method="GET", route="/boom", status="500") >= 1


def test_the_standard_process_metrics_are_exposed(client: FlaskClient) -> None:
    text = scrape(client)
    for name in ("process_start_time_seconds", "process_cpu_seconds_total", "process_open_fds"):
        assert metric(text, name) > 0, name
    assert "_created" not in text


def test_an_engine_bug_is_a_500_not_the_callers_422(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Only the engine's own errors are the caller's (4xx): any other exception inside
    the rules is a bug, answered 500 internal_error, logged and counted."""
    import engine
    import service.games

    game = client.post("/v1/games", json={"variant": "uno_classic", "players": 2, "seed": 3})
    state = game.get_json()["state"]
    move = {"type": "draw", "player": game.get_json()["view"]["current_player"]}

    def broken(*_: Any) -> Any:
        raise IndexError("tuple index out of range")

    real_apply = engine.apply
    monkeypatch.setattr(service.games.engine, "apply", broken)
    labels = {"route": "/v1/games/apply", "exception": "IndexError"}
    before = metric(scrape(client), "uno_internal_errors_total", **labels)
    capsys.readouterr()
    resp = client.post(
        "/v1/games/apply", json={"state": state, "move": move}, headers={"X-Request-ID": "bug-1"}
    )
    assert resp.status_code == 500 and resp.mimetype == PROBLEM
    assert resp.get_json()["code"] == "internal_error"
    assert "tuple index" not in resp.get_data(as_text=True)  # no internals in the answer
    error = next(d for d in json_lines(capsys.readouterr().err) if d["level"] == "error")
    assert error["request_id"] == "bug-1" and "IndexError" in error["exception"]
    assert metric(scrape(client), "uno_internal_errors_total", **labels) == before + 1
    # A rules error is still the caller's 422.
    monkeypatch.setattr(service.games.engine, "apply", real_apply)
    wrong = {**move, "player": 1 - move["player"]}
    resp = client.post("/v1/games/apply", json={"state": state, "move": wrong})
    assert resp.status_code == 422 and resp.get_json()["code"] == "not_your_turn"
