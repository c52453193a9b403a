"""The move guards after issue 18's lean rewrite (``Variant.check_move`` reading the move
once, ``UnoRules.check_play`` with ``matches`` and ``play_color`` written out) agree with
the guards they replaced, and with the legal move lists.

On many random games of every variant (2 to 4 players, random options, every decision
of the variant reached), every legal move and many altered ones (another seat, card,
colour, UNO flag, a field the type does not carry, every move type bare) are applied:

- ``apply`` accepts a move exactly when it is in ``legal_moves`` of its player;
- an illegal move raises the same ``RulesError`` code and message as the replaced
  guards (kept below as the reference, unchanged), and a legal one gives the same
  state and events.

The rules written out in place of ``matches`` (in ``check_play``, ``on_draw`` and
``legal_turn``) agree with ``matches`` on every pair of cards of every catalog, every
colour in play (or none) and every side.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import pytest

import engine
from engine import Color, Move, MoveType, Phase, RulesError, State
from engine.errors import EngineError, InvalidMove
from engine.moves import MOVE_FIELDS, NOT_NOW
from engine.state import Work, work_of
from engine.uno import UnoPending, UnoRules
from engine.variant import Variant

T = MoveType
VARIANTS = [v.id for v in engine.all_variants()]

# ---------------------------------------------------------------- the replaced guards

_BARE = Move(T.DRAW, 0)[2:]
_OPTIONAL = ("card", "color", "target", "chain", "cards")
_FIELD_CHECKS = {
    t: tuple((Move._fields.index(n), n) for n in _OPTIONAL if n not in MOVE_FIELDS[t])
    for t in MoveType
}


def reference_check_move(self: Variant, state: State, move: Move) -> None:
    """``Variant.check_move`` before issue 18's rewrite, unchanged."""
    mtype = move.type
    if mtype not in self.move_types:
        raise RulesError(f"{self.id} has no {mtype.value!r} move", code="unknown_move")
    player = move.player
    if not 0 <= player < state.num_players:
        raise RulesError(
            f"player {player} is not a seat (0..{state.num_players - 1})", code="invalid_player"
        )
    if move[2:] != _BARE:  # some optional field is set: may this type carry it?
        for index, name in _FIELD_CHECKS[mtype]:
            if move[index] is not None:
                raise RulesError(
                    f"a {mtype.value} move has no {name!r} field", code="unexpected_field"
                )
        if move.uno and "uno" not in MOVE_FIELDS[mtype]:
            raise RulesError(
                f"UNO is said with a play (or a separate 'uno' move), not with {mtype.value!r}",
                code="uno_not_applicable",
            )
    phase = state.phase
    if phase is Phase.GAME_OVER:
        raise RulesError("the game is over", code="game_over")
    if mtype is T.NEXT_ROUND:
        if phase is not Phase.ROUND_OVER:
            raise RulesError("the round is not over yet", code="round_not_over")
        return
    if phase is Phase.ROUND_OVER:
        raise RulesError("the round is over; send next_round", code="round_over")
    if mtype in self.side_moves:
        return
    pend = state.pending
    actor = pend.player if pend is not None else state.current
    if player != actor:
        if pend is not None:
            raise RulesError(
                f"waiting for player {actor} to {pend.type.replace('_', ' ')}",
                code="not_your_turn",
            )
        raise RulesError(f"it is player {actor}'s turn", code="not_your_turn")
    if pend is not None:
        answers, code = self.pending_moves[pend.type]
        if mtype not in answers:
            raise RulesError(
                f"player {actor} must answer {pend.type.value!r} with "
                + " or ".join(sorted(t.value for t in answers)),
                code=code,
            )
    elif mtype in NOT_NOW:
        raise RulesError(f"no decision awaits a {mtype.value!r} move", code=NOT_NOW[mtype])


def reference_check_play(self: Any, w: Work, move: Move) -> tuple[int, Color | None]:
    """``UnoRules.check_play`` before issue 18's rewrite, unchanged."""
    card = move.card
    if card is None or card not in w.hands[move.player]:
        card = self.require_card_in_hand(w, move)  # raises the precise error
    pend = w.pending
    if pend is not None and card != pend.card:
        raise RulesError(
            f"only the card just drawn ({self.card_name(w, pend.card)}) may be played now, or pass",
            code="not_drawn_card",
        )
    if not self.matches(w.side, card, w.active_color, w.discard[-1]):
        raise RulesError(
            f"card {self.card_name(w, card)} ({self.catalog.code[w.side][card]}) matches "
            "neither the colour "
            f"({w.active_color}) nor the number or symbol in play",
            code="does_not_match",
        )
    if move.target is not None or move.chain is not None:
        name = "target" if move.target is not None else "chain"
        raise RulesError(f"this play takes no {name!r}", code="unexpected_field")
    if move.uno and not self.uno_flag_allowed(w, move):
        raise RulesError(
            "say UNO with the play of your second-to-last card only", code="uno_not_applicable"
        )
    return card, reference_play_color(self, w, card, move.color)


def reference_play_color(self: Any, w: Work, card: int, color: Color | None) -> Color | None:
    """``UnoRules.play_color`` before issue 18's rewrite, unchanged."""
    cat = self.catalog
    if cat.wild[w.side][card]:
        if color is None:
            raise RulesError("a wild card needs a colour", code="color_required")
        if color not in self.colors_for(w):
            raise RulesError(
                f"{color} cannot be named on this side; choose one of "
                + ", ".join(self.colors_for(w)),
                code="invalid_color",
            )
        return color
    if color is not None:
        raise RulesError("only a wild card takes a colour", code="color_not_allowed")
    return cat.color[w.side][card]


@contextmanager
def reference_guards(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The replaced guards in place of the lean ones (the variants that call them by
    class, ``Variant.check_move(self, ...)`` or ``UnoRules.check_play(self, ...)``, get
    them too)."""
    with monkeypatch.context() as m:
        m.setattr(Variant, "check_move", reference_check_move)
        m.setattr(UnoRules, "check_play", reference_check_play)
        yield


# ---------------------------------------------------------------- random games


def outcome(v: Variant, state: State, move: Move) -> Any:
    """The next state and events, or the error's class, code and message."""
    try:
        return v.apply(state, move)
    except EngineError as exc:
        return ("error", type(exc).__name__, exc.code, exc.detail)


def random_options(v: Variant, rnd: random.Random) -> dict[str, Any]:
    """Every option at a random allowed value (a low target now and then, so that games
    end and rounds turn over often)."""
    out: dict[str, Any] = {}
    for name, spec in v.options.items():
        if spec.choices:
            out[name] = rnd.choice(spec.choices)
        elif name == "target":
            out[name] = rnd.choice([spec.default, 30, 100])
    return out


def altered(v: Variant, state: State, legal: list[Move], rnd: random.Random) -> list[Move]:
    """Moves near the legal ones, most of them illegal: each field changed, each move
    type bare and with a card, as a client could send them (``Move.from_dict``)."""
    n = state.num_players
    size = v.catalog.size
    colors = list(Color)
    seats = list(range(n + 1))  # one beyond the table
    hand_cards = [c for h in state.hands for c in h]
    out: list[dict[str, Any]] = []
    for m in rnd.sample(legal, min(len(legal), 3)):
        d = m.to_dict()
        out.append({**d, "player": rnd.choice(seats)})
        out.append({**d, "uno": not m.uno})
        out.append({**d, "card": rnd.randrange(size + 2)})
        if hand_cards:
            out.append(
                {**d, "card": v.encode_move(state, Move(T.PLAY, 0, rnd.choice(hand_cards))).card}
            )
        out.append({**d, "color": rnd.choice(colors).value})
        out.append({k: x for k, x in d.items() if k != "color"})
        out.append({k: x for k, x in d.items() if k != "card"})
        out.append({**d, "target": rnd.choice(seats)})
        out.append({**d, "chain": [rnd.randrange(size)]})
        out.append({**d, "cards": [{"card": rnd.randrange(size)}]})
    seat = rnd.choice(seats)
    for t in rnd.sample(list(MoveType), 4):
        out.append({"type": t.value, "player": seat})
        out.append({"type": t.value, "player": seat, "card": rnd.randrange(size)})
        out.append({"type": t.value, "player": seat, "uno": True})
    moves = []
    for d in out:
        with suppress(InvalidMove):  # not a move at all: refused before any guard
            moves.append(Move.from_dict(d))
    return moves


def next_move(v: Variant, state: State, rnd: random.Random) -> Move:
    """A random legal move of the seat the game waits for: a draw three times in ten
    when there is one (some decisions follow only a draw), else another move, so that
    games end (and rounds turn over) often."""
    phase = state.phase
    if phase is Phase.ROUND_OVER:
        seat = rnd.randrange(state.num_players)
    else:
        seat = state.pending.player if state.pending is not None else state.current
    legal = engine.legal_moves(state, seat)
    if rnd.random() < 0.05:  # now and then a side move (UNO, catch) of any seat
        legal = [m for s in range(state.num_players) for m in engine.legal_moves(state, s)]
    draws = [m for m in legal if m.type is T.DRAW]
    plays = [m for m in legal if m.type is not T.DRAW]
    if draws and (not plays or rnd.random() < 0.3):
        return rnd.choice(draws)  # a draw, when there is one: its decisions follow
    return rnd.choice(plays)


@pytest.mark.parametrize("variant", VARIANTS)
def test_apply_accepts_exactly_the_legal_moves_and_refuses_as_before(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    v = engine.find_variant(variant)
    rnd = random.Random(f"move-checks-{variant}")
    decisions: set[Any] = set()
    player_counts: set[int] = set()
    codes: set[str] = set()
    accepted = refused = 0
    phases: set[Phase] = set()
    games = 0
    counts = range(v.min_players, min(v.max_players, 4) + 1)  # each in turn
    while games < 8 or decisions != set(v.pending_moves):
        assert games < 300, (
            f"random games of {variant} never reached {set(v.pending_moves) - decisions}"
        )
        games += 1
        players = counts[games % len(counts)]
        player_counts.add(players)
        state, _ = v.new_game(players, rnd.randrange(2**64), options=random_options(v, rnd))
        # After 8 whole games, mostly fresh deals: a decision still unseen is most
        # likely one a deal brings (a wild turned up), rare in play.
        for _ in range(200 if games <= 8 or games % 4 == 0 else 2):
            phases.add(state.phase)
            if state.pending is not None:
                decisions.add(state.pending.type)
            legal = {s: engine.legal_moves(state, s) for s in range(players)}
            every = [m for moves in legal.values() for m in moves]
            tried = rnd.sample(every, min(len(every), 4)) + altered(v, state, every, rnd)
            now = [outcome(v, state, move) for move in tried]
            with reference_guards(monkeypatch):
                then = [outcome(v, state, move) for move in tried]
            for move, fast, before in zip(tried, now, then, strict=True):
                assert fast == before, (move, engine.to_dict(state))
                is_legal = 0 <= move.player < players and move in legal[move.player]
                if fast[0] == "error":
                    assert fast[1] == "RulesError" and not is_legal, (move, fast)
                    codes.add(fast[2])
                    refused += 1
                else:
                    assert is_legal, (move, engine.to_dict(state))
                    accepted += 1
            if state.phase is Phase.GAME_OVER:
                break
            state = v.apply(state, next_move(v, state, rnd))[0]
    assert player_counts == set(counts)
    assert {Phase.PLAY, Phase.ROUND_OVER} <= phases
    assert accepted > 500 and refused > 2000
    # Refusals at every stage of the guards, not just the first.
    assert {"not_your_turn", "unknown_move", "invalid_player"} <= codes
    assert len(codes) >= 10, codes


# ---------------------------------------------------------------- the written-out match

UNO_VARIANTS = [v.id for v in engine.all_variants() if isinstance(v, UnoRules)]


_DEALT: dict[str, State] = {}


def table(v: UnoRules, side: int, hand: tuple[int, ...], top: int, active: Color | None) -> State:
    """A state with ``hand`` in seat 0 (to move), ``top`` in play and ``active`` the colour
    in play; the draw pile is every card (the cards need not be conserved here)."""
    state = _DEALT.get(v.id)
    if state is None:
        state = _DEALT[v.id] = v.new_game(2, 1)[0]
    return state._replace(
        phase=Phase.PLAY, side=side, current=0, pending=None, exposed=(),
        hands=(hand, (top,)), discard=(top,), active_color=active,
        draw_pile=tuple(v.catalog.ids),
    )  # fmt: skip


def active_colors(v: UnoRules, side: int) -> list[Color | None]:
    return [None, *v.colors_for(table(v, side, (0,), 0, None))]


@pytest.mark.parametrize("variant", UNO_VARIANTS)
def test_the_written_out_match_agrees_with_matches_on_every_card_pair(variant: str) -> None:
    v = engine.find_variant(variant)
    assert isinstance(v, UnoRules)
    cat = v.catalog
    ids = tuple(cat.ids)
    own = type(v).matches is UnoRules.matches
    assert v._own_matches is own  # type: ignore[attr-defined]
    checked = 0
    for side in range(cat.sides):
        for active in active_colors(v, side):
            for top in ids:
                expect = {c for c in ids if v.matches(side, c, active, top)}
                # legal_turn (UnoRules'): the cards with a play move, all in one hand.
                if type(v).legal_turn is UnoRules.legal_turn:
                    state = table(v, side, ids, top, active)
                    got = {m.card for m in v.legal_turn(state, 0) if m.type is T.PLAY}
                    assert got == expect, (side, active, top)
                for card in ids:
                    fits = card in expect
                    state = table(v, side, (card, top), top, active)
                    # check_play: refuses with does_not_match exactly when it does not fit.
                    w = work_of(state)
                    color = v.colors_for(w)[0] if cat.wild[side][card] else None
                    try:
                        UnoRules.check_play(v, w, Move(T.PLAY, 0, card, color))
                        refused = None
                    except RulesError as exc:
                        refused = exc.code
                    assert (refused == "does_not_match") is (not fits), (side, active, top, card)
                    assert refused in (None, "does_not_match")
                    # on_draw: the drawn card waits to be played exactly when it fits.
                    w = work_of(state._replace(draw_pile=(card,)))
                    UnoRules.on_draw(v, w, Move(T.DRAW, 0), [])
                    waits = w.pending is not None and w.pending.type is UnoPending.PLAY_DRAWN
                    assert waits is fits, (side, active, top, card)
                    checked += 1
    assert checked == cat.sides * len(ids) ** 2 * len(active_colors(v, 0))
