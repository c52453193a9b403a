"""The UNO turn machinery shared by classic UNO and the variants built on it.

A turn: play a matching card (or any wild), or draw one; a playable drawn card may
be played at once or kept (``pass``). Card actions are looked up by kind in
``effects`` (kind -> effect function), so a variant adds or replaces actions without
touching the turn itself. Decisions (``UnoPending``) wait in ``State.pending``:

- ``choose_color``: a turned-up (or revealed) wild needs a colour;
- ``play_drawn``: play the card just drawn, or ``pass``;
- ``challenge``: answer a challengeable wild draw card (``challenge`` / ``accept``).

What a player may do on a turn is written once, as rule hooks: ``matches`` (which card
plays on which), ``may_play`` (which card may be played while a decision is pending or
out of turn), ``play_colors`` and ``play_targets`` (what a play of a card names),
``uno_flag_allowed`` (when a play may say UNO), ``may_draw`` (when a draw is allowed),
``draws_to_match`` (whether a draw goes on until a playable card) and
``may_keep_drawn`` (whether a playable drawn card may be kept). The listing
(``legal_turn``, ``play_moves``, the decisions' listers) and the checks
(``check_play``, ``on_draw``, ``on_pass``) both ask them, so a variant or a house rule
that overrides a hook changes what is listed and what is accepted together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import MethodType
from typing import Any, ClassVar

from . import rng as prng
from .cards import Color, Kind
from .errors import RulesError
from .events import Event, event, secret_event
from .moves import Move, MoveType
from .state import NEXT_SEAT, Pending, PendingType, Phase, State, Work, pending
from .variant import TURN, OptionSpec, Variant, defaults, handles, lists

T = MoveType


class UnoPending(PendingType):
    """The decisions of classic UNO (most variants reuse them)."""

    CHOOSE_COLOR = "choose_color"
    PLAY_DRAWN = "play_drawn"
    CHALLENGE = "challenge"


P = UnoPending
# Enum members as module constants: on Python 3.11 every ``UnoPending.X`` is a descriptor call.
PLAY_DRAWN, P_CHOOSE_COLOR, P_CHALLENGE = P.PLAY_DRAWN, P.CHOOSE_COLOR, P.CHALLENGE
T_PLAY, T_CHOOSE_COLOR = T.PLAY, T.CHOOSE_COLOR
SKIP, REVERSE = Kind.SKIP, Kind.REVERSE
#: A play's colour when the card names none (``play_colors``), and a play's target when
#: it names no seat (``play_targets``).
NO_COLOR: tuple[Color | None, ...] = (None,)
NO_TARGET: tuple[int | None, ...] = (None,)
_new = tuple.__new__
NO_CARDS: frozenset[int] = frozenset()
#: A card action: (variant, work, player, card, move, events) -> None. ``move`` is None
#: for a turned-up card acting as if the dealer had played it (UNO All Wild).
Effect = Callable[[Any, Work, int, int, Move | None, list[Event]], None]


@dataclass(frozen=True, slots=True)
class TurnHooks:
    """Which rule hooks the listing of a turn must ask in a state (``turn_hooks``); a
    hook it need not ask answers there as classic UNO's own (``UnoRules``'), whose
    answer the listing knows: ``play_targets`` names no seat, ``uno_flag_allowed``
    (``UnoRules.uno_flag_allowed``, asked once) gives one answer for every play of the
    hand, ``may_draw`` allows the draw. The same for the draw hooks that ``on_draw``,
    ``legal_play_drawn`` and ``on_pass`` ask: ``draws_to_match`` draws one card,
    ``may_keep_drawn`` lets the drawn card be kept. Read on every listing, play and
    draw: slots (a field read is a slot read, not a tuple's field getter)."""

    targets: bool
    uno_per_play: bool
    may_draw: bool
    draws_to_match: bool
    may_keep_drawn: bool


class Compiled(dict[Any, Any]):
    """A table compiled from a rule hook one key at a time: ``make(key)`` when a key is
    first asked, kept (the keys are few: a table size and a direction, a game's options;
    at most ``LIMIT`` are kept, as options come from requests). A read is a dict read,
    no Python call."""

    LIMIT = 1024

    def __init__(self, make: Callable[[Any], Any]):
        super().__init__()
        self.make = make

    def __missing__(self, key: Any) -> Any:
        made = self.make(key)
        if len(self) < self.LIMIT:
            self[key] = made
        return made


class UnoRules(Variant):
    """Classic UNO's rules, written as hooks the variants override."""

    move_types: ClassVar[frozenset[MoveType]] = frozenset(
        {
            T.PLAY,
            T.DRAW,
            T.PASS,
            T.CHOOSE_COLOR,
            T.CHALLENGE,
            T.ACCEPT,
            T.UNO,
            T.CATCH,
            T.NEXT_ROUND,
        }
    )
    pending_moves: ClassVar[dict[PendingType, tuple[frozenset[MoveType], str]]] = {
        P.CHOOSE_COLOR: (frozenset({T.CHOOSE_COLOR}), "must_choose_color"),
        P.PLAY_DRAWN: (frozenset({T.PLAY, T.PASS}), "must_play_or_pass"),
        P.CHALLENGE: (frozenset({T.CHALLENGE, T.ACCEPT}), "must_answer_challenge"),
    }
    event_types: ClassVar[frozenset[str]] = Variant.event_types | {
        "returned_to_deck",
        "turned_up",
        "played",
        "passed",
        "skipped",
        "reversed",
        "color_chosen",
        "accepted",
        "challenged",
    }
    bot_rank: ClassVar[dict[MoveType, int]] = {
        **Variant.bot_rank,
        T.PLAY: 0,
        T.CHOOSE_COLOR: 0,
        T.CHALLENGE: 0,
        T.ACCEPT: 1,
        T.PASS: 2,
        T.DRAW: 3,
    }
    #: Kinds that, turned up to start the discard pile, go back into the draw pile.
    redeal_kinds: ClassVar[frozenset[Kind]] = frozenset({Kind.WILD_DRAW_FOUR})
    #: Draw cards that are not challengeable: kind -> cards the next player draws.
    draw_amounts: ClassVar[dict[Kind, int]] = {Kind.DRAW_TWO: 2}
    #: Challengeable wild draw cards: kind -> (draw, guilty penalty, not-guilty penalty).
    challenge_cards: ClassVar[dict[Kind, tuple[int, int, int]]] = {Kind.WILD_DRAW_FOUR: (4, 4, 6)}
    #: Card actions: kind -> the function applying it after the card is played (set
    #: below the effect methods, at the end of the class).
    effects: ClassVar[dict[Kind, Effect]]
    #: Actions of number cards, by number (classic UNO: none, a number passes the turn;
    #: the seven-zero house rule's 7 and 0). With ``effects``, the one way a card acts.
    number_effects: ClassVar[dict[int, Effect]] = {}

    def __init__(self) -> None:
        super().__init__()
        #: Side -> card id -> its effect (``effects`` by kind, ``number_effects`` by
        #: number) bound to this instance, or None (the turn just passes).
        self._effect_of = self.effect_table()
        #: ``matches`` compiled (``matching``), and ``play_colors``: side -> card -> colours.
        self._matching = self.match_table()
        cat = self.catalog
        self._colors = tuple(
            tuple(self.play_colors(side, card) for card in cat.ids) for side in range(cat.sides)
        )
        #: side -> seat -> card -> its plays naming no seat, one per colour it may name:
        #: (without, with ``uno: true``) pairs, and the same as two lists of moves, the
        #: plays without UNO and the plays each followed by its UNO form (moves are
        #: immutable: each is made once).
        self._plays = tuple(
            tuple(
                tuple(
                    tuple(
                        (
                            _new(Move, (T_PLAY, player, card, color, None, None, False, None)),
                            _new(Move, (T_PLAY, player, card, color, None, None, True, None)),
                        )
                        for color in self._colors[side][card]
                    )
                    for card in cat.ids
                )
                for player in range(self.max_players)
            )
            for side in range(cat.sides)
        )
        #: ``may_say_uno`` compiled: side -> card -> whether its plays may say UNO (the
        #: plays listed with ``uno: true`` below leave out the cards that may not).
        self._says_uno = tuple(
            tuple(self.may_say_uno(side, card) for card in cat.ids) for side in range(cat.sides)
        )
        self._play_lists = tuple(
            tuple(
                (
                    tuple(tuple(plain for plain, _ in pairs) for pairs in seat),
                    tuple(
                        tuple(m for pair in pairs for m in pair[: 2 if says[card] else 1])
                        for card, pairs in enumerate(seat)
                    ),
                )
                for seat in plays
            )
            for plays, says in zip(self._plays, self._says_uno, strict=True)
        )
        #: seat -> its draw, its pass (made once, read by the listings).
        self._draw_moves = tuple(Move(T.DRAW, p) for p in range(self.max_players))
        self._pass_moves = tuple(Move(T.PASS, p) for p in range(self.max_players))
        #: ``play_targets`` compiled: (players, direction) -> seat -> card -> seats; and
        #: the plays naming them: (players, direction) -> side -> seat -> card -> each
        #: play without and with ``uno: true`` (None where the card names no seat).
        self._targets = Compiled(self.target_table)
        self._target_plays = Compiled(self.target_play_table)
        cls = type(self)
        #: How the listing asks the play hooks when ``turn_hooks_for`` has nothing else to
        #: say: the hooks this class keeps from classic UNO need no call per play.
        self._own_hooks = TurnHooks(
            targets=cls.play_targets is not UnoRules.play_targets,
            uno_per_play=cls.uno_flag_allowed is not UnoRules.uno_flag_allowed,
            may_draw=cls.may_draw is not UnoRules.may_draw,
            draws_to_match=cls.draws_to_match is not UnoRules.draws_to_match,
            may_keep_drawn=cls.may_keep_drawn is not UnoRules.may_keep_drawn,
        )
        #: ``turn_hooks_for`` compiled: a game's options -> its ``TurnHooks``.
        self._turn_hooks = Compiled(self.turn_hooks_for)
        #: ``uno_flag_allowed`` compiled (``uno_beyond_two_table``): a game's options ->
        #: side -> the cards whose plays may say UNO from a hand of other than two cards.
        #: Made now for the default options where this class's own hook is asked per play
        #: in every game. The listing only reads it (``hand_plays``): making an entry asks
        #: the hook some thousands of times (~28 ms for UNO All Wild), too much for a
        #: request, and options come from requests, so a game of other options asks the
        #: hook for every card.
        self._uno_beyond_two = Compiled(self.uno_beyond_two_table)
        if self._own_hooks.uno_per_play and cls.turn_hooks_for is UnoRules.turn_hooks_for:
            self._uno_beyond_two[self.resolve_options({})]  # noqa: B018 (made now)

    def target_table(self, key: tuple[int, int]) -> tuple[tuple[tuple[int | None, ...], ...], ...]:
        """One entry of ``_targets``: seat -> card -> ``play_targets`` at a table of
        ``players`` playing in ``direction`` (``key``)."""
        players, direction = key
        hook, ids = self.play_targets, self.catalog.ids
        return tuple(
            tuple(hook(players, direction, player, card) for card in ids)
            for player in range(players)
        )

    def target_play_table(self, key: tuple[int, int]) -> tuple[Any, ...]:
        """One entry of ``_target_plays``: side -> seat -> card -> its plays, one per colour
        it may name and seat it names, each without and with ``uno: true``; None for a
        card that names no seat (its plays are ``_plays``')."""
        targets = self._targets[key]
        return tuple(
            tuple(
                tuple(
                    None
                    if seats == NO_TARGET
                    else tuple(
                        (
                            _new(Move, (T_PLAY, player, card, color, target, None, False, None)),
                            _new(Move, (T_PLAY, player, card, color, target, None, True, None)),
                        )
                        for color in colors[card]
                        for target in seats
                    )
                    for card, seats in enumerate(by_card)
                )
                for player, by_card in enumerate(targets)
            )
            for colors in self._colors
        )

    #: The probe states of ``uno_beyond_two_table``: the mover's hand sizes other than
    #: two, and the size of every other hand.
    PROBE_MOVER_SIZES = (1, 3, 4, 8)
    PROBE_OTHER_SIZES = (0, 1, 2, 3)

    def uno_beyond_two_table(
        self, options: tuple[tuple[str, Any], ...]
    ) -> tuple[frozenset[int], ...]:
        """One entry of ``_uno_beyond_two``: side -> the cards a play of which
        ``uno_flag_allowed`` lets say UNO from a hand of other than two cards (a play that
        exchanges hands: the hand received decides), in a game of ``options``. Asked of
        this instance's hook, for every card, seat it may name and probe state: the mover
        (seat 0) holding the card and ``PROBE_MOVER_SIZES`` cards in all, every other
        seat ``PROBE_OTHER_SIZES`` cards, at tables of the fewest players and of three.
        For every other card the listing knows the answer (no) without asking, unless the
        mover holds two cards (``hand_plays``); ``tests/engine/paths`` checks the table
        against the hook in played games."""
        cat = self.catalog
        ids = cat.ids
        fits = self.uno_flag_allowed
        seed = prng.seed(0)
        tables = sorted({self.min_players, min(max(3, self.min_players), self.max_players)})
        out = []
        for side in range(cat.sides):
            beyond = set()
            for card in ids:
                others = [c for c in ids if c != card]
                color = self._colors[side][card][0]
                for players in tables:
                    targets = self.play_targets(players, 1, 0, card)
                    for mover in self.PROBE_MOVER_SIZES:
                        for other in self.PROBE_OTHER_SIZES:
                            rest = others[: mover - 1 + other * (players - 1)]
                            hands = [(card, *rest[: mover - 1])] + [
                                tuple(rest[mover - 1 + other * k : mover - 1 + other * (k + 1)])
                                for k in range(players - 1)
                            ]
                            probe = State(
                                self.id, players, options, 0, seed, side=side,
                                hands=tuple(hands), scores=(0,) * players,
                                discard=(others[-1],),
                            )  # fmt: skip
                            if any(
                                fits(probe, Move(T_PLAY, 0, card, color, t, uno=True))
                                for t in targets
                            ):
                                beyond.add(card)
            out.append(frozenset(beyond))
        return tuple(out)

    def effect_table(self) -> tuple[tuple[Callable[..., None] | None, ...], ...]:
        """side -> card -> the card's action bound to this instance: ``effects`` by its
        kind, ``number_effects`` by its number, or None."""
        cat = self.catalog
        by_kind = {kind: MethodType(fn, self) for kind, fn in self.effects.items()}
        by_number = {value: MethodType(fn, self) for value, fn in self.number_effects.items()}
        return tuple(
            tuple(
                by_number.get(cat.value[side][c]) or by_kind.get(Kind.NUMBER)  # type: ignore[arg-type]
                if cat.kind[side][c] is Kind.NUMBER
                else by_kind.get(cat.kind[side][c])
                for c in cat.ids
            )
            for side in range(cat.sides)
        )

    def extra_options(self) -> list[OptionSpec]:
        if not self.challenge_cards:
            return []
        return [
            OptionSpec(
                "challenge_rule",
                "active_color",
                "what makes a challenged wild draw card guilty: a card of the active colour "
                "(official) or any playable non-wild card",
                choices=("active_color", "any_playable"),
                label="Challenge rule",
            )
        ]

    # ------------------------------------------------------------------ card facts
    def kind(self, s: State | Work, card: int) -> Kind:
        return self.catalog.kind[s.side][card]

    def card_color(self, s: State | Work, card: int) -> Color | None:
        return self.catalog.color[s.side][card]

    def is_wild(self, s: State | Work, card: int) -> bool:
        return self.catalog.wild[s.side][card]

    # ------------------------------------------------------------------ setup
    def setup_table(self, w: Work, pile: list[int], events: list[Event]) -> None:
        w.draw_pile = tuple(self.deal(w, pile, self.hand_size))
        self.turn_up(w, events)

    def turn_up(self, w: Work, events: list[Event]) -> None:
        """Turn the top card of the draw pile to start the discard pile."""
        while True:
            card, w.draw_pile = w.draw_pile[0], w.draw_pile[1:]
            if self.kind(w, card) not in self.redeal_kinds:
                break
            position, w.rng = prng.below(w.rng, len(w.draw_pile) + 1)
            w.draw_pile = w.draw_pile[:position] + (card,) + w.draw_pile[position:]
            events.append(event("returned_to_deck", card=self.public_ref(w, card)))
        w.discard = (card,)
        w.active_color = self.card_color(w, card)
        events.append(event("turned_up", card=self.public_ref(w, card)))
        self.first_card_effect(w, card, events)

    def first_card_effect(self, w: Work, card: int, events: list[Event]) -> None:
        """Classic UNO's turned-up card rules."""
        first = w.next_seat(w.dealer)
        kind = self.kind(w, card)
        if self.is_wild(w, card):
            w.current = first
            w.pending = pending(P_CHOOSE_COLOR, first, then=first)
        elif kind is SKIP:
            events.append(event("skipped", player=first))
            w.current = w.next_seat(first)
        elif kind is REVERSE:
            w.direction = -1
            events.append(event("reversed", direction="counterclockwise"))
            w.current = w.dealer
        elif kind in self.draw_amounts:
            self.draw_cards(w, first, self.draw_amounts[kind], events, "penalty")
            events.append(event("skipped", player=first))
            w.current = w.next_seat(first)
        else:
            w.current = first

    # ------------------------------------------------------------------ the rules of a turn
    # (the hooks the listing and the checks both ask: see the module docstring)

    def matches(self, side: int, card: int, active: Color | None, top: int) -> bool:
        """Whether ``card`` may be played on ``top`` with ``active`` the colour in play:
        any wild; the same colour; or the same number or symbol (a wild's number and
        symbol match nothing)."""
        cat = self.catalog
        if cat.wild[side][card] or cat.color[side][card] is active:
            return True
        top_symbol = cat.symbol[side][top]
        return top_symbol >= 0 and cat.symbol[side][card] == top_symbol

    def matching(self, side: int, active: Color | None, top: int) -> frozenset[int]:
        """The cards that ``matches`` ``top`` with ``active`` in play: the hook's compiled
        form (python-chess's attack tables), one set per side, top card and colour, made
        from this instance's ``matches`` when the variant is built (``match_table``). The
        listing and the checks ask ``card in matching(...)``, so ``matches`` must depend
        on its arguments only, as every variant's does."""
        cards = self._matching[side][top].get(active)
        if cards is None:  # a colour no card of the side has: made when first asked
            cards = self._matching[side][top][active] = self.matching_cards(side, active, top)
        return cards

    def matching_cards(self, side: int, active: Color | None, top: int) -> frozenset[int]:
        """One entry of the table: every card that ``matches`` ``top`` with ``active``."""
        matches = self.matches
        return frozenset(c for c in self.catalog.ids if matches(side, c, active, top))

    def match_table(self) -> tuple[tuple[dict[Color | None, frozenset[int]], ...], ...]:
        """side -> top card -> colour in play (each colour of the side's cards, or none)
        -> the cards that match: ``matches`` asked once for every combination."""
        cat = self.catalog
        out = []
        for side in range(cat.sides):
            colors = [None, *dict.fromkeys(c for c in cat.color[side] if c is not None)]
            out.append(
                tuple(
                    {active: self.matching_cards(side, active, top) for active in colors}
                    for top in cat.ids
                )
            )
        return tuple(out)

    def play_colors(self, side: int, card: int) -> tuple[Color | None, ...]:
        """The colours a play of ``card`` on ``side`` may name: every colour of the side
        (``side_colors``) for a wild, none (``(None,)``) for any other card. Compiled
        into ``_colors`` (side -> card -> colours) when the variant is built."""
        if self.catalog.wild[side][card]:
            return self.side_colors(side)  # type: ignore[return-value]
        return NO_COLOR

    def play_targets(
        self, players: int, direction: int, player: int, card: int
    ) -> tuple[int | None, ...]:
        """The seats a play of ``card`` by ``player`` may name (``target``) at a table of
        ``players`` playing in ``direction``: none (``(None,)``) in classic UNO. It must
        depend on its arguments only: it is compiled into a table (``targets_of``) per
        table size and direction, asked where ``turn_hooks`` says plays name seats."""
        return NO_TARGET

    def targets_of(self, s: State | Work, player: int, card: int) -> tuple[int | None, ...]:
        """The seats a play of ``card`` by ``player`` may name in ``s``: ``play_targets``
        compiled (one table per table size and direction, made from this instance's hook
        when first asked), where ``turn_hooks(s).targets`` says plays name seats (classic
        UNO's seven-zero house rule decides it per game); else none."""
        if not self._turn_hooks[s.options].targets:
            return NO_TARGET
        return self._targets[s.num_players, s.direction][player][card]

    def uno_flag_allowed(self, s: State | Work, move: Move) -> bool:
        """Whether ``uno: true`` fits this play: it leaves the player one card. (The
        listing asks it once for the plays of a card that differ by colour only: it may
        read the play's player, card, target and chain, not its colour.)"""
        return len(s.hands[move[1]]) == 2 and self.uno_rule

    def may_say_uno(self, side: int, card: int) -> bool:
        """Whether a play of ``card`` (on ``side``) may ever say UNO; where it may,
        ``uno_flag_allowed`` decides (classic UNO: every card). It must depend on its
        arguments only: compiled into a table when the variant is built."""
        return True

    def may_play(self, s: State | Work, player: int, card: int) -> bool:
        """Whether ``player`` may play ``card`` while a decision is pending or it is not
        their turn (on a turn with nothing pending, ``matches`` decides): the card just
        drawn (``play_drawn``), if it ``matches``."""
        pend = s.pending
        return (
            pend is not None
            and card == pend.card
            and card in self.matching(s.side, s.active_color, s.discard[-1])
        )

    def play_refused(self, s: State | Work, player: int, card: int) -> RulesError:
        """The error for a play that ``may_play`` refuses."""
        pend = s.pending
        if pend is not None and card != pend.card:
            return RulesError(
                f"only the card just drawn ({self.card_name(s, pend.card)}) may be played "  # type: ignore[arg-type]
                "now, or pass",
                code="not_drawn_card",
            )
        return self.no_match(s, card)

    def no_match(self, s: State | Work, card: int) -> RulesError:
        """The error for a card that does not ``match`` the card in play."""
        side = s.side
        return RulesError(
            f"card {self.card_name(s, card)} ({self.catalog.code[side][card]}) matches "
            f"neither the colour ({s.active_color}) nor the number or symbol in play",
            code="does_not_match",
        )

    def may_draw(self, s: State | Work, player: int) -> bool:
        """Whether ``player`` may draw a card on their turn (classic UNO: always)."""
        return True

    def draw_refused(self, s: State | Work, player: int) -> RulesError:
        """The error for a draw that ``may_draw`` refuses."""
        return RulesError("drawing is not allowed now: play a card", code="draw_not_allowed")

    def draws_to_match(self, s: State | Work) -> bool:
        """Whether a draw by choice goes on, one card at a time, until a card that can be
        played (classic UNO: no, one card)."""
        return False

    def may_keep_drawn(self, s: State | Work, player: int) -> bool:
        """Whether ``player`` may keep the playable card just drawn (``pass``) rather
        than play it (classic UNO: yes)."""
        return True

    # ------------------------------------------------------------------ legal moves
    def turn_hooks_for(self, options: tuple[tuple[str, Any], ...]) -> TurnHooks:
        """Which play hooks the listing asks in a game of ``options``: the ones this
        class overrides (classic UNO's house rules answer by the rules a game plays). It
        must depend on its argument only: it is compiled into a table (``turn_hooks``),
        one entry per combination of options, made when first asked."""
        return self._own_hooks

    def turn_hooks(self, s: State | Work) -> TurnHooks:
        """``turn_hooks_for(s.options)``, read from its table (the hot paths read the
        table themselves: a dict read, no call)."""
        return self._turn_hooks[s.options]  # type: ignore[no-any-return]

    def play_moves(self, s: State, player: int, card: int) -> list[Move]:
        """Every complete play of ``card`` by ``player``: one per colour it may name and
        seat it may target (``targets_of``), each also with ``uno: true`` where that fits
        (asked once for each seat named: ``uno_flag_allowed`` does not read a play's
        colour)."""
        return self.card_plays(s, player, card, self._turn_hooks[s.options].targets)

    def card_plays(self, s: State, player: int, card: int, named: bool) -> list[Move]:
        """``play_moves``, with ``named`` (``turn_hooks(s).targets``: whether plays name
        seats in ``s``) known: ``hand_plays`` of the one card."""
        return self.hand_plays(s, player, (card,), named)

    def hand_plays(self, s: State, player: int, cards: Iterable[int], named: bool) -> list[Move]:
        """The plays of ``cards`` in turn, each as ``play_moves`` lists them, with
        ``named`` known: the plays come from the tables (``_target_plays`` where a play
        names a seat, else ``_play_lists``), ``uno_flag_allowed`` asked per seat where
        its answer may be yes (``_uno_beyond_two``)."""
        side = s.side
        fits = self.uno_flag_allowed
        lists = self._play_lists[side][player]
        plays = self._plays[side][player]
        seat_pairs = self._target_plays[s.num_players, s.direction][side][player] if named else None
        # The cards the hook is asked for (None: every card). Classic UNO's hook gives
        # one answer for the hand (``TurnHooks``): asked once, of the first play; where
        # the hook is asked per play, away from a hand of two only the cards of
        # ``_uno_beyond_two`` may say UNO.
        asked: frozenset[int] | None = None
        if not self._turn_hooks[s.options].uno_per_play:
            if not classic_uno_flag(self, s, plays[0][0][1]):
                asked = NO_CARDS
        elif len(s.hands[player]) != 2:
            beyond = self._uno_beyond_two.get(s.options)  # made for the default options only
            if beyond is not None:
                asked = beyond[side]
        says = self._says_uno[side]
        out: list[Move] = []
        for card in cards:
            pairs = seat_pairs[card] if seat_pairs is not None else None
            if asked is not None and card not in asked:
                if pairs is not None:
                    out += [plain for plain, _ in pairs]
                else:
                    out += lists[0][card]
            elif pairs is not None:
                for plain, said in pairs:
                    out.append(plain)
                    if says[card] and fits(s, said):
                        out.append(said)
            else:
                out += lists[1 if fits(s, plays[card][0][1]) else 0][card]
        return out

    def legal_turn(self, state: State, player: int) -> list[Move]:
        """The plays of every card of the hand that ``matches`` the card in play, and the
        draw where ``may_draw`` allows it. A hook ``turn_hooks`` leaves out is not asked
        per card: the plays then come whole from the table (``_play_lists``), and
        ``uno_flag_allowed`` is asked once, for the first of them."""
        side = state.side
        top = state.discard[-1]
        playable = self._matching[side][top].get(state.active_color)
        if playable is None:
            playable = self.matching(side, state.active_color, top)
        hooks = self._turn_hooks[state.options]
        if hooks.targets or hooks.uno_per_play:
            hand = filter(playable.__contains__, state.hands[player])
            moves = self.hand_plays(state, player, hand, hooks.targets)
        else:
            # ``uno_flag_allowed`` answers as classic UNO's here (``TurnHooks``): by the
            # hand's size, one answer for every play of the seat (asked of its first play).
            # Asked at the first playable card: a hand with none asks nothing.
            moves = []
            lists = None
            for card in state.hands[player]:
                if card in playable:
                    if lists is None:
                        said = self._plays[side][player][0][0][1]
                        flag = classic_uno_flag(self, state, said)
                        lists = self._play_lists[side][player][1 if flag else 0]
                    moves += lists[card]
        if not hooks.may_draw or self.may_draw(state, player):
            moves.append(self._draw_moves[player])
        return moves

    @lists(P.PLAY_DRAWN)
    def legal_play_drawn(self, state: State, player: int) -> list[Move]:
        pend = state.pending
        assert pend is not None and pend.card is not None  # a play_drawn decision names its card
        hooks = self._turn_hooks[state.options]
        moves = self.card_plays(state, player, pend.card, hooks.targets)  # play_moves
        if not hooks.may_keep_drawn or self.may_keep_drawn(state, player):
            moves.append(self._pass_moves[player])
        return moves

    @lists(P.CHOOSE_COLOR)
    def legal_choose_color(self, state: State, player: int) -> list[Move]:
        return [Move(T_CHOOSE_COLOR, player, color=c) for c in self.colors_for(state)]

    @lists(P.CHALLENGE)
    def legal_challenge(self, state: State, player: int) -> list[Move]:
        return [Move(T.CHALLENGE, player), Move(T.ACCEPT, player)]

    # ------------------------------------------------------------------ forced defaults
    @defaults(TURN)
    def default_turn(self, state: State, player: int) -> Move:
        """Draw a card (`draw`); if the drawn card can be played, the `play_drawn`
        default follows."""
        return self._draw_moves[player]

    @defaults(P.PLAY_DRAWN)
    def default_play_drawn(self, state: State, player: int) -> Move:
        """Keep the drawn card (`pass`)."""
        return Move(T.PASS, player)

    @defaults(P.CHOOSE_COLOR)
    def default_choose_color(self, state: State, player: int) -> Move:
        """Name the first colour in the order red, yellow, green, blue."""
        return Move(T.CHOOSE_COLOR, player, color=self.colors_for(state)[0])

    @defaults(P.CHALLENGE)
    def default_challenge(self, state: State, player: int) -> Move:
        """Accept the Wild Draw card without a challenge (`accept`)."""
        return Move(T.ACCEPT, player)

    # ------------------------------------------------------------------ play
    def check_play(self, w: Work, move: Move) -> tuple[int, Color | None]:
        """Validate a play by the rule hooks (``matches`` on a turn, ``may_play`` while a
        decision is pending or out of turn, ``play_targets``, ``uno_flag_allowed``,
        ``play_colors``); return the card and the colour it leaves in play."""
        _, player, card, color, target, chain, uno, _ = move
        if card is None or card not in w.hands[player]:
            card = self.require_card_in_hand(w, move)  # raises the precise error
        side = w.side
        if w.pending is not None or player != w.current:
            if not self.may_play(w, player, card):
                raise self.play_refused(w, player, card)
        elif card not in (
            self._matching[side][w.discard[-1]].get(w.active_color)
            or self.matching(side, w.active_color, w.discard[-1])
        ):
            raise self.no_match(w, card)
        # ``targets_of``, read from its tables as the listing reads them (``hand_plays``).
        if self._turn_hooks[w.options].targets:
            targets = self._targets[w.num_players, w.direction][player][card]
        else:
            targets = NO_TARGET
        if target not in targets:
            if targets == NO_TARGET:
                raise RulesError("this play takes no 'target'", code="unexpected_field")
            if target is None:
                raise RulesError("name a seat ('target')", code="target_required")
            if target == player:
                raise RulesError("name another seat, not your own", code="invalid_target")
            raise RulesError(f"this play cannot name seat {target!r}", code="invalid_target")
        if chain is not None:
            raise RulesError("this play takes no 'chain'", code="unexpected_field")
        if uno and not (self._says_uno[side][card] and self.uno_flag_allowed(w, move)):
            raise RulesError(
                "say UNO with the play of your second-to-last card only", code="uno_not_applicable"
            )
        # The colour the play leaves in play: the one named, else the card's own.
        colors = self._colors[side][card]
        if color not in colors:
            if colors == NO_COLOR:
                raise RulesError("only a wild card takes a colour", code="color_not_allowed")
            if color is None:
                raise RulesError("a wild card needs a colour", code="color_required")
            raise RulesError(
                f"{color} cannot be named on this side; choose one of " + ", ".join(colors),  # type: ignore[arg-type]
                code="invalid_color",
            )
        if color is None:
            return card, self.catalog.color[side][card]
        return card, color

    @handles(T.PLAY)
    def on_play(self, w: Work, move: Move, events: list[Event]) -> None:
        card, color = self.check_play(w, move)
        player = move[1]
        if player != w.current and w.pending is None:
            # A play out of turn (``out_of_turn``: classic UNO's jump-in): the seat that
            # was to move loses its turn; play goes on from the player.
            events.append(event("jumped_in", player=player, target=w.current))
        w.pending = None
        self.put_on_discard(w, player, card, color, events)
        if not w.hands[player]:
            self.go_out(w, player, card, events)
        else:
            self.card_effect(w, player, card, move, events)

    def put_on_discard(
        self, w: Work, player: int, card: int, color: Color | None, events: list[Event]
    ) -> None:
        hands = w.hands
        hand = hands[player]
        i = hand.index(card)
        hands[player] = hand[:i] + hand[i + 1 :]
        w.discard += (card,)
        w.prev_color = w.active_color
        w.active_color = color
        side = w.side
        cat = self.catalog
        ref = (
            self.public_ref(w, card)
            if self._custom_refs
            else {"id": card, "code": cat.code[side][card]}
        )
        if cat.wild[side][card]:
            ev = {
                "type": "played",
                "player": player,
                "card": ref,
                "color": color.value if color else None,
            }
        else:
            ev = {"type": "played", "player": player, "card": ref}
        events.append(ev)

    def card_effect(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        """Apply the played card's action and decide who moves next."""
        effect = self._effect_of[w.side][card]
        if effect is None:
            w.current = NEXT_SEAT[w.direction][w.num_players][player]
        else:
            effect(w, player, card, move, events)

    def effect_skip(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        after = NEXT_SEAT[w.direction][w.num_players]
        skipped = after[player]
        events.append({"type": "skipped", "player": skipped})
        w.current = after[skipped]

    def effect_reverse(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        if w.num_players == 2:  # README: a Reverse acts as a Skip with two players
            self.effect_skip(w, player, card, move, events)
            return
        w.direction = -w.direction
        events.append(
            event("reversed", direction="clockwise" if w.direction == 1 else "counterclockwise")
        )
        w.current = w.next_seat(player)

    def effect_draw(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        victim = w.next_seat(player)
        self.draw_cards(w, victim, self.draw_amounts[self.kind(w, card)], events, "penalty")
        events.append(event("skipped", player=victim))
        w.current = w.next_seat(victim)

    def effect_challengeable_draw(
        self, w: Work, player: int, card: int, move: Move | None, events: list[Event]
    ) -> None:
        victim = w.next_seat(player)
        w.pending = pending(P_CHALLENGE, victim, card, **self.challenge_data(w, player))
        w.current = victim

    effects = {
        Kind.SKIP: effect_skip,
        Kind.REVERSE: effect_reverse,
        Kind.DRAW_TWO: effect_draw,
        Kind.WILD_DRAW_FOUR: effect_challengeable_draw,
    }

    def go_out(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        """The player played their last card: draw cards take effect, then score."""
        self.last_card_effect(w, player, card, events)
        self.finish_round(w, player, events)

    def last_card_effect(self, w: Work, player: int, card: int, events: list[Event]) -> None:
        kind = self.kind(w, card)
        amount = self.draw_amounts.get(kind)
        if amount is None and kind in self.challenge_cards:
            amount = self.challenge_cards[kind][0]
        if amount:
            self.draw_cards(w, w.next_seat(player), amount, events, "penalty")

    # ------------------------------------------------------------------ challenge
    def challenge_data(self, w: Work, offender: int) -> dict[str, Any]:
        """What a decision on the challengeable card ``offender`` just played holds (the
        ``challenge`` decision, the stacking house rule's penalty on a Wild Draw Four):
        the offender's seat, whether the play was ``challenge_guilty`` by the colour and
        card in play before it, and the hand that was checked (revealed on a challenge)."""
        guilty = self.challenge_guilty(w, offender, w.prev_color, w.discard[-2])
        return {"offender": offender, "guilty": guilty, "hand": w.hands[offender]}

    def check_challenge_data(self, state: State, pend: Pending) -> None:
        """Raise ``InvalidState`` unless ``pend`` holds what ``challenge_data`` makes (a
        record from before ``hand`` was kept may leave it out: the current hand is shown)."""
        from .errors import InvalidState

        offender, guilty = pend.get("offender"), pend.get("guilty")
        if (
            not isinstance(offender, int)
            or isinstance(offender, bool)
            or not 0 <= offender < state.num_players
            or offender == pend.player
            or not isinstance(guilty, bool)
        ):
            raise InvalidState(
                "a pending challenge needs the offender's seat and a guilty flag",
                field="pending.data",
            )
        hand = pend.get("hand", ())
        size = self.catalog.size
        if type(hand) is not tuple or not all(type(c) is int and 0 <= c < size for c in hand):
            raise InvalidState(
                "a pending challenge's hand must be a list of card ids", field="pending.data"
            )

    def challenge_guilty(
        self, w: Work, offender: int, prev_color: Color | None, prev_top: int
    ) -> bool:
        """README: guilty when the offender's hand held a card of the active colour
        (wilds do not count); option ``any_playable``: any non-wild playable card."""
        side = w.side
        cat = self.catalog
        hand = w.hands[offender]
        if w.option("challenge_rule") == "any_playable":
            playable = self.matching(side, prev_color, prev_top)
            return any(not cat.wild[side][c] and c in playable for c in hand)
        return any(not cat.wild[side][c] and cat.color[side][c] is prev_color for c in hand)

    @handles(T.ACCEPT)
    def on_accept(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        assert pend is not None
        victim = move.player
        draw, _, _ = self.challenge_cards[self.kind(w, pend.card)]  # type: ignore[arg-type]
        w.pending = None
        events.append(event("accepted", player=victim))
        self.challenge_draw(w, victim, draw, pend.card, events)  # type: ignore[arg-type]
        self.after_wild_draw(w, victim, pend.get("offender"), events)

    @handles(T.CHALLENGE)
    def on_challenge(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        assert pend is not None
        victim = move.player
        offender = pend.get("offender")
        guilty = pend.get("guilty")
        card = pend.card
        guilty_draw, innocent_draw = self.challenge_penalties(w, pend)
        w.pending = None
        events.append(
            secret_event(
                "challenged",
                to=(victim,),
                secret={"hand": self.private_refs(w, pend.get("hand", w.hands[offender]))},
                player=victim,
                target=offender,
                guilty=guilty,
            )
        )
        if guilty:
            self.challenge_draw(w, offender, guilty_draw, card, events)  # type: ignore[arg-type]
            w.current = victim
        else:
            self.challenge_draw(w, victim, innocent_draw, card, events)  # type: ignore[arg-type]
            self.after_wild_draw(w, victim, offender, events)

    def challenge_penalties(self, w: Work, pend: Pending) -> tuple[int, int]:
        """What a challenge of the pending card draws: the guilty offender's cards, the
        cards of a challenger who was wrong (``challenge_cards``)."""
        _, guilty, innocent = self.challenge_cards[self.kind(w, pend.card)]  # type: ignore[arg-type]
        return guilty, innocent

    def challenge_draw(
        self, w: Work, seat: int, count: int, card: int, events: list[Event]
    ) -> None:
        """The draw a challengeable card imposes (UNO Flip's Wild Draw Color overrides)."""
        self.draw_cards(w, seat, count, events, "penalty")

    def after_wild_draw(self, w: Work, victim: int, offender: int, events: list[Event]) -> None:
        """The victim drew and loses the turn."""
        events.append(event("skipped", player=victim))
        w.current = w.next_seat(victim)

    # ------------------------------------------------------------------ other moves
    @handles(T.DRAW)
    def on_draw(self, w: Work, move: Move, events: list[Event]) -> None:
        """Draw a card (if ``may_draw``, asked where ``turn_hooks`` says, as the listing
        asks it), and more while ``draws_to_match`` and none ``matches``; a drawn card
        that ``matches`` may be played now."""
        player = move[1]
        pend = w.pending
        if pend is not None:  # a decision answered with a draw (``draw_answer``)
            self.draw_answer(w, player, pend, events)
            return
        hooks = self._turn_hooks[w.options]
        if hooks.may_draw and not self.may_draw(w, player):
            raise self.draw_refused(w, player)
        drawn = self.draw_cards(w, player, 1, events, "draw")
        while drawn:
            card = drawn[0]
            if card in (
                self._matching[w.side][w.discard[-1]].get(w.active_color)
                or self.matching(w.side, w.active_color, w.discard[-1])
            ):
                w.pending = _new(Pending, (PLAY_DRAWN, player, card, ()))
                return
            if not hooks.draws_to_match or not self.draws_to_match(w):
                break
            drawn = self.draw_cards(w, player, 1, events, "draw")
        w.current = NEXT_SEAT[w.direction][w.num_players][player]

    def draw_answer(self, w: Work, player: int, pend: Pending, events: list[Event]) -> None:
        """A draw that answers the pending decision: none of classic UNO's (its guards
        refuse a draw then); the stacking house rule's penalty is taken so."""
        raise RulesError(f"a draw does not answer {pend.type.value!r}", code="illegal_move")

    @handles(T.PASS)
    def on_pass(self, w: Work, move: Move, events: list[Event]) -> None:
        player = move[1]
        if self._turn_hooks[w.options].may_keep_drawn and not self.may_keep_drawn(w, player):
            raise RulesError(
                "a drawn card that can be played must be played at once",
                code="must_play_drawn_card",
            )
        w.pending = None
        events.append({"type": "passed", "player": player})
        w.current = NEXT_SEAT[w.direction][w.num_players][player]

    @handles(T.CHOOSE_COLOR)
    def on_choose_color(self, w: Work, move: Move, events: list[Event]) -> None:
        pend = w.pending
        assert pend is not None
        color = move.color
        if color is None:
            raise RulesError("choose_color needs a colour", code="color_required")
        if color not in self.colors_for(w):
            raise RulesError(
                f"{color} cannot be named now; choose one of " + ", ".join(self.colors_for(w)),
                code="invalid_color",
            )
        w.active_color = color
        w.pending = None
        events.append(event("color_chosen", player=move.player, color=color.value))
        w.current = pend.get("then", move.player)

    # ------------------------------------------------------------------ exchanged hands
    def swap(self, w: Work, player: int, target: int, events: list[Event]) -> None:
        """Swap two hands (each party now sees the other's former hand in their own);
        everybody sees who swapped with whom and the new sizes."""
        hands = w.hands
        hands[player], hands[target] = hands[target], hands[player]
        events.append(
            event(
                "swapped",
                player=player,
                target=target,
                hand_sizes=[len(hands[player]), len(hands[target])],
            )
        )

    # ------------------------------------------------------------------ checks
    def check_state(self, state: State) -> None:
        from .errors import InvalidState

        pend = state.pending
        if (
            pend is not None
            and pend.type is P.PLAY_DRAWN
            and pend.card not in state.hands[pend.player]
        ):
            raise InvalidState(
                "the drawn card awaiting a decision is not in the player's hand",
                field="pending.card",
            )
        if state.phase is Phase.PLAY and not state.discard:
            raise InvalidState("the discard pile is empty during play", field="discard")
        if pend is not None and pend.type is P.CHALLENGE:
            # The answer to a challenge reads these: a state without them cannot go on.
            if (
                pend.card is None
                or self.kind(state, pend.card) not in self.challenge_cards
                or not state.discard
                or state.discard[-1] != pend.card
            ):
                raise InvalidState(
                    "a pending challenge must name the challengeable card on top of the discard pile",
                    field="pending.card",
                )
            self.check_challenge_data(state, pend)


#: Classic UNO's ``uno_flag_allowed``, asked by the listing where ``turn_hooks`` says a
#: variant keeps it (a module name: no read of a class attribute on each listing).
classic_uno_flag = UnoRules.uno_flag_allowed
