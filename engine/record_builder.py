"""A game record built move by move and kept as its pieces (``engine.records`` states the
format): what serves a long game's record without playing or serialising its moves
again at each read."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .records import (
    RECORD_VERSION,
    SECRET_FIELDS,
    Step,
    _commitment,
    _ends_round,
    _entries,
    _entry,
    _final_result,
    _json,
    _play,
    _players,
    _round_result,
    _rows,
)
from .registry import find_variant
from .state import Phase, State

#: The states a builder keeps after its last moves: a read of a version a few moves
#: older than the builder's (another request went on meanwhile) is served from it.
RECENT_STATES = 32


def _steps(
    state: State,
    moves: Iterable[Any],
    seats: int,
    first: int,
    played: Sequence[Step] | None = None,
) -> Iterator[tuple[Step, str, dict[int, str], str | None]]:
    """Each of ``moves`` played from ``state`` (move ``first`` of the game), with its
    pieces: its entry in the whole record, each seat's own entry where it hides a field
    from that seat (``SECRET_FIELDS``), the round's result when it ends one. ``played``:
    the steps of these moves from ``state`` as the caller already applied them (taken
    only when they are these moves, in order; else the moves are played)."""
    listed = list(_entries(moves))
    if played is not None and [s.move for s in played] != [m for m, _, _ in listed]:
        played = None
    steps = _play(state, (m for m, _, _ in listed), first) if played is None else iter(played)
    for step, (_, by, at) in zip(steps, listed, strict=False):
        own: dict[int, str] = {}
        if step.move.type in SECRET_FIELDS:
            for seat in range(seats):
                entry = _entry(step, by, at, seat)
                if "hidden" in entry:
                    own[seat] = _json(entry)
        ended = _json(_round_result(step.after)) if _ends_round(step.before, step.after) else None
        yield step, _json(_entry(step, by, at, None)), own, ended


def pieces(
    state: State,
    moves: Iterable[Any],
    seats: int,
    first: int,
    played: Sequence[Step] | None = None,
) -> tuple[list[bytes], State]:
    """The stored pieces of ``moves`` (move-log entries) played from ``state`` (move
    ``first`` of a game of ``seats``), one a move, and the state they reach: the entry,
    a line, the round's result ("" none), then a line ``<seat> <entry>`` for each seat's
    own entry (``Builder.adopt`` reads them). Raises ``RecordError`` as ``extend``.
    ``played``: the moves' steps as the caller applied them (``_steps``)."""
    out = []
    for step, entry, own, ended in _steps(state, moves, seats, first, played):
        lines = [entry, ended or "", *(f"{seat} {e}" for seat, e in own.items())]
        out.append("\n".join(lines).encode())
        state = step.after
    return out, state


class Builder:
    """A record built move by move and kept as its pieces, each move's entry as compact
    JSON: ``extend`` plays only the moves it is given, ``dumps`` joins the pieces (no
    move is played or serialised again). A seat's copy of a running game differs from
    the whole record only in the fields ``SECRET_FIELDS`` names: those entries are kept
    apart per seat."""

    def __init__(
        self,
        variant: str,
        players: int | Sequence[Mapping[str, Any]],
        seed: int,
        dealer: int | None = None,
        options: Mapping[str, Any] | None = None,
        deck: Sequence[int] | None = None,
        game_id: str | None = None,
        nonce: str | None = None,
    ) -> None:
        self.seats = _players(players)
        state, _ = find_variant(variant).new_game(
            len(self.seats), seed, dealer, dict(options) if options is not None else None,
            list(deck) if deck is not None else None,
        )  # fmt: skip
        self.setup = (state.variant, dict(state.options), seed, dealer, deck, game_id, nonce)
        #: Each move's entry in the whole record; a seat's where it differs (move index
        #: -> seat -> entry); each round's result and the moves played when it ended.
        self.moves: list[str] = []
        self.hidden: dict[int, dict[int, str]] = {}
        self.rounds: list[tuple[int, str]] = []
        #: The state after each of the last moves (the last: the state now).
        self.recent: deque[State] = deque([state], maxlen=RECENT_STATES)

    @property
    def state(self) -> State:
        """The state the moves played so far reach."""
        return self.recent[-1]

    def extend(self, moves: Iterable[Any]) -> State:
        """Play ``moves`` (as ``engine.records.record`` takes them) after those played so
        far: the state they reach. Raises ``RecordError`` at the first illegal one."""
        for step, entry, own, ended in _steps(self.state, moves, len(self.seats), len(self.moves)):
            self._add(entry, own, ended)
            self.recent.append(step.after)
        return self.state

    def _add(self, entry: str, own: dict[int, str], ended: str | None) -> None:
        """Keep the next move's pieces: its entry, its seats' own ones, its round result."""
        if own:
            self.hidden[len(self.moves)] = own
        self.moves.append(entry)
        if ended is not None:
            self.rounds.append((len(self.moves), ended))

    def adopt(self, pieces: Iterable[bytes], state: State) -> None:
        """Keep the stored ``pieces`` (``piece``) of the next moves, which reach
        ``state``: no move is played. The states before ``state`` are not kept."""
        listed = list(pieces)
        # One decode and one split for all: JSON text never holds a raw NUL.
        for piece in b"\x00".join(listed).decode().split("\x00") if listed else ():
            entry, _, rest = piece.partition("\n")
            if not rest:  # most moves: no round ended, nothing hidden
                self.moves.append(entry)
                continue
            ended, *own = rest.split("\n")
            hidden = {int(seat): e for seat, _, e in (o.partition(" ") for o in own)}
            self._add(entry, hidden, ended or None)
        self.recent = deque([state], maxlen=RECENT_STATES)

    def state_after(self, count: int) -> State | None:
        """The state after the first ``count`` moves, when it is among the kept ones."""
        back = len(self.moves) - count
        return self.recent[-1 - back] if 0 <= back < len(self.recent) else None

    def _fields(
        self, seat: int | None, state: State, count: int
    ) -> tuple[dict[str, Any], list[str]]:
        """The record's fields but its moves, rounds and result, and its first ``count``
        moves' entries, as ``seat`` may see the game at ``state`` (None: the whole
        record; a seat sees it all once the game is over)."""
        variant, options, seed, dealer, deck, game_id, nonce = self.setup
        sealed = seat is not None and state.phase is not Phase.GAME_OVER
        head = {
            "record": RECORD_VERSION,
            "variant": variant,
            "options": options,
            "players": self.seats,
            "dealer": dealer,
            "seed": None if sealed else str(seed),
            "deck": None if sealed or deck is None else list(deck),
            "seed_commitment": _commitment(game_id, seed, nonce, sealed),
        }
        moves = self.moves[:count] if count < len(self.moves) else self.moves
        own = {i: per[seat] for i, per in self.hidden.items() if i < count and seat in per}
        if sealed and own:
            moves = list(moves)
            for i, entry in own.items():
                moves[i] = entry
        return head, moves

    def _pieces(
        self, seat: int | None, count: int | None
    ) -> tuple[dict[str, Any], list[str], list[str], State]:
        count = len(self.moves) if count is None else count
        state = self.state_after(count)
        if state is None:
            raise ValueError(f"the state after {count} moves is not kept")
        head, moves = self._fields(seat, state, count)
        rounds = [r for ended, r in self.rounds if ended <= len(moves)]
        return head, moves, rounds, state

    def record(self, seat: int | None = None, count: int | None = None) -> dict[str, Any]:
        """The record as ``seat`` may see it (None: the whole record), of the first
        ``count`` moves (a count ``state_after`` holds; None: every move)."""
        head, moves, rounds, state = self._pieces(seat, count)
        return {
            **head,
            "moves": [json.loads(m) for m in moves],
            "rounds": [json.loads(r) for r in rounds],
            "result": _final_result(state),
        }

    def dumps(self, seat: int | None = None, count: int | None = None) -> str:
        """``engine.records.dumps(self.record(seat, count))``, joined from the pieces."""
        head, moves, rounds, state = self._pieces(seat, count)
        lines = [f"  {_json(k)}: {_json(v)}" for k, v in head.items()]
        lines += [_rows("moves", moves), _rows("rounds", rounds)]
        lines.append(f"  {_json('result')}: {_json(_final_result(state))}")
        return "{\n" + ",\n".join(lines) + "\n}\n"
