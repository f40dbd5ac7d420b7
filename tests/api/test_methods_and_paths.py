"""Every `/api` answer about the request line itself is JSON and tells the truth (api/routing.py): a method a path
does not have is 405 with exactly the documented methods in `Allow`, a path no route has is 404, whatever the
method, even with Reflex's pages mounted behind the API as `rx.App` mounts them."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from starlette.responses import PlainTextResponse

from marketplace.api.app import create_api
from tests.conftest import BASE_URL

OTHER_METHODS = ("DELETE", "GET", "PATCH", "POST", "PUT", "OPTIONS", "TRACE", "HEAD")


def _documented() -> list[tuple[str, set[str]]]:
    """Each documented path with its parameters filled in, and its methods."""
    paths = create_api().openapi()["paths"]
    return [(re.sub(r"\{[^}]+\}", "x1", path), {m.upper() for m in operations}) for path, operations in paths.items()]


def _pages_behind(api):
    """The API as `rx.App(api_transformer=api)` serves it: Reflex's own app (here a text one) mounted last."""

    async def pages(scope, receive, send):
        await PlainTextResponse("a page", status_code=404)(scope, receive, send)

    api.mount("", pages)
    return api


@pytest.fixture(scope="module")
def site():
    with TestClient(_pages_behind(create_api()), base_url=BASE_URL, headers={"Origin": BASE_URL},
                    follow_redirects=False) as client:
        yield client


def test_a_method_a_documented_path_lacks_is_405_with_its_methods(site):
    wrong = []
    for path, methods in _documented():
        for method in OTHER_METHODS:
            if method in methods:
                continue
            response = site.request(method, path)
            allowed = {m.strip() for m in response.headers.get("allow", "").split(",")}
            body = response.json() if method != "HEAD" else {"message": "Method not allowed"}
            if (response.status_code, allowed, body) != (405, methods, {"message": "Method not allowed"}):
                wrong.append((method, path, response.status_code, response.headers.get("allow")))
    assert wrong == []


def test_a_literal_segment_wins_over_a_parameter(site):
    """`DELETE /api/admin/agents/{agent_id}` must not take `/api/admin/agents/pending` (GET only): 405, not the
    delete route's 401."""
    response = site.delete("/api/admin/agents/pending")
    assert (response.status_code, response.headers["allow"]) == (405, "GET")
    response = site.get("/api/uploads/s3/multipart/abc/complete", params={"key": "uploads/x"})
    assert (response.status_code, response.headers["allow"]) == (405, "POST")


def test_a_path_no_route_has_is_a_json_404_whatever_the_method(site):
    for path in ("/api/nowhere", "/api/agents/x1/nowhere", "/api/agents/%2e%2e/%2e%2e/x", "/api/agents/a%2Fb",
                 "/api/"):
        for method in OTHER_METHODS:
            response = site.request(method, path)
            assert response.status_code == 404, (method, path, response.text)
            assert response.headers["content-type"] == "application/json"
            if method != "HEAD":
                assert response.json()["message"].startswith("No API route /api/")


def test_undocumented_routes_answer_405_with_their_own_methods(site):
    assert (site.post("/api/docs").status_code, site.post("/api/docs").headers["allow"]) == (405, "GET")
    response = site.get("/api/uploads/local/uploads/abc")
    assert (response.status_code, response.headers["allow"], response.json()) == (
        405, "PUT", {"message": "Method not allowed"})


def test_pages_still_answer_outside_the_api(site):
    response = site.get("/vendor/agents/nowhere/edit")
    assert (response.status_code, response.text) == (404, "a page")
    filled = site.get("/agents/nowhere")  # a public page: the pages' answer, with its head and content filled in
    assert filled.status_code == 404 and "<title data-server-title>Agent Not Found | AgentMarket</title>" in filled.text


def test_the_api_sign_in_address_leads_to_the_sign_in_page(site):
    response = site.get("/api/login")
    assert (response.status_code, response.headers["location"]) == (302, "/login")
