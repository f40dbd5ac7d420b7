"""Numbers in URLs and forms are plain 0-9: "²" passes `str.isdigit()` but `int()` refuses it, which answered 500
on `GET /api/categories/²` (found by the Schemathesis run, tests/api/test_openapi_fuzz.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from starlette.requests import Request

from marketplace.api.uploads import _content_length
from marketplace.services.text import is_digits, plain_number
from tests import factories

ODD_DIGITS = ["\u00b2", "\u0663", "\uff11\uff12"]  # superscript two, Arabic-Indic three, full-width one two


def test_only_ascii_digits_count_as_digits():
    assert is_digits("0123456789")
    assert not any(is_digits(value) for value in [*ODD_DIGITS, "", "1.5", "-1"])


def test_a_typed_number_is_plain_digits_with_one_point():
    """The one rule for numbers people type (settings, prices): `Decimal()` would read all of the refused ones."""
    assert [plain_number(v) for v in ("15", " 0.92 ", ".5", "29.")] == [15, Decimal("0.92"), Decimal("0.5"), 29]
    refused = [*ODD_DIGITS, "1e30", "1e-4", "1_000", "-1", "+1", "NaN", "Infinity", "", ".", "1.2.3", "9" * 33]
    assert [value for value in refused if plain_number(value) is not None] == []


@pytest.mark.parametrize("value", ODD_DIGITS)
def test_an_agent_price_in_other_digits_is_refused(client, login, value):
    login(factories.make_vendor())
    draft = {"name": "Agent", "shortDescription": "Short", "description": "Long", "price": value,
             "categoryId": factories.make_category().id}
    response = client.post("/api/vendor/agents", json=draft)
    assert (response.status_code, response.json()) == (
        400, {"message": "Price must be a number such as 29.99", "field": "price"}), response.text


@pytest.mark.parametrize("value", ODD_DIGITS)
def test_a_category_reference_with_other_digits_is_not_found(client, value):
    response = client.get(f"/api/categories/{value}")
    assert response.status_code == 404, response.text


@pytest.mark.parametrize("value", ODD_DIGITS)
def test_an_agent_list_filtered_by_other_digits_is_refused(client, value):
    response = client.get("/api/agents", params={"category": value})
    assert response.status_code == 422, response.text


@pytest.mark.parametrize("value", ODD_DIGITS)
def test_a_review_rating_in_other_digits_is_refused(client, login, value):
    agent = factories.make_agent()
    login(factories.make_buyer(agent))
    response = client.post(f"/api/agents/{agent.id}/reviews", json={"rating": value, "comment": "Fine"})
    assert response.status_code == 422, response.text


@pytest.mark.parametrize("value", ODD_DIGITS)
def test_an_agent_draft_category_in_other_digits_is_refused(client, login, value):
    login(factories.make_vendor())
    draft = {"name": "Agent", "shortDescription": "Short", "description": "Long", "price": "1", "categoryId": value}
    response = client.post("/api/vendor/agents", json=draft)
    assert response.status_code == 400, response.text
    assert response.json()["field"] == "category_id"


def test_a_content_length_in_other_digits_is_no_length():
    request = Request({"type": "http", "headers": [(b"content-length", "²".encode("latin-1"))]})
    assert _content_length(request) is None
