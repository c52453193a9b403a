"""The repository: one read, one compare-and-set write (the meta only when it changed,
the cache kept up), one retry loop that reads again after a lost race and gives up with
a 412 naming the current version."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

import engine
from service.sessions.api import status_of
from service.sessions.cache import SnapshotCache
from service.sessions.config import Env
from service.sessions.models import BotLevel, Meta, Seat, Snapshot
from service.sessions.problems import SessionError
from service.sessions.repo import CHANGE_TRIES, Change, Repository, with_history
from service.sessions.store import CommitRequest, Idem

from .conftest import SpyStore

SID = "session0"


@pytest.fixture
def repo(store: SpyStore, env: Env) -> Repository:
    return Repository(store, SnapshotCache(env))


def meta(*bots: BotLevel | None) -> Meta:
    seats = tuple(Seat(i, f"p{i}", b, None if b else f"h{i}") for i, b in enumerate(bots))
    return Meta("uno_classic", seats, 1.0, seed=3)


def made(repo: Repository, m: Meta | None = None) -> Snapshot:
    state, setup = engine.start("uno_classic", 2, 3)
    return repo.create(Snapshot(SID, 1, len(setup), state, m or meta(None, None)), setup, [])


def test_a_session_id_this_service_never_makes_is_404_without_a_read(
    repo: Repository, store: SpyStore
) -> None:
    for read in (repo.load, repo.current):
        with pytest.raises(SessionError) as e:
            read("x/../y")
        assert e.value.code == "session_not_found"
    assert store.named("load") == []


def test_create_stores_version_1_and_caches_it(repo: Repository, store: SpyStore) -> None:
    c = made(repo)
    assert repo.cache.peek(SID) == c and c.history == ()  # no levelled bot: no history
    loaded, raw = repo.load(SID)
    assert loaded is c and raw.version == 1 and raw.seq == c.seq
    assert repo.current(SID) == (c, None)


def test_a_load_of_a_changed_session_reads_its_new_meta(repo: Repository, store: SpyStore) -> None:
    c = made(repo)
    new_meta = c.meta.with_seat(replace(c.meta.seats[1], name="Bo"))
    store.commit(CommitRequest(SID, 1, b"null", meta=new_meta.to_json()))
    loaded, _ = repo.load(SID)
    assert loaded.version == 2 and loaded.state is None and loaded.meta == new_meta


def test_a_commit_sends_the_meta_only_when_it_changed(repo: Repository, store: SpyStore) -> None:
    c = made(repo)
    same = repo.commit(c, c.then(c.state, c.meta, 0), [], [])
    assert isinstance(same, Snapshot) and same.version == 2 and repo.cache.peek(SID) == same
    changed = replace(c.meta, public=True)
    done = repo.commit(same, same.then(same.state, changed, 1), [{"type": "started"}], [b"m"])
    assert isinstance(done, Snapshot)
    sent = store.named("commit")
    assert sent[0].meta is None and sent[1].meta == changed.to_json()
    assert sent[1].events == [b'{"type":"started"}'] and sent[1].moves == [b"m"]
    assert store.moves(SID) == [b"m"]


def test_a_lost_race_forgets_the_cached_copy_and_a_vanished_session_is_404(
    repo: Repository, store: SpyStore
) -> None:
    c = made(repo)
    store.commit(CommitRequest(SID, 1, b"null"))  # another process moved first
    lost = repo.commit(c, c.then(c.state, c.meta, 0), [], [])
    assert not isinstance(lost, Snapshot) and (lost.status, lost.version) == ("conflict", 2)
    assert repo.cache.peek(SID) is None
    store.delete(SID)
    with pytest.raises(SessionError) as e:
        repo.commit(c, c.then(c.state, c.meta, 0), [], [])
    assert e.value.code == "session_not_found"


def test_a_stored_answer_comes_back_as_the_stores_outcome(
    repo: Repository, store: SpyStore
) -> None:
    c = made(repo)
    first = repo.commit(c, c.then(c.state, c.meta, 0), [], [], Idem("0:k", b"answer"))
    assert isinstance(first, Snapshot)
    again = repo.commit(c, c.then(c.state, c.meta, 0), [], [], Idem("0:k", b"other"))
    assert not isinstance(again, Snapshot) and again.answer == b"answer"


def test_a_change_reads_again_after_a_lost_race(repo: Repository, store: SpyStore) -> None:
    made(repo)
    seen: list[int] = []

    def step(c: Snapshot) -> Change[str]:
        seen.append(c.version)
        if len(seen) == 1:  # another process commits between this read and the write
            store.commit(CommitRequest(SID, c.version, b"null"))
        return Change("done", c.then(c.state, c.meta, 0))

    after, result = repo.change(SID, step)
    assert result == "done" and seen == [1, 2] and after.version == 3


def test_a_step_that_writes_nothing_answers_the_session_as_read(
    repo: Repository, store: SpyStore
) -> None:
    c = made(repo)
    after, result = repo.change(SID, lambda c: Change(7), start=c)
    assert (after, result) == (c, 7) and store.named("commit") == []


def test_a_change_that_always_loses_gives_up_with_the_current_version(
    repo: Repository, store: SpyStore
) -> None:
    made(repo)

    def racing(c: Snapshot) -> Change[str]:
        store.commit(CommitRequest(SID, c.version, b"null"))
        return Change("won", c.then(c.state, c.meta, 0))

    with pytest.raises(SessionError) as e:
        repo.change(SID, racing)
    assert status_of(e.value) == 412 and e.value.facts["current_version"] == CHANGE_TRIES + 1
    last, given = repo.change(SID, racing, tries=2, give_up=lambda c: f"v{c.version}")
    assert given == f"v{last.version}" and last.version == CHANGE_TRIES + 3


def test_the_history_starts_at_the_rounds_first_event_and_grows_after(
    repo: Repository, store: SpyStore
) -> None:
    c = made(repo, meta(None, BotLevel.HARD))
    loaded = store.load(SID)
    assert loaded is not None and c.history_from == loaded.history_from > 0
    assert c.history == loaded.history
    event = {"type": "drew", "player": 0}
    n = with_history(c, c.then(c.state, c.meta, 1), [event], [orjson.dumps(event)])
    assert n.history_from == c.history_from and n.history == (
        *(c.history or ()),
        orjson.dumps(event),
    )
    # without a levelled bot nothing is kept
    plain = with_history(None, replace(c, meta=meta(None, BotLevel.EASY)), [], [])
    assert (plain.history_from, plain.history) == (0, ())
