"""``/docs/rules``: each game's rules in the project's own words (``docs/rules/<id>.md``).

The documents live in the repository's ``docs/rules/`` (beside ``service/``, as
``openapi.yaml`` does; the image copies both to ``/app``). They are read once when the
app is made. ``GET /docs/rules`` is an index of every registered variant,
``GET /docs/rules/<variant>`` (or ``<variant>.md``, so the documents' relative links work
when served) is the Markdown as it is, or, to a client that prefers ``text/html`` (a
browser following a link: the playground's "rules" link), the same document rendered as
an HTML page (markdown-it-py, raw HTML in the source escaped; no script, no style). The
choice follows ``Accept`` (``Vary: Accept``): ``*/*`` or none gets the Markdown.
``rules_url`` gives a variant's address (``GET /v1/variants`` lists it).
"""

from __future__ import annotations

import html
import logging
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, request
from markdown_it import MarkdownIt

import engine
from engine.docs import RULES_DIR, rules_path
from service.problems import ApiProblem

URL_PREFIX = "/docs/rules"
MARKDOWN = "text/markdown"  # Flask adds "; charset=utf-8"
HTML = "text/html"
#: The rendered page runs nothing and loads nothing.
HTML_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
#: CommonMark with tables; raw HTML in a document is shown as text.
_MARKDOWN_IT = MarkdownIt("js-default")

log = logging.getLogger("service.rules_docs")

bp = Blueprint("rules_docs", __name__, url_prefix=URL_PREFIX)


def rules_url(variant_id: str) -> str:
    """Where the service serves a variant's rules."""
    return f"{URL_PREFIX}/{variant_id}"


def index_markdown() -> str:
    lines = [
        "# The rules of the games",
        "",
        "One document per game, in the project's own words: components, set-up, a turn,",
        "every decision and its move, special cases, scoring, options, worked examples.",
        "",
    ]
    for v in engine.all_variants():
        players = (
            f"{v.min_players}-{v.max_players}"
            if v.min_players != v.max_players
            else str(v.min_players)
        )
        lines.append(f"- [{v.title}]({rules_url(v.id)}) (`{v.id}`): {players} players")
    return "\n".join(lines) + "\n"


def html_page(markdown: str) -> str:
    """``markdown`` rendered as a page, titled by its first heading."""
    heads = (ln.lstrip("# ").replace("`", "") for ln in markdown.splitlines() if ln[:1] == "#")
    title = next(heads, "").strip()
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n<main>\n"
        f"{_MARKDOWN_IT.render(markdown)}</main>\n</body>\n</html>\n"
    )


def negotiated(markdown: bytes) -> Response:
    """The document as Markdown, or as an HTML page to a client that prefers HTML."""
    if request.accept_mimetypes.best_match([MARKDOWN, HTML], default=MARKDOWN) == HTML:
        resp = Response(html_page(markdown.decode()), mimetype=HTML)
        resp.headers["Content-Security-Policy"] = HTML_CSP
    else:
        resp = Response(markdown, mimetype=MARKDOWN)
    resp.vary.add("Accept")
    return resp


@bp.get("", strict_slashes=False)
def index() -> Response:
    return negotiated(current_app.extensions["rules_index"])


@bp.get("/<name>")
def document(name: str) -> Response:
    variant_id = name.removesuffix(".md")
    try:
        engine.find_variant(variant_id)
    except engine.UnknownVariant as exc:
        raise ApiProblem(404, "unknown_variant", exc.detail, title="Unknown variant") from None
    text = current_app.extensions["rules_docs"].get(variant_id)
    if text is None:  # a registered variant without its document: logged at start
        raise ApiProblem(404, "not_found", f"no rules document for {variant_id!r} here")
    return negotiated(text)


def init_app(app: Flask, directory: Path = RULES_DIR) -> None:
    docs: dict[str, bytes] = {}
    for v in engine.all_variants():
        path = rules_path(v.id, directory)
        if path.is_file():
            docs[v.id] = path.read_bytes()
        else:
            log.error("no rules document for variant %s (expected %s)", v.id, path)
    app.extensions["rules_docs"] = docs
    app.extensions["rules_index"] = index_markdown().encode()
    app.register_blueprint(bp)
