"""Game records (engine/records.py): built from a game's moves, replayed and verified for
every variant; an altered move or result is refused where it is; a running game's copy for
a seat shows it nothing it may not see; ``python -m engine replay FILE``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import Phase, RecordError
from engine.__main__ import main
from engine.commitment import commitment
from engine.record_builder import Builder
from engine.records import SECRET_FIELDS, InvalidRecord, build, dumps, record, replay

VARIANTS = [v.id for v in engine.all_variants()]


def seats_of(variant: str) -> int:
    v = engine.find_variant(variant)
    return min(max(3, v.min_players), v.max_players)


def random_game(variant: str, seed: int, players: int, limit: int = 3000) -> list[engine.Move]:
    """A whole game (target 50) of uniformly random legal moves, every seat's included."""
    rnd = random.Random(seed)
    state, _ = engine.start(variant, players, seed, options={"target": 50})
    moves: list[engine.Move] = []
    while state.phase is not Phase.GAME_OVER and len(moves) < limit:
        move = rnd.choice([m for p in range(players) for m in engine.legal_moves(state, p)])
        state, _ = engine.apply(state, move)
        moves.append(move)
    assert state.phase is Phase.GAME_OVER, f"{variant}: no end in {limit} moves"
    return moves


def states(variant: str, players: int, seed: int, moves: list[engine.Move]) -> list[engine.State]:
    """The state before each move, and the final one."""
    state, _ = engine.start(variant, players, seed, options={"target": 50})
    out = [state]
    for m in moves:
        state, _ = engine.apply(state, m)
        out.append(state)
    return out


@pytest.fixture(scope="module", params=VARIANTS)
def game(request: pytest.FixtureRequest) -> tuple[str, int, int, list[engine.Move]]:
    variant = request.param
    players = seats_of(variant)
    seed = 7
    return variant, players, seed, random_game(variant, seed, players)


def full_record(game: tuple[str, int, int, list[engine.Move]]) -> dict[str, Any]:
    variant, players, seed, moves = game
    return record(variant, players, seed, moves, options={"target": 50}, game_id="g-1")


def test_a_record_replays_to_the_games_final_state(game: Any) -> None:
    variant, players, seed, moves = game
    rec = full_record(game)
    final = states(variant, players, seed, moves)[-1]
    assert rec["record"] == 1 and rec["seed"] == str(seed) and len(rec["moves"]) == len(moves)
    assert rec["seed_commitment"] == {"game_id": "g-1", "sha256": commitment("g-1", seed)}
    assert rec["result"] == {"winners": list(final.winners), "scores": list(final.scores)}
    assert rec["rounds"] and rec["rounds"][-1]["scores"] == list(final.scores)
    done = replay(json.loads(json.dumps(rec)))  # as a file or a request body holds it
    assert done.state == final
    assert done.score["game_over"] and done.score["winners"] == list(final.winners)
    assert done.events[0]["type"] in {"dealer_cut", "round_started"}
    assert not any("secret" in e for e in done.events)


def test_the_pretty_form_is_the_same_record_one_move_per_line(game: Any) -> None:
    rec = full_record(game)
    text = dumps(rec)
    assert json.loads(text) == rec
    assert sum('"move":' in line for line in text.splitlines()) == len(rec["moves"])


def test_a_record_with_one_altered_move_is_refused_at_that_move(game: Any) -> None:
    variant, players, seed, moves = game
    before = states(variant, players, seed, moves)
    rec = full_record(game)
    for k in (0, len(moves) // 2, len(moves) - 1):
        original = moves[k].to_dict()
        # Another seat makes the move (or, where that is legal too, a card it does not hold).
        for altered in (
            {**original, "player": (original["player"] + 1) % players},
            {**original, "card": 9999},
            {"type": "next_round", "player": original["player"]},
        ):
            try:
                engine.validate(before[k], altered)
            except engine.RulesError as e:
                expected = e.code
                break
        else:
            pytest.fail(f"no illegal alteration of move {k}: {original}")
        bad = json.loads(json.dumps(rec))
        bad["moves"][k]["move"] = altered
        with pytest.raises(RecordError) as err:
            replay(bad)
        assert err.value.code == "record_move_illegal"
        assert err.value.context["index"] == k
        reason = err.value.context["reason"]
        assert isinstance(reason, dict) and reason["code"] == expected


def test_a_record_whose_stated_result_differs_is_refused_at_the_move_that_ended_it(
    game: Any,
) -> None:
    variant, players, seed, moves = game
    rec = full_record(game)
    before = states(variant, players, seed, moves)
    ends = [i for i in range(len(moves)) if before[i + 1].phase in (Phase.ROUND_OVER, Phase.GAME_OVER)
            and before[i].phase not in (Phase.ROUND_OVER, Phase.GAME_OVER)]  # fmt: skip
    assert len(ends) == len(rec["rounds"])
    bad = json.loads(json.dumps(rec))
    bad["rounds"][0]["scores"][0] += 1
    with pytest.raises(RecordError) as err:
        replay(bad)
    assert err.value.code == "record_result_differs" and err.value.context["index"] == ends[0]
    bad = json.loads(json.dumps(rec))
    bad["result"]["winners"] = [s for s in range(players) if s not in bad["result"]["winners"]]
    with pytest.raises(RecordError) as err:
        replay(bad)
    assert (
        err.value.code == "record_result_differs" and err.value.context["index"] == len(moves) - 1
    )
    cut = json.loads(json.dumps(rec))
    cut["moves"] = cut["moves"][: ends[-1]]  # the last move is missing: no result
    with pytest.raises(RecordError) as err:
        replay(cut)
    assert err.value.code == "record_result_differs"


def test_a_seed_that_breaks_its_commitment_is_refused(game: Any) -> None:
    rec = full_record(game)
    rec["seed"] = str(int(rec["seed"]) + 1)
    with pytest.raises(RecordError) as err:
        replay(rec)
    assert err.value.code == "seed_commitment_mismatch"


def _card_ids(value: Any) -> set[int]:
    """The ids of the card references ({id, code}) anywhere in a view or event."""
    out: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("id"), int) and "code" in v:
                out.add(v["id"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def _named_cards(move: dict[str, Any]) -> set[int]:
    """The cards a move names (card, chain, cards, a DOS target)."""
    out = {move["card"]} if move.get("card") is not None else set()
    out.update(move.get("chain") or [])
    out.update(p["card"] for p in move.get("cards") or [])
    if isinstance(move.get("target"), dict):
        out.add(move["target"]["card"])
    return out


def test_a_running_games_record_shows_a_seat_nothing_it_may_not_see(game: Any) -> None:
    """Every card a seat's copy names is one that seat saw: its own move's, or one the
    move's events (redacted for it) or its view before the move show."""
    variant, players, seed, moves = game
    before = states(variant, players, seed, moves)
    variant_ = engine.find_variant(variant)
    hidden = 0
    for cut in sorted({len(moves) // 3, 2 * len(moves) // 3, len(moves) - 1}):
        if before[cut].phase is Phase.GAME_OVER:
            continue
        for seat in range(players):
            rec, final = build(variant, players, seed, moves[:cut], options={"target": 50},
                               game_id="g-1", seat=seat)  # fmt: skip
            assert final == before[cut]
            assert rec["seed"] is None and rec["deck"] is None and rec["result"] is None
            for i, entry in enumerate(rec["moves"]):
                move = entry["move"]
                hidden += len(entry.get("hidden", []))
                if move["player"] == seat:
                    assert "hidden" not in entry and move == moves[i].to_dict()
                    continue
                _, events = variant_.apply(before[i], moves[i])
                seen = _card_ids(engine.view(before[i], seat)) | _card_ids(
                    engine.redact_all(events, seat)
                )
                assert _named_cards(move) <= seen, (variant, seat, i, move)
                for f in entry.get("hidden", []):
                    assert f in SECRET_FIELDS[moves[i].type] and f not in move
    if variant == "uno_pocket_pizza":
        assert hidden, "no give was hidden from a third seat: the check did not run"


def test_once_the_game_is_over_every_seat_gets_the_whole_record(game: Any) -> None:
    variant, players, seed, moves = game
    whole = full_record(game)
    for seat in range(players):
        mine = record(variant, players, seed, moves, options={"target": 50}, game_id="g-1",
                      seat=seat)  # fmt: skip
        assert mine == whole


def test_a_record_built_move_by_move_is_the_record_built_at_once(game: Any) -> None:
    """Extended a few moves at a time (as a session's reads find them), a builder's text
    for every seat and for nobody is the text of the record built in one go, and it
    parses to that record; its moves as it goes keep their first entries."""
    variant, players, seed, moves = game
    built = Builder(variant, players, seed, options={"target": 50}, game_id="g-1")
    rnd = random.Random(3)
    at = 0
    while at < len(moves):
        step = rnd.choice([1, 2, 5, 40])
        kept = list(built.moves)
        built.extend(moves[at : at + step])
        at = min(len(moves), at + step)
        assert built.moves[: len(kept)] == kept
        if rnd.random() < 0.9 and at < len(moves):
            continue
        for seat in [None, *range(players)]:
            once, final = build(variant, players, seed, moves[:at], options={"target": 50},
                                game_id="g-1", seat=seat)  # fmt: skip
            text = built.dumps(seat)
            assert built.state == final and text == dumps(once), (variant, at, seat)
            assert json.loads(text) == built.record(seat) == once
            back = at - rnd.randrange(1, 40)  # a read of an older version, still kept
            if back >= 0 and built.state_after(back) is not None:
                older, _ = build(variant, players, seed, moves[:back], options={"target": 50},
                                 game_id="g-1", seat=seat)  # fmt: skip
                assert built.dumps(seat, back) == dumps(older), (variant, back, seat)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"record": 2}, "record"),
        ({"seed": 7}, "seed"),
        ({"seed": "007"}, "seed"),
        ({"players": []}, "players"),
        ({"players": [{"name": "A", "bot": "expert"}]}, "players.0.bot"),
        ({"moves": [{"by": "someone", "move": {"type": "draw", "player": 0}}]}, "moves.0.by"),
        ({"moves": [{"by": "bot", "at": "yesterday", "move": {"type": "draw", "player": 0}}]},
         "moves.0.at"),
        ({"moves": [{"by": "bot", "move": {"type": "draw", "player": -1}}]}, "moves.0.move.player"),
        ({"moves": [{"by": "bot", "move": {"type": "give", "player": 0}, "hidden": "card"}]},
         "moves.0.hidden"),
        ({"rounds": [{"round": 1, "winner": 0, "points": None}]}, "rounds.0.scores"),
        ({"result": {"winners": [-1], "scores": [0, 0]}}, "result.winners"),
        ({"extra": 1}, "extra"),
        ({"seed_commitment": {"game_id": "g", "sha256": "XYZ"}}, "seed_commitment.sha256"),
    ],
)  # fmt: skip
def test_a_malformed_record_names_its_first_bad_field(change: dict[str, Any], field: str) -> None:
    rec = record("uno_classic", 2, 3, [])
    with pytest.raises(InvalidRecord) as err:
        replay({**rec, **change})
    assert err.value.context["field"] == field


def test_the_cli_verifies_a_record_file(
    tmp_path: Path, game: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    variant, players, seed, moves = game
    path = tmp_path / "game.json"
    path.write_text(dumps(full_record(game)))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"verified: {variant}, {players} players, {len(moves)} moves")
    assert main(["replay", "--json", str(path)]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert engine.from_dict(answer["state"]) == states(variant, players, seed, moves)[-1]
    bad = full_record(game)
    bad["moves"][0]["move"] = {"type": "next_round", "player": 0}  # the round is not over
    path.write_text(json.dumps(bad))
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err.startswith("refused at move 0: record_move_illegal (")


def test_the_cli_refuses_with_exit_1_and_a_bad_usage_is_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "r.json"
    path.write_text("{not json")
    assert main(["replay", str(path)]) == 1
    assert capsys.readouterr().err.startswith("refused: invalid_json")
    path.write_text(json.dumps({**record("uno_classic", 2, 3, []), "seed": None}))
    assert main(["replay", str(path)]) == 1
    assert "record_seed_missing" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(tmp_path / "missing.json")])
    assert exit_.value.code == 2
    assert "cannot read" in capsys.readouterr().err


def test_the_spec_states_the_record_format_as_the_engine_does() -> None:
    from engine.records import BOT_LEVELS, FIELDS, MOVERS, RECORD_VERSION
    from tests.support import spec_document

    schemas = spec_document()["components"]["schemas"]
    # (and the replay route's own field, ``resume``: tests/service/test_replay_pages.py)
    assert [f for f in schemas["GameRecord"]["properties"] if f in FIELDS] == list(FIELDS)
    assert schemas["GameRecord"]["properties"]["record"]["const"] == RECORD_VERSION
    assert schemas["RecordMove"]["properties"]["by"]["enum"] == list(MOVERS)
    bot = schemas["RecordPlayer"]["properties"]["bot"]["oneOf"]
    resolved = [schemas[b["$ref"].rsplit("/", 1)[1]] if "$ref" in b else b for b in bot]
    assert [b.get("enum") for b in resolved] == [None, list(BOT_LEVELS)]
    assert set(schemas["RecordMove"]["properties"]) == {"by", "at", "move", "hidden"}
    record_fields = set(record("uno_classic", 2, 1, []))
    assert record_fields == set(FIELDS)
