"""Every relative link of ``README.md`` and the pages under ``docs/`` resolves: the file
(or folder) exists, and an ``#anchor`` names a heading of the target page, as the
documentation site (MkDocs, python-markdown's ``toc``) makes its ids."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import markdown
import pytest

from tests.docs_pages import ROOT, markdown_files

EXTENSIONS = ["toc", "fenced_code", "tables", "attr_list", "md_in_html"]


class LinksAndIds(HTMLParser):
    """The links (``a href``, ``img src``) and the element ids of a rendered page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        target = found.get("href") if tag == "a" else found.get("src") if tag == "img" else None
        if target is not None:
            self.links.append(target)


def rendered(path: Path) -> LinksAndIds:
    parser = LinksAndIds()
    html = markdown.markdown(path.read_text(encoding="utf-8"), extensions=EXTENSIONS)
    parser.feed(html)
    return parser


def relative_links(path: Path) -> list[str]:
    """The links that point into the repository (no scheme, no host, no leading ``/``)."""
    out = []
    for link in rendered(path).links:
        parts = urlsplit(link)
        if parts.scheme or parts.netloc or link.startswith("/"):
            continue
        out.append(link)
    return out


def broken(path: Path, link: str) -> str | None:
    """Why ``link`` in ``path`` does not resolve, or None."""
    target, _, anchor = link.partition("#")
    resolved = (path.parent / unquote(target)).resolve() if target else path
    if not resolved.exists():
        return f"no file {target}"
    if ROOT not in resolved.parents and resolved != ROOT:
        return f"{target} is outside the repository"
    if anchor and resolved.suffix == ".md" and unquote(anchor) not in rendered(resolved).ids:
        return f"{resolved.relative_to(ROOT)} has no heading #{anchor}"
    return None


FILES = markdown_files()


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    problems = [f"{link}: {why}" for link in relative_links(path) if (why := broken(path, link))]
    assert not problems, "\n".join(problems)


def test_the_check_sees_the_links_it_is_for() -> None:
    """The README's links to the pages and an anchor are found (so the test above checks
    something), and a missing file or anchor is reported."""
    readme = ROOT / "README.md"
    links = relative_links(readme)
    assert "docs/api.md#errors" in links and "docs/sessions.md" in links
    assert broken(readme, "docs/api.md#errors") is None
    assert (
        broken(readme, "docs/api.md#no-such-heading")
        == "docs/api.md has no heading #no-such-heading"
    )
    assert broken(readme, "docs/nothing.md") == "no file docs/nothing.md"


def test_links_inside_code_are_not_links() -> None:
    """A ``[text](target)`` inside a code span or block is code, not a link."""
    page = ROOT / "docs" / "engine.md"
    assert re.search(r"\]\(work, move, events\)", page.read_text(encoding="utf-8"))
    assert "work, move, events" not in relative_links(page)
