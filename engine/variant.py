"""The variant base: setup, the guarded ``apply`` pipeline, legal moves, the UNO call
and the state checks. It builds on one layer per concern, each a module:
``facts`` (id, players, options, catalog, metadata) < ``views`` (card references and
views) < ``drawing`` (deal, draw, reshuffle) < ``scoring`` (rounds, totals, winners)
< ``variant``; the dispatch tables are ``engine.dispatch``.

A variant subclasses ``Variant`` (or the UNO turn machinery in ``engine.uno``) and
overrides only what differs. A move handler is a method marked ``@handles(MoveType.X)``;
the legal answers to a decision come from a method marked ``@lists(SomePending.Y)``, and
``legal_turn`` lists the moves of a turn with no decision pending. Overriding a marked
method (same name) replaces the handler. The tables from type to method are built once,
when the class is created, and checked there: a move type in ``move_types`` without a
handler, or a decision in ``pending_moves`` without its legal moves, is a ``TypeError``
at import, not an error in the middle of a game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import cycle
from operator import getitem
from types import MethodType
from typing import Any

from . import rng as prng
from .cards import Kind
from .dispatch import ROUND_OVER as ROUND_OVER_DEFAULT
from .dispatch import TURN, defaults, handles, lists
from .errors import RulesError, SetupError
from .events import Event, event
from .facts import cached
from .moves import MOVE_FIELDS, NOT_NOW, Move, MoveType
from .options import OptionSpec
from .scoring import Scoring
from .state import PendingType, Phase, State, Work, freeze, seat_after, work_of

__all__ = ["TURN", "OptionSpec", "Variant", "defaults", "first_plain", "handles", "lists"]

MAX_SEED = (1 << 64) - 1
#: Cards a player caught without saying UNO draws (README "Saying UNO").
CAUGHT_DRAW = 2
#: The events of an exchange of hands (UNO All Wild's Forced Swap, classic UNO's
#: seven-zero): a seat it leaves with another single card owes UNO again.
EXCHANGES = frozenset({"swapped", "hands_passed"})

# Enum members as module constants: on Python 3.11 every ``Phase.X`` is a descriptor call.
PLAY, ROUND_OVER, GAME_OVER = Phase.PLAY, Phase.ROUND_OVER, Phase.GAME_OVER

T = MoveType
NEXT_ROUND, CATCH, UNO = T.NEXT_ROUND, T.CATCH, T.UNO


#: Move type -> the (index, name) of the optional Move fields it must not carry.
_FIELD_CHECKS: dict[MoveType, tuple[tuple[int, str], ...]] = {
    t: tuple(
        (Move._fields.index(n), n)
        for n in ("card", "color", "target", "chain", "cards")
        if n not in MOVE_FIELDS[t]
    )
    for t in MoveType
}

#: Move type -> whether it must not carry (card, color, target, chain, cards, uno).
_FORBIDDEN: dict[MoveType, tuple[bool, bool, bool, bool, bool, bool]] = {
    t: (
        "card" not in MOVE_FIELDS[t],
        "color" not in MOVE_FIELDS[t],
        "target" not in MOVE_FIELDS[t],
        "chain" not in MOVE_FIELDS[t],
        "cards" not in MOVE_FIELDS[t],
        "uno" not in MOVE_FIELDS[t],
    )
    for t in MoveType
}


#: Pile names of the hands, made once (``piles`` runs for every state read).
HAND_NAMES = tuple(f"hands[{seat}]" for seat in range(100))


def first_plain(moves: Iterable[Move]) -> Move:
    """The first of ``moves`` that does not say UNO (a forced move never says it)."""
    return next(m for m in moves if not m.uno)


def check_fields(move: Move) -> None:
    """Raise ``unexpected_field`` (``uno_not_applicable`` for ``uno``) for a field that
    ``move``'s type does not carry (``MOVE_FIELDS``); ``check_move`` calls it for a move
    that carries one (``_FORBIDDEN``)."""
    mtype = move[0]
    for index, name in _FIELD_CHECKS[mtype]:
        if move[index] is not None:
            raise RulesError(f"a {mtype.value} move has no {name!r} field", code="unexpected_field")
    raise RulesError(
        f"UNO is said with a play (or a separate 'uno' move), not with {mtype.value!r}",
        code="uno_not_applicable",
    )


class Variant(Scoring):
    """A game: its facts (``VariantFacts``), views, drawing and scoring (the layers it
    builds on), and here the setup, the guarded ``apply`` pipeline, legal moves, the UNO
    call and the state checks. Instances are stateless singletons."""

    def __init__(self) -> None:
        super().__init__()
        #: Move type -> the handler bound to this instance (bound once).
        self._handlers: dict[MoveType, Callable[[Work, Move, list[Event]], None]] = {
            t: MethodType(self.move_handlers[t], self) for t in self.move_types
        }
        #: ``check_move``'s table: move type (``move_types``) -> the fields it must not
        #: carry (``_FORBIDDEN``) and whether it is a side move (``side_moves``).
        self._guards = {t: (*_FORBIDDEN[t], t in self.side_moves) for t in self.move_types}
        #: Whether this variant names cards to a seat other than by catalog id (its
        #: ``decode_move`` is not the identity).
        self._translates = type(self).decode_move is not Variant.decode_move
        #: ``cut_value`` compiled: card id -> its value in the cut for dealer.
        self._cut_values = tuple(self.cut_value(card) for card in self.catalog.ids)
        #: Whether every cut ties (all cards have one cut value, as in UNO All Wild): the
        #: seats then draw until the deck cannot serve them all, with no values compared.
        self._cut_always_ties = len(set(self._cut_values)) <= 1

    # ------------------------------------------------------------------ setup

    def new_game(
        self,
        players: int,
        seed: int,
        dealer: int | None = None,
        options: dict[str, Any] | None = None,
        deck: list[int] | None = None,
    ) -> tuple[State, list[Event]]:
        """A new game: options resolved, dealer cut (unless given), first round dealt."""
        if not isinstance(players, int) or isinstance(players, bool):
            raise SetupError("players must be an integer", code="invalid_player_count")
        if not self.min_players <= players <= self.max_players:
            raise SetupError(
                f"{self.id} is played by {self.players_text()}, not {players}",
                code="invalid_player_count",
            )
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= MAX_SEED:
            raise SetupError("seed must be an integer from 0 to 2**64-1", code="invalid_seed")
        if dealer is not None and (
            not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players
        ):
            raise SetupError(
                f"dealer must be a seat from 0 to {players - 1}", code="invalid_dealer"
            )
        resolved = self.resolve_options(options or {})
        if deck is not None:
            deck = self.check_deck(deck)
        start = State(
            self.id,
            players,
            resolved,
            seed,
            prng.seed(seed),
            hands=((),) * players,
            scores=(0,) * players,
            ext=self.initial_ext(players),
        )
        w = work_of(start)
        events: list[Event] = []
        if dealer is None:
            dealer = 0 if deck is not None else self.cut_for_dealer(w, events)
        w.dealer = dealer
        self.start_round(w, events, deck)
        return freeze(w), events

    def resolve_options(self, options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Every option with its value: the given ones checked, defaults for the rest."""
        if not isinstance(options, dict):
            raise SetupError("options must be an object", code="invalid_option")
        # Every state read resolves its options again: remember the answers (the type is
        # in the key, so ``True`` is not taken for ``1``).
        try:
            key: Any = tuple((k, type(v), v) for k, v in options.items())
            known = self._resolved.get(key)
        except TypeError:  # an unhashable value: checked (and refused) below
            key = known = None
        if known is not None:
            return known
        resolved = self._resolve_options(options)
        if key is not None and len(self._resolved) < 1024:
            self._resolved[key] = resolved
        return resolved

    @cached
    def _resolved(self) -> dict[Any, tuple[tuple[str, Any], ...]]:
        return {}

    def _resolve_options(self, options: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise SetupError(
                f"unknown option(s) {', '.join(map(repr, unknown))} for {self.id}; known: "
                + ", ".join(sorted(self.options)),
                code="unknown_option",
            )
        resolved = {}
        for name, spec in self.options.items():
            value = spec.check(options[name]) if name in options else spec.default
            if spec.stored_at_default or value != spec.default:
                resolved[name] = value
        return tuple(sorted(resolved.items()))

    def check_deck(self, deck: Any) -> list[int]:
        size = self.catalog.size
        if not isinstance(deck, list) or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in deck
        ):
            raise SetupError("deck must be a list of card ids", code="invalid_deck")
        if len(deck) != size or set(deck) != set(range(size)):
            seen: set[int] = set()
            dupes = sorted({c for c in deck if c in seen or seen.add(c)})  # type: ignore[func-returns-value]
            missing = sorted(set(range(size)) - set(deck))
            outside = sorted(c for c in set(deck) if not 0 <= c < size)
            parts = [f"deck must be a permutation of the {size} card ids 0..{size - 1}"]
            if outside:
                parts.append(f"unknown ids {outside[:10]}")
            if dupes:
                parts.append(f"repeated ids {dupes[:10]}")
            if missing:
                parts.append(f"missing ids {missing[:10]}")
            raise SetupError("; ".join(parts), code="invalid_deck")
        return list(deck)

    def initial_ext(self, players: int) -> Any:
        """The variant's extra state at the start of a game (``State.ext``)."""
        return None

    def cut_value(self, card: int) -> int:
        """A card's value in the cut for dealer: its number, else zero."""
        cat = self.catalog
        if cat.kind[0][card] is Kind.NUMBER:
            return cat.value[0][card] or 0
        return 0

    def cut_for_dealer(self, w: Work, events: list[Event]) -> int:
        """Simulate the cut for high card (README): tied seats draw again.

        Seats draw in seat order from one shuffled deck. If the deck runs out while
        seats are still tied (a deck with few or no numbers), the tie is broken by the
        generator among the tied seats. Where every card has one cut value
        (``_cut_always_ties``), every round ties: the seats' draws are listed at once.
        """
        pile = list(self.catalog.ids)
        w.rng = prng.shuffle(w.rng, pile)
        values = self._cut_values
        codes = self.catalog.code[w.side]
        custom = self._custom_refs
        contenders = list(range(w.num_players))
        drawn: list[dict[str, Any]] = []
        position = 0
        if self._cut_always_ties and len(contenders) > 1:
            seats = len(contenders)
            position = len(pile) - len(pile) % seats
            if custom:
                refs = [self.public_ref(w, card) for card in pile[:position]]
                drawn = [{"player": i % seats, "card": ref} for i, ref in enumerate(refs)]
            else:  # each seat in turn: its entry for the card, from the table
                key = (w.side, seats)
                entries = self._cut_entries.get(key)
                if entries is None:
                    entries = self._cut_entries[key] = self.cut_entry_table(*key)
                drawn = [*map(getitem, cycle(entries), pile[:position])]
        while len(contenders) > 1 and position + len(contenders) <= len(pile):
            got = {}
            for seat in contenders:
                card = pile[position]
                position += 1
                got[seat] = values[card]
                ref = self.public_ref(w, card) if custom else {"id": card, "code": codes[card]}
                drawn.append({"player": seat, "card": ref})
            best = max(got.values())
            contenders = [s for s in contenders if got[s] == best]
        if len(contenders) > 1:
            index, w.rng = prng.below(w.rng, len(contenders))
            contenders = [contenders[index]]
        events.append(event("dealer_cut", cards=drawn, winner=contenders[0]))
        return contenders[0]

    @cached
    def _cut_entries(self) -> dict[tuple[int, int], tuple[tuple[dict[str, Any], ...], ...]]:
        """``cut_entry_table`` by (side, seats), each made when first asked."""
        return {}

    def cut_entry_table(self, side: int, seats: int) -> tuple[tuple[dict[str, Any], ...], ...]:
        """seat -> card -> the cut event's entry of that seat drawing that card
        (``{"player", "card": public_ref}``) at a table of ``seats`` (an event is a value:
        no reader changes it, so the games of a table size share the entries)."""
        codes = self.catalog.code[side]
        refs = [{"id": card, "code": codes[card]} for card in self.catalog.ids]
        return tuple(tuple({"player": s, "card": ref} for ref in refs) for s in range(seats))

    def start_round(self, w: Work, events: list[Event], deck: list[int] | None = None) -> None:
        """Reset the table for a round and deal it (the caller's ``deck`` or a shuffle)."""
        pile = deck if deck is not None else self.shuffled_deck(w)
        w.phase = PLAY
        w.direction = 1
        w.side = 0
        w.pending = None
        w.exposed = ()
        w.active_color = None
        w.round_winner = None
        w.discard = ()
        w.ext = self.round_ext(w)
        events.append(event("round_started", round=w.round, dealer=w.dealer))
        self.setup_table(w, pile, events)

    def round_ext(self, w: Work) -> Any:
        """The variant's extra state at the start of a round."""
        return w.ext

    def setup_table(self, w: Work, pile: list[int], events: list[Event]) -> None:
        """Deal from ``pile`` (top first) and lay out the table. Variants override."""
        raise NotImplementedError

    # ------------------------------------------------------------------ moves

    @cached
    def _listers(self) -> dict[PendingType, Callable[[State, int], list[Move]]]:
        """Decision -> the method listing its answers, bound to this instance."""
        return {d: MethodType(self.decision_listers[d], self) for d in self.pending_moves}

    @cached
    def decisions(self) -> dict[str, PendingType]:
        """This variant's decisions by their JSON name."""
        return {d.value: d for d in self.pending_moves}

    def check_move(self, state: State, move: Move) -> None:
        """The guards every move passes, in a fixed order."""
        mtype, player, card, color, target, chain, uno, cards = move
        try:
            guard = self._guards[mtype]
        except KeyError:
            raise RulesError(
                f"{self.id} has no {mtype.value!r} move", code="unknown_move"
            ) from None
        no_card, no_color, no_target, no_chain, no_cards, no_uno, side_move = guard
        current = state.current
        if player != current and not 0 <= player < state.num_players:  # ``current`` is a seat
            raise RulesError(
                f"player {player} is not a seat (0..{state.num_players - 1})",
                code="invalid_player",
            )
        if (
            (no_card and card is not None)
            or (no_color and color is not None)
            or (no_target and target is not None)
            or (no_chain and chain is not None)
            or (no_cards and cards is not None)
            or (no_uno and uno)
        ):
            check_fields(move)
        phase = state.phase
        if phase is not PLAY or mtype is NEXT_ROUND:  # the common move: neither
            if phase is GAME_OVER:
                raise RulesError("the game is over", code="game_over")
            if mtype is NEXT_ROUND:
                if phase is not ROUND_OVER:
                    raise RulesError("the round is not over yet", code="round_not_over")
                return
            if phase is ROUND_OVER:
                raise RulesError("the round is over; send next_round", code="round_over")
        if side_move:
            return
        pend = state.pending
        if pend is None:
            if player != current and not self.out_of_turn(state, move):
                raise RulesError(f"it is player {current}'s turn", code="not_your_turn")
            if mtype in NOT_NOW:
                raise self.refusal(
                    move,
                    RulesError(f"no decision awaits a {mtype.value!r} move", code=NOT_NOW[mtype]),
                )
            return
        actor = pend.player
        if player != actor:
            raise RulesError(
                f"waiting for player {actor} to {pend.type.replace('_', ' ')}",
                code="not_your_turn",
            )
        answers, code = self.pending_moves[pend.type]
        if mtype not in answers:
            raise self.refusal(
                move,
                RulesError(
                    f"player {actor} must answer {pend.type.value!r} with "
                    + " or ".join(sorted(t.value for t in answers)),
                    code=code,
                ),
            )

    def refusal(self, move: Move, error: RulesError) -> RulesError:
        """The error ``check_move`` raises for ``move`` where no decision awaits it, or
        where the decision pending awaits another move: ``error``, the common one
        (``NOT_NOW``, ``pending_moves``' code); a variant with its own codes for some of
        these returns its own."""
        return error

    def out_of_turn(self, state: State, move: Move) -> bool:
        """Whether ``move``, by a seat that is not to move while no decision is pending,
        goes on to the rules (its handler says whether it is legal) instead of being
        refused as ``not_your_turn``: never, but where a house rule lets a seat play
        out of turn (classic UNO's jump-in)."""
        return False

    def apply(self, state: State, move: Move) -> tuple[State, list[Event]]:
        """Validate ``move`` and return the next state and the events it caused.

        The handler changes a ``Work`` (``engine.state.work_of``: one store per field),
        which becomes the new ``State``; the input state is never changed."""
        if self._translates:
            move = self.decode_move(state, move)
        self.check_move(state, move)
        return self.apply_listed(state, move)

    def apply_listed(self, state: State, move: Move) -> tuple[State, list[Event]]:
        """``apply`` of a move ``legal_moves(state, ...)`` listed, as listed (catalog ids):
        the same state and events as ``apply(state, encode_move(state, move))``, without
        translating the move back or re-checking what the list ensured (a search's
        playouts, ``engine.bots.montecarlo``). Any other move: ``apply``."""
        w = work_of(state)
        events: list[Event] = []
        mtype = move[0]
        self._handlers[mtype](w, move, events)
        # ``update_exposed`` has something to do when the round ended, a seat is exposed
        # or a seat holds a single card (the common move: none of them). A loop, not
        # ``1 in map(len, w.hands)``: no iterator made and called (two hands, mostly).
        single = False
        for hand in w.hands:
            if len(hand) == 1:
                single = True
                break
        if (
            (w.exposed or w.phase is not PLAY or single)
            and mtype is not NEXT_ROUND
            and self.uno_rule
        ):
            self.update_exposed(state, w, move, events)
        w.move_count += 1
        return freeze(w), events

    def decode_move(self, state: State, move: Move) -> Move:
        """Translate the card names a seat sees into catalog ids (identity by default)."""
        return move

    def encode_move(self, state: State, move: Move) -> Move:
        """Translate a move into the card names its player sees (identity by default)."""
        return move

    def legal_moves(self, state: State, player: int) -> list[Move]:
        """Every complete move ``player`` may make now, ready to send back."""
        phase = state.phase
        pend = state.pending
        if pend is None and phase is PLAY and state.current == player:
            # The common listing, a turn (``current`` is a seat: no test of ``player``).
            moves = self.legal_turn(state, player)
        elif phase is GAME_OVER or not 0 <= player < state.num_players:
            return []
        elif phase is ROUND_OVER:
            return [Move(NEXT_ROUND, player)]
        elif pend is not None:
            moves = self._listers[pend.type](state, player) if pend.player == player else []
        elif state.current == player:  # a turn in another phase (UNO Duo's draft)
            moves = self.legal_turn(state, player)
        else:
            moves = self.legal_out_of_turn(state, player)
        if state.exposed and self.uno_rule:
            moves = moves + self.legal_side(state, player)
        return moves

    def legal_turn(self, state: State, player: int) -> list[Move]:
        raise NotImplementedError

    def legal_out_of_turn(self, state: State, player: int) -> list[Move]:
        """The moves of a seat that is not to move while no decision is pending (beyond
        the UNO calls and catches): none, but where ``out_of_turn`` lets some through."""
        return []

    # ------------------------------------------------------------------ forced moves

    @cached
    def _defaulters(self) -> dict[PendingType | str, Callable[[State, int], Move]]:
        """Decision (or ``TURN`` / ``ROUND_OVER``) -> its forced default, bound."""
        return {d: MethodType(fn, self) for d, fn in self.decision_defaults.items()}

    def waiting_for(self, state: State) -> int | None:
        """The seat whose move the game waits for: the pending decision's player, else
        the player to move; between rounds the round's winner (any seat may start the
        next round); ``None`` once the game is over. UNO calls and catches are never
        waited for."""
        phase = state.phase
        if phase is GAME_OVER:
            return None
        if phase is ROUND_OVER:
            return state.round_winner if state.round_winner is not None else state.current
        pend = state.pending
        return pend.player if pend is not None else state.current

    def forced_move(self, state: State, player: int) -> Move | None:
        """The documented default move of ``player`` now (its time ran out), ready to
        send back; ``None`` when the game waits for another seat or is over. Never an
        UNO call or a catch, and never says UNO."""
        if not 0 <= player < state.num_players or self.waiting_for(state) != player:
            return None
        if state.phase is ROUND_OVER:
            situation: PendingType | str = ROUND_OVER_DEFAULT
        else:
            pend = state.pending
            situation = pend.type if pend is not None else TURN
        return self.encode_move(state, self._defaulters[situation](state, player))

    def forced_move_docs(self) -> dict[str, str]:
        """Situation (a decision's name, ``turn`` or ``round_over``) -> its default, as
        the rules documents state it: the first paragraph of the method's docstring."""
        out = {}
        for situation in (TURN, *self.pending_moves, ROUND_OVER_DEFAULT):
            doc = self.decision_defaults[situation].__doc__
            doc = (doc or "").strip().split("\n\n")[0]
            out[str(situation)] = " ".join(doc.split())
        return out

    @defaults(ROUND_OVER_DEFAULT)
    def default_next_round(self, state: State, player: int) -> Move:
        """Start the next round (`next_round`)."""
        return Move(T.NEXT_ROUND, player)

    # ------------------------------------------------------------------ UNO

    def legal_side(self, state: State, player: int) -> list[Move]:
        if not self.uno_rule or not state.exposed:
            return []
        out = [Move(CATCH, player, target=s) for s in state.exposed if s != player]
        if player in state.exposed:
            out.append(Move(UNO, player))
        return out

    @handles(T.UNO)
    def on_uno(self, w: Work, move: Move, events: list[Event]) -> None:
        if move.player not in w.exposed:
            raise RulesError(
                "only a player left with one card who has not said UNO can say it now",
                code="nothing_to_declare",
            )
        w.exposed = tuple(s for s in w.exposed if s != move.player)
        events.append(event("uno", player=move.player))

    @handles(T.CATCH)
    def on_catch(self, w: Work, move: Move, events: list[Event]) -> None:
        target = move.target
        if target is None:
            raise RulesError("catch needs a target seat", code="target_required")
        if not isinstance(target, int) or not 0 <= target < w.num_players:
            raise RulesError(f"target {target} is not a seat", code="invalid_target")
        if target == move.player:
            raise RulesError("a player cannot catch themselves", code="cannot_catch_self")
        if target not in w.exposed:
            raise RulesError(
                f"player {target} cannot be caught (said UNO, is safe, or has more than one card)",
                code="cannot_catch",
            )
        w.exposed = tuple(s for s in w.exposed if s != target)
        events.append(event("caught", player=move.player, target=target))
        self.draw_cards(w, target, self.catch_penalty(w), events, "caught")

    def catch_penalty(self, s: State | Work) -> int:
        """The cards a caught player draws (``CAUGHT_DRAW``)."""
        return CAUGHT_DRAW

    def said_uno(self, w: Work, move: Move) -> bool:
        return move.uno

    def update_exposed(self, before: State, w: Work, move: Move, events: list[Event]) -> None:
        """Track who may be caught for not saying UNO (README "Saying UNO").

        A seat left with a new single card during this move is exposed unless it is the
        mover and said UNO with the move: its hand fell to one card, or an exchange of
        hands (``EXCHANGES``: a swap, a pass) gave it another single card (a new hand, a
        new duty). A seat stays exposed until some other seat makes a move that is not a
        declaration or a catch (the next player has begun).

        ``apply_listed`` asks it only where it may change something: the round ended, a
        seat is exposed, or a seat holds a single card.
        """
        if w.phase is not PLAY:
            w.exposed = ()
            return
        hands = w.hands
        exposed = w.exposed
        mover = move.player
        if exposed:
            side_move = move.type in self.side_moves
            kept = [s for s in exposed if len(hands[s]) == 1 and (side_move or s == mover)]
        else:
            kept = []
        # Only a hand that changed this move can be a new single card.
        for seat, (new, old) in enumerate(zip(hands, before.hands, strict=True)):
            if (
                new is not old
                and len(new) == 1
                and (len(old) != 1 or any(e["type"] in EXCHANGES for e in events))
                and seat not in kept
            ):
                if seat == mover and self.said_uno(w, move):
                    events.append(event("uno", player=seat))
                else:
                    kept.append(seat)
        w.exposed = tuple(sorted(kept))

    # ------------------------------------------------------------------ rounds

    @handles(T.NEXT_ROUND)
    def on_next_round(self, w: Work, move: Move, events: list[Event]) -> None:
        w.round += 1
        w.dealer = self.next_dealer(w)
        self.start_round(w, events)

    def next_dealer(self, w: Work) -> int:
        return seat_after(w.dealer, w.num_players)

    # ------------------------------------------------------------------ state checks

    def piles(self, state: State) -> Iterable[tuple[str, tuple[int, ...]]]:
        """Every place a card can be, by name (card conservation is checked over these)."""
        yield from zip(HAND_NAMES, state.hands, strict=False)  # more names than seats
        yield "draw_pile", state.draw_pile
        yield "discard", state.discard

    def public_piles(self, state: State) -> Iterable[tuple[int, ...]]:
        """The piles whose cards everybody may see (face up on the table)."""
        yield state.discard

    def check_state(self, state: State) -> None:
        """Variant invariants beyond the common ones; raise ``InvalidState``."""

    def ext_to_json(self, ext: Any) -> Any:
        return None

    def ext_from_json(self, raw: Any, players: int) -> Any:
        return None

    # ------------------------------------------------------------------ helpers

    def require_card_in_hand(self, w: Work, move: Move) -> int:
        card = move.card
        if card is None:
            raise RulesError(f"a {move.type.value} move needs a card", code="card_required")
        if card not in w.hands[move.player]:
            raise RulesError(
                f"card {self.card_name(w, card)} is not in player {move.player}'s hand",
                code="card_not_in_hand",
            )
        return card
