"""House rule ``stacking`` (``none``, ``same``, ``up``): Draw Twos and Wild Draw Fours
add up into a penalty that the next player answers (``docs/rules/uno_classic.md``,
"House rules").

With ``same`` or ``up`` a played Draw Two or Wild Draw Four starts (or raises) the
penalty and the next player faces the decision ``penalty`` (``pending.data``: ``stack``,
the total; for a Wild Draw Four on top also ``offender``, ``guilty`` and ``hand``, as a
``challenge`` decision holds them). It is answered with:

- ``play``: a card that stacks (``stacks_on``), which raises the total for the next seat;
- ``draw``: the whole penalty is drawn and the turn is lost;
- ``challenge`` (only with a Wild Draw Four on top): guilty, its player draws the whole
  penalty and the challenger takes a normal turn; not guilty, the challenger draws the
  penalty plus 2 and loses the turn.

A draw card that goes out makes the next seat draw the whole penalty, then the round
is scored. The turned-up card acts as in classic UNO.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ..cards import Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event
from ..moves import Move, MoveType
from ..state import Pending, PendingType, State, Work, pending
from ..uno import UnoRules
from ..variant import defaults, lists
from .base import HouseBase

T = MoveType
D2, WD4 = Kind.DRAW_TWO, Kind.WILD_DRAW_FOUR


class HousePending(PendingType):
    """The decision the house rules add to classic UNO's."""

    PENALTY = "penalty"


PENALTY = HousePending.PENALTY


def penalty_of(s: State | Work) -> int:
    """The penalty's total while one is being answered, else 0."""
    pend = s.pending
    return pend.get("stack") if pend is not None and pend.type is PENALTY else 0  # type: ignore[no-any-return]


class Stacking(HouseBase):
    """The stacking house rule, on classic UNO's hooks."""

    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        **UnoRules.pending_moves,
        PENALTY: (frozenset({T.PLAY, T.DRAW, T.CHALLENGE}), "must_answer_penalty"),
    }

    def __init__(self) -> None:
        super().__init__()
        cat = self.catalog
        #: ``stacks_on`` compiled: stack up (False, True) -> side -> top card -> the
        #: cards that answer its penalty (python-chess's tables; a subclass overriding
        #: the hook gets its own). ``stackers`` reads it.
        self._stacking = tuple(
            tuple(
                tuple(
                    frozenset(c for c in cat.ids if self.stacks_on(side, top, c, up))
                    for top in cat.ids
                )
                for side in range(cat.sides)
            )
            for up in (False, True)
        )

    def stacks_on(self, side: int, top: int, card: int, up: bool) -> bool:
        """Whether ``card`` answers the penalty of the draw card ``top`` on ``side``: a
        Draw Two on a Draw Two (any colour), a Wild Draw Four on a Wild Draw Four, and
        with ``up`` (stacking ``up``) a Wild Draw Four on a Draw Two too (a Draw Two
        never on a Wild Draw Four). It must depend on its arguments only (compiled into
        ``_stacking`` when the variant is built)."""
        kinds = self.catalog.kind[side]
        kind, under = kinds[card], kinds[top]
        if kind is under:
            return kind is D2 or kind is WD4
        return up and kind is WD4 and under is D2

    def stackers(self, s: State | Work) -> frozenset[int]:
        """The cards that answer the penalty of the card in play, by the stacking rule
        ``s`` plays (``stacks_on`` compiled)."""
        return self._stacking[self.houses[s.options].stack_up][s.side][s.discard[-1]]

    def draw_value(self, s: State | Work, card: int) -> int:
        """What a draw card adds to a penalty (2 or 4)."""
        kind = self.kind(s, card)
        return self.draw_amounts.get(kind) or self.challenge_cards[kind][0]

    # ------------------------------------------------------------------ the decision
    def penalty_refused(self, s: State | Work) -> RulesError:
        """The error for a play facing a penalty that does not ``stacks_on`` it."""
        top = self.catalog.code[s.side][s.discard[-1]]
        return RulesError(
            f"a penalty of {penalty_of(s)} is on: answer the {top} with a card that "
            f"stacks on it ({self.stack_words(s)}), draw the penalty, or challenge a "
            "Wild Draw Four",
            code="cannot_stack",
        )

    def stack_words(self, s: State | Work) -> str:
        if self.kind(s, s.discard[-1]) is WD4:
            return "a Wild Draw Four"
        return "a Draw Two or a Wild Draw Four" if self.houses[s.options].stack_up else "a Draw Two"

    @lists(PENALTY)
    def legal_penalty(self, state: State, player: int) -> list[Move]:
        """Every card that stacks, the draw of the penalty, and a challenge of a Wild
        Draw Four on top."""
        moves: list[Move] = []
        for card in state.hands[player]:
            if self.may_play(state, player, card):
                moves += self.play_moves(state, player, card)
        moves.append(self._draw_moves[player])
        if state.pending.get("offender") is not None:  # type: ignore[union-attr]
            moves.append(Move(T.CHALLENGE, player))
        return moves

    @defaults(PENALTY)
    def default_penalty(self, state: State, player: int) -> Move:
        """Take the penalty: draw its whole total and lose the turn (`draw`)."""
        return self._draw_moves[player]

    # ------------------------------------------------------------------ raising it
    def raise_penalty(self, w: Work, player: int, card: int) -> None:
        """``player`` played the draw card ``card``: the next seat faces the penalty
        carried so far (the one ``player`` answered, if any) plus its value."""
        victim = w.next_seat(player)
        answered = w.answered
        stack = self.draw_value(w, card)
        if answered is not None and answered.type is PENALTY:
            stack += answered.get("stack")
        if self.kind(w, card) is WD4:
            w.pending = pending(
                PENALTY, victim, card, stack=stack, **self.challenge_data(w, player)
            )
        else:
            w.pending = pending(PENALTY, victim, card, stack=stack)
        w.current = victim

    def effect_draw_stacking(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A Draw Two: classic UNO's effect, or with stacking the penalty."""
        if not self.houses[w.options].penalty:
            UnoRules.effect_draw(self, w, player, card, move, events)
        else:
            self.raise_penalty(w, player, card)

    def effect_wild_draw_stacking(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A Wild Draw Four: classic UNO's challenge, or with stacking the penalty."""
        if not self.houses[w.options].penalty:
            UnoRules.effect_challengeable_draw(self, w, player, card, move, events)
        else:
            self.raise_penalty(w, player, card)

    def last_card_effect(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        """Going out with a draw card: the next seat draws its value, and the penalty the
        card answered (README "Draw cards as the last card")."""
        answered = w.answered
        if answered is None or answered.type is not PENALTY:
            super().last_card_effect(w, player, card, events)
            return
        total = answered.get("stack") + self.draw_value(w, card)
        self.draw_cards(w, w.next_seat(player), total, events, "penalty")

    # ------------------------------------------------------------------ answering it
    def draw_answer(self, w: Work, player: int, pend: Pending, events: list[Event]) -> None:
        """Facing a penalty, a draw takes it: the whole total, and the turn is lost
        (never drawn to match, never refused by forced play)."""
        if pend.type is not PENALTY:
            super().draw_answer(w, player, pend, events)
            return
        w.pending = None
        self.draw_cards(w, player, pend.get("stack"), events, "penalty")
        events.append(event("skipped", player=player))
        w.current = w.next_seat(player)

    def on_challenge(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        if pend is not None and pend.type is PENALTY and pend.get("offender") is None:
            raise RulesError(
                "only a Wild Draw Four on top can be challenged: stack a Draw Two or draw "
                "the penalty",
                code="nothing_to_challenge",
            )
        super().on_challenge(w, move, events)

    def challenge_penalties(self, w: Work, pend: Pending) -> tuple[int, int]:
        """With a penalty: the offender draws the whole penalty when guilty; a
        challenger who was wrong draws it plus what classic UNO adds (2)."""
        if pend.type is not PENALTY:
            return super().challenge_penalties(w, pend)
        draw, _, innocent = self.challenge_cards[self.kind(w, pend.card)]  # type: ignore[arg-type]
        stack: int = pend.get("stack")
        return stack, stack + innocent - draw

    # ------------------------------------------------------------------ views and checks
    def pending_view(self, state: State, pend: Pending, player: int | None) -> dict[str, Any]:
        out = super().pending_view(state, pend, player)
        if pend.type is PENALTY:
            out["draw_stack"] = pend.get("stack")
        return out

    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        """With stacking on, ``draw_stack``: the penalty's total (0 when none)."""
        super().view_extra(state, player, view)
        if self.houses[state.options].penalty:
            view["draw_stack"] = penalty_of(state)

    def check_state(self, state: State) -> None:
        super().check_state(state)
        pend = state.pending
        if pend is None or pend.type is not PENALTY:
            return
        stack = pend.get("stack")
        top = state.discard[-1] if state.discard else None
        if not self.houses[state.options].penalty:
            raise InvalidState("a penalty needs the stacking house rule", field="pending")
        if top is None or pend.card != top or self.kind(state, top) not in (D2, WD4):
            raise InvalidState(
                "a penalty names the draw card on top of the discard pile", field="pending.card"
            )
        if type(stack) is not int or stack < self.draw_value(state, top) or stack % 2:
            raise InvalidState(
                "a penalty's stack is an even total of at least its card's value",
                field="pending.data",
            )
        keys = set(dict(pend.data))
        if self.kind(state, top) is D2:
            if keys != {"stack"}:
                raise InvalidState(
                    "a Draw Two's penalty holds its stack only", field="pending.data"
                )
            return
        if keys != {"stack", "offender", "guilty", "hand"}:
            raise InvalidState(
                "a Wild Draw Four's penalty needs its stack, the offender's seat, a guilty "
                "flag and the hand a challenge reveals",
                field="pending.data",
            )
        self.check_challenge_data(state, pend)
