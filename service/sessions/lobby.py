"""The public lobby: sessions created ``public`` that wait for seats, newest first.

An index in a slot of its own (``SessionStore.lobby_*``), kept by separate calls after a
session's own commit (``add`` at creation, ``unlist`` when it starts or goes), so it may
name sessions that started, expired or were deleted meanwhile: each page checks its
entries against their sessions' meta and drops those on the way.

A page shows at most ``SESSION_LOBBY_PER_CLIENT`` sessions of one creator (the newest;
``Meta.creator``), so many sessions from one client do not push the others off it; and
it reads at most ``SCAN_PAGES`` times its size of the index, then ends with a cursor.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from typing import Any

import orjson

from . import problems
from .config import Env
from .models import Meta, Reply
from .store import SessionStore, StoreUnavailable
from .views import lobby_entry

#: A page's cursor: the last entry's creation time (epoch ms) and session id.
CURSOR = re.compile(r"^([0-9]{1,15})\.([A-Za-z0-9_-]{8,64})$")

log = logging.getLogger("service.sessions")


#: How much of the index one page reads at most, in pages (of the size asked).
SCAN_PAGES = 10


class Lobby:
    def __init__(self, env: Env, store: SessionStore) -> None:
        self.env = env
        self.store = store

    def add(self, sid: str, meta: Meta) -> None:
        """List ``sid`` (public and waiting) by its creation time."""
        self.store.lobby_add(sid, meta.variant, int(meta.created * 1000))

    def unlist(self, sids: list[tuple[str, str]]) -> None:
        """Take ``(sid, variant)`` off the index (a failure is logged: the listing
        forgets them later anyway)."""
        try:
            self.store.lobby_remove(sids)
        except StoreUnavailable as e:
            log.error("session store unavailable, the lobby keeps %d entries: %s", len(sids), e)

    def page(self, variant: str | None, cursor: str | None, limit: int) -> Reply:
        """Up to ``limit`` waiting public sessions (of ``variant``; None: any) after
        ``cursor`` (a page's ``next_cursor``), and the next page's cursor."""
        before = parse_cursor(cursor)
        found: list[dict[str, Any]] = []
        per_creator: Counter[str] = Counter()
        cap = self.env.config.lobby_per_client
        more = False
        scan = SCAN_PAGES * (limit + 1)
        while True:
            ask = limit - len(found) + 1  # one more tells whether a next page exists
            rows = self.store.lobby_page(variant, before, ask)
            scan -= len(rows)
            metas = self.store.metas([sid for _, sid in rows])
            gone: list[tuple[str, str]] = []
            for (ms, sid), raw in zip(rows, metas, strict=True):
                meta = None if raw is None else Meta.from_json(raw)
                if meta is None or not meta.public or not meta.open_seats:
                    gone.append((sid, variant or (meta.variant if meta else "")))
                    before = (ms, sid)
                    continue
                if len(found) == limit:
                    more = True
                    break
                before = (ms, sid)
                if meta.creator is not None:
                    per_creator[meta.creator] += 1
                    if per_creator[meta.creator] > cap:
                        continue  # this creator has its share of the page
                found.append(lobby_entry(sid, meta))
            if gone:
                # A session gone without a trace has no variant: its entry in its
                # variant's index goes when that index is listed.
                self.unlist(gone)
            if more or len(rows) < ask:
                break
            if scan <= 0:
                more = True  # read enough for one page: the next goes on from here
                break
        body = {
            "sessions": found,
            "next_cursor": f"{before[0]}.{before[1]}" if more and before else None,
        }
        return Reply(orjson.dumps(body))


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """A page's cursor as ``(created ms, sid)`` (400 when it is not one this service gave)."""
    if cursor is None:
        return None
    m = CURSOR.match(cursor)
    if m is None:
        raise problems.unreadable("cursor", "cursor is not one this service gave")
    return int(m.group(1)), m.group(2)
