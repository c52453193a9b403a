"""``rules_url`` and ``/docs/rules``: every variant's rules page resolves to its
document, as Markdown, or as an HTML page to a browser; unknown variants are a 404
problem."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from flask import Flask

import engine
from service import problems, rules_docs
from service.rules_docs import rules_path
from tests.engine.rules.test_rules_docs import PARAMS
from tests.service.harness import ApiClient, problem

MARKDOWN = "text/markdown"


@pytest.mark.parametrize("variant", PARAMS)
def test_rules_url_of_every_listed_variant_serves_its_document(
    api: ApiClient, variant: engine.Variant
) -> None:
    listed = {v["id"]: v for v in api.get("/v1/variants").get_json()["variants"]}
    url = listed[variant.id]["rules_url"]
    assert url == api.get(f"/v1/variants/{variant.id}").get_json()["rules_url"]
    resp = api.get(url)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == MARKDOWN and resp.mimetype_params.get("charset") == "utf-8"
    assert resp.get_data() == rules_path(variant.id).read_bytes()


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("variant", PARAMS)
def test_a_browser_gets_the_document_as_an_html_page(
    api: ApiClient, variant: engine.Variant
) -> None:
    """A client that prefers HTML (a browser following ``rules_url``) gets the same
    document rendered: headings, tables and links as HTML, nothing raw, nothing run."""
    url = f"/docs/rules/{variant.id}"
    page = api.get(url, headers={"Accept": BROWSER})
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert (
        page.headers["Vary"] == "Accept"
        and "default-src 'none'" in page.headers["Content-Security-Policy"]
    )
    text = page.get_data(as_text=True)
    source = rules_path(variant.id).read_text()
    first = source.splitlines()[0].lstrip("# ").replace("`", "")
    assert f"<title>{first}</title>" in text and "<h1>" in text and "<script" not in text
    assert "\n# " not in text and ("<table>" in text) == ("\n|" in source)
    for accept in ("*/*", "text/markdown", None):
        plain = api.get(url, headers={"Accept": accept} if accept else {})
        assert plain.mimetype == MARKDOWN and plain.get_data() == source.encode()
        assert plain.headers["Vary"] == "Accept"


@pytest.mark.parametrize("variant", PARAMS)
def test_a_document_is_also_served_by_its_file_name(
    api: ApiClient, variant: engine.Variant
) -> None:
    """So that a document's relative links (``uno_classic.md``) work when served."""
    resp = api.get(f"/docs/rules/{variant.id}.md")
    assert resp.status_code == 200
    assert resp.get_data() == rules_path(variant.id).read_bytes()


def test_the_index_links_every_variant(api: ApiClient) -> None:
    resp = api.get("/docs/rules")
    assert resp.status_code == 200 and resp.mimetype == MARKDOWN
    text = resp.get_data(as_text=True)
    for v in api.get("/v1/variants").get_json()["variants"]:
        assert f"]({v['rules_url']})" in text and v["title"] in text


@pytest.mark.parametrize("name", ["chess", "uno_classic.txt", "UNO_CLASSIC", "README"])
def test_an_unknown_variant_is_a_404_problem(api: ApiClient, name: str) -> None:
    problem(api.get(f"/docs/rules/{name}"), 404, "unknown_variant")


@pytest.mark.parametrize("path", ["/docs/rules/..%2f..%2fREADME.md", "/docs/rules/%2e%2e"])
def test_no_file_outside_the_documents_is_served(api: ApiClient, path: str) -> None:
    resp = api.get(path)
    assert resp.status_code == 404 and resp.mimetype == "application/problem+json"


def test_a_variant_without_its_document_is_404_and_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A server missing a document says so in its log when it starts, and answers 404."""
    present = engine.find_variant("uno_classic")
    (tmp_path / "uno_classic.md").write_bytes(rules_path(present.id).read_bytes())
    app = Flask(__name__)
    problems.register(app)
    with caplog.at_level(logging.ERROR, logger="service.rules_docs"):
        rules_docs.init_app(app, tmp_path)
    absent = sorted(v.id for v in engine.all_variants() if v.id != present.id)
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert all(f"variant {vid} " in logged for vid in absent), logged
    client = app.test_client()
    assert client.get("/docs/rules/uno_classic").status_code == 200
    resp = client.get(f"/docs/rules/{absent[0]}")
    assert resp.status_code == 404 and resp.mimetype == "application/problem+json"
    assert resp.get_json()["code"] == "not_found"
