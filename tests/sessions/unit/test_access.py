"""Who may do what: a seat token, the spectators a session admits, the invitation code."""

from __future__ import annotations

import pytest

from service.sessions import access, tokens
from service.sessions.api import status_of
from service.sessions.models import Meta, Seat, SpectatorAccess
from service.sessions.problems import SessionError

TOKENS = [tokens.new_token(), tokens.new_token()]
CODE = tokens.new_token()


def meta(spectators: SpectatorAccess = SpectatorAccess.ANYONE, **kw: object) -> Meta:
    seats = tuple(Seat(i, f"p{i}", None, tokens.digest(t)) for i, t in enumerate(TOKENS))
    return Meta(
        "uno_classic", seats, 1.0, spectators=spectators,
        spectator_sha256=access.hashed(CODE) if spectators is SpectatorAccess.CODE else None,
        **kw,  # type: ignore[arg-type]
    )  # fmt: skip


def code_of(fn: object, *args: object) -> tuple[int, str]:
    with pytest.raises(SessionError) as e:
        fn(*args)  # type: ignore[operator]
    return status_of(e.value), e.value.code


def test_a_seat_token_names_its_seat() -> None:
    m = meta()
    assert [access.holder_seat(m, t) for t in TOKENS] == [0, 1]
    assert [access.reader_seat(m, t) for t in TOKENS] == [0, 1]


def test_a_seat_is_required_where_a_seat_acts() -> None:
    m = meta()
    assert code_of(access.holder_seat, m, None) == (401, "missing_token")
    assert code_of(access.holder_seat, m, "") == (401, "invalid_token")  # not a bearer token
    assert code_of(access.holder_seat, m, "nope") == (401, "invalid_token")


@pytest.mark.parametrize("spectators", list(SpectatorAccess))
def test_a_spectator_reads_as_the_session_admits(spectators: SpectatorAccess) -> None:
    m = meta(spectators)
    if spectators is SpectatorAccess.ANYONE:
        assert access.reader_seat(m, None) is None
    else:
        status, code = code_of(access.reader_seat, m, None)
        assert (status, code) == (401, "missing_token")
    if spectators is SpectatorAccess.CODE:
        assert access.reader_seat(m, CODE) is None
        assert code_of(access.holder_seat, m, CODE) == (401, "invalid_token")  # reads only
    else:
        assert code_of(access.reader_seat, m, CODE) == (401, "invalid_token")
    assert code_of(access.reader_seat, m, "nope") == (401, "invalid_token")


def test_the_missing_token_says_what_to_send() -> None:
    with pytest.raises(SessionError) as e:
        access.reader_seat(meta(SpectatorAccess.CODE), None)
    assert "spectator code" in e.value.detail
    with pytest.raises(SessionError) as e:
        access.reader_seat(meta(SpectatorAccess.SEATS), None)
    assert "seat token" in e.value.detail


def test_a_join_needs_the_invitation_code_unless_public() -> None:
    invited = meta(invite_sha256=access.hashed(CODE))
    access.check_invitation(invited, CODE)
    assert code_of(access.check_invitation, invited, None) == (403, "invalid_invitation")
    assert code_of(access.check_invitation, invited, TOKENS[0]) == (403, "invalid_invitation")
    public = meta(public=True)
    access.check_invitation(public, None)
    assert code_of(access.check_invitation, public, CODE) == (403, "invalid_invitation")
    assert access.hashed(None) is None and access.hashed("x") == tokens.digest("x")
