"""The files crawlers and link previews fetch beside the pages: `/robots.txt`, `/sitemap.xml` with its files
`/sitemaps/{n}.xml`, and the preview images `/og/agents/{id}.png` and `/og/site.png` (services/seo).

Every other address goes to the Reflex app (`page_serving.PagesPastRoutes`), which would answer these with its
404 page, so this middleware sits just outside it and answers exactly these GET and HEAD requests; it stays inside
the security middlewares, which add their headers. The services read the database and draw on a worker thread.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import parse_qs

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from marketplace.services.errors import NotFound
from marketplace.services.seo import previews, robots, sitemap

SITEMAP_FILE = re.compile(r"/sitemaps/([1-9][0-9]{0,8})\.xml")
AGENT_IMAGE = re.compile(r"/og/agents/([^/]{1,64})\.png")
TEXT, XML, PNG = "text/plain; charset=utf-8", "application/xml", "image/png"
ROBOTS_CACHE = "public, max-age=3600"
SITEMAP_CACHE = "public, max-age=600"

Answer = tuple[int, dict[str, str], bytes]
NOT_FOUND: Answer = (404, {"content-type": TEXT}, b"Not Found\n")


def etag_matches(headers: Headers, etag: str) -> bool:
    """`If-None-Match` names this ETag (weak or strong) or is `*`."""
    for tag in headers.get("if-none-match", "").split(","):
        tag = tag.strip().removeprefix("W/")
        if tag in (f'"{etag}"', "*"):
            return True
    return False


def _image(preview: previews.Preview, scope: Scope) -> Answer:
    asked = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v", [None])[0]
    headers = {"etag": f'"{preview.etag}"', "cache-control": preview.cache_control(asked)}
    if etag_matches(Headers(scope=scope), preview.etag):
        return 304, headers, b""
    return 200, {**headers, "content-type": PNG}, preview.png


def _agent_image(agent_id: str) -> Callable[[], previews.Preview | None]:
    def read() -> previews.Preview | None:
        try:
            return previews.agent_preview(agent_id=agent_id)
        except NotFound:
            return None

    return read


async def _answer(path: str, scope: Scope) -> Answer | None:
    """The answer for one of these addresses (404 for an image or sitemap file that does not exist), or None
    for any other address."""
    if path == "/robots.txt":
        return 200, {"content-type": TEXT, "cache-control": ROBOTS_CACHE}, robots.robots_txt().encode()
    if path == "/sitemap.xml":
        body = await run_in_threadpool(lambda: sitemap.sitemap_xml(page_size=sitemap.MAX_URLS))
        return 200, {"content-type": XML, "cache-control": SITEMAP_CACHE}, body
    if found := SITEMAP_FILE.fullmatch(path):
        number = int(found.group(1))
        page = await run_in_threadpool(lambda: sitemap.sitemap_page_xml(number=number, page_size=sitemap.MAX_URLS))
        return NOT_FOUND if page is None else (200, {"content-type": XML, "cache-control": SITEMAP_CACHE}, page)
    if path == previews.SITE_PATH:
        return _image(await run_in_threadpool(previews.site_preview), scope)
    if found := AGENT_IMAGE.fullmatch(path):
        preview = await run_in_threadpool(_agent_image(found.group(1)))
        return NOT_FOUND if preview is None else _image(preview, scope)
    return None


class CrawlerFiles:
    """Answers the crawler files' GET and HEAD requests; passes everything else on untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = None
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            answer = await _answer(scope["path"], scope)
        if answer is None:
            await self.app(scope, receive, send)
            return
        status, headers, body = answer
        if status != 304:
            headers["content-length"] = str(len(body))
        raw = [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
        await send({"type": "http.response.start", "status": status, "headers": raw})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
