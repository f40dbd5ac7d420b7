"""Google (OpenID Connect) and GitHub (OAuth 2) sign-in through Authlib's Starlette client.

The router only sees two calls, `authorize_redirect` and `fetch_identity`, and one error type carrying a
code for the /login page (the page has the texts: services/sign_in_errors.py). Clients are built from the
current settings (so tests and deployments can point them elsewhere) and cached per configuration, which also
caches Google's discovery document.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import httpx
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.starlette_client import OAuth, StarletteOAuth2App
from joserfc.errors import JoseError
from starlette.requests import Request
from starlette.responses import RedirectResponse

from marketplace.config import settings

logger = logging.getLogger(__name__)

PROVIDER_NAMES = {"google": "Google", "github": "GitHub"}
GOOGLE_SCOPE = "openid email profile"
GITHUB_SCOPE = "read:user user:email"
HTTP_TIMEOUT_SECONDS = 10.0

try:  # Authlib's HTTP client uses httpx2 when installed, else httpx.
    import httpx2

    _HTTP_ERRORS: tuple[type[Exception], ...] = (httpx.HTTPError, httpx2.HTTPError)
except ImportError:
    _HTTP_ERRORS = (httpx.HTTPError,)

# What a misbehaving provider, network or tampered callback can raise inside Authlib/httpx/joserfc:
# all of it means "this sign-in attempt failed", never a server error.
_PROVIDER_FAILURES = (AuthlibBaseError, JoseError, *_HTTP_ERRORS, ValueError, KeyError, TypeError, RuntimeError)


# Why a sign-in attempt stopped at the provider's end (the codes /login?error= carries).
NOT_CONFIGURED, FAILED, CANCELLED = "not_configured", "failed", "cancelled"


class ProviderError(Exception):
    """A sign-in attempt that cannot continue; `code` (one of the above) says why."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class ProviderIdentity:
    """What a provider told us about the account, in the shape `users.sign_in_with_provider` takes."""

    provider: str
    subject: str
    email: str | None
    email_verified: bool
    first_name: str | None = None
    last_name: str | None = None
    username_hint: str | None = None
    avatar_url: str | None = None

    def as_kwargs(self) -> dict[str, Any]:
        return asdict(self)


def is_configured(provider: str) -> bool:
    if provider == "google":
        return settings.google_configured
    if provider == "github":
        return settings.github_configured
    return False


@lru_cache(maxsize=8)
def _google_client(client_id: str, client_secret: str, metadata_url: str) -> StarletteOAuth2App:
    return OAuth().register(
        "google",
        client_id=client_id,
        client_secret=client_secret,
        server_metadata_url=metadata_url,
        client_kwargs={"scope": GOOGLE_SCOPE, "code_challenge_method": "S256", "timeout": HTTP_TIMEOUT_SECONDS},
    )


@lru_cache(maxsize=8)
def _github_client(
    client_id: str, client_secret: str, authorize_url: str, token_url: str, api_base: str
) -> StarletteOAuth2App:
    return OAuth().register(
        "github",
        client_id=client_id,
        client_secret=client_secret,
        authorize_url=authorize_url,
        access_token_url=token_url,
        api_base_url=api_base.rstrip("/") + "/",
        client_kwargs={
            "scope": GITHUB_SCOPE,
            # GitHub documents the client credentials as form fields of the token request.
            "token_endpoint_auth_method": "client_secret_post",
            "timeout": HTTP_TIMEOUT_SECONDS,
        },
    )


def _client(provider: str) -> StarletteOAuth2App:
    if provider not in PROVIDER_NAMES:
        raise ProviderError(FAILED)
    if not is_configured(provider):
        raise ProviderError(NOT_CONFIGURED)
    if provider == "google":
        return _google_client(settings.google_client_id, settings.google_client_secret, settings.google_metadata_url)
    return _github_client(
        settings.github_client_id,
        settings.github_client_secret,
        settings.github_authorize_url,
        settings.github_token_url,
        settings.github_api_base,
    )


async def authorize_redirect(request: Request, provider: str, *, redirect_uri: str) -> RedirectResponse:
    """Send the browser to the provider; state (and nonce/PKCE verifier) go into `request.session`."""
    client = _client(provider)
    try:
        return await client.authorize_redirect(request, redirect_uri)
    except _PROVIDER_FAILURES as exc:
        logger.warning("%s sign-in could not start: %r", provider, exc)
        raise ProviderError(FAILED) from exc


async def fetch_identity(request: Request, provider: str) -> ProviderIdentity:
    """Check the callback's state, exchange the code and read the account's profile and e-mail."""
    client = _client(provider)
    try:
        token = await client.authorize_access_token(request)
        if provider == "google":
            return await _google_identity(client, token)
        return await _github_identity(client, token)
    except AuthlibBaseError as exc:
        if getattr(exc, "error", None) == "access_denied":
            raise ProviderError(CANCELLED) from exc
        logger.warning("%s sign-in failed: %r", provider, exc)
        raise ProviderError(FAILED) from exc
    except _PROVIDER_FAILURES as exc:
        logger.warning("%s sign-in failed: %r", provider, exc)
        raise ProviderError(FAILED) from exc


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


async def _google_identity(client: StarletteOAuth2App, token: dict[str, Any]) -> ProviderIdentity:
    id_claims = token.get("userinfo")  # the ID token, already verified (signature, issuer, audience, nonce)
    if not id_claims or not id_claims.get("sub"):
        raise ValueError("Google returned no ID token")
    claims = dict(id_claims)
    userinfo = await client.userinfo(token=token)
    if userinfo.get("sub") != id_claims["sub"]:
        raise ValueError("Google userinfo subject does not match the ID token")
    claims.update(userinfo)
    return ProviderIdentity(
        provider="google",
        subject=str(claims["sub"]),
        email=_text(claims.get("email")),
        email_verified=claims.get("email_verified") in (True, "true"),
        first_name=_text(claims.get("given_name")),
        last_name=_text(claims.get("family_name")),
        avatar_url=_text(claims.get("picture")),
    )


async def _github_identity(client: StarletteOAuth2App, token: dict[str, Any]) -> ProviderIdentity:
    headers = {"Accept": "application/vnd.github+json"}
    profile_response = await client.get("user", token=token, headers=headers)
    profile_response.raise_for_status()
    profile = profile_response.json()
    emails_response = await client.get("user/emails", token=token, headers=headers)
    emails_response.raise_for_status()
    primary = next((e for e in emails_response.json() if isinstance(e, dict) and e.get("primary")), None) or {}
    if profile.get("id") in (None, ""):
        raise ValueError("GitHub returned no account id")
    name = _text(profile.get("name")) or ""
    first_name, _, last_name = name.partition(" ")
    return ProviderIdentity(
        provider="github",
        subject=str(profile["id"]),
        email=_text(primary.get("email")),
        email_verified=primary.get("verified") is True,
        first_name=first_name or None,
        last_name=last_name.strip() or None,
        username_hint=_text(profile.get("login")),
        avatar_url=_text(profile.get("avatar_url")),
    )
