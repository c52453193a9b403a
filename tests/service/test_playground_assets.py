"""``/play`` and ``/play/<asset>``: the playground's files, served with their content
types, a strong ETag (304 on revalidation), ``Cache-Control`` and a CSP without inline
script; an unknown file is a 404 problem; the spec lists exactly the files served."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.playground import ASSETS_DIR, CSP, PAGE, TYPES, asset_names
from tests.service.harness import ApiClient, problem, spec_document


def _files() -> list[Path]:
    return sorted(p for p in ASSETS_DIR.iterdir() if p.is_file())


def test_the_spec_lists_every_asset_served_and_only_those() -> None:
    served = asset_names()
    assert set(served) == {p.name for p in _files()} - {PAGE}
    enum = spec_document()["components"]["schemas"]["PlaygroundAsset"]["enum"]
    assert sorted(enum) == sorted(served)


def test_every_file_of_the_playground_has_a_type() -> None:
    assert all(p.suffix in TYPES for p in _files()), [p.name for p in _files()]


@pytest.mark.parametrize("path", ["/play", *(f"/play/{n}" for n in asset_names())])
def test_each_file_is_served_with_its_type_and_cache_headers(api: ApiClient, path: str) -> None:
    resp = api.get(path)
    assert resp.status_code == 200
    name = path.removeprefix("/play").lstrip("/") or PAGE
    assert resp.get_data() == (ASSETS_DIR / name).read_bytes()
    assert resp.headers["Content-Type"] == TYPES[Path(name).suffix]
    assert resp.headers["Cache-Control"] == "no-cache"
    assert resp.headers["Content-Security-Policy"] == CSP
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    etag = resp.headers["ETag"]
    again = api.get(path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.get_data() == b""
    changed = api.get(path, headers={"If-None-Match": '"0123"'})
    assert changed.status_code == 200


@pytest.mark.parametrize("path", ["/play/nope.js", "/play/index.html", "/play/", "/play/a/b.js"])
def test_an_unknown_asset_is_a_404_problem(api: ApiClient, path: str) -> None:
    problem(api.get(path), 404, "not_found")


def test_the_page_has_no_inline_script_or_style_and_loads_local_files() -> None:
    """The CSP allows only this origin's files: every script and style is one."""
    html = (ASSETS_DIR / PAGE).read_text()
    assert "script-src 'self'" in CSP and "'unsafe-inline'" not in CSP
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all(body.strip() == "" for _, body in scripts)
    assert not re.search(r"<style|\sstyle=|\son[a-z]+=", html)
    refs = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert refs and all(r.startswith("/play/") for r in refs), refs
    assert {r.removeprefix("/play/") for r in refs} <= set(asset_names())
    # Module imports between the scripts name served files too.
    for p in _files():
        if p.suffix == ".js":
            for imp in re.findall(r"from '\./([^']+)'", p.read_text()):
                assert imp in asset_names(), (p.name, imp)


def test_the_bot_level_choices_are_the_specs_levels() -> None:
    page = (ASSETS_DIR / PAGE).read_text()
    select = re.search(r'<select id="bot-level".*?</select>', page, re.S)
    assert select is not None
    offered = re.findall(r'<option value="([a-z]+)"', select.group(0))
    assert offered == spec_document()["components"]["schemas"]["BotLevel"]["enum"]
