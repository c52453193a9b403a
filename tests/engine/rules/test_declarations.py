"""What a variant declares (move types, decisions, event types, card kinds, bot ranks)
is known to the spec, the bots and the conformance games. A variant that declares
something one of them does not know fails here."""

from __future__ import annotations

import random
import re
from functools import cache
from typing import Any

import pytest

import engine
from engine import Kind, MoveType, Variant
from tests.support import random_game, spec_document

VARIANTS = engine.all_variants()


@cache
def spec_names(schema_name: str) -> frozenset[str]:
    """The names the spec allows for ``schema_name`` (a string schema, or an object's
    ``type`` property): its enum or consts (also across oneOf/anyOf members, for a
    discriminated union); when it has none, the names its description lists in
    backticks (``draft_*`` stands for every name with that prefix)."""
    schemas = spec_document()["components"]["schemas"]

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref")
        return schemas[ref.rsplit("/", 1)[1]] if ref else node

    schema = resolve(schemas[schema_name])
    found: set[str] = set()
    for node in [schema, *map(resolve, schema.get("oneOf", []) + schema.get("anyOf", []))]:
        for where in (node, resolve(node.get("properties", {}).get("type", {}))):
            found.update(where.get("enum", ()))
            if "const" in where:
                found.add(where["const"])
    if not found:
        found = set(re.findall(r"`([a-z_]+\*?)`", schema.get("description", "")))
    return frozenset(found)


def known(name: str, allowed: frozenset[str]) -> bool:
    return name in allowed or any(a.endswith("*") and name.startswith(a[:-1]) for a in allowed)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_the_spec_knows_every_declared_move_decision_and_event(variant: Variant) -> None:
    unknown_moves = {t.value for t in variant.move_types} - spec_names("MoveType")
    unknown_decisions = {d.value for d in variant.pending_moves} - spec_names("PendingView")
    unknown_events = {e for e in variant.event_types if not known(e, spec_names("Event"))}
    assert (unknown_moves, unknown_decisions, unknown_events) == (set(), set(), set())


def test_the_spec_knows_every_move_type_and_card_kind_of_the_engine() -> None:
    assert {t.value for t in MoveType} == spec_names("MoveType")
    assert {k.value for k in Kind} == spec_names("Kind")
    used = {k for v in VARIANTS for side in v.catalog.kind for k in side}
    assert used <= set(Kind)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_the_conformance_games_meet_every_declaration_and_nothing_else(variant: Variant) -> None:
    """Seeded random games (as tests/engine/rules/test_conformance.py plays them) reach every declared
    decision and move type, and cause only declared event types."""
    rnd = random.Random(21)
    moves: set[MoveType] = set()
    decisions: set[str] = set()
    events: set[str] = set()
    # Every other game with the options that are left out of states while off (classic
    # UNO's house rules) switched on: their decisions and events come only with them.
    house = {
        name: spec.choices[-1]
        for name, spec in variant.options.items()
        if not spec.stored_at_default and spec.choices
    }
    for seed in range(40):
        players = (variant.min_players, variant.max_players, 3)[seed % 3]
        players = min(max(players, variant.min_players), variant.max_players)
        options = house if house and seed % 2 else None
        for _before, move, after, evs in random_game(variant.id, players, seed, rnd, options):
            if move is not None:
                moves.add(move.type)
            if after.pending is not None:
                decisions.add(after.pending.type)
            events.update(e["type"] for e in evs)
        if moves >= variant.move_types and decisions >= set(variant.pending_moves):
            break
    assert events <= variant.event_types, sorted(events - variant.event_types)
    assert sorted(variant.move_types - moves) == []
    assert sorted(set(variant.pending_moves) - decisions) == []


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.id)
def test_a_face_is_a_colourless_wild_exactly_when_it_has_no_colour(variant: Variant) -> None:
    """``COLORLESS_WILDS`` lists kinds by name: a new wild kind missing from it (or a
    coloured kind put in it) shows up as a face whose colour disagrees."""
    wrong = [
        f.code for c in variant.catalog.cards for f in c.faces if f.is_wild != (f.color is None)
    ]
    assert wrong == []
