"""openapi.yaml is a valid OpenAPI 3.1 document, is its sources (spec/) bundled, agrees
with the app's routes, its examples fit its schemas, and the served copy is the file."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from flask import Flask
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename

from tests.service.harness import SPEC_PATH, ApiClient, new_game, spec_document
from tools import bundle_spec

#: Routes that are not API operations: the Swagger UI page and its assets (the page is
#: this document, browsable), Flask's static files.
UNDOCUMENTED = re.compile(r"^/docs/(\{\})?$|^/static/")
METHODS = {"get", "post", "put", "patch", "delete"}


def test_the_document_is_valid_openapi_3_1() -> None:
    document, _ = read_from_filename(str(SPEC_PATH))
    validate(document)
    assert document["openapi"].startswith("3.1")


class _StrictLoader(yaml.SafeLoader):
    """A YAML loader that refuses a key given twice (PyYAML keeps the last silently)."""


def _no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    keys = [loader.construct_object(k, deep=deep) for k, _ in node.value]
    twice = {k for k in keys if keys.count(k) > 1}
    assert not twice, f"keys given twice at line {node.start_mark.line + 1}: {twice}"
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


SOURCES = sorted(bundle_spec.SOURCES.rglob("*.yaml"))


@pytest.mark.parametrize("path", [SPEC_PATH, *SOURCES], ids=lambda p: p.name)
def test_no_key_is_given_twice(path: Any) -> None:
    yaml.load(path.read_text(), Loader=_StrictLoader)


# ---------------------------------------------------------------- the sources
def test_openapi_yaml_is_its_sources_bundled() -> None:
    """openapi.yaml is what `make spec` writes from spec/ now (an edit of the sources
    was bundled; nobody edited the generated file)."""
    assert SPEC_PATH.read_text() == bundle_spec.bundle(), "openapi.yaml is stale: run make spec"


def test_every_schema_of_the_sources_is_in_the_bundle() -> None:
    """redocly keeps only what is referred to: a schema no operation (or the root's
    list) names would vanish from the served document without a word."""
    bundled = spec_document()["components"]["schemas"]
    for path in (bundle_spec.SOURCES / "schemas").glob("*.yaml"):
        missing = set(yaml.safe_load(path.read_text())) - set(bundled)
        assert not missing, f"{path.name}: {sorted(missing)} are in no operation's answer"


def test_large_integers_survive_the_bundle() -> None:
    """redocly reads numbers as doubles; the bundle writes the sources' integers back."""
    seed = spec_document()["components"]["schemas"]["CreateGameRequest"]["properties"]["seed"]
    assert seed["maximum"] == 2**64 - 1


def _shape(path: str) -> str:
    """A path with its parameters blanked: Flask's <x> and OpenAPI's {x} alike."""
    return re.sub(r"<[^>]+>|\{[^}]+\}", "{}", path)


def _documented() -> set[tuple[str, str]]:
    return {
        (_shape(path), method.upper())
        for path, item in spec_document()["paths"].items()
        for method in item
        if method in METHODS
    }


def _routed(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        path = _shape(rule.rule)
        if UNDOCUMENTED.search(path):
            continue
        for method in rule.methods or ():
            if method.lower() in METHODS:
                out.add((path, method))
    return out


def test_every_route_of_the_app_is_documented(api_app: Flask) -> None:
    assert _routed(api_app) - _documented() == set()


def test_every_documented_operation_exists(api_app: Flask) -> None:
    assert _documented() - _routed(api_app) == set()


def test_every_operation_has_an_id_a_tag_and_its_error_answers() -> None:
    doc = spec_document()
    ids = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            ids.append(op["operationId"])
            assert op.get("tags"), (path, method)
            if method == "post" and "requestBody" in op:
                # A body can be malformed, too large or not JSON; a seat change (join)
                # runs no rules on it, so a 422 is documented only where one can come.
                assert {"400", "413", "415"} <= set(op["responses"]), (path, method)
    assert len(ids) == len(set(ids))


# ---------------------------------------------------------------- examples
def node_ref(ref: str) -> str:
    assert ref.startswith("#/"), ref
    return ref[2:]


def _deref(doc: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = doc
        for part in node_ref(node["$ref"]).split("/"):
            target = target[part]
        node = target
    return node


def _media_examples(doc: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(where, schema, example value) for every example given beside a schema."""

    def media(where: str, content: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Any]]:
        for mtype, body in content.items():
            schema = body.get("schema")
            for name, ex in (body.get("examples") or {}).items():
                if schema is not None:
                    yield f"{where} {mtype} {name}", schema, _deref(doc, ex)["value"]

    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method not in METHODS:
                continue
            body = op.get("requestBody")
            if body:
                yield from media(f"{method} {path} request", _deref(doc, body)["content"])
            for status, resp in op["responses"].items():
                resp = _deref(doc, resp)
                yield from media(f"{method} {path} {status}", resp.get("content", {}))
    for name, schema in doc["components"]["schemas"].items():
        for i, value in enumerate(schema.get("examples", [])):
            yield f"schema {name} example {i}", {"$ref": f"#/components/schemas/{name}"}, value


EXAMPLES = list(_media_examples(spec_document()))


@pytest.mark.parametrize(("where", "schema", "value"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_fits_its_schema(where: str, schema: dict[str, Any], value: Any) -> None:
    root = {"components": spec_document()["components"], **schema}
    OAS31Validator(root).validate(value)


def test_there_are_examples_for_requests_and_errors() -> None:
    wheres = [e[0] for e in EXAMPLES]
    assert sum(" request " in w for w in wheres) >= 6
    assert sum("problem+json" in w for w in wheres) >= 10


def test_the_created_game_example_is_what_the_service_answers(api: ApiClient) -> None:
    example = spec_document()["components"]["examples"]["CreatedGame"]["value"]
    assert new_game(api, variant="uno_classic", players=2, seed=42) == example


def test_the_example_state_is_accepted(api: ApiClient) -> None:
    state = spec_document()["components"]["examples"]["State"]["value"]
    resp = api.post("/v1/games/score", json={"state": state})
    assert resp.status_code == 200 and resp.get_json()["hand_points"] == [52, 88]


# ---------------------------------------------------------------- served copy
def test_openapi_yaml_is_served_as_the_file(api: ApiClient) -> None:
    resp = api.get("/openapi.yaml")
    assert resp.status_code == 200
    assert resp.mimetype == "application/yaml"
    assert resp.data == SPEC_PATH.read_bytes()
    assert yaml.safe_load(resp.data)["info"]["title"]


def test_the_browsable_docs_page_loads_the_spec(api: ApiClient) -> None:
    resp = api.c.get("/docs/")  # not an operation of the spec (see UNDOCUMENTED)
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    assert "/openapi.yaml" in resp.get_data(as_text=True)
