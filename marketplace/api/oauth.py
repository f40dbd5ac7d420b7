"""Google and GitHub sign-in: start the provider redirect, and finish it on the callback.

Every failure (not configured, cancelled, tampered state, failed exchange, unverified e-mail) sends the browser
back to /login with a code saying why (`?error=<code>&provider=<provider>`), because these routes are browser
navigations, not JSON calls. The page has the texts (services/sign_in_errors.py): an address carries no words.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse
from starlette.concurrency import run_in_threadpool

from marketplace.api.deps import SESSION_COOKIE, set_session_cookie
from marketplace.config import settings
from marketplace.integrations import oauth
from marketplace.services import auth, return_paths, users
from marketplace.services.errors import DomainError

router = APIRouter(prefix="/api/auth", tags=["accounts"])


# Browser navigations: the answer is always a redirect (to the provider, home or the `?next=` page the start was
# given, or /login with a message).
_REDIRECT: dict[int | str, dict[str, Any]] = {
    302: {"description": "Redirect; failures go to /login?error=<code>&provider=<provider>"}}


def _callback_url(provider: str) -> str:
    return f"{settings.public_url.rstrip('/')}/api/auth/{provider}/callback"


def _back_to_login(code: str | None, provider: str) -> RedirectResponse:
    query = urlencode({"error": code or oauth.FAILED, "provider": provider}, quote_via=quote)
    return RedirectResponse(f"/login?{query}", status_code=302)


NEXT_KEY = "next"  # the page to come back to, kept in the short-lived sign-in cookie across the provider


async def _start(request: Request, provider: str) -> RedirectResponse:
    request.session[NEXT_KEY] = return_paths.safe_next(request.query_params.get("next"))
    try:
        return await oauth.authorize_redirect(request, provider, redirect_uri=_callback_url(provider))
    except oauth.ProviderError as exc:
        return _back_to_login(exc.code, provider)


async def _finish(request: Request, provider: str) -> RedirectResponse:
    try:
        identity = await oauth.fetch_identity(request, provider)
        # The services are synchronous (database I/O): keep them off the event loop.
        user = await run_in_threadpool(lambda: users.sign_in_with_provider(**identity.as_kwargs()))
        await run_in_threadpool(lambda: auth.end_session(token=request.cookies.get(SESSION_COOKIE)))
        token = await run_in_threadpool(lambda: auth.create_session(user=user))
    except oauth.ProviderError as exc:
        return _back_to_login(exc.code, provider)
    except DomainError as exc:
        return _back_to_login(exc.code, provider)
    response = RedirectResponse(return_paths.safe_next(request.session.pop(NEXT_KEY, None)), status_code=302)
    set_session_cookie(response, token)
    return response


@router.get("/google", status_code=302, response_class=RedirectResponse, responses=_REDIRECT)
async def google_start(request: Request) -> RedirectResponse:
    return await _start(request, "google")


@router.get("/google/callback", status_code=302, response_class=RedirectResponse, responses=_REDIRECT)
async def google_callback(request: Request) -> RedirectResponse:
    return await _finish(request, "google")


@router.get("/github", status_code=302, response_class=RedirectResponse, responses=_REDIRECT)
async def github_start(request: Request) -> RedirectResponse:
    return await _start(request, "github")


@router.get("/github/callback", status_code=302, response_class=RedirectResponse, responses=_REDIRECT)
async def github_callback(request: Request) -> RedirectResponse:
    return await _finish(request, "github")
