"""Forced default moves (``engine.forced_move``): every situation a seat can owe a move
in (the plain turn, each pending decision of each variant, the end of a round) has a
documented default; in seeded games each default is legal, is what its rules document
says, never says UNO and is owed by exactly one seat."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

import engine
from engine import Move, MoveType, Phase, State, Variant
from engine.cards import DARK_COLORS, LIGHT_COLORS
from engine.docs import rules_path
from tests.support import random_game

T = MoveType
VARIANTS = engine.all_variants()
SECTION = "Time-outs (forced moves)"


def situation(state: State) -> str:
    if state.phase is Phase.ROUND_OVER:
        return "round_over"
    return state.pending.type.value if state.pending is not None else "turn"


def decoded(state: State, move: Move) -> Move:
    """The move with catalog ids (UNO Flip's moves carry round labels)."""
    return engine.find_variant(state.variant).decode_move(state, move)


# What each documented default is, checked from the state (independently of the code
# that makes it): situation -> (state, seat, forced move with catalog ids) -> ok.
def _turn(state: State, seat: int, m: Move) -> bool:
    if state.variant == "uno_all_wild":  # no drawing by choice: the first card
        return m.type is T.PLAY and m.card == state.hands[seat][0] and _first_target(state, m)
    playable = _forced_plays(state, seat)
    if playable:  # classic UNO's forced play: the first playable card, a WD4 last
        cat = engine.find_variant(state.variant).catalog
        first = [c for c in playable if cat.kind[0][c] is not engine.Kind.WILD_DRAW_FOUR]
        return m.type is T.PLAY and m.card == (first or playable)[0] and _default_names(state, m)
    return m.type is T.DRAW


def _forced_plays(state: State, seat: int) -> list[int]:
    """Under classic UNO's forced play, the cards of the hand that play on the top."""
    if not state.option("forced_play"):
        return []
    cat = engine.find_variant(state.variant).catalog
    top, active = state.discard[-1], state.active_color
    return [
        c
        for c in state.hands[seat]
        if cat.wild[0][c]
        or cat.color[0][c] is active
        or (cat.symbol[0][top] >= 0 and cat.symbol[0][c] == cat.symbol[0][top])
    ]


def _default_names(state: State, m: Move) -> bool:
    """A forced play names red for a wild and the next seat for a seven-zero 7."""
    return m.color in (None, engine.Color.RED) and m.target in (None, state.next_seat(m.player))


def _first_target(state: State, m: Move) -> bool:
    others = [s for s in range(state.num_players) if s != m.player]
    return m.target is None or m.target == others[0]


def _play_drawn(state: State, seat: int, m: Move) -> bool:
    if state.variant == "uno_all_wild":  # the drawn card must be played
        pend = state.pending
        return (
            m.type is T.PLAY
            and pend is not None
            and m.card == pend.card
            and _first_target(state, m)
        )
    if state.option("forced_play"):  # classic UNO's forced play: the drawn card, played
        pend = state.pending
        return m.type is T.PLAY and m.card == pend.card and _default_names(state, m)  # type: ignore[union-attr]
    return m.type is T.PASS


def _forced_run(state: State, seat: int, m: Move) -> bool:
    pend = state.pending
    assert pend is not None
    colour = pend.get("color")
    cat = engine.find_variant(state.variant).catalog
    run = [c for c in state.hands[seat] if getattr(cat.color[0][c], "value", None) == colour]
    assert m.card is not None
    played = [m.card, *(m.chain or ())]
    if len(run) == 1:
        return m.type is T.PLAY and played == run
    return (
        m.type is T.PLAY
        and played[0] == run[1]
        and played[-1] == run[0]
        and sorted(played) == sorted(run)
    )


EXPECTED: dict[str, Callable[[State, int, Move], bool]] = {
    "turn": _turn,
    "round_over": lambda s, p, m: m.type is T.NEXT_ROUND,
    "play_drawn": _play_drawn,
    "choose_color": lambda s, p, m: m.color is (DARK_COLORS if s.side else LIGHT_COLORS)[0],
    "challenge": lambda s, p, m: m.type is T.ACCEPT,
    "draft": lambda s, p, m: m.type is T.DRAFT_KEEP,
    "volley": lambda s, p, m: m.type is T.DRAW,
    "penalty": lambda s, p, m: m.type is T.DRAW,
    "forced_run": _forced_run,
    "give": lambda s, p, m: m.type is T.GIVE and m.card == s.hands[p][0],
    "choose_target": lambda s, p, m: m.type is T.CHOOSE_TARGET and _first_target(s, m),
    "matching": lambda s, p, m: m.type is T.END_TURN,
    "drawn": lambda s, p, m: m.type is T.PLACE and m.card == s.pending.card,  # type: ignore[union-attr]
    "bonus_place": lambda s, p, m: m.type is T.PLACE and m.card == s.hands[p][0],
}


def situations(variant: Variant) -> set[str]:
    return {"turn", "round_over", *(d.value for d in variant.pending_moves)}


def check_forced(state: State) -> str:
    """Check the forced moves of every seat in ``state``; return its situation."""
    players = state.num_players
    seat = engine.waiting_for(state)
    if seat is None:
        assert state.phase is Phase.GAME_OVER
        assert all(engine.forced_move(state, p) is None for p in range(players))
        return "game_over"
    forced = engine.forced_move(state, seat)
    assert forced is not None
    assert forced in engine.legal_moves(state, seat), (situation(state), forced)
    assert not forced.uno and forced.type not in (T.UNO, T.CATCH)
    kind = situation(state)
    assert EXPECTED[kind](state, seat, decoded(state, forced)), (kind, forced)
    engine.apply(state, forced)  # legal: applying it raises nothing
    others = [p for p in range(players) if p != seat]
    assert all(engine.forced_move(state, p) is None for p in others)
    return kind


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_every_situation_of_every_variant_times_out_to_its_documented_legal_default(
    variant: Variant,
) -> None:
    """Seeded games, and at every point the forced move of the seat the game waits for:
    one of its legal moves, the documented default, never an UNO call; every other
    seat owes nothing. Every situation of the variant is met."""
    assert situations(variant) <= set(EXPECTED), "a new situation needs its check here"
    rnd = random.Random(5)
    met: set[str] = set()
    # Every other game with classic UNO's house rules on (each option left out of states
    # while off, at its last choice): the penalty decision and forced play come with them.
    house = {
        name: spec.choices[-1]
        for name, spec in variant.options.items()
        if not spec.stored_at_default and spec.choices
    }
    for seed in range(60):
        players = (variant.min_players, variant.max_players, 3)[seed % 3]
        players = min(max(players, variant.min_players), variant.max_players)
        options = house if house and seed % 2 else None
        for _before, _move, state, _events in random_game(variant.id, players, seed, rnd, options):
            met.add(check_forced(state))
            # A draw, where one is legal, also leads to the rarer "drawn card" decisions.
            seat = engine.waiting_for(state)
            draw = Move(T.DRAW, seat) if seat is not None else None
            if draw is not None and draw in engine.legal_moves(state, seat):  # type: ignore[arg-type]
                met.add(check_forced(engine.apply(state, draw)[0]))
        if met >= situations(variant):
            break
    assert sorted(situations(variant) - met) == []
    assert met <= situations(variant) | {"game_over"}


@pytest.mark.slow  # 30 random games a variant
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_a_timed_out_seat_never_declares_uno_even_when_it_could(variant: Variant) -> None:
    """A forced move that leaves one card does not say UNO: the seat stays catchable."""
    rnd = random.Random(9)
    seen = 0
    for seed in range(30):
        for _b, _m, state, _e in random_game(variant.id, variant.min_players, seed, rnd):
            seat = engine.waiting_for(state)
            if seat is None or state.phase is not Phase.PLAY:
                continue
            forced = engine.forced_move(state, seat)
            assert forced is not None
            if any(m.uno and m.type is forced.type for m in engine.legal_moves(state, seat)):
                seen += 1
                after, events = engine.apply(state, forced)
                assert "uno" not in {e["type"] for e in events}
        if seen >= 3:
            break
    if variant.id == "uno_all_wild":  # its default turn is a play: chances are common
        assert seen >= 3, "no forced move met a chance to say UNO"


def documented(variant: Variant) -> dict[str, str]:
    """The "Time-outs (forced moves)" section of the variant's rules document: each
    bullet "- `<situation>`: <default>" as situation -> text (whitespace folded)."""
    text = rules_path(variant.id).read_text(encoding="utf-8")
    parts = re.split(r"^## +(.+?)\s*$", text, flags=re.M)
    body = dict(zip(parts[1::2], parts[2::2], strict=True)).get(SECTION)
    assert body is not None, f"docs/rules/{variant.id}.md has no '## {SECTION}' section"
    out = {}
    for item in re.split(r"^- ", body, flags=re.M)[1:]:
        m = re.match(r"`([a-z_]+)`: (.*)", " ".join(item.split()))
        if m:
            out[m.group(1)] = m.group(2)
    return out


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_the_rules_document_states_each_default_as_the_engine_declares_it(
    variant: Variant,
) -> None:
    """The rules document (served at /docs/rules) lists every situation's default with
    the words of its ``@defaults`` method (the one declaration), and nothing else."""
    assert documented(variant) == variant.forced_move_docs()


def test_a_seat_that_is_not_waited_for_owes_nothing() -> None:
    state = engine.new_game("uno_classic", 3, seed=4)
    seat = engine.waiting_for(state)
    assert seat is not None
    assert [engine.forced_move(state, p) is None for p in range(3)].count(False) == 1
    assert engine.forced_move(state, 7) is None
