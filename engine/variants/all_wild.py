"""UNO All Wild (``uno_all_wild``): 112 wild cards, no colours, no numbers
(rules: ``docs/rules/uno_all_wild.md``).

Every card plays on every card. A plain Wild does nothing; the seven wild action cards
are Wild Reverse, Wild Skip, Wild Draw Two, Wild Draw Four, Wild Targeted Draw Two
(``WT2``: the chosen opponent draws 2 and keeps their turn), Wild Skip Two (``WS2``) and
Wild Forced Swap (``WX``: swap hands with the chosen opponent). Nothing is challengeable.
The per-kind counts are data, in the catalog (``engine/catalogs/uno_all_wild.json``).

Moves and decisions:

- ``play``: ``card``, and ``target`` (an opponent's seat) for ``WT2`` and ``WX`` only;
  ``uno: true`` when the play leaves the mover with one card. There are no colours:
  a play takes no ``color`` (``color_not_allowed``) and ``active_color`` stays null.
- ``draw``: only under the one exception of the rule book: the player holds no action
  card (plain Wilds only) and the next player holds a single card. The drawn card must
  be played at once: the ``play_drawn`` decision, answered only by playing that card
  (``must_play_drawn_card``); its action takes effect, with a ``target`` if it needs one.
- ``choose_target``: a turned-up ``WT2`` or ``WX`` acts as if the dealer had played it,
  so the dealer names the opponent (pending ``choose_target``).
- ``uno`` / ``catch`` as in every variant (README "Saying UNO").

Choices where the rule book is silent (documented for integrators):

- A turned-up Wild Reverse: the dealer plays first and play goes to the right. With two
  players it acts as a Skip, as a played one does: the other player is skipped, the
  dealer plays first and the direction stays clockwise.
- A turned-up Wild Skip Two skips the two players left of the dealer; with two or three
  players that is everybody else, so the dealer plays first.
- Wild Skip Two skips the next two seats other than the player: with two players the
  opponent once (the player plays again), with three both opponents (again the player
  plays again), with more the seat three places on plays next.
- After a turned-up ``WT2`` / ``WX`` and the dealer's choice, the player left of the
  dealer plays first (the ``WT2`` target keeps their turn).
- Going out with a ``WX``: the player who plays their last card wins the round, so no
  swap happens; the play still names a target, like every ``WX`` play. Going out with a
  draw card (``WD2``, ``WD4``, ``WT2``) makes its victim draw before the round is scored.
- UNO after a swap: the duty falls on every player the swap leaves with one card (rule
  book: "A player left with one card by the swap must say UNO"). The mover says it with
  ``uno: true`` on the swap (allowed exactly when the swap leaves them one card); the
  other party with a later ``uno`` move. That holds for a target who already held a
  single card too: the swap gives them a new one-card hand, and a new duty.
- The draw exception when nothing can be drawn (every other card in hands): the draw
  yields nothing and ends the turn (README "Draw pile empty").
- Cut for dealer: no card has a number, so every cut ties; the base cut draws until the
  deck is exhausted, then the generator picks among all seats (uniformly).
- ``uno: true`` on a move other than a play is rejected (``uno_not_applicable``).
- A ``pass`` while the drawn card waits is answered with ``must_play_drawn_card``
  (there is no ``pass`` move in this game); otherwise it is an ``unknown_move``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar

from ..cards import Color, Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event
from ..moves import Move, MoveType
from ..state import PendingType, Phase, State, Work, pending
from ..uno import NO_COLOR, NO_TARGET, UnoPending, UnoRules
from ..variant import TURN, defaults, first_plain, handles, lists

T = MoveType
# Enum members as module constants: on Python 3.11 every ``T.X`` / ``Phase.X`` is a
# descriptor call (about a thousand instructions) in the hot paths below.
PLAY_T, PASS_T = T.PLAY, T.PASS
PLAY = Phase.PLAY


class AllWildPending(PendingType):
    """UNO All Wild's decision beyond classic UNO's (it reuses ``play_drawn``)."""

    CHOOSE_TARGET = "choose_target"


P = AllWildPending
PLAY_DRAWN = UnoPending.PLAY_DRAWN
CHOOSE_TARGET = P.CHOOSE_TARGET

WILD = Kind.WILD
WILD_REVERSE = Kind.WILD_REVERSE
WT2 = Kind.WILD_TARGETED_DRAW_TWO
WX = Kind.WILD_FORCED_SWAP
#: Kinds whose play names an opponent (``target``).
TARGETED = frozenset({WT2, WX})
#: Cards the chosen opponent of a Wild Targeted Draw Two draws.
TARGETED_DRAW = 2


def _chosen(move: Move | None) -> int:
    """The opponent a targeted play names (``check_play`` has checked it). A turned-up
    targeted card waits for ``choose_target`` instead, so it never comes here."""
    if move is None or not isinstance(move.target, int):
        raise TypeError(f"a targeted card's effect needs the play's target, not {move!r}")
    return move.target


class AllWild(UnoRules):
    id = "uno_all_wild"
    title = "UNO All Wild"
    catalog_name = "uno_all_wild"
    min_players = 2
    max_players = 10
    target = 500
    notes = (
        "112 cards, every one wild and colourless: plain Wild and seven wild action "
        "kinds. The per-kind counts come from a published card list, not from the box "
        "or the rule sheet (which gives none); they are data, in the catalog.",
        "There are no colours: plays take no 'color' and active_color stays null.",
        "Wild Targeted Draw Two and Wild Forced Swap plays name an opponent ('target'); a "
        "turned-up one waits for the dealer's choose_target.",
        "No voluntary draw. Exception: a player holding only plain Wilds, when the next "
        "player holds one card, may draw one card and must play it at once.",
        "Nothing is challengeable. Scoring: plain Wild 20, every wild action card 50.",
        "Going out with a Wild Forced Swap ends the round without a swap; going out with "
        "a draw card makes its victim draw before scoring.",
        "No card has a number, so the cut for dealer always ties and the generator picks.",
    )
    move_types: ClassVar[frozenset[MoveType]] = frozenset(
        {T.PLAY, T.DRAW, T.CHOOSE_TARGET, T.UNO, T.CATCH, T.NEXT_ROUND}
    )
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        PLAY_DRAWN: (frozenset({T.PLAY}), "must_play_drawn_card"),
        P.CHOOSE_TARGET: (frozenset({T.CHOOSE_TARGET}), "must_choose_target"),
    }
    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {"target_chosen", "swapped"}
    bot_rank: ClassVar[dict[MoveType, int]] = {**UnoRules.bot_rank, T.CHOOSE_TARGET: 0}
    #: Every turned-up card stays and acts as if the dealer had played it.
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset()
    draw_amounts: ClassVar[dict[Kind, int]] = {Kind.WILD_DRAW_TWO: 2, Kind.WILD_DRAW_FOUR: 4}
    challenge_cards: ClassVar[dict[Kind, tuple[int, int, int]]] = {}

    # ------------------------------------------------------------------ static tables
    @cached_property
    def _kinds(self) -> tuple[Kind, ...]:
        return self.catalog.kind[0]

    @cached_property
    def _swaps(self) -> frozenset[int]:
        """The Wild Forced Swap cards."""
        return frozenset(c for c, kind in enumerate(self._kinds) if kind is WX)

    def matches(self, side: int, card: int, active: Any, top: int) -> bool:
        """Every card plays on every card."""
        return True

    # ------------------------------------------------------------------ guards
    def check_move(self, state: State, move: Move) -> None:
        """The common guards, with a ``pass`` while the drawn card waits answered as
        ``must_play_drawn_card`` (there is no ``pass`` move to refuse it as unknown).
        ``uno: true`` on a move other than a play is refused by the common guards
        (``uno_not_applicable``: only a play carries ``uno``, ``MOVE_FIELDS``)."""
        if move[0] is PASS_T:
            pend = state.pending
            if (
                pend is not None
                and pend.type is PLAY_DRAWN
                and move.player == pend.player
                and state.phase is PLAY
            ):
                raise RulesError(
                    "the card just drawn must be played at once; there is no pass",
                    code="must_play_drawn_card",
                )
        UnoRules.check_move(self, state, move)

    # ------------------------------------------------------------------ turned-up card
    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        """The turned-up card acts as if the dealer had played it (rule book "Deal")."""
        dealer = w.dealer
        kind = self._kinds[card]
        if kind is WILD:
            w.current = w.next_seat(dealer)
        elif kind in TARGETED:
            w.current = dealer
            w.pending = pending(CHOOSE_TARGET, dealer, card, then=w.next_seat(dealer))
        elif kind is WILD_REVERSE:
            if w.num_players == 2:  # acts as a Skip: the dealer plays first
                self.effect_skip(w, dealer, card, None, events)
            else:
                w.direction = -1
                events.append(event("reversed", direction="counterclockwise"))
                w.current = dealer
        else:
            self.card_effect(w, dealer, card, None, events)

    @lists(P.CHOOSE_TARGET)
    def legal_choose_target(self, state: State, player: int) -> list[Move]:
        return [Move(T.CHOOSE_TARGET, player, target=t) for t in self._opponents(state, player)]

    @defaults(P.CHOOSE_TARGET)
    def default_choose_target(self, state: State, player: int) -> Move:
        """Name the first opponent in seat order (the lowest seat number other than the
        player's)."""
        return Move(T.CHOOSE_TARGET, player, target=self._opponents(state, player)[0])

    @handles(T.CHOOSE_TARGET)
    def on_choose_target(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        assert pend is not None
        dealer = move.player
        target = self.check_target(w, dealer, move.target)
        card: int = pend.card  # type: ignore[assignment]
        w.pending = None
        events.append(event("target_chosen", player=dealer, target=target))
        if self._kinds[card] is WX:
            self.swap(w, dealer, target, events)
        else:
            self.draw_cards(w, target, TARGETED_DRAW, events, "penalty")
        w.current = pend.get("then", w.next_seat(dealer))

    # ------------------------------------------------------------------ legal moves
    @cached_property
    def _opponent_table(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """[players][seat] -> the other seats, in seat order."""
        return tuple(
            tuple(tuple(t for t in range(n) if t != p) for p in range(n))
            for n in range(self.max_players + 1)
        )

    def _opponents(self, s: State | Work, player: int) -> tuple[int, ...]:
        return self._opponent_table[s.num_players][player]

    def legal_play_drawn(self, state: State, player: int) -> list[Move]:
        return list(self.play_moves(state, player, state.pending.card))  # type: ignore[union-attr,arg-type]

    @defaults(TURN)
    def default_turn(self, state: State, player: int) -> Move:
        """Play the first card of the hand, in hand order (there is no drawing by
        choice), naming the first opponent in seat order when the card needs a target;
        without saying UNO."""
        return first_plain(self.play_moves(state, player, state.hands[player][0]))

    @defaults(PLAY_DRAWN)
    def default_play_drawn(self, state: State, player: int) -> Move:
        """Play the drawn card (it must be played), naming the first opponent in seat
        order when it needs a target; without saying UNO."""
        return first_plain(self.legal_play_drawn(state, player))

    # ------------------------------------------------------------------ drawing
    def may_draw(self, s: State | Work, player: int) -> bool:
        """The one exception to "no drawing by choice": the player holds no action card
        and the next player holds a single card."""
        nxt = s.next_seat(player)
        if len(s.hands[nxt]) != 1:
            return False
        kinds = self._kinds
        return all(kinds[c] is WILD for c in s.hands[player])

    def draw_refused(self, s: State | Work, player: int) -> RulesError:
        nxt = s.next_seat(player)
        if len(s.hands[nxt]) != 1:
            return RulesError(
                "drawing by choice is not allowed: play a card (a draw is only allowed "
                f"when the next player has one card; player {nxt} has {len(s.hands[nxt])})",
                code="draw_not_allowed",
            )
        return RulesError(
            "drawing by choice is not allowed while you hold an action card: play a card",
            code="draw_not_allowed",
        )

    # ------------------------------------------------------------------ play
    def play_colors(self, side: int, card: int) -> tuple[Color | None, ...]:
        """No play names a colour (every card is wild and colourless)."""
        return NO_COLOR

    def play_targets(
        self, players: int, direction: int, player: int, card: int
    ) -> tuple[int | None, ...]:
        """A Wild Targeted Draw Two or a Wild Forced Swap names an opponent; no other
        card names a seat."""
        if self._kinds[card] in TARGETED:
            return self._opponent_table[players][player]
        return NO_TARGET

    def check_target(self, w: Work, player: int, target: Any) -> int:
        """``target`` if it is an opponent's seat; else the error saying why not."""
        if target in self._opponents(w, player):
            return target  # type: ignore[no-any-return]
        if target is None:
            raise RulesError("name the opponent ('target')", code="target_required")
        if target == player:
            raise RulesError("the target must be an opponent, not yourself", code="invalid_target")
        raise RulesError(
            f"target {target} is not a seat (0..{w.num_players - 1})", code="invalid_target"
        )

    def check_play(self, w: Work, move: Move) -> tuple[int, None]:  # type: ignore[override]
        """Validate a play by the rule hooks (``matches``, ``play_colors``,
        ``play_targets``, ``uno_flag_allowed``), in UNO All Wild's words; return the
        card (and no colour)."""
        _, player, card, color, target, chain, uno, _ = move
        if card is None or card not in w.hands[player]:
            self.require_card_in_hand(w, move)  # raises the precise error
        pend = w.pending
        if pend is not None and card != pend.card:
            raise RulesError(
                f"the card just drawn ({pend.card}) must be played now",
                code="must_play_drawn_card",
            )
        # ``matching``'s table read where it holds the colour (``legal_turn`` reads it so).
        side = w.side
        playable = self._matching[side][w.discard[-1]].get(w.active_color)
        if playable is None:
            playable = self.matching(side, w.active_color, w.discard[-1])  # type: ignore[arg-type]
        if card not in playable:
            code = self.catalog.code[side][card]  # type: ignore[index]
            raise RulesError(f"card {code} cannot be played now", code="does_not_match")
        if color not in self._colors[side][card]:  # type: ignore[index]
            raise RulesError(
                "UNO All Wild has no colours: a play takes no 'color'", code="color_not_allowed"
            )
        if chain is not None:
            raise RulesError("this play takes no 'chain'", code="unexpected_field")
        # ``targets_of``, read from its table as the listing reads it (``hand_plays``):
        # this class's own hooks are the listing's in every game (``turn_hooks_for``).
        targets = self._targets[w.num_players, w.direction][player][card]  # type: ignore[index]
        if target not in targets:
            if targets == NO_TARGET:
                code = self.catalog.code[w.side][card]  # type: ignore[index]
                raise RulesError(
                    "only a Wild Targeted Draw Two or a Wild Forced Swap takes a 'target', "
                    f"not {code}",
                    code="unexpected_field",
                )
            self.check_target(w, player, target)
            raise RulesError(f"this play cannot name seat {target!r}", code="invalid_target")
        if uno and not (self._says_uno[side][card] and self.uno_flag_allowed(w, move)):  # type: ignore[index]
            raise RulesError(
                "say UNO with the play that leaves you one card only (after a swap: the "
                "hand you receive)",
                code="uno_not_applicable",
            )
        return card, None  # type: ignore[return-value]

    def uno_flag_allowed(self, s: State | Work, move: Move) -> bool:
        """``uno: true`` fits a play that leaves the mover one card (after a swap: the
        target's hand was one card)."""
        hand = s.hands[move[1]]
        if move[2] in self._swaps and len(hand) > 1:
            target = move[4]
            return (
                isinstance(target, int)
                and 0 <= target < s.num_players
                and (len(s.hands[target]) == 1)
            )
        return len(hand) == 2

    def on_play(self, w: Work, move: Move, events: list[Event]) -> None:
        """A play: the card goes onto the discard pile (the event names the target, if
        any), then its action; or, with the last card, the round ends (a draw card's
        victim draws first: the next player, or a Wild Targeted Draw Two's target)."""
        card, color = self.check_play(w, move)
        player = move[1]
        w.pending = None
        self.put_on_discard(w, player, card, color, events)
        target = move[4]
        if target is not None:
            events[-1]["target"] = target
        if w.hands[player]:
            self.card_effect(w, player, card, move, events)
        elif self._kinds[card] is WT2:
            self.draw_cards(w, _chosen(move), TARGETED_DRAW, events, "penalty")
            self.finish_round(w, player, events)
        else:
            self.go_out(w, player, card, events)

    # ------------------------------------------------------------------ card actions
    def effect_targeted_draw(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The chosen opponent draws 2 and does not lose their turn."""
        self.draw_cards(w, _chosen(move), TARGETED_DRAW, events, "penalty")
        w.current = w.next_seat(player)

    def effect_skip_two(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """The next two players (seats other than the player) lose their turn."""
        skipped = [s for s in (w.next_seat(player), w.next_seat(player, 2)) if s != player]
        for seat in skipped:
            events.append({"type": "skipped", "player": seat})
        # Two players: one seat skipped, the player plays again; three: the same.
        w.current = w.next_seat(player, len(skipped) + 1)

    def effect_swap(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        self.swap(w, player, _chosen(move), events)
        w.current = w.next_seat(player)

    effects = {
        Kind.WILD_REVERSE: UnoRules.effect_reverse,
        Kind.WILD_SKIP: UnoRules.effect_skip,
        Kind.WILD_DRAW_TWO: UnoRules.effect_draw,
        Kind.WILD_DRAW_FOUR: UnoRules.effect_draw,
        Kind.WILD_TARGETED_DRAW_TWO: effect_targeted_draw,
        Kind.WILD_SKIP_TWO: effect_skip_two,
        Kind.WILD_FORCED_SWAP: effect_swap,
    }

    # ------------------------------------------------------------------ checks
    def check_state(self, state: State) -> None:
        super().check_state(state)
        if state.active_color is not None:
            raise InvalidState("UNO All Wild has no colour in play", field="active_color")
        pend = state.pending
        if pend is None:
            return
        if pend.type is CHOOSE_TARGET:
            then = pend.get("then")
            if (
                pend.card is None
                or not state.discard
                or pend.card != state.discard[-1]
                or self._kinds[pend.card] not in TARGETED
                or len(state.discard) != 1
            ):
                raise InvalidState(
                    "a target choice waits on the turned-up Wild Targeted Draw Two or "
                    "Wild Forced Swap",
                    field="pending",
                )
            if pend.player != state.dealer:
                raise InvalidState("the dealer chooses the target", field="pending.player")
            if (
                not isinstance(then, int)
                or isinstance(then, bool)
                or not 0 <= then < state.num_players
                or dict(pend.data).keys() != {"then"}
            ):
                raise InvalidState(
                    "a target choice names the seat that plays next ('then')",
                    field="pending.data",
                )
        elif pend.type is PLAY_DRAWN:
            if pend.card is None or pend.data:
                raise InvalidState("a drawn card to play names the card only", field="pending")
            if pend.player != state.current:
                raise InvalidState(
                    "the drawn card is played by the player whose turn it is",
                    field="pending.player",
                )
