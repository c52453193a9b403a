"""A whole session game through the Python client that openapi-python-client 0.29.1
generates from ``openapi.yaml`` (package ``uno_family_rules_service_client``), as an
integrator would write it: no converter, no glue, no null checks on the fields every
answer carries.

Every call about a seat answers one type, ``SessionState``, so the answer of a create,
a move, a read and a rematch goes into the same variable. A listed move goes back as it
is. A spectator reads with a plain ``Client``. The only checks are the ones the API
asks for: an answer may be a problem (``isinstance``), and a token is in the answers
that give one.

tests/contract/test_python_client.py type-checks this file with ``mypy --strict`` and
runs ``play`` against the service.
"""

from __future__ import annotations

from collections.abc import Callable

from uno_family_rules_service_client import AuthenticatedClient, Client
from uno_family_rules_service_client.api.sessions import (
    apply_session_move,
    create_session,
    get_session,
    rematch_session,
)
from uno_family_rules_service_client.models import (
    OpenSeatRequest,
    SessionCreate,
    SessionMoveRequest,
    SessionSeatRequest,
    SessionState,
    SessionStatus,
    UnoClassicOptions,
)
from uno_family_rules_service_client.types import Unset

#: A one-round game ends well before this many of the person's moves.
MAX_MOVES = 2000


class GameError(RuntimeError):
    """The service answered something else than the session (a problem)."""


def session(answer: object) -> SessionState:
    """``answer`` when it is the session, else the problem as an error."""
    if not isinstance(answer, SessionState):
        raise GameError(f"not the session: {answer!r}")
    return answer


def play(client: Client, seat_client: Callable[[str], AuthenticatedClient]) -> SessionState:
    """A person against a bot, a one-round game of classic UNO to its end, then the
    rematch: the rematch's session as the person's seat sees it."""
    players: list[OpenSeatRequest | SessionSeatRequest] = [
        SessionSeatRequest(name="me"),
        SessionSeatRequest(name="bot", bot=True),
    ]
    body = SessionCreate(
        variant="uno_classic", players=players, options=UnoClassicOptions(target=1)
    )
    state = session(create_session.sync(client=client, body=body))
    if isinstance(state.token, Unset):  # a create gives the first person's token
        raise GameError("the create answered no token")
    me = seat_client(state.token)
    for _ in range(MAX_MOVES):
        if state.status is SessionStatus.OVER:
            break
        if not state.legal_moves:  # not my turn (a bot's chain was cut short): read again
            state = session(get_session.sync(state.session_id, client=me))
            continue
        move = SessionMoveRequest(move=state.legal_moves[0])  # a listed move, as it is
        answer = apply_session_move.sync(
            state.session_id, client=me, body=move, if_match=f'"{state.etag}"'
        )
        state = session(answer)
    else:
        raise GameError("the game did not end")
    watched = session(get_session.sync(state.session_id, client=client))  # a spectator
    if watched.status is not SessionStatus.OVER or watched.seat is not None:
        raise GameError("a spectator sees another game")
    connected = [seat.connected for seat in state.seats]
    if connected != [True, False]:
        raise GameError(f"presence: {connected}")
    return session(rematch_session.sync(state.session_id, client=me))
