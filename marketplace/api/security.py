"""HTTP hardening around every answer of the app (pages, `/api`, static files): our FastAPI app wraps the whole
Reflex backend (`api_transformer`), so these ASGI middlewares see every HTTP request and response.

- `RequestGuard`: a URL path or query string with control characters or invalid UTF-8 -> 422; an unsafe `/api`
  method needs an allowed `Origin` (or, when a browser sends none, an allowed `Referer`) -> else 403.
- `ResponseHeaders`: the Content-Security-Policy and the other security headers on every answer; `/api` answers
  are `Cache-Control: no-store` (they depend on the session cookie) unless a route chose; hashed build assets are
  immutable, and the pages' HTML (which names those assets) is `no-cache`, revalidated on every visit; a redirect
  that Starlette built from the `Host` header points at PUBLIC_URL instead.
"""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import unquote_to_bytes, urlsplit

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from marketplace.config import settings
from marketplace.services.text import has_forbidden

UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}
# Server-to-server (signed by Stripe) and the local storage backend's targets (authenticated by their signature,
# like S3's presigned URLs, which take no Origin either); the public license API, which a vendor's agent calls
# with the key as its only credential (it never reads a cookie, so another site's page gains nothing by it).
ORIGIN_EXEMPT = {"/api/stripe/webhook", "/api/uploads/local", "/api/licenses/activate", "/api/licenses/validate",
                 "/api/licenses/deactivate"}
ORIGIN_EXEMPT_PREFIX = "/api/uploads/local/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"  # the HTML of a page: served from cache only after a (304) check, so a new build shows at once
STRIPE_SCRIPT = ("https://js.stripe.com", "https://*.js.stripe.com")
STRIPE_FRAMES = ("https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com")
STRIPE_CONNECT = ("https://api.stripe.com",)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def content_security_policy() -> str:
    """Own origin (and the other allowed origins of this deployment), Stripe's script and frames, the local
    Stripe stand-in and the S3 endpoint when configured. Reflex's build needs inline scripts (React Router's
    hydration data) and eval (`rx.call_script`), and its components set inline styles."""
    s3 = settings.storage_backend == "s3"
    return _policy(tuple(settings.allowed_origins), settings.stripe_api_base, s3, settings.s3_endpoint_url)


@lru_cache(maxsize=8)
def _policy(own: tuple[str, ...], stripe_api_base: str, s3: bool, s3_endpoint_url: str) -> str:
    sockets = [o.replace("http", "ws", 1) for o in own]
    standin = [_origin(stripe_api_base)] if stripe_api_base else []
    storage: list[str] = []
    if s3:
        storage = [_origin(s3_endpoint_url)] if s3_endpoint_url else ["https://*.amazonaws.com"]
    directives = {
        "default-src": ["'self'"],
        "script-src": ["'self'", "'unsafe-inline'", "'unsafe-eval'", *own, *STRIPE_SCRIPT, *standin],
        "style-src": ["'self'", "'unsafe-inline'", *own],
        "img-src": ["'self'", "data:", "blob:", "https:", "http:"],
        "font-src": ["'self'", "data:", *own],
        "connect-src": ["'self'", *own, *sockets, *STRIPE_CONNECT, *standin, *storage],
        "frame-src": ["'self'", *STRIPE_FRAMES, *standin],
        "worker-src": ["'self'", "blob:"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
    return "; ".join(f"{name} {' '.join(dict.fromkeys(values))}" for name, values in directives.items())


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": message}, status_code=status)


def _bad_url(scope: Scope) -> bool:
    """A control character or invalid UTF-8 anywhere in the path or in a query-string name or value."""
    raw_path: bytes = scope.get("raw_path") or scope["path"].encode()
    pieces = [raw_path]
    for pair in scope.get("query_string", b"").split(b"&"):
        name, _, value = pair.partition(b"=")
        pieces += [name.replace(b"+", b" "), value.replace(b"+", b" ")]
    try:
        return any(has_forbidden(unquote_to_bytes(piece).decode("utf-8")) for piece in pieces)
    except UnicodeDecodeError:
        return True


def origin_allowed(headers: dict[bytes, bytes]) -> bool:
    """An allowed Origin; or, only when the browser sent no Origin, a Referer on an allowed origin."""
    origin = headers.get(b"origin", b"").decode("latin-1")
    if origin:
        return origin in settings.allowed_origins
    referer = headers.get(b"referer", b"").decode("latin-1")
    return bool(referer) and _origin(referer) in settings.allowed_origins


class RequestGuard:
    """Refuse malformed URLs (422) and cross-site or origin-less writes to `/api` (403) before any route runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            if _bad_url(scope):
                await _refuse(422, "The address contains characters that are not allowed")(scope, receive, send)
                return
            path = scope["path"]
            if (scope["method"] in UNSAFE_METHODS and path.startswith("/api/") and path not in ORIGIN_EXEMPT
                    and not path.startswith(ORIGIN_EXEMPT_PREFIX) and not origin_allowed(dict(scope["headers"]))):
                await _refuse(403, "Cross-origin request refused")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _public_location(location: str, host: str) -> str | None:
    """`location` re-based on PUBLIC_URL when it was built from the request's Host header, else None."""
    parts = urlsplit(location)
    public = urlsplit(settings.public_url)
    if not parts.netloc or parts.netloc.lower() != host.lower() or parts.netloc.lower() == public.netloc.lower():
        return None
    return parts._replace(scheme=public.scheme, netloc=public.netloc).geturl()


class ResponseHeaders:
    """Security headers on every HTTP answer, plus the `/api` cache rule, immutable assets and safe redirects."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        private = path.startswith("/api/") and not path.startswith("/api/docs-assets/")
        asset = path.startswith("/assets/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = content_security_policy()
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
                headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
                status = message["status"]
                if private and "cache-control" not in headers:
                    headers["Cache-Control"] = "no-store"
                elif asset and status == 200:
                    headers["Cache-Control"] = IMMUTABLE
                elif (not private and "cache-control" not in headers
                      and headers.get("content-type", "").startswith("text/html")):
                    headers["Cache-Control"] = REVALIDATE
                if 300 <= status < 400 and "location" in headers:
                    host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
                    rebased = _public_location(headers["location"], host)
                    if rebased:
                        headers["Location"] = rebased
            await send(message)

        await self.app(scope, receive, send_with_headers)
