"""``GET /v1/variants`` and ``GET /v1/variants/{variant}``: the engine's metadata."""

from __future__ import annotations

import pytest

import engine
from tests.service.harness import ApiClient, problem

VARIANT_IDS = [v.id for v in engine.all_variants()]


def test_the_list_holds_every_registered_variant_sorted(api: ApiClient) -> None:
    resp = api.get("/v1/variants")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    listed = resp.get_json()["variants"]
    assert [v["id"] for v in listed] == VARIANT_IDS
    assert all("catalog" not in v for v in listed)


def test_the_list_is_the_engine_metadata(api: ApiClient) -> None:
    listed = api.get("/v1/variants").get_json()["variants"]
    for meta in listed:
        variant = engine.find_variant(meta["id"])
        assert meta["players"] == {"min": variant.min_players, "max": variant.max_players}
        assert meta["target"] == variant.target
        assert meta["deck_size"] == variant.catalog.size
        assert "target" in meta["options"]


@pytest.mark.parametrize("variant_id", VARIANT_IDS)
def test_one_variant_comes_with_its_whole_catalog(api: ApiClient, variant_id: str) -> None:
    resp = api.get(f"/v1/variants/{variant_id}")
    assert resp.status_code == 200
    body = resp.get_json()
    assert body["id"] == variant_id
    assert [card["id"] for card in body["catalog"]] == list(range(body["deck_size"]))
    assert all(card["code"] for card in body["catalog"])


def test_classic_catalog_cards_carry_their_structured_fields(api: ApiClient) -> None:
    catalog = api.get("/v1/variants/uno_classic").get_json()["catalog"]
    assert catalog[0] == {
        "id": 0,
        "code": "R0",
        "color": "red",
        "kind": "number",
        "value": 0,
        "points": 0,
    }
    wilds = [c for c in catalog if c["code"] == "WD4"]
    assert len(wilds) == 4 and all(c["color"] is None and c["points"] == 50 for c in wilds)


@pytest.mark.skipif("uno_flip" not in VARIANT_IDS, reason="UNO Flip is not registered")
def test_flip_cards_have_a_light_and_a_dark_face(api: ApiClient) -> None:
    body = api.get("/v1/variants/uno_flip").get_json()
    assert body["double_sided"] is True
    card = body["catalog"][0]
    assert card["code"] == f"{card['light']['code']}/{card['dark']['code']}"


@pytest.mark.parametrize("name", ["chess", "UNO_CLASSIC", "uno_classic ", "%00"])
def test_an_unknown_variant_is_404_unknown_variant(api: ApiClient, name: str) -> None:
    body = problem(api.get(f"/v1/variants/{name}"), 404, "unknown_variant")
    assert "uno_classic" in body["detail"]  # the known variants are named
