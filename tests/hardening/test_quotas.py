"""Storage and lobby (issue 37, case 5) and the smaller cases (6): what one client may
hold, names that cannot fool a reader, a host who alone deletes, ``client_seeded``
where players choose a game, and a rematch claim that changes nothing the second time.

Before the fix one client made 1,000 public sessions in 1.8 s and pushed everyone
else's off every lobby page; a session grew to 20,000 moves (2.7 MB); a name could
hold ``"\\u202eFREE GEMS: evil.example"`` or NUL; any seat deleted a game for all."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask

from service.sealing import Keyring
from service.sessions.models import Meta
from tests.hardening.conftest import ISSUE_37_CPU_BUDGET, cost, created
from tests.sessions.conftest import Api, problem

WAITING = [{"name": "Ann"}, {"open": True}]


@pytest.fixture
def app(make: Callable[..., Flask]) -> Flask:
    return make(SESSION_SESSIONS_PER_CLIENT="6", SESSION_WAITING_PER_CLIENT="3")


def client_at(app: Flask, address: str) -> Api:
    """The API as a client of its own (its address as the rate limit names it)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    return Api(client)


def meta_of(app: Flask, sid: str) -> Meta:
    loaded = app.extensions["sessions"].store.load(sid)
    assert loaded is not None
    return Meta.from_json(loaded.meta)


def public(api: Api) -> dict[str, Any]:
    return created(api.create("uno_classic", WAITING, public=True))


def test_a_client_has_three_waiting_sessions_at_once(app: Flask) -> None:
    """The fourth waiting session is 429 ``too_many_waiting_sessions`` with
    ``Retry-After``, cheaply; another client is not affected; a deletion and a deal
    each give a place back."""
    mallory, bob = client_at(app, "10.0.0.66"), client_at(app, "10.0.0.2")
    made = [public(mallory) for _ in range(3)]
    refused, cpu = cost(lambda: mallory.create("uno_classic", WAITING, public=True))
    problem(refused, 429, "too_many_waiting_sessions")
    assert refused.headers["Retry-After"].isdigit() and cpu < ISSUE_37_CPU_BUDGET
    public(bob)
    host = made[0]["seats"][0]["token"]
    assert mallory.delete(made[0]["session_id"], host).status_code == 204
    public(mallory)  # the deleted one's place
    join = f"/v1/sessions/{made[1]['session_id']}/join"
    assert bob.c.post(join, json={"name": "Bob"}).status_code == 200  # dealt: no longer waits
    public(mallory)
    problem(mallory.create("uno_classic", WAITING), 429, "too_many_waiting_sessions")


def test_a_client_creates_so_many_sessions_per_ttl(app: Flask) -> None:
    """``SESSION_SESSIONS_PER_CLIENT`` (6 here) sessions, waiting or not: then 429
    ``too_many_sessions`` until one is deleted."""
    mallory = client_at(app, "10.0.0.66")
    made = [created(mallory.create("uno_classic", WAITING)) for _ in range(3)]
    made += [created(mallory.create("uno_classic", [{"name": "A"}, {"bot": True}])) for _ in "abc"]
    problem(mallory.create("uno_classic", [{"name": "A"}, {"bot": True}]), 429, "too_many_sessions")
    assert mallory.delete(made[0]["session_id"], made[0]["seats"][0]["token"]).status_code == 204
    created(mallory.create("uno_classic", [{"name": "A"}, {"bot": True}]))


def test_a_full_sessions_quota_refuses_a_create_unread(app: Flask) -> None:
    """Issue 46: with the quota full, a create is 429 before its body is read (a body
    that is not even JSON is not looked at), and its connection is to close."""
    mallory = client_at(app, "10.0.0.67")
    for _ in range(6):
        created(mallory.create("uno_classic", [{"name": "A"}, {"bot": True}]))
    r = mallory.c.post("/v1/sessions", data=b"not json", content_type="application/json")
    problem(r, 429, "too_many_sessions")
    assert r.headers["Connection"] == "close"


def test_one_creator_does_not_bury_the_lobby(make: Callable[..., Flask]) -> None:
    """A page shows at most ``SESSION_LOBBY_PER_CLIENT`` (2) sessions of one creator:
    Ann's, made first, stays on the first page below Mallory's newest two."""
    app = make(SESSION_WAITING_PER_CLIENT="50", SESSION_SESSIONS_PER_CLIENT="50")
    ann, mallory = client_at(app, "10.0.0.1"), client_at(app, "10.0.0.66")
    mine = public(ann)["session_id"]
    flood = [public(mallory)["session_id"] for _ in range(30)]
    page = ann.c.get("/v1/sessions?limit=20").get_json()
    listed = [e["session_id"] for e in page["sessions"]]
    # Mallory's newest two (made in one millisecond, sessions list in either order),
    # then Ann's.
    assert len(listed) == 3 and listed[2] == mine, listed
    made = {sid: int(meta_of(app, sid).created * 1000) for sid in flood}
    assert set(listed[:2]) <= set(flood), listed
    assert min(made[sid] for sid in listed[:2]) >= sorted(made.values())[-2], listed
    assert all(e["client_seeded"] is False for e in page["sessions"])


def test_a_session_stores_so_many_bytes(make: Callable[..., Flask]) -> None:
    """Past ``SESSION_MAX_BYTES`` of events and moves a move is 409
    ``session_too_large`` (and the bots stop there too)."""
    app = make(SESSION_MAX_BYTES="4000")
    api = Api(app.test_client())
    body = created(api.create("uno_classic", [{"name": "Ann"}, {"name": "Bo"}], seed=1))
    sid, toks = body["session_id"], [s["token"] for s in body["seats"]]
    for _ in range(100):
        got = api.get(sid, toks[0]).get_json()
        seat = got["view"]["pending"]["player"] if got["view"]["pending"] else None
        seat = got["view"]["current_player"] if seat is None else seat
        view = api.get(sid, toks[seat]).get_json()
        r = api.move(sid, toks[seat], view["legal_moves"][0], view["version"])
        if r.status_code == 409:
            problem(r, 409, "session_too_large")
            stored = app.extensions["sessions"].store.load(sid).stored
            assert 4000 <= stored < 8000
            return
        assert r.status_code == 200, r.get_data(as_text=True)
    raise AssertionError("the session took more than its bytes")


BAD_NAMES = [
    "\u202eFREE GEMS: evil.example",  # a right-to-left override
    "\u2066Ann\u2069",  # an isolate
    "\x00\x00",
    "Ann\r\nX-Injected: 1",
    "Ann\u2028Bob",  # a line separator
    "   ",
    # Issue 46: nothing visible (each was 201).
    "\u200b",
    "\u200b" * 10,
    "\u2060",
    "\ufeff",
    "\u00ad",
    "\u3164",
    "\u2800",
    "\U000e0020",
]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_names_that_would_fool_a_reader_are_refused(app: Flask, name: str) -> None:
    api = Api(app.test_client())
    r = api.create("uno_classic", [{"name": "Ann"}, {"name": name}])
    body = problem(r, 400, "invalid_name")
    assert body["errors"] == {"players.1.name": [body["detail"]]}
    sid = created(api.create("uno_classic", WAITING, public=True))["session_id"]
    problem(api.c.post(f"/v1/sessions/{sid}/join", json={"name": name}), 400, "invalid_name")


def test_names_are_kept_normalised(app: Flask) -> None:
    """NFC and trimmed: ``"  Zoe\\u0301 "`` is stored as ``"Zoé"``; an emoji sequence
    with joiners passes."""
    api = Api(app.test_client())
    family = "\U0001f469\u200d\U0001f467"
    body = created(api.create("uno_classic", [{"name": "  Zoe\u0301 "}, {"name": family}]))
    assert [s["name"] for s in body["seats"]] == ["Zo\u00e9", family]


def test_client_seeded_shows_in_the_lobby_and_the_join(app: Flask) -> None:
    api = Api(app.test_client())
    body = created(api.create("uno_classic", WAITING, public=True, seed=42))
    entry = next(
        e
        for e in api.c.get("/v1/sessions").get_json()["sessions"]
        if e["session_id"] == body["session_id"]
    )
    assert entry["client_seeded"] is True
    joined = api.c.post(f"/v1/sessions/{body['session_id']}/join", json={"name": "Bo"})
    assert joined.status_code == 200 and joined.get_json()["client_seeded"] is True


#: A sealing key set of this run's own (``STATE_TOKEN_KEYS``).
KEYS = Keyring.new_key_spec("k1")
BOT_GAME = [{"name": "A"}, {"bot": True}]


def creator_of(app: Flask, sid: str) -> str | None:
    return meta_of(app, sid).creator


def test_the_store_keeps_a_keyed_digest_of_a_clients_address(
    make: Callable[..., Flask],
) -> None:
    """With ``STATE_TOKEN_KEYS`` set, what the store keeps of a client's address (the
    session's creator, the quotas' keys) is an HMAC under a key derived from the active
    sealing key, not the address's SHA-256 (which anyone could turn back into an IPv4
    address by trying all 2^32); two workers with the same keys count one client as
    one; another key set gives another digest. Without keys: the SHA-256."""
    address = "203.0.113.7"
    first = make(STATE_TOKEN_KEYS=KEYS, SESSION_SESSIONS_PER_CLIENT="2")
    second = make(STATE_TOKEN_KEYS=KEYS, SESSION_SESSIONS_PER_CLIENT="2")
    a, b = client_at(first, address), client_at(second, address)
    sid = created(a.create("uno_classic", BOT_GAME))["session_id"]
    keyed = creator_of(first, sid)
    plain = hashlib.sha256(address.encode()).hexdigest()[:32]
    assert keyed is not None and len(keyed) == 32 and keyed != plain
    created(b.create("uno_classic", BOT_GAME))
    problem(a.create("uno_classic", BOT_GAME), 429, "too_many_sessions")  # one client
    other = make(STATE_TOKEN_KEYS=Keyring.new_key_spec("k1"))
    sid = created(client_at(other, address).create("uno_classic", BOT_GAME))["session_id"]
    assert creator_of(other, sid) not in (keyed, plain)
    unkeyed = make()  # an ephemeral sealing key: nothing shared to key with
    sid = created(client_at(unkeyed, address).create("uno_classic", BOT_GAME))["session_id"]
    assert creator_of(unkeyed, sid) == plain


def test_a_derived_key_is_never_the_sealing_key_and_differs_per_purpose() -> None:
    ring = Keyring.parse(KEYS)
    one, two = ring.derived("uno client address v1"), ring.derived("another purpose")
    assert one is not None and two is not None and one != two
    assert ring.keys[ring.active] not in (one, two)
    assert Keyring.ephemeral_ring().derived("uno client address v1") is None


def test_an_ipv6_client_is_counted_by_its_64(make: Callable[..., Flask]) -> None:
    """Issue 46, case 6: 25 addresses of one /64 made 25 sessions where one address
    gets 429 after its quota. Now a /64 is one client (``CLIENT_IPV6_PREFIX``) for
    every quota; another /64 is another client; an IPv4-mapped address is its IPv4."""
    app = make(SESSION_SESSIONS_PER_CLIENT="6", SESSION_WAITING_PER_CLIENT="3")
    statuses = [
        client_at(app, f"2001:db8:46:1::{i:x}").create("uno_classic", BOT_GAME).status_code
        for i in range(1, 26)
    ]
    assert statuses == [201] * 6 + [429] * 19
    created(client_at(app, "2001:db8:46:2::1").create("uno_classic", BOT_GAME))
    for _ in range(6):
        created(client_at(app, "10.46.0.1").create("uno_classic", BOT_GAME))
    problem(client_at(app, "::ffff:10.46.0.1").create("uno_classic", BOT_GAME), 429,
            "too_many_sessions")  # fmt: skip
    narrow = make(SESSION_SESSIONS_PER_CLIENT="1", CLIENT_IPV6_PREFIX="128")
    for i in range(1, 4):
        created(client_at(narrow, f"2001:db8:46:3::{i}").create("uno_classic", BOT_GAME))


def test_the_rate_limit_counts_an_ipv6_client_by_its_64(make: Callable[..., Flask]) -> None:
    app = make(RATE_LIMIT="3/minute")
    got = [client_at(app, f"2001:db8:46:4::{i}").c.get("/v1/variants").status_code
           for i in range(1, 6)]  # fmt: skip
    assert got == [200, 200, 200, 429, 429]
    assert client_at(app, "2001:db8:46:5::1").c.get("/v1/variants").status_code == 200


def test_the_operations_page_states_the_ipv6_prefix() -> None:
    from service.ratelimit import DEFAULT_IPV6_PREFIX
    from tests.ops.support import ROOT

    page = (ROOT / "docs" / "operations.md").read_text()
    assert f"| `CLIENT_IPV6_PREFIX` | {DEFAULT_IPV6_PREFIX} |" in page
