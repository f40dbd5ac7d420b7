"""Request helpers shared by the routers: the signed-in user, the client address, the session cookie."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request, Response

from marketplace.config import settings
from marketplace.models import User
from marketplace.services import auth
from marketplace.services import client_address as addresses
from marketplace.services.auth import SESSION_COOKIE
from marketplace.services.permissions import require_user


def optional_user(request: Request) -> User | None:
    return auth.user_for_token(request.cookies.get(SESSION_COOKIE))


def signed_in_user(request: Request) -> User:
    return require_user(optional_user(request))


OptionalUser = Annotated[User | None, Depends(optional_user)]
SignedInUser = Annotated[User, Depends(signed_in_user)]


def client_address(request: Request) -> str:
    """What per-address limits count: the peer, or the client a trusted proxy forwarded (`TRUSTED_PROXIES`)."""
    return addresses.client_address(peer=request.client.host if request.client else None,
                                    forwarded_for=",".join(request.headers.getlist("x-forwarded-for")))


def set_session_cookie(response: Response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


def clear_session_cookie(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=settings.secure_cookies)
