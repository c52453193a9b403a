"""UNO Duo (``uno_duo``): two players, a draft instead of a deal, Draw Two volleys,
Reverse colour runs, lowest total wins (rules: ``docs/rules/uno_duo.md``).

Decisions (pending types) beyond classic UNO's:

- ``draft``: the drafter answers the card they just drew (``pending.card``, shown to
  them only) with ``draft_keep`` or ``draft_discard``;
- ``volley``: a Draw Two volley is on; answer with a Draw Two ``play`` or ``draw``
  (takes the whole ``draw_stack``);
- ``forced_run``: a turned-up Reverse obliges Player 2 to play every card of its colour:
  a ``play`` whose ``card`` is the first of the run and ``chain`` the rest.

Choices where the rule book is silent (documented for integrators):

- The draft discard pile is turned face down "as it is": the first card discarded
  becomes the top of that face-down pile, so the draw pile continues with the draft
  discards in the order they were discarded, the last one at the very bottom.
- A Reverse run may follow a playable drawn Reverse (the drawn card leads the run).
- UNO is due with the move that leaves one card: for a run, the whole run is one move
  and ``uno: true`` belongs on it when the run leaves one card.
- Going out with a Draw Two (also the one continuing a volley) makes the opponent draw
  the whole total; going out with a Wild Draw Four makes them draw 4, without a
  challenge (the round is over).
- A lone Reverse passes the turn and does not change the direction of play.
- After a Skip or a Wild Draw Four the same player moves again; a player who did not
  say UNO stays catchable until the opponent makes a move of their own (README).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar, NamedTuple

from ..cards import Color, Kind
from ..errors import InvalidState, RulesError
from ..events import Event, event, secret_event
from ..moves import Move, MoveType
from ..state import Pending, PendingType, Phase, State, Work, pending
from ..uno import UnoPending, UnoRules
from ..variant import defaults, first_plain, handles, lists

T = MoveType
DRAFT = Phase.DRAFT


class DuoPending(PendingType):
    """UNO Duo's decisions beyond classic UNO's."""

    DRAFT = "draft"
    VOLLEY = "volley"
    FORCED_RUN = "forced_run"


P = DuoPending
CHOOSE_COLOR = UnoPending.CHOOSE_COLOR
# Enum members as module constants: on Python 3.11 every ``P.X`` is a descriptor call.
VOLLEY, FORCED_RUN = P.VOLLEY, P.FORCED_RUN
PLAY_T, PASS_T = T.PLAY, T.PASS
REVERSE, DRAW_TWO = Kind.REVERSE, Kind.DRAW_TWO
_new = tuple.__new__


class DuoExt(NamedTuple):
    """UNO Duo's extra state: the public draft discard pile (bottom first, only during
    the draft) and the total of the Draw Two volley in progress (0 when none)."""

    draft_discard: tuple[int, ...] = ()
    draw_stack: int = 0


class Duo(UnoRules):
    id = "uno_duo"
    title = "UNO Duo"
    catalog_name = "uno_duo"
    min_players = 2
    max_players = 2
    target = 200
    winner_rule = "lowest"
    notes = (
        "112 cards: the classic 108 plus 4 more Wild cards, which play as Wild.",
        "Dealing is a draft; with a given deck, 'dealer' is Player 1 (drafts first) and "
        "the draft takes the deck's cards from the top in the order it needs them.",
        "The 14 draft discards go under the draw pile in the order they were discarded.",
        "The player who goes out scores 0; the other scores their own hand. When a total "
        "reaches the target, the lowest total wins.",
    )
    move_types: ClassVar[frozenset[MoveType]] = UnoRules.move_types | {
        T.DRAFT_KEEP,
        T.DRAFT_DISCARD,
    }
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        **UnoRules.pending_moves,
        P.DRAFT: (frozenset({T.DRAFT_KEEP, T.DRAFT_DISCARD}), "must_draft"),
        P.VOLLEY: (frozenset({T.PLAY, T.DRAW}), "must_continue_or_draw"),
        P.FORCED_RUN: (frozenset({T.PLAY}), "must_play_run"),
    }
    event_types: ClassVar[frozenset[str]] = UnoRules.event_types | {
        "draft_drew",
        "draft_kept",
        "draft_burned",
        "draft_discarded",
        "draft_over",
    }
    bot_rank: ClassVar[dict[MoveType, int]] = {
        **UnoRules.bot_rank,
        T.DRAFT_KEEP: 0,
        T.DRAFT_DISCARD: 0,
    }
    #: Every turned-up card stays (a turned Wild Draw Four acts, see ``first_card_effect``).
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset()
    draw_amounts: ClassVar[dict[Kind, int]] = {}

    # ------------------------------------------------------------------ ext
    def initial_ext(self, players: int) -> DuoExt:
        return DuoExt()

    def round_ext(self, w: Work) -> DuoExt:
        return DuoExt()

    def ext_to_json(self, ext: DuoExt) -> dict[str, Any]:
        return {"draft_discard": list(ext.draft_discard), "draw_stack": ext.draw_stack}

    def ext_from_json(self, raw: Any, players: int) -> DuoExt:
        if not isinstance(raw, dict) or set(raw) != {"draft_discard", "draw_stack"}:
            raise InvalidState(
                "state.ext: must be {draft_discard, draw_stack} for uno_duo", field="ext"
            )
        pile, stack = raw["draft_discard"], raw["draw_stack"]
        size = self.catalog.size
        if not isinstance(pile, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c < size for c in pile
        ):
            raise InvalidState(
                "state.ext.draft_discard: must be a list of card ids", field="ext.draft_discard"
            )
        if not isinstance(stack, int) or isinstance(stack, bool) or stack < 0 or stack % 2:
            raise InvalidState(
                "state.ext.draw_stack: must be an even integer >= 0", field="ext.draw_stack"
            )
        return DuoExt(tuple(pile), stack)

    # ------------------------------------------------------------------ the draft
    def setup_table(self, w: Work, pile: list[int], events: list[Event]) -> None:
        """Drafting replaces the deal: Player 1 (the dealer seat) draws first."""
        w.phase = DRAFT
        w.hands = [(), ()]
        w.draw_pile = tuple(pile)
        self.draft_draw(w, w.dealer, events)

    def draft_draw(self, w: Work, seat: int, events: list[Event]) -> None:
        """``seat`` draws the top card and looks at it (only they see it)."""
        card, w.draw_pile = w.draw_pile[0], w.draw_pile[1:]
        w.current = seat
        w.pending = Pending(P.DRAFT, seat, card)
        events.append(
            secret_event(
                "draft_drew", to=(seat,), secret={"card": self.private_ref(w, card)}, player=seat
            )
        )

    @lists(P.DRAFT)
    def legal_draft(self, state: State, player: int) -> list[Move]:
        return [Move(T.DRAFT_KEEP, player), Move(T.DRAFT_DISCARD, player)]

    @handles(T.DRAFT_KEEP)
    def on_draft_keep(self, w: Work, move: Move, events: list[Event]) -> None:
        """Keep: the card joins the hand; the next card is burned face up."""
        card = w.pending.card  # type: ignore[union-attr]
        seat = move.player
        w.hands[seat] = w.hands[seat] + (card,)
        burned, w.draw_pile = w.draw_pile[0], w.draw_pile[1:]
        w.ext = w.ext._replace(draft_discard=w.ext.draft_discard + (burned,))
        events.append(event("draft_kept", player=seat))
        events.append(event("draft_burned", player=seat, card=self.public_ref(w, burned)))
        self.next_drafter(w, seat, events)

    @handles(T.DRAFT_DISCARD)
    def on_draft_discard(self, w: Work, move: Move, events: list[Event]) -> None:
        """Discard: the card goes face up on the draft pile; the next card must be kept."""
        card: int = w.pending.card  # type: ignore[union-attr,assignment]
        seat = move.player
        w.ext = w.ext._replace(draft_discard=w.ext.draft_discard + (card,))
        events.append(event("draft_discarded", player=seat, card=self.public_ref(w, card)))
        kept, w.draw_pile = w.draw_pile[0], w.draw_pile[1:]
        w.hands[seat] = w.hands[seat] + (kept,)
        events.append(self.drew_event(w, seat, [kept], "draft"))
        self.next_drafter(w, seat, events)

    def next_drafter(self, w: Work, seat: int, events: list[Event]) -> None:
        w.pending = None
        other = w.next_seat(seat)
        if len(w.hands[other]) < self.hand_size:
            self.draft_draw(w, other, events)
        elif len(w.hands[seat]) < self.hand_size:
            self.draft_draw(w, seat, events)
        else:
            self.end_draft(w, events)

    def end_draft(self, w: Work, events: list[Event]) -> None:
        """Turn the draft discards face down as they are, put them under the draw pile,
        and turn up the top card."""
        under = w.ext.draft_discard
        w.draw_pile = w.draw_pile + under
        w.ext = w.ext._replace(draft_discard=())
        w.phase = Phase.PLAY
        events.append(event("draft_over", under_draw_pile=len(under)))
        self.turn_up(w, events)

    # ------------------------------------------------------------------ turned-up card
    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        """Player 2 plays first; the turned card acts as the rule book's list says."""
        p1 = w.dealer
        p2 = w.next_seat(p1)
        kind = self.kind(w, card)
        w.current = p2
        if kind is Kind.WILD:
            w.pending = pending(CHOOSE_COLOR, p1, then=p2)
        elif kind is Kind.WILD_DRAW_FOUR:
            w.pending = pending(CHOOSE_COLOR, p1, then=p1, penalty=4)
        elif kind is Kind.DRAW_TWO:
            self.draw_cards(w, p2, 2, events, "penalty")
            events.append(event("skipped", player=p2))
            w.current = p1
        elif kind is Kind.SKIP:
            events.append(event("skipped", player=p2))
            w.current = p1
        elif kind is Kind.REVERSE:
            color = self.card_color(w, card)
            if self.run_cards(w.hands[p2], color):
                w.pending = pending(P.FORCED_RUN, p2, color=color.value)  # type: ignore[union-attr]

    def on_choose_color(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        super().on_choose_color(w, move, events)
        penalty = pend.get("penalty") if pend is not None else None
        if penalty:  # a turned-up Wild Draw Four: Player 2 draws 4, no challenge
            victim = w.next_seat(move.player)
            self.draw_cards(w, victim, penalty, events, "penalty")
            events.append(event("skipped", player=victim))
            w.current = move.player

    # ------------------------------------------------------------------ runs
    def run_cards(self, hand: tuple[int, ...], color: Color | None) -> list[int]:
        """The cards of ``color`` in ``hand`` that a run takes (never a wild)."""
        col = self.catalog.color[0]
        return [c for c in hand if col[c] is color] if color is not None else []

    def run_moves(
        self, s: State, player: int, cards: list[int], leads: list[int] | None
    ) -> list[Move]:
        """One complete run move per distinct last card of the run of ``cards`` (all of
        them), also with ``uno: true`` where ``run_uno_allowed`` allows it. ``leads``:
        the cards that may go first (``None``: any)."""
        if len(cards) < 2:
            return []
        out: list[Move] = []
        for last in cards:
            firsts = [c for c in (leads if leads is not None else cards) if c != last]
            if not firsts:
                continue
            first = firsts[0]
            middle = tuple(sorted(c for c in cards if c != first and c != last))
            chain = (*middle, last)
            run = _new(Move, (PLAY_T, player, first, None, None, chain, False, None))
            said = _new(Move, (PLAY_T, player, first, None, None, chain, True, None))
            out.append(run)
            if self.run_uno_allowed(s, said):
                out.append(said)
        return out

    def reverse_moves(self, s: State, player: int, reverses: list[int]) -> list[Move]:
        """Each Reverse of ``reverses`` (the playable ones, or the card just drawn) alone,
        and the runs of its colour that one of them leads."""
        hand = s.hands[player]
        out: list[Move] = []
        by_color: dict[Color, list[int]] = {}
        for r in reverses:
            out.extend(self.play_moves(s, player, r))
            by_color.setdefault(self.catalog.color[0][r], []).append(r)  # type: ignore[arg-type]
        for color, leads in by_color.items():
            out.extend(self.run_moves(s, player, self.run_cards(hand, color), leads))
        return out

    # ------------------------------------------------------------------ legal moves
    @cached_property
    def _reverse_ids(self) -> frozenset[int]:
        kind = self.catalog.kind[0]
        return frozenset(c for c in self.catalog.ids if kind[c] is Kind.REVERSE)

    def legal_turn(self, state: State, player: int) -> list[Move]:
        moves = UnoRules.legal_turn(self, state, player)
        if self._reverse_ids.isdisjoint(state.hands[player]):
            return moves  # the common case: no Reverse, no run
        kind = self.catalog.kind[0]
        reverses = [m.card for m in moves if m.card is not None and kind[m.card] is REVERSE]
        if not reverses:
            return moves
        rest = [m for m in moves if m.card is None or kind[m.card] is not REVERSE]
        return self.reverse_moves(state, player, list(dict.fromkeys(reverses))) + rest

    def legal_play_drawn(self, state: State, player: int) -> list[Move]:
        card = state.pending.card  # type: ignore[union-attr]
        if self.catalog.kind[0][card] is REVERSE:  # type: ignore[index]
            return [*self.reverse_moves(state, player, [card]), Move(PASS_T, player)]  # type: ignore[list-item]
        return UnoRules.legal_play_drawn(self, state, player)

    @lists(P.VOLLEY)
    def legal_volley(self, state: State, player: int) -> list[Move]:
        kind = self.catalog.kind[0]
        moves: list[Move] = []
        for c in state.hands[player]:
            if kind[c] is DRAW_TWO:
                moves.extend(self.play_moves(state, player, c))
        moves.append(self._draw_moves[player])
        return moves

    @lists(P.FORCED_RUN)
    def legal_forced_run(self, state: State, player: int) -> list[Move]:
        hand = state.hands[player]
        cards = self.run_cards(hand, Color(state.pending.get("color")))  # type: ignore[union-attr]
        if len(cards) == 1:
            return list(self.play_moves(state, player, cards[0]))
        return self.run_moves(state, player, cards, None)

    # ------------------------------------------------------------------ forced defaults
    @defaults(P.DRAFT)
    def default_draft(self, state: State, player: int) -> Move:
        """Keep the drafted card (`draft_keep`)."""
        return Move(T.DRAFT_KEEP, player)

    @defaults(P.VOLLEY)
    def default_volley(self, state: State, player: int) -> Move:
        """Draw the whole volley (`draw`)."""
        return self._draw_moves[player]

    @defaults(P.FORCED_RUN)
    def default_forced_run(self, state: State, player: int) -> Move:
        """Play every card of the colour, as the first run the legal moves list: the
        second card of the colour in hand order leads, the first ends the run (a single
        card of the colour is played alone); without saying UNO."""
        return first_plain(self.legal_forced_run(state, player))

    # ------------------------------------------------------------------ play
    def on_play(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        ptype = pend.type if pend is not None else None
        if ptype is VOLLEY:
            run, color = self.check_volley_play(w, move)
        elif ptype is FORCED_RUN:
            run, color = self.check_forced_run(w, move, Color(pend.get("color")))  # type: ignore[union-attr]
        elif move[5] is None:  # one card, no chain: ``check_play`` is classic UNO's
            card, color = UnoRules.check_play(self, w, move)
            run = (card,)
        else:
            card, color = self.check_play(w, move)
            run = (card, *move.chain) if move.chain else (card,)
        player = move.player
        w.pending = None
        for card in run:
            self.put_on_discard(w, player, card, color, events)
        last = run[-1]
        if not w.hands[player]:
            self.go_out(w, player, last, events)
        else:
            self.card_effect(w, player, last, move, events)

    def check_play(self, w: Work, move: Move) -> tuple[int, Color | None]:
        """A play on a turn (or of the card just drawn): one card, or a Reverse run."""
        chain = move.chain
        if not chain:
            if chain is not None:
                move = move._replace(chain=None)
            return UnoRules.check_play(self, w, move)
        card, color = UnoRules.check_play(self, w, move._replace(chain=None, uno=False))
        if self.catalog.kind[0][card] is not REVERSE:
            raise RulesError(
                "only a Reverse starts a colour run ('chain')", code="chain_not_allowed"
            )
        self.check_run(w, move.player, color, (card, *chain))
        self.check_uno(w, move)
        return card, color

    def run_uno_allowed(self, s: State | Work, move: Move) -> bool:
        """``uno: true`` fits a play (one card, or a run: the card and its ``chain``)
        that leaves the player one card. A play of one card is classic UNO's
        ``uno_flag_allowed``, which Duo keeps (so a turn's listing asks it once, not per
        card: ``turn_hooks``); a run asks this."""
        return self.uno_rule and len(s.hands[move[1]]) - 1 - len(move[5] or ()) == 1

    def check_uno(self, w: Work, move: Move) -> None:
        if move.uno and not self.run_uno_allowed(w, move):
            raise RulesError(
                "say UNO with the move that leaves you one card", code="uno_not_applicable"
            )

    def check_run(self, w: Work, player: int, color: Color | None, run: tuple[int, ...]) -> None:
        """A run is every card of its colour in the hand (no wilds), each once."""
        hand = w.hands[player]
        col = self.catalog.color[0]
        seen: set[int] = set()
        for c in run:
            if c in seen:
                raise RulesError(f"card {c} appears twice in the run", code="chain_duplicate")
            seen.add(c)
            if c not in hand:
                raise RulesError(
                    f"card {c} is not in player {player}'s hand", code="card_not_in_hand"
                )
            if col[c] is not color:
                raise RulesError(
                    f"card {c} ({self.catalog.code[0][c]}) is not a {color} card; a run holds "
                    "only cards of the Reverse's colour, never wilds",
                    code="run_wrong_color",
                )
        missing = [c for c in self.run_cards(hand, color) if c not in seen]
        if missing:
            raise RulesError(
                f"a run plays every {color} card of the hand or none: missing "
                + ", ".join(f"{c} ({self.catalog.code[0][c]})" for c in missing),
                code="run_incomplete",
            )

    def check_volley_play(self, w: Work, move: Move) -> tuple[tuple[int, ...], Color | None]:
        card = self.require_card_in_hand(w, move)
        if self.catalog.kind[0][card] is not DRAW_TWO:
            raise RulesError(
                f"a Draw Two volley is on ({w.ext.draw_stack} cards): play a Draw Two or draw",
                code="must_continue_or_draw",
            )
        self.check_extra_fields(move)
        self.check_uno(w, move)
        return (card,), self.catalog.color[0][card]

    def check_forced_run(
        self, w: Work, move: Move, color: Color
    ) -> tuple[tuple[int, ...], Color | None]:
        card = self.require_card_in_hand(w, move)
        self.check_extra_fields(move._replace(chain=None))
        run = (card, *(move.chain or ()))
        self.check_run(w, move.player, color, run)
        self.check_uno(w, move)
        return run, color

    def check_extra_fields(self, move: Move) -> None:
        if move.chain:
            raise RulesError(
                "only a Reverse starts a colour run ('chain')", code="chain_not_allowed"
            )
        if move.target is not None:
            raise RulesError("this play takes no 'target'", code="unexpected_field")
        if move.color is not None:
            raise RulesError("only a wild card takes a colour", code="color_not_allowed")

    # ------------------------------------------------------------------ effects
    def effect_pass(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A Reverse (alone or last in a run) passes the turn."""
        w.current = w.next_seat(player)

    def effect_volley(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """A Draw Two starts or continues a volley against the opponent."""
        victim = w.next_seat(player)
        stack = w.ext.draw_stack + 2
        w.ext = _new(DuoExt, (w.ext.draft_discard, stack))
        w.current = victim
        w.pending = pending(VOLLEY, victim, stack=stack)

    effects = {
        Kind.SKIP: UnoRules.effect_skip,
        Kind.REVERSE: effect_pass,
        Kind.DRAW_TWO: effect_volley,
        Kind.WILD_DRAW_FOUR: UnoRules.effect_challengeable_draw,
    }

    def draw_answer(self, w: Work, player: int, pend: Pending, events: list[Event]) -> None:
        """A draw facing a Draw Two volley takes the whole ``draw_stack``; the turn passes."""
        if pend.type is not VOLLEY:
            super().draw_answer(w, player, pend, events)
            return
        stack = w.ext.draw_stack
        w.pending = None
        w.ext = _new(DuoExt, (w.ext.draft_discard, 0))
        self.draw_cards(w, player, stack, events, "volley")
        w.current = w.next_seat(player)

    def last_card_effect(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        kind = self.kind(w, card)
        victim = w.next_seat(player)
        if kind is DRAW_TWO:
            stack = w.ext.draw_stack + 2
            w.ext = _new(DuoExt, (w.ext.draft_discard, 0))
            self.draw_cards(w, victim, stack, events, "penalty")
        elif kind is Kind.WILD_DRAW_FOUR:
            self.draw_cards(w, victim, self.challenge_cards[kind][0], events, "penalty")

    def after_wild_draw(self, w: Work, victim: int, offender: int, events: list[Event]) -> None:
        """The opponent drew: the player of the Wild Draw Four takes another turn."""
        events.append(event("skipped", player=victim))
        w.current = offender

    # ------------------------------------------------------------------ scoring
    def round_points(self, w: Work, winner: int) -> tuple[int, ...]:
        """The player who went out scores 0; the other scores their own hand."""
        return tuple(0 if s == winner else self.hand_points(w, s) for s in range(w.num_players))

    # ------------------------------------------------------------------ views and checks
    def pending_view(self, state: State, pend: Pending, player: int | None) -> dict[str, Any]:
        out = super().pending_view(state, pend, player)
        if pend.type is P.VOLLEY:
            out["draw_stack"] = pend.get("stack")
        elif pend.type is P.FORCED_RUN:
            out["color"] = pend.get("color")
        return out

    def view_extra(self, state: State, player: int | None, view: dict[str, Any]) -> None:
        view["draw_stack"] = state.ext.draw_stack
        view["player1"] = state.dealer
        view["draft_discard"] = [self.public_ref(state, c) for c in state.ext.draft_discard]

    def piles(self, state: State) -> Any:
        yield from super().piles(state)
        yield "ext.draft_discard", state.ext.draft_discard
        pend = state.pending
        if pend is not None and pend.type is P.DRAFT and pend.card is not None:
            yield "pending.card", (pend.card,)

    def public_piles(self, state: State) -> Any:
        yield state.discard
        yield state.ext.draft_discard

    def check_state(self, state: State) -> None:
        super().check_state(state)
        ext = state.ext
        pend = state.pending
        ptype = pend.type if pend is not None else None
        if state.phase is DRAFT:
            if ptype is not P.DRAFT or pend.card is None:  # type: ignore[union-attr]
                raise InvalidState("the draft waits for a draft decision", field="pending")
            if state.discard:
                raise InvalidState("no discard pile during the draft", field="discard")
            held = sum(map(len, state.hands))
            if len(ext.draft_discard) != held or any(len(h) > self.hand_size for h in state.hands):
                raise InvalidState(
                    "the draft discard pile must hold one card per card kept, hands at most "
                    f"{self.hand_size}",
                    field="ext.draft_discard",
                )
            if abs(len(state.hands[0]) - len(state.hands[1])) > 1:
                raise InvalidState("drafters alternate: hands differ by at most one", field="hands")
        else:
            if ptype is P.DRAFT:
                raise InvalidState("a draft decision outside the draft", field="pending")
            if ext.draft_discard:
                raise InvalidState(
                    "the draft discard pile is only on the table during the draft",
                    field="ext.draft_discard",
                )
        if (ext.draw_stack > 0) != (ptype is P.VOLLEY) or (
            ptype is P.VOLLEY and pend.get("stack") != ext.draw_stack  # type: ignore[union-attr]
        ):
            raise InvalidState(
                "a draw stack exists exactly while a volley is pending", field="ext.draw_stack"
            )
        if ptype is P.FORCED_RUN:
            color = pend.get("color")  # type: ignore[union-attr]
            if color not in self.colors_for(state):
                raise InvalidState("a forced run names its colour", field="pending.data")
