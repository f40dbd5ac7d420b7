"""How the compiled pages are served on the single port: no trailing-slash round trip.

Reflex's static export writes most pages twice, as `agents.html` and `agents/index.html` (a folder, because
`/agents/[agent_id]` lives under it), and serves them with Starlette's `StaticFiles(html=True)`, which answers
`/agents` with a `307` to `/agents/` whenever such a folder exists. Every address the app links to has no
trailing slash, so each first visit paid a whole round trip for that redirect. `PageWithoutSlash` serves the
folder's page at the address asked for instead: the browser keeps `/agents`, which is also what the client router
and the pages' links use.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REDIRECTS = {301, 302, 307, 308}


class PageWithoutSlash:
    """A page's trailing-slash redirect is followed here, inside the server, instead of by the browser."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or path.endswith("/")
                or path.startswith(("/api/", "/_"))):
            await self.app(scope, receive, send)
            return
        follow = False

        async def send_unless_slash_redirect(message: Message) -> None:
            nonlocal follow
            if message["type"] == "http.response.start" and message["status"] in REDIRECTS:
                location = Headers(raw=message["headers"]).get("location", "")
                follow = urlsplit(location).path == path + "/"
            if not follow:
                await send(message)

        await self.app(scope, receive, send_unless_slash_redirect)
        if follow:
            raw_path: bytes = scope.get("raw_path") or path.encode()
            await self.app({**scope, "path": path + "/", "raw_path": raw_path + b"/"}, receive, send)
