"""Which methods an `/api` path has, answered alike for every path: a method the path does not have is a JSON 405
with the path's methods in `Allow`, and a path no route has is a JSON 404, whatever the method.

Starlette alone gets this wrong in three ways: a path parameter also matches a sibling's literal segment
(`DELETE /api/admin/agents/{agent_id}` takes `/api/admin/agents/pending`, which has only GET), so the wrong route
answers 401/404/422 instead of 405; its 405 lists the methods of the first route that matched the path, not of all
of them; and an `/api` request no route takes falls through to Reflex's pages, mounted after the API (`rx.App`'s
`api_transformer`), which answer in text or HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import takewhile

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from starlette.responses import JSONResponse
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Receive, Scope, Send

ROUTED_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT")
_PARAMETER = re.compile(r"\{[^}/]+\}")


@dataclass(frozen=True)
class _Template:
    pattern: re.Pattern[str]
    literal: tuple[bool, ...]  # per segment: literal (True) or a parameter; the most literal template wins
    methods: frozenset[str]


@lru_cache(maxsize=8)
def documented_templates(api: FastAPI) -> tuple[_Template, ...]:
    """The documented paths (those the OpenAPI document lists) and their methods, read from the routes: building
    the OpenAPI document itself costs seconds, paid by the first request of every app instance. Reading the
    routes makes FastAPI build every included route's context (~220 ms), as its first routed request would:
    once per process, at start-up (`marketplace/warm_up.py`), after every router is included."""
    documented: dict[str, set[str]] = {}
    for route in iter_route_contexts(api.routes):  # as `api.openapi()` walks them, included routers too
        if isinstance(route.original_route, APIRoute) and route.include_in_schema and route.path_format:
            methods = route.methods or set()
            documented.setdefault(route.path_format, set()).update(m for m in methods if m in ROUTED_METHODS)
    templates = []
    for path, operations in documented.items():
        pattern = re.compile("[^/]+".join(re.escape(piece) for piece in _PARAMETER.split(path)))
        literal = tuple(_PARAMETER.search(segment) is None for segment in path.split("/"))
        templates.append(_Template(pattern, literal, frozenset(operations)))
    return tuple(templates)


def _method_not_allowed(allowed: list[str]) -> JSONResponse:
    return JSONResponse({"message": "Method not allowed"}, status_code=405, headers={"Allow": ", ".join(allowed)})


class MethodGuard:
    """405 for a method a documented path does not have, before any route runs; a path the OpenAPI document does
    not list goes on to the routes (and, unmatched, to `Unrouted`)."""

    def __init__(self, app: ASGIApp, api: FastAPI) -> None:
        self.app = app
        self.api = api
        # Every /api request asks: remembered per path (bounded), rather than matching each template each time.
        self.documented = lru_cache(maxsize=4096)(self._documented)

    def _documented(self, path: str) -> tuple[str, ...] | None:
        """The documented methods of `path`, from the most literal templates it matches; None when none does."""
        best: tuple[bool, ...] | None = None
        methods: set[str] = set()
        for template in documented_templates(self.api):  # every router is included by the first request
            if template.pattern.fullmatch(path):
                if best is None or template.literal > best:
                    best, methods = template.literal, set(template.methods)
                elif template.literal == best:
                    methods |= template.methods
        return None if best is None else tuple(sorted(methods))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            allowed = self.documented(scope["path"])
            if allowed is not None and scope["method"] not in allowed:
                await _method_not_allowed(list(allowed))(scope, receive, send)
                return
        await self.app(scope, receive, send)


class Unrouted:
    """The last `/api` route: what no other route took, whatever its method. 405 with `Allow` when another route
    has the path (the undocumented ones: the docs, the local storage target), else a JSON 404.

    An ASGI app rather than a function, so that Starlette routes every method to it (a function route takes GET
    only)."""

    def __init__(self, api: FastAPI) -> None:
        self.api = api

    def allowed(self, scope: Scope) -> list[str]:
        """The methods of the routes before this one (after it come only Reflex's pages, which take any)."""
        routes = list(takewhile(lambda route: not (isinstance(route, Route) and route.app is self),
                                self.api.router.routes))
        return [method for method in ROUTED_METHODS
                if any(route.matches({**scope, "method": method})[0] is Match.FULL for route in routes)]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        allowed = self.allowed(scope)
        answer = (_method_not_allowed(allowed) if allowed
                  else JSONResponse({"message": f"No API route {scope['path']}"}, status_code=404))
        await answer(scope, receive, send)


def route_every_method(api: FastAPI) -> None:
    """Add the guard and the last route to `api` (after its routers are included)."""
    api.router.routes.append(Route("/api/{path:path}", Unrouted(api)))
    api.add_middleware(MethodGuard, api=api)
