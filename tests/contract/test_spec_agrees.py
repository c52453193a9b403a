"""openapi.yaml states facts the code also states; these tests fail when the two
disagree: the generated enums (spec/schemas/enums.yaml, `make spec`) are current, and the
problem codes (both ways), the move types and their fields, the pending decisions, the
variants and their options and the event types agree with the unions that use them."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from engine.variant import MOVE_FIELDS
from tests.service.harness import spec_document
from tools import gen_spec_enums, gen_spec_unions
from tools.code_scan import scan

#: ``code=`` values that are not literals: codes passed through from an error or a table
#: the scan reads. A new form must be added here after checking it passes a code on.
PASS_THROUGH = {"code", "e.code", "exc.code", "p.code", "NOT_NOW[mtype]"}


def _schemas() -> dict[str, Any]:
    return spec_document()["components"]["schemas"]  # type: ignore[no-any-return]


def _enum() -> set[str]:
    return set(_schemas()["ProblemCode"]["enum"])


def test_the_generated_enums_are_current() -> None:
    """spec/schemas/enums.yaml is what `python -m tools.gen_spec_enums` writes now, and
    the served bundle holds the same enums."""
    assert gen_spec_enums.TARGET.read_text() == gen_spec_enums.render(), (
        "spec/schemas/enums.yaml is stale: run make spec"
    )
    for name, schema in gen_spec_enums.enums().items():
        assert _schemas()[name]["enum"] == schema["enum"], name


def test_the_generated_unions_are_current() -> None:
    """The unions' members (spec/schemas/, `python -m tools.gen_spec_unions`) are what
    the code declares now."""
    stale = [p.name for p, text in gen_spec_unions.rendered().items() if p.read_text() != text]
    assert not stale, f"stale unions in {stale}: run make spec"


def test_a_union_member_not_written_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    """A declared tag whose member schema nobody wrote is an error, never a dangling $ref."""
    where = {k: v for k, v in gen_spec_unions.defined().items() if k != "PendingVolley"}
    monkeypatch.setattr(gen_spec_unions, "defined", lambda: where)
    with pytest.raises(SystemExit, match="schema PendingVolley is missing"):
        gen_spec_unions.rendered()


def test_the_event_scan_reads_each_way_an_event_is_written() -> None:
    """A literal (``{"type": "played"}``), ``event("accepted")``, ``secret_event("gave")``
    and a session event: the scan's silence about a type means something."""
    found = gen_spec_enums.engine_event_types()
    assert {"played", "accepted", "gave", "challenged"} <= found
    assert {"joined", "timeout"} <= set(gen_spec_enums.event_types()) - found


def test_the_event_union_has_a_member_per_event_type() -> None:
    assert set(_union("Event")) == set(_schemas()["EventType"]["enum"])


def test_every_code_the_code_base_raises_is_in_the_spec() -> None:
    sites, _ = scan()
    missing = sorted({f"{s.code} ({s.where})" for s in sites if s.code not in _enum()})
    assert not missing, "add these codes to ProblemCode in openapi.yaml: " + ", ".join(missing)


def test_every_code_in_the_spec_is_raised_somewhere() -> None:
    raised = {s.code for s in scan()[0]}
    assert not _enum() - raised, f"ProblemCode lists codes nothing raises: {_enum() - raised}"


def test_every_code_that_is_not_a_literal_is_passed_through() -> None:
    _, opaque = scan()
    assert {o.source for o in opaque} <= PASS_THROUGH, [
        o for o in opaque if o.source not in PASS_THROUGH
    ]


def test_the_scan_finds_codes_of_each_kind() -> None:
    """The scan reads every place a code is declared (so its silence means something)."""
    where = {s.code: s.where for s in scan()[0]}
    assert where["not_your_turn"].startswith("engine/variant.py")  # code= keyword
    assert where["must_play_or_pass"].startswith("engine/uno.py")  # pending_moves table
    assert where["nothing_to_pass"].startswith("engine/moves.py")  # NOT_NOW table
    assert where["session_not_found"].startswith("service/sessions/problems.py")  # code=
    assert where["invalid_state_token"].startswith("service/")  # class attribute


def _union(name: str) -> dict[str, dict[str, Any]]:
    """A discriminated union's members by their ``type`` const."""
    schemas = _schemas()
    union = schemas[name]
    mapping = union["discriminator"]["mapping"]
    assert {m["$ref"] for m in union["oneOf"]} == set(mapping.values())
    out = {}
    for tag, ref in mapping.items():
        member = schemas[ref.rsplit("/", 1)[1]]
        assert member["properties"]["type"]["const"] == tag
        out[tag] = member
    return out


def test_every_move_type_is_a_member_with_its_fields() -> None:
    members = _union("Move")
    assert set(members) == {t.value for t in engine.MoveType}
    assert set(_schemas()["MoveType"]["enum"]) == set(members)
    for mtype, fields in MOVE_FIELDS.items():
        props = set(members[mtype.value]["properties"])
        assert props == {"type", "player", *fields}, mtype
    assert set(_schemas()["MoveField"]["enum"]) == {"type", "player"}.union(*MOVE_FIELDS.values())


def test_a_sent_move_may_name_every_move_field() -> None:
    """`SessionMove` (and `MoveInput`, built from it) reads every field any move has."""
    sent = _schemas()["SessionMove"]
    assert set(sent["properties"]) == set(_schemas()["MoveField"]["enum"])
    assert sent["additionalProperties"] is False


def test_every_pending_decision_is_a_member() -> None:
    declared = {p for v in engine.all_variants() for p in v.pending_moves}
    assert set(_union("PendingView")) == declared
    assert set(_schemas()["PendingType"]["enum"]) == declared


def test_the_variants_and_their_options_are_the_engines() -> None:
    schemas = _schemas()
    variants = {v.id: v for v in engine.all_variants()}
    assert set(schemas["VariantId"]["enum"]) == set(variants)
    typed = {ref["$ref"].rsplit("/", 1)[1] for ref in schemas["GameOptions"]["anyOf"]}
    assert typed == {"".join(p.capitalize() for p in v.split("_")) + "Options" for v in variants}
    for vid, variant in variants.items():
        name = "".join(p.capitalize() for p in vid.split("_")) + "Options"
        props = schemas[name]["properties"]
        assert set(props) == set(variant.options), vid
        for oname, spec in variant.options.items():
            option = schemas[props[oname]["$ref"].rsplit("/", 1)[1]]
            if isinstance(spec.default, bool):  # an on/off option: a boolean
                assert option["type"] == "boolean" and option["default"] is spec.default
            elif spec.choices:
                assert option["enum"] == list(spec.choices) and option["default"] == spec.default
            else:
                assert (option["minimum"], option["maximum"]) == (spec.minimum, spec.maximum)


def test_every_event_type_the_engine_emits_is_a_member() -> None:
    """Random games of every variant: each event is a member of the union and carries
    only the member's fields (the service tests check the shapes in full)."""
    import random

    members = _union("Event")
    seen: set[str] = set()
    for variant in engine.all_variants():
        for seed in range(4):
            rng = random.Random(seed)
            n = min(max(variant.min_players, 3), variant.max_players)
            state, events = engine.start(variant.id, n, seed, options={"target": 30})
            for _ in range(3000):
                for ev in events:
                    full = engine.reveal_all(ev)
                    assert full["type"] in members, full
                    assert set(full) <= set(members[full["type"]]["properties"]), full
                    seen.add(full["type"])
                moves = [m for s in range(n) for m in engine.legal_moves(state, s)]
                if not moves:
                    break
                state, events = engine.apply(state, rng.choice(moves))
    rare = {"challenged", "caught", "swapped", "gave", "flipped", "matched"}
    assert rare <= seen, rare - seen


def test_every_operation_has_an_example() -> None:
    """A request or an answer example per operation (an error's counts for an operation
    whose success has no body)."""
    doc = spec_document()

    def deref(node: Any) -> Any:
        while isinstance(node, dict) and "$ref" in node:
            target: Any = doc
            for part in node["$ref"][2:].split("/"):
                target = target[part]
            node = target
        return node

    bare = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method not in {"get", "post", "put", "patch", "delete"}:
                continue
            bodies = [deref(op["requestBody"])] if "requestBody" in op else []
            bodies += [deref(r) for r in op["responses"].values()]
            if not any(m.get("examples") for b in bodies for m in b.get("content", {}).values()):
                bare.append(f"{method} {path}")
    assert not bare, bare
