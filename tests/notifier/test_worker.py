"""The notifier's parts in process: its settings and what they refuse, the backoff, one
signed delivery and the addresses it will not reach, and the sweeper on Redis with the
test's clock (a correspondence game of two-day turns, two sweepers at once)."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import orjson
import pytest
from standardwebhooks import Webhook

from service.notifier import metrics
from service.notifier.delivery import Sender
from service.notifier.settings import NotifierSettings, SettingError
from service.notifier.worker import Worker, backoff
from service.sessions.config import SessionConfig
from service.sessions.outbox import entry
from tests.notifier.conftest import SECRET, Receiver
from tests.sessions.conftest import Api, first_move, make_app, store_url, turn_seat

T0 = 1_800_000_000.0
GOOD = {"WEBHOOK_URL": "https://hooks.example.com/uno", "WEBHOOK_SECRET": SECRET}


# ---------------------------------------------------------------- settings
@pytest.mark.parametrize(
    ("config", "says"),
    [
        ({**GOOD, "WEBHOOK_URL": "http://hooks.example.com/"}, "must be https://"),
        ({**GOOD, "WEBHOOK_URL": "ftp://hooks.example.com/"}, "must be an https:// URL"),
        ({**GOOD, "WEBHOOK_URL": "https://user:pw@hooks.example.com/"}, "credentials"),
        ({"WEBHOOK_URL": GOOD["WEBHOOK_URL"]}, "set WEBHOOK_SECRET"),
        ({**GOOD, "WEBHOOK_SECRET": "whsec_"}, "not a Standard Webhooks secret"),
        ({**GOOD, "WEBHOOK_TIMEOUT_SECONDS": "40"}, "NOTIFIER_CLAIM_SECONDS must be longer"),
        ({**GOOD, "NOTIFIER_CONCURRENCY": "many"}, "NOTIFIER_CONCURRENCY must be a number"),
        ({**GOOD, "WEBHOOK_ALLOW_HTTP": "perhaps"}, "WEBHOOK_ALLOW_HTTP must be on or off"),
    ],
)
def test_settings_the_worker_cannot_run_with_are_refused(config: dict[str, str], says: str) -> None:
    with pytest.raises(SettingError, match=says):
        NotifierSettings.load(config)


def test_http_is_allowed_for_local_development_only_when_asked() -> None:
    config = {**GOOD, "WEBHOOK_URL": "http://127.0.0.1:9000/hooks", "WEBHOOK_ALLOW_HTTP": "on"}
    settings = NotifierSettings.load(config)
    assert settings.webhook_url == config["WEBHOOK_URL"] and settings.allow_http


def test_the_secret_may_come_from_a_file(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "secret"
    path.write_text(SECRET + "\n")
    monkeypatch.setenv("WEBHOOK_SECRET_FILE", str(path))
    monkeypatch.delenv("WEBHOOK_SECRET", raising=False)
    assert NotifierSettings.load({"WEBHOOK_URL": GOOD["WEBHOOK_URL"]}).secret == SECRET


def test_a_missing_secret_file_does_not_stop_a_worker_that_only_sweeps(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The prod overlay sets WEBHOOK_SECRET_FILE always and mounts the Secret optional.
    monkeypatch.setenv("WEBHOOK_SECRET_FILE", str(tmp_path / "absent" / "WEBHOOK_SECRET"))
    monkeypatch.delenv("WEBHOOK_SECRET", raising=False)
    monkeypatch.delenv("WEBHOOK_URL", raising=False)
    assert NotifierSettings.load({}).secret is None
    # With a target the file is required, and its path is named.
    with pytest.raises(ValueError, match="WEBHOOK_SECRET_FILE=.*cannot read it"):
        NotifierSettings.load({"WEBHOOK_URL": GOOD["WEBHOOK_URL"]})


def test_backoff_doubles_to_its_cap_with_jitter() -> None:
    low = [backoff(n, 5, 3600, lambda: 0.0) for n in range(12)]
    high = [backoff(n, 5, 3600, lambda: 1.0) for n in range(12)]
    assert high[:4] == [5, 10, 20, 40] and high[-1] == 3600
    assert low == [h / 2 for h in high]


# ---------------------------------------------------------------- one delivery
def sender(receiver: Receiver, **extra: str) -> Sender:
    config = {"WEBHOOK_URL": receiver.url, "WEBHOOK_SECRET": SECRET, "WEBHOOK_ALLOW_HTTP": "on"}
    return Sender(NotifierSettings.load({**config, **extra}))


def test_a_delivery_is_signed_and_verifiable(receiver: Receiver) -> None:
    body = orjson.dumps(
        {"type": "turn.started", "timestamp": "2027-01-15T08:00:00.000Z", "data": {}}
    )
    out = sender(receiver, WEBHOOK_ALLOW_PRIVATE="on").send("sid.2.0", body)
    assert (out.result, out.status) == ("delivered", 200)
    (got,) = receiver.requests()
    assert got["headers"]["webhook-id"] == "sid.2.0"
    assert got["body"] == body.decode()  # the bytes signed are the bytes sent
    assert Webhook(SECRET).verify(got["body"], got["headers"])["type"] == "turn.started"
    receiver.answer(status=410)
    assert sender(receiver, WEBHOOK_ALLOW_PRIVATE="on").send("sid.3.0", body).result == "gone"


def test_a_loopback_target_is_refused_unless_allowed(receiver: Receiver) -> None:
    out = sender(receiver).send("sid.2.0", b"{}")
    assert (
        out.result == "failed"
        and "127.0.0.1" in out.reason
        and "WEBHOOK_ALLOW_PRIVATE" in out.reason
    )
    assert receiver.requests() == []


# ---------------------------------------------------------------- the sweeper, on Redis
class FakeClock:
    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> float:
        return self.t


def swept(url: str | None, **settings: str) -> tuple[dict[str, str], FakeClock, Any, Api]:
    """The settings of a service on ``url`` whose sessions the sweeper indexes (with
    ``settings``), the test's clock, the service's session manager on that clock, and
    its API."""
    env = {"REDIS_URL": str(url), "SESSION_KEY_PREFIX": f"s{uuid.uuid4().hex[:8]}:",
           "CLOCK_SWEEPER": "on", "SESSION_START_GRACE_SECONDS": "0", **settings}  # fmt: skip
    clock = FakeClock()
    app = make_app({"TESTING": True, **env})
    mgr = app.extensions["sessions"]
    mgr.now = clock
    return env, clock, mgr, Api(app.test_client())


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis", "cluster"])
def test_the_sweeper_plays_a_two_day_turn_with_nobody_there(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """A correspondence game: its session lives past the old 30 minutes (the store's
    TTL follows the deadline); two days on (the test's clock) two sweepers at once play
    its timeout, once, without a request, and index the next deadline."""
    env, clock, mgr, api = swept(store_url(kind, request), SESSION_TTL_SECONDS="1800")
    day = 86_400
    r = api.create("uno_classic", 2, seed=5, clock={"turn_seconds": 2 * day})
    sid, seat = r.get_json()["session_id"], r.get_json()["clock"]["seat"]
    store = mgr.store
    state_key = store._keys(sid)[0]
    ttl = store.router.on_slot(state_key, lambda c: c.pttl(state_key)) / 1000
    assert 2 * day + 1800 - 5 < ttl <= 2 * day + 1800
    assert store.deadline_index(sid) == int((T0 + 2 * day) * 1000)
    config = SessionConfig.load(env)
    workers = [Worker(NotifierSettings.load(env), config, now=clock) for _ in range(2)]
    before = metrics.SWEEPS.labels("settled")._value.get()
    try:
        clock.t += day
        for w in workers:
            w.poll()
        assert len(store.moves(sid)) == 0  # a day on, nothing owed
        clock.t += day + 1
        barrier = threading.Barrier(2)

        def sweep(w: Worker) -> None:
            barrier.wait()
            w.poll()

        threads = [threading.Thread(target=sweep, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for w in workers:
            w.stop()
    log = [orjson.loads(m) for m in store.moves(sid)]
    assert log and {m["by"] for m in log} == {"clock"}  # the forced moves, once
    assert all(m["move"]["player"] == seat for m in log)
    assert 1 <= metrics.SWEEPS.labels("settled")._value.get() - before <= 2
    events = [e for e in api.events(sid).get_json()["events"] if e["type"] == "timeout"]
    assert len(events) == 1
    body = api.get(sid).get_json()
    assert body["clock"]["seat"] == 1 - seat
    assert store.deadline_index(sid) == int((T0 + 4 * day) * 1000)  # from the deadline on
    store.close()


@pytest.mark.redis
@pytest.mark.parametrize("kind", ["redis", "cluster"])
def test_the_sweeper_plays_on_the_bots_a_move_left_owed(
    kind: str, request: pytest.FixtureRequest
) -> None:
    """A person's move whose bots' replies did not fit in ``SESSION_BOT_CPU_MS`` (1 ms
    here: three ``hard`` bots of UNO Flip take 5 ms a move, one move a request) indexes
    the session as due at once; with nobody reading, the sweeper plays the bots on, a
    budget a poll, until the person's turn, whose deadline is then indexed. A game of
    bots only is not swept (its readers play it)."""
    env, clock, mgr, api = swept(store_url(kind, request), SESSION_BOT_CPU_MS="1")
    players = [{"name": "Ann"}] + [{"bot": "hard"} for _ in range(3)]
    r = api.create("uno_flip", players, seed=7, clock={"turn_seconds": 3600})
    sid, token = r.get_json()["session_id"], r.get_json()["seats"][0]["token"]
    store = mgr.store
    body = r.get_json()
    for _ in range(10):  # the bots' first moves, one a read, up to Ann's turn
        if turn_seat(body["view"]) == 0:
            break
        body = api.get(sid, token).get_json()
    assert turn_seat(body["view"]) == 0
    moved = body
    for _ in range(5):  # Ann's turn (a draw, then pass or play what she drew)
        moved = api.move(sid, token, first_move(moved), moved["version"]).get_json()
        if turn_seat(moved["view"]) != 0:
            break
    assert turn_seat(moved["view"]) != 0, "a bot to move: one reply, then the budget is spent"
    assert store.deadline_index(sid) == int(T0 * 1000)  # due at once: the move's time
    worker = Worker(NotifierSettings.load(env), SessionConfig.load(env), now=clock)
    try:
        versions = [moved["version"]]
        for _ in range(40):  # a poll plays one move here (draws and UNO calls are moves)
            # A session swept and still due goes behind those due then: the next poll,
            # a moment later, finds it due again.
            clock.t += 0.01
            worker.poll()
            loaded = store.load(sid)  # no request: nothing settled but by the sweeper
            assert loaded is not None
            versions.append(int(loaded.version))
            if store.deadline_index(sid) == int((T0 + 3600) * 1000):
                break
    finally:
        worker.stop()
    assert versions == sorted(versions) and versions[-1] > versions[0], versions
    assert store.deadline_index(sid) == int((T0 + 3600) * 1000), versions  # Ann's turn
    after = api.get(sid, token).get_json()  # nothing owed: it plays nothing
    assert turn_seat(after["view"]) == 0, "the sweeper played the bots round to Ann"
    assert after["version"] == versions[-1]
    api.leave(sid, token)  # bots only now: their readers play them, the sweeper does not
    assert store.deadline_index(sid) is None
    store.close()


def test_an_outbox_entry_is_the_id_and_the_body() -> None:
    assert entry("s.2.0", {"type": "x"}) == b's.2.0\n{"type":"x"}'


def test_the_docs_receiver_verifies_a_webhook_and_drops_a_duplicate() -> None:
    """docs/notifications.md's receiver, run as written (its secret and push swapped in)."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "notifications.md").read_text()
    code = page.split("## A receiver in Python", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    pushed: list[tuple[str, str]] = []
    scope: dict[str, Any] = {"__name__": "receiver", "push": lambda w, t: pushed.append((w, t))}
    exec(compile(code.replace('"whsec_..."', repr(SECRET)), "notifications.md", "exec"), scope)  # noqa: S102
    client = scope["app"].test_client()
    settings = NotifierSettings.load(
        {"WEBHOOK_URL": "https://backend.example.com/uno", "WEBHOOK_SECRET": SECRET}
    )
    data = {"session_id": "s", "version": 2, "variant": "uno_classic", "seat": 1,
            "external_id": "user-8812", "deadline": None}  # fmt: skip
    body = entry("s.2.0", {"type": "turn.started", "timestamp": "2027-01-15T08:00:00.000Z",
                           "data": data}).partition(b"\n")[2]  # fmt: skip
    headers = Sender(settings).headers("s.2.0", body)
    for _ in range(2):
        assert client.post("/uno", data=body, headers=headers).status_code == 204
    assert pushed == [("user-8812", "Your turn")]  # the retry was dropped
    forged = {**headers, "webhook-signature": "v1,AAAA"}
    assert client.post("/uno", data=body, headers=forged).status_code == 400
