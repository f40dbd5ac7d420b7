"""HTTP hardening on the real built app (Reflex's single-port server serves the pages and the static build):
security headers on pages too, pages served without a trailing-slash redirect, writes need the page's Origin,
and the pages run under the Content-Security-Policy without a violation."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import open_page
from tests.e2e.helpers import sign_up

pytestmark = pytest.mark.e2e


def test_pages_and_api_carry_the_security_headers(app_server: str) -> None:
    for path in ("/", "/agents/", "/login", "/api/stats", "/api/nope"):
        response = httpx.get(f"{app_server}{path}", follow_redirects=True)
        assert response.status_code in (200, 404), path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"], path
        assert response.headers["x-content-type-options"] == "nosniff", path
        assert response.headers["referrer-policy"] == "strict-origin-when-cross-origin", path
    assert httpx.get(f"{app_server}/api/stats").headers["cache-control"] == "no-store"


def test_every_method_on_the_api_gets_a_json_answer_not_a_page(app_server: str) -> None:
    """Reflex mounts its pages after the API's routes: an `/api` method or path no route has is still the API's
    JSON 405 (with `Allow`) or 404, never the pages' answer."""
    for method in ("TRACE", "OPTIONS", "HEAD", "PUT"):
        wrong_method = httpx.request(method, f"{app_server}/api/stats", headers={"Origin": app_server})
        assert (wrong_method.status_code, wrong_method.headers["allow"]) == (405, "GET"), method
        assert wrong_method.headers["content-type"] == "application/json", method
        nowhere = httpx.request(method, f"{app_server}/api/nope", headers={"Origin": app_server})
        assert nowhere.status_code == 404, method
        assert nowhere.headers["content-type"] == "application/json", method


def test_pages_answer_at_their_address_without_a_redirect(app_server: str) -> None:
    """Starlette's static files would send `/agents` to `/agents/` (a round trip, and a Location built from the
    Host header): the page is served where it was asked for, its HTML revalidated on every visit."""
    for path in ("/agents", "/agents?category=marketing&page=2", "/categories", "/login", "/dashboard"):
        response = httpx.get(f"{app_server}{path}", headers={"Host": "evil.example"}, follow_redirects=False)
        assert response.status_code == 200, path
        assert response.headers["content-type"].startswith("text/html"), path
        assert response.headers["cache-control"] == "no-cache", path


def test_a_write_without_the_page_origin_is_refused(app_server: str) -> None:
    answer = httpx.post(f"{app_server}/api/login", json={"username": "admin", "password": "admin123"})
    assert answer.status_code == 403
    allowed = httpx.post(f"{app_server}/api/login", json={"username": "admin", "password": "admin123"},
                         headers={"Origin": app_server})
    assert allowed.status_code == 200


def test_hashed_build_assets_are_immutable(page: Page, app_server: str) -> None:
    open_page(page, "/")
    script = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)"
                           ".find(n => n.includes('/assets/'))")
    assert script, "no build asset on the home page"
    assert httpx.get(script).headers["cache-control"] == "public, max-age=31536000, immutable"


def test_pages_run_under_the_policy_without_violations(page: Page) -> None:
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    page.add_init_script("document.addEventListener('securitypolicyviolation',"
                         " e => console.error('Content Security Policy: ' + e.violatedDirective + ' ' + e.blockedURI))")
    sign_up(page, "csp")
    agent_id = page.request.get("/api/agents", params={"limit": 1}).json()[0]["id"]
    for path in ("/", "/agents", f"/agents/{agent_id}", "/categories", "/dashboard", "/vendor/apply"):
        open_page(page, path)
    assert violations == []
