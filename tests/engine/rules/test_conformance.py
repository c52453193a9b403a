"""One conformance test over every registered variant (OpenSpiel's random_sim_test):
seeded random games to the end, with the engine's invariants checked after every move.

CONFORMANCE_GAMES (default 60 per variant and player count group) scales the run.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import Move, MoveType, Phase, State, find_variant
from engine.cards import Color
from engine.moves import MatchPart
from tests.support import ids_in, random_game

GAMES = int(os.environ.get("CONFORMANCE_GAMES", "60"))
VARIANTS = [v.id for v in engine.all_variants()]

#: Variant-specific normalisation of moves before comparing with the legal list
#: (e.g. UNO Duo accepts a colour run in any order but lists one order).
NORMALIZE: dict[str, Callable[[State, Move], Any]] = {}
#: Variant-specific leak checks, replacing the catalog-id check (UNO Flip's views
#: name cards by face, not by id).
LEAK_CHECKS: dict[str, Callable[[State, int | None, dict[str, Any]], None]] = {}


def _norm(state: State, move: Move) -> Any:
    fn = NORMALIZE.get(state.variant)
    return fn(state, move) if fn else move


def default_leak_check(state: State, seat: int | None, view: dict[str, Any]) -> None:
    variant = find_variant(state.variant)
    allowed: set[int] = set(state.hands[seat]) if seat is not None else set()
    for pile in variant.public_piles(state):
        allowed.update(pile)
    shown = ids_in(view)
    leaked = shown - allowed
    assert not leaked, f"view of seat {seat} shows hidden cards {sorted(leaked)}"


def duo_leak_check(state: State, seat: int | None, view: dict[str, Any]) -> None:
    """UNO Duo: the drafter also sees the card being drafted (``pending.card``)."""
    pend = state.pending
    if pend is not None and pend.type == "draft" and pend.player == seat:
        view = {**view, "pending": None}
    default_leak_check(state, seat, view)


def duo_normalize(state: State, move: Move) -> Any:
    """UNO Duo: a colour run is any order of the same cards with the same last card."""
    if move.type is not MoveType.PLAY:
        return move
    cards = (move.card, *(move.chain or ()))
    pend = state.pending
    lead = move.card if pend is not None and pend.type == "play_drawn" else None
    return (move._replace(card=None, chain=None), frozenset(cards), cards[-1], lead)


LEAK_CHECKS["uno_duo"] = duo_leak_check


def flip_leak_check(state: State, seat: int | None, view: dict[str, Any]) -> None:
    """UNO Flip: cards by round label; own hand by active face, others by inactive face."""
    from tests.engine.rules.test_flip import check_view_hides_faces

    check_view_hides_faces(state, seat, view)


LEAK_CHECKS["uno_flip"] = flip_leak_check
NORMALIZE["uno_duo"] = duo_normalize


def dos_normalize(state: State, move: Move) -> Any:
    """DOS: the two cards of a double match may come in either order."""
    if move.type is not MoveType.MATCH or not move.cards or len(move.cards) != 2:
        return move
    return move._replace(cards=tuple(sorted(move.cards, key=lambda p: p.card)))


NORMALIZE["dos"] = dos_normalize


def check_event_redaction(state: State, events: list[dict[str, Any]]) -> None:
    for seat in [None, *range(state.num_players)]:
        for ev in engine.redact_all(events, seat):
            assert "secret" not in ev
            if ev["type"] == "drew" and ev["player"] != seat:
                assert "cards" not in ev, f"seat {seat} sees cards drawn by {ev['player']}"
            if ev["type"] == "challenged" and ev["player"] != seat:
                assert "hand" not in ev


def random_move(state: State, rnd: random.Random) -> Move:
    """A move of any shape, mostly illegal."""
    variant = find_variant(state.variant)
    n = state.num_players
    mtype = rnd.choice(sorted(variant.move_types))
    card = rnd.randrange(variant.catalog.size)
    color = rnd.choice([None, *Color])
    target: Any = rnd.choice([None, rnd.randrange(n)])
    cards = None
    if mtype is MoveType.MATCH:
        target = MatchPart(card, rnd.choice([None, *Color]), rnd.choice([None, rnd.randint(0, 11)]))
        cards = tuple(
            MatchPart(
                rnd.randrange(variant.catalog.size), None, rnd.choice([None, rnd.randint(1, 10)])
            )
            for _ in range(rnd.randint(1, 2))
        )
        color = None
    return Move(mtype, rnd.randrange(n), card, color, target, None, rnd.random() < 0.2, cards)


def player_groups(variant_id: str) -> list[int]:
    v = find_variant(variant_id)
    return sorted({v.min_players, min(v.max_players, 4), v.max_players})


def house_rule_sets(variant_id: str) -> list[dict[str, Any]]:
    """The options a variant adds later, left out of states while off (classic UNO's
    house rules): every one on (its last choice), and each alone."""
    added = {
        name: spec.choices[-1] if spec.choices else spec.maximum
        for name, spec in find_variant(variant_id).options.items()
        if not spec.stored_at_default
    }
    return [added, *({name: value} for name, value in added.items())] if added else []


#: (variant, the house rules of every game): each variant as it is, and with its house
#: rules (a quarter of the games per set).
RUNS: list[tuple[str, dict[str, Any]]] = [(v, {}) for v in VARIANTS] + [
    (v, h) for v in VARIANTS for h in house_rule_sets(v)
]


# Random walks of whole games: make test runs them, not the day-to-day make test-fast.
@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant_id", "house"), RUNS, ids=[f"{v}{''.join(f'-{k}' for k in h)}" for v, h in RUNS]
)
def test_random_games_keep_every_invariant(variant_id: str, house: dict[str, Any]) -> None:
    find_variant(variant_id)
    rnd = random.Random(f"conformance-{variant_id}{sorted(house)}")
    leak_check = LEAK_CHECKS.get(variant_id, default_leak_check)
    per_group = max(6, GAMES // 4) if house else GAMES
    games = 0
    moves_played = 0
    for players in player_groups(variant_id):
        for game in range(per_group):
            # Most games to a short target (many rounds quickly); some to the real one.
            options = None if game % 10 == 0 else {"target": rnd.choice([30, 60, 120])}
            options = {**(options or {}), **house} or None
            seed = rnd.randrange(2**32)
            history: list[Move] = []
            final: State | None = None
            for _before, move, after, events in random_game(
                variant_id, players, seed, rnd, options
            ):
                if move is not None:
                    history.append(move)
                    moves_played += 1
                # Every card in exactly one place, every invariant holds.
                engine.check_invariants(after)
                # Serialization round-trips exactly.
                assert engine.from_dict(engine.to_dict(after)) == after
                check_event_redaction(after, events)
                if moves_played % 7 == 0 or after.phase is not Phase.PLAY:
                    for seat in [None, *range(players)]:
                        leak_check(after, seat, engine.view(after, seat))
                if moves_played % 5 == 0 and after.phase is not Phase.GAME_OVER:
                    legal = {
                        _norm(after, m): m
                        for p in range(players)
                        for m in engine.legal_moves(after, p)
                    }
                    # Every listed move applies.
                    for m in rnd.sample(list(legal.values()), min(3, len(legal))):
                        engine.apply(after, m)
                    # A move validate accepts is listed; one it rejects, apply rejects too.
                    for _ in range(3):
                        cand = random_move(after, rnd)
                        try:
                            engine.validate(after, cand)
                        except engine.EngineError:
                            with pytest.raises(engine.EngineError):
                                engine.apply(after, cand)
                            assert _norm(after, cand) not in legal, f"listed move rejected: {cand}"
                        else:
                            assert _norm(after, cand) in legal, f"unlisted move accepted: {cand}"
                final = after
            assert final is not None and final.phase is Phase.GAME_OVER
            assert final.winners, "a finished game names its winners"
            # Replay of seed + moves gives the identical state.
            replay = engine.new_game(variant_id, players, seed, options=options)
            for m in history:
                replay, _ = engine.apply(replay, m)
            assert replay == final
            games += 1
    assert games == per_group * len(player_groups(variant_id))
