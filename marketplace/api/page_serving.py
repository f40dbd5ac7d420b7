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
from starlette.routing import Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REDIRECTS = {301, 302, 307, 308}
API_PREFIX = "/api"  # every route of the FastAPI app is under it (tests/api/test_page_serving.py checks)


def _is_api(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


class PagesPastRoutes:
    """Everything outside `/api` (pages' HTML, `/assets/*`, Reflex's `/_event` websocket) goes straight to the
    Reflex app that Reflex mounts last on the FastAPI app (`api_transformer`), instead of being matched against
    every `/api` route first (measured: route matching was 2% of a worker's CPU under the websocket load,
    benchmarks/README.md "Websocket load"), and skips the `/api`-only layers inside this one (the OAuth
    session cookie, the method guard, FastAPI's dependency exit stack). The security middlewares stay outside
    it, so these answers keep their headers."""

    def __init__(self, app: ASGIApp, api: ASGIApp) -> None:
        self.app = app
        self.api = api
        self._pages: Mount | None = None

    def _mount(self) -> Mount | None:
        """The catch-all mount Reflex added after every route (None before it is added: tests of the bare API)."""
        if self._pages is None:
            routes = getattr(self.api, "routes", [])
            last = routes[-1] if routes else None
            if isinstance(last, Mount) and last.path == "":
                self._pages = last
        return self._pages

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        mount = self._mount() if scope["type"] in ("http", "websocket") and not _is_api(scope["path"]) else None
        if mount is not None:
            match, child_scope = mount.matches(scope)
            if match == Match.FULL:
                await mount.handle({**scope, **child_scope}, receive, send)
                return
        await self.app(scope, receive, send)


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
