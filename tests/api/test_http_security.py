"""HTTP hardening (api/security.py): Origin/Referer on writes, malformed URLs, security headers, redirects."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi import Request
from fastapi.responses import RedirectResponse
from fastapi.testclient import TestClient
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from marketplace.api.app import create_api
from tests import factories
from tests.conftest import BASE_URL


@pytest.fixture
def bare_client() -> TestClient:
    """A client that sends no Origin header (the shared `client` sends one, like a browser)."""
    with TestClient(create_api(), base_url=BASE_URL) as test_client:
        yield test_client


def _sign_in(c: TestClient) -> None:
    user = factories.make_user("origin-user")
    response = c.post("/api/login", json={"username": user.username, "password": factories.PASSWORD},
                      headers={"Origin": BASE_URL})
    assert response.status_code == 200, response.text


def test_a_signed_in_write_without_origin_or_referer_is_refused(bare_client):
    agent = factories.make_agent()
    _sign_in(bare_client)
    response = bare_client.post("/api/favorites", json={"agentId": agent.id})
    assert response.status_code == 403
    assert response.json() == {"message": "Cross-origin request refused"}


@pytest.mark.parametrize("headers", [{"Origin": "https://evil.example"}, {"Origin": "null"},
                                     {"Referer": "https://evil.example/agents"},
                                     {"Origin": "https://evil.example", "Referer": f"{BASE_URL}/agents"}])
def test_a_write_from_another_origin_is_refused(bare_client, headers):
    agent = factories.make_agent()
    _sign_in(bare_client)
    assert bare_client.post("/api/favorites", json={"agentId": agent.id}, headers=headers).status_code == 403


@pytest.mark.parametrize("headers", [{"Origin": BASE_URL}, {"Origin": "http://127.0.0.1:3000"},
                                     {"Referer": f"{BASE_URL}/agents/x?y=1"}])
def test_a_write_with_an_allowed_origin_or_referer_passes(bare_client, headers):
    agent = factories.make_agent()
    _sign_in(bare_client)
    assert bare_client.post("/api/favorites", json={"agentId": agent.id}, headers=headers).status_code == 200


def test_the_webhook_and_signed_local_upload_targets_need_no_origin(bare_client):
    # Refused for their own reasons (signature), never by the Origin check.
    webhook = bare_client.post("/api/stripe/webhook", content=b"{}")
    assert webhook.status_code != 403 or "Cross-origin" not in webhook.text
    put = bare_client.put("/api/uploads/local/some/key?expires=1&signature=x", content=b"data")
    assert "Cross-origin" not in put.text
    post = bare_client.post("/api/uploads/local", content=b"x", headers={"content-type": "multipart/form-data"})
    assert "Cross-origin" not in post.text
    assert bare_client.post("/api/uploads/localhost", content=b"x").status_code == 403  # only the real targets


@pytest.mark.parametrize("url", ["/api/agents?search=a%00b", "/api/agents?search=%ED%A0%80", "/api/agents/%00",
                                 "/api/agents?se%01arch=x", "/api/categories/x%1by", "/api/agents?search=%FF",
                                 "/agents/%00"])
def test_control_characters_or_invalid_utf8_in_the_url_are_refused(client, url):
    response = client.get(url)
    assert response.status_code == 422
    assert response.json()["message"] == "The address contains characters that are not allowed"


def test_ordinary_non_ascii_query_text_is_accepted(client):
    assert client.get("/api/agents?search=caf%C3%A9+%E2%82%AC").status_code == 200


def test_security_headers_on_every_answer(client):
    for response in (client.get("/api/stats"), client.get("/api/nope"), client.post("/api/login", json={})):
        csp = response.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp
        assert "default-src 'self'" in csp
        assert "https://js.stripe.com" in csp.split("script-src", 1)[1].split(";")[0]
        assert "https://js.stripe.com" in csp.split("frame-src", 1)[1].split(";")[0]
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin"
        assert response.headers["x-frame-options"] == "DENY"


def test_private_json_is_not_stored(client, login):
    login(factories.make_user("cache-user"))
    for path in ("/api/user/orders", "/api/user", "/api/favorites", "/api/user/purchases"):
        assert client.get(path).headers["cache-control"] == "no-store", path


def _frontend_client(tmp_path: Path) -> TestClient:
    """The API with a static frontend mounted as Reflex's single-port server mounts its build, and a route that
    redirects the way Starlette does (from the request's Host header)."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "index.html").write_text("<p>agents</p>")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app-AbCd1234.js").write_text("1")
    api = create_api()

    @api.get("/api/moved")
    def _moved(request: Request) -> RedirectResponse:
        return RedirectResponse(str(request.url.replace(path="/agents")))

    api.router.routes.insert(0, api.router.routes.pop())  # before the catch-all of unknown /api paths

    # Reflex mounts a Starlette app whose last route is the build's static files (`get_frontend_mount`).
    api.mount("", Starlette(routes=[Mount("/", StaticFiles(directory=tmp_path, html=True))]))
    return TestClient(api, base_url=BASE_URL)


def test_redirects_are_built_from_public_url_never_from_the_host_header(tmp_path):
    with _frontend_client(tmp_path) as c:
        response = c.get("/api/moved", headers={"Host": "evil.example"}, follow_redirects=False)
        assert response.status_code in (301, 302, 307, 308)
        assert response.headers["location"] == f"{BASE_URL}/agents"
        own = c.get("/api/moved", follow_redirects=False)
        assert own.headers["location"] == f"{BASE_URL}/agents"
        page = c.get("/agents/", headers={"Host": "evil.example"})
        assert page.status_code == 200 and "frame-ancestors 'none'" in page.headers["content-security-policy"]


def test_a_page_folder_is_served_without_a_trailing_slash_redirect(tmp_path):
    """`/agents` is served where it is asked for: no 307 to `/agents/` (a whole round trip per first visit)."""
    with _frontend_client(tmp_path) as c:
        for path in ("/agents", "/agents?category=marketing&page=2"):
            response = c.get(path, follow_redirects=False)
            assert response.status_code == 200, path
            assert response.text == "<p>agents</p>"
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert c.head("/agents", follow_redirects=False).status_code == 200
        assert c.get("/nowhere", follow_redirects=False).status_code == 404
        assert c.post("/agents", follow_redirects=False).status_code == 405


def test_hashed_build_assets_are_immutable_and_pages_are_revalidated(tmp_path):
    with _frontend_client(tmp_path) as c:
        assert c.get("/assets/app-AbCd1234.js").headers["cache-control"] == "public, max-age=31536000, immutable"
        page = c.get("/agents")
        assert page.headers["cache-control"] == "no-cache"
        assert c.get("/agents", headers={"If-None-Match": page.headers["etag"]}).status_code == 304


def test_everything_outside_api_goes_straight_to_the_mounted_pages(tmp_path):
    """Pages, assets and the websocket skip the `/api` routes' matching and the `/api`-only layers (the OAuth
    session cookie) but keep the security headers; `/api` paths still reach the routes (issue 21)."""
    api = create_api()
    seen: list[tuple[str, str, bool]] = []

    async def pages(scope, receive, send):
        seen.append((scope["type"], scope["path"], "session" in scope))
        if scope["type"] == "websocket":
            await receive()
            await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": 1000})
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/html; charset=utf-8")]})
        await send({"type": "http.response.body", "body": b"<p>page</p>"})

    api.mount("", pages)
    with TestClient(api, base_url=BASE_URL) as c:
        page = c.get("/agents/abc", headers={"Cookie": "mp_oauth=x"})
        assert page.text == "<p>page</p>"
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["cache-control"] == "no-cache"
        assert c.get("/assets/app-AbCd1234.js").headers["cache-control"] == "public, max-age=31536000, immutable"
        with c.websocket_connect("/_event/?EIO=4&transport=websocket"):
            pass
        assert c.get("/api/nope").json() == {"message": "No API route /api/nope"}
        assert c.get("/api").status_code == 200  # not an /api/ route: the pages answer
    assert seen == [("http", "/agents/abc", False), ("http", "/assets/app-AbCd1234.js", False),
                    ("websocket", "/_event/", False), ("http", "/api", True)]
    assert all(path.startswith("/api/") for path in api.openapi()["paths"])
