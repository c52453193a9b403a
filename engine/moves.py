"""Moves: immutable values that round-trip through the contract's JSON form."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from .cards import Color
from .errors import InvalidMove


class MoveType(StrEnum):
    PLAY = "play"
    DRAW = "draw"
    PASS = "pass"
    CHOOSE_COLOR = "choose_color"
    CHOOSE_TARGET = "choose_target"
    CHALLENGE = "challenge"
    ACCEPT = "accept"
    UNO = "uno"
    CATCH = "catch"
    GIVE = "give"
    DRAFT_KEEP = "draft_keep"
    DRAFT_DISCARD = "draft_discard"
    MATCH = "match"
    PLACE = "place"
    END_TURN = "end_turn"
    NEXT_ROUND = "next_round"


T = MoveType


#: Which move fields each move type may carry (``type`` and ``player`` always).
MOVE_FIELDS: dict[MoveType, frozenset[str]] = {
    T.PLAY: frozenset({"card", "color", "target", "chain", "uno"}),
    T.DRAW: frozenset(),
    T.PASS: frozenset(),
    T.CHOOSE_COLOR: frozenset({"color"}),
    T.CHOOSE_TARGET: frozenset({"target"}),
    T.CHALLENGE: frozenset(),
    T.ACCEPT: frozenset(),
    T.UNO: frozenset(),
    T.CATCH: frozenset({"target"}),
    T.GIVE: frozenset({"card", "uno"}),
    T.DRAFT_KEEP: frozenset(),
    T.DRAFT_DISCARD: frozenset(),
    T.MATCH: frozenset({"target", "cards"}),
    T.PLACE: frozenset({"card"}),
    T.END_TURN: frozenset(),
    T.NEXT_ROUND: frozenset(),
}

#: The code for a move sent when nothing it answers is pending.
NOT_NOW: dict[MoveType, str] = {
    T.PASS: "nothing_to_pass",
    T.CHOOSE_COLOR: "no_color_to_choose",
    T.CHOOSE_TARGET: "no_target_to_choose",
    T.CHALLENGE: "nothing_to_challenge",
    T.ACCEPT: "nothing_to_accept",
    T.GIVE: "nothing_to_give",
    T.DRAFT_KEEP: "not_drafting",
    T.DRAFT_DISCARD: "not_drafting",
    T.END_TURN: "nothing_to_end",
}

if set(MOVE_FIELDS) != set(MoveType):  # pragma: no cover - fails at import
    raise RuntimeError("every MoveType needs its MOVE_FIELDS entry")


class MatchPart(NamedTuple):
    """DOS: one card of a match, with what a Wild DOS / Wild # is declared to be."""

    card: int
    color: Color | None = None
    number: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"card": self.card}
        if self.color is not None:
            out["color"] = self.color.value
        if self.number is not None:
            out["number"] = self.number
        return out


class Move(NamedTuple):
    """A player's move. Only the fields its type uses are set."""

    type: MoveType
    player: int
    card: int | None = None
    color: Color | None = None
    target: int | MatchPart | None = None
    chain: tuple[int, ...] | None = None
    uno: bool = False
    cards: tuple[MatchPart, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type.value, "player": self.player}
        if self.card is not None:
            out["card"] = self.card
        if self.color is not None:
            out["color"] = self.color.value
        if self.target is not None:
            out["target"] = (
                self.target.to_dict() if isinstance(self.target, MatchPart) else self.target
            )
        if self.chain is not None:
            out["chain"] = list(self.chain)
        if self.uno:
            out["uno"] = True
        if self.cards is not None:
            out["cards"] = [c.to_dict() for c in self.cards]
        return out

    @classmethod
    def from_dict(cls, raw: Any) -> Move:
        """Parse the contract's JSON form; raise ``InvalidMove`` with the failing field."""
        if not isinstance(raw, dict):
            raise InvalidMove("a move must be a JSON object")
        known = {"type", "player", "card", "color", "target", "chain", "uno", "cards"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise InvalidMove(f"unknown move field(s): {', '.join(unknown)}", field=unknown[0])
        type_value: Any = raw.get("type")  # anything; not a move type (None too) -> ValueError
        try:
            mtype = MoveType(type_value)
        except ValueError:
            raise InvalidMove(
                f"unknown move type {raw.get('type')!r}; expected one of "
                + ", ".join(t.value for t in MoveType),
                code="unknown_move_type",
                field="type",
            ) from None
        player = _int(raw, "player", required=True)
        card = _int(raw, "card")
        color = _color(raw.get("color"), "color")
        target_raw = raw.get("target")
        target: int | MatchPart | None
        if isinstance(target_raw, dict):
            target = _part(target_raw, "target")
        else:
            target = _int(raw, "target")
        chain = None
        if raw.get("chain") is not None:
            chain_raw = raw["chain"]
            if not isinstance(chain_raw, list) or not all(_is_int(c) and c >= 0 for c in chain_raw):
                raise InvalidMove("chain must be a list of card ids", field="chain")
            chain = tuple(chain_raw)
        uno = raw.get("uno", False)
        if uno is None:
            uno = False
        if not isinstance(uno, bool):
            raise InvalidMove("uno must be true or false", field="uno")
        cards = None
        if raw.get("cards") is not None:
            cards_raw = raw["cards"]
            if not isinstance(cards_raw, list):
                raise InvalidMove("cards must be a list of {card, color?, number?}", field="cards")
            cards = tuple(_part(c, "cards") for c in cards_raw)
        return cls(mtype, player, card, color, target, chain, uno, cards)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"Move({self.to_dict()})"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(raw: dict[str, Any], name: str, required: bool = False) -> int | None:
    value = raw.get(name)
    if value is None:
        if required:
            raise InvalidMove(f"move field {name!r} is required", field=name)
        return None
    if not _is_int(value):
        raise InvalidMove(f"move field {name!r} must be an integer", field=name)
    if value < 0:
        raise InvalidMove(f"move field {name!r} must not be negative", field=name)
    return int(value)


def _color(value: Any, field: str) -> Color | None:
    if value is None:
        return None
    try:
        return Color(value)
    except ValueError:
        raise InvalidMove(
            f"{field} {value!r} is not a colour; expected one of "
            + ", ".join(c.value for c in Color),
            code="invalid_color",
            field=field,
        ) from None


def _part(raw: Any, field: str) -> MatchPart:
    if not isinstance(raw, dict) or set(raw) - {"card", "color", "number"}:
        raise InvalidMove(f"{field} entries must be objects {{card, color?, number?}}", field=field)
    card = _int(raw, "card", required=True)
    number = _int(raw, "number")
    return MatchPart(card, _color(raw.get("color"), field), number)  # type: ignore[arg-type]
