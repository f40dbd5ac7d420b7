"""Google and GitHub sign-in (Authlib). Placeholder until the OAuth work lands."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter
from fastapi.responses import RedirectResponse

router = APIRouter(prefix="/api/auth", tags=["accounts"])


@router.get("/{provider}")
def start(provider: str) -> RedirectResponse:
    return RedirectResponse(f"/login?error={quote(f'{provider.title()} sign-in is not configured')}", status_code=302)
