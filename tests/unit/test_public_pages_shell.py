"""`PublicPages` fills the compiled page Reflex serves, however the browser asked for it."""

from __future__ import annotations

import gzip

from starlette.requests import Request
from starlette.responses import Response
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from marketplace.api.public_pages import PublicPages

SHELL = ('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>Generic</title></head>'
         '<body><div id="root">app</div></body></html>')


class CompiledPages:
    """Serves the shell as a static server does: precompressed when asked, 304 for a matching ETag."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.asked += 1
        request = Request(scope)
        if request.headers.get("if-none-match") == '"shell"':
            response = Response(status_code=304)
        elif "gzip" in request.headers.get("accept-encoding", ""):
            response = Response(gzip.compress(SHELL.encode()), media_type="text/html",
                                headers={"content-encoding": "gzip", "etag": '"shell"'})
        else:
            response = Response(SHELL, media_type="text/html", headers={"etag": '"shell"'})
        await response(scope, receive, send)


def test_the_shell_is_read_as_text_once_whatever_the_browser_sent():
    pages = CompiledPages()
    client = TestClient(PublicPages(pages))
    for _ in range(2):
        response = client.get("/categories", headers={"Accept-Encoding": "gzip", "If-None-Match": '"shell"'})
        assert response.status_code == 200
        assert "content-encoding" not in response.headers
        assert "<title>Categories | AgentMarket</title>" in response.text
        assert "Generic" not in response.text
        assert '<div id="root">app</div>' in response.text
    assert pages.asked == 1


def test_other_addresses_reach_the_pages_untouched():
    pages = CompiledPages()
    response = TestClient(PublicPages(pages)).get("/login")
    assert response.text == SHELL
