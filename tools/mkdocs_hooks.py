"""MkDocs hooks (``mkdocs.yml``: ``hooks``) that correct two things the API reference's
renderer (neoteroi-mkdocs's OAD plugin) would show wrongly, read from ``openapi.yaml``:

- An HTTP security scheme is listed among an operation's input parameters under the
  scheme's name, "in header" (``seatToken``, a header no client should send). The row
  names the header a client does send instead, ``Authorization``, with the scheme's
  ``Bearer`` value, and says it is the scheme's.
- A server's URL is a link; a relative one (``/``: the host that serves the document)
  would point at the root of the file system from ``site/``. It is shown as code.
"""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml

OPENAPI = Path(__file__).resolve().parent.parent / "openapi.yaml"
REFERENCE = "reference.md"


@cache
def _http_schemes() -> dict[str, dict[str, Any]]:
    doc = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    schemes = doc.get("components", {}).get("securitySchemes", {})
    return {name: s for name, s in schemes.items() if s.get("type") == "http"}


def _cell(text: str) -> str:
    """A description cell: the renderer leaves its Markdown as it is; code spans shown."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def security_rows(page_html: str) -> str:
    """Each HTTP scheme's parameter row, made the ``Authorization`` header's."""
    for name, scheme in _http_schemes().items():
        row = re.compile(
            r'<td class="parameter-name"><code>' + re.escape(name) + r"</code></td>\s*"
            r"<td>header</td>\s*<td>string</td>\s*<td>N/A</td>\s*<td>No</td>\s*<td>[^<]*</td>"
        )
        value = scheme.get("scheme", "").capitalize()
        described = _cell(scheme.get("description", ""))
        cells = (
            '<td class="parameter-name"><code>Authorization</code></td><td>header</td>'
            f"<td>string</td><td></td><td>No</td><td><code>{value} &lt;token&gt;</code>: "
            f"{described} (security scheme <code>{name}</code>)</td>"
        )
        page_html = row.sub(cells, page_html)
    return page_html


def relative_servers(page_html: str) -> str:
    """A relative server URL as code, not a link."""
    return re.sub(
        r'<a href="(/[^"]*)" target="_blank" rel="noopener noreferrer">[^<]*</a>',
        r"<code>\1</code> (the host that serves this document)",
        page_html,
    )


def on_page_content(html_text: str, page: Any, **kwargs: Any) -> str:
    if page.file.src_uri != REFERENCE:
        return html_text
    return relative_servers(security_rows(html_text))
