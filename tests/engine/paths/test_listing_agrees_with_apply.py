"""Listing and applying agree: ``apply`` accepts a move exactly when ``legal_moves``
lists it, for every variant and for a variant that overrides one rule hook.

On many random games of every variant (2 to 4 players, random options, every decision
of the variant reached), every legal move and many altered ones (another seat, card,
colour, UNO flag, a field the type does not carry, every move type bare) are applied:
``apply`` accepts a move exactly when it is in ``legal_moves`` of its player, and
refuses the others with a ``RulesError``.

Classic UNO's ``legal_turn``, ``check_play`` and ``on_draw`` ask one matching rule,
``matches``: they agree with it on every pair of cards of every catalog, every colour
in play (or none) and every side; and a ``Classic`` subclass that overrides only
``matches`` lists exactly the plays its own ``apply`` takes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextlib import suppress
from typing import Any, NamedTuple

import pytest

import engine
from engine import Color, Move, MoveType, Phase, RulesError, State
from engine.errors import EngineError, InvalidMove
from engine.state import work_of
from engine.uno import UnoPending, UnoRules
from engine.variant import Variant
from engine.variants.all_wild import AllWild
from engine.variants.classic import Classic

T = MoveType
VARIANTS = [v.id for v in engine.all_variants()]

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
def test_apply_accepts_exactly_the_legal_moves(variant: str) -> None:
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
            for move in tried:
                fast = outcome(v, state, move)
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


# ---------------------------------------------------------------- one matching rule

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
def test_listing_and_checks_agree_with_matches_on_every_card_pair(variant: str) -> None:
    v = engine.find_variant(variant)
    assert isinstance(v, UnoRules)
    cat = v.catalog
    ids = tuple(cat.ids)
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
                    color = v.play_colors(w.side, card)[0]
                    target = v.targets_of(w, 0, card)[0]
                    try:
                        v.check_play(w, Move(T.PLAY, 0, card, color, target))
                        refused = None
                    except RulesError as exc:
                        refused = exc.code
                    assert (refused == "does_not_match") is (not fits), (side, active, top, card)
                    assert refused in (None, "does_not_match")
                    # on_draw: the drawn card waits to be played exactly when it fits.
                    w = work_of(state._replace(draw_pile=(card,)))
                    if v.may_draw(w, 0):
                        v.on_draw(w, Move(T.DRAW, 0), [])
                        waits = w.pending is not None and w.pending.type is UnoPending.PLAY_DRAWN
                        assert waits is fits, (side, active, top, card)
                    checked += 1
    assert checked == cat.sides * len(ids) ** 2 * len(active_colors(v, 0))


# ---------------------------------------------------------------- a variant's own rule


class NeighbourRule(Classic):
    """Classic UNO with another matching rule, and nothing else changed: a card plays on
    a card of its colour, or a number one above or below (not the same number)."""

    def matches(self, side: int, card: int, active: Color | None, top: int) -> bool:
        cat = self.catalog
        if cat.wild[side][card] or cat.color[side][card] is active:
            return True
        value, top_value = cat.value[side][card], cat.value[side][top]
        return value is not None and top_value is not None and abs(value - top_value) == 1


def candidate_plays(v: Variant, state: State, player: int) -> list[Move]:
    """Every play of every card in ``player``'s hand, with each colour (or none), with
    and without UNO: what a client could send."""
    colors: list[Color | None] = [None, *v.colors_for(state)]
    return [
        Move(T.PLAY, player, card, color, uno=uno)
        for card in state.hands[player]
        for color in colors
        for uno in (False, True)
    ]


@pytest.mark.parametrize("seed", range(12))
def test_a_variant_that_overrides_only_matches_lists_what_its_apply_takes(seed: int) -> None:
    """``legal_turn`` and the decisions after a draw list a play exactly when ``apply``
    takes it, by the subclass's ``matches``, never the base's."""
    base = engine.find_variant("uno_classic")
    got = listed_and_taken(NeighbourRule(), base, {"target": 100}, seed, 400, candidate_plays)
    # Both ways: plays taken and refused, and plays the base rule would have refused.
    assert got.taken > 20 and got.refused > 100 and got.own_only > 0, got


# ---------------------------------------------------------------- the other compiled hooks


class NextSeatOnly(AllWild):
    """UNO All Wild where a targeted play names only the next seat in the direction of
    play (``play_targets`` overridden, nothing else)."""

    def play_targets(
        self, players: int, direction: int, player: int, card: int
    ) -> tuple[int | None, ...]:
        if super().play_targets(players, direction, player, card) == (None,):
            return (None,)
        return ((player + direction) % players,)


class SameColourStacking(Classic):
    """Classic UNO where a Draw Two stacks only on a Draw Two of its colour
    (``stacks_on`` overridden, nothing else)."""

    def stacks_on(self, side: int, top: int, card: int, up: bool) -> bool:
        same = self.catalog.color[side][card] is self.catalog.color[side][top]
        return super().stacks_on(side, top, card, up) and (same or self.is_wild_of(side, card))

    def is_wild_of(self, side: int, card: int) -> bool:
        return self.catalog.wild[side][card]


def every_play(v: Variant, state: State, player: int) -> list[Move]:
    """Every play of every card of ``player``'s hand, each colour (or none), each seat (or
    none) named, with and without UNO: what a client could send."""
    colors: list[Color | None] = [None, *v.colors_for(state)]
    seats: list[int | None] = [None, *range(state.num_players)]
    return [
        Move(T.PLAY, player, card, color, target, uno=uno)
        for card in state.hands[player]
        for color in colors
        for target in seats
        for uno in (False, True)
    ]


class Agreement(NamedTuple):
    """What ``listed_and_taken`` counted: plays taken (all listed), refused (none
    listed), refused but taken by the base variant, taken but refused by it."""

    taken: int
    refused: int
    base_only: int
    own_only: int


def listed_and_taken(
    v: Variant,
    base: Variant,
    options: dict[str, Any],
    seed: int,
    moves: int,
    plays: Callable[[Variant, State, int], list[Move]] = every_play,
) -> Agreement:
    """Random games of ``v``: every one of ``plays`` that ``apply`` takes is listed,
    every one it refuses is not; with each, whether ``base`` takes it."""
    rnd = random.Random(f"{type(v).__name__}-{seed}")
    players = 2 + seed % 3
    state, _ = v.new_game(players, rnd.randrange(2**64), options=options)
    taken = refused = base_only = own_only = 0
    for _ in range(moves):
        if state.phase is Phase.GAME_OVER:
            break
        seat = v.waiting_for(state)
        assert seat is not None
        legal = v.legal_moves(state, seat)
        if state.phase is Phase.PLAY:
            for move in plays(v, state, seat):
                try:
                    v.apply(state, move)
                except RulesError:
                    assert move not in legal, move
                    refused += 1
                    with suppress(RulesError):
                        base.apply(state, move)
                        base_only += 1
                    continue
                assert move in legal, move
                taken += 1
                try:
                    base.apply(state, move)
                except RulesError:
                    own_only += 1
        state = v.apply(state, rnd.choice(legal))[0]
    return Agreement(taken, refused, base_only, own_only)


def test_a_variant_that_overrides_only_play_targets_lists_what_its_apply_takes() -> None:
    """``play_targets`` is compiled per table size and direction from the instance's own
    hook: the subclass's targeted plays name the next seat only, listed and taken alike,
    and the other opponents the base variant takes are refused."""
    v, base = NextSeatOnly(), engine.find_variant("uno_all_wild")
    totals = [listed_and_taken(v, base, {}, seed, 120) for seed in range(4)]
    taken, refused, base_only, _ = map(sum, zip(*totals, strict=True))
    assert taken > 50 and refused > 500 and base_only > 0, totals


def test_a_variant_that_overrides_only_stacks_on_lists_what_its_apply_takes() -> None:
    """``stacks_on`` is compiled (``_stacking``) from the instance's own hook: facing a
    penalty, the subclass lists and takes a Draw Two of the colour on top only, and the
    stacks the base variant takes are refused."""
    v, base = SameColourStacking(), engine.find_variant("uno_classic")
    options = {"stacking": "up", "target": 100}
    totals = [listed_and_taken(v, base, options, seed, 300) for seed in range(4)]
    taken, refused, base_only, _ = map(sum, zip(*totals, strict=True))
    assert taken > 50 and refused > 500 and base_only > 0, totals


class NoUnoWithRed(Classic):
    """Classic UNO where a red card's play never says UNO (``may_say_uno`` overridden,
    nothing else)."""

    def may_say_uno(self, side: int, card: int) -> bool:
        return self.catalog.color[side][card] is not Color.RED


@pytest.mark.parametrize("options", [{"target": 100}, {"target": 100, "seven_zero": True}])
def test_a_variant_that_overrides_only_may_say_uno_lists_what_its_apply_takes(
    options: dict[str, Any],
) -> None:
    """``may_say_uno`` is compiled (``_says_uno``, the plays listed with UNO) from the
    instance's own hook: the subclass lists and takes no red play with ``uno: true``,
    and the ones the base variant takes are refused; with seven-zero on, where the
    listing asks ``uno_flag_allowed`` per play, alike."""
    v, base = NoUnoWithRed(), engine.find_variant("uno_classic")
    totals = [listed_and_taken(v, base, options, seed, 300) for seed in range(4)]
    taken, refused, base_only, own_only = map(sum, zip(*totals, strict=True))
    assert taken > 50 and refused > 500 and base_only > 0 and own_only == 0, totals


class NoUnoWithEvenIds(AllWild):
    """UNO All Wild where the play of a card with an even id never says UNO
    (``may_say_uno`` overridden, nothing else)."""

    def may_say_uno(self, side: int, card: int) -> bool:
        return card % 2 == 1


def test_an_all_wild_that_overrides_only_may_say_uno_lists_what_its_apply_takes() -> None:
    """UNO All Wild's own ``check_play`` reads ``_says_uno`` as the listing does: the
    subclass lists and takes no even card's play with ``uno: true``."""
    v, base = NoUnoWithEvenIds(), engine.find_variant("uno_all_wild")
    totals = [listed_and_taken(v, base, {"target": 100}, seed, 300) for seed in range(4)]
    taken, refused, base_only, own_only = map(sum, zip(*totals, strict=True))
    assert taken > 50 and refused > 100 and base_only > 0 and own_only == 0, totals
