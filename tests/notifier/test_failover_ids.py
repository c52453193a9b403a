"""After a failover that lost a version, the number is made again by another commit:
no notification of the lost commit is taken for the new one's (issue 44). The
webhook-ids name the commit (``outbox.webhook_id_base``) and a pending clock warning
is sent only while the session is at the version *and* commit that wrote it."""

from __future__ import annotations

import uuid
from dataclasses import replace

import pytest
import yaml

from service.notifier.queue import NotifyQueue
from service.sessions.models import Meta, Snapshot
from service.sessions.outbox import webhook_id_base
from service.sessions.redis_store import RedisStore
from service.sessions.store import Notices
from tests.docs_pages import ROOT, page
from tests.redis_procs import RedisServer


def test_two_commits_of_one_version_number_have_other_webhook_ids() -> None:
    lost = Snapshot("sid-1", 7, 30, None, Meta("uno_classic", (), 0.0), commit="a" * 16)
    remade = replace(lost, commit="b" * 16)
    assert webhook_id_base(lost) == f"sid-1.7.{'a' * 16}"
    assert webhook_id_base(lost) != webhook_id_base(remade)
    assert webhook_id_base(replace(lost, commit="")) == "sid-1.7"  # stored before ids


@pytest.mark.redis
@pytest.mark.parametrize("remade", [False, True])
def test_a_clock_warning_waits_for_the_commit_that_wrote_it(
    redis_server: RedisServer, remade: bool
) -> None:
    """The warning is due; the session is at the version that wrote it, but with
    another commit id when a failover lost that commit and another made the number
    again (``remade``): then the warning is dropped, not sent for another turn."""
    store = RedisStore(redis_server.url, ttl=60, prefix=f"w{uuid.uuid4().hex[:6]}:")
    queue = NotifyQueue(store)
    sid = "warned-1"
    try:
        warn = f"{sid}.1.{'a' * 16}.w\n{{}}".encode()
        notices = Notices((), warn, 5_000, None, 1_000, 60_000)
        store.create(sid, b"{}", b"null", [], [], 0, notices, commit_id="a" * 16)
        if remade:  # what a promoted replica and a commit on it leave: v 1, commit b
            store.router.client.hset(store._keys(sid)[0], "c", "b" * 16)
        handed = queue.move(sid, 10_000, 1_000)
        assert handed is not remade
        assert store.outbox(sid) == ([] if remade else [warn])
    finally:
        store.close()


def test_the_spec_and_the_page_name_the_webhook_ids_as_the_outbox_makes_them() -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    said = " ".join(spec["components"]["parameters"]["WebhookId"]["description"].split())
    shown = " ".join(page("notifications.md").split())
    made = webhook_id_base(Snapshot("<session>", 0, 0, None, Meta("x", (), 0.0), commit="<commit>"))
    for form in (f"{made}.<n>", f"{made}.w"):
        form = form.replace(".0.", ".<version>.")
        assert f"`{form}`" in said and f"`{form}`" in shown
