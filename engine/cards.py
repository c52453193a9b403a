"""Cards, faces and per-variant catalogs.

A catalog is the list of a variant's physical cards; a card's id is its position in
the catalog file (``engine/catalogs/<variant>.json``, the rule book's deck list as
data) and never changes. Single-sided cards have one face; UNO Flip cards have two
(index 0 light, index 1 dark).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from typing import Any


class Color(StrEnum):
    RED = "red"
    YELLOW = "yellow"
    GREEN = "green"
    BLUE = "blue"
    PINK = "pink"
    TEAL = "teal"
    ORANGE = "orange"
    PURPLE = "purple"


LIGHT_COLORS: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)
DARK_COLORS: tuple[Color, ...] = (Color.PINK, Color.TEAL, Color.ORANGE, Color.PURPLE)


class Kind(StrEnum):
    NUMBER = "number"
    SKIP = "skip"
    REVERSE = "reverse"
    DRAW_ONE = "draw_one"
    DRAW_TWO = "draw_two"
    DRAW_FIVE = "draw_five"
    SKIP_EVERYONE = "skip_everyone"
    FLIP = "flip"
    WILD = "wild"
    WILD_DRAW_TWO = "wild_draw_two"
    WILD_DRAW_FOUR = "wild_draw_four"
    WILD_DRAW_COLOR = "wild_draw_color"
    WILD_DIP = "wild_dip"
    WILD_NUMBER = "wild_number"
    WILD_DOS = "wild_dos"
    WILD_REVERSE = "wild_reverse"
    WILD_SKIP = "wild_skip"
    WILD_TARGETED_DRAW_TWO = "wild_targeted_draw_two"
    WILD_SKIP_TWO = "wild_skip_two"
    WILD_FORCED_SWAP = "wild_forced_swap"


#: Kinds played without a colour of their own (the player names one). DOS's Wild #
#: keeps its printed colour and is handled by the DOS rules.
COLORLESS_WILDS = frozenset(
    {
        Kind.WILD,
        Kind.WILD_DRAW_TWO,
        Kind.WILD_DRAW_FOUR,
        Kind.WILD_DRAW_COLOR,
        Kind.WILD_DIP,
        Kind.WILD_DOS,
        Kind.WILD_REVERSE,
        Kind.WILD_SKIP,
        Kind.WILD_TARGETED_DRAW_TWO,
        Kind.WILD_SKIP_TWO,
        Kind.WILD_FORCED_SWAP,
    }
)


@dataclass(frozen=True, slots=True)
class Face:
    """One printed face of a card."""

    code: str
    color: Color | None
    kind: Kind
    value: int | None
    points: int

    @property
    def is_wild(self) -> bool:
        return self.kind in COLORLESS_WILDS

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"code": self.code, "color": self.color, "kind": self.kind}
        if self.value is not None:
            out["value"] = self.value
        out["points"] = self.points
        return out


@dataclass(frozen=True, slots=True)
class Card:
    """A physical card: its catalog id, its code and its face(s)."""

    id: int
    code: str
    faces: tuple[Face, ...]

    def face(self, side: int = 0) -> Face:
        return self.faces[side]

    def to_dict(self) -> dict[str, object]:
        if len(self.faces) == 1:
            return {"id": self.id, **self.faces[0].to_dict()}
        return {
            "id": self.id,
            "code": self.code,
            "light": self.faces[0].to_dict(),
            "dark": self.faces[1].to_dict(),
        }

    def __repr__(self) -> str:
        return f"Card({self.id}, {self.code!r})"


class Catalog:
    """The cards of one variant, with per-side lookup tables for the hot paths.

    ``color[side][id]``, ``kind[side][id]``, ``value[side][id]``, ``points[side][id]``,
    ``code[side][id]`` and ``wild[side][id]`` are tuples indexed by card id.
    """

    def __init__(self, name: str, cards: tuple[Card, ...]) -> None:
        self.name = name
        self.cards = cards
        self.size = len(cards)
        self.sides = len(cards[0].faces)
        sides = range(self.sides)
        self.color = tuple(tuple(c.faces[s].color for c in cards) for s in sides)
        self.kind = tuple(tuple(c.faces[s].kind for c in cards) for s in sides)
        self.value = tuple(tuple(c.faces[s].value for c in cards) for s in sides)
        self.points = tuple(tuple(c.faces[s].points for c in cards) for s in sides)
        self.code = tuple(tuple(c.faces[s].code for c in cards) for s in sides)
        self.wild = tuple(tuple(c.faces[s].is_wild for c in cards) for s in sides)
        # symbol[side][id]: one int per distinct (kind, number) of a non-wild face, -1 for
        # wild faces; two faces match by number or symbol exactly when their symbols are equal.
        symbols: dict[tuple[Kind, int | None], int] = {}
        self.symbol = tuple(
            tuple(
                -1
                if c.faces[s].is_wild
                else symbols.setdefault(
                    (c.faces[s].kind, c.faces[s].value if c.faces[s].kind is Kind.NUMBER else None),
                    len(symbols),
                )
                for c in cards
            )
            for s in sides
        )
        self.ids = tuple(range(self.size))
        self.id_set = frozenset(self.ids)

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, card_id: int) -> Card:
        return self.cards[card_id]

    def card_ref(self, card_id: int, side: int = 0) -> dict[str, object]:
        """The ``{id, code}`` a view or event shows for a visible card."""
        return {"id": card_id, "code": self.code[side][card_id]}

    def card_refs(self, card_ids: Iterable[int], side: int = 0) -> list[dict[str, object]]:
        """``card_ref`` of each card, in one comprehension (hands, draws)."""
        codes = self.code[side]
        return [{"id": c, "code": codes[c]} for c in card_ids]

    def to_list(self) -> list[dict[str, object]]:
        return [c.to_dict() for c in self.cards]


def _face(raw: dict[str, Any]) -> Face:
    """One face of a catalog record, as parsed from the catalog's JSON."""
    color = raw.get("color")
    value = raw.get("value")
    return Face(
        code=str(raw["code"]),
        color=Color(color) if color is not None else None,
        kind=Kind(raw["kind"]),
        value=int(value) if value is not None else None,
        points=int(raw["points"]),
    )


@cache
def load_catalog(name: str) -> Catalog:
    """Load ``engine/catalogs/<name>.json`` (ids are positions, checked here)."""
    text = resources.files("engine").joinpath("catalogs", f"{name}.json").read_text("utf-8")
    raw_cards = json.loads(text)
    cards = []
    for position, raw in enumerate(raw_cards):
        if raw["id"] != position:
            raise ValueError(f"catalog {name}: card at position {position} has id {raw['id']}")
        if "light" in raw:
            faces: tuple[Face, ...] = (_face(raw["light"]), _face(raw["dark"]))
        else:
            faces = (_face(raw),)
        cards.append(Card(id=position, code=str(raw["code"]), faces=faces))
    return Catalog(name, tuple(cards))
