"""The documentation site as the README says to read it: built by MkDocs (strict) into a
folder of its own, every link and resource of every page resolves to a file of the site
(so ``site/index.html`` works opened from disk, and ``mkdocs serve`` serves the same
names), nothing is loaded from another host, and in headless Chromium, from ``file://``,
the home page opens, a link leads to its page and the search finds pages."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from tests.platform.browser import ARTIFACTS, ROOT, chromium, need

pytestmark = pytest.mark.slow

SHIM = ROOT / "docs" / "assets" / "javascripts" / "iframe-worker-shim.js"
SHIM_PACKAGE = (
    ROOT / "clients" / "typescript" / "node_modules" / "iframe-worker" / "shim" / "index.js"
)
WAIT = 30


class Page(HTMLParser):
    """A page's links and resources (``href``, ``src``) and its element ids."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif name in ("href", "src"):
                self.refs.append(value)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``make docs``'s build, into a folder of this test's."""
    out = tmp_path_factory.mktemp("site")
    mkdocs = Path(sys.executable).with_name("mkdocs")
    need(mkdocs.exists(), "mkdocs is not installed (make install-dev)")
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stderr
    return out


def test_every_link_of_the_built_site_names_a_file_of_it(site: Path) -> None:
    """From ``file://`` a link to a folder shows a listing and one to ``/`` the disk's
    root: every relative link names a file, its ``#anchor`` an id on that page."""
    pages = {path: parse(path) for path in site.rglob("*.html")}
    assert len(pages) > 20
    checked, dead = 0, []
    for path, page in pages.items():
        if path.name == "404.html":  # a web server's answer to any path: links from its root
            continue
        for ref in page.refs:
            parts = urlsplit(ref)
            if parts.scheme in ("http", "https", "mailto", "data", "javascript"):
                continue
            checked += 1
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if parts.scheme or ref.startswith("/") or not target.is_file():
                dead.append(f"{path.relative_to(site)}: {ref}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(parts.fragment) not in ids:
                    dead.append(f"{path.relative_to(site)}: {ref} (no such anchor)")
    assert checked > 500
    assert not dead, f"{len(dead)} of {checked} links lead nowhere:\n" + "\n".join(dead[:40])


def test_the_site_loads_nothing_from_another_host(site: Path) -> None:
    """Scripts, styles and images are the site's own (the offline plugin's search worker
    shim too: the copy in docs/assets)."""
    foreign = []
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        for ref in parse(path).refs:
            external = urlsplit(ref).scheme in ("http", "https")
            if external and (
                f'src="{ref}"' in text or f'<link href="{ref}" rel="stylesheet"' in text
            ):
                foreign.append(f"{path.relative_to(site)}: {ref}")
    assert not foreign, foreign
    assert (site / "search" / "search_index.js").is_file()
    assert (site / "assets" / "javascripts" / SHIM.name).is_file()


def test_the_shim_is_the_pinned_packages(site: Path) -> None:
    """docs/assets holds iframe-worker's shim as the pinned npm package ships it."""
    need(SHIM_PACKAGE.is_file(), f"{SHIM_PACKAGE} missing: run `make node-tools`")
    copy = [line for line in SHIM.read_text().splitlines() if not line.startswith("//")]
    assert copy == SHIM_PACKAGE.read_text().splitlines()


def test_the_reference_shows_the_seat_token_as_the_header_it_is(site: Path) -> None:
    text = (site / "reference.html").read_text(encoding="utf-8")
    assert "<code>seatToken</code></td>\n            <td>header" not in text
    assert "<code>Authorization</code></td><td>header</td>" in text
    assert "<code>Bearer &lt;token&gt;</code>" in text
    # No example answer shows a list of nothing (`"events": [null]`).
    shown = html.unescape(re.sub(r"<[^>]+>", "", text))
    assert not re.search(r"\[\s*null\s*\]", shown), re.findall(r'"\w+": \[\s*null\s*\]', shown)


# ---------------------------------------------------------------- in Chromium
@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium(window="1280,1600") as driver:
        yield driver


def test_the_site_opens_from_files_with_working_links_and_search(site: Path, browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, WAIT)
    browser.get((site / "index.html").as_uri())
    assert "UNO-family rules service" in browser.title
    # A link of the navigation leads to its page, not to a folder's listing.
    links = browser.find_elements(By.CSS_SELECTOR, "a.md-nav__link")
    link = next(a for a in links if a.get_attribute("href").endswith("/operations.html"))
    browser.execute_script("arguments[0].click()", link)
    wait.until(lambda d: d.current_url.endswith("/operations.html"))
    assert browser.find_element(By.CSS_SELECTOR, "article h1").text.startswith("Operations")
    # Search, from the file: the index (search_index.js) and the worker (in an iframe).
    box = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    box.click()
    box.send_keys("sealing keys")
    found = wait.until(
        lambda d: d.find_elements(By.CSS_SELECTOR, ".md-search-result__item a") or None
    )
    ARTIFACTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(ARTIFACTS / "site-search.png"))
    meta = browser.find_element(By.CSS_SELECTOR, ".md-search-result__meta").text
    assert "matching document" in meta and not meta.startswith("No"), meta
    target = found[0].get_attribute("href")
    assert target.startswith("file://") and ".html" in target, target
    box.send_keys(Keys.ENTER)
    wait.until(lambda d: d.current_url != (site / "operations.html").as_uri())
    assert urlsplit(browser.current_url).path.endswith(".html")
    assert not browser.find_elements(By.XPATH, "//h1[starts-with(., 'Index of')]")
