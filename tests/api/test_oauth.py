"""Google and GitHub sign-in, driven end to end against oidc-provider-mock on loopback.

Google is the mock's OpenID Connect side as it is (discovery, PKCE, nonce, signed ID token, userinfo). For
GitHub the mock plays the authorize and token endpoints, and a tiny fake of GitHub's REST API (`/user`,
`/user/emails`) answers with data the test stores as custom claims on the mock's user, and only for a bearer
token that the mock itself accepts at its userinfo endpoint.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import flask
import httpx
import oidc_provider_mock
import pyotp
import pytest
import werkzeug.serving
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from marketplace.api.app import create_api
from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import OAuthAccount, User
from tests.conftest import BASE_URL

GOOGLE_NOT_CONFIGURED = "/login?error=not_configured&provider=google"
GOOGLE_FAILED = "/login?error=failed&provider=google"
GOOGLE_CANCELLED = "/login?error=cancelled&provider=google"
GOOGLE_UNVERIFIED = "/login?error=no_verified_email&provider=google"
GITHUB_NOT_CONFIGURED = "/login?error=not_configured&provider=github"
GITHUB_FAILED = "/login?error=failed&provider=github"
GITHUB_UNVERIFIED = "/login?error=no_verified_email&provider=github"


@dataclass(frozen=True)
class Servers:
    provider: str  # base URL of oidc-provider-mock
    github_api: str  # base URL of the fake GitHub REST API


@contextmanager
def _serve(app: Any) -> Iterator[str]:
    """Serve a WSGI app on a free loopback port for the duration of the block."""
    server = werkzeug.serving.make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _fake_github_api(provider: str) -> flask.Flask:
    """GitHub's `/user` and `/user/emails`, answering from the claims of whoever the bearer token belongs to."""
    app = flask.Flask("fake_github_api")

    def claims() -> dict[str, Any]:
        answer = httpx.get(
            f"{provider}/userinfo", headers={"Authorization": flask.request.headers.get("Authorization", "")}
        )
        if answer.status_code != 200:
            flask.abort(401)
        return answer.json()

    @app.get("/user")
    def user() -> flask.Response:
        return flask.jsonify(claims()["github_user"])

    @app.get("/user/emails")
    def emails() -> flask.Response:
        return flask.jsonify(claims()["github_emails"])

    return app


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    with _serve(oidc_provider_mock.app()) as provider, _serve(_fake_github_api(provider)) as github_api:
        yield Servers(provider=provider, github_api=github_api)


@pytest.fixture
def google(servers: Servers, monkeypatch: pytest.MonkeyPatch) -> Servers:
    monkeypatch.setattr(settings, "google_client_id", "marketplace-google")
    monkeypatch.setattr(settings, "google_client_secret", "google-secret")
    monkeypatch.setattr(settings, "google_metadata_url", f"{servers.provider}/.well-known/openid-configuration")
    return servers


@pytest.fixture
def github(servers: Servers, monkeypatch: pytest.MonkeyPatch) -> Servers:
    monkeypatch.setattr(settings, "github_client_id", "marketplace-github")
    monkeypatch.setattr(settings, "github_client_secret", "github-secret")
    monkeypatch.setattr(settings, "github_authorize_url", f"{servers.provider}/oauth2/authorize")
    monkeypatch.setattr(settings, "github_token_url", f"{servers.provider}/oauth2/token")
    monkeypatch.setattr(settings, "github_api_base", servers.github_api)
    return servers


def _subject() -> str:
    return f"sub-{uuid.uuid4().hex[:12]}"


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def start(client: TestClient, provider: str) -> str:
    """Hit the app's start route; return the provider authorize URL it redirected to."""
    response = client.get(f"/api/auth/{provider}", follow_redirects=False)
    assert response.status_code == 302, response.text
    return response.headers["location"]


def authorize_at_provider(
    authorize_url: str, sub: str, claims: dict[str, Any] | None = None, *, deny: bool = False
) -> str:
    """Act as the user on the mock's consent form; return the callback URL it redirects back to."""
    parts = urlsplit(authorize_url)
    if claims is not None:
        httpx.put(f"{parts.scheme}://{parts.netloc}/users/{quote(sub)}", json=claims).raise_for_status()
    answer = httpx.post(authorize_url, data={"action": "deny"} if deny else {"sub": sub})
    assert answer.status_code == 302, answer.text
    return answer.headers["location"]


def finish(client: TestClient, callback_url: str, **override: str) -> httpx.Response:
    """Follow the provider's redirect back into the app (optionally with tampered query parameters)."""
    parts = urlsplit(callback_url)
    assert f"{parts.scheme}://{parts.netloc}" == settings.public_url
    query = {k: v[0] for k, v in parse_qs(parts.query).items()} | override
    return client.get(f"{parts.path}?{urlencode(query)}", follow_redirects=False)


def sign_in(client: TestClient, provider: str, sub: str, claims: dict[str, Any]) -> httpx.Response:
    return finish(client, authorize_at_provider(start(client, provider), sub, claims))


def google_claims(email: str, *, verified: bool = True, **extra: Any) -> dict[str, Any]:
    return {"email": email, "email_verified": verified, **extra}


def github_claims(user_id: int, login: str, emails: list[dict[str, Any]], **profile: Any) -> dict[str, Any]:
    return {"github_user": {"id": user_id, "login": login, **profile}, "github_emails": emails}


def assert_signed_in(response: httpx.Response, client: TestClient) -> dict[str, Any]:
    assert response.status_code == 302, response.text
    assert response.headers["location"] == "/"
    cookie = next(h for h in response.headers.get_list("set-cookie") if h.startswith("mp_session="))
    assert "HttpOnly" in cookie
    assert "samesite=lax" in cookie.lower()
    me = client.get("/api/user")
    assert me.status_code == 200, me.text
    return me.json()


def assert_refused(response: httpx.Response, client: TestClient, location: str) -> None:
    assert response.status_code == 302, response.text
    assert response.headers["location"] == location
    assert not any(h.startswith("mp_session=") for h in response.headers.get_list("set-cookie"))
    assert client.get("/api/user").status_code == 401


def count(model: type, *where: Any) -> int:
    with session_scope() as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


# Google


def test_google_start_redirects_to_provider_with_callback_from_public_url(client, google):
    url = urlsplit(start(client, "google"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{google.provider}/oauth2/authorize"
    query = parse_qs(url.query)
    assert query["client_id"] == ["marketplace-google"]
    assert query["redirect_uri"] == ["http://localhost:3000/api/auth/google/callback"]
    assert set(query["scope"][0].split()) == {"openid", "email", "profile"}
    assert query["response_type"] == ["code"]
    assert query["state"][0] and query["nonce"][0]
    assert query["code_challenge_method"] == ["S256"]


def test_google_sign_in_creates_user_and_session(client, google):
    sub = _subject()
    claims = google_claims(
        "Grace@Example.com", given_name="Grace", family_name="Hopper", picture="https://images.example/grace.png"
    )
    me = assert_signed_in(sign_in(client, "google", sub, claims), client)
    assert me["email"] == "grace@example.com"
    assert me["username"] == "grace"
    assert (me["firstName"], me["lastName"]) == ("Grace", "Hopper")
    assert me["profileImageUrl"] == "https://images.example/grace.png"
    assert me["role"] == "user"
    assert count(OAuthAccount, OAuthAccount.provider == "google", OAuthAccount.subject == sub) == 1


def test_second_google_sign_in_reuses_the_same_user(client, google):
    sub = _subject()
    first = assert_signed_in(sign_in(client, "google", sub, google_claims("repeat@example.com")), client)
    assert client.post("/api/logout").status_code == 204
    assert client.get("/api/user").status_code == 401
    # The link is by subject: a changed e-mail at the provider still finds the same account.
    second = assert_signed_in(sign_in(client, "google", sub, google_claims("renamed@example.com")), client)
    assert second["id"] == first["id"]
    assert count(User) == 1
    assert count(OAuthAccount) == 1


def test_google_links_existing_password_user_by_verified_email(client, google, make_user, login):
    dana = make_user("dana", email="dana@example.com")
    me = assert_signed_in(sign_in(client, "google", _subject(), google_claims("DANA@example.com")), client)
    assert (me["id"], me["username"]) == (dana.id, "dana")
    assert count(User) == 1
    assert count(OAuthAccount, OAuthAccount.user_id == dana.id) == 1
    client.post("/api/logout")
    login(dana)  # the password still works after linking


def test_google_does_not_link_an_account_whose_email_is_not_confirmed(client, google, make_user, mailbox):
    """Someone registered the victim's address first: the victim's Google sign-in must not land in that account."""
    squatter = make_user("squatter", email="victim@example.com", verified=False)
    response = sign_in(client, "google", _subject(), google_claims("victim@example.com"))
    assert_refused(response, client, "/login?error=unverified_account&provider=google")
    assert count(OAuthAccount) == 0 and count(User) == 1
    with session_scope() as session:
        assert session.get(User, squatter.id).email_verified_at is None


def test_provider_sign_in_replaces_this_browsers_earlier_session(client, google, make_user, login):
    login(make_user("earlier"))
    earlier = client.cookies.get("mp_session")
    assert_signed_in(sign_in(client, "google", _subject(), google_claims("someone.else@example.com")), client)
    with TestClient(create_api(), base_url=BASE_URL, cookies={"mp_session": earlier}) as stale:
        assert stale.get("/api/user").status_code == 401


def test_a_new_provider_account_starts_with_its_email_confirmed(client, google):
    me = assert_signed_in(sign_in(client, "google", _subject(), google_claims("newbie@example.com")), client)
    assert me["emailVerified"] is True


def test_google_does_not_link_an_account_with_two_factor_authentication(client, google, make_user):
    """Linking by e-mail would let the provider stand in for the account's own second factor."""
    fay = make_user("fay", email="fay@example.com")
    subject = _subject()
    with session_scope() as session:
        row = session.get(User, fay.id)
        row.totp_secret, row.totp_enabled = pyotp.random_base32(), True
    response = sign_in(client, "google", subject, google_claims("fay@example.com"))
    assert_refused(response, client, "/login?error=two_factor_account&provider=google")
    assert count(OAuthAccount) == 0 and count(User) == 1


def test_google_unverified_email_is_refused_and_not_linked(client, google, make_user):
    make_user("erin", email="erin@example.com")
    response = sign_in(client, "google", _subject(), google_claims("erin@example.com", verified=False))
    assert_refused(response, client, GOOGLE_UNVERIFIED)
    assert count(User) == 1
    assert count(OAuthAccount) == 0


def test_google_not_configured_redirects_with_message(client, google, monkeypatch):
    monkeypatch.setattr(settings, "google_client_secret", "")
    assert start(client, "google") == GOOGLE_NOT_CONFIGURED
    response = client.get("/api/auth/google/callback?code=x&state=y", follow_redirects=False)
    assert_refused(response, client, GOOGLE_NOT_CONFIGURED)


def test_google_tampered_state_is_refused(client, google):
    callback = authorize_at_provider(start(client, "google"), _subject(), google_claims("state@example.com"))
    assert_refused(finish(client, callback, state="forged-state"), client, GOOGLE_FAILED)
    assert count(User) == 0


def test_google_callback_from_another_browser_is_refused(client, google):
    callback = authorize_at_provider(start(client, "google"), _subject(), google_claims("csrf@example.com"))
    client.cookies.clear()  # the victim's browser never started this sign-in: no state in its session
    assert_refused(finish(client, callback), client, GOOGLE_FAILED)
    assert count(User) == 0


def test_google_failed_code_exchange_is_refused(client, google):
    callback = authorize_at_provider(start(client, "google"), _subject(), google_claims("code@example.com"))
    assert_refused(finish(client, callback, code="not-a-real-code"), client, GOOGLE_FAILED)
    assert count(User) == 0


def test_google_denied_consent_is_reported(client, google):
    callback = authorize_at_provider(start(client, "google"), _subject(), deny=True)
    assert parse_qs(urlsplit(callback).query)["error"] == ["access_denied"]
    assert_refused(finish(client, callback), client, GOOGLE_CANCELLED)


def test_google_unreachable_provider_redirects_with_message(client, google, monkeypatch):
    monkeypatch.setattr(settings, "google_metadata_url", f"{_closed_port_url()}/.well-known/openid-configuration")
    assert start(client, "google") == GOOGLE_FAILED


# GitHub


def test_github_start_redirects_to_authorize_url(client, github):
    url = urlsplit(start(client, "github"))
    assert f"{url.scheme}://{url.netloc}{url.path}" == settings.github_authorize_url
    query = parse_qs(url.query)
    assert query["client_id"] == ["marketplace-github"]
    assert query["redirect_uri"] == ["http://localhost:3000/api/auth/github/callback"]
    assert query["scope"] == ["read:user user:email"]
    assert query["state"][0]


def test_github_sign_in_creates_user_then_reuses_it(client, github):
    sub = _subject()
    claims = github_claims(
        583231,
        "octo-cat",
        [
            {"email": "backup@example.com", "primary": False, "verified": True},
            {"email": "mona@example.com", "primary": True, "verified": True},
        ],
        name="Mona Lisa Octocat",
        avatar_url="https://avatars.example/u/583231",
    )
    me = assert_signed_in(sign_in(client, "github", sub, claims), client)
    assert (me["username"], me["email"]) == ("octo-cat", "mona@example.com")
    assert (me["firstName"], me["lastName"]) == ("Mona", "Lisa Octocat")
    assert me["profileImageUrl"] == "https://avatars.example/u/583231"
    # The GitHub account id (not the provider-side session subject) identifies the account.
    assert count(OAuthAccount, OAuthAccount.provider == "github", OAuthAccount.subject == "583231") == 1

    client.post("/api/logout")
    again = assert_signed_in(sign_in(client, "github", sub, claims), client)
    assert again["id"] == me["id"]
    assert count(User) == 1


def test_github_links_existing_password_user_by_primary_verified_email(client, github, make_user):
    frank = make_user("frank", email="frank@example.com")
    claims = github_claims(77, "frankie", [{"email": "frank@example.com", "primary": True, "verified": True}])
    me = assert_signed_in(sign_in(client, "github", _subject(), claims), client)
    assert (me["id"], me["username"]) == (frank.id, "frank")
    assert count(User) == 1


def test_github_unverified_primary_email_is_refused(client, github, make_user):
    make_user("gina", email="gina@example.com")
    claims = github_claims(
        88,
        "gina",
        [
            {"email": "gina@example.com", "primary": True, "verified": False},
            {"email": "other@example.com", "primary": False, "verified": True},
        ],
    )
    assert_refused(sign_in(client, "github", _subject(), claims), client, GITHUB_UNVERIFIED)
    assert count(User) == 1
    assert count(OAuthAccount) == 0


def test_github_not_configured_redirects_with_message(client, github, monkeypatch):
    monkeypatch.setattr(settings, "github_client_id", "")
    assert start(client, "github") == GITHUB_NOT_CONFIGURED
    response = client.get("/api/auth/github/callback?code=x&state=y", follow_redirects=False)
    assert_refused(response, client, GITHUB_NOT_CONFIGURED)


def test_github_tampered_state_is_refused(client, github):
    claims = github_claims(99, "tamper", [{"email": "t@example.com", "primary": True, "verified": True}])
    callback = authorize_at_provider(start(client, "github"), _subject(), claims)
    assert_refused(finish(client, callback, state="forged-state"), client, GITHUB_FAILED)


def test_github_failed_code_exchange_is_refused(client, github):
    claims = github_claims(100, "badcode", [{"email": "b@example.com", "primary": True, "verified": True}])
    callback = authorize_at_provider(start(client, "github"), _subject(), claims)
    assert_refused(finish(client, callback, code="not-a-real-code"), client, GITHUB_FAILED)


def test_github_api_failure_is_refused(client, github, monkeypatch):
    monkeypatch.setattr(settings, "github_api_base", _closed_port_url())
    claims = github_claims(101, "noapi", [{"email": "n@example.com", "primary": True, "verified": True}])
    assert_refused(sign_in(client, "github", _subject(), claims), client, GITHUB_FAILED)
    assert count(User) == 0


def test_unknown_provider_is_a_json_404(client):
    response = client.get("/api/auth/facebook")
    assert response.status_code == 404
    assert "message" in response.json()


# Back to where the buyer was (issue 34): `/api/auth/{provider}?next=` returns there after the provider, and
# accepts only this site's own pages.


@pytest.mark.parametrize(("given", "lands"), [
    ("/checkout/abc123", "/checkout/abc123"),
    ("https://evil.example/phish", "/"),
    ("//evil.example/phish", "/"),
    ("/api/logout", "/"),
])
def test_provider_sign_in_returns_to_the_next_page_of_this_site_only(client, google, given, lands):
    authorize = client.get("/api/auth/google", params={"next": given}, follow_redirects=False)
    assert authorize.status_code == 302, authorize.text
    response = finish(client, authorize_at_provider(authorize.headers["location"], _subject(),
                                                    google_claims(f"{uuid.uuid4().hex[:8]}@example.com")))
    assert (response.status_code, response.headers["location"]) == (302, lands)
    assert client.get("/api/user").status_code == 200
