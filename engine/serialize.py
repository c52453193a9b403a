"""JSON form of states (``"schema": 1``), with strict checking on the way in.

``to_dict(state)`` gives plain JSON types. ``from_dict(raw)`` rebuilds the state and
checks it: field types, seats in range, every catalog card in exactly one place, and
the variant's own invariants. Anything wrong raises ``InvalidState`` naming the field.
The generator state is written as hex strings (64-bit values lose precision as JSON
numbers in JavaScript).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import chain
from typing import TYPE_CHECKING, Any, TypeGuard

from .cards import Color
from .errors import EngineError, InvalidState
from .registry import find_variant
from .state import FIELDS, Pending, Phase, State

if TYPE_CHECKING:
    from .variant import Variant

SCHEMA = 1
MASK64 = (1 << 64) - 1
#: Every byte, in order: ``_ID_BYTES[:size]`` are the card ids of a catalog of ``size``
#: (the catalogs hold at most 112 cards).
_ID_BYTES = bytes(range(256))
#: Phases and colours by their JSON names (a dict lookup costs less than ``Enum(value)``).
_PHASES = {p.value: p for p in Phase}
_COLORS = {c.value: c for c in Color}
PLAY, ROUND_OVER, GAME_OVER = Phase.PLAY, Phase.ROUND_OVER, Phase.GAME_OVER


def _same(value: Any, variant: Variant) -> Any:
    return value


def _list(value: tuple[Any, ...], variant: Variant) -> list[Any]:
    return list(value)


def _list_or_none(value: tuple[Any, ...] | None, variant: Variant) -> list[Any] | None:
    return None if value is None else list(value)


def _enum_or_none(value: Phase | Color | None, variant: Variant) -> str | None:
    return None if value is None else value.value


def _pending_json(pend: Pending | None, variant: Variant) -> dict[str, Any] | None:
    if pend is None:
        return None
    return {
        "type": pend.type.value,
        "player": pend.player,
        "card": pend.card,
        "data": {k: _jsonable(v) for k, v in pend.data},
    }


#: Each ``State`` field: its JSON key and how its value is written.
_WRITERS: dict[str, tuple[str, Callable[[Any, Variant], Any]]] = {
    "variant": ("variant", _same),
    "num_players": ("players", _same),
    "options": ("options", lambda v, _: dict(v)),
    "seed": ("seed", _same),
    "rng": ("rng", lambda v, _: {"state": f"{v[0]:016x}", "inc": f"{v[1]:016x}"}),
    "phase": ("phase", _enum_or_none),
    "round": ("round", _same),
    "dealer": ("dealer", _same),
    "direction": ("direction", _same),
    "current": ("current", _same),
    "side": ("side", _same),
    "hands": ("hands", lambda v, _: [list(h) for h in v]),
    "draw_pile": ("draw_pile", _list),
    "discard": ("discard", _list),
    "active_color": ("active_color", _enum_or_none),
    "pending": ("pending", _pending_json),
    "exposed": ("exposed", _list),
    "scores": ("scores", _list),
    "round_scores": ("round_scores", _list_or_none),
    "round_winner": ("round_winner", _same),
    "winners": ("winners", _list),
    "move_count": ("move_count", _same),
    "ext": ("ext", lambda v, variant: variant.ext_to_json(v)),
}
if tuple(_WRITERS) != FIELDS:  # pragma: no cover - fails at import when State changes
    raise RuntimeError("engine.serialize must map every State field, in State's order")
_OUT = tuple(_WRITERS.values())
#: The JSON keys of a state: ``schema`` and one per ``State`` field.
KEYS = frozenset({"schema", *(key for key, _ in _OUT)})


def to_dict(state: State) -> dict[str, Any]:
    variant = find_variant(state.variant)
    out: dict[str, Any] = {"schema": SCHEMA}
    for (key, write), value in zip(_OUT, state, strict=True):
        out[key] = write(value, variant)
    return out


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Color):
        return value.value
    return value


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def _fail(field: str, detail: str) -> InvalidState:
    return InvalidState(f"state.{field}: {detail}", field=field)


def _is_int(v: Any) -> TypeGuard[int]:
    """An integer, not a bool (JSON parsers give plain ``int``: its subclasses are out)."""
    return type(v) is int


def _int(raw: dict[str, Any], key: str, lo: int | None = None, hi: int | None = None) -> int:
    v = raw.get(key)
    if type(v) is not int:
        raise _fail(key, "must be an integer")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise _fail(key, f"must be between {lo} and {hi}, not {v}")
    return v


def _seat_or_none(raw: dict[str, Any], key: str, n: int) -> int | None:
    if raw.get(key) is None:
        return None
    return _int(raw, key, 0, n - 1)


def _ids(value: Any, field: str, size: int) -> tuple[int, ...]:
    if not isinstance(value, list) or not set(map(type, value)) <= {int}:
        raise _fail(field, "must be a list of card ids")
    if value and (min(value) < 0 or max(value) >= size):
        bad = next(c for c in value if not 0 <= c < size)
        raise _fail(field, f"card id {bad} is not in the catalog (0..{size - 1})")
    return tuple(value)


def _piles(
    hands_raw: list[Any], draw_raw: Any, discard_raw: Any, size: int
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[int, ...]]:
    """Hands, draw pile and discard pile as tuples of card ids.

    All the cards are checked at once, in C: ``bytes()`` takes only integers from 0 to
    255 (and bools), ``translate`` deletes the ids below ``size`` (anything left is out
    of range) and counting ``int`` among the types rules out bools. Only when that fails
    are the piles checked one by one, to name the failing one.
    """
    lists = (*hands_raw, draw_raw, discard_raw)
    if all(type(pile) is list for pile in lists):
        cards = list(chain.from_iterable(lists))
        try:
            in_range = not bytes(cards).translate(None, _ID_BYTES[:size])
        except (TypeError, ValueError):  # not an integer, or one beyond 255
            in_range = False
        if in_range and list(map(type, cards)).count(int) == len(cards):
            return tuple(map(tuple, hands_raw)), tuple(draw_raw), tuple(discard_raw)
    hands = tuple(_ids(h, f"hands[{i}]", size) for i, h in enumerate(hands_raw))
    return hands, _ids(draw_raw, "draw_pile", size), _ids(discard_raw, "discard", size)


def _seats(value: Any, field: str, n: int) -> tuple[int, ...]:
    if type(value) is not list or (
        value and not (set(map(type, value)) == {int} and min(value) >= 0 and max(value) < n)
    ):
        raise _fail(field, f"must be a list of seats 0..{n - 1}")
    return tuple(value)


def _ints(value: Any, field: str, n: int) -> tuple[int, ...]:
    if type(value) is not list or len(value) != n or set(map(type, value)) != {int}:
        raise _fail(field, f"must be a list of {n} integers")
    return tuple(value)


def from_dict(raw: Any) -> State:
    """Rebuild and check a state; raise ``InvalidState`` for anything malformed."""
    try:
        return _from_dict(raw)
    except InvalidState:
        raise
    except EngineError as exc:
        raise InvalidState(exc.detail, field="variant") from None
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise InvalidState(f"state is malformed: {exc}") from None


def _from_dict(raw: Any) -> State:
    if not isinstance(raw, dict):
        raise InvalidState("state must be a JSON object")
    if raw.keys() != KEYS:
        unknown = sorted(set(raw) - KEYS)
        if unknown:
            raise _fail(unknown[0], "unknown field")
        raise _fail(sorted(KEYS - set(raw))[0], "missing")
    if raw["schema"] != SCHEMA:
        raise _fail("schema", f"unsupported schema {raw['schema']!r}; this service reads {SCHEMA}")
    variant = find_variant(raw["variant"])
    size = variant.catalog.size
    n = _int(raw, "players", variant.min_players, variant.max_players)
    options_raw = raw["options"]
    if not isinstance(options_raw, dict):
        raise _fail("options", "must be an object")
    try:
        options = variant.resolve_options(options_raw)
    except EngineError as exc:
        raise _fail("options", exc.detail) from None
    seed = _int(raw, "seed", 0, MASK64)
    rng_raw = raw["rng"]
    if not isinstance(rng_raw, dict) or set(rng_raw) != {"state", "inc"}:
        raise _fail("rng", "must be {state, inc} as hex strings")
    try:
        rng = (int(rng_raw["state"], 16), int(rng_raw["inc"], 16))
    except (TypeError, ValueError):
        raise _fail("rng", "state and inc must be hex strings") from None
    if not (0 <= rng[0] <= MASK64 and 0 <= rng[1] <= MASK64 and rng[1] & 1):
        raise _fail("rng", "state and inc must be 64-bit values, inc odd")
    phase = _PHASES.get(raw["phase"]) if isinstance(raw["phase"], str) else None
    if phase is None:
        raise _fail("phase", "must be one of " + ", ".join(_PHASES))
    round_ = _int(raw, "round", 1, None)
    dealer = _int(raw, "dealer", 0, n - 1)
    direction = raw["direction"]
    if direction not in (1, -1) or isinstance(direction, bool):
        raise _fail("direction", "must be 1 (clockwise) or -1")
    current = _int(raw, "current", 0, n - 1)
    side = _int(raw, "side", 0, variant.catalog.sides - 1)
    hands_raw = raw["hands"]
    if not isinstance(hands_raw, list) or len(hands_raw) != n:
        raise _fail("hands", f"must be a list of {n} hands")
    hands, draw_pile, discard = _piles(hands_raw, raw["draw_pile"], raw["discard"], size)
    color_raw = raw["active_color"]
    active_color = _COLORS.get(color_raw) if isinstance(color_raw, str) else None
    if active_color is None and color_raw is not None:
        raise _fail("active_color", f"{color_raw!r} is not a colour")
    pend_raw = raw["pending"]
    pend = None
    if pend_raw is not None:
        if not isinstance(pend_raw, dict) or set(pend_raw) != {"type", "player", "card", "data"}:
            raise _fail("pending", "must be {type, player, card, data} or null")
        ptype = variant.decisions.get(pend_raw["type"])
        if ptype is None:
            raise _fail("pending.type", f"{pend_raw['type']!r} is not a decision of {variant.id}")
        pplayer = _int(pend_raw, "player", 0, n - 1)
        pcard = pend_raw["card"]
        if pcard is not None and not (_is_int(pcard) and 0 <= pcard < size):
            raise _fail("pending.card", "must be a card id or null")
        data = pend_raw["data"]
        if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
            raise _fail("pending.data", "must be an object")
        pend = Pending(
            ptype,
            pplayer,
            pcard,
            tuple(sorted((k, _frozen(v)) for k, v in data.items())),
        )
    exposed = _seats(raw["exposed"], "exposed", n)
    scores = _ints(raw["scores"], "scores", n)
    round_scores = (
        None if raw["round_scores"] is None else _ints(raw["round_scores"], "round_scores", n)
    )
    round_winner = _seat_or_none(raw, "round_winner", n)
    winners = _seats(raw["winners"], "winners", n)
    move_count = _int(raw, "move_count", 0, None)
    try:
        ext = variant.ext_from_json(raw["ext"], n)
    except InvalidState:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        raise _fail("ext", f"malformed: {exc}") from None
    state = State(
        variant=variant.id,
        num_players=n,
        options=options,
        seed=seed,
        rng=rng,
        phase=phase,
        round=round_,
        dealer=dealer,
        direction=direction,
        current=current,
        side=side,
        hands=hands,
        draw_pile=draw_pile,
        discard=discard,
        active_color=active_color,
        pending=pend,
        exposed=exposed,
        scores=scores,
        round_scores=round_scores,
        round_winner=round_winner,
        winners=winners,
        move_count=move_count,
        ext=ext,
    )
    check_invariants(state)
    return state


def _conservation_error(piles: list[tuple[str, tuple[int, ...]]], size: int) -> None:
    """Raise the ``InvalidState`` that names what breaks card conservation."""
    seen: Counter[int] = Counter()
    where: dict[int, list[str]] = {}
    for name, pile in piles:
        for c in pile:
            seen[c] += 1
            where.setdefault(c, []).append(name)
    outside = sorted(c for c in seen if not 0 <= c < size)
    if outside:
        raise InvalidState(f"card id {outside[0]} is not in the catalog", field="cards")
    twice = sorted(c for c, k in seen.items() if k > 1)
    if twice:
        c = twice[0]
        raise InvalidState(
            f"card {c} is in more than one place ({', '.join(where[c])})", field="cards"
        )
    missing = sorted(set(range(size)) - set(seen))
    raise InvalidState(
        f"{len(missing)} card(s) are missing, e.g. {missing[:5]}; all {size} must be somewhere",
        field="cards",
    )


def check_invariants(state: State) -> None:
    """Card conservation and cross-field rules; raise ``InvalidState``."""
    variant = find_variant(state.variant)
    size = variant.catalog.size
    piles = list(variant.piles(state))
    cards = [pile for _, pile in piles]
    # Exactly the catalog's ids, each once (types were checked when the piles were read).
    if sum(map(len, cards)) != size or set().union(*cards) != variant.catalog.id_set:
        _conservation_error(piles, size)
    for s in state.exposed:
        if len(state.hands[s]) != 1:
            raise InvalidState(
                f"seat {s} is listed as exposed but holds {len(state.hands[s])} cards",
                field="exposed",
            )
    phase = state.phase
    if phase is GAME_OVER and not state.winners:
        raise InvalidState("a finished game must name its winners", field="winners")
    if phase is not GAME_OVER and state.winners:
        raise InvalidState("winners are only set when the game is over", field="winners")
    if state.pending is not None and (phase is ROUND_OVER or phase is GAME_OVER):
        raise InvalidState("no decision can be pending after the round", field="pending")
    if phase is PLAY and variant.uno_rule and not all(state.hands):
        empty = next(s for s, h in enumerate(state.hands) if not h)
        raise InvalidState(f"seat {empty} has no cards but the round is still on", field="hands")
    variant.check_state(state)
