"""A game record built move by move and kept as its pieces (``engine.records`` states the
format): what serves a long game's record without playing or serialising its moves
again at each read."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .records import (
    RECORD_VERSION,
    SECRET_FIELDS,
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
        listed = list(_entries(moves))
        steps = _play(self.state, (m for m, _, _ in listed), len(self.moves))
        for step, (_, by, at) in zip(steps, listed, strict=False):
            self.moves.append(_json(_entry(step, by, at, None)))
            if step.move.type in SECRET_FIELDS:
                for seat in range(len(self.seats)):
                    own = _entry(step, by, at, seat)
                    if "hidden" in own:
                        self.hidden.setdefault(step.index, {})[seat] = _json(own)
            if _ends_round(step.before, step.after):
                self.rounds.append((step.index + 1, _json(_round_result(step.after))))
            self.recent.append(step.after)
        return self.state

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
