"""Text and numbers people send: control characters and lone surrogates are refused with 422 everywhere (request
bodies via ApiInput, and the services the Reflex states call); numbers beyond what a column holds never 500."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from marketplace.api.app import create_api
from marketplace.models import ApiInput
from marketplace.services import auth, reports, reviews, users
from marketplace.services.errors import InvalidParameter
from marketplace.services.vendors import applications
from tests import factories

BAD = ["x\x00y", "x\ud800y", "x\x1by", "x\x7fy", "\x00"]


def _raw(client, method: str, path: str, body: dict) -> object:
    """Send JSON with `\\uXXXX` escapes as a browser's JSON.stringify would (lone surrogates included)."""
    return client.request(method, path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("text", BAD)
def test_review_comments_and_report_reasons_with_bad_characters_are_refused(client, login, text):
    agent = factories.make_agent()
    login(factories.make_buyer(agent, "critic"))
    review = _raw(client, "POST", f"/api/agents/{agent.id}/reviews", {"rating": 5, "comment": text})
    assert review.status_code == 422, review.text
    assert "comment" in review.json()["message"]
    report = _raw(client, "POST", f"/api/agents/{agent.id}/report",
                  {"reportType": "spam", "reason": text, "description": "fine"})
    assert report.status_code == 422, report.text


def test_multi_line_text_keeps_tabs_and_newlines(client, login):
    agent = factories.make_agent()
    login(factories.make_buyer(agent, "poet"))
    response = client.post(f"/api/agents/{agent.id}/reviews", json={"rating": 4, "comment": "line one\n\tline two\r\n"})
    assert response.status_code == 201, response.text
    assert response.json()["comment"] == "line one\n\tline two"


@pytest.mark.parametrize(("field", "value"), [("username", "bad\x00name"), ("email", "a\x00@example.com"),
                                              ("password", "secret\ud800pw"), ("username", "bob\ud800")])
def test_registration_refuses_bad_characters(client, field, value):
    body = {"username": "newperson", "email": "new@example.com", "password": "secret123", field: value}
    response = _raw(client, "POST", "/api/register", body)
    assert response.status_code == 422, response.text


@pytest.mark.parametrize("body", [{"username": "x\x00", "password": "p"}, {"username": "x", "password": "p\ud800"}])
def test_sign_in_refuses_bad_characters(client, body):
    assert _raw(client, "POST", "/api/login", body).status_code == 422


def test_profile_names_and_email_refuse_bad_characters(client, login):
    login(factories.make_user("profiled"))
    for body in ({"firstName": "A\x00", "lastName": "B", "email": "p@example.com"},
                 {"firstName": "A", "lastName": "B\ud800", "email": "p@example.com"},
                 {"firstName": "A", "lastName": "B", "email": "p\x01@example.com"}):
        assert _raw(client, "PUT", "/api/user/profile", body).status_code == 422, body


def test_vendor_application_and_agent_draft_refuse_bad_characters(client, login):
    login(factories.make_user("applicant"))
    assert _raw(client, "POST", "/api/vendor/apply", {"businessName": "Shop\x00"}).status_code == 422
    assert _raw(client, "POST", "/api/vendor/apply", {"businessName": "Shop",
                                                       "businessDescription": "x\ud800"}).status_code == 422
    client.cookies.clear()
    category = factories.make_category()
    login(factories.make_vendor("drafter"))
    draft = {"name": "Agent", "shortDescription": "Short", "description": "Long", "price": "1",
             "categoryId": category.id, "tags": ["ok", "b\x00d"]}
    assert _raw(client, "POST", "/api/vendor/agents", draft).status_code == 422


@pytest.mark.parametrize("category_id", [2**70, 2**63, 2**40, "99999999999999999999", -1])
def test_out_of_range_numbers_in_a_body_never_500(client, login, category_id):
    factories.make_category()
    login(factories.make_vendor("numbers"))
    draft = {"name": "Agent", "shortDescription": "Short", "description": "Long", "price": "1",
             "categoryId": category_id}
    response = client.post("/api/vendor/agents", json=draft)
    assert 400 <= response.status_code < 500, response.text
    parts = client.post("/api/uploads/s3/multipart/x/complete?key=k", json={"parts": [{"PartNumber": 2**70,
                                                                                        "ETag": "e"}]})
    assert parts.status_code == 422


def _subclasses(cls: type) -> list[type]:
    return [cls, *(sub for child in cls.__subclasses__() for sub in _subclasses(child))]


def _body_schema_names(api) -> set[str]:
    """Every JSON request body's schema name in the app's own OpenAPI (so new routes are included)."""
    names = set()
    for methods in api.openapi()["paths"].values():
        for operation in methods.values():
            content = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
            text = json.dumps(content.get("schema", {}))
            names.update(part.split('"')[0] for part in text.split("#/components/schemas/")[1:])
    return names


def test_every_request_body_is_an_api_input():
    """A new route's body must use ApiInput (the text and number check), not ApiModel."""
    names = _body_schema_names(create_api())
    models = {m.__name__: m for m in _subclasses(BaseModel) if m.__module__.startswith("marketplace.")}
    assert len(names) >= 15
    assert sorted(n for n in names if not issubclass(models[n], ApiInput)) == []


# ---- the services the Reflex states call directly ---------------------------------------------------------


@pytest.mark.parametrize("text", BAD)
def test_services_refuse_bad_characters(text):
    agent = factories.make_agent()
    user = factories.make_buyer(agent, "stateuser")
    with pytest.raises(InvalidParameter):
        reviews.submit_review(actor=user, agent_id=agent.id, rating=5, comment=text)
    with pytest.raises(InvalidParameter):
        reports.report_agent(actor=user, agent_id=agent.id, report_type="spam", reason=text)
    with pytest.raises(InvalidParameter):
        reports.report_agent(actor=user, agent_id=agent.id, report_type="spam", reason="ok", description=text)
    with pytest.raises(InvalidParameter):
        users.update_profile(actor=user, first_name=text, last_name="B", email="b@example.com")
    with pytest.raises(InvalidParameter):
        users.update_profile(actor=user, first_name="A", last_name="B", email=f"b{text}@example.com")
    with pytest.raises(InvalidParameter):
        applications.apply(actor=user, business_name=f"Shop {text}")
    with pytest.raises(InvalidParameter):
        applications.apply(actor=user, business_name="Shop", business_description=text)
    with pytest.raises(InvalidParameter):
        auth.register(username=f"name{text}", email="n@example.com", password="secret123")
    assert "username" in auth.registration_errors(username=f"u{text}", email="u@example.com", password="secret123")
