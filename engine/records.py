"""Game records: a finished (or running) game as one JSON document, and its verified replay.

A record (``"record": 1``) holds what sets a game up (variant, options, players, the
dealer as requested, the seed or the stacked deck, the seed commitment), every move in
order (``{"by", "at", "move"}``: who made it, ``player``, ``bot`` or ``clock``; when, RFC
3339 UTC with milliseconds or null; the move, whose ``player`` is its seat), each
round's result and the final result. docs/records.md describes it.

- ``record(...)`` builds one from the setup and the moves (it replays them, so a
  record is always consistent); ``seat=`` builds a running game's record for one seat:
  no seed, no deck, and no move field that seat may not see (``SECRET_FIELDS``, shown
  only to the seats the move's events show it to, like ``engine.redact``).
- ``replay(record)`` checks a record and plays it: the final state and the events, or
  ``RecordError`` at the first illegal move or differing result (``index``), or
  ``InvalidRecord`` (malformed; ``field``).
- ``dumps(record)``: pretty JSON, one move per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .commitment import NONCE, commitment
from .errors import EngineError, InvalidMove
from .events import Event, redact, reveal_all
from .moves import Move, MoveType
from .registry import find_variant
from .state import Phase, State

RECORD_VERSION = 1
#: Who made a move: a person, a bot seat, or the turn clock (a forced move).
MOVERS = ("player", "bot", "clock")
#: Bot seats: ``true``, or a level.
BOT_LEVELS = ("easy", "normal", "hard")
#: Move fields that name a card some seats may not see (the rest of every move is
#: public). Each is shown to the mover and to the seats the move's events show it to.
SECRET_FIELDS: dict[MoveType, tuple[str, ...]] = {MoveType.GIVE: ("card",)}
#: The most moves ``replay`` plays by default: a session's (``SESSION_MAX_MOVES``). A
#: replay costs what applying its moves costs (a 20,000-move game: seconds of CPU).
MAX_RECORD_MOVES = 20_000
MAX_NAME = 40
MAX_SEATS = 10
MAX_DECK = 200
FIELDS = (
    "record", "variant", "options", "players", "dealer", "seed", "deck", "seed_commitment",
    "moves", "rounds", "result",
)  # fmt: skip
ROUND_FIELDS = ("round", "winner", "points", "scores")
_TIME = re.compile(r"^\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
#: A game id (a session id, or a sealed game's random id): URL-safe ASCII, hashed as such.
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _json(value: Any) -> str:
    """Compact JSON (the engine has no dependencies: the standard library's ``json``)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


_DIGITS = re.compile(r"^(0|[1-9][0-9]{0,19})$")


class InvalidRecord(EngineError):
    """A record that is not a record: a field missing, unknown or of the wrong type
    (``field`` names it, dotted: ``moves.3.move.card``)."""

    code = "invalid_request"


class RecordError(EngineError):
    """A well-formed record that does not verify: ``index`` is the first bad
    move (0-based; for a result, the move that ended it, or -1 before any move)."""


# ---------------------------------------------------------------------------- times
def timestamp(epoch_ms: int) -> str:
    """``epoch_ms`` as RFC 3339 UTC with milliseconds: ``2026-12-03T10:46:24.123Z``."""
    t = datetime.fromtimestamp(epoch_ms / 1000, UTC)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{epoch_ms % 1000:03d}Z"


def _check_time(value: Any, field: str) -> None:
    """``value``: an RFC 3339 date-time (records write UTC with milliseconds; any offset
    and fraction are read) or null."""
    if value is None:
        return
    if not isinstance(value, str) or not _TIME.match(value):
        raise InvalidRecord(
            f"{field} must be an RFC 3339 date-time (2026-12-03T10:46:24.123Z) or null",
            field=field,
        )
    head, dot, rest = value.upper().replace("Z", "+00:00").partition(".")
    if dot:  # fromisoformat reads at most 6 fraction digits
        digits = len(rest) - len(rest.lstrip("0123456789"))
        head += "." + rest[: min(digits, 6)].ljust(3, "0") + rest[digits:]
    try:
        datetime.fromisoformat(head)
    except ValueError:
        raise InvalidRecord(f"{field} is not a real time", field=field) from None


# ---------------------------------------------------------------------------- the game
@dataclass(frozen=True)
class Step:
    """One move of a replay: its index, the state before and after, its events."""

    index: int
    before: State
    move: Move
    after: State
    events: list[Event]


def _round_result(state: State) -> dict[str, Any]:
    return {
        "round": state.round,
        "winner": state.round_winner,
        "points": list(state.round_scores) if state.round_scores is not None else None,
        "scores": list(state.scores),
    }


def _final_result(state: State) -> dict[str, Any] | None:
    if state.phase is not Phase.GAME_OVER:
        return None
    return {"winners": list(state.winners), "scores": list(state.scores)}


def _ends_round(before: State, after: State) -> bool:
    done = (Phase.ROUND_OVER, Phase.GAME_OVER)
    return after.phase in done and before.phase not in done


def _play(state: State, moves: Iterable[Move], first: int = 0) -> Iterator[Step]:
    """Apply ``moves`` in order (the first is move ``first`` of its game); a rules error
    is ``RecordError`` at its index."""
    variant = find_variant(state.variant)
    for i, move in enumerate(moves, first):
        try:
            after, events = variant.apply(state, move)
        except EngineError as e:
            raise RecordError(
                f"move {i} is illegal: {e.detail}",
                code="record_move_illegal",
                index=i,
                reason={"code": e.code, "detail": e.detail},
            ) from None
        yield Step(i, state, move, after, events)
        state = after


def _card_ids(value: Any) -> Iterator[int]:
    """The ids of the card references (``{"id", "code", ...}``) in an event."""
    if isinstance(value, dict):
        if isinstance(value.get("id"), int) and "code" in value:
            yield value["id"]
        for v in value.values():
            yield from _card_ids(v)
    elif isinstance(value, list):
        for v in value:
            yield from _card_ids(v)


def _shown(move: Move, field: str, events: list[Event], seat: int) -> bool:
    """Whether ``seat`` may see ``field`` of ``move``: its own move, or the move's events
    (as ``engine.redact`` shows them to ``seat``) show that card."""
    if seat == move.player:
        return True
    card = move.to_dict().get(field)
    return any(card == c for e in events for c in _card_ids(redact(e, seat)))


def _entry(step: Step, by: str, at: str | None, seat: int | None) -> dict[str, Any]:
    move = step.move.to_dict()
    out: dict[str, Any] = {"by": by, "at": at, "move": move}
    if seat is None:
        return out
    hidden = [
        f
        for f in SECRET_FIELDS.get(step.move.type, ())
        if f in move and not _shown(step.move, f, step.events, seat)
    ]
    for f in hidden:
        del move[f]
    if hidden:
        out["hidden"] = hidden
    return out


# ---------------------------------------------------------------------------- building
def _players(players: int | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(players, int):
        return [{"name": f"Player {i + 1}", "bot": False} for i in range(players)]
    return [
        {"name": p.get("name") or f"Player {i + 1}", "bot": p.get("bot", False)}
        for i, p in enumerate(players)
    ]


def _entries(moves: Iterable[Any]) -> Iterator[tuple[Move, str, str | None]]:
    """``(move, by, at)`` of each move: a ``Move``, a move dict, or a log entry
    ``{"by", "at": <epoch ms or RFC 3339>, "move"}``."""
    for m in moves:
        if isinstance(m, Move):
            yield m, "player", None
        elif isinstance(m, Mapping) and "move" in m:
            at = m.get("at")
            yield (
                Move.from_dict(m["move"]),
                m.get("by", "player"),
                timestamp(at) if isinstance(at, int) else at,
            )
        else:
            yield Move.from_dict(m), "player", None


def record(
    variant: str,
    players: int | Sequence[Mapping[str, Any]],
    seed: int,
    moves: Iterable[Any],
    dealer: int | None = None,
    options: Mapping[str, Any] | None = None,
    deck: Sequence[int] | None = None,
    game_id: str | None = None,
    seat: int | None = None,
    nonce: str | None = None,
) -> dict[str, Any]:
    """The record of the game set up so and played with ``moves`` (``Move``\\ s, move
    dicts or move-log entries ``{"by", "at", "move"}``; ``at`` in epoch ms or RFC 3339).

    ``game_id``: the record carries the seed commitment for it (with ``nonce``, the
    game's secret nonce, when it has one: null in a seat's copy). ``seat``: the record as
    that seat may see it while the game runs (no seed or deck, hidden move fields left
    out); once the game is over every seat sees the whole record. Raises
    ``RecordError`` when a move is illegal, ``SetupError`` for a bad setup."""
    return build(variant, players, seed, moves, dealer, options, deck, game_id, seat, nonce)[0]


def build(
    variant: str,
    players: int | Sequence[Mapping[str, Any]],
    seed: int,
    moves: Iterable[Any],
    dealer: int | None = None,
    options: Mapping[str, Any] | None = None,
    deck: Sequence[int] | None = None,
    game_id: str | None = None,
    seat: int | None = None,
    nonce: str | None = None,
) -> tuple[dict[str, Any], State]:
    """``record(...)`` and the final state it replays to."""
    from .record_builder import Builder  # it builds on this module's pieces

    built = Builder(variant, players, seed, dealer, options, deck, game_id, nonce)
    final = built.extend(moves)
    return built.record(seat), final


def _commitment(
    game_id: str | None, seed: int, nonce: str | None, sealed: bool
) -> dict[str, Any] | None:
    """A record's ``seed_commitment``: with the nonce (hidden, null, in a seat's copy
    of a running game) when the game has one."""
    if not game_id:
        return None
    sc = {"game_id": game_id, "sha256": commitment(game_id, seed, nonce)}
    return sc if nonce is None else {**sc, "nonce": None if sealed else nonce}


def dumps(rec: Mapping[str, Any]) -> str:
    """``rec`` as pretty JSON for a person: one move and one round per line."""
    lines = []
    for k, v in rec.items():
        if k in ("moves", "rounds") and isinstance(v, list):
            lines.append(_rows(k, [_json(x) for x in v]))
        else:
            lines.append(f"  {_json(k)}: {_json(v)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _rows(key: str, rows: Sequence[str]) -> str:
    """A list field of ``dumps``: one row (compact JSON) per line."""
    if not rows:
        return f"  {_json(key)}: []"
    return f"  {_json(key)}: [\n" + ",\n".join("    " + r for r in rows) + "\n  ]"


# ---------------------------------------------------------------------------- checking
def _need(raw: Mapping[str, Any], name: str, field: str) -> Any:
    if name not in raw:
        raise InvalidRecord(f"{field} is required", field=field)
    return raw[name]


def _closed(raw: Any, allowed: Iterable[str], required: Iterable[str], field: str) -> None:
    if not isinstance(raw, dict):
        raise InvalidRecord(
            f"{field or 'the record'} must be a JSON object", field=field or "record"
        )
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        where = f"{field}.{unknown[0]}" if field else unknown[0]
        raise InvalidRecord(f"unknown field {where}", field=where)
    for name in required:
        _need(raw, name, f"{field}.{name}" if field else name)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _int_list(v: Any, field: str, nullable: bool = False, limit: int | None = None) -> None:
    if v is None and nullable:
        return
    if not isinstance(v, list) or not all(_is_int(x) for x in v):
        raise InvalidRecord(f"{field} must be a list of integers", field=field)
    if limit is not None and len(v) > limit:
        raise InvalidRecord(f"{field} holds more than {limit} items", field=field)


@dataclass(frozen=True)
class Parsed:
    """A record checked for shape: its setup as ``engine.start`` takes it, and its moves."""

    raw: Mapping[str, Any]
    seed: int | None
    moves: list[tuple[Move, str, str | None]]


def check(raw: Any, max_moves: int = MAX_RECORD_MOVES) -> Parsed:
    """``raw`` checked for shape (``InvalidRecord`` naming the first bad field), with at
    most ``max_moves`` moves."""
    _closed(raw, FIELDS, ("record", "variant", "players", "seed", "moves"), "")
    if raw["record"] != RECORD_VERSION or not _is_int(raw["record"]):
        raise InvalidRecord(
            f"record must be {RECORD_VERSION} (the format's version)", field="record"
        )
    if not isinstance(raw["variant"], str) or not 1 <= len(raw["variant"]) <= 64:
        raise InvalidRecord("variant must be a variant id", field="variant")
    options = raw.get("options")
    if options is not None and not isinstance(options, dict):
        raise InvalidRecord("options must be an object or null", field="options")
    players = raw["players"]
    if not isinstance(players, list) or not 1 <= len(players) <= MAX_SEATS:
        raise InvalidRecord(f"players must list 1 to {MAX_SEATS} seats", field="players")
    for i, p in enumerate(players):
        f = f"players.{i}"
        _closed(p, ("name", "bot"), ("name", "bot"), f)
        if not isinstance(p["name"], str) or not 1 <= len(p["name"]) <= MAX_NAME:
            raise InvalidRecord(f"{f}.name must be 1 to {MAX_NAME} characters", field=f"{f}.name")
        if not (isinstance(p["bot"], bool) or p["bot"] in BOT_LEVELS):
            raise InvalidRecord(
                f"{f}.bot must be true, false or one of {', '.join(BOT_LEVELS)}", field=f"{f}.bot"
            )
    dealer = raw.get("dealer")
    if dealer is not None and not (_is_int(dealer) and dealer >= 0):
        raise InvalidRecord("dealer must be a seat or null", field="dealer")
    seed_raw = raw["seed"]
    if seed_raw is not None and not (isinstance(seed_raw, str) and _DIGITS.match(seed_raw)):
        raise InvalidRecord("seed must be a decimal string (or null when hidden)", field="seed")
    seed = int(seed_raw) if seed_raw is not None else None
    _int_list(raw.get("deck"), "deck", nullable=True, limit=MAX_DECK)
    sc = raw.get("seed_commitment")
    if sc is not None:
        _closed(sc, ("game_id", "sha256", "nonce"), ("game_id", "sha256"), "seed_commitment")
        nonce = sc.get("nonce")
        if nonce is not None and not (isinstance(nonce, str) and NONCE.fullmatch(nonce)):
            raise InvalidRecord(
                "seed_commitment.nonce must be 32 lowercase hex digits (or null when hidden)",
                field="seed_commitment.nonce",
            )
        if not isinstance(sc["game_id"], str) or not _GAME_ID.fullmatch(sc["game_id"]):
            raise InvalidRecord(
                "seed_commitment.game_id must be a game id (1 to 64 of A-Z a-z 0-9 _ -)",
                field="seed_commitment.game_id",
            )
        if not isinstance(sc["sha256"], str) or not _HEX64.match(sc["sha256"]):
            raise InvalidRecord(
                "seed_commitment.sha256 must be 64 lowercase hex digits",
                field="seed_commitment.sha256",
            )
    moves = raw["moves"]
    if not isinstance(moves, list):
        raise InvalidRecord("moves must be a list", field="moves")
    if len(moves) > max_moves:
        raise InvalidRecord(f"moves holds more than {max_moves} moves", field="moves")
    parsed = []
    for i, m in enumerate(moves):
        f = f"moves.{i}"
        _closed(m, ("by", "at", "move", "hidden"), ("by", "move"), f)
        if m["by"] not in MOVERS:
            raise InvalidRecord(f"{f}.by must be one of {', '.join(MOVERS)}", field=f"{f}.by")
        _check_time(m.get("at"), f"{f}.at")
        hidden = m.get("hidden")
        if hidden is not None and not (
            isinstance(hidden, list) and all(isinstance(h, str) for h in hidden)
        ):
            raise InvalidRecord(f"{f}.hidden must be a list of move fields", field=f"{f}.hidden")
        try:
            move = Move.from_dict(m["move"])
        except InvalidMove as e:
            sub = e.context.get("field")
            raise InvalidRecord(e.detail, field=f"{f}.move" + (f".{sub}" if sub else "")) from None
        parsed.append((move, m["by"], m.get("at")))
    rounds = raw.get("rounds")
    if rounds is not None:
        if not isinstance(rounds, list):
            raise InvalidRecord("rounds must be a list", field="rounds")
        for i, r in enumerate(rounds):
            f = f"rounds.{i}"
            _closed(r, ROUND_FIELDS, ROUND_FIELDS, f)
            if not (_is_int(r["round"]) and r["round"] >= 1):
                raise InvalidRecord(f"{f}.round must be a round number", field=f"{f}.round")
            if r["winner"] is not None and not (_is_int(r["winner"]) and r["winner"] >= 0):
                raise InvalidRecord(f"{f}.winner must be a seat or null", field=f"{f}.winner")
            _int_list(r["points"], f"{f}.points", nullable=True)
            _int_list(r["scores"], f"{f}.scores")
    result = raw.get("result")
    if result is not None:
        _closed(result, ("winners", "scores"), ("winners", "scores"), "result")
        _int_list(result["winners"], "result.winners")
        if any(w < 0 for w in result["winners"]):
            raise InvalidRecord("result.winners must be seats", field="result.winners")
        _int_list(result["scores"], "result.scores")
    return Parsed(raw, seed, parsed)


@dataclass(frozen=True)
class Progress:
    """Where a replay in pages stands (``replay(..., start=)``): the state after the
    moves verified so far, how many moves and how many finished rounds those were."""

    state: State
    moves: int
    rounds: int


@dataclass(frozen=True)
class Replayed:
    """A verified record (or page of one): the state after it, its events (secrets
    merged in: the record's holder has the seed), the scores, and ``progress``: the
    moves and rounds verified in all, from the first page on."""

    state: State
    events: list[Event]
    progress: Progress

    @property
    def score(self) -> dict[str, Any]:
        return find_variant(self.state.variant).score(self.state)


def _differs(index: int, what: str, stated: Any, replayed: Any) -> RecordError:
    return RecordError(
        f"the record states {what} {_json(stated)}, the replay gives {_json(replayed)}",
        code="record_result_differs",
        index=index,
        stated=stated,
        replayed=replayed,
    )


def _first_state(rec: Parsed) -> tuple[State, list[Event]]:
    """The record's dealt game, its seed checked against its commitment."""
    if rec.seed is None:
        raise RecordError(
            "the record has no seed (a running game's copy): it replays once the game is over",
            code="record_seed_missing",
            index=-1,
        )
    sc = rec.raw.get("seed_commitment")
    if sc is not None and commitment(sc["game_id"], rec.seed, sc.get("nonce")) != sc["sha256"]:
        raise RecordError(
            f"the seed does not match the seed commitment of game {sc['game_id']!r}",
            code="seed_commitment_mismatch",
            index=-1,
        )
    options = rec.raw.get("options")
    state, events = find_variant(rec.raw["variant"]).new_game(
        len(rec.raw["players"]), rec.seed, rec.raw.get("dealer"), options, rec.raw.get("deck")
    )
    return state, [reveal_all(e) for e in events]


def replay(raw: Any, max_moves: int = MAX_RECORD_MOVES, start: Progress | None = None) -> Replayed:
    """Check ``raw`` and play it: ``Replayed``, or ``InvalidRecord`` (malformed),
    ``SetupError`` (a setup the variant refuses), ``RecordError`` (``record_seed_missing``,
    ``seed_commitment_mismatch``, ``record_move_illegal``, ``record_result_differs``).

    ``start``: ``raw`` is a later page of a record (its ``moves`` follow the
    ``start.moves`` verified before, its ``rounds`` are the rounds that end within
    them): played on from ``start.state``, the deal and the seed left as the first page
    checked them (the caller makes sure ``raw`` has that page's setup:
    ``record_pages.setup_digest``). A move's ``index`` is then the record's, counted
    from its first move; the events are this page's."""
    rec = check(raw, max_moves)
    if start is None:
        state, events = _first_state(rec)
        start = Progress(state, 0, 0)
    else:
        state, events = start.state, []
    stated_rounds = rec.raw.get("rounds")
    done = 0
    last = start.moves - 1
    for step in _play(state, (m for m, _, _ in rec.moves), start.moves):
        events.extend(reveal_all(e) for e in step.events)
        state, last = step.after, step.index
        if not _ends_round(step.before, step.after):
            continue
        if stated_rounds is not None:
            got = _round_result(step.after)
            want = stated_rounds[done] if done < len(stated_rounds) else None
            if want != got:
                raise _differs(step.index, f"round {got['round']} as", want, got)
        done += 1
    if stated_rounds is not None and done < len(stated_rounds):
        raise _differs(last, "a round more:", stated_rounds[done], None)
    if "result" in rec.raw:
        got_result = _final_result(state)
        if rec.raw["result"] != got_result:
            raise _differs(last, "the result", rec.raw["result"], got_result)
    return Replayed(state, events, Progress(state, last + 1, start.rounds + done))
