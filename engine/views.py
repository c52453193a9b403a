"""How a variant shows cards and states to a seat: card references, views, the colours
a seat may name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .cards import DARK_COLORS, LIGHT_COLORS, Color
from .facts import VariantFacts
from .state import Pending, State, Work


class Views(VariantFacts):
    """Card references and views (what a seat may see)."""

    def __init__(self) -> None:
        super().__init__()
        cls = type(self)
        #: Whether this variant shows cards other than as the catalog does (its own
        #: ``public_ref`` or ``private_ref``); if not, the hot paths build the
        #: ``{id, code}`` references themselves.
        self._custom_refs = (
            cls.public_ref is not Views.public_ref or cls.private_ref is not Views.private_ref
        )

    def public_ref(self, s: State | Work, card: int) -> dict[str, Any]:
        """How a face-up card is shown to everybody (``Catalog.card_ref``)."""
        return {"id": card, "code": self.catalog.code[s.side][card]}

    def private_ref(self, s: State | Work, card: int) -> dict[str, Any]:
        """How a card is shown to the one seat allowed to see it."""
        return self.catalog.card_ref(card, s.side)

    def private_refs(self, s: State | Work, cards: Iterable[int]) -> list[dict[str, Any]]:
        """``private_ref`` of each card (a hand, a draw): the catalog's reference when the
        variant shows cards as the catalog does, else its own ``private_ref`` per card."""
        refs = []
        if not self._custom_refs:
            codes = self.catalog.code[s.side]
            # A loop, not a comprehension: no function made and called (most draws are
            # of one card).
            for c in cards:
                refs.append({"id": c, "code": codes[c]})  # Catalog.card_refs
            return refs
        private_ref = self.private_ref
        for c in cards:
            refs.append(private_ref(s, c))
        return refs

    def card_name(self, s: State | Work, card: int) -> int:
        """How error messages name a card: as the seat names it (UNO Flip: its label)."""
        return card

    def colors_for(self, s: State | Work) -> tuple[Color, ...]:
        """The colours a player may name on the side in play (``side_colors``)."""
        return self.side_colors(s.side)

    def side_colors(self, side: int) -> tuple[Color, ...]:
        """The colours a player may name on ``side`` (0 light, 1 dark)."""
        return DARK_COLORS if side == 1 else LIGHT_COLORS

    def view(self, state: State, player: int | None) -> dict[str, Any]:
        """What ``player`` may see (``None``: a spectator, public information only)."""
        top = state.discard[-1] if state.discard else None
        pend = state.pending
        view: dict[str, Any] = {
            "variant": self.id,
            "phase": state.phase.value,
            "round": state.round,
            "dealer": state.dealer,
            "direction": "clockwise" if state.direction == 1 else "counterclockwise",
            "current_player": state.current,
            "pending": self.pending_view(state, pend, player) if pend is not None else None,
            "player": player,
            "hand": self.private_refs(state, state.hands[player]) if player is not None else [],
            "hand_sizes": [len(h) for h in state.hands],
            "draw_pile_size": len(state.draw_pile),
            "discard_size": len(state.discard),
            "discard_top": self.public_ref(state, top) if top is not None else None,
            "active_color": state.active_color.value if state.active_color else None,
            "uno_exposed": list(state.exposed),
            "scores": list(state.scores),
            "round_scores": list(state.round_scores) if state.round_scores is not None else None,
            "round_winner": state.round_winner,
            "winners": list(state.winners),
            "target": state.option("target", self.target),
            "move_count": state.move_count,
        }
        self.view_extra(state, player, view)
        return view

    def pending_view(self, state: State, pend: Pending, player: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"type": pend.type.value, "player": pend.player}
        if pend.card is not None and player == pend.player:
            out["card"] = self.private_ref(state, pend.card)
        return out

    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        """Add variant fields to a view."""
