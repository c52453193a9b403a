"""The session's bots within the settings' budgets, their ties broken by a generator
seeded with the session and the version, so a session replays alike."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import engine
from service.sessions.bots import BotPlayer, choose, next_bot_move
from service.sessions.config import Env
from service.sessions.models import BotLevel, Meta, Seat
from tests.engine.rules.house_table import play
from tests.engine.rules.test_house_rules_bots import deal


def meta(*bots: BotLevel | None) -> Meta:
    return Meta("uno_classic", tuple(Seat(i, "x", b, None) for i, b in enumerate(bots)), 1.0)


def test_the_bots_play_until_a_person_must_or_the_budget_ends(env: Env) -> None:
    state, setup = engine.start("uno_classic", 2, 8)
    everyone = meta(BotLevel.SIMPLE, BotLevel.SIMPLE)
    env.config = replace(env.config, max_bot_moves=5)
    after, events, made = BotPlayer(env).play("sid", 1, state, everyone, setup)
    assert len(made) == 5 and after.move_count == state.move_count + 5 and events
    env.config = replace(env.config, max_bot_moves=500, max_moves=state.move_count + 3)
    _, _, capped = BotPlayer(env).play("sid", 1, state, everyone, setup)
    assert len(capped) == 3  # never past the session's move limit
    _, _, budget = BotPlayer(env).play("sid", 1, state, everyone, setup, budget=2)
    assert len(budget) == 2


def test_a_person_to_move_stops_the_bots_and_no_bots_play_nothing(env: Env) -> None:
    state, setup = engine.start("uno_classic", 2, 8)
    seat = engine.waiting_for(state)
    assert seat is not None
    one_bot = meta(*(None if i == seat else BotLevel.SIMPLE for i in range(2)))
    assert BotPlayer(env).play("sid", 1, state, one_bot, setup) == (state, [], [])
    assert BotPlayer(env).play("sid", 1, state, meta(None, None), setup) == (state, [], [])


def test_the_same_session_and_version_replay_alike(env: Env) -> None:
    state, setup = engine.start("uno_classic", 2, 8)
    levels = meta(BotLevel.HARD, BotLevel.NORMAL)
    env.config = replace(env.config, max_bot_moves=30)
    bots = BotPlayer(env)
    runs = [bots.play("sid", 4, state, levels, list(setup)) for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0][2]) == 30
    others = {tuple(bots.play(f"sid{i}", 4, state, levels, list(setup))[2]) for i in range(6)}
    assert len(others) > 1  # the seed is the session's: other sessions choose otherwise


def test_no_bot_jumps_in() -> None:
    """Classic UNO's jump-in house rule: a bot plays only when the game waits for it."""
    # Seat 3 could jump in on the R5 while seat 1 is to move.
    t = deal([[], [], [], ["R5"]], "R5", jump_in=True)
    assert play(t, 3, "R5") in [m.to_dict() for m in engine.legal_moves(t.state, 3)]
    levels = dict.fromkeys((0, 2, 3), BotLevel.NORMAL)  # seat 1, to move, is a person
    assert next_bot_move(t.state, levels, random.Random(1)) is None
    everyone = dict.fromkeys(range(4), BotLevel.HARD)
    for seed in range(5):
        move = next_bot_move(t.state, everyone, random.Random(seed))
        assert move is not None and move.player == 1


@pytest.mark.parametrize("variant", engine.all_variants(), ids=lambda v: v.id)
def test_the_bots_rank_every_move_type_of_the_variant(variant: engine.Variant) -> None:
    """The simple bot takes the best-ranked move type it is offered."""
    assert variant.move_types <= set(variant.bot_rank)
    rnd = random.Random(3)
    player = 0
    # The bot takes the lowest-ranked move type it is offered.
    offered = [engine.Move(t, player) for t in sorted(variant.move_types)]
    best = min(variant.bot_rank[t] for t in variant.move_types)
    for _ in range(20):
        assert variant.bot_rank[choose(offered, rnd, variant.bot_rank).type] == best
