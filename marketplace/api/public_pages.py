"""The public pages' HTML with their head and content filled in on the server, for readers without JavaScript.

Reflex answers `/agents/{id}` with one shell for every id (it prerenders no route with a parameter) and fills
titles in the browser, so a link preview or a crawler read a bare page. `PublicPages` takes the compiled page
that Reflex would answer, puts the page's own head (`services/seo/page_head.py`) in place of the generic title
and image tags, and its main content as plain HTML at the start of the body, with the status the page means
(404 for an agent that is not live). The React app still hydrates the same document: an inline script removes the
plain content as the parser reaches it, and a style written before the body hides it until then, so a person
with JavaScript never sees it painted.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from html import escape
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from marketplace.api.crawler_files import etag_matches
from marketplace.services.seo import page_head, public_pages
from marketplace.services.seo.page_head import PageHead
from marketplace.services.seo.public_pages import PageContent, PublicPage

CONTENT_ID = "crawler-view"
# Parser-inserted, before the body is parsed: the plain content is never painted where scripts run.
HIDE = f'<script>document.write("<style>#{CONTENT_ID}{{display:none}}</style>")</script>'
REMOVE = f'<script>document.getElementById("{CONTENT_ID}").remove()</script>'
# What Reflex's pages put in the head that this head replaces (a generic title, the favicon as og:image).
GENERIC_META = re.compile(r'<meta[^>]*(?:property="og:image"|name="description")[^>]*/?>')
TITLE = re.compile(r"<title>[^<]*</title>")
# A page compiled without a title (the one shell of every agent) gets the React app's title on its first render,
# inserted before ours: ours then goes, so the document keeps one title and client-side moves retitle it.
SERVER_TITLE = "data-server-title"
DROP_SERVER_TITLE = ("<script>new MutationObserver(function(_, watch) {"
                     "if (document.head.getElementsByTagName('title').length > 1) {"
                     f"document.head.querySelector('title[{SERVER_TITLE}]').remove(); watch.disconnect();}}"
                     "}).observe(document.head, {childList: true})</script>")
BODY = re.compile(r"<body[^>]*>")
# Served when no compiled page answers (the bare API in tests, a build not yet there): the same head and content.
FALLBACK_SHELL = b'<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/></head><body></body></html>'
# Asked of the compiled page without these: a 304 has no body to fill, and a precompressed file no text to edit.
NOT_FORWARDED = (b"if-none-match", b"if-modified-since", b"accept-encoding")


def _kind(path: str) -> str | None:
    """Which compiled page answers `path`: one shell serves every agent id."""
    if path in ("/", "/agents", "/categories"):
        return path
    parts = path.split("/")
    if len(parts) == 3 and parts[1] == "agents" and parts[2]:
        return "/agents/{id}"
    return None


def json_ld(data: dict[str, Any]) -> str:
    """JSON that cannot end its `<script>` element, whatever the text holds."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_head(head: PageHead) -> str:
    """Every tag but the title (`render` places that)."""
    a = lambda value: escape(value, quote=True)  # noqa: E731 - attribute values, every one escaped
    tags = [
        f'<meta name="description" content="{a(head.description)}"/>',
        f'<link rel="canonical" href="{a(head.canonical)}"/>',
        f'<meta property="og:type" content="{a(head.og_type)}"/>',
        f'<meta property="og:site_name" content="{a(page_head.SITE_NAME)}"/>',
        f'<meta property="og:title" content="{a(head.title)}"/>',
        f'<meta property="og:description" content="{a(head.description)}"/>',
        f'<meta property="og:url" content="{a(head.canonical)}"/>',
        f'<meta property="og:image" content="{a(head.image)}"/>',
        '<meta property="og:image:width" content="1200"/>',
        '<meta property="og:image:height" content="630"/>',
        '<meta name="twitter:card" content="summary_large_image"/>',
        f'<meta name="twitter:title" content="{a(head.title)}"/>',
        f'<meta name="twitter:description" content="{a(head.description)}"/>',
        f'<meta name="twitter:image" content="{a(head.image)}"/>',
    ]
    if not head.indexable:
        tags.append('<meta name="robots" content="noindex, follow"/>')
    tags += [f'<script type="application/ld+json">{json_ld(data)}</script>' for data in head.json_ld]
    return "".join(tags) + HIDE


def render_content(content: PageContent) -> str:
    parts = [f"<h1>{escape(content.heading)}</h1>"]
    parts += [f"<p>{escape(text)}</p>" for text in content.paragraphs if text.strip()]
    if content.facts or content.facts_link:
        rows = [f"<dt>{escape(label)}</dt><dd>{escape(value)}</dd>" for label, value in content.facts]
        if content.facts_link:
            link = content.facts_link
            rows.append(f'<dt>Category</dt><dd><a href="{escape(link.href)}">{escape(link.text)}</a></dd>')
        parts.append("<dl>" + "".join(rows) + "</dl>")
    if content.links:
        if content.links_heading:
            parts.append(f"<h2>{escape(content.links_heading)}</h2>")
        items = [f'<li><a href="{escape(link.href)}">{escape(link.text)}</a>'
                 + (f"<p>{escape(link.note)}</p>" if link.note else "") + "</li>" for link in content.links]
        parts.append("<ul>" + "".join(items) + "</ul>")
    if content.changelog:
        entries = [f"<article><h3>{escape(entry.label)} <small>{escape(entry.day)}</small></h3>{entry.notes_html}"
                   "</article>" for entry in content.changelog]  # notes_html: rendered safe (services/versions/notes)
        parts.append('<section aria-labelledby="changelog"><h2 id="changelog">Changelog</h2>'
                     + "".join(entries) + "</section>")
    if content.pager:
        links = " ".join(f'<a href="{escape(link.href)}">{escape(link.text)}</a>' for link in content.pager)
        parts.append(f"<nav aria-label=\"Pages\">{links}</nav>")
    nav = '<nav aria-label="Site"><a href="/">AgentMarket</a> <a href="/agents">Browse Agents</a> ' \
          '<a href="/categories">Categories</a></nav>'
    return f'<div id="{CONTENT_ID}"><header>{nav}</header><main>{"".join(parts)}</main></div>{REMOVE}'


def render(shell: str, page: PublicPage) -> str:
    """The compiled page with this page's head and content: the title's text in place of the generic one, the
    other tags at the end of the head. React hydrates the head's children in order: an unexpected title or script
    before its own is taken for a mismatch, and the page is then rendered anew without the server's styles
    (measured: a phone's hidden top-bar links showed); nodes after its last child are left alone, and a
    prerendered title is adopted as it is."""
    html = GENERIC_META.sub("", shell)
    title = escape(page.head.title)
    html, replaced = TITLE.subn(f"<title>{title}</title>", html, count=1)
    tags = render_head(page.head)
    if not replaced:
        tags = f"<title {SERVER_TITLE}>{title}</title>{tags}{DROP_SERVER_TITLE}"
    html = html.replace("</head>", tags + "</head>", 1)
    body = BODY.search(html)
    if body is None:
        return html
    return html[: body.end()] + render_content(page.content) + html[body.end():]


class PublicPages:
    """GET and HEAD of `/`, `/agents`, `/agents/{id}` and `/categories` answered with the page's head and content;
    every other request passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._shells: dict[str, str] = {}  # per compiled page: a build is fixed for the life of the process

    async def _shell(self, kind: str, scope: Scope) -> str:
        """The page Reflex answers for `kind`, asked once per process."""
        if kind in self._shells:
            return self._shells[kind]
        headers = [(k, v) for k, v in scope["headers"] if k not in NOT_FORWARDED]
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        asked = asyncio.Event()

        async def receive() -> Message:
            if not asked.is_set():
                asked.set()
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()  # no disconnect: a response that listens for one just waits (and is cancelled)
            raise AssertionError("unreachable")

        async def collect(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        # Without the server's extensions: a file would otherwise come as a path to send (`pathsend`), not bytes.
        await self.app({**scope, "method": "GET", "headers": headers, "extensions": {}}, receive, collect)
        content_type = Headers(raw=start.get("headers", [])).get("content-type", "")
        body = b"".join(chunks) if start.get("status") == 200 and content_type.startswith("text/html") else b""
        shell = (body or FALLBACK_SHELL).decode()
        if body:  # a missing page is not remembered: the build may still be on its way
            self._shells[kind] = shell
        return shell

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = _kind(scope["path"]) if scope["type"] == "http" and scope["method"] in ("GET", "HEAD") else None
        if kind is None:
            await self.app(scope, receive, send)
            return
        shell = await self._shell(kind, scope)
        query = scope.get("query_string", b"").decode("latin-1")
        page = await run_in_threadpool(public_pages.public_page, scope["path"], query)
        if page is None:  # not reached: `_kind` and `public_page` know the same addresses
            await self.app(scope, receive, send)
            return
        body = render(shell, page).encode()
        tag = hashlib.blake2b(body, digest_size=12).hexdigest()
        etag = f'"{tag}"'
        status = page.status
        if status == 200 and etag_matches(Headers(scope=scope), tag):
            await send({"type": "http.response.start", "status": 304, "headers": [(b"etag", etag.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return
        headers = [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                   (b"etag", etag.encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
